// analyze_shared_file (parallel.hpp): the file cut into stretches, each read
// and walked by one thread while its octets are in that thread's cache,
// its frames listed by the worker that owns their connection; every thread
// then analyzes its own connections' frames, stretch after stretch.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "analysis/observer_internal.hpp"
#include "analysis/parallel.hpp"
#include "smcr/transport.hpp"

namespace rdmaconf::analysis {
namespace {

// Callbacks of the stream ends at the capture's end come after every
// frame's, in the order the connections were created (their ids are the
// frames that created them).
constexpr std::uint64_t kFinishBase = std::uint64_t{1} << 62;
// Stretches in flight per worker (SharedPcapFile::chunk_octets() each):
// read, walked and not yet analyzed by every worker that has frames in
// them. When none is free a thread analyzes what it has and then waits
// (back-pressure), so memory stays a few MiB whatever the file's size.
constexpr std::size_t kStretchesPerWorker = 4;
// Mapped: the pages before every stretch still held go back this many
// octets at a time.
constexpr std::uint64_t kRelease = std::uint64_t{4} << 20;
// How far past the walk a thread with nothing else to do maps the file's
// pages (SharedPcapFile::populate).
constexpr std::uint64_t kMapAhead = std::uint64_t{2} << 20;
// How much of the file each way of reading is timed on at each of its
// places before the threads start (SharedPcapFile::cheaper_reading): whole
// 2 MiB stretches, as a kernel with large folios maps them.
constexpr std::uint64_t kReadProbe = capture::SharedPcapFile::kReleaseUnit;
// A walk is looked for between this many frames of a thread's analysis,
// so the walk chain does not wait for a whole stretch's analysis.
constexpr std::size_t kWalkCheck = 64;

// Before a thread sleeps for another's progress it spins this long: a
// stretch is walked every few tens of microseconds, and a sleep costs a
// futex wake on the other thread and this core's wake-up (on a virtual
// machine a halted vCPU). Not longer: on a loaded machine, where the other
// thread may not be running at all, a 0.1 ms spin cost 8 % more CPU in all,
// this one none measurable (docs/performance.md, "Several cores").
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

// Something another thread waits for happened (a stretch walked, one
// freed, the end): a counter bumped, and sleepers woken only when there
// are some (a thread spins a while before it sleeps).
class Progress {
 public:
  std::uint64_t seen() const { return epoch_.load(); }
  void bump() {
    epoch_.fetch_add(1);
    if (sleeping_.load() > 0) {
      std::lock_guard lock(mutex_);
      changed_.notify_all();
    }
  }
  // Returns once the counter moved from `seen`.
  void wait(std::uint64_t seen) {
    if (spin_until([&] { return epoch_.load(std::memory_order_relaxed) != seen; })) return;
    std::unique_lock lock(mutex_);
    sleeping_.fetch_add(1);
    changed_.wait(lock, [&] { return epoch_.load() != seen; });
    sleeping_.fetch_sub(1);
  }

 private:
  // Sequentially consistent, both: a waiter counts itself before it looks
  // at the counter, a bumper moves the counter before it looks for
  // waiters, so one of them sees the other.
  std::atomic<std::uint64_t> epoch_{0};
  std::atomic<std::size_t> sleeping_{0};
  std::mutex mutex_;
  std::condition_variable changed_;
};

// One frame as its walk found it: a view into the stretch. `whole`: the
// walk could not key it from its headers alone (capture::tcp_key_octets), so
// its owner decodes it with its reports (decode_frame is pure: the walk's
// decoding of it, to find its connection, changed nothing).
struct Handed {
  capture::RawFrame frame;
  bool whole = false;
};

// One stretch of the file in flight. `holding` says who still needs it:
// bit w for worker w while it has frames of the stretch to analyze, kWalk
// while the next stretch's walk may read it (a record cut at the stretch's
// end continues there), kClaimed from its claim to its walk; 0: free, to
// be claimed for the stretch kept.size() further on.
struct Stretch {
  static constexpr std::uint64_t kWalk = std::uint64_t{1} << 63;
  static constexpr std::uint64_t kClaimed = std::uint64_t{1} << 62;
  capture::SharedPcapFile::Chunk octets;
  std::vector<std::vector<Handed>> frames;  // per worker
  std::atomic<std::uint64_t> index{0};      // which stretch of the file it holds
  std::atomic<std::uint64_t> holding{0};
  std::atomic<std::uint64_t> at{0};  // mapped: where its view starts (the pages it holds), for release
};

// Which worker owns a connection, decided when the file first shows it
// (either direction): the one with the least work so far, counted in
// octets of its connections' frames (every thread reads and walks alike,
// so only the analysis is counted). The walks are made in file order, so
// the same file gives the same owners (which thread analyses a connection
// changes no result).
class Owners {
 public:
  explicit Owners(std::size_t workers) : octets_(workers, 0) {}
  // A frame keyed from its headers. A run of one connection's frames
  // (either direction) is told by the key's octets alone, without making
  // the key (the walk's commonest case).
  std::size_t of(const capture::TcpKeyOctets& k, std::size_t frame_octets) {
    if (!same_as_last(k)) {
      last_version_ = k.version;
      std::copy(k.addresses.begin(), k.addresses.end(), last_addresses_.begin());
      std::copy(k.ports.begin(), k.ports.end(), last_ports_.begin());
      has_last_ = true;
      last_owner_ = owner_of(capture::stream_key_of(k));
    }
    octets_[last_owner_] += frame_octets;
    return last_owner_;
  }
  // A frame the walk decoded whole to find its segment.
  std::size_t of(const capture::StreamKey& k, std::size_t frame_octets) {
    has_last_ = false;
    last_owner_ = owner_of(k);
    octets_[last_owner_] += frame_octets;
    return last_owner_;
  }
  // A frame of no connection: worker 0's.
  void unkeyed(std::size_t frame_octets) { octets_[0] += frame_octets; }
  std::size_t size() const { return table_.size(); }

