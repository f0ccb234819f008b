#include "analysis/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
#include <thread>
#include <variant>

#include <pthread.h>

#include "analysis/observer_internal.hpp"
#include "smcr/transport.hpp"

namespace rdmaconf::analysis {

// One callback's octets: in a file window the batch holds, or copied into
// the batch (the callback's views are gone once it returns).
struct ShardedAnalyzer::Octets {
  const std::uint8_t* shared = nullptr;  // in a window of the file; else at `begin` in the batch
  std::size_t begin = 0, size = 0;
};

void name_thread(const std::string& name) { ::pthread_setname_np(::pthread_self(), name.substr(0, 15).c_str()); }

namespace {

using Octets = ShardedAnalyzer::Octets;

struct DataEvent {
  capture::StreamOffset offset = 0;
  capture::FrameNumber frame;
  capture::Timestamp time;
  bool whole_segment = false;
  Octets octets;
};
struct UdpEvent {
  capture::UdpDatagram datagram;  // payload empty: see octets
  Octets octets;
  bool sctp = false;  // an SCTP packet over IP (ports 0), for Analyzer::on_sctp
};
struct View {
  std::size_t index = 0;  // into Batch::views
};
struct Start {};
struct End {
  capture::StreamEnd why{};
};
using Payload = std::variant<View, Start, DataEvent, capture::StreamGap, capture::StreamConflict, End, UdpEvent>;

struct Callback {
  std::uint64_t sequence = 0;  // the callback's number in capture order
  std::uint64_t connection = 0;
  bool from_initiator = false;
  Payload payload;
};

std::uint64_t stream_slot(std::uint64_t connection, bool from_initiator) {
  return connection * 2 + (from_initiator ? 1 : 0);
}

}  // namespace

struct ShardedAnalyzer::Batch {
  std::vector<Callback> events;
  std::vector<std::uint8_t> octets;
  std::vector<std::unique_ptr<capture::Stream>> views;
  // The file windows (PacketSource::window) its shared octets lie in.
  std::vector<std::shared_ptr<const ShardedAnalyzer::Window>> windows;
  std::size_t shared_octets = 0;
  bool last = false;  // the worker's final batch

  bool full() const {
    return events.size() >= kBatchEvents || octets.size() + shared_octets >= kBatchOctets;
  }
  bool empty() const { return events.empty(); }
  void clear() {
    events.clear();
    octets.clear();
    views.clear();
    windows.clear();
    shared_octets = 0;
    last = false;
  }
  Octets keep(wire::Bytes b) {
    Octets o{nullptr, octets.size(), b.size()};
    octets.insert(octets.end(), b.begin(), b.end());
    return o;
  }
  // Octets of the file window `w` (which holds them): a view, not a copy.
  Octets share(wire::Bytes b, const std::shared_ptr<const ShardedAnalyzer::Window>& w) {
    if (windows.empty() || windows.back() != w) windows.push_back(w);
    shared_octets += b.size();
    return Octets{b.data(), 0, b.size()};
  }
  wire::Bytes bytes(Octets o) const {
    return o.shared ? wire::Bytes(o.shared, o.size) : wire::Bytes(octets.data() + o.begin, o.size);
  }
};

// A worker thread: its own Analyzer over the connections it was given, fed
// batches in capture order through a bounded queue.
class ShardedAnalyzer::Worker {
 public:
  Worker(const AnalysisOptions& options, std::size_t index)
      : analyzer(options), thread_([this, index] {
          name_thread("rdmaconf-w" + std::to_string(index));
          run();
        }) {
    analyzer.keep_by_sequence();
  }
  ~Worker() {
    if (thread_.joinable()) thread_.join();
  }

