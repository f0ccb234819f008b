#include "capture/source.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "capture/file_format.hpp"
#include "wire/show.hpp"

namespace rdmaconf::capture {
namespace {

// Nanoseconds since the epoch. A pcapng record's seconds can be any 64-bit
// value, far beyond what int64 nanoseconds hold (year 2262): saturate
// instead of overflowing.
Timestamp timestamp_of(std::int64_t seconds, std::int64_t fraction_ns) {
  constexpr std::int64_t kNs = 1'000'000'000;
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / kNs - 1;
  if (seconds > kMaxSeconds) return Timestamp{std::numeric_limits<std::int64_t>::max()};
  if (seconds < -kMaxSeconds) return Timestamp{std::numeric_limits<std::int64_t>::min()};
  return Timestamp{seconds * kNs + fraction_ns};
}

// What keeps octets from being a capture file, before libpcap reads them
// (libpcap's own words name neither the file nor the problem the way a user
// sees it): an empty file, something else than a capture, a file header cut
// short. `head` is the file's first octets (at least 4 when there are 4),
// `size` the whole file's. Empty when the file starts like a capture.
// Octets of the file's start header_problem() is given: a magic number,
// or the start of what the file is instead.
constexpr std::size_t kHeadProbe = 32;

std::string header_problem(wire::Bytes head, std::uint64_t size) {
  if (size == 0) return "the file is empty (a capture starts with a pcap or pcapng file header)";
  struct Magic {
    std::uint8_t octets[4];
    const char* format;
    std::uint64_t header_size;  // the file header, or the smallest Section Header Block
  };
  static constexpr Magic kMagics[] = {
      {{0xd4, 0xc3, 0xb2, 0xa1}, "pcap", 24}, {{0xa1, 0xb2, 0xc3, 0xd4}, "pcap", 24},
      {{0x4d, 0x3c, 0xb2, 0xa1}, "pcap", 24}, {{0xa1, 0xb2, 0x3c, 0x4d}, "pcap", 24},
      {{0x34, 0xcd, 0xb2, 0xa1}, "pcap", 24}, {{0xa1, 0xb2, 0xcd, 0x34}, "pcap", 24},  // Kuznetzov's modified pcap
      {{0x0a, 0x0d, 0x0d, 0x0a}, "pcapng", 28},
  };
  const std::size_t n = std::min<std::size_t>(head.size(), 4);
  for (const Magic& m : kMagics) {
    if (!std::equal(head.begin(), head.begin() + static_cast<std::ptrdiff_t>(n), m.octets)) continue;
    if (size >= m.header_size) return {};
    return std::string("the file ends inside its ") + m.format + " file header (" + std::to_string(size) + " of " +
           std::to_string(m.header_size) + " octets): it was cut short";
  }
  // RFC 1952 §2.3.1: a gzip member starts with ID1 ID2.
  static constexpr std::array<std::uint8_t, 2> kGzipId = {0x1f, 0x8b};
  if (head.size() >= kGzipId.size() && std::equal(kGzipId.begin(), kGzipId.end(), head.begin()))
    return "the file is gzip-compressed: uncompress it first";
  return "not a pcap or pcapng capture file: it starts with `" + wire::show_octets(head) + "`";
}

// Why open(2) failed, in our words.
std::string open_problem(int error) {
  switch (error) {
    case ENOENT: return "no such file";
    case EACCES: case EPERM: return "no permission to read it";
    case ENOTDIR: return "a folder on its path is a file";
    case ELOOP: return "too many symbolic links on its path";
    default: return std::string("cannot open it: ") + std::strerror(error);
  }
}

// A file that starts like a capture and that libpcap still refuses: its
// reason, which names what it read (a version, a block), after ours.
std::string libpcap_refused(const char* errbuf) {
  return std::string("not a capture file libpcap can read (") + errbuf + ")";
}

}  // namespace

namespace {

// libpcap hands out DLT_* values, which differ from the file's LINKTYPE_*
// on some platforms (DLT_RAW is 12 or 14); map them to LINKTYPE_*.
LinkType link_type_of(int dlt) {
  switch (dlt) {
    case DLT_NULL: return LinkType::kNull;
    case DLT_EN10MB: return LinkType::kEthernet;
    case DLT_RAW: return LinkType::kRaw;
    case DLT_LOOP: return LinkType::kLoop;
    case DLT_LINUX_SLL: return LinkType::kLinuxSll;
#ifdef DLT_LINUX_SLL2
    case DLT_LINUX_SLL2: return LinkType::kLinuxSll2;
#endif
#ifdef DLT_IPV4
    case DLT_IPV4: return LinkType::kIpv4;
#endif
#ifdef DLT_IPV6
    case DLT_IPV6: return LinkType::kIpv6;
#endif
    default: return static_cast<LinkType>(static_cast<std::uint32_t>(dlt));
  }
}

constexpr const char* kUnreadable = "the file could not be read";

}  // namespace

struct PacketSource::Pcap {
  pcap_t* handle = nullptr;
  int fd = -1;          // live, non-blocking: what next() polls
  int timeout_ms = 100;
  bpf_program filter{};
  bool has_filter = false;
  ~Pcap() {
    if (has_filter) pcap_freecode(&filter);
    if (handle) pcap_close(handle);
  }
};

// A classic pcap file read in place (libpcap's format, "pcap-savefile(5)"):
// a file header, then records of a record header and caplen octets
// (file_format.hpp declares both headers), all in the writer's byte order. The file is mapped a window at a
// time; a frame never straddles the window's end (the window moves to the
// record first), so a frame is one contiguous view.
struct PacketSource::Mapped {
  // Read 256 KiB at a time: the kernel's copy leaves them in the core's
  // cache (L2 is 1-2 MiB on today's servers), where the deframer and the CRC
  // find them moments later; 4 MiB windows were out of it by then and cost
  // analyze -j 1 a sixth more CPU (docs/performance.md, "Several cores").
  static constexpr std::size_t kReadWindow = 256u << 10;
  // A mapped window costs a mmap and a munmap, and copies nothing: 4 MiB.
  static constexpr std::size_t kMapWindow = 4u << 20;
  static constexpr std::uint32_t kMaxCaplen = 256u << 20;  // larger is a broken record, as for libpcap
  int fd = -1;
  const std::uint8_t* memory = nullptr;  // open_memory: the file's octets, read instead of fd
  std::uint64_t size = 0;
  std::uint64_t pos = 0;  // the next record header
  bool big_endian = false;  // the writer's byte order
  bool map = false;  // map_file(): windows mapped from fd, not read
  using Window = FileWindow;
  std::shared_ptr<Window> window = std::make_shared<Window>();  // file octets [buffer_at, buffer_at + filled)
  std::uint64_t buffer_at = 0;
  std::size_t filled = 0;
  // Windows a consumer still holds (PacketSource::window()), to read into
  // again once it lets go.
  std::vector<std::shared_ptr<Window>> retired;

