// Reading captures through libpcap (pcap and pcapng, every link type),
// writing them (round trip to the exact octets), bad files, BPF filters,
// tshark's view of what we write, and live capture on loopback.
#include "capture/source.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "fixtures.hpp"
#include "run_command.hpp"

namespace rdmaconf::capture {
namespace {

using rdmaconf::testing::run_command;

using testing::bytes_of;
using testing::Recorder;

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() / ("rdmaconf-pcap-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  static inline int counter_ = 0;
  fs::path path_;
};

void write_file(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

const RecordedEndpoint kClientEp{{0x02, 0, 0, 0, 0, 1}, ipv4(192, 0, 2, 1), 40000, SeqNum{0xfffffff0u}};
const RecordedEndpoint kServerEp{{0x02, 0, 0, 0, 0, 2}, ipv4(192, 0, 2, 2), 5000, SeqNum{12345}};

std::string pattern(std::size_t n, int seed) {
  std::string s;
  for (std::size_t i = 0; i < n; ++i) s.push_back(static_cast<char>((i * 31 + static_cast<std::size_t>(seed)) & 0xff));
  return s;
}

// A recorded exchange: handshake, data both ways (client's crosses the
// 32-bit sequence wrap), FIN.
void record_exchange(CaptureWriter& w, const std::string& request, const std::string& reply) {
  TcpRecorder rec(w, kClientEp, kServerEp);
  TcpOptions smc;
  smc.smc = true;
  rec.open(smc, smc);
  rec.send(TcpRecorder::Side::kClient, bytes_of(request), "MPA Request");
  rec.send(TcpRecorder::Side::kServer, bytes_of(reply), "MPA Reply");
  rec.close();
}

Recorder read_back(const std::string& path, std::string_view filter = {}) {
  Recorder rec;
  std::string error;
  auto src = PacketSource::open_file(path, filter, error);
  EXPECT_TRUE(src) << error;
  if (!src) return rec;
  Reassembler ra(rec);
  run_capture(*src, ra, rec);
  return rec;
}

// A classic pcap of one TCP connection carrying `mib` MiB of pattern(seed)
// from `side`, cut at the MSS (about 720 frames a MiB): several of the
// source's read windows.
bool write_bulk_capture(const std::string& path, int mib, int seed,
                        TcpRecorder::Side side = TcpRecorder::Side::kClient) {
  std::ofstream f(path, std::ios::binary);
  CaptureWriter w(f, FileFormat::kPcap);
  TcpRecorder rec(w, kClientEp, kServerEp);
  rec.open();
  const std::string chunk = pattern(1 << 20, seed);
  for (int i = 0; i < mib; ++i) rec.send(side, bytes_of(chunk));
  rec.close();
  return w.ok();
}

TEST(Source, RoundTripPcapngAndPcap) {
  TempDir dir;
  const std::string request = pattern(5000, 1), reply = pattern(3000, 2);
  for (FileFormat format : {FileFormat::kPcapng, FileFormat::kPcap}) {
    const std::string path = dir.file(format == FileFormat::kPcapng ? "x.pcapng" : "x.pcap");
    {
      std::ofstream f(path, std::ios::binary);
      CaptureWriter w(f, format);
      record_exchange(w, request, reply);
      ASSERT_TRUE(w.ok());
    }
    Recorder rec = read_back(path);
    EXPECT_EQ(rec.text(testing::kC2S), request);
    EXPECT_EQ(rec.text(testing::kS2C), reply);
    EXPECT_TRUE(rec.reports.empty()) << rec.reports[0].to_string();
    EXPECT_EQ(rec.streams[testing::kC2S].end, StreamEnd::kFin);
    EXPECT_EQ(rec.streams[testing::kS2C].end, StreamEnd::kFin);
    EXPECT_TRUE(rec.streams[testing::kC2S].smc);
    EXPECT_EQ(rec.streams[testing::kC2S].start, StreamStart::kSyn);
  }
}

// Classic pcap files without a filter are read in place (large reads, no
// libpcap); with a filter libpcap reads them. Both give the same frames:
// numbers, times, octets, lengths, link type, over several buffer refills.
TEST(Source, InPlacePcapReaderAgreesWithLibpcap) {
  TempDir dir;
  const std::string path = dir.file("big.pcap");
  ASSERT_TRUE(write_bulk_capture(path, 6, 3));
  std::string error;
  auto own = PacketSource::open_file(path, "", error);
  auto lib = PacketSource::open_file(path, "len >= 0", error);  // every frame, through libpcap
  ASSERT_TRUE(own && lib) << error;
  EXPECT_EQ(own->link_type(), lib->link_type());
  RawFrame a, b;
  std::size_t frames = 0;
  for (;;) {
    const auto na = own->next(a), nb = lib->next(b);
    ASSERT_EQ(na, nb) << "frame " << frames + 1;
    if (na != PacketSource::Next::kFrame) break;
    ++frames;
    ASSERT_EQ(a.number.value, b.number.value);
    ASSERT_EQ(a.time.ns, b.time.ns);
    ASSERT_EQ(a.original_length, b.original_length);
    ASSERT_TRUE(std::equal(a.captured.begin(), a.captured.end(), b.captured.begin(), b.captured.end()));
  }
  EXPECT_GT(frames, 4000u);
  EXPECT_FALSE(own->end_report());
}

// analyze -j keeps views into the windows it holds (PacketSource::window):
// the reader reads on into other windows and never overwrites a held one.
TEST(Source, HeldWindowsKeepTheirOctets) {
  TempDir dir;
  const std::string path = dir.file("big.pcap");
  ASSERT_TRUE(write_bulk_capture(path, 14, 5));
  std::string error;
  auto source = PacketSource::open_file(path, "", error);
  ASSERT_TRUE(source) << error;
  struct Held {
    std::shared_ptr<const FileWindow> window;
    wire::Bytes frame;
    std::vector<std::uint8_t> copy;
  };
  std::vector<Held> held;
  RawFrame f;
  std::size_t frames = 0;
  while (source->next(f) == PacketSource::Next::kFrame) {
    auto w = source->window();
    ASSERT_TRUE(w);
    ASSERT_GE(f.captured.data(), w->data());
    ASSERT_LE(f.captured.data() + f.captured.size(), w->data() + w->size());
    // Every 97th frame held for a while (the last 40 of them), as workers hold batches.
    if (++frames % 97 == 0) {
      held.push_back({w, f.captured, std::vector<std::uint8_t>(f.captured.begin(), f.captured.end())});
      if (held.size() > 40) held.erase(held.begin());
    }
    for (const Held& h : held) ASSERT_TRUE(std::equal(h.frame.begin(), h.frame.end(), h.copy.begin(), h.copy.end()));
  }
  EXPECT_GT(frames, 9000u);
  EXPECT_EQ(held.size(), 40u);
  auto libpcap = PacketSource::open_file(path, "len >= 0", error);
  ASSERT_TRUE(libpcap);
  EXPECT_FALSE(libpcap->window());  // libpcap's frames: copy them
}

// map_file (analyze -j): the file's windows mapped, not read, give the
// frames the read windows give, and a held mapping keeps its octets while
// the source maps on.
TEST(Source, MappedWindowsAgreeWithReadOnesAndKeepTheirOctets) {
  TempDir dir;
  const std::string path = dir.file("big.pcap");
  ASSERT_TRUE(write_bulk_capture(path, 14, 7, TcpRecorder::Side::kServer));
  std::string error;
  auto mapped = PacketSource::open_file(path, "", error);
  auto read = PacketSource::open_file(path, "", error);
  ASSERT_TRUE(mapped && read) << error;
  ASSERT_TRUE(mapped->map_file());
  struct Held {
    std::shared_ptr<const FileWindow> window;
    wire::Bytes frame;
    std::vector<std::uint8_t> copy;
  };
  std::vector<Held> held;
  RawFrame a, b;
  std::size_t frames = 0;
  std::size_t windows = 0;  // how often the window changed (a freed one's address may come again)
  const FileWindow* last = nullptr;
  while (mapped->next(a) == PacketSource::Next::kFrame) {
    ASSERT_EQ(read->next(b), PacketSource::Next::kFrame);
    ASSERT_EQ(a.number, b.number);
    ASSERT_EQ(a.time, b.time);
    ASSERT_EQ(a.original_length, b.original_length);
    ASSERT_TRUE(std::equal(a.captured.begin(), a.captured.end(), b.captured.begin(), b.captured.end()));
    auto w = mapped->window();
    ASSERT_TRUE(w && w->mapped());
    if (w.get() != last) ++windows;
    last = w.get();
    ASSERT_GE(a.captured.data(), w->data());
    ASSERT_LE(a.captured.data() + a.captured.size(), w->data() + w->size());
    if (++frames % 89 == 0) {
      held.push_back({w, a.captured, std::vector<std::uint8_t>(a.captured.begin(), a.captured.end())});
      if (held.size() > 40) held.erase(held.begin());
    }
    for (const Held& h : held) ASSERT_TRUE(std::equal(h.frame.begin(), h.frame.end(), h.copy.begin(), h.copy.end()));
  }
  EXPECT_EQ(read->next(b), PacketSource::Next::kEnd);
  EXPECT_GT(frames, 9000u);
  EXPECT_GE(windows, 4u);
  EXPECT_FALSE(mapped->end_report());
  // Only the in-place reader maps.
  auto libpcap = PacketSource::open_file(path, "len >= 0", error);
  ASSERT_TRUE(libpcap);
  EXPECT_FALSE(libpcap->map_file());
}

// A mapped file shortened while it is read: the windows not mapped yet are
// not mapped past its new end; the source ends with a report, no crash.
TEST(Source, MappedFileShortenedWhileReadEndsWithAReport) {
  TempDir dir;
  const std::string path = dir.file("shrinks.pcap");
  ASSERT_TRUE(write_bulk_capture(path, 14, 3));
  std::string error;
  auto src = PacketSource::open_file(path, "", error);
  ASSERT_TRUE(src) << error;
  ASSERT_TRUE(src->map_file());
  RawFrame f;
  ASSERT_EQ(src->next(f), PacketSource::Next::kFrame);  // the first window mapped: 4 MiB
  std::filesystem::resize_file(path, 10u << 20);
  std::size_t frames = 1;
  PacketSource::Next n;
  while ((n = src->next(f)) == PacketSource::Next::kFrame) ++frames;
  EXPECT_NE(n, PacketSource::Next::kFrame);
  ASSERT_TRUE(src->end_report());
  EXPECT_GT(frames, 5000u);
  EXPECT_LT(frames, 8000u);
}

// SharedPcapFile: walked a chunk at a time, it gives the frames and the end
// PacketSource::next gives, whole and cut in the last record, whatever the
// chunk's size (records cut at a chunk's end are whole in the next; a
// record longer than a chunk makes the chunk longer); released pages read
// the same when touched again; a file shortened while it is read ends as
// unreadable; only the in-place reader shares.
void expect_shared_file_walks_as_the_source_reads(SharedPcapFile::Reading how) {
  TempDir dir;
  const std::string path = dir.file("shared.pcap");
  ASSERT_TRUE(write_bulk_capture(path, 9, 5));
  using Step = SharedPcapFile::Step;
  // The next frame, filling the chunk as often as it asks.
  const auto next = [how](const SharedPcapFile& file, SharedPcapFile::Cursor& c, SharedPcapFile::Chunk& k,
                          RawFrame& out, std::size_t& fills) {
    Step s;
    while ((s = file.next(c, k, out)) == Step::kFill) {
      ++fills;
      if (!file.fill(c, k, how)) return Step::kError;
    }
    return s;
  };
  const auto whole = fs::file_size(path);
  for (const std::uintmax_t size : {whole, whole - 7}) {
    fs::resize_file(path, size);
    for (const std::size_t chunk_octets : {std::size_t{0}, std::size_t{100}, std::size_t{4096}}) {
      std::string error;
      auto src = PacketSource::open_file(path, "", error);
      ASSERT_TRUE(src) << error;
      const auto shared = src->share_file(chunk_octets);
      ASSERT_TRUE(shared);
      SharedPcapFile::Cursor c = shared->start();
      SharedPcapFile::Chunk k;
      RawFrame a, b;
      PacketSource::Next n;
      std::size_t frames = 0, fills = 0;
      while ((n = src->next(a)) == PacketSource::Next::kFrame) {
        ASSERT_EQ(next(*shared, c, k, b, fills), Step::kFrame);
        ASSERT_EQ(a.number, b.number);
        ASSERT_EQ(a.time, b.time);
        ASSERT_EQ(a.original_length, b.original_length);
        ASSERT_TRUE(std::equal(a.captured.begin(), a.captured.end(), b.captured.begin(), b.captured.end()));
        if (++frames % 1000 == 0) {
          shared->release(0, c.pos);  // this frame's pages too: mapped again when read
          ASSERT_TRUE(std::equal(a.captured.begin(), a.captured.end(), b.captured.begin(), b.captured.end()));
        }
      }
      EXPECT_EQ(next(*shared, c, k, b, fills), n == PacketSource::Next::kEnd ? Step::kEnd : Step::kError) << size;
      EXPECT_EQ(c.end_report.has_value(), src->end_report().has_value()) << size;
      if (c.end_report) {
        EXPECT_EQ(c.end_report->to_string(), src->end_report()->to_string());
      }
      EXPECT_EQ(c.frames, frames);
      EXPECT_GT(frames, 6000u);
      // 9 MiB in chunks of 512 KiB, 4 KiB, or one record each.
      EXPECT_GE(fills, chunk_octets == 0 ? 18u : chunk_octets == 4096 ? 2300u : frames) << chunk_octets;
    }
  }
  {
    // Shortened after its first chunk: the next read comes up short.
    std::string error;
    auto src = PacketSource::open_file(path, "", error);
    ASSERT_TRUE(src) << error;
    const auto shared = src->share_file(4096);
    ASSERT_TRUE(shared);
    SharedPcapFile::Cursor c = shared->start();
    SharedPcapFile::Chunk k;
    RawFrame b;
    std::size_t fills = 0;
    ASSERT_EQ(next(*shared, c, k, b, fills), Step::kFrame);
    fs::resize_file(path, whole / 2);
    Step s;
    while ((s = next(*shared, c, k, b, fills)) == Step::kFrame) {
    }
    EXPECT_EQ(s, Step::kError);
    ASSERT_TRUE(c.end_report);
    EXPECT_EQ(c.end_report->kind, ReportKind::kReadError);
    EXPECT_LE(c.pos, whole / 2);
  }
  std::string error;
  auto libpcap = PacketSource::open_file(path, "len >= 0", error);
  ASSERT_TRUE(libpcap);
  EXPECT_FALSE(libpcap->share_file());
}

TEST(Source, SharedFileWalksAsTheSourceReads) {
  expect_shared_file_walks_as_the_source_reads(SharedPcapFile::Reading::kMapped);
}

// The same walk with each chunk read into its own buffer (pread), as
// analyze -j reads a file where mapping its pages costs more than copying.
TEST(Source, SharedFileReadByCopiesWalksAsTheSourceReads) {
  expect_shared_file_walks_as_the_source_reads(SharedPcapFile::Reading::kCopied);
}

namespace {
// The walk analyze -j makes of a file read by copies, stretch by stretch
// (analysis/parallel_file.cpp, Split::claim and Split::walk), with every stretch read
// here in turn: read_at, then fill_from into the chunk at the cursor; the
// next stretch when the cursor passed one, fill() when one cannot make it.
class StretchWalk {
 public:
  using Step = SharedPcapFile::Step;
  using From = SharedPcapFile::FromStretch;
  explicit StretchWalk(const SharedPcapFile& file) : file_(file), cursor_(file.start()), at_(cursor_.pos) {}
  Step next(RawFrame& out) {
    Step s;
    while ((s = file_.next(cursor_, chunks_[current_], out)) == Step::kFill)
      if (!refill()) return Step::kError;
    return s;
  }
  const SharedPcapFile::Cursor& cursor() const { return cursor_; }
  std::size_t seen(From f) const { return seen_[static_cast<std::size_t>(f)]; }
  std::size_t fills = 0;

 private:
  bool refill() {
    SharedPcapFile::Chunk& stretch = chunks_[1 - current_];
    while (at_ < file_.size()) {
      file_.read_at(at_, stretch);
      at_ = file_.stretch_end(at_);
      const From made = file_.fill_from(cursor_, stretch, chunks_[current_]);
      ++seen_[static_cast<std::size_t>(made)];
      if (made == From::kPassed) continue;
      current_ = 1 - current_;
      if (made == From::kUnread) {
        ++fills;
        return file_.fill(cursor_, chunks_[current_], SharedPcapFile::Reading::kCopied);
      }
      return made == From::kFilled;
    }
    ++fills;
    return file_.fill(cursor_, chunks_[current_], SharedPcapFile::Reading::kCopied);
  }
  const SharedPcapFile& file_;
  SharedPcapFile::Cursor cursor_;
  SharedPcapFile::Chunk chunks_[2];
  int current_ = 0;
  std::uint64_t at_;
  std::size_t seen_[4] = {};
};

// `src` and the stretch walk over `shared` give the same frames and end;
// the frames, or 0 after a failure.
std::size_t expect_same_walk(PacketSource& src, StretchWalk& walk) {
  RawFrame a, b;
  PacketSource::Next n;
  std::size_t frames = 0;
  while ((n = src.next(a)) == PacketSource::Next::kFrame) {
    EXPECT_EQ(walk.next(b), SharedPcapFile::Step::kFrame) << "frame " << frames + 1;
    if (::testing::Test::HasFailure()) return 0;
    EXPECT_EQ(a.number, b.number);
    EXPECT_EQ(a.time, b.time);
    EXPECT_EQ(a.original_length, b.original_length);
    EXPECT_TRUE(std::equal(a.captured.begin(), a.captured.end(), b.captured.begin(), b.captured.end()))
        << "frame " << frames + 1;
    if (::testing::Test::HasFailure()) return 0;
    ++frames;
  }
  EXPECT_EQ(walk.next(b), n == PacketSource::Next::kEnd ? SharedPcapFile::Step::kEnd : SharedPcapFile::Step::kError);
  EXPECT_EQ(walk.cursor().end_report.has_value(), src.end_report().has_value());
  if (walk.cursor().end_report && src.end_report()) {
    EXPECT_EQ(walk.cursor().end_report->to_string(), src.end_report()->to_string());
  }
  return frames;
}

// A classic pcap (Ethernet) whose records have these captured lengths, each
// filled with a pattern of its own.
void write_records(const std::string& path, const std::vector<std::uint32_t>& caplens) {
  std::ofstream f(path, std::ios::binary);
  const auto put32 = [&](std::uint32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
  const auto put16 = [&](std::uint16_t v) { f.write(reinterpret_cast<const char*>(&v), 2); };
  put32(0xa1b2c3d4);
  put16(2);
  put16(4);
  put32(0);
  put32(0);
  put32(std::uint32_t{1} << 20);
  put32(1);
  for (std::size_t i = 0; i < caplens.size(); ++i) {
    put32(static_cast<std::uint32_t>(i));
    put32(0);
    put32(caplens[i]);
    put32(caplens[i]);
    const std::string body = pattern(caplens[i], static_cast<int>(i));
    f.write(body.data(), static_cast<std::streamsize>(body.size()));
  }
}
}  // namespace

// Read by stretches ahead of the walk (SharedPcapFile::read_at and
// fill_from, as analyze -j reads a file by copies): the frames and the end
// PacketSource::next gives, whole and cut in the last record, whatever the
// stretch's size. Records longer than a stretch are read on (the cursor
// then passes the next stretch), and cut records longer than the room
// before a stretch still make it the next chunk; a file shortened while it
// is read ends as unreadable.
TEST(Source, SharedFileReadInStretchesWalksAsTheSourceReads) {
  using From = SharedPcapFile::FromStretch;
  TempDir dir;
  const std::string bulk = dir.file("stretches.pcap"), large = dir.file("large.pcap");
  ASSERT_TRUE(write_bulk_capture(bulk, 5, 6));
  // Records about a stretch long, longer than one, and longer than the room
  // before one (SharedPcapFile::kHeadroom), between short ones.
  std::vector<std::uint32_t> caplens;
  for (int i = 0; i < 12; ++i)
    for (const std::uint32_t n : {60u, 1500u, 70000u, 9000u, 200000u, 131072u, 16u, 600000u}) caplens.push_back(n + i);
  write_records(large, caplens);
  for (const std::string& path : {bulk, large}) {
    const auto whole = fs::file_size(path);
    for (const std::uintmax_t size : {whole, whole - 7}) {
      fs::resize_file(path, size);
      for (const std::size_t chunk_octets : {std::size_t{0}, std::size_t{100}, std::size_t{4096}, std::size_t{131072}}) {
        std::string error;
        auto src = PacketSource::open_file(path, "", error);
        ASSERT_TRUE(src) << error;
        const auto shared = src->share_file(chunk_octets);
        ASSERT_TRUE(shared);
        StretchWalk walk(*shared);
        const std::size_t frames = expect_same_walk(*src, walk);
        ASSERT_FALSE(HasFailure()) << path << ", " << size << " octets, stretches of " << chunk_octets;
        EXPECT_GT(frames, path == bulk ? 3000u : 90u);
        EXPECT_GT(walk.seen(From::kFilled), chunk_octets == 0 ? 4u : 40u);
        // A record longer than two stretches passes one whole.
        if (path == large && chunk_octets != 0) {
          EXPECT_GT(walk.seen(From::kPassed), 0u) << chunk_octets;
        }
        EXPECT_EQ(walk.fills, 0u) << chunk_octets;  // every chunk made from a stretch
      }
    }
  }
  // Shortened after the first stretches: read_at comes up short, fill()
  // says why.
  ASSERT_TRUE(write_bulk_capture(bulk, 5, 6));  // whole again
  std::string error;
  auto src = PacketSource::open_file(bulk, "", error);
  ASSERT_TRUE(src) << error;
  const auto shared = src->share_file(4096);
  ASSERT_TRUE(shared);
  StretchWalk walk(*shared);
  RawFrame b;
  ASSERT_EQ(walk.next(b), SharedPcapFile::Step::kFrame);
  const auto half = shared->size() / 2;
  fs::resize_file(bulk, half);
  SharedPcapFile::Step s;
  while ((s = walk.next(b)) == SharedPcapFile::Step::kFrame) {
  }
  EXPECT_EQ(s, SharedPcapFile::Step::kError);
  ASSERT_TRUE(walk.cursor().end_report);
  EXPECT_EQ(walk.cursor().end_report->kind, ReportKind::kReadError);
  EXPECT_LE(walk.cursor().pos, half);
}

namespace {
// The thread's page faults while it reads one octet of each page of `c`.
long faults_reading(const SharedPcapFile::Chunk& c) {
  rusage before{}, after{};
  ::getrusage(RUSAGE_THREAD, &before);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  unsigned sum = 0;
  for (std::size_t at = 0; at < c.filled; at += page) sum += *static_cast<const volatile std::uint8_t*>(c.data + at);
  ::getrusage(RUSAGE_THREAD, &after);
  (void)sum;
  return after.ru_minflt - before.ru_minflt;
}
// A bulk capture of 8 MiB written to `path`, mapped whole (share_file), or
// nullptr with the failure added.
std::unique_ptr<SharedPcapFile> mapped_bulk(const std::string& path, int seed, std::size_t chunk_octets = 0) {
  if (!write_bulk_capture(path, 8, seed)) {
    ADD_FAILURE() << "cannot write " << path;
    return nullptr;
  }
  std::string error;
  auto src = PacketSource::open_file(path, "", error);
  if (!src) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  return src->share_file(chunk_octets);
}
}  // namespace

// SharedPcapFile::populate: the pages it maps are read without a page
// fault, where pages nobody mapped ahead fault (the check itself can fail);
// a range past a shortened file's end fails the call, not the process.
TEST(Source, SharedFilePagesMappedAheadReadWithoutAFault) {
  TempDir dir;
  const std::string path = dir.file("populate.pcap");
  constexpr std::size_t kChunk = std::size_t{256} << 10;
  const auto shared = mapped_bulk(path, 3, kChunk);
  ASSERT_TRUE(shared);
  // Two chunks 4 MiB apart, so mapping one maps nothing of the other (the
  // kernel may map a 2 MiB folio whole).
  SharedPcapFile::Cursor c = shared->start();
  SharedPcapFile::Chunk ahead, plain;
  ASSERT_TRUE(shared->fill(c, ahead));
  c.pos = ahead.at + (std::uint64_t{4} << 20);
  ASSERT_TRUE(shared->fill(c, plain));
  ASSERT_EQ(ahead.filled, kChunk);
  ASSERT_EQ(plain.filled, kChunk);
  if (!shared->populate(ahead.at, ahead.at + ahead.filled)) GTEST_SKIP() << "this kernel cannot map pages ahead";
  EXPECT_EQ(faults_reading(ahead), 0);
  EXPECT_GT(faults_reading(plain), 0);
  // Shortened: the pages past the new end cannot be mapped; the call says
  // nothing went wrong for the reader (its fill() finds the file shorter).
  shared->release(0, shared->size());
  fs::resize_file(path, plain.at);
  EXPECT_TRUE(shared->populate(plain.at, plain.at + plain.filled));
}

// SharedPcapFile::release gives pages back in whole 2 MiB stretches from
// the file's start: what it leaves of a stretch is still mapped (read
// without a fault), what it gives back faults when read again.
TEST(Source, SharedFileReleasesWholeHugePageStretches) {
  TempDir dir;
  const auto shared = mapped_bulk(dir.file("release.pcap"), 4, std::size_t{256} << 10);
  ASSERT_TRUE(shared);
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  ASSERT_EQ(SharedPcapFile::kReleaseUnit, 2 * kMiB);
  if (!shared->populate(0, 6 * kMiB)) GTEST_SKIP() << "this kernel cannot map pages ahead";
  SharedPcapFile::Cursor c = shared->start();
  const auto chunk_at = [&](std::uint64_t at) {
    c.pos = at;
    SharedPcapFile::Chunk k;
    EXPECT_TRUE(shared->fill(c, k));
    return k;
  };
  // Up to 3 MiB: the first 2 MiB go back, the next stretch stays whole.
  shared->release(0, 3 * kMiB);
  EXPECT_GT(faults_reading(chunk_at(1 * kMiB)), 0);
  EXPECT_EQ(faults_reading(chunk_at(2 * kMiB + 512 * 1024)), 0);
  // From 3 MiB on (a later call starts where the last one ended): the
  // stretch from 2 MiB goes back whole.
  shared->release(3 * kMiB, 5 * kMiB);
  EXPECT_GT(faults_reading(chunk_at(2 * kMiB + 512 * 1024)), 0);
  EXPECT_EQ(faults_reading(chunk_at(4 * kMiB + 512 * 1024)), 0);
}

// The copied chunks' buffers (large_pages.hpp): from half a MiB on, whole
// 2 MiB-aligned stretches advised for huge pages (the mapping's "hg" flag in
// /proc/self/smaps: whether the kernel then has a huge page free is its
// matter, so the advice is what is pinned), their octets kept when the
// buffer grows; smaller ones from the heap.
std::string smaps_flags_of(const void* p) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long from = 0, to = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &from, &to) == 2 && line.find(':') > line.find(' ')) inside = from <= at && at < to;
    else if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

TEST(Source, LargeBuffersAreWholeHugePageStretches) {
  constexpr std::size_t kStretch = LargePageAllocator<std::uint8_t>::kStretch;
  {
    void* probe = ::mmap(nullptr, kStretch, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(probe, MAP_FAILED);
    const bool advised = ::madvise(probe, kStretch, MADV_HUGEPAGE) == 0;
    ::munmap(probe, kStretch);
    if (!advised) GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  LargeBuffer chunk(SharedPcapFile::kHeadroom + SharedPcapFile::kChunkOctets);
  ASSERT_NE(chunk.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(chunk.data()) % kStretch, 0u);
  for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::uint8_t>(i * 7);
  const std::string flags = smaps_flags_of(chunk.data());
  ASSERT_NE(flags, "") << "no mapping holds the buffer";
  EXPECT_NE((flags + " ").find(" hg "), std::string::npos) << flags;
  // Grown past one stretch (a record longer than the room): moved, kept.
  const std::size_t before = chunk.size();
  chunk.resize(3 * kStretch + 1);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(chunk.data()) % kStretch, 0u);
  bool kept = true;
  for (std::size_t i = 0; i < before; ++i) kept = kept && chunk[i] == static_cast<std::uint8_t>(i * 7);
  EXPECT_TRUE(kept);
  chunk[chunk.size() - 1] = 1;  // the last octet of the fourth stretch is the buffer's
  LargeBuffer small(4096, 5);
  EXPECT_EQ(small[4095], 5);
  EXPECT_EQ((smaps_flags_of(small.data()) + " ").find(" hg "), std::string::npos);
}

TEST(Source, PcapngTimestampsKeepNanoseconds) {
  TempDir dir;
  const std::string path = dir.file("ts.pcapng");
  const auto frame = build_ethernet({}, {}, ethertype::kIpv4, std::vector<std::uint8_t>(46, 0));
  {
    std::ofstream f(path, std::ios::binary);
    CaptureWriter w(f, FileFormat::kPcapng);
    w.write(Timestamp{1'700'000'000'123'456'789}, frame);
  }
  std::string error;
  auto src = PacketSource::open_file(path, {}, error);
  ASSERT_TRUE(src) << error;
  RawFrame raw;
  ASSERT_EQ(src->next(raw), PacketSource::Next::kFrame);
  EXPECT_EQ(raw.time.ns, 1'700'000'000'123'456'789);
  EXPECT_EQ(raw.number, FrameNumber{1});
  EXPECT_EQ(std::vector<std::uint8_t>(raw.captured.begin(), raw.captured.end()), frame);
  EXPECT_EQ(src->next(raw), PacketSource::Next::kEnd);
  EXPECT_FALSE(src->end_report());
}

// Each link type written to a file and read back through libpcap, so the
// DLT -> LINKTYPE mapping is exercised as well as the decoder.
TEST(Source, EveryLinkTypeThroughLibpcap) {
  TempDir dir;
  TcpSegmentSpec spec;
  spec.key = StreamKey{testing::kClient, testing::kServer};
  spec.seq = SeqNum{100};
  spec.flags = {.ack = true};
  const std::string payload = "linktype";
  spec.payload = bytes_of(payload);
  const auto v4 = build_ip_tcp(spec);
  spec.key.source.address = ipv6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  spec.key.destination.address = ipv6({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
  const auto v6 = build_ip_tcp(spec);
  auto prefixed = [](std::vector<std::uint8_t> head, const std::vector<std::uint8_t>& ip) {
    head.insert(head.end(), ip.begin(), ip.end());
    return head;
  };
  const std::uint16_t vid[] = {7};
  struct Case {
    LinkType link;
    std::vector<std::uint8_t> frame;
  };
  const std::vector<Case> cases = {
      {LinkType::kEthernet, build_ethernet({}, {}, ethertype::kIpv4, v4, vid)},
      {LinkType::kNull, prefixed({2, 0, 0, 0}, v4)},
      {LinkType::kLoop, prefixed({0, 0, 0, 24}, v6)},
      {LinkType::kRaw, v6},
      {LinkType::kIpv4, v4},
      {LinkType::kIpv6, v6},
      {LinkType::kLinuxSll, prefixed({0, 0, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0, 0x08, 0x00}, v4)},
      {LinkType::kLinuxSll2, prefixed({0x86, 0xdd, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 2, 0, 0, 0, 0, 1, 0, 0}, v6)},
  };
  for (const Case& c : cases) {
    for (FileFormat format : {FileFormat::kPcapng, FileFormat::kPcap}) {
      const std::string path = dir.file("link.cap");
      {
        std::ofstream f(path, std::ios::binary);
        CaptureWriter w(f, format, c.link);
        w.write(Timestamp{1}, c.frame);
      }
      std::string error;
      auto src = PacketSource::open_file(path, {}, error);
      ASSERT_TRUE(src) << error;
      EXPECT_EQ(src->link_type(), c.link) << link_type_name(c.link);
      EXPECT_TRUE(src->link_supported());
      RawFrame raw;
      ASSERT_EQ(src->next(raw), PacketSource::Next::kFrame);
      testing::Recorder sink;
      auto seg = decode_frame(raw, sink);
      ASSERT_TRUE(seg) << link_type_name(c.link) << ": " << (sink.reports.empty() ? "" : sink.reports[0].to_string());
      EXPECT_EQ(std::string(seg->payload.begin(), seg->payload.end()), payload) << link_type_name(c.link);
    }
  }
}

TEST(Source, TruncatedFileIsReportedAfterTheFramesBeforeIt) {
  TempDir dir;
  const std::string request = pattern(3000, 3);
  for (FileFormat format : {FileFormat::kPcapng, FileFormat::kPcap}) {
    std::ostringstream out;
    {
      CaptureWriter w(out, format);
      record_exchange(w, request, "ok");
    }
    const std::string whole = out.str();
    // Cut the file at several points inside the last records.
    for (std::size_t cut : {whole.size() - 1, whole.size() - 30, whole.size() - 70}) {
      const std::string path = dir.file("cut.cap");
      write_file(path, std::vector<std::uint8_t>(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut)));
      Recorder rec = read_back(path);
      EXPECT_EQ(rec.count(ReportKind::kTruncatedFile), 1u) << cut;
      EXPECT_EQ(rec.text(testing::kC2S), request) << "frames before the cut are all used";
    }
  }
}

TEST(Source, GarbageFileFailsToOpenWithAReason) {
  TempDir dir;
  const std::string path = dir.file("garbage.pcap");
  write_file(path, std::vector<std::uint8_t>(100, 0x42));
  std::string error;
  EXPECT_FALSE(PacketSource::open_file(path, {}, error));
  EXPECT_FALSE(error.empty());
  EXPECT_FALSE(PacketSource::open_file(dir.file("missing.pcap"), {}, error));
}

// A file that is not a capture is named, and what is wrong with it said in
// our words, whichever way it is wrong; open_memory says the same without
// the name. libpcap's own words were "truncated dump file; tried to read 4
// file header bytes, only got 0", "unknown file format", "error reading dump
// file: Is a directory", without the file.
TEST(Source, UnreadableFilesAreNamedWithWhatIsWrong) {
  TempDir dir;
  const auto pcap = CaptureWriter::pcap_header(LinkType::kEthernet, 65535);
  const std::vector<std::uint8_t> text = {'h', 'e', 'l', 'l', 'o', ' ', 'w', 'o', 'r', 'l', 'd', '\n'};
  struct Bad {
    std::string name;
    std::vector<std::uint8_t> octets;
    std::string expected;
  };
  const std::vector<Bad> bads = {
      {"empty.pcap", {}, "the file is empty"},
      {"text.pcap", text, "not a pcap or pcapng capture file: it starts with `hello world`"},
      {"binary.pcap", {0x7f, 'E', 'L', 'F', 2, 1, 1, 0}, "it starts with `7f 45 4c 46 02 01 01 00`"},
      {"cut.pcap", std::vector<std::uint8_t>(pcap.begin(), pcap.begin() + 10),
       "the file ends inside its pcap file header (10 of 24 octets): it was cut short"},
      {"cut.pcapng", {0x0a, 0x0d, 0x0d, 0x0a, 28, 0, 0, 0}, "ends inside its pcapng file header (8 of 28 octets)"},
      {"capture.pcap.gz", {0x1f, 0x8b, 8, 0, 0, 0, 0, 0}, "gzip-compressed"},
  };
  for (const Bad& b : bads) {
    const std::string path = dir.file(b.name);
    write_file(path, b.octets);
    std::string error;
    EXPECT_FALSE(PacketSource::open_file(path, {}, error)) << b.name;
    EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(b.expected), std::string::npos) << error;
    std::string memory_error;
    EXPECT_FALSE(PacketSource::open_memory(b.octets, {}, memory_error)) << b.name;
    EXPECT_EQ(path + ": " + memory_error, error);
  }
  std::string error;
  EXPECT_FALSE(PacketSource::open_file(dir.file("missing.pcap"), {}, error));
  EXPECT_EQ(error, dir.file("missing.pcap") + ": no such file");
  EXPECT_FALSE(PacketSource::open_file(dir.file(""), {}, error));
  EXPECT_NE(error.find("a folder, not a capture file"), std::string::npos) << error;
  EXPECT_FALSE(PacketSource::open_file(dir.file("empty.pcap") + "/x.pcap", {}, error));
  EXPECT_NE(error.find("a folder on its path is a file"), std::string::npos) << error;
}

// decode and analyze print those words and exit 2; an unreadable file too
// (as another user: root reads every file).
TEST(Source, CommandsNameTheUnreadableFile) {
  TempDir dir;
  const std::string empty = dir.file("empty.pcap");
  write_file(empty, {});
  for (const char* command : {"decode", "analyze"}) {
    int status = 0;
    const std::string out = run_command(std::string(RDMACONF_CLI) + " " + command + " " + empty + " 2>&1", &status);
    EXPECT_EQ(WEXITSTATUS(status), 2) << out;
    EXPECT_EQ(out, std::string("rdmaconf ") + command + ": " + empty +
                       ": the file is empty (a capture starts with a pcap or pcapng file header)\n");
  }
  const std::string locked = dir.file("locked.pcap");
  write_file(locked, CaptureWriter::pcap_header(LinkType::kEthernet, 65535));
  fs::permissions(locked, fs::perms::none);
  fs::permissions(dir.file(""), fs::perms::all);  // others may reach the file, not read it
  const std::string as_nobody = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  int status = 0;
  const std::string out = run_command(as_nobody + RDMACONF_CLI + " decode " + locked + " 2>&1", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2) << out;
  EXPECT_EQ(out, "rdmaconf decode: " + locked + ": no permission to read it\n");
}

TEST(Source, AbsurdRecordLengthIsReportedNotAllocated) {
  // A pcap record header claiming 4 GiB: libpcap refuses it; we report it.
  TempDir dir;
  auto bytes = CaptureWriter::pcap_header(LinkType::kEthernet, 65535);
  const std::vector<std::uint8_t> record = {0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xf0, 0xff, 0xff, 0xff, 0xf0, 1, 2, 3};
  bytes.insert(bytes.end(), record.begin(), record.end());
  const std::string path = dir.file("absurd.pcap");
  write_file(path, bytes);
  Recorder rec = read_back(path);
  EXPECT_EQ(rec.count(ReportKind::kTruncatedFile) + rec.count(ReportKind::kReadError), 1u);
}

TEST(Source, SnaplenCutPacketsBecomeSnaplenGaps) {
  TempDir dir;
  const std::string path = dir.file("snap.pcapng");
  {
    std::ofstream f(path, std::ios::binary);
    CaptureWriter w(f, FileFormat::kPcapng, LinkType::kEthernet, 64);
    TcpSegmentSpec spec;
    spec.key = StreamKey{testing::kClient, testing::kServer};
    spec.flags = {.ack = true};
    for (std::uint32_t i = 0; i < 3; ++i) {
      const std::string payload(100, static_cast<char>('a' + i));
      spec.seq = SeqNum{1000 + i * 100};
      spec.payload = bytes_of(payload);
      const auto frame = build_ethernet({}, {}, ethertype::kIpv4, build_ip_tcp(spec));
      w.write(Timestamp{i}, wire::Bytes(frame).first(64), {}, static_cast<std::uint32_t>(frame.size()));
    }
  }
  Recorder rec = read_back(path);
  // 64 - 54 header octets = 10 stored of each 100.
  EXPECT_EQ(rec.text(testing::kC2S),
            std::string(10, 'a') + std::string(90, '?') + std::string(10, 'b') + std::string(90, '?') +
                std::string(10, 'c') + std::string(90, '?'));
  for (const StreamGap& g : rec.streams[testing::kC2S].gaps) EXPECT_EQ(g.cause, GapCause::kSnaplen);
}

TEST(Source, FileFilterKeepsWiresharkFrameNumbers) {
  TempDir dir;
  const std::string path = dir.file("filter.pcapng");
  {
    std::ofstream f(path, std::ios::binary);
    CaptureWriter w(f, FileFormat::kPcapng);
    record_exchange(w, "abc", "def");
  }
  std::string error;
  auto src = PacketSource::open_file(path, "tcp src port 5000", error);
  ASSERT_TRUE(src) << error;
  RawFrame raw;
  ASSERT_EQ(src->next(raw), PacketSource::Next::kFrame);
  EXPECT_EQ(raw.number, FrameNumber{2}) << "the SYN-ACK is the file's second frame";
  EXPECT_FALSE(PacketSource::open_file(path, "this is not bpf", error));
  EXPECT_NE(error.find("BPF"), std::string::npos);
}

TEST(Source, TsharkReadsOurPcapngWithCommentsAndGoodChecksums) {
  if (run_command("command -v tshark").empty()) GTEST_SKIP() << "tshark not installed";
  TempDir dir;
  const std::string path = dir.file("tshark.pcapng");
  std::uint64_t frames = 0;
  {
    std::ofstream f(path, std::ios::binary);
    CaptureWriter w(f, FileFormat::kPcapng);
    record_exchange(w, pattern(2000, 4), "reply");
    frames = w.frames_written();
  }
  const std::string base = "tshark -n -r " + path + " -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE ";
  // Every frame: TCP with good IP and TCP checksums (status 1 = good).
  const std::string all = run_command(base + "-T fields -e frame.number 2>/dev/null | wc -l");
  const std::string good = run_command(base + "-Y 'ip.checksum.status == 1 && tcp.checksum.status == 1' -T fields -e frame.number 2>/dev/null | wc -l");
  EXPECT_EQ(std::stoul(all), frames) << all;
  EXPECT_EQ(std::stoi(good), std::stoi(all));
  const std::string comments = run_command(base + "-Y frame.comment -T fields -e frame.number -e frame.comment 2>/dev/null");
  EXPECT_NE(comments.find("MPA Request"), std::string::npos) << comments;
  EXPECT_NE(comments.find("MPA Reply"), std::string::npos) << comments;
  // Wireshark's own TCP analysis finds nothing wrong with the synthesized connection.
  const std::string problems = run_command(base + "-Y 'tcp.analysis.flags && !tcp.analysis.window_update' 2>/dev/null");
  EXPECT_TRUE(problems.empty()) << problems;
  // Wireshark recognises the SMC-R experimental option in both SYNs.
  const std::string syn = run_command(base + "-Y 'tcp.flags.syn == 1' -V 2>/dev/null | grep -c 'Experiment Identifier: .*0xe2d4'");
  EXPECT_EQ(std::stoi(syn), 2) << syn;
}

TEST(Source, LiveCaptureOnLoopback) {
  if (::geteuid() != 0) GTEST_SKIP() << "live capture needs root";
  // A listening socket on 127.0.0.1, an ephemeral port, and a filter for it.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ASSERT_EQ(::listen(listener, 1), 0);
  const int port = ntohs(addr.sin_port);

  std::string error;
  LiveOptions options;
  options.timeout_ms = 50;
  auto src = PacketSource::open_live("lo", "tcp port " + std::to_string(port), options, error);
  if (!src) {
    ::close(listener);
    GTEST_SKIP() << "cannot capture on lo: " << error;
  }
  const std::string message = pattern(10000, 5);
  std::thread peer([&] {
    const int c = ::socket(AF_INET, SOCK_STREAM, 0);
    if (::connect(c, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      const int s = ::accept(listener, nullptr, nullptr);
      (void)!::write(c, message.data(), message.size());
      ::shutdown(c, SHUT_WR);
      char buf[4096];
      while (::read(s, buf, sizeof buf) > 0) {
      }
      ::close(s);
    }
    ::close(c);
  });

  Recorder rec;
  Reassembler ra(rec);
  const std::string key_prefix = "127.0.0.1:";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  RawFrame raw;
  auto done = [&] {
    for (auto& [key, s] : rec.streams)
      if (s.ended && s.bytes.size() == message.size()) return true;
    return false;
  };
  while (std::chrono::steady_clock::now() < deadline && !done()) {
    const auto n = src->next(raw);
    if (n == PacketSource::Next::kFrame) ra.add_frame(raw);
    if (n == PacketSource::Next::kEnd || n == PacketSource::Next::kError) break;
  }
  peer.join();
  ::close(listener);
  ra.finish();
  bool found = false;
  for (auto& [key, s] : rec.streams)
    if (key.rfind(key_prefix, 0) == 0 && std::string(s.bytes.begin(), s.bytes.end()) == message) found = true;
  EXPECT_TRUE(found) << "the client's bytes, reassembled from a live capture";
}

}  // namespace
}  // namespace rdmaconf::capture
