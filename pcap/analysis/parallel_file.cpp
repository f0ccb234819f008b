// analyze_shared_file (parallel.hpp): every worker walks the whole mapped
// file and reads, reassembles and analyzes the frames of its own
// connections.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <thread>
#include <unordered_map>

#include <pthread.h>

#include "analysis/observer_internal.hpp"
#include "analysis/parallel.hpp"
#include "smcr/transport.hpp"

namespace rdmaconf::analysis {
namespace {

// Callbacks of the stream ends at the capture's end come after every
// frame's, in the order the connections were created (their ids are the
// frames that created them).
constexpr std::uint64_t kFinishBase = std::uint64_t{1} << 62;
// A worker says how far it has read every kPublish octets; one more than
// kMaxAhead octets ahead of the slowest waits for it; the pages every
// worker is past go back kRelease octets at a time.
constexpr std::uint64_t kPublish = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxAhead = std::uint64_t{16} << 20;
constexpr std::uint64_t kRelease = std::uint64_t{4} << 20;
constexpr std::uint64_t kDone = std::numeric_limits<std::uint64_t>::max();

struct alignas(64) Position {
  std::atomic<std::uint64_t> at{0};
};

struct Walk {
  const capture::SharedPcapFile& file;
  std::vector<Position> positions;  // per worker: it has handled every frame before this offset
  std::atomic<bool> give_up{false};
  std::atomic<std::uint64_t> released{0};

  Walk(const capture::SharedPcapFile& f, std::size_t workers) : file(f), positions(workers) {}
  std::uint64_t slowest() const {
    std::uint64_t m = kDone;
    for (const Position& p : positions) m = std::min(m, p.at.load(std::memory_order_acquire));
    return m;
  }
  // Says how far worker `w` is; gives back what every worker is past; waits
  // while `w` is too far ahead (back-pressure: the pages between the
  // slowest and the fastest worker stay mapped).
  void publish(std::size_t w, std::uint64_t at) {
    positions[w].at.store(at, std::memory_order_release);
    std::uint64_t low = slowest();
    if (low != kDone) {
      std::uint64_t from = released.load(std::memory_order_relaxed);
      if (low >= from + kRelease && released.compare_exchange_strong(from, low)) file.release(from, low);
    }
    for (int spins = 0; at != kDone && low != kDone && at > low + kMaxAhead; ++spins) {
      if (give_up.load(std::memory_order_relaxed)) return;
      if (spins < 64) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(50));
      low = slowest();
    }
  }
};

// Which worker owns a connection: round the workers in the order the file
// first shows each connection (either direction). Every worker builds the
// same table from the same frames.
class Owners {
 public:
  explicit Owners(std::size_t workers) : workers_(workers) {}
  std::size_t of(const capture::StreamKey& k) {
    // Runs of one connection's frames (either direction) skip the table.
    if (has_last_ && ((k.source == last_.source && k.destination == last_.destination) ||
                      (k.source == last_.destination && k.destination == last_.source)))
      return last_owner_;
    const bool forward = k.source < k.destination;
    const Key key{forward ? k.source : k.destination, forward ? k.destination : k.source};
    auto [it, added] = table_.try_emplace(key, next_);
    if (added) next_ = (next_ + 1) % workers_;
    last_ = k;
    last_owner_ = it->second;
    has_last_ = true;
    return last_owner_;
  }
  std::size_t size() const { return table_.size(); }

