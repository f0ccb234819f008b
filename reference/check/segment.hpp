// The rules of one DDP segment and its RDMAP message (RFC 5041, RFC 5040,
// RFC 7306), each implemented once, for every tool that judges segments.
//
// A receiving endpoint (rdmap::Stream) and a passive observer of both peers
// (the capture analyzer, the Wireshark plugin through it) check the same
// sentences of the RFCs. Each function below is one rule: it takes the
// decoded header (through the declarations in ddp/headers.hpp and
// rdmap/headers.hpp) and the least state the rule needs, and returns the
// Violation (rule, field, octet, seen and expected value) or nothing. It
// neither reports nor acts: the endpoint maps the Violation to its Terminate
// (layer, type and code of RFC 5040 §4.8 / RFC 5041 §7.2) and stops; the
// observer words it and goes on. segment_implementations() lists which
// function implements which rule id, and a test holds that no rule has two.
//
// Some rules only an observer can check: a sender's sequence (MSNs and MOs
// per queue, TOs of a tagged message) and whether a Read Response goes where
// its Request asked. A receiver checks its own side of them through its
// buffers (ddp/placement.hpp: MSN range, no buffer, MO beyond the buffer),
// which are other rules of RFC 5041 §7.1 with other codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "check/rule.hpp"
#include "ddp/headers.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"