  ~Mapped() {
    if (fd >= 0) ::close(fd);
  }
  // A field of a file or record header at `p`: where it lies and how wide
  // it is from its declaration (file_format.hpp), its octets in the
  // writer's byte order. One load, turned around when the writer's order is
  // not this host's: the record loop of every frame (docs/performance.md).
  template <typename H, typename H::Field F>
  std::uint32_t field(const std::uint8_t* p) const {
    static constexpr std::uint32_t kBitOffset = H::field_decl(F).bit_offset;
    static constexpr std::uint32_t kBitWidth = H::field_decl(F).bit_width;
    static_assert(kBitOffset % 8 == 0 && (kBitWidth == 16 || kBitWidth == 32));
    using Word = std::conditional_t<kBitWidth == 16, std::uint16_t, std::uint32_t>;
    Word v;
    std::memcpy(&v, p + kBitOffset / 8, sizeof v);
    if (big_endian == (std::endian::native == std::endian::big)) return v;
    if constexpr (kBitWidth == 16) return __builtin_bswap16(v);
    else return __builtin_bswap32(v);
  }
  // One record header (pcap §4) at `h`, and what keeps its record at `pos`
  // from being read (nullptr: nothing): the walk of PacketSource::next and
  // of SharedPcapFile::next alike.
  struct Record {
    std::uint32_t sec = 0, frac = 0, caplen = 0, len = 0;
  };
  Record record(const std::uint8_t* h) const {
    using F = PcapRecordHeaderSpec::Field;
    return Record{field<PcapRecordHeader, F::TimestampSeconds>(h), field<PcapRecordHeader, F::TimestampMicroseconds>(h),
                  field<PcapRecordHeader, F::CapturedPacketLength>(h), field<PcapRecordHeader, F::OriginalPacketLength>(h)};
  }
  static constexpr const char* kEndsInRecord = "the file ends inside a packet record";
  const char* record_problem(std::uint64_t at, std::uint32_t caplen, ReportKind& kind) const {
    kind = ReportKind::kReadError;
    if (caplen > kMaxCaplen) return "a record's captured length is absurd";
    kind = ReportKind::kTruncatedFile;
    if (size - at - PcapRecordHeader::kSize < caplen) return kEndsInRecord;
    return nullptr;
  }
  // pread() of the file, or its copy from memory for open_memory: the
  // window below works the same over both.
  ssize_t read_at(std::uint8_t* dst, std::size_t n, std::uint64_t at) const {
    if (memory == nullptr) return ::pread(fd, dst, n, static_cast<off_t>(at));
    if (at >= size) return 0;
    const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(n, size - at));
    std::memcpy(dst, memory + at, k);
    return static_cast<ssize_t>(k);
  }
  // All n octets at `at` into dst; false when the file ends first or cannot be read.
  bool read_all(std::uint8_t* dst, std::size_t n, std::uint64_t at) const {
    for (std::size_t got = 0; got < n;) {
      const ssize_t r = read_at(dst + got, n - got, at + got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      got += static_cast<std::size_t>(r);
    }
    return true;
  }
  // File octets [at, at + n) in memory (at >= buffer_at), or nullptr on a read error.
  const std::uint8_t* view(std::uint64_t at, std::size_t n) {
    if (at + n <= buffer_at + filled) return window->data() + (at - buffer_at);
    if (map) return map_window(at, n);
    // Keep what is still needed, then read straight into the buffer: one
    // copy by the kernel, a few large reads.
    const std::size_t keep = at < buffer_at + filled ? static_cast<std::size_t>(buffer_at + filled - at) : 0;
    if (window.use_count() > 1) move_to_free_window(at - buffer_at, keep);
    else if (keep) std::memmove(window->buffer.data(), window->buffer.data() + (at - buffer_at), keep);
    std::vector<std::uint8_t>& buffer = window->buffer;
    buffer_at = at;
    filled = keep;
    // Large reads, but never a buffer larger than what is left of the file
    // (a small capture does not cost a window of zeroed memory).
    const std::uint64_t left = size > buffer_at ? size - buffer_at : 0;
    const std::size_t want =
        std::max<std::size_t>(n, static_cast<std::size_t>(std::min<std::uint64_t>(kReadWindow, left)));
    if (buffer.size() < want) buffer.resize(want);
    while (filled < n) {
      const ssize_t r = read_at(buffer.data() + filled, buffer.size() - filled, buffer_at + filled);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return nullptr;
      filled += static_cast<std::size_t>(r);
    }
    return buffer.data();
  }
  // map_file(): file octets [at, at + n) in a new mapping of at least
  // kMapWindow octets from the page `at` lies in (windows may overlap: a frame
  // that crosses one window's end is whole in the next, nothing copied).
  // The caller checked [at, at + n) lies in the file's `size`; the file's
  // size now is asked again, so a file shortened since ends as truncated
  // instead of with a read past its end. nullptr on failure.
  const std::uint8_t* map_window(std::uint64_t at, std::size_t n) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return nullptr;
    const auto now = static_cast<std::uint64_t>(st.st_size);
    if (now < at + n) return nullptr;
    static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
    const std::uint64_t start = at - at % page;
    const std::uint64_t length = std::min<std::uint64_t>(std::max<std::uint64_t>(kMapWindow, at + n - start), now - start);
    void* p = ::mmap(nullptr, static_cast<std::size_t>(length), PROT_READ, MAP_PRIVATE, fd, static_cast<off_t>(start));
    if (p == MAP_FAILED) return nullptr;
    window = std::make_shared<Window>(static_cast<const std::uint8_t*>(p), static_cast<std::size_t>(length));
    buffer_at = start;
    filled = static_cast<std::size_t>(length);
    return window->data() + (at - start);
  }
  // The window is held elsewhere: read on in one nobody holds (or a new
  // one), its first `keep` octets those from `from` in the held one.
  void move_to_free_window(std::size_t from, std::size_t keep) {
    std::shared_ptr<Window> held = std::move(window);
    for (auto& w : retired)
      if (w && w.use_count() == 1) {
        // Its last holder let go on another thread: what that one read
        // happens before what is written here.
        std::atomic_thread_fence(std::memory_order_acquire);
        window = std::move(w);
        break;
      }
    if (!window) window = std::make_shared<Window>();
    if (window->buffer.size() < keep) window->buffer.resize(keep);
    if (keep) std::memcpy(window->buffer.data(), held->data() + from, keep);
    for (auto& w : retired)
      if (!w) {
        w = std::move(held);
        return;
      }
    retired.push_back(std::move(held));
  }
};

