#include "mpa/diagnosis.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string>

#include "check/mpa_startup.hpp"
#include "mpa/headers.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::mpa {
namespace {

std::string hex(std::uint64_t v, int width) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llx", width, static_cast<unsigned long long>(v));
  return buf;
}

std::uint32_t swap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}
std::uint16_t swap16(std::uint16_t v) { return static_cast<std::uint16_t>((v >> 8) | (v << 8)); }

EnhancedData exchanged(const EnhancedData& e) {
  const EnhancedDataHeader h = e.to_header();
  std::array<std::uint8_t, kEnhancedDataSize> o{};
  const wire::Bytes b = h.bytes();
  std::copy(b.begin() + 2, b.begin() + 4, o.begin());
  std::copy(b.begin(), b.begin() + 2, o.begin() + 2);
  wire::ByteReader r{wire::Bytes(o)};
  return EnhancedData::from_header(*EnhancedDataHeader::decode(r));
}

}  // namespace

std::optional<wire::Hint> diagnose_crc(std::uint32_t received, std::uint32_t computed) {
  if (received == computed || swap32(received) != computed || received == swap32(received)) return std::nullopt;
  return wire::Hint{wire::kByteSwapped.id,
                    "the CRC field holds this FPDU's CRC32c " + hex(computed, 8) +
                        " with its four octets in reverse order: it was written most significant octet first, "
                        "where RFC 5044 §4.4 (as iSCSI) sends the least significant octet first"};
}

std::optional<wire::Hint> diagnose_ulpdu_length(wire::Bytes fpdu) {
  if (fpdu.size() < kUlpduLengthSize) return std::nullopt;
  const auto sent = static_cast<std::uint16_t>((fpdu[0] << 8) | fpdu[1]);
  const std::uint16_t meant = swap16(sent);
  if (meant == sent) return std::nullopt;
  const std::size_t total = fpdu_length_without_markers(meant);
  if (fpdu.size() < total) return std::nullopt;
  const std::uint32_t crc = wire::crc32c(fpdu.first(total - kCrcSize));
  if (crc != wire::crc32c_from_wire(fpdu.subspan(total - kCrcSize, kCrcSize))) return std::nullopt;
  return wire::Hint{wire::kByteSwapped.id,
                    "ULPDU_Length " + hex(sent, 4) + " (" + std::to_string(sent) + ") is " + std::to_string(meant) +
                        " sent least significant octet first: with that length the FPDU's CRC32c checks; RFC 5044 "
                        "§4.1 sends the field in network order"};
}

std::optional<wire::Hint> diagnose_pd_length(std::uint16_t pd_length) {
  const std::uint16_t meant = swap16(pd_length);
  if (pd_length <= kMaxPrivateDataLength || meant > kMaxPrivateDataLength) return std::nullopt;
  return wire::Hint{wire::kByteSwapped.id, "PD_Length " + hex(pd_length, 4) + " (" + std::to_string(pd_length) + ") is " +
                                        std::to_string(meant) +
                                        " sent least significant octet first; RFC 5044 §7.1 sends it in network order"};
}

bool reply_p2p_valid(const EnhancedData& q, const EnhancedData& p) {
  return !check::p2p_echo(q, p) && !check::reply_rtr_at_least_one(q, p);
}

std::optional<wire::Hint> diagnose_ird_ord_swapped(const EnhancedData& request, const EnhancedData& reply) {
  if (!request.peer_to_peer || reply_p2p_valid(request, reply)) return std::nullopt;
  const EnhancedData fixed = exchanged(reply);
  if (!reply_p2p_valid(request, fixed)) return std::nullopt;
  std::string kinds;
  for (const auto& [set, what] : {std::pair{fixed.rtr_send, "zero-length Send"},
                                  std::pair{fixed.rtr_write, "zero-length RDMA Write"},
                                  std::pair{fixed.rtr_read, "zero-length RDMA Read"}})
    if (set) kinds += (kinds.empty() ? "the " : " and the ") + std::string(what);
  return wire::Hint{wire::kIrdOrdSwapped.id, "read with its IRD and ORD words exchanged the Reply sets A, sets " + kinds +
                                           " RTR and has IRD " + std::to_string(fixed.ird) + ", ORD " +
                                           std::to_string(fixed.ord) +
                                           "; RFC 6581 §9 sends the IRD word (A, B, IRD) first, then the ORD word "
                                           "(C, D, ORD)"};
}

}  // namespace rdmaconf::mpa