  // Waits while kMaxQueued batches wait for this worker: the reader slows
  // to the worker's pace instead of holding more.
  void push(std::unique_ptr<Batch> b) {
    {
      std::unique_lock lock(mutex_);
      room_.wait(lock, [&] { return queue_.size() < kMaxQueued; });
      queue_.push_back(std::move(b));
    }
    work_.notify_one();
  }
  // A batch the worker is done with, for reuse, or a new one.
  std::unique_ptr<Batch> spare() {
    {
      std::lock_guard lock(mutex_);
      if (!done_.empty()) {
        auto b = std::move(done_.back());
        done_.pop_back();
        return b;
      }
    }
    auto b = std::make_unique<Batch>();
    b->events.reserve(kBatchEvents);
    b->octets.reserve(kBatchOctets + 2048);
    return b;
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

  Analyzer analyzer;

 private:
  void run() {
    for (;;) {
      std::unique_ptr<Batch> b;
      {
        std::unique_lock lock(mutex_);
        work_.wait(lock, [&] { return !queue_.empty(); });
        b = std::move(queue_.front());
        queue_.pop_front();
      }
      room_.notify_one();
      const bool last = b->last;
      process(*b);
      b->clear();
      {
        std::lock_guard lock(mutex_);
        if (done_.size() < kMaxQueued) done_.push_back(std::move(b));
      }
      if (last) return;
    }
  }

  capture::Stream& stream(const Callback& e) {
    auto& s = streams_[stream_slot(e.connection, e.from_initiator)];
    if (!s) s = std::make_unique<capture::Stream>();  // a view always comes first; never left null
    return *s;
  }

  void process(Batch& b) {
    for (const Callback& e : b.events) {
      analyzer.set_sequence(e.sequence);
      std::visit(
          [&](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<T, View>) {
              auto& s = streams_[stream_slot(e.connection, e.from_initiator)];
              if (!s) s = std::move(b.views[p.index]);
              else s->copy_view(*b.views[p.index]);
            } else if constexpr (std::is_same_v<T, Start>) {
              analyzer.on_stream_start(stream(e));
            } else if constexpr (std::is_same_v<T, DataEvent>) {
              capture::StreamData d;
              d.offset = p.offset;
              d.bytes = b.bytes(p.octets);
              d.frame = p.frame;
              d.time = p.time;
              d.whole_segment = p.whole_segment;
              analyzer.on_data(stream(e), d);
            } else if constexpr (std::is_same_v<T, capture::StreamGap>) {
              analyzer.on_gap(stream(e), p);
            } else if constexpr (std::is_same_v<T, capture::StreamConflict>) {
              analyzer.on_conflict(stream(e), p);
            } else if constexpr (std::is_same_v<T, End>) {
              analyzer.on_stream_end(stream(e), p.why);
              streams_.erase(stream_slot(e.connection, e.from_initiator));
            } else {
              capture::UdpDatagram d = p.datagram;
              d.payload = b.bytes(p.octets);
              if (p.sctp) {
                capture::SctpPacket s;
                s.frame = d.frame;
                s.time = d.time;
                s.key = d.key;
                s.vlan_ids = d.vlan_ids;
                s.vlan_count = d.vlan_count;
                s.packet = d.payload;
                analyzer.on_sctp(s);
              } else {
                analyzer.on_udp(d);
              }
            }
          },
          e.payload);
    }
  }