 private:
  std::size_t owner_of(const capture::StreamKey& k) {
    auto [it, added] = table_.try_emplace(capture::ConnectionKey::of(k), 0);
    if (added) it->second = static_cast<std::size_t>(std::min_element(octets_.begin(), octets_.end()) - octets_.begin());
    return it->second;
  }
  // The last keyed frame's octets, as they are or with source and
  // destination swapped.
  bool same_as_last(const capture::TcpKeyOctets& k) const {
    if (!has_last_ || k.version != last_version_) return false;
    const auto same = [](wire::Bytes a, wire::Bytes b) { return std::equal(a.begin(), a.end(), b.begin()); };
    const wire::Bytes addresses(last_addresses_.data(), k.addresses.size());
    const wire::Bytes ports(last_ports_.data(), k.ports.size());
    if (same(k.addresses, addresses) && same(k.ports, ports)) return true;
    const std::size_t a = addresses.size() / 2, p = ports.size() / 2;
    return same(k.addresses.first(a), addresses.last(a)) && same(k.addresses.last(a), addresses.first(a)) &&
           same(k.ports.first(p), ports.last(p)) && same(k.ports.last(p), ports.first(p));
  }

  std::vector<std::uint64_t> octets_;  // per worker
  std::unordered_map<capture::ConnectionKey, std::size_t, capture::ConnectionKey::Hash> table_;
  bool has_last_ = false;
  capture::IpVersion last_version_{};
  std::array<std::uint8_t, 2 * capture::kIpv6Octets> last_addresses_{};
  std::array<std::uint8_t, 4> last_ports_{};
  std::size_t last_owner_ = 0;
};

// A frame's reports, kept while it is not yet known whose frame it is.
class HeldReports : public capture::ReportSink {
 public:
  explicit HeldReports(std::atomic<bool>& give_up) : give_up_(give_up) {}
  void on_report(const capture::Report& r) override { reports.push_back(r); }
  bool wants_udp() const override { return true; }
  // As Analyzer::on_udp takes them: RoCEv2 and SCTP over UDP, which this
  // split cannot follow.
  bool on_udp(const capture::UdpDatagram& d) override {
    if (d.key.destination.port != smcr::kRoceV2UdpPort && !sctp_over_udp(d)) return false;
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
  std::atomic<bool>& give_up_;
};

// What the threads share: the stretches in flight, and the walk, which
// the thread that read a stretch makes when the walk before it is done
// (the record a stretch starts with is where that walk ended). The walk's
// state (cursor, owners, the stretch before) is touched only by the thread
// whose stretch is walked; `walked` passes it on.
class Split {
 public:
  Split(const capture::SharedPcapFile& file, std::size_t workers, capture::SharedPcapFile::Reading how,
        std::size_t max_connections)
      : file_(file), how_(how), kept_(std::max<std::size_t>(kStretchesPerWorker * workers, 4)),
        cursor_(file.start()), owners_(workers), held_(give_up), max_connections_(max_connections),
        stretches_((file.size() - cursor_.pos + file.chunk_octets() - 1) / file.chunk_octets()) {
    for (std::size_t i = 0; i < kept_.size(); ++i) {
      kept_[i] = std::make_unique<Stretch>();
      kept_[i]->frames.resize(workers);
    }
  }

