#include "capture/reassembly.hpp"

#include <algorithm>
#include <iterator>

namespace rdmaconf::capture {
namespace {

// What one held entry costs beyond its data (map node, vector header), so a
// flood of tiny or empty entries is bounded too.
constexpr std::size_t kHeldEntryCost = 64;

// The history ring's first allocation: a stream's first few segments'
// worth, so a short stream does not grow it octet by octet.
constexpr StreamOffset kHistoryFirstSize = 256;

SeqNum seq_at(SeqNum base, StreamOffset offset) {
  return SeqNum{base.value + static_cast<std::uint32_t>(offset)};
}

}  // namespace

std::string_view stream_end_name(StreamEnd e) {
  switch (e) {
    case StreamEnd::kFin: return "FIN";
    case StreamEnd::kReset: return "RST";
    case StreamEnd::kEndOfCapture: return "end of capture";
    case StreamEnd::kEvicted: return "evicted at the connection limit";
    case StreamEnd::kReplaced: return "replaced by a new connection";
  }
  return "unknown";
}

struct Reassembler::Connection {
  ConnectionKey key;
  Stream a_to_b;
  Stream b_to_a;
  std::list<Connection*>::iterator lru_position;
  bool closed() const { return a_to_b.ended_ && b_to_a.ended_; }
};

Reassembler::Reassembler(StreamConsumer& consumer, ReassemblyLimits limits)
    : consumer_(consumer), limits_(limits) {}

Reassembler::~Reassembler() = default;

void Reassembler::add_frame(const RawFrame& frame) {
  ++stats_.frames;
  if (auto seg = decode_frame(frame, consumer_)) add_segment(*seg);
}

Reassembler::Connection& Reassembler::connection_for(const TcpSegment& seg, bool& forward) {
  forward = ConnectionKey::forward(seg.key);
  const ConnectionKey key = ConnectionKey::of(seg.key);
  if (auto it = connections_.find(key); it != connections_.end()) {
    Connection& c = *it->second;
    lru_.splice(lru_.begin(), lru_, c.lru_position);
    return c;
  }
  if (connections_.size() >= limits_.max_connections && !lru_.empty()) {
    Connection& victim = *lru_.back();
    if (!victim.closed()) {
      Report r;
      r.kind = ReportKind::kConnectionLimit;
      r.frame = seg.frame;
      r.has_stream = true;
      r.stream = victim.a_to_b.key_;
      r.length = limits_.max_connections;
      ++stats_.limit_hits;
      consumer_.on_report(r);
      end_connection(victim, StreamEnd::kEvicted, seg.frame);
    }
    erase_connection(victim.key);
  }
  auto owned = std::make_unique<Connection>();
  Connection& c = *owned;
  c.key = key;
  c.a_to_b.key_ = StreamKey{key.a, key.b};
  c.b_to_a.key_ = StreamKey{key.b, key.a};
  c.a_to_b.reverse_ = &c.b_to_a;
  c.b_to_a.reverse_ = &c.a_to_b;
  c.a_to_b.connection_id_ = c.b_to_a.connection_id_ = ids_from_frames_ ? seg.frame.value : next_connection_id_++;
  lru_.push_front(&c);
  c.lru_position = lru_.begin();
  connections_.emplace(key, std::move(owned));
  ++stats_.connections;
  return c;
}

void Reassembler::erase_connection(const ConnectionKey& key) {
  auto it = connections_.find(key);
  if (it == connections_.end()) return;
  release_memory(it->second->a_to_b);
  release_memory(it->second->b_to_a);
  lru_.erase(it->second->lru_position);
  connections_.erase(it);
}

void Reassembler::add_segment(const TcpSegment& seg) {
  ++stats_.segments;
  bool forward = false;
  Connection* c = &connection_for(seg, forward);
  Stream* s = forward ? &c->a_to_b : &c->b_to_a;

  if (seg.flags.syn && s->started_ && !s->ended_ && s->base_seq_ == seq_at(seg.seq, 1)) {
    // A retransmitted SYN: nothing new, its data (if any) is checked below.
  } else if (seg.flags.syn && (s->started_ || s->ended_)) {
    // RFC 9293 §3.4: a SYN with a new ISN on known ports is a new incarnation
    // of the connection; the old one ends here.
    ConnectionKey key = c->key;
    end_connection(*c, StreamEnd::kReplaced, seg.frame);
    erase_connection(key);
    c = &connection_for(seg, forward);
    s = forward ? &c->a_to_b : &c->b_to_a;
  }

  if (seg.flags.rst) {
    // RFC 9293 §3.10.7: RST ends the connection; data on an RST is a
    // diagnostic, not stream data.
    if (!c->closed()) {
      report_stream(*s, ReportKind::kReset, seg.frame, s->next_, 0);
      end_connection(*c, StreamEnd::kReset, seg.frame);
    }
    return;
  }

  if (!s->started_ && !s->ended_)
    start_stream(*s, seg, seg.flags.syn ? StreamStart::kSyn : StreamStart::kMidStream);

  if (s->started_) {
    const SeqNum data_seq = seq_at(seg.seq, seg.flags.syn ? 1 : 0);
    const std::int64_t offset =
        static_cast<std::int64_t>(s->next_) + seq_distance(seq_at(s->base_seq_, s->next_), data_seq);
    take_data(*s, offset, seg.payload, seg.payload_length, seg.frame, seg.time);

    if (seg.flags.fin && !s->fin_known_ && offset >= 0) {
      s->fin_known_ = true;
      s->fin_at_ = static_cast<StreamOffset>(offset) + seg.payload_length;
      // Held octets beyond the FIN were never part of the stream.
      while (!s->held_.empty()) {
        auto last = std::prev(s->held_.end());
        if (last->first + last->second.length <= s->fin_at_) break;
        report_stream(*s, ReportKind::kDataAfterFin, last->second.frame, last->first,
                      last->second.length);
        release_held(*s, last);
      }
    }
    maybe_finish_fin(*s, seg.frame);
  } else if (seg.payload_length > 0) {
    report_stream(*s, ReportKind::kDataAfterFin, seg.frame, 0, seg.payload_length);
  }

  // The ACK says what the peer received of the other direction: octets below
  // it that the capture never showed are not coming (RFC 9293 §3.4).
  Stream& r = *s->reverse_;
  if (seg.flags.ack && limits_.gaps_from_acks && r.started_ && !r.ended_) {
    const std::int64_t acked =
        static_cast<std::int64_t>(r.next_) + seq_distance(seq_at(r.base_seq_, r.next_), seg.ack);
    if (acked > static_cast<std::int64_t>(r.next_)) {
      StreamOffset target = static_cast<StreamOffset>(acked);
      if (r.fin_known_) target = std::min(target, r.fin_at_);
      flush_until(r, target, GapCause::kNotCaptured, seg.frame);
      maybe_finish_fin(r, seg.frame);
    }
  }
}

void Reassembler::start_stream(Stream& s, const TcpSegment& seg, StreamStart how) {
  s.started_ = true;
  s.start_ = how;
  s.base_seq_ = how == StreamStart::kSyn ? seq_at(seg.seq, 1) : seg.seq;
  s.next_ = 0;
  s.history_begin_ = 0;
  if (how == StreamStart::kSyn) s.syn_options_ = seg.options;
  s.start_frame_ = seg.frame;
  const Stream& r = *s.reverse_;
  s.from_initiator_ = r.started_ ? !r.from_initiator_ : !(seg.flags.syn && seg.flags.ack);
  if (how == StreamStart::kMidStream) report_stream(s, ReportKind::kMidStreamStart, seg.frame, 0, 0);
  consumer_.on_stream_start(s);
}

void Reassembler::end_stream(Stream& s, StreamEnd why, FrameNumber frame) {
  if (s.ended_) return;
  if (s.started_) {
    // Deliver what is held; holes before it are gaps. Up to a known FIN,
    // the sender did send every octet, so a trailing hole is a gap as well.
    StreamOffset target = s.next_;
    if (!s.held_.empty()) {
      auto last = std::prev(s.held_.end());
      target = last->first + last->second.length;
    }
    if (s.fin_known_) target = std::max(target, s.fin_at_);
    flush_until(s, target, GapCause::kNotCaptured, frame);
  }
  s.ended_ = true;
  s.end_frame_ = frame;
  if (s.started_) consumer_.on_stream_end(s, why);
  release_memory(s);
}

void Reassembler::end_connection(Connection& c, StreamEnd why, FrameNumber frame) {
  end_stream(c.a_to_b, why, frame);
  end_stream(c.b_to_a, why, frame);
}

void Reassembler::maybe_finish_fin(Stream& s, FrameNumber frame) {
  if (s.fin_known_ && !s.ended_ && s.next_ >= s.fin_at_) end_stream(s, StreamEnd::kFin, frame);
}

void Reassembler::take_data(Stream& s, std::int64_t offset, wire::Bytes data, std::uint64_t length,
                            FrameNumber frame, Timestamp time) {
  if (length == 0) return;
  // Nothing trimmed off (the checks below trim what is not new) and nothing
  // lost to the snaplen: the segment as its sender cut it.
  bool whole = length == data.size();
  if (offset < 0) {
    // Octets before the first one this (mid-connection) stream started with.
    whole = false;
    const std::uint64_t before = std::min<std::uint64_t>(length, static_cast<std::uint64_t>(-offset));
    report_stream(s, ReportKind::kDataBeforeStreamStart, frame, 0, before);
    data = data.subspan(std::min<std::size_t>(data.size(), before));
    length -= before;
    offset = 0;
    if (length == 0) return;
  }
  StreamOffset o = static_cast<StreamOffset>(offset);
  if (s.fin_known_ && o + length > s.fin_at_) {
    whole = false;
    const StreamOffset from = std::max(o, s.fin_at_);
    report_stream(s, ReportKind::kDataAfterFin, frame, from, o + length - from);
    if (o >= s.fin_at_) return;
    length = s.fin_at_ - o;
    data = data.first(std::min<std::size_t>(data.size(), length));
  }
  if (o + length <= s.next_) {
    check_old(s, o, data, frame);
    return;
  }
  if (o < s.next_) {
    // Starts with octets already delivered: check them, keep the rest.
    whole = false;
    const std::uint64_t seen = s.next_ - o;
    check_old(s, o, data.first(std::min<std::size_t>(data.size(), seen)), frame);
    data = data.subspan(std::min<std::size_t>(data.size(), seen));
    length -= seen;
    o = s.next_;
  }
  if (s.ended_) {
    report_stream(s, ReportKind::kDataAfterFin, frame, o, length);
    return;
  }
  if (o == s.next_) {
    compare_with_held(s, o, data, frame);
    deliver(s, data, frame, time, whole);
    if (length > data.size()) gap(s, length - data.size(), GapCause::kSnaplen, frame);
    drain(s);
  } else {
    hold(s, o, data, length, frame, time);
    enforce_limits(s, frame);
  }
}

void Reassembler::deliver(Stream& s, wire::Bytes data, FrameNumber frame, Timestamp time, bool whole_segment) {
  if (data.empty()) return;
  consumer_.on_data(s, StreamData{s.next_, data, frame, time, whole_segment});

  // Keep the last octets for checking retransmissions, within the budget.
  if (s.history_reserved_ == 0 && limits_.history_per_stream > 0) {
    if (stats_.history_octets + limits_.history_per_stream <= limits_.max_history_total) {
      s.history_reserved_ = limits_.history_per_stream;
      stats_.history_octets += s.history_reserved_;
      // A stream that went without (the budget was spent) and has it now:
      // what it delivered before was never kept, and must not be compared.
      s.history_begin_ = s.next_;
    } else {
      ++stats_.history_denied;
    }
  }
  if (s.history_reserved_ > 0) {
    const std::size_t n = s.history_reserved_;
    // Until the ring is whole it has not wrapped: every octet since
    // history_begin_ sits at its distance from it. Grow by doubling, so a
    // long stream copies its history a few times, once.
    const StreamOffset kept_end = s.next_ + data.size() - s.history_begin_;
    if (s.history_.size() < n && kept_end > s.history_.size()) {
      const StreamOffset want = std::max<StreamOffset>(kept_end, 2 * s.history_.size());
      s.history_.resize(static_cast<std::size_t>(std::min<StreamOffset>(n, std::max(want, kHistoryFirstSize))));
    }
    const std::size_t keep = std::min(n, data.size());
    // The ring takes the last `keep` octets in at most two copies (one
    // division per delivery, not one per octet: this is the hot path).
    const wire::Bytes tail = data.last(keep);
    const std::size_t at = s.history_index(s.next_ + (data.size() - keep));
    const std::size_t first = std::min(keep, n - at);
    std::copy_n(tail.begin(), first, s.history_.begin() + static_cast<std::ptrdiff_t>(at));
    std::copy_n(tail.begin() + static_cast<std::ptrdiff_t>(first), keep - first, s.history_.begin());
  }
  s.run_frames_[s.run_frames_count_ % s.run_frames_.size()] = {s.next_, frame};
  ++s.run_frames_count_;
  s.next_ += data.size();
  stats_.delivered_octets += data.size();
}

void Reassembler::gap(Stream& s, std::uint64_t length, GapCause cause, FrameNumber frame) {
  if (length == 0) return;
  StreamGap g{s.next_, length, cause, frame};
  Report r;
  r.kind = ReportKind::kGap;
  r.frame = frame;
  r.has_stream = true;
  r.stream = s.key_;
  r.offset = s.next_;
  r.length = length;
  r.gap_cause = cause;
  consumer_.on_report(r);
  consumer_.on_gap(s, g);
  s.recent_gaps_[s.recent_gaps_count_ % s.recent_gaps_.size()] = {s.next_, s.next_ + length};
  ++s.recent_gaps_count_;
  s.next_ += length;
  s.history_begin_ = s.next_;  // octets before a gap are no longer contiguous history
  stats_.gap_octets += length;
}

// Octets at [offset, offset + data.size()) all lie before next_: a
// retransmission. Compare with the history where we still have it.
void Reassembler::check_old(Stream& s, StreamOffset offset, wire::Bytes data, FrameNumber frame) {
  if (data.empty()) return;
  const StreamOffset end = offset + data.size();
  std::uint64_t verified = 0;
  std::uint64_t late = 0;
  if (s.history_reserved_ > 0) {
    const std::size_t n = s.history_reserved_;
    const StreamOffset window = std::max<StreamOffset>(s.history_begin_, s.next_ > n ? s.next_ - n : 0);
    const StreamOffset lo = std::max(offset, window), hi = std::min(end, s.next_);
    for (StreamOffset at = lo; at < hi; ++at) {
      if (s.history_[s.history_index(at)] != data[at - offset]) {
        // The frame that delivered the first copy: the last run starting at or before `at`.
        FrameNumber first;
        StreamOffset best = 0;
        const std::size_t count = std::min(s.run_frames_count_, s.run_frames_.size());
        for (std::size_t i = 0; i < count; ++i) {
          auto [start, f] = s.run_frames_[i];
          if (start <= at && start >= best) { best = start; first = f; }
        }
        ++stats_.conflicts;
        report_stream(s, ReportKind::kConflictingOverlap, frame, at, hi - at, first);
        consumer_.on_conflict(s, StreamConflict{at, seq_at(s.base_seq_, at), s.history_[s.history_index(at)],
                                                data[at - offset], frame, first});
        return;
      }
    }
    if (hi > lo) verified = hi - lo;
  }
  const std::size_t gaps = std::min(s.recent_gaps_count_, s.recent_gaps_.size());
  for (std::size_t i = 0; i < gaps; ++i) {
    const auto& g = s.recent_gaps_[i];
    const StreamOffset lo = std::max(offset, g.begin), hi = std::min(end, g.end);
    if (lo < hi) {
      report_stream(s, ReportKind::kLateData, frame, lo, hi - lo);
      late += hi - lo;
    }
  }
  stats_.retransmitted_octets += data.size();
  if (data.size() > verified + late) stats_.unverified_retransmitted_octets += data.size() - verified - late;
  if (late < data.size()) report_stream(s, ReportKind::kRetransmission, frame, offset, data.size() - late);
}

void Reassembler::compare_with_held(Stream& s, StreamOffset offset, wire::Bytes data, FrameNumber frame) {
  if (data.empty() || s.held_.empty()) return;
  const StreamOffset end = offset + data.size();
  auto it = s.held_.upper_bound(offset);
  if (it != s.held_.begin()) --it;
  for (; it != s.held_.end() && it->first < end; ++it) {
    const Stream::Held& h = it->second;
    if (h.lost()) continue;
    const StreamOffset lo = std::max(offset, it->first), hi = std::min(end, it->first + h.length);
    for (StreamOffset at = lo; at < hi; ++at) {
      if (h.data[at - it->first] != data[at - offset]) {
        ++stats_.conflicts;
        report_stream(s, ReportKind::kConflictingOverlap, frame, at, hi - at, h.frame);
        consumer_.on_conflict(s, StreamConflict{at, seq_at(s.base_seq_, at), h.data[at - it->first],
                                                data[at - offset], frame, h.frame});
        break;
      }
    }
  }
}

void Reassembler::hold(Stream& s, StreamOffset offset, wire::Bytes data, std::uint64_t length,
                       FrameNumber frame, Timestamp time) {
  compare_with_held(s, offset, data, frame);
  auto add = [&](StreamOffset b, StreamOffset e, bool lost) {
    Stream::Held h;
    h.length = e - b;
    h.frame = frame;
    h.time = time;
    if (!lost) h.data.assign(data.begin() + static_cast<std::ptrdiff_t>(b - offset),
                             data.begin() + static_cast<std::ptrdiff_t>(e - offset));
    const std::size_t cost = h.data.size() + kHeldEntryCost;
    s.held_octets_ += cost;
    stats_.held_octets += cost;
    stats_.peak_held_octets = std::max(stats_.peak_held_octets, stats_.held_octets);
    s.held_.emplace(b, std::move(h));
  };
  // Inserts [begin, end) where nothing is held yet; data replaces ranges that
  // were known only as lost to the snaplen; first copy wins otherwise.
  auto insert = [&](StreamOffset begin, StreamOffset end, bool lost) {
    StreamOffset cursor = begin;
    auto it = s.held_.upper_bound(begin);
    if (it != s.held_.begin() && std::prev(it)->first + std::prev(it)->second.length > begin) --it;
    while (cursor < end) {
      if (it == s.held_.end() || it->first >= end) {
        add(cursor, end, lost);
        break;
      }
      if (it->first > cursor) {
        add(cursor, it->first, lost);
        cursor = it->first;
        continue;
      }
      const StreamOffset held_end = it->first + it->second.length;
      const StreamOffset overlap_end = std::min(held_end, end);
      if (it->second.lost() && !lost) {
        const StreamOffset held_begin = it->first;
        const FrameNumber held_frame = it->second.frame;
        release_held(s, it);
        if (held_begin < cursor) {
          add(held_begin, cursor, true);
          std::prev(s.held_.upper_bound(held_begin))->second.frame = held_frame;
        }
        add(cursor, overlap_end, false);
        if (overlap_end < held_end) {
          add(overlap_end, held_end, true);
          s.held_.find(overlap_end)->second.frame = held_frame;
        }
        it = s.held_.lower_bound(overlap_end);
      } else {
        stats_.retransmitted_octets += overlap_end - cursor;
        ++it;
      }
      cursor = overlap_end;
    }
  };
  insert(offset, offset + data.size(), false);
  if (length > data.size()) insert(offset + data.size(), offset + length, true);
}

void Reassembler::release_held(Stream& s, std::map<StreamOffset, Stream::Held>::iterator it) {
  const std::size_t cost = it->second.data.size() + kHeldEntryCost;
  s.held_octets_ -= cost;
  stats_.held_octets -= cost;
  s.held_.erase(it);
}

void Reassembler::release_memory(Stream& s) {
  while (!s.held_.empty()) release_held(s, s.held_.begin());
  stats_.history_octets -= s.history_reserved_;
  s.history_reserved_ = 0;
  std::vector<std::uint8_t>().swap(s.history_);
}

// Delivers held entries that have become contiguous with next_.
void Reassembler::drain(Stream& s) {
  while (!s.held_.empty()) {
    auto it = s.held_.begin();
    const StreamOffset begin = it->first, end = begin + it->second.length;
    if (begin > s.next_) break;
    if (end > s.next_) {
      const std::size_t skip = static_cast<std::size_t>(s.next_ - begin);
      if (it->second.lost()) {
        gap(s, end - s.next_, GapCause::kSnaplen, it->second.frame);
      } else {
        const wire::Bytes rest = wire::Bytes(it->second.data).subspan(skip);
        stats_.copied_octets += rest.size();
        deliver(s, rest, it->second.frame, it->second.time);
      }
    }
    release_held(s, it);
  }
}

void Reassembler::flush_until(Stream& s, StreamOffset target, GapCause cause, FrameNumber frame) {
  while (s.next_ < target) {
    if (s.held_.empty() || s.held_.begin()->first >= target) {
      gap(s, target - s.next_, cause, frame);
      break;
    }
    if (s.held_.begin()->first > s.next_) gap(s, s.held_.begin()->first - s.next_, cause, frame);
    drain(s);
  }
  drain(s);
}

void Reassembler::enforce_limits(Stream& s, FrameNumber frame) {
  auto over = [&] {
    return s.held_octets_ > limits_.max_held_per_stream || stats_.held_octets > limits_.max_held_total;
  };
  if (s.held_.empty() || !over()) return;
  // Held octets only grow before this check, so a total within its bound
  // here stays within it while the loop below delivers.
  if (stats_.held_octets > limits_.max_held_total) ++stats_.held_total_hits;
  ++stats_.limit_hits;
  report_stream(s, ReportKind::kBufferLimit, frame, s.next_, s.held_octets_);
  // Give up waiting for the oldest hole: it becomes a gap and what is held
  // after it is delivered, until the stream is within its bounds again.
  while (!s.held_.empty() && over()) {
    auto first = s.held_.begin();
    flush_until(s, first->first + first->second.length, GapCause::kBufferLimit, frame);
  }
}

void Reassembler::finish() {
  std::vector<Connection*> order;
  order.reserve(connections_.size());
  for (auto& [key, c] : connections_) order.push_back(c.get());
  std::sort(order.begin(), order.end(), [](const Connection* x, const Connection* y) {
    return x->a_to_b.connection_id_ < y->a_to_b.connection_id_;
  });
  for (Connection* c : order) end_connection(*c, StreamEnd::kEndOfCapture, FrameNumber{});
}

void Reassembler::report_stream(const Stream& s, ReportKind kind, FrameNumber frame, StreamOffset offset,
                                std::uint64_t length, FrameNumber other) {
  Report r;
  r.kind = kind;
  r.frame = frame;
  r.other_frame = other;
  r.has_stream = true;
  r.stream = s.key_;
  r.offset = offset;
  r.length = length;
  consumer_.on_report(r);
}

}  // namespace rdmaconf::capture
