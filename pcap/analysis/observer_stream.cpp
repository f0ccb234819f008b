// The observer's streams (observer.hpp): each direction's octets handed on
// in units, kept while a unit is incomplete, and the dispatch to the mode
// that decodes them (observer.cpp: detection and MPA startup;
// observer_fpdu.cpp: full operation; observer_hunt.cpp: resynchronisation;
// observer_clc.cpp: CLC). Nothing here reads a field: it compares lengths
// and modes only, which is why a fuzz build compiles this file without
// comparison tracing (fuzz/CMakeLists.txt, docs/fuzzing.md): the split
// oracles feed it octet by octet.
#include "analysis/observer_internal.hpp"

namespace rdmaconf::analysis {

using namespace observer_detail;

namespace observer_detail {

void KeptOctets::append(Bytes b) {
  if (start_ != 0 && start_ >= size()) {
    octets_.erase(octets_.begin(), octets_.begin() + static_cast<std::ptrdiff_t>(start_));
    start_ = 0;
  }
  // One octet at a time is how the split oracles feed (and small TCP
  // segments): push_back's inline fast path, where the out-of-line range
  // insert the linker keeps may be a copy with comparison tracing.
  if (b.size() == 1) octets_.push_back(b[0]);
  else octets_.insert(octets_.end(), b.begin(), b.end());
}

std::vector<std::uint8_t> KeptOctets::take() {
  std::vector<std::uint8_t> out;
  out.swap(octets_);
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(start_));
  start_ = 0;
  return out;
}

}  // namespace observer_detail

void ConnectionObserver::on_data(Side side, FrameNo frame, wire::Bytes octets) {
  Direction& d = dir(side);
  d.stats.octets += octets.size();
  // Octets of no announced segment: where the segments around them end is
  // not known.
  d.segment_judged = false;
  feed(d, frame, octets);
}

// Zero copy where possible: whole units are decoded straight from the
// caller's octets; only a unit cut by the end of `octets` is kept, and a kept
// unit is topped up with just the octets it still needs.
void ConnectionObserver::feed(Direction& d, FrameNo frame, wire::Bytes octets) {
  while (!octets.empty()) {
    if (d.buf.empty()) {
      const Consumed c = consume(d, frame, octets, frame);
      octets = octets.subspan(c.used);
      if (octets.empty()) return;
      // The rest is kept below, in the same steps as if it came octet by
      // octet (so the buffer limit strikes at the same octet).
      d.buf_first_frame = frame;
      d.need = c.need;
    }
    std::size_t take = octets.size();
    if (d.need > d.buf.size()) take = std::min(take, d.need - d.buf.size());
    // Never more than one octet beyond the limit before it is applied.
    take = std::min(take, config_.max_buffer + 1 - std::min(d.buf.size(), config_.max_buffer));
    d.buf.append(octets.first(take));
    octets = octets.subspan(take);
    if (d.need <= d.buf.size()) {
      // consume() reads a view of d.buf; the feeding flag keeps pump() (run
      // when this side's own MPA frame settles the startup) from taking the
      // buffer away underneath it: the ongoing consume() goes on in the new mode.
      d.feeding = true;
      const Consumed c = consume(d, frame, d.buf.view(), d.buf_first_frame);
      d.feeding = false;
      if (c.used == d.buf.size()) {
        d.buf.clear();
        d.need = 0;
        continue;
      }
      if (c.used > 0) {
        d.buf.drop_front(c.used);
        if (d.buf.size() <= take) d.buf_first_frame = frame;
      }
      d.need = c.need;
    }
    if (d.buf.size() > config_.max_buffer) apply_buffer_limit(d, frame);
  }
}

// Bounds what one direction holds: beyond max_buffer the oldest octets are
// given up, down to half of it.
void ConnectionObserver::apply_buffer_limit(Direction& d, FrameNo frame) {
  const std::size_t drop = d.buf.size() - config_.max_buffer / 2;
  d.stats.skipped_octets += drop;
  event(EventKind::kLimit, d.side, frame, d.consumed_to, drop, "buffer limit: octets skipped");
  d.buf.drop_front(drop);
  d.consumed_to += drop;
  d.buf_first_frame = frame;
  d.need = 0;
  d.hunt_from = std::max(d.hunt_from, d.consumed_to);  // a hunt never looks back into dropped octets
  if (d.mode != Direction::Mode::kHunt && d.mode != Direction::Mode::kOpaque) start_hunt(d, frame, "buffer limit");
}

// Re-examines a side's kept octets (after the peer's frame settled MPA).
void ConnectionObserver::pump(Direction& d, FrameNo frame) {
  if (d.buf.empty() || d.feeding) return;
  const std::vector<std::uint8_t> kept = d.buf.take();
  const FrameNo first = d.buf_first_frame;
  d.need = 0;
  const Consumed c = consume(d, frame, kept, first);
  if (c.used < kept.size()) {
    d.buf.append(wire::Bytes(kept).subspan(c.used));
    d.buf_first_frame = c.used == 0 ? first : frame;
    d.need = c.need;
  }
}

ConnectionObserver::Consumed ConnectionObserver::consume(Direction& d, FrameNo frame, wire::Bytes octets,
                                                         FrameNo first_frame) {
  using Mode = Direction::Mode;
  Consumed total;
  for (;;) {
    const wire::Bytes rest = octets.subspan(total.used);
    if (rest.empty()) {
      total.need = 0;
      return total;
    }
    const FrameNo ff = total.used == 0 ? first_frame : frame;
    const Mode before = d.mode;
    Consumed c;
    switch (d.mode) {
      case Mode::kDetect: c = detect(d, frame, rest); break;
      case Mode::kMpaStartup: c = mpa_startup(d, frame, rest, ff); break;
      case Mode::kAwaitPeerFrame: c = Consumed{0, 0}; break;
      case Mode::kFull: c = full_operation(d, frame, rest, ff); break;
      case Mode::kHunt: c = hunt(d, frame, rest); break;
      case Mode::kClc: c = clc_stream(d, frame, rest, ff); break;
      case Mode::kRejected:
        violate(rules::kDataAfterReject, d.side, frame, d.consumed_to,
                std::to_string(rest.size()) + " octets after a rejecting Reply");
        d.mode = Mode::kOpaque;
        [[fallthrough]];
      case Mode::kOpaque:
        d.stats.skipped_octets += rest.size();
        c = Consumed{rest.size(), 0};
        break;
    }
    total.used += c.used;
    d.consumed_to += c.used;
    if (c.used == 0 && d.mode == before) {
      total.need = c.need;
      return total;
    }
  }
}

}  // namespace rdmaconf::analysis