  std::atomic<bool> give_up{false};
  Progress progress;
  // After the walk ended (end_ set): the capture's frames and how it ended.
  std::uint64_t frames = 0;
  std::optional<capture::Report> end_report;

  std::uint64_t walked() const { return walked_.load(std::memory_order_acquire); }
  std::uint64_t end() const { return end_.load(std::memory_order_acquire); }
  Stretch& stretch(std::uint64_t k) { return *kept_[k % kept_.size()]; }

  // The next stretch of the file, claimed and read (copied: into its
  // buffer, SharedPcapFile::read_at) by this thread, which walks it when
  // its turn comes; nullopt when its place is not free yet, or past what
  // the walk can need. A stretch past the file's last is claimed only when
  // the walk asks for it (a record cut at the file's end: fill() says so).
  std::optional<std::uint64_t> claim() {
    std::uint64_t k = next_claim_.load(std::memory_order_relaxed);
    for (;;) {
      if (k >= end() || (k >= stretches_ && k != walked())) return std::nullopt;
      if (stretch(k).holding.load(std::memory_order_acquire) != 0) return std::nullopt;
      if (next_claim_.compare_exchange_weak(k, k + 1, std::memory_order_relaxed)) break;
    }
    Stretch& s = stretch(k);
    s.holding.store(Stretch::kClaimed, std::memory_order_relaxed);
    s.index.store(k, std::memory_order_relaxed);
    s.octets.filled = 0;
    if (how_ == capture::SharedPcapFile::Reading::kCopied && k < stretches_)
      file_.read_at(start_of(k), s.octets);  // none filled when it could not: the walk's fill() says why
    return k;
  }
  // A claimed stretch the walk ended before: free again.
  void drop(std::uint64_t k) { free_bits(stretch(k), Stretch::kClaimed); }

  // Walks stretch k, which this thread claimed (the walk before it is
  // done): makes it the chunk at the cursor, lists its frames by owner,
  // and hands the walk on.
  void walk(std::uint64_t k) {
    using capture::SharedPcapFile;
    Stretch& s = stretch(k);
    bool made = true, ended = false;
    if (how_ == SharedPcapFile::Reading::kCopied) {
      static const SharedPcapFile::Chunk kNone{};
      switch (file_.fill_from(cursor_, s.octets, before_ ? before_->octets : kNone)) {
        case SharedPcapFile::FromStretch::kFilled: break;
        case SharedPcapFile::FromStretch::kPassed: made = false; break;  // inside a record the walk read on
        case SharedPcapFile::FromStretch::kUnread: ended = !file_.fill(cursor_, s.octets, how_); break;
        case SharedPcapFile::FromStretch::kError: ended = true; break;
      }
    } else {
      ended = !file_.fill(cursor_, s.octets, how_);  // a view of the mapping from the cursor on
      s.at.store(s.octets.at, std::memory_order_relaxed);
      walking_to_.store(s.octets.at + s.octets.filled, std::memory_order_relaxed);
    }
    std::uint64_t holders = 0;
    if (made && !ended) {
      Handed h;
      for (;;) {
        const SharedPcapFile::Step step = file_.next(cursor_, s.octets, h.frame);
        if (step == SharedPcapFile::Step::kFill) break;
        if (step != SharedPcapFile::Step::kFrame || give_up.load(std::memory_order_relaxed)) {
          ended = true;
          break;
        }
        const std::size_t w = owner(h);
        s.frames[w].push_back(h);
        holders |= std::uint64_t{1} << w;
      }
      if (!ended) holders |= Stretch::kWalk;
    }
    // Who holds it now (its claim gone); the stretch before is no longer
    // needed by the walk, unless this one was passed over.
    s.holding.store(holders, std::memory_order_release);
    if (made || ended) {
      if (before_) free_bits(*before_, Stretch::kWalk);
      before_ = holders & Stretch::kWalk ? &s : nullptr;
    }
    if (how_ == SharedPcapFile::Reading::kMapped) release_pages();
    if (ended) {
      frames = cursor_.frames;
      end_report = cursor_.end_report;
      end_.store(k + 1, std::memory_order_release);
    }
    // The walk's state is the next walker's from here on; the bump also
    // tells a claimer that a stretch nobody holds is free.
    walked_.store(k + 1, std::memory_order_release);
    progress.bump();
  }

  // Worker w is done with its frames of stretch s.
  void done(Stretch& s, std::size_t w) {
    s.frames[w].clear();
    free_bits(s, std::uint64_t{1} << w);
  }

