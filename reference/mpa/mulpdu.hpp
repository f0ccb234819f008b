// RFC 5044 §4.1, §6: the MULPDU, the largest ULPDU an FPDU that fits in one
// TCP segment can carry. A sender sizes its ULPDUs by it; a receiver that
// reads a ULPDU_Length above any MULPDU knows the stream is broken.
#pragma once

#include <algorithm>
#include <cstddef>

namespace rdmaconf::mpa {

// The largest ULPDU that fits in one TCP segment of `emss` octets, allowing
// for ULPDU_Length and CRC (6 octets), the worst-case Markers (one per 512
// octets) and the PAD.
constexpr std::size_t mulpdu_for_emss(std::size_t emss) {
  const std::size_t overhead = 6 + 4 * ((emss + 511) / 512) + emss % 4;
  const std::size_t m = emss > overhead ? emss - overhead : 0;
  return std::min<std::size_t>(m, 0xffff);
}

// The largest payload of a TCP segment over IPv4 (65535 - 20 - 20 octets).
// No sender's EMSS is larger, so a ULPDU_Length above
// mulpdu_for_emss(kLargestTcpPayload) cannot be right whoever sent it: the
// bound a receiver can apply without knowing the sender's EMSS.
inline constexpr std::size_t kLargestTcpPayload = 65495;
inline constexpr std::size_t kLargestMulpdu = mulpdu_for_emss(kLargestTcpPayload);
static_assert(kLargestMulpdu == 64974);

}  // namespace rdmaconf::mpa
