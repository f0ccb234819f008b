// Capture input through libpcap: pcap and pcapng files (libpcap 1.10 reads
// both behind pcap_open_offline) and live interfaces with a BPF filter. This
// is the only part of the capture layer that needs libpcap; decoding and
// reassembly (rdmaconf_capture_core) see nothing but RawFrame.
//
// Streaming: one frame at a time, handed out as a view (no copy), valid
// until the next call: into libpcap's buffer, or, for classic pcap files
// read without a filter, into a window of the file mapped into memory (the
// kernel then copies nothing either; the window slides, so the memory used
// stays bounded whatever the file's size).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "capture/decode.hpp"
#include "capture/large_pages.hpp"
#include "capture/reassembly.hpp"

namespace rdmaconf::capture {

struct LiveOptions {
  std::uint32_t snaplen = 262144;
  bool promiscuous = false;
  int timeout_ms = 100;  // how long next() waits before returning kTimeout
  // The kernel's capture ring. libpcap sizes each slot for the snaplen (the
  // whole 256 KiB when the interface offloads segmentation, as lo does), so
  // its 2 MiB default holds only a handful of frames and drops the rest of a
  // burst while we are not scheduled.
  std::uint32_t buffer_mib = 64;
};

// Octets of a capture file in memory, shared by whoever keeps views into
// them (PacketSource::window()): read into `buffer`, or mapped from the file
// (PacketSource::map_file), unmapped when the last holder lets go.
class FileWindow {
 public:
  FileWindow() = default;
  FileWindow(const std::uint8_t* mapped, std::size_t size) : mapped_(mapped), mapped_size_(size) {}
  ~FileWindow();
  FileWindow(const FileWindow&) = delete;
  FileWindow& operator=(const FileWindow&) = delete;

  const std::uint8_t* data() const { return mapped_ ? mapped_ : buffer.data(); }
  std::size_t size() const { return mapped_ ? mapped_size_ : buffer.size(); }
  bool mapped() const { return mapped_ != nullptr; }

  std::vector<std::uint8_t> buffer;  // when read, not mapped

 private:
  const std::uint8_t* mapped_ = nullptr;
  std::size_t mapped_size_ = 0;
};

class SharedPcapFile;

class PacketSource {
 public:
  enum class Next : std::uint8_t {
    kFrame,    // `out` holds a frame
    kTimeout,  // live capture: nothing arrived within the timeout
    kEnd,      // the file ended (cleanly, or see end_report())
    kError,    // the input cannot continue; see error() and end_report()
  };

  // Opens a pcap or pcapng file. A non-empty BPF filter selects frames, but
  // frame numbers still count every frame of the file, as Wireshark's do.
  // nullptr and `error` set when the file cannot be opened: "PATH: what is
  // wrong", in our words (missing, unreadable, a folder, empty, not a
  // capture, its header cut short).
  static std::unique_ptr<PacketSource> open_file(const std::string& path, std::string_view bpf_filter,
                                                 std::string& error);
  // The same for a whole capture file already in memory (`file` must stay
  // valid while the source is used): the same in-place pcap reader, or
  // libpcap over a stdio stream of the octets (fmemopen), so frames and end
  // reports are what open_file gives for a file holding those octets, with
  // no file opened (the capture_file fuzz target).
  static std::unique_ptr<PacketSource> open_memory(wire::Bytes file, std::string_view bpf_filter,
                                                   std::string& error);
  // Opens a live interface ("lo", "eth0", "any") with a BPF filter.
  static std::unique_ptr<PacketSource> open_live(const std::string& interface, std::string_view bpf_filter,
                                                 const LiveOptions& options, std::string& error);

  ~PacketSource();
  PacketSource(const PacketSource&) = delete;
  PacketSource& operator=(const PacketSource&) = delete;

  // Live sources: kWait waits up to LiveOptions::timeout_ms for a frame;
  // kNoWait only takes what the kernel already holds (draining at a stop).
  enum class Wait : std::uint8_t { kWait, kNoWait };
  Next next(RawFrame& out, Wait wait = Wait::kWait);

