// The observer resynchronising (observer.hpp): after a gap, a lost start or
// lost framing, a hunt for the next FPDU on an MPA Marker (RFC 5044 §4.3) or
// on an FPDU whose CRC checks (§4.4) and whose DDP/RDMAP header is plausible.
//
// hunt() picks the hypotheses what is known of the stream leaves open, one
// function each: parameters known with Markers (on_markers), known with CRC
// and no Markers (on_crc), and otherwise every offset (every_offset), where
// an unknown stream is tried as CRC on without Markers (crc_checks_at), as
// CRC off (three_without_crc_at) and as Markers on (marker_at).
#include "analysis/observer_internal.hpp"

namespace rdmaconf::analysis {

using namespace observer_detail;
using wire::Bytes;

// ---------------------------------------------------------------- hunting

void ConnectionObserver::start_hunt(Direction& d, FrameNo frame, std::string_view why) {
  d.mode = Direction::Mode::kHunt;
  d.hunt_fresh = true;
  d.deframer.reset();
  d.forget_ddp_state();
  d.forget_segments();
  event(EventKind::kSkipped, d.side, frame, d.consumed_to, 0, "hunting for FPDU framing: " + std::string(why));
}

// One call of hunt(): the octets `rest` of direction `d`, from stream offset
// `base` on, judged under the hypotheses the direction's state leaves open.
struct ConnectionObserver::Hunt {
  ConnectionObserver& o;
  Direction& d;
  FrameNo frame;
  Bytes rest;
  std::uint64_t base;  // stream offset of rest[0]

  static constexpr const char* kChecked = "on an FPDU whose CRC checks";

  struct Try {
    bool found = false;
    bool need_more = false;
    std::size_t need = 0;  // with need_more: octets of rest needed
  };

  // Deframes one candidate FPDU at `start` under a hypothesis: with CRC on
  // it must check (§4.4); with CRC off the CRC field must be zero.
  Try attempt(std::size_t start, bool markers, bool crc, std::uint64_t position) const {
    mpa::DeframerConfig c;
    c.markers = markers;
    c.crc = crc;
    c.stream_position = position;
    c.fail_on_error = false;
    mpa::Deframer probe(c);
    const mpa::DeframeResult r = probe.next(rest.subspan(start));
    if (const auto* more = std::get_if<mpa::NeedMore>(&r)) return {false, true, start + more->at_least};
    const auto* f = std::get_if<mpa::Fpdu>(&r);
    if (!f) return {};
    if (f->ulpdu_length < kMinUlpdu) return {};
    if (crc) return {f->crc_status == mpa::CrcStatus::kMatch, false, 0};
    return {f->received_crc == 0, false, 0};
  }

  // A candidate's ULPDU_Length and DDP/RDMAP header could start an FPDU;
  // rest holds kCandidateHead octets from `c`.
  bool header_plausible(std::size_t c) const {
    const std::uint32_t len = ulpdu_length_at(rest, c);
    if (len < kMinUlpdu) return false;
    return o.plausible_segment(rest.subspan(c + mpa::kUlpduLengthSize, ddp::kUntaggedHeaderSize));
  }

  // Framing found at rest[at]: the octets before it are skipped and full
  // operation resumes there.
  Consumed resync(std::size_t at, std::string_view how) {
    d.stats.skipped_octets += at;
    ++d.stats.resyncs;
    o.protocol_ = Protocol::kMpa;
    d.consumed_to += at;
    o.event(EventKind::kResynchronised, d.side, frame, d.consumed_to, at,
            std::string("resynchronised ") + std::string(how) + " after skipping " +
                std::to_string(d.consumed_to - d.hunt_began) + " octets");
    o.enter_full_operation(d);
    d.consumed_to -= at;
    return {at, 0};
  }

  // What a hypothesis found of a stream whose parameters were unknown.
  // `position_base` gives the Marker phase (irrelevant without Markers).
  void adopt(bool markers, bool crc, std::uint64_t position_base) {
    d.markers = markers;
    d.crc = crc;
    d.crc_known = true;
    d.params_known = true;
    d.position_base = position_base;
  }

