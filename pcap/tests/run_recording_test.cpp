// `rdmaconf run --reference --pcap DIR` records every case; `analyze` on the
// recordings agrees with the run (docs/capture.md, "Recorded runs"):
//
//   - every case leaves DIR/<case>.pcapng holding one TCP connection (an
//     sctp case: one SCTP association, run_recording_sctp_test.cpp);
//   - the reference IUT passes every case, and no capture shows a violation
//     by the IUT's side, of any rule;
//   - a case that deliberately sends something malformed shows, on the
//     tester's side, exactly the observer rules that frame breaks (the
//     table below, one entry per kind of malformation), and a clean case
//     shows nothing on either side;
//   - what a passive observer cannot see is stated, not skipped: a stream
//     whose first octets are not an MPA key or a CLC eyecatcher is not
//     recognised as either protocol.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "analysis/analyzer.hpp"
#include "analysis/recording.hpp"
#include "engine/engine.hpp"

namespace rdmaconf::analysis::testing {
namespace {

namespace cf = conformance;
namespace fs = std::filesystem;

struct Recorded {
  std::map<std::string, const cf::Case*> cases;  // by id
  cf::Catalogue catalogue;
  std::string dir;
  int exit_code = -1;
};

// One run of the whole catalogue (under a second on loopback), shared.
const Recorded& recorded() {
  static const Recorded r = [] {
    Recorded out;
    out.catalogue = cf::load_catalogue(cf::default_cases_dir());
    for (const cf::Case& c : out.catalogue.cases) out.cases[c.id] = &c;
    // One folder per test process: ctest runs this file's tests in
    // parallel processes, each making its own recording.
    out.dir = ::testing::TempDir() + "run-pcap-" + std::to_string(::getpid());
    fs::remove_all(out.dir);
    const std::string cmd = std::string(RDMACONF_CLI) + " run --reference -q --time-scale 0.5 --pcap " + out.dir +
                            " > " + out.dir + ".log 2>&1";
    const int status = std::system(cmd.c_str());
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return out;
  }();
  return r;
}

struct Verdicts {
  AnalysisResult result;
  std::set<std::string> tester, iut;  // rule ids violated by each side
};

Verdicts analyze_case(const Recorded& r, const cf::Case& c) {
  Verdicts v;
  std::string error;
  auto result = analyze_file(case_capture_path(r.dir, c.id), AnalysisOptions{}, nullptr, error);
  EXPECT_TRUE(result) << c.id << ": " << error;
  if (!result) return v;
  v.result = std::move(*result);
  // The tester opened the connection when the IUT plays the responder; it
  // sends the INIT of every sctp case's association, whatever the role.
  const Side tester = c.role == cf::Role::kResponder || c.protocol == "sctp" ? Side::kInitiator : Side::kResponder;
  for (const ViolationRecord& x : v.result.violations) (x.side == tester ? v.tester : v.iut).insert(std::string(x.rule->id));
  return v;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : ", ") + x;
  return "{" + out + "}";
}

TEST(RunRecording, EveryCaseIsRecordedAndTheIutSideIsClean) {
  const Recorded& r = recorded();
  ASSERT_TRUE(r.catalogue.errors.empty());
  ASSERT_GT(r.cases.size(), 100u);
  EXPECT_EQ(r.exit_code, 0) << "the reference must pass every case; see " << r.dir << ".log";
  for (const auto& [id, c] : r.cases) {
    SCOPED_TRACE(id);
    ASSERT_TRUE(fs::exists(case_capture_path(r.dir, id)));
    const Verdicts v = analyze_case(r, *c);
    if (c->protocol == "sctp") {
      // One association (docs/sctp-ddp.md), no TCP.
      EXPECT_EQ(v.result.summary.sctp_associations, 1u);
      EXPECT_EQ(v.result.summary.streams, 0u);
    } else {
      EXPECT_EQ(v.result.summary.streams, 1u);
      EXPECT_TRUE(v.result.clean_end);
    }
    // The capture layer has nothing to say beyond an IUT's reset (a
    // malformed CLC message is answered with one, RFC 7609 App. C.6).
    for (const auto& [kind, n] : v.result.summary.report_kinds) EXPECT_EQ(kind, "reset") << n;
    EXPECT_TRUE(v.iut.empty()) << "IUT side: " << join(v.iut);
    EXPECT_EQ(v.result.summary.resyncs, 0u);
  }
}

// The tester's deliberate malformation, as the observer names it. One case
// per kind; every other case of the catalogue is still covered by the test
// above (nothing on the IUT's side).
TEST(RunRecording, MalformedFramesShowTheRuleTheyBreak) {
  const std::map<std::string, std::set<std::string>> kExpected = {
      // clean cases: nothing on either side
      {"mpa-reply-res-zero", {}},
      {"mpa-enhanced-reply", {}},
      {"mpa-markers-interval", {}},
      {"mpa-p2p-rtr-read-answered", {}},
      {"ddp-reassembly-three-segments", {}},
      {"rdmap-write-placed-read-back-1000", {}},
      {"rdmap-atomic-fetchadd", {}},
      {"rdmap-read-response-fields-0x7e57", {}},
      {"rdmap-read-response-order", {}},
      {"clc-accept-v2", {}},
      {"clc-client-confirms", {}},
      // MPA startup (RFC 5044 §7.1, RFC 6581)
      {"mpa-request-pd-length-over-512", {"rfc5044-7.1.1-pd-length-max"}},
      {"mpa-request-res-ignored-1", {"rfc5044-7.1.1-res-zero"}},
      {"mpa-request-r-ignored", {"rfc5044-7.1.1-r-request-zero"}},
      {"mpa-request-rev-unsupported-3", {"rfc5044-7.1.1-rev-1"}},
      {"mpa-request-bad-key-mpa-id-rep-frame", {"rfc5044-7.1.1-key-reply"}},
      {"mpa-initiator-bad-reply-key-mpa-id-req-frame", {"rfc5044-7.1.1-key-reply"}},
      {"mpa-initiator-reply-pd-too-long", {"rfc5044-7.1.1-pd-length-max"}},
      {"mpa-request-enhanced-pd-too-short", {"rfc6581-6-enhanced-data-present"}},
      {"mpa-p2p-no-matching-rtr", {"rfc6581-9.2-p2p-flag-a"}},
      // MPA full operation (RFC 5044 §4)
      {"mpa-crc-error-code", {"rfc5044-4.4-crc32c"}},
      {"mpa-marker-fpduptr-wrong-4", {"rfc5044-4.2-fpduptr"}},
      {"mpa-marker-res-ignored", {"rfc5044-4.2-marker-res-zero"}},
      {"mpa-pad-ignored-1", {"rfc5044-4.1-pad-zero"}},
      // DDP (RFC 5041)
      {"ddp-dv-untagged-0", {"rfc5041-4.1-dv-1"}},
      {"ddp-dv-tagged-2", {"rfc5041-4.1-dv-1"}},
      {"ddp-msn-zero", {"rfc5041-4.3-msn-increment"}},
      {"ddp-mo-beyond-buffer-1000", {"rfc5041-5.2-untagged-mo-advance"}},
      {"ddp-qn-invalid-4", {"rfc5040-4.1-qn-opcode-match"}},
      {"ddp-terminate-catastrophic-short-segment", {"rfc5041-4.4-segment-header"}},
      // RDMAP (RFC 5040, RFC 7306)
      {"rdmap-rv-send-0", {"rfc5040-4.1-rv-1"}},
      {"rdmap-opcode-reserved-untagged-0xc", {"rfc5040-4.1-opcodes"}},
      {"rdmap-qn-opcode-mismatch-1", {"rfc5040-4.1-qn-opcode-match"}},
      {"rdmap-read-request-segmented", {"rfc5040-5.2.1-single-segment"}},
      {"rdmap-read-request-size-4", {"rfc5040-4.2-payload-size"}},
      {"rdmap-unsolicited-read-response-0", {"rfc5040-5.2-read-response-solicited"}},
      {"rdmap-atomic-unsolicited-response", {"rfc7306-5.2.1-response-order"}},
      {"rdmap-immediate-size-1", {"rfc5040-4.2-payload-size"}},
      // MSN IRD+1 on QN 1: passively, MSNs were skipped
      {"rdmap-read-request-beyond-ird", {"rfc5041-4.3-msn-increment"}},
      // CLC (RFC 7609, SMC v2)
      {"clc-proposal-peer-id-zero-v1", {"rfc7609-a.2.1-proposal-peer-id-set"}},
      {"clc-proposal-gid-zero", {"rfc7609-a.2.2-proposal-gid-mac-valid"}},
      {"clc-bad-trailer", {"rfc7609-a.2-clc-format"}},
      {"clc-length-too-short-8", {"rfc7609-a.2-clc-format"}},
      {"clc-confirm-mtu-above-accept", {"rfc7609-a.2.4-confirm-mtu-not-above-accept"}},
      {"clc-confirm-peer-id-changed", {"rfc7609-a.2.4-confirm-peer-id"}},
      {"clc-confirm-qp-invalid-0", {"rfc7609-a.2.4-confirm-qp-number"}},
      {"clc-confirm-rmbe-index-zero", {"rfc7609-a.2.4-confirm-rmb-valid"}},
      {"clc-confirm-first-contact-mismatch", {"rfc7609-c.4-confirm-first-contact-echo"}},
      {"clc-client-declines-bad-qp", {"rfc7609-a.2.3-accept-qp-number"}},
  };
  const Recorded& r = recorded();
  for (const auto& [id, want] : kExpected) {
    SCOPED_TRACE(id);
    auto it = r.cases.find(id);
    ASSERT_NE(it, r.cases.end()) << "case renamed or removed: pick another of its kind";
    const Verdicts v = analyze_case(r, *it->second);
    EXPECT_EQ(join(v.tester), join(want));
    EXPECT_TRUE(v.iut.empty()) << join(v.iut);
    EXPECT_EQ(v.result.summary.mpa_connections + v.result.summary.clc_connections, 1u);
  }
}

// What a passive observer cannot see: a stream that does not start with an
// MPA key or a CLC eyecatcher is neither protocol, so a case that sends a
// wrong key or garbage first has nothing to check (the run, as the peer,
// sees the IUT's answer; the capture shows only that no MPA started).
TEST(RunRecording, StreamsWithoutAKeyAreNotRecognised) {
  const Recorded& r = recorded();
  auto it = r.cases.find("clc-bad-eyecatcher-0x11223344");
  ASSERT_NE(it, r.cases.end());
  const Verdicts v = analyze_case(r, *it->second);
  EXPECT_EQ(v.result.summary.mpa_connections + v.result.summary.clc_connections, 0u);
  EXPECT_EQ(v.result.summary.violations, 0u);
  EXPECT_GT(v.result.summary.octets, 0u);
}

// "MPA ID " and then not a key: an MPA frame with a wrong key (RFC 5044
// §7.1.1), reported as such rather than taken for another protocol.
TEST(RunRecording, AWrongMpaKeyIsReported) {
  const Recorded& r = recorded();
  auto it = r.cases.find("mpa-request-bad-key-mpa-id-req-fram");
  ASSERT_NE(it, r.cases.end());
  const Verdicts v = analyze_case(r, *it->second);
  EXPECT_EQ(v.result.summary.mpa_connections, 1u);
  ASSERT_EQ(v.result.violations.size(), 1u);
  EXPECT_EQ(v.result.violations[0].rule->id, "rfc5044-7.1.1-key-reply");
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
