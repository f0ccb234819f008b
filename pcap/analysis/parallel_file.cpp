// analyze_shared_file (parallel.hpp): one thread walks the mapped file a
// chunk at a time, analyzes the frames of its own connections as it reads
// them and hands every other frame to its connection's worker; each worker
// reassembles and analyzes the frames it is handed.
#include <algorithm>
#include <atomic>
#include <chrono>
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
// Chunks of the file in flight (SharedPcapFile::kChunkOctets each): the one
// being read and those the workers still hold. When none is free the
// reader waits for the slowest worker (back-pressure), so the mapped pages
// between the slowest worker and the reader stay a few MiB; the pages
// before every chunk still held go back kRelease octets at a time.
constexpr std::size_t kChunks = 8;
constexpr std::uint64_t kRelease = std::uint64_t{4} << 20;
// How far ahead of the reader's chunk a waiting worker maps pages
// (Dispatch::populate_ahead): 4 MiB measured no better than 2.
constexpr std::uint64_t kMapAhead = std::uint64_t{2} << 20;
// How many stretches of a copied file a waiting worker reads ahead of the
// reader's chunk (Dispatch::read_ahead).
constexpr std::uint64_t kReadAhead = 2;
// What reading an octet costs the reading thread, as a share of what
// analysing it costs the thread that owns its connection (the reassembly,
// deframing, CRC and observers), in twentieths: the record walk and the
// header read that finds its connection, about 0.3, and mapping the file's
// pages, about 0.3 more when the kernel maps them 64 KiB a fault (small
// pages in its cache) and next to nothing when it maps 2 MiB folios
// (ci/analyze-bench.sh's profiles, docs/performance.md, "Several cores").
// The reading thread is given a new connection only while its own octets
// plus this share of every octet read are below every other worker's.
constexpr std::uint64_t kReadCostWalk = 6, kReadCostPages = 6, kReadCostDen = 20;
// Reading it with pread() instead (SharedPcapFile::Reading::kCopied): the
// kernel's copy, 0.4 of analysing an octet, on top of the walk. The copy
// is done by whichever thread has time (Dispatch::read_ahead), so the
// share counted here moves little: on the machine where copying won
// (docs/performance.md, "Several cores") 0, 0.2, 0.4 and 0.6 gave the
// same wall time.
constexpr std::uint64_t kReadCostCopy = 8;
// How much of the file each way of reading is timed on before the threads
// start (SharedPcapFile::cheaper_reading, from the 2 MiB stretch after the
// fault probe's, so neither reads pages the other mapped): whole 2 MiB
// stretches, as a kernel with large folios maps them.
constexpr std::uint64_t kReadProbe = capture::SharedPcapFile::kReleaseUnit;
// The page faults a MiB of small pages takes (64 KiB mapped a fault), and
// how much of the file is read to count them (SharedPcapFile::
// faults_per_mib, before the threads start): a MiB from the middle of the
// file, on a 2 MiB boundary. Not its start: the kernel's read-ahead, which
// puts a file into its cache, begins with small pages and grows them.
constexpr std::uint64_t kSmallPageFaultsPerMib = 16;
constexpr std::uint64_t kFaultProbe = std::uint64_t{1} << 20;
std::uint64_t fault_probe_at(std::uint64_t file_size) {
  return file_size / 2 / capture::SharedPcapFile::kReleaseUnit * capture::SharedPcapFile::kReleaseUnit;
}
std::uint64_t read_cost(std::uint64_t faults_per_mib) {
  return kReadCostWalk + kReadCostPages * std::min(faults_per_mib, kSmallPageFaultsPerMib) / kSmallPageFaultsPerMib;
}

// One frame as the reader found it: a view into the mapping. `whole`: the
// reader could not key it from its headers alone (capture::tcp_key_of), so
// its owner decodes it with its reports (decode_frame is pure: the reader's
// decoding of it, to find its connection, changed nothing).
struct Handed {
  capture::RawFrame frame;
  bool whole = false;
};

// A chunk of the file and the frames read from it, per worker (the reading
// thread's own are analysed as they are read, never listed). The workers
// it was handed to hold it (its pages stay mapped); the last to let go
// gives it back.
struct Chunk {
  capture::SharedPcapFile::Chunk octets;
  std::vector<std::vector<Handed>> frames;  // per worker
  std::atomic<std::size_t> holders{0};
};