  Consumed on_markers();
  Consumed on_crc();
  Consumed every_offset();
  std::optional<Consumed> crc_checks_at(std::size_t c);
  std::optional<Consumed> three_without_crc_at(std::size_t c);
  std::optional<Consumed> marker_at(std::size_t c);
  Consumed wait(std::size_t c, std::size_t need_from_c);
};

// Looks for the next FPDU the stream can be resynchronised on. With known
// parameters and Markers, only Marker positions are candidates (RFC 5044
// §4.3: FPDUPTR leads back to an FPDU header, 0 when the FPDU starts right
// after the Marker). Otherwise every offset is a candidate whose header must
// be plausible and whose CRC must check; when the parameters are unknown
// (mid-connection start), Marker hypotheses are tried too, and a run of
// three plausible FPDUs with zero CRC fields says CRC is off.
ConnectionObserver::Consumed ConnectionObserver::hunt(Direction& d, FrameNo frame, wire::Bytes rest) {
  const std::uint64_t base = d.consumed_to;
  if (d.hunt_fresh) {
    d.hunt_fresh = false;
    d.hunt_began = d.hunt_from = d.hunt_scan = base;
    d.clear_pending();
  }
  d.hunt_from = std::max(d.hunt_from, base);
  d.hunt_scan = std::max(d.hunt_scan, base);

  Hunt h{*this, d, frame, rest, base};
  if (d.params_known && d.markers) return h.on_markers();
  if (d.params_known && d.crc) return h.on_crc();
  return h.every_offset();
}

// Known parameters with Markers: only Marker positions (RFC 5044 §4.3).
ConnectionObserver::Consumed ConnectionObserver::Hunt::on_markers() {
  const std::uint64_t p0 = d.position(d.consumed_to);
  std::size_t k = static_cast<std::size_t>((mpa::kMarkerInterval - p0 % mpa::kMarkerInterval) % mpa::kMarkerInterval);
  if (k + mpa::kMarkerSize > rest.size()) return {0, k + mpa::kMarkerSize};
  const std::uint32_t ptr = marker_field(rest, k, mpa::MarkerSpec::Field::FPDUPTR);
  // FPDUPTR 0: the FPDU starts with this Marker; otherwise its header is
  // FPDUPTR octets back, which must be octets we have.
  if (ptr == 0 || ptr <= k) {
    const std::size_t start = ptr == 0 ? k : k - ptr;
    const Try t = attempt(start, true, d.crc, p0 + start);
    if (t.found) return resync(start, "on a Marker");
    if (t.need_more) return {0, t.need};
  }
  // Nothing before the next Marker can start a usable FPDU any more.
  const std::size_t drop = k + mpa::kMarkerSize;
  d.stats.skipped_octets += drop;
  return {drop, 0};
}

// Known parameters, CRC on, no Markers (RFC 5044 §4.4): every offset whose
// header is plausible is a candidate, and its CRC must check. A candidate
// whose FPDU is not all here yet is not waited for: a false one (a plausible
// header inside payload or CRC octets) may claim tens of kilooctets, and a
// true FPDU follows it much sooner. Of the candidates whose CRC checks, the
// one that ends first wins. Every candidate that could end before it is
// complete by then, and the hunt is asked again at each new candidate header
// and whenever a pending FPDU is complete, so the choice does not depend on
// how TCP cut the stream. Each candidate is looked at once, and once more
// when its octets are all here.
ConnectionObserver::Consumed ConnectionObserver::Hunt::on_crc() {
  const std::uint64_t avail = base + rest.size();
  std::optional<std::pair<std::uint64_t, std::uint64_t>> best;  // (candidate, where it ends)
  auto consider = [&](std::uint64_t at) {
    const std::size_t c = static_cast<std::size_t>(at - base);
    const Try t = attempt(c, false, true, 0);
    if (t.need_more) {
      d.add_pending(at, base + t.need);
    } else if (t.found) {
      const std::uint64_t end = at + mpa::fpdu_length_without_markers(ulpdu_length_at(rest, c));
      if (!best || end < best->second) best.emplace(at, end);
    }
  };
  // The pending candidates are gone through (in their order) only when one
  // is complete or lies in octets given up; otherwise going through them
  // would leave the list as it is. Called once per octet while octets arrive
  // one at a time, this costs nothing per pending candidate then, and the
  // two lists trade places keeping their storage, so nothing is allocated.
  if (d.pending_until <= avail || d.pending_first < base) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>>& waiting = d.hunt_waiting;
    waiting.clear();
    waiting.swap(d.hunt_pending);
    d.clear_pending();
    for (const auto& [at, until] : waiting) {
      if (at < base) continue;  // its octets were given up (buffer limit)
      if (until <= avail) consider(at);
      else d.add_pending(at, until);
    }
  }
  std::uint64_t at = d.hunt_scan;
  for (; at + kCandidateHead <= avail && !(best && at >= best->second); ++at) {
    if (header_plausible(static_cast<std::size_t>(at - base))) consider(at);
  }
  d.hunt_scan = at;
  if (best) {
    d.clear_pending();
    return resync(static_cast<std::size_t>(best->first - base), kChecked);
  }
  // Wait for the next candidate's header or the first pending FPDU to be
  // complete, keeping the octets from the first pending candidate on.
  const std::uint64_t keep_from = std::min(d.hunt_scan, d.pending_first);
  const std::uint64_t until = std::min(d.hunt_scan + kCandidateHead, d.pending_until);
  const std::size_t drop = static_cast<std::size_t>(keep_from - base);
  d.stats.skipped_octets += drop;
  return {drop, static_cast<std::size_t>(until - keep_from)};
}