  LinkType link_type() const { return link_; }
  bool live() const { return live_; }
  bool link_supported() const;
  // After kEnd/kError: how the input ended, when not cleanly (a truncated
  // file, a read error), as a Report for the report stream.
  std::optional<Report> end_report() const { return end_report_; }
  const std::string& error() const { return error_; }
  // Live capture: frames the kernel received for us but dropped (ring full,
  // interface drops), from pcap_stats; nullopt for files or when unknown.
  std::optional<std::uint64_t> kernel_drops() const;
  // Live capture: makes a blocked next() return kEnd (safe from a signal handler).
  void break_loop();
  // The octets the last frame lies in, for a consumer that keeps views into
  // them past the next call (analyze -j: analysis/parallel.hpp). While the
  // returned pointer is held, the source reads on into another buffer
  // instead of overwriting this one. nullptr when frames are libpcap's (a
  // pcapng file, a filter, a live capture): those views are gone at the
  // next call.
  std::shared_ptr<const FileWindow> window() const;
  // From the next window on, a classic pcap file read in place is mapped
  // (read-only mmap, 4 MiB at a time) instead of read: no copy by the
  // kernel, so the thread that walks the record headers pays only for the
  // pages' mapping, and each octet is first touched by the thread that uses
  // it (analyze -j). False, and nothing changes, for any other source.
  // A file shortened by another program while it is mapped makes the
  // kernel end the process (SIGBUS) when a vanished page is read: use it
  // for files nobody is writing.
  bool map_file();
  // A classic pcap file read in place (open_file without a filter) mapped
  // whole, for a reader that hands its frames to other threads (analyze -j:
  // analysis/parallel.hpp), read `chunk_octets` at a time (at least one
  // record; 0: SharedPcapFile::kChunkOctets); nullptr for any other source,
  // and when the file cannot be mapped. This source is left as it was.
  std::unique_ptr<SharedPcapFile> share_file(std::size_t chunk_octets = 0) const;

 private:
  friend class SharedPcapFile;
  struct Pcap;
  PacketSource();

  struct Mapped;
  static std::unique_ptr<Mapped> map_classic_pcap(const std::string& path, LinkType& link, bool& nanoseconds);
  static std::unique_ptr<Mapped> map_classic_pcap(wire::Bytes file, LinkType& link, bool& nanoseconds);
  static bool read_classic_header(Mapped& m, const std::uint8_t* h, LinkType& link, bool& nanoseconds);
  // The libpcap path of open_file/open_memory once libpcap holds the file.
  static std::unique_ptr<PacketSource> finish_offline(std::unique_ptr<PacketSource> s, std::string_view bpf_filter,
                                                      std::string& error);
  Next next_mapped(RawFrame& out);

  std::unique_ptr<Pcap> pcap_;
  std::unique_ptr<Mapped> mapped_;  // classic pcap files without a filter: read through a sliding mmap window
  LinkType link_ = LinkType::kEthernet;
  bool nanoseconds_ = false;
  bool live_ = false;
  std::uint64_t frames_ = 0;
  std::optional<Report> end_report_;
  std::string error_;
};

// A classic pcap file mapped whole, read-only, read a chunk at a time by one
// thread (analyze -j: analysis/parallel.hpp), whose frames are views into
// the mapping that the reader hands to other threads: no octet copied, each
// first read by the thread that analyzes it. The frames, frame numbers,
// times and end (clean, truncated, unreadable) are what PacketSource::next
// gives. Pages every thread is past are given back (release), so the
// memory held is the stretch between the slowest thread and the reader,
// not the file. As for PacketSource::map_file, a file shortened by another
// program while it is read makes the kernel end the process (SIGBUS): the
// file's size is asked again at every chunk, which ends the walk as
// unreadable if it shrank, but cannot close the window between a check and
// the read.
class SharedPcapFile {
 public:
  static constexpr std::size_t kChunkOctets = std::size_t{512} << 10;
  // The cache line of the machines this runs on (x86-64, and the arm64
  // cores Linux servers use): what the reading-mode timing reads one octet
  // of, and what analyze -j prefetches frames by.
  static constexpr std::size_t kCacheLine = 64;
  // How fill() gives a chunk its octets. kMapped: a view into the mapping,
  // nothing copied, but every page is mapped by the thread that first reads
  // it (a page fault per 64 KiB of small pages; on some virtual machines a
  // cost per 4 KiB page the guest's fault count does not show). kCopied:
  // pread() into the chunk's own buffer, the kernel's copy.
  enum class Reading : std::uint8_t { kMapped, kCopied };
  // File octets [at, at + filled), in the mapping or in `buffer`.
  struct Chunk {
    const std::uint8_t* data = nullptr;
    std::uint64_t at = 0;
    std::size_t filled = 0;
    LargeBuffer buffer;  // kCopied: where the octets are read to, reused
  };
  struct Cursor {
    std::uint64_t pos = 0;  // the next record header
    std::uint64_t frames = 0;
    std::optional<Report> end_report;  // after kEnd or kError, when not clean
  };
  enum class Step : std::uint8_t {
    kFrame,  // `out` holds a frame, a view into the chunk
    kFill,   // the record at the cursor is not whole in the chunk: fill() one, then ask again
    kEnd,    // the file ended (cleanly, or see the cursor's end_report)
    kError,  // the file cannot be read on; see the cursor's end_report
  };
  ~SharedPcapFile();
  SharedPcapFile(const SharedPcapFile&) = delete;
  SharedPcapFile& operator=(const SharedPcapFile&) = delete;

