// Captures of real Linux traffic (captures/real/, see its README): siw
// (soft-iWARP) with rping, perftest and librdmacm, raw MPA Requests answered
// by siw, SMC-Rv2 over soft-RoCE, SMC Declines and fallbacks. For each file:
// the message counts per RDMAP opcode and per CLC type that `analyze` and
// `decode` report equal the counts read by hand from the octets (and agreed
// by tshark's own dissectors), and the violations are exactly the real
// deviations (docs/interop.md), pinned by rule, frame and count.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analyzer.hpp"

namespace rdmaconf::analysis::testing {
namespace {

struct Expected {
  std::string file;
  std::uint64_t frames, mpa_connections, clc_connections, fpdus;
  std::map<std::string, std::uint64_t> messages;   // analyze: complete messages per RDMAP opcode / CLC type
  std::map<std::string, std::uint64_t> segments;   // decode --json: units per type (an FPDU each)
  std::vector<std::pair<std::string, std::uint64_t>> violations;  // (rule id, frame), in order
};

// RDMAP opcode names as RFC 5040 §4.3 gives them (rdmap/opcodes.hpp).
const std::vector<Expected>& expected() {
  static const std::vector<Expected> k = {
      // 3 rping iterations: Send, Read Request, Read Response, Send, Send, Write, Send; no CRC.
      {"siw-rping-mpav2.pcap", 35, 1, 0, 21,
       {{"RDMA Write", 3}, {"RDMA Read Request", 3}, {"RDMA Read Response", 3}, {"Send", 12}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 3}, {"RDMA Read Request", 3},
        {"RDMA Read Response", 3}, {"Send", 12}},
       {}},
      // The same with CRC: all 21 CRC32c values check.
      {"siw-rping-mpav2-crc.pcap", 34, 1, 0, 21,
       {{"RDMA Write", 3}, {"RDMA Read Request", 3}, {"RDMA Read Response", 3}, {"Send", 12}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 3}, {"RDMA Read Request", 3},
        {"RDMA Read Response", 3}, {"Send", 12}},
       {}},
      // Peer-to-peer: a zero-length RDMA Write as RTR first (RFC 6581 §9.2).
      {"siw-rping-mpav2-p2p.pcap", 38, 1, 0, 22,
       {{"RDMA Write", 4}, {"RDMA Read Request", 3}, {"RDMA Read Response", 3}, {"Send", 12}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 4}, {"RDMA Read Request", 3},
        {"RDMA Read Response", 3}, {"Send", 12}},
       {}},
      {"siw-rping-mpav1.pcap", 11, 1, 0, 1, {{"Send", 1}}, {{"MPA Request", 1}, {"MPA Reply", 1}, {"Send", 1}}, {}},
      {"siw-rdma-server-client.pcap", 12, 1, 0, 2, {{"Send", 2}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"Send", 2}}, {}},
      // A Request with M set, rejected by siw (R set in the Reply): no FPDU.
      {"siw-mpa-reject-markers.pcap", 11, 1, 0, 0, {}, {{"MPA Request", 1}, {"MPA Reply (reject)", 1}}, {}},
      // The raw test client's key "MPA ID Bad Frame" (RFC 5044 §7.1.1); siw closes.
      {"siw-mpa-bad-key.pcap", 9, 1, 0, 0, {}, {}, {{"rfc5044-7.1.1-key-reply", 4}}},
      // ib_read_bw: 50 Read Requests, each answered by 3 Read Response
      // segments; 32 Sends. siw's 2-octet Sends carry PAD 00 40 (RFC 5044 §4.1).
      {"siw-perftest-read-bw.pcap", 341, 2, 0, 232,
       {{"RDMA Read Request", 50}, {"RDMA Read Response", 50}, {"Send", 32}},
       {{"MPA Request", 2}, {"MPA Reply", 2}, {"RDMA Read Request", 50}, {"RDMA Read Response", 150}, {"Send", 32}},
       {{"rfc5044-4.1-pad-zero", 14}, {"rfc5044-4.1-pad-zero", 15}}},
      // SMC-Rv2 Proposals offering no v1 path: their v1 Peer ID, GID and MAC
      // are zero and unused, which is no violation.
      {"smc-r-v2.pcap", 327, 0, 2, 0, {{"Proposal", 2}, {"Accept", 2}, {"Confirm", 2}},
       {{"CLC Proposal", 2}, {"CLC Accept", 2}, {"CLC Confirm", 2}}, {}},
      {"smc-client-decline-no-pnet.pcap", 30, 0, 1, 0, {{"Decline", 1}}, {{"CLC Decline", 1}}, {}},
      // The server's SYN-ACK lacks the SMC option: no CLC message at all.
      {"smc-fallback-tcp-server.pcap", 39, 0, 0, 0, {}, {}, {}},
      // NFSv3 over RPC-over-RDMA (Linux client and server on siw): reads
      // come back as RDMA Writes into write chunks, replies into reply
      // chunks, WRITE data is pulled by RDMA Read (ulp_captures_test.cpp has
      // what the ULP said). The segments agree with tshark's iwarp_rdma.opcode.
      {"ulp-nfsv3-rdma.pcap", 1043, 1, 0, 664,
       {{"RDMA Write", 32}, {"RDMA Read Request", 2}, {"RDMA Read Response", 2}, {"Send", 81},
        {"Send with Invalidate", 5}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 300}, {"RDMA Read Request", 2},
        {"RDMA Read Response", 276}, {"Send", 81}, {"Send with Invalidate", 5}},
       {}},
      // iSER (LIO target, open-iscsi initiator on siw), the first 620 frames:
      // the cut falls inside the second RDMA Read Response, so no Read
      // Response is complete.
      {"ulp-iser-head.pcap", 620, 1, 0, 422,
       {{"RDMA Write", 59}, {"RDMA Read Request", 2}, {"Send", 61}, {"Send with Invalidate", 53}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 278}, {"RDMA Read Request", 2},
        {"RDMA Read Response", 18}, {"Send", 71}, {"Send with Invalidate", 53}},
       {}},
  };
  return k;
}

