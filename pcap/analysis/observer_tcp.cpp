// The observer and TCP (observer.hpp): how each MPA sender cut its FPDUs into
// segments (RFC 5044 §4.5, §5.1) and what it sent again (the rules are
// check/mpa_tcp.hpp's). The caller tells what only TCP knows: the MSS in
// each SYN (on_syn), the segments it saw whole and first sent (on_segment),
// and octets retransmitted with another value (on_conflicting_retransmission).
//
// Where segments are judged: a direction in full operation without Markers
// (§4.3 places Markers by stream position, and the startup frames are not
// FPDUs: neither is these rules' concern), once its receiver's MSS is known,
// on segments announced one after the other with nothing unannounced,
// missing or hunted in between. Two segments meet inside an FPDU exactly
// when the observer holds the first octets of an FPDU, waiting for the rest,
// as the second begins: that boundary is charged to the segment the FPDU
// began in, once the FPDU is complete and its length known.
#include "analysis/observer_internal.hpp"

namespace rdmaconf::analysis {

using namespace observer_detail;

// A segment begins at the stream's next octet. Per segment a few loads,
// comparisons and stores, then the octets go on as on_data's do (a tail
// call: this is the analyzer's path for nearly every segment).
void ConnectionObserver::on_segment(Side side, FrameNo frame, wire::Bytes payload) {
  Direction& d = dir(side);
  d.stats.octets += payload.size();
  const std::uint64_t at = d.consumed_to + d.buf.size();
  // The last segment ended here, inside the FPDU whose first octets are held.
  if (d.segment_judged && !d.buf.empty()) [[unlikely]]
    note_split(d, at);
  if (payload.size() > d.largest_segment) d.largest_segment = payload.size();
  d.segment_judged = d.judging;
  d.segment_start = at;
  feed(d, frame, payload);
}

void ConnectionObserver::arm_segmentation(Direction& d) {
  const std::optional<std::uint16_t>& mss = syn_mss_[static_cast<int>(other(d.side))];
  d.emss.at_most = mss && !d.markers ? *mss : 0;
  d.forget_segments();
  d.judging = d.emss.at_most != 0;
}

// The last segment, which ended at `at`, ended inside the FPDU whose first
// octets are held: a split, charged to that segment when the FPDU began in
// it (one that began earlier was charged at its first boundary).
[[gnu::cold, gnu::noinline]] void ConnectionObserver::note_split(Direction& d, std::uint64_t at) {
  if (d.mode != Direction::Mode::kFull || d.consumed_to < d.segment_start ||
      (d.split && d.split->fpdu_start == d.consumed_to))
    return;
  d.split = Direction::Split{d.consumed_to, static_cast<std::size_t>(d.consumed_to - d.segment_start),
                             static_cast<std::size_t>(at - d.segment_start)};
  d.fpdu_limit = 0;  // on_fpdu looks at the FPDU when it completes
}

// The FPDU at `offset` is complete: whether it is too long for any segment,
// and what the segment boundary found inside it says.
[[gnu::cold, gnu::noinline]] void ConnectionObserver::check_fpdu_segments(Direction& d, const mpa::Fpdu& f,
                                                                       FrameNo first_frame, std::uint64_t offset) {
  const check::EmssBounds emss{d.emss.at_most, std::min(d.largest_segment, d.emss.at_most)};
  if (auto v = check::fpdu_fits_segment(f.consumed, emss))
    violate(*v->rule, d.side, first_frame, offset,
            "FPDU of " + std::to_string(f.consumed) + " octets, longer than the " + std::to_string(emss.at_most) +
                "-octet MSS its receiver announced: no segment can hold it");
  if (!d.split) return;
  const Direction::Split s = *d.split;
  d.split.reset();
  d.settle_fpdu_limit();
  if (s.fpdu_start != offset) return;  // not this FPDU's (framing was found again in between)
  const check::SplitFpdu split{f.consumed, s.offset, s.segment_octets};
  const std::string fits = "it fits in one segment: this sender's segments reach " + std::to_string(emss.at_least) +
                           " octets, the MSS is " + std::to_string(emss.at_most);
  // The segment the FPDU began in is the frame of its first octet.
  if (auto v = check::no_splitting_small(split, emss))
    violate(*v->rule, d.side, first_frame, offset,
            "the " + std::to_string(f.consumed) + "-octet FPDU that opens this " + std::to_string(s.segment_octets) +
                "-octet segment ends in a later one, though " + fits);
  if (auto v = check::segment_alignment(split, emss))
    violate(*v->rule, d.side, first_frame, offset,
            "the " + std::to_string(f.consumed) + "-octet FPDU packed at octet " + std::to_string(s.offset) +
                " of this " + std::to_string(s.segment_octets) +
                "-octet segment ends in a later one: FPDUs share a segment only whole, and " + fits);
}

void ConnectionObserver::on_conflicting_retransmission(Side side, FrameNo frame, const Retransmission& r) {
  // The rule is MPA's: on other protocols the capture layer's report says it.
  if (protocol_ != Protocol::kMpa) return;
  if (auto v = check::retransmit_same(r.first_sent, r.resent))
    violate(*v->rule, side, frame, r.stream_offset,
            "octet at sequence number " + std::to_string(r.sequence_number) + " (stream offset " +
                std::to_string(r.stream_offset) + ") sent again as " + hex(r.resent) + ", first sent as " +
                hex(r.first_sent) + (r.first_frame ? " in frame " + std::to_string(r.first_frame) : std::string()));
}

}  // namespace rdmaconf::analysis