  // A thread with nothing else to do maps the file's pages past the walk
  // (SharedPcapFile::populate), so the walk takes fewer page faults. True:
  // it mapped some.
  bool populate_ahead() {
    if (how_ != capture::SharedPcapFile::Reading::kMapped || !can_populate_.load(std::memory_order_relaxed))
      return false;
    const std::uint64_t front = walking_to_.load(std::memory_order_relaxed);
    const std::uint64_t limit = std::min(front + kMapAhead, file_.size());
    std::uint64_t from = mapped_to_.load(std::memory_order_relaxed);
    for (;;) {
      const std::uint64_t start = std::max(from, front);
      const std::uint64_t to = std::min(start + file_.chunk_octets(), limit);
      if (to <= start) return false;
      // Claimed [start, to): no other thread maps it too.
      if (!mapped_to_.compare_exchange_weak(from, to, std::memory_order_relaxed)) continue;
      if (!file_.populate(start, to)) can_populate_.store(false, std::memory_order_relaxed);
      return true;
    }
  }

 private:
  std::uint64_t start_of(std::uint64_t k) const { return cursor_start_ + k * file_.chunk_octets(); }
  void free_bits(Stretch& s, std::uint64_t bits) {
    if (s.holding.fetch_and(~bits, std::memory_order_acq_rel) == bits) progress.bump();
  }
  std::size_t owner(Handed& h) {
    std::size_t w = 0;
    if (const std::optional<capture::TcpKeyOctets> key = capture::tcp_key_octets(h.frame)) {
      w = owners_.of(*key, h.frame.captured.size());
      h.whole = false;
    } else {
      held_.reports.clear();
      const std::optional<capture::TcpSegment> seg = capture::decode_frame(h.frame, held_);
      if (seg) w = owners_.of(seg->key, h.frame.captured.size());
      else owners_.unkeyed(h.frame.captured.size());
      h.whole = true;
    }
    if (owners_.size() > max_connections_) give_up.store(true, std::memory_order_relaxed);
    return w;
  }
  // Mapped: the pages before every stretch still held go back, kRelease
  // octets at a time.
  void release_pages() {
    std::uint64_t low = cursor_.pos;
    for (const auto& s : kept_)
      if ((s->holding.load(std::memory_order_acquire) & ~Stretch::kClaimed) != 0)
        low = std::min(low, s->at.load(std::memory_order_relaxed));
    if (low >= released_ + kRelease) {
      file_.release(released_, low);
      released_ = low;
    }
  }

  const capture::SharedPcapFile& file_;
  const capture::SharedPcapFile::Reading how_;
  std::vector<std::unique_ptr<Stretch>> kept_;
  std::atomic<std::uint64_t> next_claim_{0};
  std::atomic<std::uint64_t> walked_{0};  // stretches walked: the next walk is this one's
  std::atomic<std::uint64_t> end_{std::numeric_limits<std::uint64_t>::max()};
  // The walk's state.
  capture::SharedPcapFile::Cursor cursor_;
  Owners owners_;
  HeldReports held_;
  std::size_t max_connections_;
  Stretch* before_ = nullptr;  // the stretch the last walk made its chunk, while this one may need it
  std::uint64_t released_ = 0;
  // The file's stretches: from the first record on, chunk_octets() each.
  const std::uint64_t cursor_start_ = cursor_.pos;
  const std::uint64_t stretches_;
  // Mapped: how far the walk has made views, and how far pages were mapped ahead.
  std::atomic<std::uint64_t> walking_to_{0};
  std::atomic<std::uint64_t> mapped_to_{0};
  std::atomic<bool> can_populate_{true};
};

// One worker: its own Analyzer behind its own Reassembler, fed the frames
// of its connections in file order, each callback numbered by its frame
// (at the end, by its connection's). Every worker also reads and walks
// stretches in turn (Split::claim, Split::walk).
class FileWorker : public capture::StreamConsumer {
 public:
  FileWorker(Split& split, const AnalysisOptions& options, std::size_t index, std::size_t workers)
      : analyzer(options), split_(split), reassembler_(*this, shared_limits(options.limits, workers)), index_(index),
        held_(split.give_up) {
    reassembler_.number_connections_by_frame();
  }
  FileWorker(const FileWorker&) = delete;
  FileWorker& operator=(const FileWorker&) = delete;