// Opens `path` for in-place reading when it is a regular classic pcap file
// whose timestamps we understand; nullptr otherwise (libpcap reads it).
std::unique_ptr<PacketSource::Mapped> PacketSource::map_classic_pcap(const std::string& path, LinkType& link,
                                                                     bool& nanoseconds) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  auto m = std::make_unique<PacketSource::Mapped>();
  m->fd = fd;
  struct stat st {};
  std::uint8_t h[PcapFileHeader::kSize];
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || ::pread(fd, h, sizeof h, 0) != static_cast<ssize_t>(sizeof h))
    return nullptr;
  if (!read_classic_header(*m, h, link, nanoseconds)) return nullptr;
  m->size = static_cast<std::uint64_t>(st.st_size);
  return m;
}

std::unique_ptr<PacketSource::Mapped> PacketSource::map_classic_pcap(wire::Bytes file, LinkType& link,
                                                                     bool& nanoseconds) {
  auto m = std::make_unique<PacketSource::Mapped>();
  m->memory = file.data();
  if (file.size() < PcapFileHeader::kSize || !read_classic_header(*m, file.data(), link, nanoseconds)) return nullptr;
  m->size = file.size();
  return m;
}

// The file header (pcap §4): byte order, timestamp unit, version, link
// type; false for anything the in-place reader leaves to libpcap.
bool PacketSource::read_classic_header(Mapped& m, const std::uint8_t* h, LinkType& link, bool& nanoseconds) {
  using F = PcapFileHeaderSpec::Field;
  const auto magic = static_cast<std::uint32_t>(PcapFileHeader::read(wire::Bytes(h, PcapFileHeader::kSize), F::MagicNumber));
  switch (magic) {
    case kPcapMagicMicroseconds: nanoseconds = false; m.big_endian = true; break;
    case kPcapMagicNanoseconds: nanoseconds = true; m.big_endian = true; break;
    case __builtin_bswap32(kPcapMagicMicroseconds): nanoseconds = false; break;
    case __builtin_bswap32(kPcapMagicNanoseconds): nanoseconds = true; break;
    default: return false;  // pcapng or not a capture: libpcap decides
  }
  // Version 2.x only; anything else is libpcap's to accept or refuse.
  if (m.field<PcapFileHeader, F::MajorVersion>(h) != kPcapMajorVersion) return false;
  link = static_cast<LinkType>(m.field<PcapFileHeader, F::LinkType>(h) & kPcapLinkTypeBits);
  m.pos = PcapFileHeader::kSize;
  return true;
}

PacketSource::PacketSource() : pcap_(std::make_unique<Pcap>()) {}
PacketSource::~PacketSource() = default;

