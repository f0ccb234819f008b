// How MPA senders cut their FPDUs into TCP segments (reference/check/
// mpa_tcp.hpp: RFC 5044 §4.5, §5.1) and what they send again, end to end:
// captures built here segment by segment of one MPA connection that keeps
// every rule, then one capture per rule that breaks it and nothing else.
// Each is analyzed as a file (libpcap reads it back) and must report its
// rule: without the rule the test fails. The builders also write the crafted
// captures of the catalogue's capture cases (pcap/tests/captures/crafted/).
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "check/mpa_tcp.hpp"
#include "run_command.hpp"

namespace rdmaconf::analysis::testing {
namespace {

// What one exchange gets wrong (nothing, by default).
struct TcpFlaws {
  bool oversized = false;       // an RDMA Write's FPDU longer than the MSS (§4.5)
  bool packed_cut = false;      // an FPDU packed behind a Send, its segment ending inside it (§5.1)
  bool opening_cut = false;     // an FPDU that opens a segment, continued in the next (§5.1)
  bool resent_differs = false;  // a retransmission carries one other octet (§5.1)
};

// One MPA connection (Rev 2, CRC, no Markers), both SYNs announcing an MSS
// of 1460 octets; the initiator's segments hold 1448 octets at most, as
// Linux's with TCP timestamps do. The segments are laid in the order the
// builder calls seg().
class Exchange {
 public:
  Exchange() : cap_(20000, 40000) {
    s_.start();
    cap_.handshake(false, false, 1460);
    const std::size_t req = s_.stream[0].size(), rep = s_.stream[1].size();
    seg(0, req);
    seg(1, rep);
  }
  // A Send (untagged, queue 0) whose FPDU is `octets` long (a multiple of 4:
  // no PAD), appended to the side's stream, not yet sent.
  void send(int side, std::size_t octets) {
    const std::uint32_t msn = msn_[side]++;
    s_.fpdu(side, send_msg(msn, filler(octets - kFpduOverhead - ddp::kUntaggedHeaderSize, static_cast<std::uint8_t>(msn))));
  }
  // An RDMA Write segment whose FPDU is `octets` long.
  void write(int side, std::uint64_t to, bool last, std::size_t octets) {
    s_.fpdu(side, tagged(0x0, 0x4400, to, last, filler(octets - kFpduOverhead - ddp::kTaggedHeaderSize, 3)));
  }
  // The side's next `n` octets in one segment.
  void seg(int side, std::size_t n) {
    cap_.segment(side, s_.stream[side], sent_[side], n);
    sent_[side] += n;
  }
  // Octets [from, from + n) of the side's stream sent again, with the
  // octet at `changed` (when set) altered.
  void resend(int side, std::size_t from, std::size_t n, std::optional<std::size_t> changed = std::nullopt) {
    Bytes again = s_.stream[side];
    if (changed) again[*changed] ^= 0x5a;
    cap_.segment(side, again, from, n);
  }
  std::size_t sent(int side) const { return sent_[side]; }
  std::string save(const std::string& name) {
    cap_.fin(0, s_.stream[0].size());
    cap_.fin(1, s_.stream[1].size());
    return cap_.save(name);
  }

