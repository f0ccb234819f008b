// RFC 7609 §4.8.1 end to end (check::fin_after_smc_close): in Linux's
// SMC-Rv2 capture (captures/real/smc-r-v2.pcap) each client shuts down
// writing first: its CDC message with PeerDoneWriting (frames 140, 298), then
// its TCP FIN (141, 299), and its PeerConnectionClosed only after the
// server's. SMC-R's end of writing comes before TCP's, as the section's
// design point asks. The crafted capture is the same file with each client
// FIN moved to just before that client's PeerDoneWriting: the capture case
// capture-smc-fin-after-close's failing subject, written to
// pcap/tests/captures/crafted/ (RDMACONF_WRITE_CRAFTED=1 writes it anew).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

#include "analysis/analyzer.hpp"
#include "capture/decode.hpp"
#include "capture/source.hpp"
#include "capture/writer.hpp"

namespace rdmaconf::analysis::testing {
namespace {

constexpr std::string_view kRule = "rfc7609-4.8.1-fin-after-smc-close";

struct Frame {
  capture::Timestamp time;
  std::vector<std::uint8_t> octets;
};

class NoReports : public capture::ReportSink {
 public:
  void on_report(const capture::Report&) override {}
};

// The frames of a capture, in order.
std::vector<Frame> frames_of(const std::string& path) {
  std::string error;
  auto src = capture::PacketSource::open_file(path, "", error);
  EXPECT_TRUE(src) << error;
  std::vector<Frame> out;
  capture::RawFrame f;
  while (src && src->next(f) == capture::PacketSource::Next::kFrame)
    out.push_back({f.time, std::vector<std::uint8_t>(f.captured.begin(), f.captured.end())});
  return out;
}

// The capture with each frame of `moves` (first: 1-based number) written
// just after the frame of its second instead of in its place.
std::string moved(const std::vector<Frame>& frames, const std::vector<std::pair<std::size_t, std::size_t>>& moves,
                  const std::string& name) {
  std::ostringstream out;
  capture::CaptureWriter w(out, capture::FileFormat::kPcapng);
  for (std::size_t n = 1; n <= frames.size(); ++n) {
    bool skip = false;
    for (const auto& [from, after] : moves) skip = skip || n == from;
    if (skip) continue;
    w.write(frames[n - 1].time, frames[n - 1].octets);
    for (const auto& [from, after] : moves)
      if (n == after) w.write(capture::Timestamp{frames[n - 1].time.ns + 1000}, frames[from - 1].octets);
  }
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary) << out.str();
  return path;
}

std::string real_capture() { return std::string(RDMACONF_REAL_CAPTURES) + "/smc-r-v2.pcap"; }

// Frames 141 and 299 are the clients' FINs (ports 38052, 38054); frames 140
// and 298 their CDC messages with PeerDoneWriting, after RC Acknowledges
// (139, 297).
std::string fin_before_done_writing(const std::string& name) {
  const auto frames = frames_of(real_capture());
  EXPECT_GE(frames.size(), 304u);
  if (frames.size() < 304) return {};
  NoReports quiet;
  for (const auto& [n, port] : {std::pair<std::size_t, std::uint16_t>{141, 38052}, {299, 38054}}) {
    capture::RawFrame raw;
    raw.number = capture::FrameNumber{n};
    raw.captured = frames[n - 1].octets;
    raw.original_length = static_cast<std::uint32_t>(frames[n - 1].octets.size());
    const auto fin = capture::decode_frame(raw, quiet);
    EXPECT_TRUE(fin && fin->flags.fin && fin->key.source.port == port) << "frame " << n << " is not a client's FIN";
  }
  return moved(frames, {{141, 139}, {299, 297}}, name);
}

struct Broken {
  std::uint64_t count = 0;
  std::vector<std::uint64_t> frames;
};

Broken broken(const std::string& path) {
  std::string error;
  const auto r = analyze_file(path, AnalysisOptions{}, nullptr, error);
  EXPECT_TRUE(r.has_value()) << error;
  if (!r) return {};
  Broken b;
  const auto it = r->summary.violations_per_rule.find(std::string(kRule));
  b.count = it == r->summary.violations_per_rule.end() ? 0 : it->second;
  for (const ViolationRecord& v : r->violations)
    if (v.rule->id == kRule) b.frames.push_back(v.frame);
  return b;
}

TEST(SmcFinCaptures, LinuxsClientFinsFollowTheirPeerDoneWriting) {
  EXPECT_EQ(broken(real_capture()).count, 0u);
}

// Moved ahead of the CDC message that ends the client's writing, each FIN
// breaks the rule (in the crafted capture the FINs are frames 140 and 298).
TEST(SmcFinCaptures, AFinBeforeTheEndOfWritingBreaksTheRule) {
  EXPECT_EQ(broken(fin_before_done_writing("smc-fin-before-done-writing.pcapng")).frames,
            (std::vector<std::uint64_t>{140, 298}));
}

// Without the link group's RoCE packets the capture cannot settle it: the
// same FINs in the capture's TCP frames alone are not judged.
TEST(SmcFinCaptures, NothingIsJudgedWithoutTheLinkGroup) {
  const auto frames = frames_of(real_capture());
  NoReports quiet;
  std::ostringstream out;
  capture::CaptureWriter w(out, capture::FileFormat::kPcapng);
  std::size_t kept = 0;
  for (const Frame& f : frames) {
    capture::RawFrame raw;
    raw.captured = f.octets;
    raw.original_length = static_cast<std::uint32_t>(f.octets.size());
    if (!capture::decode_frame(raw, quiet)) continue;  // not TCP: the RoCEv2 datagrams
    w.write(f.time, f.octets);
    ++kept;
  }
  EXPECT_EQ(kept, 25u);  // the capture's TCP frames
  const std::string path = ::testing::TempDir() + "smc-r-v2-tcp.pcapng";
  std::ofstream(path, std::ios::binary) << out.str();
  EXPECT_EQ(broken(path).count, 0u);
}

TEST(SmcFinCaptures, TheCraftedCaptureIsTheBuildersOutput) {
  const std::string built = fin_before_done_writing("crafted-smc-fin-before-done-writing.pcapng");
  const std::string committed = std::string(RDMACONF_TEST_CAPTURES) + "/crafted/smc-fin-before-done-writing.pcapng";
  auto octets = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  if (std::getenv("RDMACONF_WRITE_CRAFTED") != nullptr) {
    std::ofstream(committed, std::ios::binary) << octets(built);
    return;
  }
  EXPECT_EQ(octets(committed), octets(built)) << committed << " is not what its builder writes";
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