PacketSource::Next PacketSource::next_mapped(RawFrame& out) {
  Mapped& m = *mapped_;
  auto ended = [&](ReportKind kind, const char* what) {
    Report r;
    r.kind = kind;
    r.frame = FrameNumber{frames_ + 1};
    r.offset = m.pos;
    r.detail = wire::DecodeError{"capture file", what, "pcap", 0};
    error_ = what;
    end_report_ = r;
    return kind == ReportKind::kTruncatedFile ? Next::kEnd : Next::kError;
  };
  if (m.pos == m.size) return Next::kEnd;
  constexpr std::size_t kRecord = PcapRecordHeader::kSize;
  if (m.size - m.pos < kRecord) return ended(ReportKind::kTruncatedFile, Mapped::kEndsInRecord);
  const std::uint8_t* h = m.view(m.pos, kRecord);
  if (!h) return ended(ReportKind::kReadError, kUnreadable);
  const Mapped::Record rec = m.record(h);
  ReportKind kind{};
  if (const char* problem = m.record_problem(m.pos, rec.caplen, kind)) return ended(kind, problem);
  const std::uint8_t* data = m.view(m.pos, kRecord + std::size_t{rec.caplen});
  if (!data) return ended(ReportKind::kReadError, kUnreadable);
  m.pos += kRecord + std::uint64_t{rec.caplen};
  ++frames_;
  out.number = FrameNumber{frames_};
  out.time = timestamp_of(rec.sec, nanoseconds_ ? std::int64_t{rec.frac} : std::int64_t{rec.frac} * 1000);
  out.link = link_;
  out.captured = wire::Bytes(data + kRecord, rec.caplen);
  out.original_length = rec.len;
  return Next::kFrame;
}

std::unique_ptr<SharedPcapFile> PacketSource::share_file(std::size_t chunk_octets) const {
  if (!mapped_ || mapped_->fd < 0) return nullptr;
  std::unique_ptr<SharedPcapFile> f(new SharedPcapFile());
  f->format_ = std::make_unique<Mapped>();
  f->format_->fd = ::fcntl(mapped_->fd, F_DUPFD_CLOEXEC, 0);
  if (f->format_->fd < 0) return nullptr;
  struct stat st {};
  if (::fstat(f->format_->fd, &st) != 0) return nullptr;
  f->format_->big_endian = mapped_->big_endian;
  f->format_->pos = PcapFileHeader::kSize;
  f->format_->size = f->size_ = static_cast<std::uint64_t>(st.st_size);
  f->nanoseconds_ = nanoseconds_;
  f->link_ = link_;
  f->chunk_octets_ = chunk_octets == 0 ? SharedPcapFile::kChunkOctets : std::max(chunk_octets, PcapRecordHeader::kSize);
  if (f->size_ == 0) return nullptr;
  void* p = ::mmap(nullptr, static_cast<std::size_t>(f->size_), PROT_READ, MAP_PRIVATE, f->format_->fd, 0);
  if (p == MAP_FAILED) return nullptr;
  f->map_ = static_cast<const std::uint8_t*>(p);
  // Where the kernel reads the file in through this mapping (pages not yet
  // in its cache), it may then read whole 2 MiB folios and map each with
  // one entry: one page fault per 2 MiB instead of one per 64 KiB. Pages
  // already cached are mapped as the cache holds them. A hint: a kernel
  // without transparent huge pages refuses it, and nothing changes.
  ::madvise(p, static_cast<std::size_t>(f->size_), MADV_HUGEPAGE);
  return f;
}

SharedPcapFile::~SharedPcapFile() {
  if (map_) ::munmap(const_cast<std::uint8_t*>(map_), static_cast<std::size_t>(size_));
}


SharedPcapFile::Cursor SharedPcapFile::start() const {
  Cursor c;
  c.pos = format_->pos;
  return c;
}

namespace {
// The cursor's end when the file cannot be read on at its record.
PacketSource::Next end_at(SharedPcapFile::Cursor& c, ReportKind kind, const char* what) {
  Report r;
  r.kind = kind;
  r.frame = FrameNumber{c.frames + 1};
  r.offset = c.pos;
  r.detail = wire::DecodeError{"capture file", what, "pcap", 0};
  c.end_report = r;
  return kind == ReportKind::kTruncatedFile ? PacketSource::Next::kEnd : PacketSource::Next::kError;
}
SharedPcapFile::Step step_of(PacketSource::Next n) {
  return n == PacketSource::Next::kEnd ? SharedPcapFile::Step::kEnd : SharedPcapFile::Step::kError;
}
}  // namespace

// As PacketSource::next_mapped, over the chunk.
SharedPcapFile::Step SharedPcapFile::next(Cursor& c, const Chunk& chunk, RawFrame& out) const {
  const PacketSource::Mapped& m = *format_;
  if (c.pos == size_) return Step::kEnd;
  constexpr std::size_t kRecord = PcapRecordHeader::kSize;
  if (size_ - c.pos < kRecord)
    return step_of(end_at(c, ReportKind::kTruncatedFile, PacketSource::Mapped::kEndsInRecord));
  const std::uint64_t chunk_end = chunk.at + chunk.filled;
  if (c.pos < chunk.at || chunk_end < c.pos + kRecord) return Step::kFill;
  const std::uint8_t* h = chunk.data + (c.pos - chunk.at);
  const PacketSource::Mapped::Record rec = m.record(h);
  ReportKind kind{};
  if (const char* problem = m.record_problem(c.pos, rec.caplen, kind)) return step_of(end_at(c, kind, problem));
  if (chunk_end - c.pos - kRecord < rec.caplen) return Step::kFill;
  out.number = FrameNumber{++c.frames};
  out.time = timestamp_of(rec.sec, nanoseconds_ ? std::int64_t{rec.frac} : std::int64_t{rec.frac} * 1000);
  out.link = link_;
  out.captured = wire::Bytes(h + kRecord, rec.caplen);
  out.original_length = rec.len;
  c.pos += kRecord + std::uint64_t{rec.caplen};
  return Step::kFrame;
}