// Parameters unknown, or known with CRC off and no Markers: every offset is a
// candidate, from hunt_scan on, and the hunt waits at the first one whose
// octets are not all here. At each plausible header an unknown stream is
// tried as CRC on without Markers, then (as a known one without CRC) as CRC
// off; at each offset an unknown stream is tried as a Marker.
ConnectionObserver::Consumed ConnectionObserver::Hunt::every_offset() {
  for (std::size_t c = static_cast<std::size_t>(d.hunt_scan - base);; ++c) {
    if (c + kCandidateHead > rest.size()) return wait(c, kCandidateHead);
    if (header_plausible(c)) {
      if (!d.params_known) {
        if (auto done = crc_checks_at(c)) return *done;
      }
      // (with the parameters known, CRC is off here)
      if (!d.crc || !d.params_known) {
        if (auto done = three_without_crc_at(c)) return *done;
      }
    }
    if (!d.params_known) {
      if (auto done = marker_at(c)) return *done;
    }
  }
}

// Waits for octets at candidate `c`, keeping the ones a later Marker
// candidate may point back to (kHuntLookback) and giving up the older ones.
ConnectionObserver::Consumed ConnectionObserver::Hunt::wait(std::size_t c, std::size_t need_from_c) {
  d.hunt_scan = base + c;
  const std::uint64_t keep_from = std::max(d.hunt_from, d.hunt_scan - std::min<std::uint64_t>(d.hunt_scan, kHuntLookback));
  const std::size_t drop = static_cast<std::size_t>(std::max(keep_from, base) - base);
  d.stats.skipped_octets += drop;
  return {drop, need_from_c == 0 ? 0 : c - drop + need_from_c};
}

// Unknown parameters, CRC on, no Markers (RFC 5044 §4.4): the FPDU at `c`
// (its header plausible) is taken when its CRC checks.
std::optional<ConnectionObserver::Consumed> ConnectionObserver::Hunt::crc_checks_at(std::size_t c) {
  const Try t = attempt(c, false, true, 0);
  // The other hypotheses at this offset need the same octets.
  if (t.need_more) return wait(c, t.need - c);
  if (!t.found) return std::nullopt;
  adopt(false, true, d.consumed_to + c);
  return resync(c, kChecked);
}

// CRC off (RFC 5044 §7.1.1: the CRC field stays in each FPDU, its contents
// unchecked; a sender without CRC leaves it zero): three plausible FPDUs in a
// row at `c` with zero CRC fields. A run that needs more octets than half the
// buffer from its start is not waited for.
std::optional<ConnectionObserver::Consumed> ConnectionObserver::Hunt::three_without_crc_at(std::size_t c) {
  if (d.markers) return std::nullopt;
  std::size_t at = c;
  int run = 0;
  std::size_t need_end = 0;  // octets of rest the run still needs
  while (run < 3) {
    if (at + kCandidateHead > rest.size()) {
      need_end = at + kCandidateHead;
      break;
    }
    if (!header_plausible(at)) break;
    const Try t = attempt(at, false, false, 0);
    if (t.need_more) {
      need_end = t.need;
      break;
    }
    if (!t.found) break;
    at += mpa::fpdu_length_without_markers(ulpdu_length_at(rest, at));
    ++run;
  }
  if (run == 3) {
    if (!d.params_known) adopt(false, false, d.consumed_to + c);
    return resync(c, "on three FPDUs without CRC");
  }
  if (need_end != 0 && need_end - c <= o.config_.max_buffer / 2) return wait(c, need_end - c);
  return std::nullopt;
}

// Unknown parameters, Markers on (RFC 5044 §4.3): could `c` be a Marker
// (Reserved zero)? Then the FPDU it points into starts FPDUPTR octets back
// (or at c for 0), within the lookback and the hunt's octets, and is taken
// when its header is plausible and its CRC checks.
std::optional<ConnectionObserver::Consumed> ConnectionObserver::Hunt::marker_at(std::size_t c) {
  if (marker_field(rest, c, mpa::MarkerSpec::Field::Reserved) != 0) return std::nullopt;
  const std::uint32_t ptr = marker_field(rest, c, mpa::MarkerSpec::Field::FPDUPTR);
  const bool reachable = ptr == 0 || (ptr <= c && ptr <= kHuntLookback && base + c - ptr >= d.hunt_from);
  if (!reachable) return std::nullopt;
  const std::size_t start = ptr == 0 ? c : c - ptr;
  // Position such that a Marker falls on `c`.
  const std::uint64_t position = (mpa::kMarkerInterval - (c - start) % mpa::kMarkerInterval) % mpa::kMarkerInterval;
  const std::size_t header = ptr == 0 ? c + mpa::kMarkerSize : start;
  if (header + kCandidateHead > rest.size()) return wait(c, header + kCandidateHead - c);
  if (!header_plausible(header)) return std::nullopt;
  const Try t = attempt(start, true, true, position);
  if (t.need_more) return wait(c, t.need - c);
  if (!t.found) return std::nullopt;
  adopt(true, true, d.consumed_to + start - position);
  return resync(start, "on a Marker (Markers inferred)");
}

}  // namespace rdmaconf::analysis
