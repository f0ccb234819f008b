// The two DDP headers, RFC 5041 §4, declared once as data.
//
// Every DDP segment starts with the 8-bit DDP Control Field (T, L, Rsvd, DV;
// RFC 5041 §4.1) followed by 8 bits the DDP layer carries for its upper layer
// (RsvdULP). The T bit selects the rest: a tagged segment names an advertised
// buffer by STag and Tagged Offset (§4.2, 14 octets in all); an untagged one
// names a queue, a message in it and an offset in that message (§4.3, 18
// octets, with 40 RsvdULP bits split 8 + 32). RDMAP gives the RsvdULP bits
// their meaning (rdmap/headers.hpp); here they are opaque.
#pragma once

#include <cstddef>
#include <cstdint>

#include "wire/field.hpp"

namespace rdmaconf::ddp {

// Distinct types for the identifiers a DDP header carries, so that a queue
// number is never passed where an STag or a sequence number belongs.
enum class Stag : std::uint32_t {};
enum class QueueNumber : std::uint32_t {};
enum class Msn : std::uint32_t {};

constexpr std::uint32_t value(Stag s) { return static_cast<std::uint32_t>(s); }
constexpr std::uint32_t value(QueueNumber q) { return static_cast<std::uint32_t>(q); }
constexpr std::uint32_t value(Msn m) { return static_cast<std::uint32_t>(m); }
// RFC 5041 §4.3: MSN counts modulo 2^32 and starts at 1 on every queue.
constexpr Msn next(Msn m) { return Msn{value(m) + 1}; }
constexpr Msn kFirstMsn{1};

// RFC 5041 §4.1: DV is 1 for this version of DDP.
constexpr std::uint8_t kDdpVersion = 1;

constexpr std::size_t kTaggedHeaderSize = 14;
constexpr std::size_t kUntaggedHeaderSize = 18;
// The DDP Control Field and the first RsvdULP octet: common to both headers.
constexpr std::size_t kControlSize = 2;

namespace names {
inline constexpr wire::ValueName kTagged[] = {{0, "untagged"}, {1, "tagged"}};
inline constexpr wire::ValueName kLast[] = {{0, "more segments follow"}, {1, "last segment"}};
inline constexpr wire::ValueName kVersion[] = {{1, "DDP version 1 (RFC 5041)"}};
}  // namespace names

// RFC 5041 §4.2, Figure: DDP Tagged Buffer Model Header.
struct TaggedSpec {
  enum class Field : std::uint8_t { T, L, Rsvd, DV, RsvdULP, STag, TO };
  static constexpr wire::FieldDecl fields[] = {
      {"T", "t", 0, 1, "Tagged flag: 1, the payload goes to a tagged buffer", "RFC 5041 §4.1",
       wire::Display::kFlag, names::kTagged},
      {"L", "l", 1, 1, "Last flag: the final segment of its DDP message", "RFC 5041 §4.1",
       wire::Display::kFlag, names::kLast},
      {"Rsvd", "rsvd", 2, 4, "reserved, sent as zero", "RFC 5041 §4.1", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"DV", "dv", 6, 2, "DDP protocol version", "RFC 5041 §4.1", wire::Display::kDecimal,
       names::kVersion},
      {"RsvdULP", "rsvdulp", 8, 8, "8 bits carried for the ULP (RDMAP control field)",
       "RFC 5041 §4.2", wire::Display::kHex},
      {"STag", "stag", 16, 32, "Steering Tag of the Data Sink's tagged buffer", "RFC 5041 §4.2",
       wire::Display::kHex},
      {"TO", "to", 48, 64, "Tagged Offset in that buffer where this payload starts",
       "RFC 5041 §4.2", wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"DDP Tagged Buffer Model header", "ddp.tagged",
                                         kTaggedHeaderSize, fields, "RFC 5041 §4.2"};
};
using TaggedHeader = wire::Header<TaggedSpec>;

// RFC 5041 §4.3, Figure: DDP Untagged Buffer Model Header.
struct UntaggedSpec {
  enum class Field : std::uint8_t { T, L, Rsvd, DV, RsvdULP, RsvdULP32, QN, MSN, MO };
  static constexpr wire::FieldDecl fields[] = {
      {"T", "t", 0, 1, "Tagged flag: 0, the payload goes to an untagged buffer", "RFC 5041 §4.1",
       wire::Display::kFlag, names::kTagged},
      {"L", "l", 1, 1, "Last flag: the final segment of its DDP message", "RFC 5041 §4.1",
       wire::Display::kFlag, names::kLast},
      {"Rsvd", "rsvd", 2, 4, "reserved, sent as zero", "RFC 5041 §4.1", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"DV", "dv", 6, 2, "DDP protocol version", "RFC 5041 §4.1", wire::Display::kDecimal,
       names::kVersion},
      {"RsvdULP[0:7]", "rsvdulp", 8, 8, "first 8 ULP bits (RDMAP control field)",
       "RFC 5041 §4.3", wire::Display::kHex},
      {"RsvdULP[8:39]", "rsvdulp32", 16, 32, "next 32 ULP bits (RDMAP: Invalidate STag)",
       "RFC 5041 §4.3", wire::Display::kHex},
      {"QN", "qn", 48, 32, "Queue Number: which untagged buffer queue of the Data Sink",
       "RFC 5041 §4.3", wire::Display::kDecimal},
      {"MSN", "msn", 80, 32, "Message Sequence Number within the queue (starts at 1)",
       "RFC 5041 §4.3", wire::Display::kDecimal},
      {"MO", "mo", 112, 32, "Message Offset of this payload from the start of the message",
       "RFC 5041 §4.3", wire::Display::kDecimal},
  };
  static constexpr wire::HeaderDecl decl{"DDP Untagged Buffer Model header", "ddp.untagged",
                                         kUntaggedHeaderSize, fields, "RFC 5041 §4.3"};
};
using UntaggedHeader = wire::Header<UntaggedSpec>;

// RFC 5040 §4.2: the octet of either header that carries RDMAP's control
// field (RsvdULP, the same octet in both, RFC 5041 §4.1).
inline constexpr std::size_t kRsvdUlpOctet = TaggedHeader::field_decl(TaggedSpec::Field::RsvdULP).octet_offset();
static_assert(kRsvdUlpOctet == UntaggedHeader::field_decl(UntaggedSpec::Field::RsvdULP).octet_offset());

// The first two octets of any DDP header, enough to tell which header
// follows (the T bit) and for which version (DV).
struct Control {
  bool tagged = false;
  bool last = false;
  std::uint8_t rsvd = 0;
  std::uint8_t dv = 0;
  std::uint8_t rsvd_ulp = 0;  // RDMAP control field

  // Read through the tagged declaration: its first 16 bits are the same in
  // both headers (RFC 5041 §4.1). The two octets are copied first, which
  // lets the compiler fold every field read into one shift and mask (the
  // capture analyzer's per-FPDU path, docs/performance.md).
  static Control from_octets(std::uint8_t first, std::uint8_t second) {
    const std::uint8_t o[kControlSize] = {first, second};
    const wire::Bytes b(o);
    using F = TaggedSpec::Field;
    auto get = [&](F f) { return static_cast<std::uint8_t>(TaggedHeader::read(b, f)); };
    return Control{get(F::T) != 0, get(F::L) != 0, get(F::Rsvd), get(F::DV), get(F::RsvdULP)};
  }
  // The control of the header that starts `octets` (at least kControlSize of them).
  static Control read(wire::Bytes octets) { return from_octets(octets[0], octets[1]); }
  std::size_t header_size() const { return tagged ? kTaggedHeaderSize : kUntaggedHeaderSize; }
};

}  // namespace rdmaconf::ddp