 private:
  struct Key {
    capture::Endpoint a, b;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct Hash {
    std::size_t operator()(const Key& k) const {
      std::uint64_t h = 0x9e3779b97f4a7c15ull;
      auto mix = [&](std::uint64_t v) { h = (h ^ v) * 0xff51afd7ed558ccdull; };
      for (const capture::Endpoint* e : {&k.a, &k.b}) {
        const std::size_t n = capture::address_octets(e->address.version);
        for (std::size_t i = 0; i < n; i += 4)
          mix(std::uint64_t{e->address.octets[i]} << 24 | std::uint64_t{e->address.octets[i + 1]} << 16 |
              std::uint64_t{e->address.octets[i + 2]} << 8 | e->address.octets[i + 3]);
        mix(e->port);
      }
      return static_cast<std::size_t>(h ^ (h >> 29));
    }
  };
  std::size_t workers_;
  std::size_t next_ = 0;
  std::unordered_map<Key, std::size_t, Hash> table_;
  capture::StreamKey last_;
  std::size_t last_owner_ = 0;
  bool has_last_ = false;
};

// A frame's reports, kept while it is not yet known whose frame it is.
class HeldReports : public capture::ReportSink {
 public:
  explicit HeldReports(bool first_worker, std::atomic<bool>& give_up) : first_(first_worker), give_up_(give_up) {}
  void on_report(const capture::Report& r) override { reports.push_back(r); }
  bool wants_udp() const override { return true; }
  // As Analyzer::on_udp takes them: RoCEv2 and SCTP over UDP, which this
  // split cannot follow. Only worker 0 asks the second (a CRC32c over the
  // datagram): the frame is its own.
  bool on_udp(const capture::UdpDatagram& d) override {
    if (d.key.destination.port != smcr::kRoceV2UdpPort && !(first_ && sctp_over_udp(d))) return false;
    give_up_.store(true, std::memory_order_relaxed);
    return true;
  }
  bool wants_sctp() const override { return true; }
  bool on_sctp(const capture::SctpPacket&) override {
    give_up_.store(true, std::memory_order_relaxed);
    return true;
  }
  std::vector<capture::Report> reports;

 private:
  bool first_;
  std::atomic<bool>& give_up_;
};

// One worker: its own Analyzer behind its own Reassembler, each callback
// numbered by its frame (at the end, by its connection's).
class FileWorker : public capture::StreamConsumer {
 public:
  FileWorker(Walk& walk, const AnalysisOptions& options, std::size_t index, std::size_t workers)
      : analyzer(options), walk_(walk), reassembler_(*this, shared_limits(options.limits, workers)),
        owners_(workers), index_(index), held_(index == 0, walk.give_up), max_connections_(options.limits.max_connections) {
    reassembler_.number_connections_by_frame();
  }
  FileWorker(const FileWorker&) = delete;
  FileWorker& operator=(const FileWorker&) = delete;

  void run() {
    const capture::SharedPcapFile& file = walk_.file;
    capture::SharedPcapFile::Cursor cursor = file.start();
    std::uint64_t publish_at = cursor.pos + kPublish;
    capture::RawFrame frame;
    capture::PacketSource::Next n{};
    while (!walk_.give_up.load(std::memory_order_relaxed)) {
      n = file.next(cursor, frame);
      if (n != capture::PacketSource::Next::kFrame) break;
      take(frame);
      if (cursor.pos >= publish_at) {
        if (share_bound()) stop();
        walk_.publish(index_, cursor.pos);
        publish_at = cursor.pos + kPublish;
      }
    }
    walk_.publish(index_, kDone);
    if (walk_.give_up.load(std::memory_order_relaxed)) return;
    frames = cursor.frames;
    if (cursor.end_report) {
      clean_end = false;
      if (index_ == 0) analyzer.on_report(*cursor.end_report);
    }
    finishing_ = true;
    reassembler_.finish();
    if (share_bound()) stop();
  }

