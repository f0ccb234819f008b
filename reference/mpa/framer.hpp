// Builds FPDUs (RFC 5044 §4.1, §4.3, §4.4) from ULPDUs, scapy style: the
// ULPDU_Length, PAD, CRC and Markers are computed unless a conformance case
// forces them (a wrong length, a bad CRC, non-zero PAD, a wrong FPDUPTR, a
// missing Marker).
//
// The framer tracks the stream position of the direction it sends on
// (octets since the start of full operation, RFC 5044 §4.3), because Marker
// positions are a property of the TCP stream, not of an FPDU. Every octet
// appended to `out` is assumed to be sent, in order, right after the
// previous FPDU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "mpa/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/chunks.hpp"

namespace rdmaconf::mpa {

struct FramerConfig {
  bool markers = false;  // negotiated: the peer's M
  bool crc = true;       // negotiated: C in either frame
  // Octets already sent in full operation (0 for a new connection).
  std::uint64_t stream_position = 0;
};

// Forced values for one FPDU; unset means computed.
struct FramerOverrides {
  std::optional<std::uint16_t> ulpdu_length;  // ULPDU_Length field only; the ULPDU is sent as given
  std::optional<std::size_t> pad_length;      // number of PAD octets sent
  std::uint8_t pad_octet = 0;                 // value of every PAD octet
  std::optional<std::uint32_t> crc;           // CRC value carried (still least significant octet first)
  std::optional<std::uint16_t> fpdu_ptr;      // FPDUPTR of every Marker inside this FPDU
  std::uint16_t marker_reserved = 0;          // Reserved field of those Markers
  bool omit_markers = false;                  // send this FPDU without its Markers
};

class Framer {
 public:
  explicit Framer(FramerConfig config = {}) : config_(config), position_(config.stream_position) {}

  // Appends one FPDU carrying `ulpdu` to `out`; returns the octets appended.
  std::size_t frame(const wire::Chunks& ulpdu, std::vector<std::uint8_t>& out,
                    const FramerOverrides& overrides = {});
  std::size_t frame(wire::Bytes ulpdu, std::vector<std::uint8_t>& out, const FramerOverrides& overrides = {});

  // Octets an FPDU carrying `ulpdu_length` octets takes if sent next,
  // Markers included.
  std::size_t fpdu_size(std::size_t ulpdu_length) const;
  // The largest ULPDU whose FPDU, sent next, fits in `fpdu_budget` octets
  // (e.g. the TCP MSS, for RFC 5044's MULPDU); 0 if none fits.
  std::size_t max_ulpdu_length(std::size_t fpdu_budget) const;

  std::uint64_t stream_position() const { return position_; }
  const FramerConfig& config() const { return config_; }

 private:
  FramerConfig config_;
  std::uint64_t position_;
};

}  // namespace rdmaconf::mpa
