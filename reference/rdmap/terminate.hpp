// The RDMAP Terminate message body (RFC 5040 §4.8), the payload of an
// untagged DDP message on QN 2:
//
//   Terminate Control (4 octets: Layer, EType, Error Code, M, D, R, Reserved)
//   DDP Segment Length (2 octets)        present when M or D is set
//   Terminated DDP Header (14 or 18)     present when D is set; its own T bit
//                                        says which of the two DDP headers it is
//   Terminated RDMA Header               present when R is set: the RDMA Read
//                                        Request header (28 octets, RFC 5040) or,
//                                        for an Atomic Request, its header
//                                        (52 octets, RFC 7306)
//
// Linux siw and Intel irdma always set M and D together and put the segment
// length right before the copied DDP header; Wireshark reads the length when
// D is set. Accepting the length when either bit is set reads all of them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "ddp/errors.hpp"
#include "rdmap/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/result.hpp"

namespace rdmaconf::rdmap {

constexpr std::size_t kMaxTerminateSize = kTerminateControlSize + kTerminateSegmentLengthSize +
                                          ddp::kUntaggedHeaderSize + kAtomicRequestHeaderSize;

struct TerminateMessage {
  ddp::TerminateCode code;
  bool m = false;  // DDP Segment Length valid
  bool d = false;  // Terminated DDP Header included
  bool r = false;  // Terminated RDMA Header included
  std::uint16_t reserved = 0;  // 13 bits; zero unless a conformance case sets it
  std::uint16_t ddp_segment_length = 0;
  std::array<std::uint8_t, ddp::kUntaggedHeaderSize> ddp_header{};
  std::size_t ddp_header_size = 0;  // 0, 14 or 18
  std::array<std::uint8_t, kAtomicRequestHeaderSize> rdma_header{};
  std::size_t rdma_header_size = 0;  // 0, 28 or 52

  bool has_segment_length() const { return m || d; }
  wire::Bytes copied_ddp_header() const { return wire::Bytes(ddp_header).first(ddp_header_size); }
  wire::Bytes copied_rdma_header() const {
    return wire::Bytes(rdma_header).first(rdma_header_size);
  }
  std::size_t encoded_size() const {
    return kTerminateControlSize + (has_segment_length() ? kTerminateSegmentLengthSize : 0) +
           ddp_header_size + rdma_header_size;
  }
  friend bool operator==(const TerminateMessage&, const TerminateMessage&) = default;
};

// The header octets of the segment a Terminate reports (RFC 5040 §4.8):
// its DDP header, the RDMAP header that opened it if any, and the segment's
// length (DDP header plus payload).
struct OffendingSegment {
  wire::Bytes ddp_header;   // 14 or 18 octets
  wire::Bytes rdma_header;  // the Read Request or Atomic Request header, or empty
  std::uint32_t segment_length = 0;
};

// Builds the Terminate for `code`, copying from `offending` what the
// registry row says the error copies (ddp::Copies), or `copies` when given
// (a conformance fault). With no offending segment (an error not caused by
// one), nothing is copied.
TerminateMessage make_terminate(ddp::TerminateCode code, const OffendingSegment* offending,
                                std::optional<ddp::Copies> copies = std::nullopt);

// Writes the body exactly as the fields say (M/D/R are not recomputed, so a
// conformance case can send an inconsistent Terminate).
void encode(const TerminateMessage& t, wire::ByteWriter& w);

// Decodes a Terminate body; every inconsistency is a typed error: reserved
// bits set, R without D, a copied DDP header shorter than its T bit demands,
// R for a message with no RDMAP request header, octets left over or missing.
wire::Result<TerminateMessage> decode_terminate(wire::Bytes body);

// The length of the RDMAP request header a Terminate copies for a message of
// this opcode (28 for an RDMA Read Request, 52 for an Atomic Request, else 0).
std::size_t copied_rdma_header_size(std::uint8_t opcode);

}  // namespace rdmaconf::rdmap
