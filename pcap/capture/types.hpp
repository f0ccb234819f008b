// Units of the capture layer: frame numbers, stream offsets, timestamps and
// endpoints. Distinct types keep "the 7th frame", "octet 7 of the stream" and
// "sequence number 7" from being mixed up.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

namespace rdmaconf::capture {

// Frames are numbered from 1 in file order, as Wireshark's frame.number is,
// so a report's frame number can be typed into Wireshark's "Go to packet".
struct FrameNumber {
  std::uint64_t value = 0;
  friend auto operator<=>(const FrameNumber&, const FrameNumber&) = default;
};

// An octet position in one direction of a TCP connection, counted from the
// first octet after the SYN (or from the first octet seen, when the capture
// starts mid-connection). 64 bits: a stream longer than 4 GiB keeps counting
// where the 32-bit sequence number wraps.
using StreamOffset = std::uint64_t;

// A 32-bit TCP sequence number (RFC 9293 §3.4): compared only modulo 2^32.
struct SeqNum {
  std::uint32_t value = 0;
  friend bool operator==(const SeqNum&, const SeqNum&) = default;
};
// Signed distance from `from` to `to`, modulo 2^32 (RFC 9293 §3.4 / RFC 1982
// serial arithmetic): positive when `to` lies after `from`.
constexpr std::int64_t seq_distance(SeqNum from, SeqNum to) {
  return static_cast<std::int32_t>(to.value - from.value);
}

// Capture time, nanoseconds since the Unix epoch.
struct Timestamp {
  std::int64_t ns = 0;
  friend auto operator<=>(const Timestamp&, const Timestamp&) = default;
};

enum class IpVersion : std::uint8_t { kV4 = 4, kV6 = 6 };
// Octets of an address of each version (RFC 791 §3.1, RFC 8200 §3).
inline constexpr std::size_t kIpv4Octets = 4;
inline constexpr std::size_t kIpv6Octets = 16;
constexpr std::size_t address_octets(IpVersion v) { return v == IpVersion::kV4 ? kIpv4Octets : kIpv6Octets; }

// An IP address of either family; IPv4 uses the first 4 octets.
struct IpAddress {
  IpVersion version = IpVersion::kV4;
  std::array<std::uint8_t, 16> octets{};
  // Written out: libc++ 14 (the standard library OSS-Fuzz builds with) has
  // no operator<=> for std::array, so a defaulted one would be deleted.
  friend std::strong_ordering operator<=>(const IpAddress& a, const IpAddress& b) {
    if (a.version != b.version) return a.version <=> b.version;
    for (std::size_t i = 0; i < a.octets.size(); ++i)
      if (a.octets[i] != b.octets[i]) return a.octets[i] <=> b.octets[i];
    return std::strong_ordering::equal;
  }
  friend bool operator==(const IpAddress&, const IpAddress&) = default;
  std::string to_string() const;
};

struct Endpoint {
  IpAddress address;
  std::uint16_t port = 0;
  friend auto operator<=>(const Endpoint&, const Endpoint&) = default;
  std::string to_string() const;  // "192.0.2.1:5000", "[2001:db8::1]:5000"
};

IpAddress ipv4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d);
IpAddress ipv6(const std::array<std::uint8_t, 16>& octets);

}  // namespace rdmaconf::capture