  Cursor start() const;
  Step next(Cursor& c, const Chunk& chunk, RawFrame& out) const;
  // The file from the cursor on as `chunk`: chunk_octets() octets or what
  // is left of the file, and more when the record at the cursor is longer
  // (that record is then whole in it). False, with the cursor's end_report
  // set, when the file no longer holds what its size said.
  bool fill(Cursor& c, Chunk& chunk, Reading how = Reading::kMapped) const;
  // Copied reading in stretches, read before the walk reaches them and by
  // any thread (analyze -j: the thread that claimed the stretch): the file
  // is read in stretches of chunk_octets() octets from the first record
  // on, whatever the records; the walk then makes each stretch the chunk
  // at its cursor (fill_from), and reads nothing itself.
  //
  // read_at: the stretch from `at`, chunk_octets() octets or what is left
  // of the file, read into `stretch`'s buffer behind kHeadroom octets of
  // room (for the record the previous stretch cut). False when the file
  // holds fewer octets than its size said (the walker's fill() reports it).
  static constexpr std::size_t kHeadroom = std::size_t{64} << 10;
  bool read_at(std::uint64_t at, Chunk& stretch) const;
  // Where the stretch from `at` ends (the next one starts).
  std::uint64_t stretch_end(std::uint64_t at) const { return at + std::min<std::uint64_t>(chunk_octets_, size_ - at); }
  // fill_from: `stretch` (read_at) made the chunk at the cursor, `current`
  // being the chunk the cursor left. When the cursor is before the stretch,
  // the record cut at its start is copied from `current` into the room
  // before it (the stretch moved up when the record is longer than the
  // room; what `current` does not hold is read); when the stretch cuts the
  // record at the cursor too, the record is read on, as fill() reads it
  // whole.
  enum class FromStretch : std::uint8_t {
    kFilled,  // `stretch` is the chunk at the cursor
    kPassed,  // the cursor is past the stretch's end: take the next one
    kUnread,  // read_at could not read the stretch: fill() says why
    kError,   // the record could not be read on; see the cursor's end_report
  };
  FromStretch fill_from(Cursor& c, Chunk& stretch, const Chunk& current) const;
  // Which way of reading costs this thread less here: at two places in the
  // file, `octets` read with pread() and the `octets` before them through
  // the mapping (pages never read before), each way timed until every
  // octet was read once (as the walk then reads them). kMapped only when
  // mapping cost at most half as much (its reading stops once past that);
  // kCopied when the file is too short to tell.
  Reading cheaper_reading(std::uint64_t octets) const;
  // Every thread is past `to`: the pages of [from, to) are unmapped from
  // this process, in whole stretches of kReleaseUnit octets from the file's
  // start (the rest of a stretch stays mapped until a later call covers
  // it); the page cache keeps them. A stretch is a huge page, so a file
  // the kernel maps in 2 MiB folios has each unmapped whole, never split
  // into small pages first.
  static constexpr std::uint64_t kReleaseUnit = std::uint64_t{2} << 20;
  void release(std::uint64_t from, std::uint64_t to) const;
  // Maps the pages of [from, to) (within the file) ahead of the thread that
  // will read them (madvise(MADV_POPULATE_READ)), so that thread takes no
  // page fault there; a thread with nothing else to do does it. False when
  // the kernel cannot (before Linux 5.14): the reader then faults the pages
  // in itself, as it does any page nobody mapped ahead. A page past the
  // file's end (a file shortened meanwhile) fails the call, not the
  // process; it is not mapped.
  bool populate(std::uint64_t from, std::uint64_t to) const;
  std::uint64_t size() const { return size_; }
  std::size_t chunk_octets() const { return chunk_octets_; }

 private:
  friend class PacketSource;
  SharedPcapFile() = default;
  std::size_t with_whole_record(const std::uint8_t* header, std::uint64_t pos, std::size_t n) const;
  static void read_each_line(const std::uint8_t* p, std::uint64_t n);
  std::unique_ptr<PacketSource::Mapped> format_;  // byte order, link type, first record; its fd
  std::uint64_t size_ = 0;
  const std::uint8_t* map_ = nullptr;
  std::size_t chunk_octets_ = kChunkOctets;
  bool nanoseconds_ = false;
  LinkType link_ = LinkType::kEthernet;
};

// When reading stops before the source ends (live captures, mostly).
struct RunLimits {
  std::uint64_t max_frames = 0;  // 0: no limit
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Set from anywhere (a SIGINT handler: lock-free) to stop at the next frame
  // or receive timeout. Frames the kernel already holds when a live capture
  // stops (by this flag or the deadline) are still read: the traffic that
  // happened before the stop is analysed whole.
  const std::atomic<bool>* stop = nullptr;
};

// Reads a whole source into a reassembler: every frame is decoded and
// reassembled; a file that ends badly is reported; finish() runs at the end.
// Live sources run until break_loop() or a limit.
struct RunSummary {
  std::uint64_t frames = 0;
  bool clean_end = true;
};
RunSummary run_capture(PacketSource& source, Reassembler& reassembler, StreamConsumer& consumer,
                       const RunLimits& limits = {});

}  // namespace rdmaconf::capture
