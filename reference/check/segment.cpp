#include "check/segment.hpp"

namespace rdmaconf::check {
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

std::span<const Implementation> segment_implementations() { return kImplementations; }
std::span<const Rule* const> segment_rules() { return kRules; }

}  // namespace rdmaconf::check