  std::mutex mutex_;
  std::condition_variable work_, room_;
  std::deque<std::unique_ptr<Batch>> queue_, done_;
  std::unordered_map<std::uint64_t, std::unique_ptr<capture::Stream>> streams_;
  std::thread thread_;  // last: it starts once the rest is built
};

// Where a connection's events go, and what decides it.
struct ShardedAnalyzer::Route {
  static constexpr std::size_t kUndecided = std::numeric_limits<std::size_t>::max();
  enum class Look : std::uint8_t { kUnknown, kNotClc, kMaybeClc };
  std::size_t worker = kUndecided;
  int started = 0, ended = 0;
  bool announced[2] = {false, false};  // [from_initiator]: the worker has the stream's view
  Look look[2] = {Look::kUnknown, Look::kUnknown};
  std::unique_ptr<Batch> held;  // while undecided
};

AnalysisResult merge_shards(const std::vector<Analyzer*>& analyzers, AnalysisResult out, std::uint64_t frames,
                            std::size_t max_kept) {
  struct Created {
    std::uint64_t sequence;
    std::size_t worker;
    std::uint64_t local;
  };
  std::vector<Created> created;
  for (std::size_t w = 0; w < analyzers.size(); ++w) {
    const auto& seqs = analyzers[w]->creation_sequences();
    for (std::size_t i = 0; i < seqs.size(); ++i) created.push_back({seqs[i], w, i + 1});
  }
  std::stable_sort(created.begin(), created.end(),
                   [](const Created& a, const Created& b) { return a.sequence < b.sequence; });
  std::vector<std::vector<std::uint64_t>> ids(analyzers.size());
  for (std::size_t w = 0; w < analyzers.size(); ++w) ids[w].resize(analyzers[w]->creation_sequences().size());
  for (std::size_t i = 0; i < created.size(); ++i) ids[created[i].worker][created[i].local - 1] = i + 1;

  for (std::size_t w = 0; w < analyzers.size(); ++w) {
    AnalysisResult r = analyzers[w]->take_result(0);
    add_summary(out.summary, r.summary);
    for (ViolationRecord& v : r.violations) {
      if (v.connection >= 1 && v.connection <= ids[w].size()) v.connection = ids[w][v.connection - 1];
      out.violations.push_back(std::move(v));
    }
  }
  // One callback's violations come from one worker, in their order there.
  std::stable_sort(out.violations.begin(), out.violations.end(),
                   [](const ViolationRecord& a, const ViolationRecord& b) { return a.sequence < b.sequence; });
  if (out.violations.size() > max_kept) out.violations.resize(max_kept);
  out.summary.frames = frames;
  return out;
}

ShardedAnalyzer::ShardedAnalyzer(const AnalysisOptions& options, std::size_t workers)
    : options_(options), reports_(options) {
  workers = std::max<std::size_t>(workers, 1);
  for (std::size_t i = 0; i < workers; ++i) {
    workers_.push_back(std::make_unique<Worker>(options_, i));
    open_.push_back(workers_.back()->spare());
  }
}

ShardedAnalyzer::~ShardedAnalyzer() { stop_workers(); }

void ShardedAnalyzer::stop_workers() {
  if (stopped_) return;
  stopped_ = true;
  for (std::size_t w = 0; w < workers_.size(); ++w) {
    open_[w]->last = true;
    workers_[w]->push(std::move(open_[w]));
  }
  for (auto& w : workers_) w->join();
}

void ShardedAnalyzer::flush(std::size_t worker) {
  if (open_[worker]->empty()) return;
  workers_[worker]->push(std::move(open_[worker]));
  open_[worker] = workers_[worker]->spare();
}

// In-order octets lie in the frame, in the file window it was read into:
// the batch holds the window instead of a copy. Out-of-order ones the
// reassembler held, and libpcap's frames, are copied.
ShardedAnalyzer::Octets ShardedAnalyzer::keep(Batch& b, wire::Bytes bytes, bool held) {
  const Window* w = window_ ? window_->get() : nullptr;
  if (held || !w || bytes.empty() || bytes.data() < w->data() || bytes.data() + bytes.size() > w->data() + w->size())
    return b.keep(bytes);
  return b.share(bytes, *window_);
}

namespace {
// Frames read ahead of reassembly: views into the windows they hold.
struct FrameBatch {
  std::vector<capture::RawFrame> frames;
  std::vector<std::uint32_t> window_of;  // per frame, into windows
  std::vector<std::shared_ptr<const ShardedAnalyzer::Window>> windows;
  std::size_t octets = 0;
  bool last = false;
};

class FrameQueue {
 public:
  static constexpr std::size_t kMax = 4;
  void push(std::unique_ptr<FrameBatch> b) {
    {
      std::unique_lock lock(mutex_);
      room_.wait(lock, [&] { return queue_.size() < kMax; });
      queue_.push_back(std::move(b));
    }
    work_.notify_one();
  }
  std::unique_ptr<FrameBatch> pop() {
    std::unique_ptr<FrameBatch> b;
    {
      std::unique_lock lock(mutex_);
      work_.wait(lock, [&] { return !queue_.empty(); });
      b = std::move(queue_.front());
      queue_.pop_front();
    }
    room_.notify_one();
    return b;
  }