  // Walks its stretch when the walk comes to it, analyzes its frames of
  // each walked stretch in file order, claims the next stretch when it has
  // none to walk, and waits when none of these can be done.
  void run() {
    std::uint64_t next = 0;  // the next stretch to look for this worker's frames in
    while (!split_.give_up.load(std::memory_order_relaxed)) {
      const std::uint64_t seen = split_.progress.seen();
      if (walk_if_due()) continue;
      if (pending_ && *pending_ >= split_.end()) {
        split_.drop(*pending_);
        pending_.reset();
        continue;
      }
      if (next < split_.walked()) {
        analyze(next++);
        continue;
      }
      if (next >= split_.end()) break;
      if (!pending_ && (pending_ = split_.claim())) continue;
      if (split_.populate_ahead()) continue;
      split_.progress.wait(seen);
    }
    split_.progress.bump();  // a thread that stops for a give-up wakes the others to see it
    finish();
  }

  Analyzer analyzer;

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

 private:
  // The stretch this worker claimed, walked when the walk before it is done.
  bool walk_if_due() {
    // Not past the end: the walk that ended handed on no walk (end() is
    // set before walked(), so this sees it).
    if (!pending_ || *pending_ != split_.walked() || *pending_ >= split_.end()) return false;
    split_.walk(*pending_);
    pending_.reset();
    return true;
  }
  // This worker's frames of stretch k, if it has any (a stretch it has none
  // in may be free again, or hold a later stretch already).
  void analyze(std::uint64_t k) {
    Stretch& s = split_.stretch(k);
    const std::uint64_t mine = std::uint64_t{1} << index_;
    if ((s.holding.load(std::memory_order_acquire) & mine) == 0 || s.index.load(std::memory_order_relaxed) != k)
      return;
    const std::vector<Handed>& frames = s.frames[index_];
    for (std::size_t i = 0; i < frames.size(); ++i) {
      if (i + kAhead < frames.size()) prefetch(frames[i + kAhead].frame.captured);
      if (i % kWalkCheck == kWalkCheck - 1) walk_if_due();
      take(frames[i]);
    }
    check_shares();
    split_.done(s, index_);
  }
  // After the capture's last frame: the streams' ends.
  void finish() {
    if (split_.give_up.load(std::memory_order_relaxed)) return;
    if (split_.end_report && index_ == 0) analyzer.on_report(*split_.end_report);
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
  static capture::ReassemblyLimits shared_limits(capture::ReassemblyLimits l, std::size_t workers) {
    l.max_connections = std::max<std::size_t>(l.max_connections / workers, 1);
    l.max_history_total /= workers;
    l.max_held_total /= workers;
    return l;
  }
  void stop() {
    split_.give_up.store(true, std::memory_order_relaxed);
    split_.progress.bump();
  }
  void number(const capture::Stream& s) {
    if (finishing_) analyzer.set_sequence(kFinishBase + s.connection_id());
  }

  // A frame's payload is first read here (the walk read only its headers):
  // asked for kAhead frames ahead, so the memory's latency overlaps the
  // frames before it (the CRC's stream over each payload otherwise starts
  // with misses). A hint only: nothing faults.
  static constexpr std::size_t kAhead = 2;
  static void prefetch(wire::Bytes b) {
    constexpr std::size_t kLine = capture::SharedPcapFile::kCacheLine;
    for (std::size_t at = 0; at < b.size(); at += kLine) __builtin_prefetch(b.data() + at);
  }

  Split& split_;
  capture::Reassembler reassembler_;
  std::size_t index_;
  HeldReports held_;
  std::optional<std::uint64_t> pending_;  // the stretch this worker claimed and is to walk
  bool finishing_ = false;
};

}  // namespace

std::optional<AnalysisResult> analyze_shared_file(const capture::SharedPcapFile& file, const AnalysisOptions& options) {
  const std::size_t workers = std::clamp<std::size_t>(options.jobs, 1, 62);  // one bit each in Stretch::holding
  using Reading = capture::SharedPcapFile::Reading;
  const Reading how = options.file_reading ? *options.file_reading : file.cheaper_reading(kReadProbe);
  Split split(file, workers, how, options.limits.max_connections);
  std::vector<std::unique_ptr<FileWorker>> shards;
  for (std::size_t w = 0; w < workers; ++w) shards.push_back(std::make_unique<FileWorker>(split, options, w, workers));
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w)
    threads.emplace_back([&shards, w] {
      name_thread("rdmaconf-w" + std::to_string(w));
      shards[w]->run();
    });
  for (std::thread& t : threads) t.join();
  if (split.give_up.load()) return std::nullopt;
  std::vector<Analyzer*> analyzers;
  for (auto& s : shards) analyzers.push_back(&s->analyzer);
  AnalysisResult r = merge_shards(analyzers, AnalysisResult{}, split.frames, options.max_violations_kept);
  r.clean_end = !split.end_report.has_value();
  return r;
}

}  // namespace rdmaconf::analysis
