// The Data Source side of DDP: one ULP message in, a list of DDP segments
// out, each no longer than the LLP's MULPDU (RFC 5041 §5.2).
//
// A segment is its header octets (the DDP header, plus any ULP header octets
// such as an RDMAP Read Request header that open the message) and views of
// the payload: payload octets are never copied, so the caller keeps the
// message's memory alive until the LLP (MPA's framer) has consumed them.
//
// RFC 5041 §5.2: every segment carries the tagged buffer's STag with the TO
// advanced by the octets before it, or the untagged queue's QN and MSN with
// the MO advanced; only the final segment has L set (§4.1).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ddp/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/chunks.hpp"
#include "wire/result.hpp"

namespace rdmaconf::ddp {

// Room for the largest header a segment opens with: an untagged DDP header
// and a Terminate carrying a copied untagged DDP header and an Atomic
// Request header (18 + 4 + 2 + 18 + 52 octets).
constexpr std::size_t kMaxSegmentHeader = 96;

struct Segment {
  std::array<std::uint8_t, kMaxSegmentHeader> header_octets{};
  std::size_t header_size = 0;
  wire::Chunks payload;  // views into the message's memory

  wire::Bytes header() const { return wire::Bytes(header_octets).first(header_size); }
  std::size_t size() const { return header_size + payload.size(); }
  // Contiguous copy of header and payload, for tests and captures.
  std::vector<std::uint8_t> to_vector() const;
};

// Where a tagged message goes (RFC 5041 §4.2).
struct TaggedTarget {
  std::uint8_t rsvd_ulp = 0;  // RDMAP control field
  Stag stag{};
  std::uint64_t to = 0;  // TO of the message's first octet
  std::uint8_t dv = kDdpVersion;  // overridable for conformance cases
};

// Where an untagged message goes (RFC 5041 §4.3).
struct UntaggedTarget {
  std::uint8_t rsvd_ulp = 0;     // RDMAP control field
  std::uint32_t rsvd_ulp32 = 0;  // RDMAP: Invalidate STag or zero
  QueueNumber qn{};
  Msn msn{};
  std::uint8_t dv = kDdpVersion;
};

// Splits the message `ulp_header ++ payload` into segments of at most
// `mulpdu` octets. The ULP header is copied into the first segment's header
// octets and must fit in that segment. Errors: an MULPDU that leaves no room
// for payload, a ULP header that does not fit, a message of 2^32 octets or
// more (RFC 5041 §5.2).
wire::Result<std::vector<Segment>> segment_tagged(const TaggedTarget& target,
                                                  wire::Bytes ulp_header,
                                                  const wire::Chunks& payload,
                                                  std::size_t mulpdu);
wire::Result<std::vector<Segment>> segment_untagged(const UntaggedTarget& target,
                                                    wire::Bytes ulp_header,
                                                    const wire::Chunks& payload,
                                                    std::size_t mulpdu);

// The same, with the segments put in `out` (emptied first; its capacity is
// kept): a stream that sends many messages reuses one list instead of
// allocating one per message. On an error `out` is left empty.
wire::Status segment_tagged(const TaggedTarget& target, wire::Bytes ulp_header,
                            const wire::Chunks& payload, std::size_t mulpdu,
                            std::vector<Segment>& out);
wire::Status segment_untagged(const UntaggedTarget& target, wire::Bytes ulp_header,
                              const wire::Chunks& payload, std::size_t mulpdu,
                              std::vector<Segment>& out);

}  // namespace rdmaconf::ddp