// Before a thread sleeps for the other's next chunk it spins this long: the
// other side finishes a chunk every ~0.1 ms, and a sleep costs a futex wake
// on the other thread and this core's wake-up (on a virtual machine a
// halted vCPU). Not longer: on a loaded machine, where the other thread
// may not be running at all, a 0.1 ms spin cost 8 % more CPU in all, this
// one none measurable (docs/performance.md, "Several cores").
constexpr auto kSpin = std::chrono::microseconds(30);
// True when `ready()` turned true within kSpin.
template <class F>
bool spin_until(F ready) {
  const auto end = std::chrono::steady_clock::now() + kSpin;
  for (;;) {
    for (int i = 0; i < 64; ++i) {
      if (ready()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() >= end) return false;
  }
}

// The free chunks: the reader takes one; when none is back it spins a
// while, then waits until half of them are (each wait and wake costs both
// threads a context switch: one per few chunks, not one per chunk).
class ChunkPool {
 public:
  explicit ChunkPool(std::size_t workers) {
    for (std::size_t i = 0; i < kChunks; ++i) {
      chunks_.push_back(std::make_unique<Chunk>());
      chunks_.back()->frames.resize(workers);
      free_.push_back(chunks_.back().get());
    }
  }
  // `before_waiting` runs (unlocked) when the reader is about to wait.
  template <class F>
  Chunk* take(F before_waiting) {
    std::unique_lock lock(mutex_);
    if (free_.empty()) {
      lock.unlock();
      before_waiting();
      spin_until([&] { return free_count_.load(std::memory_order_relaxed) > 0; });
      lock.lock();
      if (free_.empty()) {
        waits_ = true;
        back_.wait(lock, [&] { return free_.size() >= kChunks / 2; });
        waits_ = false;
      }
    }
    Chunk* c = free_.back();
    free_.pop_back();
    free_count_.store(free_.size(), std::memory_order_relaxed);
    return c;
  }
  // A free chunk, or nullptr when none is: never waits (a worker reading
  // ahead).
  Chunk* try_take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return nullptr;
    Chunk* c = free_.back();
    free_.pop_back();
    free_count_.store(free_.size(), std::memory_order_relaxed);
    return c;
  }
  void give_back(Chunk* c) {
    std::lock_guard lock(mutex_);
    free_.push_back(c);
    free_count_.store(free_.size(), std::memory_order_relaxed);
    if (waits_ && free_.size() >= kChunks / 2) back_.notify_one();
  }
  const std::vector<std::unique_ptr<Chunk>>& chunks() const { return chunks_; }

 private:
  std::vector<std::unique_ptr<Chunk>> chunks_;
  std::mutex mutex_;
  std::condition_variable back_;
  std::vector<Chunk*> free_;
  std::atomic<std::size_t> free_count_{kChunks};  // free_.size(), read unlocked while spinning
  bool waits_ = false;
};

// One worker's chunks, in file order; nullptr: the capture's end. A mutex
// taken once a chunk. A worker that waits is woken when kWake chunks are
// queued for it, at the end, or when the reader is about to wait itself
// (wake()): it never sleeps with chunks queued while the reader waits for
// them, and otherwise not once per chunk.
class Lane {
 public:
  static constexpr std::size_t kWake = 2;
  void push(Chunk* c) {
    std::lock_guard lock(mutex_);
    ready_.push_back(c);
    queued_.store(ready_.size(), std::memory_order_relaxed);
    if (waits_ && (ready_.size() >= kWake || c == nullptr)) ready_cv_.notify_one();
  }
  void wake() {
    std::lock_guard lock(mutex_);
    if (waits_ && !ready_.empty()) ready_cv_.notify_one();
  }
  // `idle` runs (unlocked) while none is queued, before waiting; true: it
  // did some work, and the lane is asked again. With no work left it spins
  // a while (spin_until), then waits.
  template <class F>
  Chunk* pop(F idle) {
    std::unique_lock lock(mutex_);
    while (ready_.empty()) {
      lock.unlock();
      const bool worked = idle() || spin_until([&] { return queued_.load(std::memory_order_relaxed) > 0; });
      lock.lock();
      if (worked) continue;
      waits_ = true;
      ready_cv_.wait(lock, [&] { return !ready_.empty(); });
      waits_ = false;
    }
    Chunk* c = ready_.front();
    ready_.pop_front();
    queued_.store(ready_.size(), std::memory_order_relaxed);
    return c;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_cv_;
  std::deque<Chunk*> ready_;
  std::atomic<std::size_t> queued_{0};  // ready_.size(), read unlocked while spinning
  bool waits_ = false;
};

// What the reader and the workers share.
struct Dispatch {
  const capture::SharedPcapFile& file;
  ChunkPool pool;
  std::vector<Lane> lanes;  // per worker (the reading thread's, worker 0's, unused)
  std::atomic<bool> give_up{false};
  // Set by the reader before the capture's end is handed on (the lanes'
  // mutexes order them before the workers' reads).
  std::uint64_t frames = 0;
  std::optional<capture::Report> end_report;