bool SharedPcapFile::fill(Cursor& c, Chunk& chunk, Reading how) const {
  const PacketSource::Mapped& m = *format_;
  const std::uint64_t left = size_ > c.pos ? size_ - c.pos : 0;
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(chunk_octets_, left));
  // The file's size asked again before its pages are read (a page past a
  // shortened file's end would end the process), and the record at the
  // cursor whole in the chunk when the file holds it (next() reports one
  // it cannot hold).
  struct stat st {};
  if (::fstat(m.fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < c.pos + n) {
    end_at(c, ReportKind::kReadError, kUnreadable);
    return false;
  }
  // Copied: a stretch from the cursor, made the chunk at it (fill_from
  // reads on the record the stretch cuts). A read that comes up short (the
  // file shortened meanwhile) ends the walk as unreadable, as the size
  // check above does for the mapping.
  if (how == Reading::kCopied) {
    if (n == 0) {  // at the file's end (a file of no records): nothing to read, next() says it ended
      chunk.at = c.pos;
      chunk.filled = 0;
      return true;
    }
    if (!read_at(c.pos, chunk)) {
      end_at(c, ReportKind::kReadError, kUnreadable);
      return false;
    }
    return fill_from(c, chunk, Chunk{}) == FromStretch::kFilled;
  }
  const std::size_t whole = with_whole_record(map_ + c.pos, c.pos, n);
  if (static_cast<std::uint64_t>(st.st_size) < c.pos + whole) {
    end_at(c, ReportKind::kReadError, kUnreadable);
    return false;
  }
  chunk.data = map_ + c.pos;
  chunk.at = c.pos;
  chunk.filled = whole;
  return true;
}

// n octets from `pos`, or more: the whole record whose header is at
// `header` (file octets from `pos`) when the file holds it (next() reports
// one it cannot hold).
std::size_t SharedPcapFile::with_whole_record(const std::uint8_t* header, std::uint64_t pos, std::size_t n) const {
  constexpr std::size_t kRecord = PcapRecordHeader::kSize;
  if (n < kRecord) return n;
  const PacketSource::Mapped::Record rec = format_->record(header);
  ReportKind kind{};
  if (format_->record_problem(pos, rec.caplen, kind) != nullptr) return n;
  return std::max(n, kRecord + std::size_t{rec.caplen});
}

bool SharedPcapFile::read_at(std::uint64_t at, Chunk& stretch) const {
  if (at >= size_) return false;
  const auto n = static_cast<std::size_t>(stretch_end(at) - at);
  if (stretch.buffer.size() < kHeadroom + n) stretch.buffer.resize(kHeadroom + n);
  stretch.at = at;
  stretch.data = stretch.buffer.data() + kHeadroom;
  stretch.filled = format_->read_all(stretch.buffer.data() + kHeadroom, n, at) ? n : 0;
  return stretch.filled == n;
}

SharedPcapFile::FromStretch SharedPcapFile::fill_from(Cursor& c, Chunk& stretch, const Chunk& current) const {
  const std::uint64_t at = stretch.at, end = stretch.at + stretch.filled;
  if (stretch.filled == 0) return FromStretch::kUnread;
  if (end <= c.pos) return FromStretch::kPassed;
  std::size_t offset = kHeadroom;  // where the cursor's octet is in the buffer
  if (c.pos < at) {
    // The octets before the stretch: what `current` holds of them copied,
    // the rest (none, unless `current` was not the chunk before) read.
    const std::uint64_t cut = at - c.pos;
    if (cut > kHeadroom) {
      // A record longer than the room, cut: the stretch moved up.
      stretch.buffer.resize(static_cast<std::size_t>(cut) + stretch.filled);
      std::memmove(stretch.buffer.data() + cut, stretch.buffer.data() + kHeadroom, stretch.filled);
      offset = 0;
    } else {
      offset -= static_cast<std::size_t>(cut);
    }
    const std::uint64_t current_end = current.at + current.filled;
    const std::uint64_t held = current.at <= c.pos && c.pos < current_end ? std::min(at, current_end) - c.pos : 0;
    std::uint8_t* room = stretch.buffer.data() + offset;
    if (held > 0) std::memcpy(room, current.data + (c.pos - current.at), static_cast<std::size_t>(held));
    if (held < cut && !format_->read_all(room + held, static_cast<std::size_t>(cut - held), c.pos + held)) {
      end_at(c, ReportKind::kReadError, kUnreadable);
      return FromStretch::kError;
    }
  } else {
    offset += static_cast<std::size_t>(c.pos - at);
  }
  // The record at the cursor whole, as fill() makes it.
  const auto n = static_cast<std::size_t>(end - c.pos);
  const std::size_t whole = with_whole_record(stretch.buffer.data() + offset, c.pos, n);
  if (whole > n) {
    stretch.buffer.resize(offset + whole);
    if (!format_->read_all(stretch.buffer.data() + offset + n, whole - n, end)) {
      end_at(c, ReportKind::kReadError, kUnreadable);
      return FromStretch::kError;
    }
  }
  stretch.data = stretch.buffer.data() + offset;
  stretch.at = c.pos;
  stretch.filled = whole;
  return FromStretch::kFilled;
}