std::string path_of(const std::string& file) { return std::string(RDMACONF_REAL_CAPTURES) + "/" + file; }

const char* const kOpcodeNames[16] = {"RDMA Write", "RDMA Read Request", "RDMA Read Response", "Send",
                                      "Send with Invalidate", "Send with Solicited Event",
                                      "Send with Solicited Event and Invalidate", "Terminate", "Immediate Data",
                                      "Immediate Data with Solicited Event", "Atomic Request", "Atomic Response"};
const char* const kClcNames[5] = {nullptr, "Proposal", "Accept", "Confirm", "Decline"};

std::string run(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  status = pclose(p);
  return out;
}

std::size_t occurrences(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

class RealCapture : public ::testing::TestWithParam<Expected> {};

TEST_P(RealCapture, AnalyzeCountsAndViolations) {
  const Expected& e = GetParam();
  std::string error;
  const auto r = analyze_file(path_of(e.file), AnalysisOptions{}, nullptr, error);
  ASSERT_TRUE(r.has_value()) << error;
  const AnalysisSummary& s = r->summary;
  EXPECT_EQ(s.frames, e.frames);
  EXPECT_EQ(s.mpa_connections, e.mpa_connections);
  EXPECT_EQ(s.clc_connections, e.clc_connections);
  EXPECT_EQ(s.mpa_fpdus, e.fpdus);
  EXPECT_TRUE(r->clean_end);
  std::map<std::string, std::uint64_t> messages;
  for (std::size_t op = 0; op < 16; ++op)
    if (s.rdmap_messages[op]) messages[op < 12 ? kOpcodeNames[op] : "reserved"] += s.rdmap_messages[op];
  for (std::size_t t = 1; t < 5; ++t)
    if (s.clc_types[t]) messages[kClcNames[t]] = s.clc_types[t];
  EXPECT_EQ(messages, e.messages);
  std::vector<std::pair<std::string, std::uint64_t>> seen;
  for (const ViolationRecord& v : r->violations) seen.emplace_back(std::string(v.rule->id), v.frame);
  EXPECT_EQ(seen, e.violations);
  EXPECT_EQ(s.violations, e.violations.size());
}

TEST_P(RealCapture, DecodeCountsPerType) {
  const Expected& e = GetParam();
  int status = 0;
  const std::string json = run(std::string(RDMACONF_CLI) + " decode --json " + path_of(e.file), status);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::map<std::string, std::uint64_t> seen;
  for (std::size_t at = json.find("\"type\": \""); at != std::string::npos; at = json.find("\"type\": \"", at + 1)) {
    const std::size_t from = at + 9;
    seen[json.substr(from, json.find('"', from) - from)]++;
  }
  EXPECT_EQ(seen, e.segments) << json.substr(0, 2000);
}

INSTANTIATE_TEST_SUITE_P(Linux, RealCapture, ::testing::ValuesIn(expected()),
                         [](const ::testing::TestParamInfo<Expected>& i) {
                           std::string n = i.param.file.substr(0, i.param.file.find('.'));
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// The deviations carry what a vendor engineer needs: the octets and the rule.
TEST(RealCaptureMessages, SiwPadOctetsAreShown) {
  std::string error;
  const auto r = analyze_file(path_of("siw-perftest-read-bw.pcap"), AnalysisOptions{}, nullptr, error);
  ASSERT_TRUE(r.has_value()) << error;
  ASSERT_EQ(r->violations.size(), 2u);
  EXPECT_NE(r->violations[0].text.find("PAD 00:40 after a 20-octet ULPDU"), std::string::npos)
      << r->violations[0].text;
  EXPECT_EQ(r->violations[0].rule->level, Level::kMust);
}

TEST(RealCaptureMessages, AnalyzeExitCodeFollowsTheMustViolations) {
  int status = 0;
  run(std::string(RDMACONF_CLI) + " analyze -q " + path_of("smc-r-v2.pcap"), status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  run(std::string(RDMACONF_CLI) + " analyze -q " + path_of("siw-perftest-read-bw.pcap"), status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string json =
      run(std::string(RDMACONF_CLI) + " analyze -q --json - " + path_of("siw-perftest-read-bw.pcap"), status);
  EXPECT_EQ(occurrences(json, "\"rule\": \"rfc5044-4.1-pad-zero\""), 2u) << json;
}

// A file cut inside a packet record: everything before the cut is reported,
// and the exit code is 2, as tshark's (docs/capture.md).
TEST(RealCaptureMessages, TruncatedFileIsReportedAndExitsTwo) {
  std::ifstream in(path_of("siw-perftest-read-bw.pcap"), std::ios::binary);
  std::string octets((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = ::testing::TempDir() + "real-truncated.pcap";
  std::ofstream(cut, std::ios::binary) << octets.substr(0, 3000);
  int status = 0;
  const std::string text = run(std::string(RDMACONF_CLI) + " analyze " + cut + " 2>&1", status);
  EXPECT_EQ(WEXITSTATUS(status), 2) << text;
  EXPECT_NE(text.find("did not end cleanly"), std::string::npos) << text;
  EXPECT_NE(text.find("frame 14 "), std::string::npos) << "violations before the cut are still reported:\n" << text;
  const std::string json = run(std::string(RDMACONF_CLI) + " analyze -q --json - " + cut + " 2>/dev/null", status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(json.find("\"clean_end\": false"), std::string::npos) << json;
  const std::string decoded = run(std::string(RDMACONF_CLI) + " decode " + cut + " 2>&1", status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(decoded.find("MPA Request"), std::string::npos) << decoded;
  // The whole file is clean.
  run(std::string(RDMACONF_CLI) + " decode " + path_of("siw-perftest-read-bw.pcap") + " >/dev/null", status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// --annotate rewrites a file's frames: with -i it is refused at once, before
// any interface is opened (no privilege needed to see the message).
TEST(RealCaptureMessages, AnnotateWithLiveInputIsAClearError) {
  int status = 0;
  const std::string text =
      run(std::string(RDMACONF_CLI) + " analyze -i lo --duration 1 --annotate /dev/null 2>&1", status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(text.find("--annotate needs a capture file"), std::string::npos) << text;
  EXPECT_EQ(text.find("capturing on"), std::string::npos) << text;
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