  // The end of the chunk the reader walks, and how far the file's pages
  // were mapped ahead of it (populate_ahead).
  std::atomic<std::uint64_t> reading_to{0};
  std::atomic<std::uint64_t> mapped_to{0};
  std::atomic<bool> can_populate{true};

  // How the reader fills chunks; copied chunks have no pages to map ahead or give back.
  capture::SharedPcapFile::Reading how = capture::SharedPcapFile::Reading::kMapped;

  // Copied reading is done ahead of the reader (SharedPcapFile::read_at):
  // the file in stretches of chunk_octets() from its first record on. The
  // start of the next stretch nobody claimed yet, and those read but not
  // yet taken by the reader (stretch_at), in any order.
  std::atomic<std::uint64_t> next_stretch{0};
  std::mutex stretch_mutex;
  std::condition_variable stretch_cv;
  std::vector<Chunk*> stretches;
  std::atomic<std::uint64_t> published{0};  // stretches ever published, read unlocked while spinning
  bool stretch_waits = false;

  Dispatch(const capture::SharedPcapFile& f, std::size_t workers, capture::SharedPcapFile::Reading reading)
      : file(f), pool(workers), lanes(workers), can_populate(reading == capture::SharedPcapFile::Reading::kMapped),
        how(reading), next_stretch(f.start().pos) {}
  // A worker with nothing queued reads the next stretch of a copied file
  // (the kernel's copy, the largest cost the reading thread has beyond
  // worker 0's share, docs/performance.md, "Several cores"), at most
  // kReadAhead stretches past the reader's chunk and only into a chunk
  // that is free now. True: it read one.
  bool read_ahead() {
    if (how != capture::SharedPcapFile::Reading::kCopied) return false;
    const std::uint64_t limit =
        std::min(file.size(), reading_to.load(std::memory_order_relaxed) + kReadAhead * file.chunk_octets());
    std::uint64_t at = next_stretch.load(std::memory_order_relaxed);
    if (at >= limit) return false;
    Chunk* c = pool.try_take();
    if (!c) return false;
    // Claimed [at, end): nobody else reads it.
    while (!next_stretch.compare_exchange_weak(at, at < limit ? file.stretch_end(at) : at, std::memory_order_relaxed))
      if (at >= limit) break;
    if (at >= limit) {
      pool.give_back(c);
      return false;
    }
    file.read_at(at, c->octets);  // none filled when it could not: the reader's fill() says why
    std::lock_guard lock(stretch_mutex);
    stretches.push_back(c);
    published.fetch_add(1, std::memory_order_relaxed);
    if (stretch_waits) stretch_cv.notify_one();
    return true;
  }
  // The reader's next stretch, from `at` (before the file's end): read by
  // the worker that claimed it (waited for while it reads), or by the
  // reader into a chunk from `take` when nobody did.
  template <class F>
  Chunk* stretch_at(std::uint64_t at, F take) {
    for (;;) {
      std::unique_lock lock(stretch_mutex);
      const auto it = std::find_if(stretches.begin(), stretches.end(), [at](Chunk* c) { return c->octets.at == at; });
      if (it != stretches.end()) {
        Chunk* c = *it;
        stretches.erase(it);
        return c;
      }
      lock.unlock();
      std::uint64_t unclaimed = at;
      if (next_stretch.compare_exchange_strong(unclaimed, file.stretch_end(at), std::memory_order_relaxed)) {
        Chunk* c = take();
        file.read_at(at, c->octets);
        return c;
      }
      const std::uint64_t seen = published.load(std::memory_order_relaxed);
      if (spin_until([&] { return published.load(std::memory_order_relaxed) != seen; })) continue;
      lock.lock();
      stretch_waits = true;
      stretch_cv.wait(lock, [&] {
        return std::any_of(stretches.begin(), stretches.end(), [at](Chunk* c) { return c->octets.at == at; });
      });
      stretch_waits = false;
    }
  }
  // A worker with nothing queued maps the pages of the next chunk ahead of
  // the reader (SharedPcapFile::populate), at most kMapAhead octets past
  // the reader's chunk. Faulting the pages in is the largest cost the
  // reading thread has beyond worker 0's share (docs/performance.md,
  // "Several cores"); a worker that would wait takes some of it, so the
  // two threads even out whichever is the busier at the start. True: it
  // mapped some.
  bool populate_ahead() {
    if (!can_populate.load(std::memory_order_relaxed)) return false;
    const std::uint64_t front = reading_to.load(std::memory_order_relaxed);
    const std::uint64_t limit = std::min(front + kMapAhead, file.size());
    std::uint64_t from = mapped_to.load(std::memory_order_relaxed);
    for (;;) {
      const std::uint64_t start = std::max(from, front);
      const std::uint64_t to = std::min(start + file.chunk_octets(), limit);
      if (to <= start) return false;
      // Claimed [start, to): no other worker maps it too.
      if (!mapped_to.compare_exchange_weak(from, to, std::memory_order_relaxed)) continue;
      if (!file.populate(start, to)) can_populate.store(false, std::memory_order_relaxed);
      return true;
    }
  }
  // A worker is done with its frames of `c`.
  void release(Chunk* c, std::size_t worker) {
    c->frames[worker].clear();
    if (c->holders.fetch_sub(1, std::memory_order_acq_rel) == 1) pool.give_back(c);
  }
};

// Which worker owns a connection, decided when the file first shows it
// (either direction): the one with the least work so far, counted in
// octets of the frames it was given, the reading thread's plus its reading
// of every frame (read_cost); a tie goes to a worker other than the
// reading thread. The same file, its pages mapped alike, gives the same
// owners (which thread analyses a connection changes no result).
class Owners {
 public:
  // read_cost: reading an octet, in kReadCostDen-ths of analysing one.
  Owners(std::size_t workers, std::uint64_t read_cost) : octets_(workers, 0), read_cost_(read_cost) {}
  std::size_t of(const capture::StreamKey& k, std::size_t frame_octets) {
    read_ += frame_octets;
    // Runs of one connection's frames (either direction) skip the table.
    if (!(has_last_ && ((k.source == last_.source && k.destination == last_.destination) ||
                        (k.source == last_.destination && k.destination == last_.source)))) {
      const bool forward = k.source < k.destination;
      const Key key{forward ? k.source : k.destination, forward ? k.destination : k.source};
      auto [it, added] = table_.try_emplace(key, 0);
      if (added) it->second = least_busy();
      last_ = k;
      last_owner_ = it->second;
      has_last_ = true;
    }
    octets_[last_owner_] += frame_octets;
    return last_owner_;
  }
  // A frame of no connection: the reading thread's.
  void unkeyed(std::size_t frame_octets) {
    read_ += frame_octets;
    octets_[0] += frame_octets;
  }
  std::size_t size() const { return table_.size(); }

