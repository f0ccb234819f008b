// CRC32c (the Castagnoli polynomial of RFC 3720 §12.1 / Appendix B.4), which
// MPA uses for its FPDU CRC (RFC 5044 §4.4 / §6.1).
//
// The arithmetic is ISA-L's crc32_iscsi. ISA-L takes the register's initial
// value and returns the register without the final inversion; the RFC 3720
// CRC starts the register at all ones and inverts at the end. That convention
// lives here only, so callers see "the CRC32c of these octets".
//
// On the wire the 32-bit CRC is carried least significant octet first, as
// iSCSI does (RFC 3720 B.4 lists 32 zero octets -> octets aa 36 91 8a); Linux
// siw writes it the same way. crc32c_wire_octets()/crc32c_from_wire() keep
// that byte order in one place.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "wire/bytes.hpp"

namespace rdmaconf::wire {

// Incremental CRC32c over several discontiguous views (an FPDU split by
// markers and TCP segments is checked without copying it together).
class Crc32c {
 public:
  void update(Bytes b);
  std::uint32_t value() const { return ~reg_; }
  void reset() { reg_ = 0xffffffffu; }

 private:
  std::uint32_t reg_ = 0xffffffffu;
};

std::uint32_t crc32c(Bytes b);

// The four octets that carry `crc` on the wire, and back.
constexpr std::array<std::uint8_t, 4> crc32c_wire_octets(std::uint32_t crc) {
  return {static_cast<std::uint8_t>(crc), static_cast<std::uint8_t>(crc >> 8),
          static_cast<std::uint8_t>(crc >> 16), static_cast<std::uint8_t>(crc >> 24)};
}
inline std::uint32_t crc32c_from_wire(Bytes four) {
  return static_cast<std::uint32_t>(four[0]) | static_cast<std::uint32_t>(four[1]) << 8 |
         static_cast<std::uint32_t>(four[2]) << 16 | static_cast<std::uint32_t>(four[3]) << 24;
}

}  // namespace rdmaconf::wire
