// `analyze -j N` (analysis/parallel.hpp) gives the one-thread result: the
// same JSON (summary, counts, violations in the same order with the same
// connection numbers) on every capture the project holds, and on captures
// that mix several of them frame by frame, so that connections of every
// kind (MPA, CLC, SMC-R over RoCEv2, ULPs, mid-connection starts) share
// the workers at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "analysis/analyzer.hpp"
#include "analysis/parallel.hpp"
#include "capture/source.hpp"
#include "capture/writer.hpp"
#include "run_command.hpp"

namespace rdmaconf::analysis {
namespace {

namespace fs = std::filesystem;

std::string json_of(const std::string& path, std::size_t jobs, std::size_t max_kept = 100000) {
  AnalysisOptions options;
  options.observer.report_fpdus = false;  // as `rdmaconf analyze` runs
  options.jobs = jobs;
  options.max_violations_kept = max_kept;
  std::string error;
  const auto result = analyze_file(path, options, nullptr, error);
  if (!result) return "error: " + error;
  std::ostringstream out;
  write_json(out, *result, "capture");
  return out.str();
}

// analyze_shared_file itself, with `options` (the reading forced, say):
// "not shared" for a file it does not take, "gave up" when it gives up.
std::string json_of_split(const std::string& path, const AnalysisOptions& options, std::size_t chunk_octets = 0) {
  std::string error;
  auto source = capture::PacketSource::open_file(path, "", error);
  if (!source) return "error: " + error;
  const auto file = source->share_file(chunk_octets);
  if (!file) return "not shared";
  const auto result = analyze_shared_file(*file, options);
  if (!result) return "gave up";
  std::ostringstream out;
  write_json(out, *result, "capture");
  return out.str();
}

std::vector<std::string> files_under(const fs::path& dir, bool any_name) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (any_name ? ext != ".md" : (ext == ".pcap" || ext == ".pcapng")) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

const fs::path kSource = fs::path(RDMACONF_TEST_CAPTURES).parent_path().parent_path().parent_path();

TEST(AnalysisParallel, EveryCaptureOfTheProjectAsOneThreadSeesIt) {
  std::vector<std::string> files = files_under(RDMACONF_TEST_CAPTURES, false);
  for (const auto& f : files_under(kSource / "ci" / "interop" / "captures", false)) files.push_back(f);
  for (const auto& f : files_under(kSource / "dissector" / "tests", false)) files.push_back(f);
  ASSERT_GE(files.size(), 40u);
  std::size_t with_violations = 0;
  for (const std::string& f : files) {
    const std::string one = json_of(f, 1);
    ASSERT_EQ(one.rfind("error", 0), std::string::npos) << f << ": " << one;
    if (one.find("\"violations\": []") == std::string::npos) ++with_violations;
    for (std::size_t jobs : {2u, 3u, 5u}) EXPECT_EQ(json_of(f, jobs), one) << f << " with " << jobs << " workers";
    // Only the first violations kept: the same first ones.
    EXPECT_EQ(json_of(f, 3, 2), json_of(f, 1, 2)) << f;
  }
  EXPECT_GE(with_violations, 20u);
}

// The capture_file fuzz corpus: damaged and odd files, read the same.
TEST(AnalysisParallel, FuzzCorpusOfCaptureFilesAsOneThreadSeesIt) {
  const std::vector<std::string> files = files_under(kSource / "fuzz" / "corpus" / "capture_file", true);
  ASSERT_GE(files.size(), 100u);
  for (const std::string& f : files) {
    EXPECT_EQ(json_of(f, 2), json_of(f, 1)) << f;
    // A connection's callbacks held until its worker is chosen run after
    // later ones: the first two violations are still the first two.
    EXPECT_EQ(json_of(f, 2, 2), json_of(f, 1, 2)) << f;
    // Both ways of reading, whichever the timing would pick, on the files
    // analyze reads and the split takes (analyze_file reads the others
    // another way).
    const std::string one = json_of(f, 1);
    if (one.rfind("error: ", 0) == 0) continue;
    for (const auto how : {capture::SharedPcapFile::Reading::kMapped, capture::SharedPcapFile::Reading::kCopied}) {
      AnalysisOptions options;
      options.observer.report_fpdus = false;
      options.jobs = 2;
      options.file_reading = how;
      const std::string split = json_of_split(f, options);
      if (split == "not shared" || split == "gave up") continue;
      EXPECT_EQ(split, one) << f << ", copied " << (how == capture::SharedPcapFile::Reading::kCopied);
    }
  }
}

// Every Ethernet capture of captures/real/ in one file, their frames taken
// in turn: many connections of every kind at once.
using Frames = std::vector<std::pair<capture::Timestamp, std::vector<std::uint8_t>>>;

// The frames of `inputs` taken in turn, `rounds` times over.
void write_mixed(const fs::path& path, capture::FileFormat format, int rounds, const std::vector<Frames>& inputs,
                 capture::LinkType link = capture::LinkType::kEthernet) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  capture::CaptureWriter writer(out, format, link);
  for (int round = 0; round < rounds; ++round)
    for (std::size_t i = 0;; ++i) {
      bool any = false;
      for (const auto& frames : inputs)
        if (i < frames.size()) {
          writer.write(frames[i].first, frames[i].second);
          any = true;
        }
      if (!any) break;
    }
  ASSERT_TRUE(writer.ok());
}

std::vector<Frames> real_ethernet_captures() {
  std::vector<Frames> inputs;
  for (const std::string& f : files_under(fs::path(RDMACONF_TEST_CAPTURES) / "real", false)) {
    std::string error;
    auto source = capture::PacketSource::open_file(f, "", error);
    EXPECT_TRUE(source) << error;
    if (!source) continue;
    if (source->link_type() != capture::LinkType::kEthernet) continue;
    auto& frames = inputs.emplace_back();
    capture::RawFrame frame;
    while (source->next(frame) == capture::PacketSource::Next::kFrame)
      frames.emplace_back(frame.time, std::vector<std::uint8_t>(frame.captured.begin(), frame.captured.end()));
  }
  return inputs;
}

TEST(AnalysisParallel, MixedCapturesAsOneThreadSeesThem) {
  const std::vector<Frames> inputs = real_ethernet_captures();
  ASSERT_GE(inputs.size(), 8u);
  // pcapng goes through libpcap (octets copied into the batches); classic
  // pcap through the in-place reader, the mix four times over (about 8 MB:
  // several read windows, which the workers hold while the reader goes on).
  for (const auto& [format, rounds] : {std::pair{capture::FileFormat::kPcapng, 1}, {capture::FileFormat::kPcap, 4}}) {
    const fs::path mixed = fs::temp_directory_path() / ("rdmaconf-parallel-mixed-" + std::to_string(::getpid()) +
                                                         (format == capture::FileFormat::kPcap ? ".pcap" : ".pcapng"));
    write_mixed(mixed, format, rounds, inputs);
    const std::string one = json_of(mixed.string(), 1);
    EXPECT_EQ(one.find("\"roce_packets\":0,"), std::string::npos) << "the mix holds SMC-R over RoCEv2";
    for (std::size_t jobs : {2u, 4u}) EXPECT_EQ(json_of(mixed.string(), jobs), one) << jobs << " workers, " << mixed;
    fs::remove(mixed);
  }
}

// The frames of the real Ethernet captures without SMC or SCTP.
std::vector<Frames> real_tcp_captures_without_smc() {
  std::vector<Frames> inputs;
  for (const std::string& f : files_under(fs::path(RDMACONF_TEST_CAPTURES) / "real", false)) {
    const std::string name = fs::path(f).filename().string();
    if (name.rfind("smc", 0) == 0 || name.find("sctp") != std::string::npos) continue;
    std::string error;
    auto source = capture::PacketSource::open_file(f, "", error);
    EXPECT_TRUE(source) << error;
    if (!source || source->link_type() != capture::LinkType::kEthernet) continue;
    auto& frames = inputs.emplace_back();
    capture::RawFrame frame;
    while (source->next(frame) == capture::PacketSource::Next::kFrame)
      frames.emplace_back(frame.time, std::vector<std::uint8_t>(frame.captured.begin(), frame.captured.end()));
  }
  return inputs;
}

// analyze_shared_file (the path `analyze -j N` takes for a classic pcap
// file: every worker reads and walks stretches of the file and reassembles
// and analyzes its own connections' frames), on the real captures without
// SMC or SCTP mixed frame by frame, four times over (each round opens the
// same connections again: new ISNs on known ports). It must split the
// capture (not give up) and give the one-thread JSON, with every violation
// kept and with two.
TEST(AnalysisParallel, FileSplitOverWorkersAsOneThreadSeesIt) {
  const std::vector<Frames> inputs = real_tcp_captures_without_smc();
  ASSERT_GE(inputs.size(), 8u);
  const fs::path mixed = fs::temp_directory_path() / ("rdmaconf-parallel-split-" + std::to_string(::getpid()) + ".pcap");
  write_mixed(mixed, capture::FileFormat::kPcap, 4, inputs);
  for (std::size_t kept : {std::size_t{100000}, std::size_t{2}}) {
    const std::string one = json_of(mixed.string(), 1, kept);
    EXPECT_EQ(one.find("\"violations\": []"), std::string::npos) << "the mix breaks rules";
    for (std::size_t jobs : {2u, 3u, 7u}) {
      AnalysisOptions options;
      options.observer.report_fpdus = false;
      options.jobs = jobs;
      options.max_violations_kept = kept;
      // Read in chunks of 512 KiB, and of 4 KiB (many frames cut at a chunk's end, some longer than one),
      // through the mapping and copied.
      for (const auto how : {capture::SharedPcapFile::Reading::kMapped, capture::SharedPcapFile::Reading::kCopied}) {
        options.file_reading = how;
        for (std::size_t chunk : {std::size_t{0}, std::size_t{4096}})
          EXPECT_EQ(json_of_split(mixed.string(), options, chunk), one)
              << jobs << " workers, " << kept << " kept, chunk " << chunk << ", copied " << (how == capture::SharedPcapFile::Reading::kCopied);
      }
    }
  }
  fs::remove(mixed);
}

// Frames the reader cannot key from their headers alone
// (capture::tcp_key_of reads Ethernet, Linux cooked and raw IP, not BSD
// loopback): it decodes them to find their connection, and the worker
// decodes them again with their reports. The same real captures as above,
// their Ethernet headers turned into LINKTYPE_NULL's family word: many
// connections, more than one chunk per worker, every frame handed
// that way. The split must not give up and must give the one-thread JSON.
TEST(AnalysisParallel, FileSplitHandsFramesItCannotKeyToTheirWorker) {
  std::vector<Frames> inputs = real_tcp_captures_without_smc();
  ASSERT_GE(inputs.size(), 8u);
  std::size_t turned = 0;
  for (Frames& frames : inputs)
    for (auto& [time, octets] : frames) {
      // Ethernet II (14 octets, EtherType at 12) carrying IPv4 or IPv6;
      // a frame of any other kind is left as it is (reported alike by both).
      const bool v4 = octets.size() >= 14 && octets[12] == 0x08 && octets[13] == 0x00;
      const bool v6 = octets.size() >= 14 && octets[12] == 0x86 && octets[13] == 0xdd;
      if (!v4 && !v6) continue;
      // BSD loopback's family word, big-endian: AF_INET 2, an AF_INET6 24.
      std::vector<std::uint8_t> null{0, 0, 0, static_cast<std::uint8_t>(v4 ? 2 : 24)};
      null.insert(null.end(), octets.begin() + 14, octets.end());
      octets = std::move(null);
      ++turned;
    }
  ASSERT_GT(turned, 1000u);
  const fs::path mixed = fs::temp_directory_path() / ("rdmaconf-parallel-null-" + std::to_string(::getpid()) + ".pcap");
  write_mixed(mixed, capture::FileFormat::kPcap, 4, inputs, capture::LinkType::kNull);
  ASSERT_GT(fs::file_size(mixed), std::uintmax_t{4} << 20);
  const std::string one = json_of(mixed.string(), 1);
  EXPECT_EQ(one.find("\"violations\": []"), std::string::npos) << "the mix breaks rules";
  EXPECT_EQ(one.find("\"mpa_connections\": 0,"), std::string::npos) << one.substr(0, 400);
  for (std::size_t jobs : {2u, 3u}) {
    AnalysisOptions options;
    options.observer.report_fpdus = false;
    options.jobs = jobs;
    options.max_violations_kept = 100000;
    EXPECT_EQ(json_of_split(mixed.string(), options), one) << jobs << " workers";
  }
  fs::remove(mixed);
}

// What the split cannot follow makes it give up (analyze_file then reads
// the file as before, with the same result): SMC-R and SCTP captures, and a
// shared reassembly budget that one worker's share of it cannot hold (the
// held-octet total, which these captures never fill, is the reassembler's
// held_total_hits: reassembly_test).
TEST(AnalysisParallel, FileSplitGivesUpWhereStateIsShared) {
  AnalysisOptions options;
  options.observer.report_fpdus = false;
  options.jobs = 2;
  const std::string real = std::string(RDMACONF_TEST_CAPTURES) + "/real/";
  for (const char* f : {"smc-r-v2.pcap", "smcd-loopback-ism.pcap", "smc-fallback-tcp-server.pcap"})
    EXPECT_EQ(json_of_split(real + f, options), "gave up") << f;

  const std::vector<Frames> inputs = real_tcp_captures_without_smc();
  const fs::path mixed = fs::temp_directory_path() / ("rdmaconf-parallel-budget-" + std::to_string(::getpid()) + ".pcap");
  write_mixed(mixed, capture::FileFormat::kPcap, 1, inputs);
  ASSERT_NE(json_of_split(mixed.string(), options).rfind("{", 0), std::string::npos);
  const auto one_thread = [&](const AnalysisOptions& o) {
    AnalysisOptions one = o;
    one.jobs = 1;
    std::string error;
    const auto r = analyze_file(mixed.string(), one, nullptr, error);
    std::ostringstream out;
    if (r) write_json(out, *r, "capture");
    return out.str();
  };
  const auto through_analyze_file = [&](const AnalysisOptions& o) {
    std::string error;
    const auto r = analyze_file(mixed.string(), o, nullptr, error);
    std::ostringstream out;
    if (r) write_json(out, *r, "capture");
    return out.str();
  };
  AnalysisOptions few_connections = options;
  few_connections.limits.max_connections = 4;  // the mix opens more at once
  AnalysisOptions little_history = options;
  little_history.limits.max_history_total = 3 * little_history.limits.history_per_stream;
  for (const auto& [name, o] : {std::pair{"connections", &few_connections}, {"history", &little_history}}) {
    EXPECT_EQ(json_of_split(mixed.string(), *o), "gave up") << name;
    EXPECT_EQ(through_analyze_file(*o), one_thread(*o)) << name;
  }
  fs::remove(mixed);
}

// The reading of -j N over a damaged classic pcap file of several
// windows and chunks ends where the one-thread read ends, with the same report: a
// record whose captured length runs past the end of the file, one whose
// length is absurd, a last record cut short. Both ways of reading: with
// SMC-R in the mix (ShardedAnalyzer over PacketSource::map_file) and
// without (analyze_shared_file over SharedPcapFile).
void expect_damaged_files_as_one_thread(const std::vector<Frames>& inputs, bool split) {
  const fs::path intact = fs::temp_directory_path() / ("rdmaconf-parallel-damaged-" + std::to_string(::getpid()) + ".pcap");
  write_mixed(intact, capture::FileFormat::kPcap, 4, inputs);
  std::vector<std::uint8_t> file;
  {
    std::ifstream in(intact, std::ios::binary);
    file.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(file.size(), std::size_t{6} << 20);
  // The record header at or after the middle of the file (pcap §4: 24
  // octets of file header, then 16 octets of record header before each
  // frame, its captured length at octet 8; CaptureWriter writes big-endian).
  const auto get32 = [&](std::size_t at) {
    return std::uint32_t{file[at]} << 24 | std::uint32_t{file[at + 1]} << 16 | std::uint32_t{file[at + 2]} << 8 |
           file[at + 3];
  };
  const auto set32 = [](std::vector<std::uint8_t>& f, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) f[at + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (24 - 8 * i));
  };
  std::size_t middle = 24;
  while (middle < file.size() / 2) middle += 16 + get32(middle + 8);
  const std::string whole = json_of(intact.string(), 1);
  const auto damaged = [&](const char* name, std::vector<std::uint8_t> octets) {
    const fs::path p = fs::path(intact).replace_extension(std::string(name) + ".pcap");
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(octets.data()),
                                                             static_cast<std::streamsize>(octets.size()));
    const std::string one = json_of(p.string(), 1);
    EXPECT_NE(one, whole) << name;
    for (std::size_t jobs : {2u, 3u}) {
      EXPECT_EQ(json_of(p.string(), jobs), one) << name << ", " << jobs << " workers";
      AnalysisOptions options;
      options.observer.report_fpdus = false;
      options.jobs = jobs;
      for (const auto how : {capture::SharedPcapFile::Reading::kMapped, capture::SharedPcapFile::Reading::kCopied}) {
        options.file_reading = how;
        for (std::size_t chunk : {std::size_t{0}, std::size_t{4096}})
          EXPECT_EQ(json_of_split(p.string(), options, chunk), split ? one : "gave up")
              << name << ", " << jobs << " workers, chunk " << chunk << ", copied " << (how == capture::SharedPcapFile::Reading::kCopied);
      }
    }
    fs::remove(p);
  };
  auto past_end = file;
  set32(past_end, middle + 8, static_cast<std::uint32_t>(file.size() - middle));  // 16 octets past the end
  damaged("past-end", past_end);
  auto absurd = file;
  set32(absurd, middle + 8, 0x7fffffff);
  damaged("absurd", absurd);
  auto cut = file;
  cut.resize(cut.size() - 5);
  damaged("cut", cut);
  fs::remove(intact);
}

