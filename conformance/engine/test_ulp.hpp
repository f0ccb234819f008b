// The test ULP profile (docs/conformance.md, "Test ULP"): how an IUT tells
// the tester which buffers it registered, and how the tester asks for
// per-connection options. Both ride in MPA private data (RFC 5044 §7.1.4),
// which the RFCs leave to the ULP.
//
//   advertisement  "RDMACONF" | version 1 | count | count x
//                  (name[8] NUL padded, STag[4], base TO[8], length[4]), big-endian
//   hint           "RDMACONF" | version 1 | flags (0x01: ask for Markers;
//                  0x02: the IUT's ULP issues RDMA Reads, so it needs an
//                  ORD of at least 1)
//   command        a Send from the tester whose payload is UlpCommandSpec
//                  below: the IUT starts an operation as requester
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

#include "wire/bytes.hpp"
#include "wire/field.hpp"

namespace rdmaconf::conformance {

inline constexpr std::uint8_t kHintMarkers = 0x01;
inline constexpr std::uint8_t kHintReads = 0x02;

// A test ULP command (`needs: commands`): rules on the IUT as requester (RDMA
// Read and Atomic Requests, their ORD limit and the Read fence, untagged
// segmentation of a long Send, RDMA Write) can only be seen when the IUT
// sends, so the tester asks it to, the way Autobahn's echo server is asked
// to echo. An IUT does not echo a command; it obeys it.
// What a command asks the IUT to do.
enum class UlpOperation : std::uint8_t { kRead = 1, kSend = 2, kWrite = 3, kAtomic = 4 };

namespace ulp_names {
inline constexpr wire::ValueName kOperation[] = {{static_cast<std::uint8_t>(UlpOperation::kRead), "read"},
                                                 {static_cast<std::uint8_t>(UlpOperation::kSend), "send"},
                                                 {static_cast<std::uint8_t>(UlpOperation::kWrite), "write"},
                                                 {static_cast<std::uint8_t>(UlpOperation::kAtomic), "atomic"}};
inline constexpr wire::ValueName kAtomicOpcode[] = {{0, "fetchadd"}, {1, "swap"}, {2, "cmpswap"}};
}  // namespace ulp_names
inline constexpr std::string_view kTestUlpProfile = "docs/conformance.md, Test ULP";
// Every message of the profile starts with these octets.
inline constexpr std::string_view kUlpMagicText = "RDMACONF";
// ... read as the command's 64-bit Magic field.
inline constexpr std::uint64_t kUlpMagic = [] {
  std::uint64_t v = 0;
  for (char c : kUlpMagicText) v = (v << 8) | static_cast<std::uint8_t>(c);
  return v;
}();

struct UlpCommandSpec {
  enum class Field : std::uint8_t {
    Magic, Version, Operation, Count, Fence, Reserved, Length, Stag, TaggedOffset, AtomicOpcode, Reserved2,
    Data, Compare
  };
  static constexpr wire::FieldDecl fields[] = {
      {"Magic", "ulp.magic", 0, 64, "\"RDMACONF\"", kTestUlpProfile, wire::Display::kHex},
      {"Version", "ulp.version", 64, 8, "profile version, 1", kTestUlpProfile},
      {"Operation", "ulp.op", 72, 8, "what the IUT does as requester", kTestUlpProfile, wire::Display::kDecimal,
       ulp_names::kOperation},
      {"Count", "ulp.count", 80, 8, "how many such operations it posts back to back", kTestUlpProfile},
      {"Fence", "ulp.fence", 88, 1, "then a 4-octet Send posted with the Read fence (RFC 5040 §5.5)",
       kTestUlpProfile, wire::Display::kFlag},
      {"Reserved", "ulp.reserved", 89, 31, "zero", kTestUlpProfile, wire::Display::kHex},
      {"Length", "ulp.length", 120, 32, "octets to read, send or write", kTestUlpProfile},
      {"STag", "ulp.stag", 152, 32, "the tester's buffer: Data Source of a Read, Data Sink of a Write, target of an Atomic",
       kTestUlpProfile, wire::Display::kHex},
      {"Tagged Offset", "ulp.to", 184, 64, "where in that buffer", kTestUlpProfile, wire::Display::kHex},
      {"Atomic opcode", "ulp.atomic_opcode", 248, 8, "RFC 7306 §5 atomic operation", kTestUlpProfile,
       wire::Display::kDecimal, ulp_names::kAtomicOpcode},
      {"Reserved", "ulp.reserved2", 256, 32, "zero", kTestUlpProfile, wire::Display::kHex},
      {"Add or Swap Data", "ulp.data", 288, 64, "the Atomic's Add or Swap Data", kTestUlpProfile, wire::Display::kHex},
      {"Compare Data", "ulp.compare", 352, 64, "the CompareSwap's Compare Data", kTestUlpProfile, wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"Test ULP command", "ulp", 52, fields, kTestUlpProfile};
};
using UlpCommand = wire::Header<UlpCommandSpec>;
static_assert(wire::tiles_exactly(UlpCommandSpec::decl));

// The command in a received Send's payload, if it is one.
std::optional<UlpCommand> parse_command(wire::Bytes payload);

// One buffer of an advertisement, as it travels.
struct AdvertisedBufferSpec {
  enum class Field : std::uint8_t { Name, Stag, BaseTo, Length };
  static constexpr wire::FieldDecl fields[] = {
      {"Name", "ulp.ad.name", 0, 64, "the buffer's name, NUL padded", kTestUlpProfile, wire::Display::kAscii},
      {"STag", "ulp.ad.stag", 64, 32, "its STag", kTestUlpProfile, wire::Display::kHex},
      {"Base TO", "ulp.ad.to", 96, 64, "the Tagged Offset of its first octet", kTestUlpProfile, wire::Display::kHex},
      {"Length", "ulp.ad.len", 160, 32, "its length in octets", kTestUlpProfile},
  };
  static constexpr wire::HeaderDecl decl{"Test ULP advertised buffer", "ulp.ad", 24, fields, kTestUlpProfile};
};
using AdvertisedBufferEntry = wire::Header<AdvertisedBufferSpec>;

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
