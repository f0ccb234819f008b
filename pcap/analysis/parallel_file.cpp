// analyze_shared_file (parallel.hpp): one reader walks the mapped file's
// records and hands each frame to the worker of its connection; each worker
// reads, reassembles and analyzes the frames it is handed.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <limits>
#include <mutex>
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
// The reader hands every worker what it has for it each kSpan octets of the
// file (an empty batch too: it says how far the file is read), and a
// worker's batch sooner when it holds kBatchFrames frames. A worker has
// kLaneBatches batches: when all are filled and not yet handled, the reader
// waits for it (back-pressure) until half of them are back, so the mapped
// pages between the slowest worker and the reader stay a few spans. The
// pages every worker is past go back kRelease octets at a time.
constexpr std::uint64_t kSpan = std::uint64_t{1} << 20;
constexpr std::size_t kBatchFrames = 2048;
constexpr std::size_t kLaneBatches = 6;
constexpr std::uint64_t kRelease = std::uint64_t{4} << 20;

// One frame as the reader found it: a view into the mapping. `whole`: the
// reader could not key it from its headers alone (capture::tcp_key_of), so
// the worker decodes it with its reports (decode_frame is pure: the reader's
// decoding of it, to find its connection, changed nothing).
struct Handed {
  capture::RawFrame frame;
  bool whole = false;
};

struct HandBatch {
  std::vector<Handed> frames;
  std::uint64_t end = 0;  // the reader had read the file up to here: every later frame lies past it
  bool last = false;      // the capture's end
};

// One worker's batches: the reader fills them, the worker handles them in
// the order given and hands them back. A mutex per worker, taken once a
// batch; a side that waits is woken only when it asked to be.
class Lane {
 public:
  Lane() {
    for (std::size_t i = 0; i < kLaneBatches; ++i) {
      spare_.push_back(std::make_unique<HandBatch>());
      spare_.back()->frames.reserve(kBatchFrames);
    }
  }
  // Reader: an empty batch; when none is back, waits until half are.
  std::unique_ptr<HandBatch> spare() {
    std::unique_lock lock(mutex_);
    if (spare_.empty()) {
      reader_waits_ = true;
      reader_.wait(lock, [&] { return spare_.size() >= kLaneBatches / 2; });
      reader_waits_ = false;
    }
    auto b = std::move(spare_.back());
    spare_.pop_back();
    return b;
  }
  void push(std::unique_ptr<HandBatch> b) {
    std::lock_guard lock(mutex_);
    ready_.push_back(std::move(b));
    if (worker_waits_) worker_.notify_one();
  }
  // Worker: the next batch, waiting for one.
  std::unique_ptr<HandBatch> pop() {
    std::unique_lock lock(mutex_);
    if (ready_.empty()) {
      worker_waits_ = true;
      worker_.wait(lock, [&] { return !ready_.empty(); });
      worker_waits_ = false;
    }
    auto b = std::move(ready_.front());
    ready_.pop_front();
    return b;
  }
  void give_back(std::unique_ptr<HandBatch> b) {
    b->frames.clear();
    b->last = false;
    std::lock_guard lock(mutex_);
    spare_.push_back(std::move(b));
    if (reader_waits_ && spare_.size() >= kLaneBatches / 2) reader_.notify_one();
  }

 private:
  std::mutex mutex_;
  std::condition_variable reader_, worker_;
  std::deque<std::unique_ptr<HandBatch>> ready_;
  std::vector<std::unique_ptr<HandBatch>> spare_;
  bool reader_waits_ = false, worker_waits_ = false;
};

struct alignas(64) Position {
  std::atomic<std::uint64_t> at{0};
};

// What the reader and the workers share.
struct Dispatch {
  const capture::SharedPcapFile& file;
  std::vector<Lane> lanes;          // per worker
  std::vector<Position> positions;  // per worker: it has handled every frame before this offset
  std::atomic<bool> give_up{false};
  // Set by the reader before the last batches (the lanes' mutexes order
  // them before the workers' reads).
  std::uint64_t frames = 0;
  std::optional<capture::Report> end_report;