namespace rdmaconf::check {

// ---- the registry rows of these rules (ids of the requirement catalogue)
inline constexpr const Rule& kSegmentHeader = rule<"rfc5041-4.4-segment-header">;
inline constexpr const Rule& kDdpVersion = rule<"rfc5041-4.1-dv-1">;
inline constexpr const Rule& kMsnSequence = rule<"rfc5041-4.3-msn-increment">;
inline constexpr const Rule& kMoSequence = rule<"rfc5041-5.2-untagged-mo-advance">;
inline constexpr const Rule& kToSequence = rule<"rfc5041-5.2-tagged-to-advance">;
inline constexpr const Rule& kQueueNumber = rule<"rfc5040-4.1-qn-opcode-match">;
inline constexpr const Rule& kRdmapVersion = rule<"rfc5040-4.1-rv-1">;
inline constexpr const Rule& kOpcodeDefined = rule<"rfc5040-4.1-opcodes">;
inline constexpr const Rule& kOpcodeTagged = rule<"rfc5040-4.1-tagged-kinds">;
inline constexpr const Rule& kSingleSegment = rule<"rfc5040-5.2.1-single-segment">;
inline constexpr const Rule& kExactSize = rule<"rfc5040-4.2-payload-size">;
inline constexpr const Rule& kReadUnsolicited = rule<"rfc5040-5.2-read-response-solicited">;
inline constexpr const Rule& kReadResponseSink = rule<"rfc5040-5.2.2-read-response-sink">;
inline constexpr const Rule& kReadResponseSize = rule<"rfc5040-5.2-read-response-size">;
inline constexpr const Rule& kOrdExceeded = rule<"rfc5040-6.1-ord-limit">;
inline constexpr const Rule& kAtomicUnsolicited = rule<"rfc7306-5.2.1-response-order">;
inline constexpr const Rule& kTerminateFormat = rule<"rfc5040-4.8-terminate-format">;
inline constexpr const Rule& kAfterTerminate = rule<"rfc5040-5.4-terminate-last">;

// ---- the header of a segment: shape, versions, opcode (RFC 5041 §4, RFC 5040 §4)

// RFC 5041 §4: the segment holds `needed` octets of DDP header (first the
// control field, then the header its T bit selects).
Outcome segment_header(std::size_t segment_size, std::size_t needed);
// RFC 5041 §4.1: DV is 1.
Outcome ddp_version(const ddp::Control& c);
// RFC 5040 §4.2: RV is 1.
Outcome rdmap_version(const rdmap::Control& c);
// RFC 5040 §4.3, RFC 7306 §4: a defined opcode. `row` is find_opcode's answer.
Outcome opcode_defined(const rdmap::Control& c, const rdmap::OpcodeInfo* row);
// RFC 5040 §4.3: the T bit the opcode's buffer model needs.
Outcome opcode_buffer_model(const rdmap::OpcodeInfo& row, const ddp::Control& c);
// RFC 5040 §4.1, RFC 5041 §4.3: an untagged message on its opcode's queue
// (and on one of RDMAP's queues at all). `row` may be null (undefined opcode).
Outcome queue_number(const rdmap::OpcodeInfo* row, std::uint32_t qn);
// RFC 5040 §4.3, §5.2.1, §5.4, RFC 7306 §5-§6: one segment, L set.
Outcome single_segment(const rdmap::OpcodeInfo& row, bool last);
// RFC 5040 §4.4, §4.8, RFC 7306 §4: a fixed-size message carries exactly its
// RDMAP header (kExactSize); a Terminate at least its Terminate Control
// (kTerminateFormat). `payload` counts the DDP payload, RDMAP header included.
Outcome payload_size(const rdmap::OpcodeInfo& row, std::size_t payload);

// ---- sequence of a sender (RFC 5041 §5.2, §4.3): what an observer checks

// RFC 5041 §5.2: the MO a segment must carry, `expected` being 0 for the
// first segment of a message and the previous segment's MO plus its payload
// otherwise. A receiver that knows a message is one segment long checks it
// with 0.
Outcome message_offset(std::uint32_t mo, std::uint32_t expected);

// Per untagged queue of one sender: the message in progress, or the next.
struct QueueSequence {
  bool known = false;      // false after a resynchronisation, until a segment is seen
  bool in_message = false;
  std::uint32_t msn = ddp::value(ddp::kFirstMsn);
  std::uint32_t next_mo = 0;
};
// RFC 5041 §4.3, §5.2: MSN 1 first, one more per message; MOs from 0 up.
Outcome untagged_sequence(const QueueSequence& q, std::uint32_t msn, std::uint32_t mo);
void advance(QueueSequence& q, std::uint32_t msn, std::uint32_t mo, bool last, std::uint32_t payload);

// Per sender: the tagged message in progress.
struct TaggedSequence {
  bool in_message = false;
  std::uint32_t stag = 0;
  std::uint64_t next_to = 0;
};
// RFC 5041 §5.2: the segments of a tagged message keep its STag and their TOs follow on.
Outcome tagged_sequence(const TaggedSequence& t, std::uint32_t stag, std::uint64_t to);
void advance(TaggedSequence& t, std::uint32_t stag, std::uint64_t to, bool last, std::uint32_t payload);

// ---- requests and responses (RFC 5040 §5.2, RFC 7306 §5)

// RFC 5040 §5.2.2: a Read Response needs an outstanding Read Request.
Outcome read_response_solicited(std::size_t outstanding_reads);
// RFC 5040 §5.2.2: the Read Response goes to the Data Sink STag and TO of the
// Request it answers; `expected_to` is the Sink TO plus what was answered so far.
Outcome read_response_sink(std::uint32_t stag, std::uint64_t to, std::uint32_t expected_stag,
                           std::uint64_t expected_to);
// RFC 5040 §5.2.2: the Read Response carries the RDMA Read Message Size exactly.
Outcome read_response_size(std::uint64_t answered, std::uint32_t requested);
// RFC 5040 §5.2.1, RFC 7306 §5, RFC 6581 §9: inbound Read (and Atomic)
// Requests outstanding, this one included, stay within the receiver's IRD.
Outcome inbound_requests(std::size_t outstanding, std::uint32_t ird);
// RFC 7306 §5: an Atomic Response names the oldest outstanding Request.
Outcome atomic_response_order(std::optional<std::uint32_t> oldest, std::uint32_t request_identifier);

// RFC 5040 §5.4: nothing follows a sender's Terminate.
Outcome after_terminate(bool sender_terminated);

// ---- which function implements which rule (the table in segment.cpp;
// registry.hpp joins it with the other rule files')
std::span<const Implementation> segment_implementations();
// Every rule of this file, in registry order.
std::span<const Rule* const> segment_rules();

// ---- definitions: inline, because the capture analyzer runs them for every
// FPDU and a call each would cost more than the comparison (docs/performance.md).

// Helpers of the definitions below, not part of the rule layer's surface.
namespace detail {
using TF = ddp::TaggedSpec::Field;
using UF = ddp::UntaggedSpec::Field;
using CF = rdmap::ControlSpec::Field;

// A Violation of `r` at a field of a DDP header or of the RDMAP control
// field, named and placed by its declaration (the RDMAP control field is
// the DDP header's RsvdULP octet, RFC 5040 §4.2).
constexpr Violation broke(const Rule& r, TF f, std::uint64_t seen, std::uint64_t expected) {
  const wire::FieldDecl& d = ddp::TaggedHeader::field_decl(f);
  return Violation{&r, d.name, d.octet_offset(), seen, expected};
}
constexpr Violation broke(const Rule& r, UF f, std::uint64_t seen, std::uint64_t expected) {
  const wire::FieldDecl& d = ddp::UntaggedHeader::field_decl(f);
  return Violation{&r, d.name, d.octet_offset(), seen, expected};
}
constexpr Violation broke(const Rule& r, CF f, std::uint64_t seen, std::uint64_t expected) {
  return Violation{&r, rdmap::ControlHeader::field_decl(f).name, ddp::kRsvdUlpOctet, seen, expected};
}
// ... at something no single field holds (the segment's size, its payload).
constexpr Violation broke(const Rule& r, std::string_view what, std::size_t octet, std::uint64_t seen,
                          std::uint64_t expected) {
  return Violation{&r, what, octet, seen, expected};
}
}  // namespace detail

inline Outcome segment_header(std::size_t segment_size, std::size_t needed) {
  if (segment_size >= needed) return std::nullopt;
  return detail::broke(kSegmentHeader, "ULPDU", 0, segment_size, needed);
}

inline Outcome ddp_version(const ddp::Control& c) {
  if (c.dv == ddp::kDdpVersion) return std::nullopt;
  return detail::broke(kDdpVersion, detail::TF::DV, c.dv, ddp::kDdpVersion);
}

inline Outcome rdmap_version(const rdmap::Control& c) {
  if (c.rv == rdmap::kRdmapVersion) return std::nullopt;
  return detail::broke(kRdmapVersion, detail::CF::RV, c.rv, rdmap::kRdmapVersion);
}

inline Outcome opcode_defined(const rdmap::Control& c, const rdmap::OpcodeInfo* row) {
  if (row != nullptr) return std::nullopt;
  return detail::broke(kOpcodeDefined, detail::CF::Opcode, c.opcode, 0);
}

inline Outcome opcode_buffer_model(const rdmap::OpcodeInfo& row, const ddp::Control& c) {
  if (row.tagged == c.tagged) return std::nullopt;
  return detail::broke(kOpcodeTagged, detail::TF::T, c.tagged, row.tagged);
}

inline Outcome queue_number(const rdmap::OpcodeInfo* row, std::uint32_t qn) {
  // The opcode's own queue when it has one; otherwise (an undefined opcode)
  // at least one of the queues RDMAP defines.
  if (row != nullptr && row->queue) {
    const auto want = static_cast<std::uint32_t>(*row->queue);
    if (qn == want) return std::nullopt;
    return detail::broke(kQueueNumber, detail::UF::QN, qn, want);
  }
  if (qn < rdmap::kQueueCount) return std::nullopt;
  return detail::broke(kQueueNumber, detail::UF::QN, qn, rdmap::kQueueCount - 1);
}

inline Outcome single_segment(const rdmap::OpcodeInfo& row, bool last) {
  if (!row.single_segment || last) return std::nullopt;
  return detail::broke(kSingleSegment, detail::TF::L, 0, 1);
}

inline Outcome payload_size(const rdmap::OpcodeInfo& row, std::size_t payload) {
  const std::size_t header = row.tagged ? ddp::kTaggedHeaderSize : ddp::kUntaggedHeaderSize;
  if (row.exact_size && payload != row.rdmap_header_size)
    return detail::broke(kExactSize, "DDP payload", header, payload, row.rdmap_header_size);
  // Only a Terminate has a header and more: its Terminate Control at least.
  if (!row.exact_size && payload < row.rdmap_header_size)
    return detail::broke(kTerminateFormat, "DDP payload", header, payload, row.rdmap_header_size);
  return std::nullopt;
}

inline Outcome message_offset(std::uint32_t mo, std::uint32_t expected) {
  if (mo == expected) return std::nullopt;
  return detail::broke(kMoSequence, detail::UF::MO, mo, expected);
}

inline Outcome untagged_sequence(const QueueSequence& q, std::uint32_t msn, std::uint32_t mo) {
  if (msn != q.msn) return detail::broke(kMsnSequence, detail::UF::MSN, msn, q.msn);
  return message_offset(mo, q.in_message ? q.next_mo : 0);
}

inline void advance(QueueSequence& q, std::uint32_t msn, std::uint32_t mo, bool last, std::uint32_t payload) {
  // MSN counts modulo 2^32 (RFC 5041 §4.3), and so does this.
  q.msn = last ? msn + 1 : msn;
  q.in_message = !last;
  q.next_mo = last ? 0 : mo + payload;
}

inline Outcome tagged_sequence(const TaggedSequence& t, std::uint32_t stag, std::uint64_t to) {
  if (!t.in_message) return std::nullopt;
  if (stag != t.stag) return detail::broke(kToSequence, detail::TF::STag, stag, t.stag);
  if (to != t.next_to) return detail::broke(kToSequence, detail::TF::TO, to, t.next_to);
  return std::nullopt;
}

inline void advance(TaggedSequence& t, std::uint32_t stag, std::uint64_t to, bool last, std::uint32_t payload) {
  t.in_message = !last;
  t.stag = stag;
  t.next_to = to + payload;
}

inline Outcome read_response_solicited(std::size_t outstanding_reads) {
  if (outstanding_reads > 0) return std::nullopt;
  return detail::broke(kReadUnsolicited, detail::CF::Opcode, static_cast<std::uint8_t>(rdmap::Opcode::kRdmaReadResponse),
                       0);
}

inline Outcome read_response_sink(std::uint32_t stag, std::uint64_t to, std::uint32_t expected_stag,
                                  std::uint64_t expected_to) {
  if (stag != expected_stag) return detail::broke(kReadResponseSink, detail::TF::STag, stag, expected_stag);
  if (to != expected_to) return detail::broke(kReadResponseSink, detail::TF::TO, to, expected_to);
  return std::nullopt;
}

inline Outcome read_response_size(std::uint64_t answered, std::uint32_t requested) {
  if (answered == requested) return std::nullopt;
  return detail::broke(kReadResponseSize, "DDP payload", ddp::kTaggedHeaderSize, answered, requested);
}

inline Outcome inbound_requests(std::size_t outstanding, std::uint32_t ird) {
  if (outstanding <= ird) return std::nullopt;
  return detail::broke(kOrdExceeded, detail::UF::MSN, outstanding, ird);
}

inline Outcome atomic_response_order(std::optional<std::uint32_t> oldest, std::uint32_t request_identifier) {
  if (oldest && *oldest == request_identifier) return std::nullopt;
  // The Original Request Identifier opens the Atomic Response header (RFC 7306 §4).
  return detail::broke(
      kAtomicUnsolicited,
      rdmap::AtomicResponseHeader::field_decl(rdmap::AtomicResponseSpec::Field::OriginalRequestIdentifier).name,
      ddp::kUntaggedHeaderSize, request_identifier, oldest.value_or(0));
}

inline Outcome after_terminate(bool sender_terminated) {
  if (!sender_terminated) return std::nullopt;
  return detail::broke(kAfterTerminate, detail::CF::Opcode, 0, 0);
}

}  // namespace rdmaconf::check