TEST(AnalysisParallel, DamagedFileReadInPlaceAsOneThreadSeesIt) {
  const std::vector<Frames> with_smc = real_ethernet_captures();
  ASSERT_GE(with_smc.size(), 8u);
  expect_damaged_files_as_one_thread(with_smc, false);
  const std::vector<Frames> without = real_tcp_captures_without_smc();
  ASSERT_GE(without.size(), 8u);
  expect_damaged_files_as_one_thread(without, true);
}

// The command: -j 1 and -j 2 print the same; a folder is its capture files,
// read as one run with one summary (the counts of each file added up).
TEST(AnalysisParallel, CommandOverFilesAndFolders) {
  const std::string cli = RDMACONF_CLI;
  const std::string real = std::string(RDMACONF_TEST_CAPTURES) + "/real";
  const std::string one_file = real + "/ulp-nfsv3-rdma.pcap";
  EXPECT_EQ(testing::run_command(cli + " analyze -j 2 " + one_file + " 2>&1"),
            testing::run_command(cli + " analyze -j 1 " + one_file + " 2>&1"));
  int status = 0;
  const std::string folder = testing::run_command(cli + " analyze -q -j 2 --json - " + real, &status);
  EXPECT_EQ(WEXITSTATUS(status), 1);  // real captures break MUSTs
  const auto files = files_under(real, false);
  ASSERT_GE(files.size(), 10u);
  std::uint64_t frames = 0, violations = 0;
  const auto number = [](const std::string& json, const std::string& key) {
    const auto at = json.find("\"" + key + "\":");
    return at == std::string::npos ? ~0ull : std::stoull(json.substr(at + key.size() + 3));
  };
  for (const std::string& f : files) {
    const std::string j = testing::run_command(cli + " analyze -q -j 1 --json - " + f);
    frames += number(j, "frames");
    violations += number(j, "violations");
  }
  EXPECT_EQ(number(folder, "frames"), frames);
  EXPECT_EQ(number(folder, "violations"), violations);
  EXPECT_NE(folder.find("\"captures\": [\"" + files.front() + "\""), std::string::npos);
  EXPECT_NE(folder.find("{\"capture\":\""), std::string::npos);  // each violation names its file
  // --annotate rewrites one file.
  testing::run_command(cli + " analyze -q " + real + " --annotate /dev/null 2>/dev/null", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

}  // namespace
}  // namespace rdmaconf::analysis