SharedPcapFile::Reading SharedPcapFile::cheaper_reading(std::uint64_t octets) const {
  static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  octets = std::max(octets / page * page, page);
  // Two places, a third and two thirds into the file: one file's pages can
  // be cached in large folios in one region and small ones in the next,
  // and a mapped read's cost differs with them (docs/performance.md,
  // "Mapped or copied"). At each, `octets` read through the mapping, then
  // the next `octets` copied; before them, one untimed copy of the stretch
  // after those, which maps the buffer's own pages (the chunks' buffers are
  // reused from chunk to chunk: that first copy is not what copying costs).
  constexpr std::uint64_t kPlaces = 2, kPerPlace = 2;
  const auto place = [&](std::uint64_t k) { return size_ * (k + 1) / (kPlaces + 1) / page * page; };
  const std::uint64_t untimed = place(0) + kPerPlace * octets;
  struct stat st {};
  if (untimed + octets > place(1) || place(kPlaces - 1) + kPerPlace * octets > size_ ||
      ::fstat(format_->fd, &st) != 0 || static_cast<std::uint64_t>(st.st_size) < size_)
    return Reading::kCopied;  // too short to tell (or shortened): the way whose cost does not vary
  LargeBuffer buffer(static_cast<std::size_t>(octets));
  const auto copy = [&](std::uint64_t from) { return format_->read_all(buffer.data(), buffer.size(), from); };
  if (!copy(untimed)) return Reading::kCopied;
  // Each way is timed up to the octets having been read once, as the walk
  // reads them next: copied, the copy and then the buffer, in the cache the
  // copy left it; mapped, from the page cache's memory (the faults alone
  // would leave that out).
  //
  // Mapped only when it is clearly the cheaper: the probe reads fresh pages
  // once and in order, while the analysis reads each frame twice (its walk,
  // then its owner), through the mapping's 4 KiB page-table entries unless
  // the kernel mapped a 2 MiB folio whole (the copies' buffers are huge
  // pages); and the rest of the file may be cached less well than the two
  // places. Copying costs about the same everywhere.
  //
  // The copies are timed first, so what the mapping may cost is known
  // before it is read, and its reading stops once past that: where mapping
  // is the dearer way (a virtual machine whose page faults are slow), the
  // timing then costs about what the copies did, not a fault per page of
  // every place (5-13 ms there, docs/performance.md "Mapped or copied").
  using Clock = std::chrono::steady_clock;
  constexpr int kMappedMargin = 2;
  Clock::duration copied{};
  for (std::uint64_t k = 0; k < kPlaces; ++k) {
    const auto t = Clock::now();
    if (!copy(place(k) + octets)) return Reading::kCopied;
    read_each_line(buffer.data(), octets);
    copied += Clock::now() - t;
  }
  const Clock::duration allowed = copied / kMappedMargin;
  constexpr std::uint64_t kPiece = std::uint64_t{64} << 10;  // between looks at the clock
  Clock::duration mapped{};
  for (std::uint64_t k = 0; k < kPlaces; ++k)
    for (std::uint64_t at = 0; at < octets; at += kPiece) {
      const auto t = Clock::now();
      read_each_line(map_ + place(k) + at, std::min(kPiece, octets - at));
      mapped += Clock::now() - t;
      if (mapped > allowed) return Reading::kCopied;
    }
  return Reading::kMapped;
}

void SharedPcapFile::release(std::uint64_t from, std::uint64_t to) const {
  from = from / kReleaseUnit * kReleaseUnit;
  to = std::min(to, size_) / kReleaseUnit * kReleaseUnit;
  if (to > from) ::madvise(const_cast<std::uint8_t*>(map_ + from), static_cast<std::size_t>(to - from), MADV_DONTNEED);
}

// One octet of each cache line of [p, p + n), read (the caller checked
// they are there): through the mapping, what maps the pages into this
// process and brings their octets into the cache.
void SharedPcapFile::read_each_line(const std::uint8_t* p, std::uint64_t n) {
  unsigned sum = 0;
  for (std::uint64_t i = 0; i < n; i += kCacheLine) sum += *static_cast<const volatile std::uint8_t*>(p + i);
  (void)sum;
}

bool SharedPcapFile::populate(std::uint64_t from, std::uint64_t to) const {
#ifdef MADV_POPULATE_READ
  static const std::uint64_t page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  from = from / page * page;
  to = std::min(to, size_);
  if (to <= from) return true;
  if (::madvise(const_cast<std::uint8_t*>(map_ + from), static_cast<std::size_t>(to - from), MADV_POPULATE_READ) == 0)
    return true;
  return errno != EINVAL;  // EINVAL: a kernel without it; EFAULT and the like: this range only
#else
  (void)from, (void)to;
  return false;
#endif
}

std::shared_ptr<const FileWindow> PacketSource::window() const {
  if (!mapped_) return nullptr;
  return mapped_->window;
}

bool PacketSource::map_file() {
  if (!mapped_ || mapped_->fd < 0) return false;
  mapped_->map = true;
  return true;
}

FileWindow::~FileWindow() {
  if (mapped_) ::munmap(const_cast<std::uint8_t*>(mapped_), mapped_size_);
}

bool PacketSource::link_supported() const {
  switch (link_) {
    case LinkType::kNull: case LinkType::kEthernet: case LinkType::kRaw: case LinkType::kLoop:
    case LinkType::kLinuxSll: case LinkType::kIpv4: case LinkType::kIpv6: case LinkType::kLinuxSll2:
      return true;
  }
  return false;
}