  // StreamConsumer: to the Analyzer, numbered; what this split cannot
  // follow stops every worker.
  void on_stream_start(capture::Stream& s) override {
    number(s);
    analyzer.on_stream_start(s);
  }
  void on_data(capture::Stream& s, const capture::StreamData& d) override {
    number(s);
    // The observer detects CLC at a side's first octets (observer.cpp,
    // detect; the rule ShardedAnalyzer routes by).
    if (d.offset == 0 && observer_detail::eyecatcher_prefix(d.bytes)) stop();
    analyzer.on_data(s, d);
  }
  void on_gap(capture::Stream& s, const capture::StreamGap& g) override {
    number(s);
    if (g.offset == 0) stop();  // what the first octets were is not known: they may have been CLC
    analyzer.on_gap(s, g);
  }
  void on_stream_end(capture::Stream& s, capture::StreamEnd why) override {
    number(s);
    analyzer.on_stream_end(s, why);
  }
  void on_conflict(capture::Stream& s, const capture::StreamConflict& c) override {
    number(s);
    analyzer.on_conflict(s, c);
  }
  void on_report(const capture::Report& r) override {
    if (r.kind == capture::ReportKind::kConnectionLimit) stop();
    analyzer.on_report(r);
  }

  Analyzer analyzer;
  std::uint64_t frames = 0;
  bool clean_end = true;

 private:
  static capture::ReassemblyLimits shared_limits(capture::ReassemblyLimits l, std::size_t workers) {
    l.max_connections = std::max<std::size_t>(l.max_connections / workers, 1);
    l.max_history_total /= workers;
    l.max_held_total /= workers;
    return l;
  }
  void stop() { walk_.give_up.store(true, std::memory_order_relaxed); }
  // This worker's share of a budget all connections share bound: the whole
  // might have too, so this split is not the one-thread run.
  bool share_bound() const {
    const capture::ReassemblyStats& st = reassembler_.stats();
    return st.history_denied > 0 || st.held_total_hits > 0;
  }
  void number(const capture::Stream& s) {
    if (finishing_) analyzer.set_sequence(kFinishBase + s.connection_id());
  }

  // One frame: the worker's own when its connection is; a frame with no
  // TCP segment is worker 0's.
  void take(const capture::RawFrame& frame) {
    if (const std::optional<capture::StreamKey> key = capture::tcp_key_of(frame)) {
      if (owner(*key) != index_) return;
      analyzer.set_sequence(frame.number.value);
      reassembler_.add_frame(frame);
      return;
    }
    held_.reports.clear();
    const std::optional<capture::TcpSegment> seg = capture::decode_frame(frame, held_);
    if ((seg ? owner(seg->key) : 0) != index_) return;
    analyzer.set_sequence(frame.number.value);
    for (const capture::Report& r : held_.reports) on_report(r);
    if (seg) reassembler_.add_segment(*seg);
  }
  std::size_t owner(const capture::StreamKey& k) {
    const std::size_t w = owners_.of(k);
    if (owners_.size() > max_connections_) stop();
    return w;
  }

  Walk& walk_;
  capture::Reassembler reassembler_;
  Owners owners_;
  std::size_t index_;
  HeldReports held_;
  std::size_t max_connections_;
  bool finishing_ = false;
};

}  // namespace

std::optional<AnalysisResult> analyze_shared_file(const capture::SharedPcapFile& file, const AnalysisOptions& options) {
  const std::size_t workers = std::max<std::size_t>(options.jobs, 1);
  Walk walk(file, workers);
  std::vector<std::unique_ptr<FileWorker>> shards;
  for (std::size_t w = 0; w < workers; ++w) shards.push_back(std::make_unique<FileWorker>(walk, options, w, workers));
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      // The name `perf report --sort comm` shows (ci/analyze-bench.sh).
      ::pthread_setname_np(::pthread_self(), ("rdmaconf-w" + std::to_string(w)).substr(0, 15).c_str());
      shards[w]->run();
    });
  for (std::thread& t : threads) t.join();
  if (walk.give_up.load()) return std::nullopt;
  std::vector<Analyzer*> analyzers;
  for (auto& s : shards) analyzers.push_back(&s->analyzer);
  AnalysisResult r = merge_shards(analyzers, AnalysisResult{}, shards[0]->frames, options.max_violations_kept);
  r.clean_end = shards[0]->clean_end;
  return r;
}

}  // namespace rdmaconf::analysis
