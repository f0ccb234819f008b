// `rdmaconf analyze -j N`: the observers on N worker threads, with the result
// of the one-thread run.
//
// A classic pcap file goes to analyze_shared_file (below) first, which
// splits the reading and reassembly over the workers too; what it gives up
// on, and every other source (pcapng, a filter, a live capture), goes
// through ShardedAnalyzer:
//
// The reading thread keeps the file, the decoder and TCP reassembly; what the
// reassembler hands on (stream starts and ends, in-order octets, gaps,
// conflicting retransmissions, RoCEv2 datagrams) is copied into batches, one
// queue per worker, and each worker runs an ordinary Analyzer over the
// connections it was given. Every callback carries its number in capture
// order; a worker's Analyzer keeps it with each violation and each new
// connection, so the merged result lists the violations in one-thread order
// and numbers the connections as one thread would have.
//
// Which worker: connections are independent but for SMC-R. A link group's
// RoCEv2 packets use what its CLC exchanges announced, and a CLC
// connection's FIN is judged against its link group's CDC messages
// (RFC 7609 §3.5, §4.8.1), so every RoCEv2 datagram and every connection
// that may carry CLC goes to worker 0. A connection may carry CLC when
// either side's first octets start like an eyecatcher (the observer detects
// CLC there and nowhere else) or a gap came before them; until each side has
// shown its first octets (or ended), its events are held on the reading
// thread, bounded, and past the bound it goes to worker 0. The others go
// round the workers by connection.
//
// Memory is bounded per worker: a worker holds at most kMaxQueued batches of
// at most kBatchOctets octets each; a reader that gets ahead of a slow
// worker waits for it (back-pressure), so nothing is dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/analyzer.hpp"
#include "capture/source.hpp"

namespace rdmaconf::analysis {

class ShardedAnalyzer : public capture::StreamConsumer {
 public:
  static constexpr std::size_t kBatchOctets = std::size_t{512} << 10;
  static constexpr std::size_t kBatchEvents = 2048;
  static constexpr std::size_t kMaxQueued = 4;
  // Events held for a connection whose worker is not decided yet.
  static constexpr std::size_t kMaxHeldOctets = std::size_t{64} << 10;
  static constexpr std::size_t kMaxHeldEvents = 256;

  ShardedAnalyzer(const AnalysisOptions& options, std::size_t workers);
  ~ShardedAnalyzer() override;
  ShardedAnalyzer(const ShardedAnalyzer&) = delete;
  ShardedAnalyzer& operator=(const ShardedAnalyzer&) = delete;

  void on_stream_start(capture::Stream& s) override;
  void on_data(capture::Stream& s, const capture::StreamData& d) override;
  void on_gap(capture::Stream& s, const capture::StreamGap& g) override;
  void on_stream_end(capture::Stream& s, capture::StreamEnd why) override;
  void on_conflict(capture::Stream& s, const capture::StreamConflict& c) override;
  void on_report(const capture::Report& r) override;
  bool wants_udp() const override { return true; }
  bool on_udp(const capture::UdpDatagram& d) override;
  bool wants_sctp() const override { return true; }
  bool on_sctp(const capture::SctpPacket& p) override;

  // A file read in place (PacketSource::window() set): read on this
  // thread, reassembled on another, and the in-order octets sent to the
  // workers as views into the file's windows, not copies. As
  // capture::run_capture otherwise.
  capture::RunSummary run_file(capture::PacketSource& source, capture::Reassembler& reassembler);

  // After the reassembler's finish(): waits for the workers and merges.
  AnalysisResult take_result(std::uint64_t frames);

  using Window = capture::FileWindow;
  struct Batch;
  struct Octets;
  class Worker;

 private:
  struct Route;
  Route& route_for(const capture::Stream& s);
  // Queues one callback for the stream's connection (held or sent).
  Batch& target(Route& r);
  void after_event(Route& r, const capture::Stream& s);
  void decide(Route& r, std::size_t worker);
  void flush(std::size_t worker);
  void stop_workers();
  Octets keep(Batch& b, wire::Bytes bytes, bool held);