 private:
  static constexpr std::size_t kFpduOverhead = mpa::kUlpduLengthSize + mpa::kCrcSize;
  Session s_;
  CaptureBuilder cap_;
  std::size_t sent_[2] = {0, 0};
  std::uint32_t msn_[2] = {1, 1};
};

std::string tcp_exchange(const TcpFlaws& f, const std::string& name) {
  Exchange x;
  // A full segment, then two Sends packed whole into one (§5.1 allows it).
  x.send(0, 1448);
  x.seg(0, 1448);
  const std::size_t packed_at = x.sent(0);
  x.send(0, 400);
  x.send(0, 200);
  x.seg(0, 600);
  x.send(1, 300);
  x.seg(1, 300);
  // A 1000-octet Send in a segment of its own, or cut after 600 octets.
  x.send(0, 1000);
  if (f.opening_cut) {
    x.seg(0, 600);
    x.seg(0, 400);
  } else {
    x.seg(0, 1000);
  }
  // A 400-octet Send and a 1000-octet one: each in its own segment, or the
  // second packed behind the first and cut at the segment's end.
  x.send(0, 400);
  x.send(0, 1000);
  x.seg(0, f.packed_cut ? 1000 : 400);
  x.seg(0, f.packed_cut ? 400 : 1000);
  // An RDMA Write of 1960 octets: two FPDUs sized to the segments, or one
  // FPDU longer than the MSS that TCP then cuts.
  if (f.oversized) {
    x.write(0, 0, true, 1980);
    x.seg(0, 1448);
    x.seg(0, 532);
  } else {
    x.write(0, 0, false, 1448);
    x.write(0, 1428, true, 552);
    x.seg(0, 1448);
    x.seg(0, 552);
  }
  // TCP sends the packed segment again: the same octets, or one changed.
  x.resend(0, packed_at, 600, f.resent_differs ? std::optional<std::size_t>(packed_at + 450) : std::nullopt);
  return x.save(name);
}

TEST(MpaTcpCaptures, TheExchangeKeepsEveryRule) {
  const AnalysisResult r = analyze(tcp_exchange({}, "mpa-tcp-good.pcapng"));
  EXPECT_EQ(r.summary.mpa_connections, 1u);
  EXPECT_EQ(r.summary.mpa_fpdus, 9u);
  EXPECT_EQ(r.summary.violations, 0u) << (r.violations.empty() ? "" : r.violations[0].text);
  EXPECT_EQ(r.summary.report_kinds.at("retransmission"), 1u);
}

TEST(MpaTcpCaptures, EachFlawBreaksItsRuleAlone) {
  struct Case {
    std::string rule;
    TcpFlaws flaws;
    std::string words;
  };
  const Case cases[] = {
      {"rfc5044-4.5-fpdu-fits-segment", {.oversized = true}, "FPDU of 1980 octets, longer than the 1460-octet MSS"},
      {"rfc5044-5.1-segment-alignment", {.packed_cut = true}, "packed at octet 400 of this 1000-octet segment"},
      {"rfc5044-5.1-no-splitting-small", {.opening_cut = true}, "opens this 600-octet segment ends in a later one"},
      {"rfc5044-5.1-retransmit-same", {.resent_differs = true}, ") sent again as 0x"},
  };
  int i = 0;
  for (const Case& k : cases) {
    const AnalysisResult r = analyze(tcp_exchange(k.flaws, "mpa-tcp-" + std::to_string(i++) + ".pcapng"));
    EXPECT_EQ(r.summary.violations_per_rule, (std::map<std::string, std::uint64_t>{{k.rule, 1}})) << k.rule;
    ASSERT_EQ(r.violations.size(), 1u) << k.rule;
    EXPECT_EQ(r.violations[0].side, Side::kInitiator);
    EXPECT_NE(r.violations[0].text.find(k.words), std::string::npos) << r.violations[0].text;
  }
}

// The retransmission names its sequence number, the octet and the frame of
// the first copy, in analyze's JSON as in its text.
TEST(MpaTcpCaptures, AConflictingRetransmissionIsReportedAsTheOthers) {
  const std::string path = tcp_exchange({.resent_differs = true}, "mpa-tcp-resent.pcapng");
  const AnalysisResult r = analyze(path);
  ASSERT_EQ(r.violations.size(), 1u);
  const ViolationRecord& v = r.violations[0];
  EXPECT_EQ(v.rule, &check::kRetransmitSame);
  // The ISN is 0x10000000; the packed segment starts after the Request
  // (20 + 4 octets of IRD/ORD) and the first 1448-octet segment.
  const std::uint64_t offset = 24 + 1448 + 450;
  EXPECT_EQ(v.stream_offset, offset);
  EXPECT_EQ(v.frame, 14u);
  EXPECT_NE(v.text.find("octet at sequence number " + std::to_string(0x10000000 + 1 + offset)), std::string::npos)
      << v.text;
  EXPECT_NE(v.text.find("first sent as 0x"), std::string::npos) << v.text;
  EXPECT_NE(v.text.find(" in frame 7"), std::string::npos) << v.text;  // the packed segment
  const std::string out = rdmaconf::testing::run_command(std::string(RDMACONF_CLI) + " analyze -q --json - " + path);
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["violations_per_rule"]["rfc5044-5.1-retransmit-same"], 1) << out;
  EXPECT_EQ(j["summary"]["must_violations"], 1) << out;
}

// The crafted captures the catalogue's capture cases name
// (conformance/cases/capture/mpa-*.capture, pcap/tests/captures/crafted/)
// are exactly what the builder above writes. RDMACONF_WRITE_CRAFTED=1
// writes them anew (after the builder changed) instead of comparing.
TEST(MpaTcpCaptures, TheCraftedCapturesAreTheBuildersOutput) {
  const std::pair<std::string, TcpFlaws> made[] = {
      {"mpa-tcp-keeps-every-rule.pcapng", {}},
      {"mpa-tcp-fpdu-fits-segment.pcapng", {.oversized = true}},
      {"mpa-tcp-segment-alignment.pcapng", {.packed_cut = true}},
      {"mpa-tcp-no-splitting-small.pcapng", {.opening_cut = true}},
      {"mpa-tcp-retransmit-same.pcapng", {.resent_differs = true}},
  };
  auto octets = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const bool write = std::getenv("RDMACONF_WRITE_CRAFTED") != nullptr;
  for (const auto& [name, flaws] : made) {
    const std::string built = tcp_exchange(flaws, "crafted-" + name);
    const std::string committed = std::string(RDMACONF_TEST_CAPTURES) + "/crafted/" + name;
    if (write) {
      std::ofstream(committed, std::ios::binary) << octets(built);
      continue;
    }
    EXPECT_EQ(octets(committed), octets(built)) << committed << " is not what its builder writes (see above)";
  }
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