 private:
  std::mutex mutex_;
  std::condition_variable work_, room_;
  std::deque<std::unique_ptr<FrameBatch>> queue_;
};
}  // namespace

capture::RunSummary ShardedAnalyzer::run_file(capture::PacketSource& source, capture::Reassembler& reassembler) {
  capture::RunSummary summary;
  FrameQueue queue;
  // Reassembly on a thread of its own, the file read on this one: reading
  // (the kernel's copy of the file, the record headers) and reassembly each
  // take a good share of one thread's time.
  std::thread reassembly([&] {
    name_thread("rdmaconf-tcp");
    for (;;) {
      const std::unique_ptr<FrameBatch> b = queue.pop();
      for (std::size_t i = 0; i < b->frames.size(); ++i) {
        window_ = &b->windows[b->window_of[i]];
        reassembler.add_frame(b->frames[i]);
      }
      window_ = nullptr;
      if (b->last) return;
    }
  });
  auto batch = std::make_unique<FrameBatch>();
  capture::RawFrame frame;
  while (source.next(frame) == capture::PacketSource::Next::kFrame) {
    ++summary.frames;
    const std::shared_ptr<const Window> w = source.window();
    if (batch->windows.empty() || batch->windows.back() != w) batch->windows.push_back(w);
    batch->window_of.push_back(static_cast<std::uint32_t>(batch->windows.size() - 1));
    batch->frames.push_back(frame);
    batch->octets += frame.captured.size();
    if (batch->frames.size() >= kBatchEvents || batch->octets >= kBatchOctets) {
      queue.push(std::move(batch));
      batch = std::make_unique<FrameBatch>();
    }
  }
  batch->last = true;
  queue.push(std::move(batch));
  reassembly.join();
  if (auto r = source.end_report()) {
    summary.clean_end = false;
    on_report(*r);
  }
  reassembler.finish();
  return summary;
}

ShardedAnalyzer::Route& ShardedAnalyzer::route_for(const capture::Stream& s) {
  return routes_[s.connection_id()];
}

ShardedAnalyzer::Batch& ShardedAnalyzer::target(Route& r) {
  if (r.worker != Route::kUndecided) return *open_[r.worker];
  if (!r.held) r.held = std::make_unique<Batch>();
  return *r.held;
}

namespace {
// The stream's view goes first when the worker has none yet (or again, when
// its end frame and offset changed).
void announce(ShardedAnalyzer::Batch& b, const capture::Stream& s, bool& announced, bool again = false);
}  // namespace

// Sends the held events on, in the order they came, then the connection's
// later ones follow them directly.
void ShardedAnalyzer::decide(Route& r, std::size_t worker) {
  r.worker = worker;
  if (!r.held) return;
  Batch& held = *r.held;
  for (Callback& e : held.events) {
    Batch& b = *open_[worker];
    if (auto* v = std::get_if<View>(&e.payload)) {
      b.views.push_back(std::move(held.views[v->index]));
      v->index = b.views.size() - 1;
    } else if (auto* d = std::get_if<DataEvent>(&e.payload)) {
      d->octets = b.keep(held.bytes(d->octets));
    } else if (auto* u = std::get_if<UdpEvent>(&e.payload)) {
      u->octets = b.keep(held.bytes(u->octets));
    }
    b.events.push_back(std::move(e));
    if (b.full()) flush(worker);
  }
  r.held.reset();
}

// RFC 7609 §3.5, §4.8.1: CLC connections and the RoCEv2 packets of their
// link groups share state; a connection is sent elsewhere than worker 0 only
// once neither side can start like a CLC message.
void ShardedAnalyzer::after_event(Route& r, const capture::Stream& s) {
  if (r.worker == Route::kUndecided) {
    using Look = Route::Look;
    const bool maybe_clc = r.look[0] == Look::kMaybeClc || r.look[1] == Look::kMaybeClc;
    const bool over = r.held->events.size() >= kMaxHeldEvents || r.held->octets.size() >= kMaxHeldOctets;
    // A side that never started carries nothing: once every started side
    // ended, what is unknown is not CLC.
    const bool all_ended = r.ended >= r.started;
    const bool not_clc = (r.look[0] == Look::kNotClc && r.look[1] == Look::kNotClc) || (all_ended && !maybe_clc);
    if (maybe_clc || over) decide(r, 0);
    else if (not_clc) decide(r, s.connection_id() % workers_.size());
    return;
  }
  if (open_[r.worker]->full()) flush(r.worker);
}

namespace {
Callback callback_for(std::uint64_t sequence, const capture::Stream& s, Payload p) {
  return Callback{sequence, s.connection_id(), s.from_initiator(), std::move(p)};
}
void announce(ShardedAnalyzer::Batch& b, const capture::Stream& s, bool& announced, bool again) {
  if (announced && !again) return;
  announced = true;
  b.views.push_back(std::make_unique<capture::Stream>());
  b.views.back()->copy_view(s);
  b.events.push_back(callback_for(0, s, View{b.views.size() - 1}));
}
}  // namespace

void ShardedAnalyzer::on_stream_start(capture::Stream& s) {
  Route& r = route_for(s);
  ++r.started;
  Batch& b = target(r);
  announce(b, s, r.announced[s.from_initiator()]);
  b.events.push_back(callback_for(++sequence_, s, Start{}));
  after_event(r, s);
}

void ShardedAnalyzer::on_data(capture::Stream& s, const capture::StreamData& d) {
  Route& r = route_for(s);
  Batch& b = target(r);
  announce(b, s, r.announced[s.from_initiator()]);
  b.events.push_back(callback_for(
      ++sequence_, s, DataEvent{d.offset, d.frame, d.time, d.whole_segment, keep(b, d.bytes, r.worker == Route::kUndecided)}));
  Route::Look& look = r.look[s.from_initiator()];
  // The observer detects CLC at a side's first octets (observer.cpp, detect).
  if (look == Route::Look::kUnknown && !d.bytes.empty())
    look = observer_detail::eyecatcher_prefix(d.bytes) ? Route::Look::kMaybeClc : Route::Look::kNotClc;
  after_event(r, s);
}

void ShardedAnalyzer::on_gap(capture::Stream& s, const capture::StreamGap& g) {
  Route& r = route_for(s);
  Batch& b = target(r);
  announce(b, s, r.announced[s.from_initiator()]);
  b.events.push_back(callback_for(++sequence_, s, g));
  // Octets missing before the first ones: what they were is not known.
  Route::Look& look = r.look[s.from_initiator()];
  if (look == Route::Look::kUnknown) look = Route::Look::kMaybeClc;
  after_event(r, s);
}

void ShardedAnalyzer::on_conflict(capture::Stream& s, const capture::StreamConflict& c) {
  Route& r = route_for(s);
  Batch& b = target(r);
  announce(b, s, r.announced[s.from_initiator()]);
  b.events.push_back(callback_for(++sequence_, s, c));
  after_event(r, s);
}

void ShardedAnalyzer::on_stream_end(capture::Stream& s, capture::StreamEnd why) {
  const auto it = routes_.find(s.connection_id());
  if (it == routes_.end()) return;
  Route& r = it->second;
  ++r.ended;
  Route::Look& look = r.look[s.from_initiator()];
  if (look == Route::Look::kUnknown) look = Route::Look::kNotClc;  // ended without an octet
  Batch& b = target(r);
  // Again: the end frame and the next offset are the end's (the FIN's judge reads them).
  announce(b, s, r.announced[s.from_initiator()], true);
  b.events.push_back(callback_for(++sequence_, s, End{why}));
  r.announced[s.from_initiator()] = false;
  after_event(r, s);
  if (r.ended >= r.started) {
    if (r.worker == Route::kUndecided) decide(r, 0);
    routes_.erase(it);
  }
}

void ShardedAnalyzer::on_report(const capture::Report& r) { reports_.on_report(r); }

bool ShardedAnalyzer::on_udp(const capture::UdpDatagram& d) {
  // As Analyzer::on_udp: RoCEv2 (IBTA Annex A17), every link group on
  // worker 0, and SCTP over UDP (RFC 6951) there too.
  if (d.key.destination.port != smcr::kRoceV2UdpPort && !sctp_over_udp(d)) return false;
  Batch& b = *open_[0];
  UdpEvent u{d, keep(b, d.payload, false)};
  u.datagram.payload = {};
  b.events.push_back(Callback{++sequence_, 0, false, std::move(u)});
  if (b.full()) flush(0);
  return true;
}

bool ShardedAnalyzer::on_sctp(const capture::SctpPacket& p) {
  // SCTP associations, like RoCEv2, are followed on worker 0.
  Batch& b = *open_[0];
  capture::UdpDatagram d;
  d.frame = p.frame;
  d.time = p.time;
  d.key = p.key;
  d.vlan_ids = p.vlan_ids;
  d.vlan_count = p.vlan_count;
  UdpEvent u{d, keep(b, p.packet, false), true};
  b.events.push_back(Callback{++sequence_, 0, false, std::move(u)});
  if (b.full()) flush(0);
  return true;
}

AnalysisResult ShardedAnalyzer::take_result(std::uint64_t frames) {
  for (auto& [id, r] : routes_)
    if (r.worker == Route::kUndecided) decide(r, 0);
  routes_.clear();
  stop_workers();

  std::vector<Analyzer*> analyzers;
  for (auto& w : workers_) analyzers.push_back(&w->analyzer);
  return merge_shards(analyzers, reports_.take_result(0), frames, options_.max_violations_kept);
}

std::size_t default_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

std::optional<AnalysisResult> analyze_files(const std::vector<std::string>& paths, const AnalysisOptions& options,
                                            std::string& error) {
  struct One {
    std::optional<AnalysisResult> result;
    std::string error;
  };
  std::vector<One> done(paths.size());
  AnalysisOptions each = options;
  each.jobs = 1;
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < paths.size(); i = next++) done[i].result = analyze_file(paths[i], each, nullptr, done[i].error);
  };
  const std::size_t threads = std::min(std::max<std::size_t>(options.jobs, 1), paths.size());
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();

  AnalysisResult out;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (!done[i].result) {
      error = done[i].error;
      return std::nullopt;
    }
    AnalysisResult& r = *done[i].result;
    add_summary(out.summary, r.summary);
    out.clean_end = out.clean_end && r.clean_end;
    for (ViolationRecord& v : r.violations) {
      if (out.violations.size() >= options.max_violations_kept) break;
      v.capture = paths[i];
      out.violations.push_back(std::move(v));
    }
  }
  return out;
}

}  // namespace rdmaconf::analysis
