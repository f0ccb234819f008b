#include "check/segment.hpp"

namespace rdmaconf::check {
namespace {

// Where a field starts in the segment, from its declaration.
constexpr std::size_t at(ddp::TaggedSpec::Field f) { return ddp::TaggedHeader::field_decl(f).octet_offset(); }
constexpr std::size_t at(ddp::UntaggedSpec::Field f) { return ddp::UntaggedHeader::field_decl(f).octet_offset(); }
constexpr std::string_view field(ddp::TaggedSpec::Field f) { return ddp::TaggedHeader::field_decl(f).name; }
constexpr std::string_view field(ddp::UntaggedSpec::Field f) { return ddp::UntaggedHeader::field_decl(f).name; }
// The RDMAP control field is the DDP header's RsvdULP octet (RFC 5040 §4.2).
constexpr std::size_t kRdmapControlOctet = at(ddp::TaggedSpec::Field::RsvdULP);
constexpr std::string_view field(rdmap::ControlSpec::Field f) { return rdmap::ControlHeader::field_decl(f).name; }

using TF = ddp::TaggedSpec::Field;
using UF = ddp::UntaggedSpec::Field;
using CF = rdmap::ControlSpec::Field;

Violation broke(const Rule& r, std::string_view f, std::size_t octet, std::uint64_t seen, std::uint64_t expected) {
  return Violation{&r, f, octet, seen, expected};
}

}  // namespace

Outcome segment_header(std::size_t segment_size, std::size_t needed) {
  if (segment_size >= needed) return std::nullopt;
  return broke(kSegmentHeader, "ULPDU", 0, segment_size, needed);
}

Outcome ddp_version(const ddp::Control& c) {
  if (c.dv == ddp::kDdpVersion) return std::nullopt;
  return broke(kDdpVersion, field(TF::DV), at(TF::DV), c.dv, ddp::kDdpVersion);
}

Outcome rdmap_version(const rdmap::Control& c) {
  if (c.rv == rdmap::kRdmapVersion) return std::nullopt;
  return broke(kRdmapVersion, field(CF::RV), kRdmapControlOctet, c.rv, rdmap::kRdmapVersion);
}

Outcome opcode_defined(const rdmap::Control& c, const rdmap::OpcodeInfo* row) {
  if (row != nullptr) return std::nullopt;
  return broke(kOpcodeDefined, field(CF::Opcode), kRdmapControlOctet, c.opcode, 0);
}

Outcome opcode_buffer_model(const rdmap::OpcodeInfo& row, const ddp::Control& c) {
  if (row.tagged == c.tagged) return std::nullopt;
  return broke(kOpcodeTagged, field(TF::T), at(TF::T), c.tagged, row.tagged);
}

Outcome queue_number(const rdmap::OpcodeInfo* row, std::uint32_t qn) {
  // The opcode's own queue when it has one; otherwise (an undefined opcode)
  // at least one of the queues RDMAP defines.
  if (row != nullptr && row->queue) {
    const auto want = static_cast<std::uint32_t>(*row->queue);
    if (qn == want) return std::nullopt;
    return broke(kQueueNumber, field(UF::QN), at(UF::QN), qn, want);
  }
  if (qn < rdmap::kQueueCount) return std::nullopt;
  return broke(kQueueNumber, field(UF::QN), at(UF::QN), qn, rdmap::kQueueCount - 1);
}

Outcome single_segment(const rdmap::OpcodeInfo& row, bool last) {
  if (!row.single_segment || last) return std::nullopt;
  return broke(kSingleSegment, field(TF::L), at(TF::L), 0, 1);
}

Outcome payload_size(const rdmap::OpcodeInfo& row, std::size_t payload) {
  const std::size_t header = row.tagged ? ddp::kTaggedHeaderSize : ddp::kUntaggedHeaderSize;
  if (row.exact_size && payload != row.rdmap_header_size)
    return broke(kExactSize, "DDP payload", header, payload, row.rdmap_header_size);
  // Only a Terminate has a header and more: its Terminate Control at least.
  if (!row.exact_size && payload < row.rdmap_header_size)
    return broke(kTerminateFormat, "DDP payload", header, payload, row.rdmap_header_size);
  return std::nullopt;
}

Outcome message_offset(std::uint32_t mo, std::uint32_t expected) {
  if (mo == expected) return std::nullopt;
  return broke(kMoSequence, field(UF::MO), at(UF::MO), mo, expected);
}

Outcome untagged_sequence(const QueueSequence& q, std::uint32_t msn, std::uint32_t mo) {
  if (msn != q.msn) return broke(kMsnSequence, field(UF::MSN), at(UF::MSN), msn, q.msn);
  return message_offset(mo, q.in_message ? q.next_mo : 0);
}

void advance(QueueSequence& q, std::uint32_t msn, std::uint32_t mo, bool last, std::uint32_t payload) {
  // MSN counts modulo 2^32 (RFC 5041 §4.3), and so does this.
  q.msn = last ? msn + 1 : msn;
  q.in_message = !last;
  q.next_mo = last ? 0 : mo + payload;
}

Outcome tagged_sequence(const TaggedSequence& t, std::uint32_t stag, std::uint64_t to) {
  if (!t.in_message) return std::nullopt;
  if (stag != t.stag) return broke(kToSequence, field(TF::STag), at(TF::STag), stag, t.stag);
  if (to != t.next_to) return broke(kToSequence, field(TF::TO), at(TF::TO), to, t.next_to);
  return std::nullopt;
}

void advance(TaggedSequence& t, std::uint32_t stag, std::uint64_t to, bool last, std::uint32_t payload) {
  t.in_message = !last;
  t.stag = stag;
  t.next_to = to + payload;
}

Outcome read_response_solicited(std::size_t outstanding_reads) {
  if (outstanding_reads > 0) return std::nullopt;
  return broke(kReadUnsolicited, field(CF::Opcode), kRdmapControlOctet,
               static_cast<std::uint8_t>(rdmap::Opcode::kRdmaReadResponse), 0);
}

Outcome read_response_sink(std::uint32_t stag, std::uint64_t to, std::uint32_t expected_stag,
                           std::uint64_t expected_to) {
  if (stag != expected_stag) return broke(kReadResponseSink, field(TF::STag), at(TF::STag), stag, expected_stag);
  if (to != expected_to) return broke(kReadResponseSink, field(TF::TO), at(TF::TO), to, expected_to);
  return std::nullopt;
}

Outcome read_response_size(std::uint64_t answered, std::uint32_t requested) {
  if (answered == requested) return std::nullopt;
  return broke(kReadResponseSize, "DDP payload", ddp::kTaggedHeaderSize, answered, requested);
}

Outcome inbound_requests(std::size_t outstanding, std::uint32_t ird) {
  if (outstanding <= ird) return std::nullopt;
  return broke(kOrdExceeded, field(UF::MSN), at(UF::MSN), outstanding, ird);
}

Outcome atomic_response_order(std::optional<std::uint32_t> oldest, std::uint32_t request_identifier) {
  if (oldest && *oldest == request_identifier) return std::nullopt;
  // The Original Request Identifier opens the Atomic Response header (RFC 7306 §4).
  return broke(kAtomicUnsolicited,
               rdmap::AtomicResponseHeader::field_decl(rdmap::AtomicResponseSpec::Field::OriginalRequestIdentifier).name,
               ddp::kUntaggedHeaderSize, request_identifier, oldest.value_or(0));
}

Outcome after_terminate(bool sender_terminated) {
  if (!sender_terminated) return std::nullopt;
  return broke(kAfterTerminate, field(CF::Opcode), kRdmapControlOctet, 0, 0);
}

namespace {
constexpr Implementation kImplementations[] = {
    {&kSegmentHeader, "segment_header"},
    {&kDdpVersion, "ddp_version"},
    {&kRdmapVersion, "rdmap_version"},
    {&kOpcodeDefined, "opcode_defined"},
    {&kOpcodeTagged, "opcode_buffer_model"},
    {&kQueueNumber, "queue_number"},
    {&kSingleSegment, "single_segment"},
    {&kExactSize, "payload_size"},
    // A Terminate too short for its Terminate Control is payload_size's;
    // whether the header control bits match the octets that follow is the
    // Terminate codec's (rdmap::decode_terminate), which both tools call.
    {&kTerminateFormat, "payload_size + rdmap::decode_terminate"},
    {&kMoSequence, "message_offset"},
    {&kMsnSequence, "untagged_sequence"},
    {&kToSequence, "tagged_sequence"},
    {&kReadUnsolicited, "read_response_solicited"},
    {&kReadResponseSink, "read_response_sink"},
    {&kReadResponseSize, "read_response_size"},
    {&kOrdExceeded, "inbound_requests"},
    {&kAtomicUnsolicited, "atomic_response_order"},
    {&kAfterTerminate, "after_terminate"},
};
constexpr const Rule* kRules[] = {
    &kSegmentHeader,    &kDdpVersion,       &kMsnSequence,      &kMoSequence,        &kToSequence,
    &kQueueNumber,      &kRdmapVersion,     &kOpcodeDefined,    &kOpcodeTagged,      &kSingleSegment,
    &kExactSize,        &kReadUnsolicited,  &kReadResponseSink, &kReadResponseSize,  &kOrdExceeded,
    &kAtomicUnsolicited, &kTerminateFormat, &kAfterTerminate,
};
}  // namespace

std::span<const Implementation> implementations() { return kImplementations; }
std::span<const Rule* const> segment_rules() { return kRules; }

}  // namespace rdmaconf::check