 private:
  std::size_t least_busy() const {
    const std::size_t n = octets_.size();
    if (n == 1) return 0;
    std::size_t best = 1;
    for (std::size_t w = 2; w < n; ++w)
      if (octets_[w] < octets_[best]) best = w;
    return octets_[0] + read_ / kReadCostDen * read_cost_ < octets_[best] ? 0 : best;
  }
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
  std::vector<std::uint64_t> octets_;  // per worker
  std::uint64_t read_cost_;
  std::uint64_t read_ = 0;
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
// (at the end, by its connection's). Worker 0 is the reading thread, which
// calls take() as it reads; the others run() over the chunks handed to them.
class FileWorker : public capture::StreamConsumer {
 public:
  FileWorker(Dispatch& dispatch, const AnalysisOptions& options, std::size_t index, std::size_t workers)
      : analyzer(options), dispatch_(dispatch), reassembler_(*this, shared_limits(options.limits, workers)),
        index_(index), held_(index == 0, dispatch.give_up) {
    reassembler_.number_connections_by_frame();
  }
  FileWorker(const FileWorker&) = delete;
  FileWorker& operator=(const FileWorker&) = delete;

  // Workers 1 and on: every chunk is taken and let go, given up or not, so
  // the reader never waits for a worker that has stopped.
  void run() {
    Lane& lane = dispatch_.lanes[index_];
    while (Chunk* c = lane.pop([&] { return dispatch_.populate_ahead() || dispatch_.read_ahead(); })) {
      if (!dispatch_.give_up.load(std::memory_order_relaxed)) {
        const std::vector<Handed>& frames = c->frames[index_];
        for (std::size_t i = 0; i < frames.size(); ++i) {
          if (i + kAhead < frames.size()) prefetch(frames[i + kAhead].frame.captured);
          take(frames[i]);
        }
        check_shares();
      }
      dispatch_.release(c, index_);
    }
    finish();
  }
  // After the capture's last frame: the streams' ends.
  void finish() {
    if (dispatch_.give_up.load(std::memory_order_relaxed)) return;
    if (dispatch_.end_report && index_ == 0) analyzer.on_report(*dispatch_.end_report);
    finishing_ = true;
    reassembler_.finish();
    check_shares();
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
  // This worker's share of a budget all connections share bound: the whole
  // might have too, so this split is not the one-thread run.
  void check_shares() {
    const capture::ReassemblyStats& st = reassembler_.stats();
    if (st.history_denied > 0 || st.held_total_hits > 0) stop();
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
  void number(const capture::Stream& s) {
    if (finishing_) analyzer.set_sequence(kFinishBase + s.connection_id());
  }

  // A handed frame's octets are first read here (the reader read only its
  // headers): asked for kAhead frames ahead, so the memory's latency
  // overlaps the frames before it (the CRC's stream over each payload
  // otherwise starts with misses). A hint only: nothing faults.
  static constexpr std::size_t kAhead = 2;
  static void prefetch(wire::Bytes b) {
    for (std::size_t at = 0; at < b.size(); at += 64) __builtin_prefetch(b.data() + at);
  }

  Dispatch& dispatch_;
  capture::Reassembler reassembler_;
  std::size_t index_;
  HeldReports held_;
  bool finishing_ = false;
};

// The reading thread: walks the file a chunk at a time, reads each frame's
// headers to find its connection, analyzes its own connections' frames at
// once (as worker 0, its headers in its cache) and lists the others' in the
// chunk, which it hands to each worker it lists frames for.
// A frame that carries no TCP segment is its own (it reports it).
class FileReader {
 public:
  FileReader(Dispatch& dispatch, FileWorker& own, const AnalysisOptions& options, std::uint64_t read_cost)
      : dispatch_(dispatch), own_(own), owners_(dispatch.lanes.size(), read_cost), held_(true, dispatch.give_up),
        max_connections_(options.limits.max_connections), stretch_at_(dispatch.file.start().pos) {}

  void run() {
    const capture::SharedPcapFile& file = dispatch_.file;
    capture::SharedPcapFile::Cursor cursor = file.start();
    Chunk* chunk = take();
    chunk->octets.filled = 0;  // nothing read yet: the first next() asks for a fill
    Handed h;
    while (!dispatch_.give_up.load(std::memory_order_relaxed)) {
      const capture::SharedPcapFile::Step step = file.next(cursor, chunk->octets, h.frame);
      if (step == capture::SharedPcapFile::Step::kFill) {
        if (!refill(cursor, chunk)) break;
        dispatch_.reading_to.store(chunk->octets.at + chunk->octets.filled, std::memory_order_relaxed);
        release(chunk->octets.at);
        continue;
      }
      if (step != capture::SharedPcapFile::Step::kFrame) break;
      std::size_t w = 0;
      if (const std::optional<capture::StreamKey> key = capture::tcp_key_of(h.frame)) {
        w = owner(*key, h.frame.captured.size());
        h.whole = false;
      } else {
        held_.reports.clear();
        const std::optional<capture::TcpSegment> seg = capture::decode_frame(h.frame, held_);
        if (seg) w = owner(seg->key, h.frame.captured.size());
        else owners_.unkeyed(h.frame.captured.size());
        h.whole = true;
      }
      if (w == 0) own_.take(h);
      else chunk->frames[w].push_back(h);
    }
    hand(chunk);
    dispatch_.frames = cursor.frames;
    dispatch_.end_report = cursor.end_report;
    for (std::size_t w = 1; w < dispatch_.lanes.size(); ++w) dispatch_.lanes[w].push(nullptr);
    own_.finish();
  }

 private:
  Chunk* take() {
    return dispatch_.pool.take([&] {
      for (std::size_t w = 1; w < dispatch_.lanes.size(); ++w) dispatch_.lanes[w].wake();
    });
  }
  // The chunk after `chunk` (which is handed on), at the cursor; false,
  // with the cursor's end_report, when the file cannot be read on. Mapped:
  // a view from the cursor on. Copied: made from the stretch read ahead
  // after it (Dispatch::stretch_at); read here when that could not be read
  // (fill() says why) or the file's stretches are all taken.
  bool refill(capture::SharedPcapFile::Cursor& cursor, Chunk*& chunk) {
    using capture::SharedPcapFile;
    const SharedPcapFile& file = dispatch_.file;
    if (dispatch_.how == SharedPcapFile::Reading::kCopied) {
      while (stretch_at_ < file.size()) {
        Chunk* stretch = dispatch_.stretch_at(stretch_at_, [&] { return take(); });
        stretch_at_ = file.stretch_end(stretch_at_);
        const SharedPcapFile::FromStretch made = file.fill_from(cursor, stretch->octets, chunk->octets);
        if (made == SharedPcapFile::FromStretch::kPassed) {
          dispatch_.pool.give_back(stretch);
          continue;
        }
        hand(chunk);
        chunk = stretch;
        if (made == SharedPcapFile::FromStretch::kUnread) return file.fill(cursor, chunk->octets, dispatch_.how);
        return made == SharedPcapFile::FromStretch::kFilled;
      }
    }
    hand(chunk);
    chunk = take();
    return file.fill(cursor, chunk->octets, dispatch_.how);
  }
  // The pages before every chunk a worker still holds go back, kRelease
  // octets at a time.
  void release(std::uint64_t front) {
    if (dispatch_.how != capture::SharedPcapFile::Reading::kMapped) return;
    std::uint64_t low = front;
    for (const auto& c : dispatch_.pool.chunks())
      if (c->holders.load(std::memory_order_acquire) > 0) low = std::min(low, c->octets.at);
    if (low >= released_ + kRelease) {
      dispatch_.file.release(released_, low);
      released_ = low;
    }
  }
  // The chunk to every worker it lists frames for; back to the pool when none.
  void hand(Chunk* c) {
    own_.check_shares();
    std::size_t holders = 0;
    for (std::size_t w = 1; w < c->frames.size(); ++w) holders += c->frames[w].empty() ? 0 : 1;
    if (holders == 0) {
      dispatch_.pool.give_back(c);
      return;
    }
    c->holders.store(holders, std::memory_order_relaxed);
    for (std::size_t w = 1; w < c->frames.size(); ++w)
      if (!c->frames[w].empty()) dispatch_.lanes[w].push(c);
  }
  std::size_t owner(const capture::StreamKey& k, std::size_t octets) {
    const std::size_t w = owners_.of(k, octets);
    if (owners_.size() > max_connections_) dispatch_.give_up.store(true, std::memory_order_relaxed);
    return w;
  }

  Dispatch& dispatch_;
  FileWorker& own_;
  Owners owners_;
  HeldReports held_;
  std::size_t max_connections_;
  std::uint64_t released_ = 0;
  // Copied: where the next stretch starts.
  std::uint64_t stretch_at_ = 0;
};

}  // namespace

std::optional<AnalysisResult> analyze_shared_file(const capture::SharedPcapFile& file, const AnalysisOptions& options) {
  const std::size_t workers = std::max<std::size_t>(options.jobs, 1);
  using Reading = capture::SharedPcapFile::Reading;
  const std::uint64_t probe_at = fault_probe_at(file.size());
  const Reading how = options.file_reading
                         ? *options.file_reading
                         : file.cheaper_reading(probe_at + capture::SharedPcapFile::kReleaseUnit, kReadProbe);
  Dispatch dispatch(file, workers, how);
  std::vector<std::unique_ptr<FileWorker>> shards;
  for (std::size_t w = 0; w < workers; ++w) shards.push_back(std::make_unique<FileWorker>(dispatch, options, w, workers));
  const std::uint64_t cost =
      how == Reading::kCopied ? kReadCostWalk + kReadCostCopy : read_cost(file.faults_per_mib(probe_at, kFaultProbe));
  FileReader reader(dispatch, *shards[0], options, cost);
  // The names `perf report --sort comm` shows (ci/analyze-bench.sh).
  const auto named = [](std::string name, auto body) {
    return std::thread([name = std::move(name), body] {
      ::pthread_setname_np(::pthread_self(), name.substr(0, 15).c_str());
      body();
    });
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w)
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
