// The test ULP profile (docs/conformance.md, "Test ULP"): how an IUT tells
// the tester which buffers it registered, and how the tester asks for
// per-connection options. Both ride in MPA private data (RFC 5044 §7.1.4),
// which the RFCs leave to the ULP.
//
//   advertisement  "RDMACONF" | version 1 | count | count x
//                  (name[8] NUL padded, STag[4], base TO[8], length[4]), big-endian
//   hint           "RDMACONF" | version 1 | flags (0x01: ask for Markers)
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "wire/bytes.hpp"

namespace rdmaconf::conformance {

inline constexpr std::uint8_t kHintMarkers = 0x01;

struct AdvertisedBuffer {
  std::string name;  // at most 8 characters
  std::uint32_t stag = 0;
  std::uint64_t base_to = 0;
  std::uint32_t length = 0;
};

std::vector<std::uint8_t> make_advertisement(const std::vector<AdvertisedBuffer>& buffers);
// Variables "<name>.stag", "<name>.to", "<name>.len"; empty when the private
// data holds no advertisement.
std::vector<std::pair<std::string, std::uint64_t>> parse_advertisement(wire::Bytes private_data);

std::vector<std::uint8_t> make_hint(std::uint8_t flags);
// The flags of a hint, or 0.
std::uint8_t parse_hint(wire::Bytes private_data);

}  // namespace rdmaconf::conformance
