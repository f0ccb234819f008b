#include "check/mpa_tcp.hpp"

namespace rdmaconf::check {
namespace {
constexpr Implementation kImplementations[] = {
    {&kFpduFitsSegment, "fpdu_fits_segment"},
    {&kSegmentAlignment, "segment_alignment"},
    {&kNoSplittingSmall, "no_splitting_small"},
    // The first differing octet is found by the capture layer's reassembler
    // (capture::Reassembler, which keeps what it delivered); the rule judges it.
    {&kRetransmitSame, "retransmit_same"},
};
constexpr const Rule* kRules[] = {&kFpduFitsSegment, &kSegmentAlignment, &kNoSplittingSmall, &kRetransmitSame};
}  // namespace

std::span<const Implementation> mpa_tcp_implementations() { return kImplementations; }
std::span<const Rule* const> mpa_tcp_rules() { return kRules; }

}  // namespace rdmaconf::check
