// `rdmaconf run --reference --transport sctp --pcap DIR` records each case's
// association, and `rdmaconf analyze` on the recording agrees with the run
// (docs/sctp-ddp.md, "Captures"):
//
//   - every case that ran leaves DIR/<case>.pcapng holding one SCTP
//     association in IP protocol 132 that announces DDP, its Initiate and
//     Accept, and DDP segments;
//   - the rules the SCTP observer finds broken by the IUT's side there are
//     the case's rules broken in passing (none against the reference);
//   - with a fault of the reference, the rule the run judged in passing is
//     the one analyze finds in the capture, on the IUT's side, as often.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/analyzer.hpp"
#include "analysis/recording.hpp"

namespace rdmaconf::analysis::testing {
namespace {

namespace fs = std::filesystem;

struct SctpRecording {
  std::string dir;
  nlohmann::json report;  // the run's --json
  int exit_code = -1;
};

// One `rdmaconf run --reference --transport sctp` with --pcap and --json.
SctpRecording record_sctp_run(const std::string& name, const std::string& args) {
  SctpRecording out;
  out.dir = ::testing::TempDir() + name + "-" + std::to_string(::getpid());
  fs::remove_all(out.dir);
  const std::string cmd = std::string(RDMACONF_CLI) + " run --reference --transport sctp -q --time-scale 0.5 " + args +
                          " --pcap " + out.dir + " --json " + out.dir + ".json > " + out.dir + ".log 2>&1";
  const int status = std::system(cmd.c_str());
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(out.dir + ".json");
  out.report = nlohmann::json::parse(in, nullptr, false);
  return out;
}

struct SctpCaseView {
  AnalysisResult result;
  std::map<std::string, std::uint64_t> tester, iut;  // rule id: violations by each side
};

// The tester sends the INIT: the capture's initiator.
SctpCaseView analyze_sctp_case(const std::string& dir, const std::string& id) {
  SctpCaseView v;
  std::string error;
  auto result = analyze_file(case_capture_path(dir, id), AnalysisOptions{}, nullptr, error);
  EXPECT_TRUE(result) << id << ": " << error;
  if (!result) return v;
  v.result = std::move(*result);
  for (const ViolationRecord& x : v.result.violations)
    ++(x.side == Side::kInitiator ? v.tester : v.iut)[std::string(x.rule->id)];
  return v;
}

std::string rule_list(const std::map<std::string, std::uint64_t>& rules) {
  std::string out;
  for (const auto& [id, n] : rules) out += (out.empty() ? "" : " ") + id + "x" + std::to_string(n);
  return out;
}

TEST(RunRecordingSctp, EveryCaseThatRanIsOneDdpAssociationAndTheIutSideIsClean) {
  const SctpRecording r = record_sctp_run("run-sctp-pcap", "--suite ddp --suite rdmap");
  ASSERT_TRUE(r.report.is_object()) << "see " << r.dir << ".log";
  EXPECT_EQ(r.exit_code, 0) << "see " << r.dir << ".log";
  std::size_t ran = 0;
  for (const auto& c : r.report.at("cases")) {
    const std::string id = c.at("id");
    // Cases that rest on MPA or TCP never opened an association.
    if (c.at("verdict") == "unimplemented") continue;
    SCOPED_TRACE(id);
    ++ran;
    EXPECT_EQ(c.at("verdict"), "pass") << c.at("reason");
    ASSERT_TRUE(fs::exists(case_capture_path(r.dir, id)));
    const SctpCaseView v = analyze_sctp_case(r.dir, id);
    const AnalysisSummary& s = v.result.summary;
    EXPECT_EQ(s.streams, 0u);
    EXPECT_EQ(s.sctp_associations, 1u);
    EXPECT_EQ(s.sctp_ddp_associations, 1u);
    EXPECT_EQ(s.sctp_over_udp, 0u);
    EXPECT_EQ(s.sctp_bad_checksums, 0u);
    EXPECT_EQ(s.sctp_malformed, 0u);
    EXPECT_EQ(s.capture_reports, 0u);
    // The Initiate and the Accept at least; a case may end the session.
    EXPECT_GE(s.ddp_sctp_session_control, 2u);
    EXPECT_TRUE(v.iut.empty()) << "IUT side: " << rule_list(v.iut);
    EXPECT_TRUE(c.at("in_passing").empty());
  }
  // docs/sctp-ddp.md: 244 of the 265 run over SCTP.
  EXPECT_EQ(ran, 244u);
}

// The reference's fault `sctp-ordered-chunks` sends every chunk without U
// (RFC 5043 §10): the run fails the case in passing, and the capture shows
// the same rule broken by the IUT, once per chunk the run counted.
TEST(RunRecordingSctp, ARuleBrokenInPassingIsTheOneAnalyzeFindsInTheCapture) {
  const SctpRecording r =
      record_sctp_run("run-sctp-pcap-fault", "--case ddp-echo-msn-increment --fault sctp-ordered-chunks");
  ASSERT_TRUE(r.report.is_object()) << "see " << r.dir << ".log";
  EXPECT_EQ(r.exit_code, 1);
  ASSERT_EQ(r.report.at("cases").size(), 1u);
  const auto& c = r.report.at("cases")[0];
  EXPECT_EQ(c.at("verdict"), "fail");
  std::map<std::string, std::uint64_t> judged;
  for (const auto& p : c.at("in_passing")) judged[p.at("rule")] = p.at("count");
  ASSERT_EQ(judged.count("rfc5043-10-unordered"), 1u) << c.dump();
  const SctpCaseView v = analyze_sctp_case(r.dir, "ddp-echo-msn-increment");
  EXPECT_EQ(rule_list(v.iut), rule_list(judged));
  EXPECT_TRUE(v.tester.empty()) << rule_list(v.tester);
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