std::unique_ptr<PacketSource> PacketSource::open_file(const std::string& path, std::string_view bpf_filter,
                                                      std::string& error) {
  {
    // What is wrong with the file is said first, naming it; a regular file
    // that starts like a capture is libpcap's (or ours, below) to read.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      error = path + ": " + open_problem(errno);
      return nullptr;
    }
    struct stat st {};
    std::string problem;
    if (::fstat(fd, &st) != 0) {
      problem = open_problem(errno);
    } else if (S_ISDIR(st.st_mode)) {
      problem = "a folder, not a capture file";
    } else if (S_ISREG(st.st_mode)) {
      std::uint8_t head[kHeadProbe];
      const ssize_t got = ::pread(fd, head, sizeof head, 0);
      problem = got < 0 ? "cannot read it: " + std::string(std::strerror(errno))
                        : header_problem(wire::Bytes(head, static_cast<std::size_t>(got)),
                                         static_cast<std::uint64_t>(st.st_size));
    }
    ::close(fd);
    if (!problem.empty()) {
      error = path + ": " + problem;
      return nullptr;
    }
  }
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<PacketSource> s(new PacketSource());
  if (bpf_filter.empty()) {
    // The fast path: no copy through stdio and the kernel. Filters need
    // libpcap's compiled program and its link type, so they go through it.
    s->mapped_ = map_classic_pcap(path, s->link_, s->nanoseconds_);
    if (s->mapped_) return s;
  }
  s->pcap_->handle = pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!s->pcap_->handle) {
    error = path + ": " + libpcap_refused(errbuf);
    return nullptr;
  }
  return finish_offline(std::move(s), bpf_filter, error);
}

std::unique_ptr<PacketSource> PacketSource::open_memory(wire::Bytes file, std::string_view bpf_filter,
                                                        std::string& error) {
  // The same words as open_file's for the same octets, without a name.
  if (std::string problem = header_problem(file.first(std::min(file.size(), kHeadProbe)), file.size());
      !problem.empty()) {
    error = problem;
    return nullptr;
  }
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<PacketSource> s(new PacketSource());
  if (bpf_filter.empty()) {
    s->mapped_ = map_classic_pcap(file, s->link_, s->nanoseconds_);
    if (s->mapped_) return s;
  }
  // pcap_open_offline is fopen + pcap_fopen_offline; a read-only stdio
  // stream over the octets stands in for the file (fmemopen wants a
  // buffer even for an empty file).
  static const std::uint8_t kEmpty = 0;
  std::FILE* f = fmemopen(const_cast<std::uint8_t*>(file.empty() ? &kEmpty : file.data()), file.size(), "rb");
  if (f == nullptr) {
    error = std::string("fmemopen: ") + std::strerror(errno);
    return nullptr;
  }
  s->pcap_->handle = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, errbuf);
  if (!s->pcap_->handle) {
    std::fclose(f);  // pcap_close closes it once libpcap has taken it, not before
    error = libpcap_refused(errbuf);
    return nullptr;
  }
  return finish_offline(std::move(s), bpf_filter, error);
}

std::unique_ptr<PacketSource> PacketSource::finish_offline(std::unique_ptr<PacketSource> s,
                                                           std::string_view bpf_filter, std::string& error) {
  s->nanoseconds_ = pcap_get_tstamp_precision(s->pcap_->handle) == PCAP_TSTAMP_PRECISION_NANO;
  s->link_ = link_type_of(pcap_datalink(s->pcap_->handle));
  if (!bpf_filter.empty()) {
    // Filtered here rather than by pcap_setfilter, so that skipped frames
    // still count and frame numbers match Wireshark's.
    const std::string f(bpf_filter);
    if (pcap_compile(s->pcap_->handle, &s->pcap_->filter, f.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      error = std::string("BPF filter: ") + pcap_geterr(s->pcap_->handle);
      return nullptr;
    }
    s->pcap_->has_filter = true;
  }
  return s;
}

std::unique_ptr<PacketSource> PacketSource::open_live(const std::string& interface, std::string_view bpf_filter,
                                                      const LiveOptions& options, std::string& error) {
  char errbuf[PCAP_ERRBUF_SIZE] = {};
  std::unique_ptr<PacketSource> s(new PacketSource());
  s->live_ = true;
  pcap_t* p = pcap_create(interface.c_str(), errbuf);
  if (!p) {
    error = errbuf;
    return nullptr;
  }
  s->pcap_->handle = p;
  pcap_set_snaplen(p, static_cast<int>(options.snaplen));
  pcap_set_promisc(p, options.promiscuous ? 1 : 0);
  pcap_set_timeout(p, options.timeout_ms);
  pcap_set_immediate_mode(p, 1);  // deliver frames as they come, not when the buffer fills
  pcap_set_buffer_size(p, static_cast<int>(std::min<std::uint32_t>(options.buffer_mib, 1024) << 20));
  pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO);  // best effort; checked below
  const int activated = pcap_activate(p);
  if (activated < 0) {
    error = interface + ": " + pcap_statustostr(activated) + (activated == PCAP_ERROR ? std::string(": ") + pcap_geterr(p) : "");
    return nullptr;
  }
  s->nanoseconds_ = pcap_get_tstamp_precision(p) == PCAP_TSTAMP_PRECISION_NANO;
  s->link_ = link_type_of(pcap_datalink(p));
  // In immediate mode Linux's libpcap waits for a packet without the
  // timeout; non-blocking reads and our own poll() bound every next().
  s->pcap_->fd = pcap_get_selectable_fd(p);
  s->pcap_->timeout_ms = options.timeout_ms;
  if (s->pcap_->fd >= 0 && pcap_setnonblock(p, 1, errbuf) != 0) {
    error = interface + ": " + errbuf;
    return nullptr;
  }
  if (!bpf_filter.empty()) {
    const std::string f(bpf_filter);
    if (pcap_compile(p, &s->pcap_->filter, f.c_str(), 1, PCAP_NETMASK_UNKNOWN) != 0) {
      error = std::string("BPF filter: ") + pcap_geterr(p);
      return nullptr;
    }
    s->pcap_->has_filter = true;
    if (pcap_setfilter(p, &s->pcap_->filter) != 0) {
      error = std::string("BPF filter: ") + pcap_geterr(p);
      return nullptr;
    }
  }
  return s;
}