  Dispatch(const capture::SharedPcapFile& f, std::size_t workers) : file(f), lanes(workers), positions(workers) {}
  std::uint64_t slowest() const {
    std::uint64_t m = std::numeric_limits<std::uint64_t>::max();
    for (const Position& p : positions) m = std::min(m, p.at.load(std::memory_order_acquire));
    return m;
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

// One worker: its own Analyzer behind its own Reassembler, fed the frames
// of its connections in file order, each callback numbered by its frame
// (at the end, by its connection's).
class FileWorker : public capture::StreamConsumer {
 public:
  FileWorker(Dispatch& dispatch, const AnalysisOptions& options, std::size_t index, std::size_t workers)
      : analyzer(options), dispatch_(dispatch), reassembler_(*this, shared_limits(options.limits, workers)),
        index_(index), held_(index == 0, dispatch.give_up) {
    reassembler_.number_connections_by_frame();
  }
  FileWorker(const FileWorker&) = delete;
  FileWorker& operator=(const FileWorker&) = delete;

  void run() {
    Lane& lane = dispatch_.lanes[index_];
    // Every batch is taken and given back, given up or not: the reader
    // never waits for a worker that has stopped.
    for (bool last = false; !last;) {
      std::unique_ptr<HandBatch> b = lane.pop();
      last = b->last;
      if (!dispatch_.give_up.load(std::memory_order_relaxed)) {
        const std::vector<Handed>& frames = b->frames;
        for (std::size_t i = 0; i < frames.size(); ++i) {
          if (i + kAhead < frames.size()) prefetch(frames[i + kAhead].frame.captured);
          take(frames[i]);
        }
        if (share_bound()) stop();
      }
      dispatch_.positions[index_].at.store(b->end, std::memory_order_release);
      lane.give_back(std::move(b));
    }
    if (dispatch_.give_up.load(std::memory_order_relaxed)) return;
    if (dispatch_.end_report && index_ == 0) analyzer.on_report(*dispatch_.end_report);
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

 private:
  static capture::ReassemblyLimits shared_limits(capture::ReassemblyLimits l, std::size_t workers) {
    l.max_connections = std::max<std::size_t>(l.max_connections / workers, 1);
    l.max_history_total /= workers;
    l.max_held_total /= workers;
    return l;
  }
  void stop() { dispatch_.give_up.store(true, std::memory_order_relaxed); }
  // This worker's share of a budget all connections share bound: the whole
  // might have too, so this split is not the one-thread run.
  bool share_bound() const {
    const capture::ReassemblyStats& st = reassembler_.stats();
    return st.history_denied > 0 || st.held_total_hits > 0;
  }
  void number(const capture::Stream& s) {
    if (finishing_) analyzer.set_sequence(kFinishBase + s.connection_id());
  }

  // A frame's octets are first read here, not by the reader: asked for
  // kAhead frames ahead, so the memory's latency overlaps the frames
  // before it (the CRC's stream over each payload otherwise starts with
  // misses). A hint only: nothing faults.
  static constexpr std::size_t kAhead = 2;
  static void prefetch(wire::Bytes b) {
    for (std::size_t at = 0; at < b.size(); at += 64) __builtin_prefetch(b.data() + at);
  }

  void take(const Handed& h) {
    analyzer.set_sequence(h.frame.number.value);
    if (!h.whole) {
      reassembler_.add_frame(h.frame);
      return;
    }
    held_.reports.clear();
    const std::optional<capture::TcpSegment> seg = capture::decode_frame(h.frame, held_);
    for (const capture::Report& r : held_.reports) on_report(r);
    if (seg) reassembler_.add_segment(*seg);
  }

  Dispatch& dispatch_;
  capture::Reassembler reassembler_;
  std::size_t index_;
  HeldReports held_;
  bool finishing_ = false;
};

// The reader: walks every record of the file, reads each frame's headers
// to find its connection and hands the frame to that connection's worker.
// A frame that carries no TCP segment is worker 0's (it reports it).
class FileReader {
 public:
  FileReader(Dispatch& dispatch, const AnalysisOptions& options)
      : dispatch_(dispatch), owners_(dispatch.lanes.size()), held_(true, dispatch.give_up),
        max_connections_(options.limits.max_connections) {}

  void run() {
    const std::size_t workers = dispatch_.lanes.size();
    for (std::size_t w = 0; w < workers; ++w) open_.push_back(dispatch_.lanes[w].spare());
    const capture::SharedPcapFile& file = dispatch_.file;
    capture::SharedPcapFile::Cursor cursor = file.start();
    std::uint64_t span_end = cursor.pos + kSpan;
    std::uint64_t released = 0;
    Handed h;
    while (!dispatch_.give_up.load(std::memory_order_relaxed)) {
      if (file.next(cursor, h.frame) != capture::PacketSource::Next::kFrame) break;
      std::size_t w = 0;
      if (const std::optional<capture::StreamKey> key = capture::tcp_key_of(h.frame)) {
        w = owner(*key);
        h.whole = false;
      } else {
        held_.reports.clear();
        const std::optional<capture::TcpSegment> seg = capture::decode_frame(h.frame, held_);
        w = seg ? owner(seg->key) : 0;
        h.whole = true;
      }
      open_[w]->frames.push_back(h);
      if (open_[w]->frames.size() >= kBatchFrames) hand(w, cursor.pos);
      if (cursor.pos >= span_end) {
        for (std::size_t i = 0; i < workers; ++i) hand(i, cursor.pos);
        span_end = cursor.pos + kSpan;
        const std::uint64_t low = dispatch_.slowest();
        if (low >= released + kRelease) {
          file.release(released, low);
          released = low;
        }
      }
    }
    dispatch_.frames = cursor.frames;
    dispatch_.end_report = cursor.end_report;
    for (std::size_t w = 0; w < workers; ++w) {
      open_[w]->last = true;
      hand(w, cursor.pos);
    }
  }

 private:
  void hand(std::size_t w, std::uint64_t end) {
    open_[w]->end = end;
    const bool last = open_[w]->last;
    dispatch_.lanes[w].push(std::move(open_[w]));
    if (!last) open_[w] = dispatch_.lanes[w].spare();
  }
  std::size_t owner(const capture::StreamKey& k) {
    const std::size_t w = owners_.of(k);
    if (owners_.size() > max_connections_) dispatch_.give_up.store(true, std::memory_order_relaxed);
    return w;
  }

  Dispatch& dispatch_;
  Owners owners_;
  HeldReports held_;
  std::size_t max_connections_;
  std::vector<std::unique_ptr<HandBatch>> open_;  // per worker, being filled
};

}  // namespace

std::optional<AnalysisResult> analyze_shared_file(const capture::SharedPcapFile& file, const AnalysisOptions& options) {
  const std::size_t workers = std::max<std::size_t>(options.jobs, 1);
  Dispatch dispatch(file, workers);
  std::vector<std::unique_ptr<FileWorker>> shards;
  for (std::size_t w = 0; w < workers; ++w) shards.push_back(std::make_unique<FileWorker>(dispatch, options, w, workers));
  FileReader reader(dispatch, options);
  // The names `perf report --sort comm` shows (ci/analyze-bench.sh).
  const auto named = [](std::string name, auto body) {
    return std::thread([name = std::move(name), body] {
      ::pthread_setname_np(::pthread_self(), name.substr(0, 15).c_str());
      body();
    });
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.push_back(named("rdmaconf-w" + std::to_string(w), [&shards, w] { shards[w]->run(); }));
  threads.push_back(named("rdmaconf-read", [&reader] { reader.run(); }));
  for (std::thread& t : threads) t.join();
  if (dispatch.give_up.load()) return std::nullopt;
  std::vector<Analyzer*> analyzers;
  for (auto& s : shards) analyzers.push_back(&s->analyzer);
  AnalysisResult r = merge_shards(analyzers, AnalysisResult{}, dispatch.frames, options.max_violations_kept);
  r.clean_end = !dispatch.end_report.has_value();
  return r;
}

}  // namespace rdmaconf::analysis