  AnalysisOptions options_;
  Analyzer reports_;  // the capture layer's reports, counted on this thread
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<Batch>> open_;  // per worker, being filled
  std::unordered_map<std::uint64_t, Route> routes_;
  std::uint64_t sequence_ = 0;
  bool stopped_ = false;
  const std::shared_ptr<const Window>* window_ = nullptr;  // the frame being reassembled lies in it (run_file)
};

// `analyze -j N` over a classic pcap file (parallel_file.cpp): the reading
// and the TCP reassembly split over the workers too, on N threads in all,
// each alike. The file is cut into stretches of 512 KiB from its first
// record on (capture::SharedPcapFile), read either copied into a stretch's
// own buffer (SharedPcapFile::read_at) or as a view of the file mapped
// whole, whichever SharedPcapFile::cheaper_reading timed as cheaper on this
// file (mapped only when clearly so) (AnalysisOptions::file_reading forces either). A thread with no
// stretch of its own claims the next one and reads it; when the walk
// before it is done (the record a stretch starts with is where that walk
// ended: fill_from copies in the record the stretch boundary cut), it
// walks that stretch's records at once, while their octets are in its
// cache, reads each frame's headers (capture::tcp_key_octets; a frame they do
// not key, decode_frame) to find its connection and lists the frame (a
// view into the stretch) under that connection's worker. Every thread
// decodes, reassembles and analyzes its own connections' frames, stretch
// after stretch in file order, with its own Reassembler and Analyzer; it
// stops every 64 frames to walk its stretch if the walk has come to it.
// A connection's worker is decided when the file first shows it: the one
// with the least work so far, in octets of its frames. The walks are made
// in file order, so the same file gives the same owners. Frames that carry
// no TCP segment are worker 0's (it reports them). Each callback is
// numbered by its frame (the frames of one connection are one worker's,
// in file order, so one worker's callbacks keep their order within a
// frame), the stream ends at the capture's end after every frame, in the
// order the connections were created
// (Reassembler::number_connections_by_frame), and merge_shards puts the
// result in one-thread order.
//
// What one thread's state ties across connections cannot be split this way:
// SMC-R (a CLC exchange and its link group's RoCEv2 packets, RFC 7609 §3.5,
// §4.8.1: a connection whose first octets may be CLC, any RoCEv2 datagram),
// SCTP, and the reassembler's budgets shared by all connections (the
// connection limit, the history and held-octet totals: each worker gets an
// equal share, and while no share binds the whole would not have either).
// When a capture holds any of these the threads stop and the result is
// nullopt: ShardedAnalyzer then reads the file as before.
//
// Memory: four stretches in flight per worker, each held until every
// worker with frames in it has analyzed them (and the next walk is past
// it); when none is free a thread analyzes what it has, then waits
// (back-pressure). Copied stretches' buffers are whole 2 MiB huge pages
// (capture/large_pages.hpp); mapped, the pages before every stretch still
// held are given back, so the mapped stretch stays a few MiB whatever the
// file's size. A thread with nothing to do spins a few microseconds for
// the others before it sleeps, and, mapped, first maps pages ahead of the
// walk (SharedPcapFile::populate).
std::optional<AnalysisResult> analyze_shared_file(const capture::SharedPcapFile& file, const AnalysisOptions& options);

// The workers' results as the one-thread run's: counts added to `out`'s,
// connections numbered in the order of the callbacks that created them,
// violations in callback order (ViolationRecord::sequence), the first
// `max_kept` kept.
AnalysisResult merge_shards(const std::vector<Analyzer*>& analyzers, AnalysisResult out, std::uint64_t frames,
                            std::size_t max_kept);

// The worker count `-j 0` means: the machine's cores.
std::size_t default_jobs();

// The calling thread's name (its first 15 characters) in `perf report
// --sort comm` and top's thread view (ci/analyze-bench.sh reads each
// thread's share of the CPU by it).
void name_thread(const std::string& name);

// Several capture files as one result, `options.jobs` files at a time (each
// file on one thread: files are independent, so this shares the cores with
// no merging of connections): the counts added, `frames` summed, the
// violations file after file, each naming its file (ViolationRecord::capture),
// its connections numbered within its file. nullopt with `error` naming the
// first file that could not be read.
std::optional<AnalysisResult> analyze_files(const std::vector<std::string>& paths, const AnalysisOptions& options,
                                            std::string& error);

}  // namespace rdmaconf::analysis