PacketSource::Next PacketSource::next(RawFrame& out, Wait wait) {
  if (mapped_) return next_mapped(out);
  for (;;) {
    pcap_pkthdr* header = nullptr;
    const u_char* data = nullptr;
    int rc = pcap_next_ex(pcap_->handle, &header, &data);
    if (rc == 0 && pcap_->fd >= 0) {
      // Live and non-blocking: nothing buffered; wait for the interface.
      pollfd p{pcap_->fd, POLLIN, 0};
      if (::poll(&p, 1, wait == Wait::kWait ? pcap_->timeout_ms : 0) <= 0) return Next::kTimeout;
      rc = pcap_next_ex(pcap_->handle, &header, &data);
    }
    if (rc == 0) return Next::kTimeout;
    if (rc == PCAP_ERROR_BREAK) return Next::kEnd;  // end of file, or break_loop()
    if (rc != 1) {
      error_ = pcap_geterr(pcap_->handle);
      Report r;
      // libpcap says "truncated dump file" / "truncated pcapng dump file"
      // when a record runs past the end of the file.
      r.kind = error_.find("truncated") != std::string::npos ? ReportKind::kTruncatedFile : ReportKind::kReadError;
      r.frame = FrameNumber{frames_ + 1};
      r.detail = wire::DecodeError{"capture file", r.kind == ReportKind::kTruncatedFile
                                                       ? "the file ends inside a packet record"
                                                       : "libpcap could not read further",
                                   "pcap/pcapng", 0};
      end_report_ = r;
      return r.kind == ReportKind::kTruncatedFile ? Next::kEnd : Next::kError;
    }
    ++frames_;
    // Files: apply the filter here so that every frame is counted.
    if (!live_ && pcap_->has_filter && pcap_offline_filter(&pcap_->filter, header, data) == 0) continue;
    out.number = FrameNumber{frames_};
    const std::int64_t fraction = nanoseconds_ ? header->ts.tv_usec : std::int64_t{header->ts.tv_usec} * 1000;
    out.time = timestamp_of(header->ts.tv_sec, fraction);
    out.link = link_;
    out.captured = wire::Bytes(data, header->caplen);
    out.original_length = header->len;
    return Next::kFrame;
  }
}

std::optional<std::uint64_t> PacketSource::kernel_drops() const {
  if (!live_ || !pcap_->handle) return std::nullopt;
  pcap_stat st{};
  if (pcap_stats(pcap_->handle, &st) != 0) return std::nullopt;
  return std::uint64_t{st.ps_drop} + st.ps_ifdrop;
}

void PacketSource::break_loop() {
  if (pcap_->handle) pcap_breakloop(pcap_->handle);
}

RunSummary run_capture(PacketSource& source, Reassembler& reassembler, StreamConsumer& consumer,
                       const RunLimits& limits) {
  RunSummary summary;
  RawFrame frame;
  const bool timed = limits.deadline != std::chrono::steady_clock::time_point::max();
  const auto below_frame_limit = [&] { return limits.max_frames == 0 || summary.frames < limits.max_frames; };
  bool stopped = false;  // by the flag or the deadline, not by the source ending
  while (below_frame_limit()) {
    if (limits.stop && limits.stop->load(std::memory_order_relaxed)) {
      stopped = true;
      break;
    }
    // A file is read to its end quickly; only live sources look at the clock.
    if (timed && source.live() && std::chrono::steady_clock::now() >= limits.deadline) {
      stopped = true;
      break;
    }
    const PacketSource::Next n = source.next(frame);
    if (n == PacketSource::Next::kTimeout) continue;
    if (n != PacketSource::Next::kFrame) break;
    ++summary.frames;
    reassembler.add_frame(frame);
  }
  if (stopped && source.live()) {
    // What the kernel captured before the stop is read too, without waiting
    // for more. Bounded in time, so that a flooded interface still stops.
    const auto drain_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
    while (below_frame_limit() && std::chrono::steady_clock::now() < drain_until) {
      if (source.next(frame, PacketSource::Wait::kNoWait) != PacketSource::Next::kFrame) break;
      ++summary.frames;
      reassembler.add_frame(frame);
    }
  }
  if (auto r = source.end_report()) {
    summary.clean_end = false;
    consumer.on_report(*r);
  }
  // Frames the kernel could not hand us are lost data: said, never silent.
  // The reassembler shows their octets as gaps where it can tell.
  if (const auto dropped = source.kernel_drops(); dropped && *dropped > 0) {
    Report r;
    r.kind = ReportKind::kKernelDrop;
    r.value = *dropped;
    consumer.on_report(r);
  }
  reassembler.finish();
  return summary;
}

}  // namespace rdmaconf::capture
