// Captures built segment by segment and analyzed end to end (libpcap reads
// them back): every reassembly hazard the issue names (where Wireshark 4.0
// loses track), resynchronisation after loss and mid-connection starts, CLC
// exchanges, annotation and the CLI's JSON. No third-party captures exist in
// this workplace; every capture here is built by the test that reads it.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "analysis/analyzer.hpp"
#include "analysis/decode_text.hpp"
#include "analysis_fixtures.hpp"
#include "check/clc.hpp"
#include "clc/handshake.hpp"
#include "requirement.hpp"
#include "run_command.hpp"

namespace rdmaconf::analysis::testing {
namespace {

using rdmaconf::testing::run_command;
namespace rq = rdmaconf::requirements;

// Sends, Writes and a Read in both directions; `n` Sends of `size` octets.
Session busy_session(SessionConfig c, int n = 20, std::size_t size = 100) {
  Session s(c);
  s.start();
  for (int i = 0; i < n; ++i) s.fpdu(0, send_msg(static_cast<std::uint32_t>(i + 1), filler(size + static_cast<std::size_t>(i))));
  s.fpdu(0, read_request(1, 0x2000, 0, 300));
  s.fpdu(1, tagged(0x2, 0x2000, 0, true, filler(300)));
  s.fpdu(1, send_msg(1, filler(33)));
  return s;
}

// Where a side's Request/Reply ends (its first FPDU starts).
std::size_t frame_end(const Session& s, int side) {
  return s.boundaries[side].empty() ? s.stream[side].size() : s.boundaries[side].front();
}

// Handshake, Request and Reply each in their own segment; the rest of both
// streams cut by `cut_initiator` (segment boundaries in the initiator's stream).
std::string lay_out(const Session& s, CaptureBuilder& cap, const std::vector<std::size_t>& cuts, const std::string& name) {
  cap.handshake();
  const std::size_t req = frame_end(s, 0), rep = frame_end(s, 1);
  cap.segment(0, s.stream[0], 0, req);
  cap.segment(1, s.stream[1], 0, rep);
  std::size_t at = req;
  for (std::size_t c : cuts) {
    if (c <= at || c >= s.stream[0].size()) continue;
    cap.segments(0, s.stream[0], at, c);
    at = c;
  }
  cap.segments(0, s.stream[0], at, s.stream[0].size());
  cap.segments(1, s.stream[1], rep, s.stream[1].size());
  cap.fin(0, s.stream[0].size());
  cap.fin(1, s.stream[1].size());
  return cap.save(name);
}

// Hazard 1: a TCP segment that ends inside the first 8 octets of an FPDU
// (ULPDU_Length and the start of the DDP header split from the rest).
TEST(CaptureAnalysis, SegmentEndingInsideFirstEightOctetsOfAnFpdu) {
  const Session s = busy_session({});
  for (std::size_t k = 1; k <= 8; ++k) {
    std::vector<std::size_t> cuts;
    for (std::size_t i = 1; i < s.boundaries[0].size(); i += 3) cuts.push_back(s.boundaries[0][i] + k);
    CaptureBuilder cap;
    const AnalysisResult r = analyze(lay_out(s, cap, cuts, "split8.pcapng"));
    EXPECT_EQ(r.summary.violations, 0u) << "k=" << k << "\n" << dump(r);
    EXPECT_EQ(r.summary.mpa_fpdus, s.boundaries[0].size() + s.boundaries[1].size()) << "k=" << k;
    EXPECT_EQ(r.summary.rdmap_messages[0x3], 21u);
    EXPECT_EQ(r.summary.rdmap_messages[0x1], 1u);
    EXPECT_EQ(r.summary.rdmap_messages[0x2], 1u);
  }
}

// The link layers the capture layer decodes reach the observer alike: the
// same session over Ethernet, two stacked VLAN tags, Linux cooked v2 (what
// `tcpdump -i any` writes) and BSD loopback gives the same analysis.
TEST(CaptureAnalysis, SameAnalysisOnEveryLinkLayer) {
  SessionConfig c;
  const Session s = busy_session(c, 5);
  using F = CaptureBuilder::Framing;
  for (F f : {F::kEthernet, F::kVlan, F::kSll2, F::kNull}) {
    SCOPED_TRACE(static_cast<int>(f));
    CaptureBuilder cap(20000, 40000, f);
    const AnalysisResult r = analyze(lay_out(s, cap, {7, 3000}, "link.pcapng"));
    EXPECT_EQ(r.summary.capture_reports, 0u);
    EXPECT_EQ(r.summary.violations, 0u) << dump(r);
    EXPECT_EQ(r.summary.mpa_connections, 1u);
    EXPECT_EQ(r.summary.mpa_fpdus, s.boundaries[0].size() + s.boundaries[1].size());
  }
}

// The same over IPv6, on every link layer (DLT_NULL with BSD's AF_INET6).
TEST(CaptureAnalysis, SameAnalysisOverIpv6) {
  SessionConfig c;
  c.initiator_markers = true;
  const Session s = busy_session(c, 5);
  using F = CaptureBuilder::Framing;
  for (F f : {F::kEthernet, F::kVlan, F::kSll2, F::kNull}) {
    SCOPED_TRACE(static_cast<int>(f));
    CaptureBuilder cap(20000, 40000, f, CaptureBuilder::Ip::kV6);
    const AnalysisResult r = analyze(lay_out(s, cap, {7, 3000}, "link6.pcapng"));
    EXPECT_EQ(r.summary.capture_reports, 0u);
    EXPECT_EQ(r.summary.violations, 0u) << dump(r);
    EXPECT_EQ(r.summary.mpa_connections, 1u);
    EXPECT_EQ(r.summary.mpa_fpdus, s.boundaries[0].size() + s.boundaries[1].size());
    EXPECT_EQ(r.summary.frames, cap.frames());  // every frame decoded: no "not TCP", no malformed IPv6
  }
}

// Hazard 2: Markers with several FPDUs per segment (small FPDUs packed into
// full-size segments, Markers landing anywhere in them).
TEST(CaptureAnalysis, MarkersWithSeveralFpdusPerSegment) {
  SessionConfig c;
  c.initiator_markers = c.responder_markers = true;
  const Session s = busy_session(c, 200, 20);
  CaptureBuilder cap;
  const AnalysisResult r = analyze(lay_out(s, cap, {}, "markers.pcapng"));
  EXPECT_EQ(r.summary.violations, 0u) << dump(r);
  EXPECT_EQ(r.summary.mpa_fpdus, 203u);
  EXPECT_EQ(r.summary.rdmap_messages[0x3], 201u);
}

// Hazard 3: a Marker exactly at an FPDU's end. RFC 5044 §4.3: a Marker that
// falls just after an FPDU's CRC belongs to the next FPDU (FPDUPTR 0), so the
// first FPDU is 512 octets and the second starts with the Marker.
TEST(CaptureAnalysis, MarkerAtFpduEndBelongsToTheNextFpdu) {
  SessionConfig c;
  c.responder_markers = true;  // the initiator inserts Markers
  Session s(c);
  s.start();
  // Marker at position 0, then 2 + 502 + 0 PAD + 4 CRC = 508 logical octets:
  // the FPDU ends at position 512, where the next Marker sits.
  s.fpdu(0, send_msg(1, filler(502 - 18)));
  s.fpdu(0, send_msg(2, filler(50)));
  ASSERT_EQ(s.boundaries[0][1] - s.boundaries[0][0], 512u);
  ASSERT_EQ(s.stream[0][s.boundaries[0][1] + 2], 0u);  // FPDUPTR 0
  ASSERT_EQ(s.stream[0][s.boundaries[0][1] + 3], 0u);
  for (std::size_t cut : {0, 510, 512, 514, 516, 518}) {
    CaptureBuilder cap;
    const AnalysisResult r =
        analyze(lay_out(s, cap, {s.boundaries[0][0] + cut}, "marker-at-end.pcapng"));
    EXPECT_EQ(r.summary.violations, 0u) << "cut " << cut << "\n" << dump(r);
    EXPECT_EQ(r.summary.mpa_fpdus, 2u) << "cut " << cut;
  }
  // The same with a wrong FPDUPTR in that Marker is caught.
  Session bad(c);
  bad.start();
  bad.fpdu(0, send_msg(1, filler(502 - 18)));
  bad.fpdu(0, send_msg(2, filler(50)), fpdu_ptr(512));
  CaptureBuilder cap;
  const AnalysisResult r = analyze(lay_out(bad, cap, {}, "marker-at-end-bad.pcapng"));
  EXPECT_EQ(r.summary.violations_per_rule.count("rfc5044-4.2-fpduptr"), 1u) << dump(r);
}

// Hazard 4: a capture that starts mid-connection (no handshake, no MPA
// frames, first octets in the middle of an FPDU). The observer hunts for an
// FPDU whose CRC checks and decodes everything from there.
TEST(CaptureAnalysis, MidConnectionStartResynchronises) {
  for (bool markers : {false, true}) {
    SessionConfig c;
    c.initiator_markers = c.responder_markers = markers;
    const Session s = busy_session(c, 60, 200);
    CaptureBuilder cap;
    const std::size_t start = s.boundaries[0][10] + 37;  // inside the 10th FPDU
    cap.segments(0, s.stream[0], start, s.stream[0].size());
    const AnalysisResult r = analyze(cap.save("midstream.pcapng"));
    EXPECT_EQ(r.summary.violations, 0u) << dump(r);
    EXPECT_EQ(r.summary.resyncs, 1u) << "markers " << markers;
    // Every FPDU after the cut one is decoded; with Markers the hunt may
    // need the next Marker, so allow it to start one FPDU later.
    const std::size_t after = s.boundaries[0].size() - 11;
    EXPECT_GE(r.summary.mpa_fpdus + 1, after) << "markers " << markers;
    EXPECT_LE(r.summary.mpa_fpdus, after);
    EXPECT_EQ(r.summary.mpa_connections, 1u);
  }
}

// Loss in the middle of full operation: the octets after the gap are
// decoded again once an FPDU's CRC (or, with Markers, a Marker) resynchronises.
TEST(CaptureAnalysis, GapResynchronisesOnCrcOrMarker) {
  for (bool markers : {false, true}) {
    SessionConfig c;
    c.initiator_markers = c.responder_markers = markers;
    const Session s = busy_session(c, 60, 200);
    CaptureBuilder cap;
    cap.handshake();
    const std::size_t req = s.boundaries[0].front(), rep = s.boundaries[1].front();
    cap.segment(0, s.stream[0], 0, req);
    cap.segment(1, s.stream[1], 0, rep);
    const std::size_t lost_from = s.boundaries[0][20] + 5, lost_to = s.boundaries[0][22] + 11;
    cap.segments(0, s.stream[0], req, lost_from, 700);
    cap.segments(0, s.stream[0], lost_to, s.stream[0].size(), 700);
    const AnalysisResult r = analyze(cap.save("gap.pcapng"));
    EXPECT_EQ(r.summary.violations, 0u) << dump(r);
    EXPECT_EQ(r.summary.resyncs, 1u);
    // FPDUs 0-19 before the gap, 23.. after it (hunting may skip one).
    const std::size_t expected = 20 + (s.boundaries[0].size() - 23);
    EXPECT_GE(r.summary.mpa_fpdus + 1, expected) << "markers " << markers;
    EXPECT_LE(r.summary.mpa_fpdus, expected);
  }
}

// Hazard 5: MPA on a port another dissector claims (3260 is iSCSI's, 80 HTTP):
// detection is by the Request/Reply keys, never by port.
TEST(CaptureAnalysis, MpaOnAClaimedPortIsFoundByContent) {
  for (std::uint16_t port : {80, 3260, 445}) {
    const Session s = busy_session({}, 5);
    CaptureBuilder cap(port);
    const AnalysisResult r = analyze(lay_out(s, cap, {}, "port.pcapng"));
    EXPECT_EQ(r.summary.mpa_connections, 1u) << port;
    EXPECT_EQ(r.summary.mpa_fpdus, 8u) << port;
    EXPECT_EQ(r.summary.violations, 0u) << dump(r);
  }
}

// A deliberate violation in a recorded session: a bad CRC forced through the
// framer's override is reported with its rule id, in the frame that carried it.
TEST(CaptureAnalysis, BadCrcIsReportedInItsFrame) {
  Session s;
  s.start();
  for (std::uint32_t i = 1; i <= 5; ++i) s.fpdu(0, send_msg(i, filler(500)));
  s.fpdu(0, send_msg(6, filler(500)), bad_crc(0x12345678));
  s.fpdu(0, send_msg(7, filler(500)));
  CaptureBuilder cap;
  cap.handshake();
  cap.segment(0, s.stream[0], 0, s.boundaries[0][0]);
  cap.segment(1, s.stream[1], 0, s.stream[1].size());
  std::uint64_t bad_frame = 0;
  for (std::size_t i = 0; i < s.boundaries[0].size(); ++i) {
    const std::size_t from = s.boundaries[0][i];
    const std::size_t to = i + 1 < s.boundaries[0].size() ? s.boundaries[0][i + 1] : s.stream[0].size();
    const std::uint64_t f = cap.segment(0, s.stream[0], from, to - from);
    if (i == 5) bad_frame = f;
  }
  const AnalysisResult r = analyze(cap.save("badcrc.pcapng"));
  ASSERT_EQ(r.violations.size(), 1u) << dump(r);
  EXPECT_EQ(r.violations[0].rule->id, "rfc5044-4.4-crc32c");
  EXPECT_EQ(r.violations[0].frame, bad_frame);
  EXPECT_EQ(r.violations[0].side, Side::kInitiator);
  EXPECT_EQ(r.summary.must_violations, 1u);
}

// ---------------------------------------------------------------- CLC

struct ClcExchange {
  Bytes proposal, accept, confirm;
};

clc::SmcrLink link(std::uint64_t peer, std::uint8_t tag) {
  clc::SmcrLink l;
  l.peer_id = peer;
  l.gid.fill(tag);
  l.mac = {0x02, 0, 0, 0, 0, tag};
  l.qp_number = 100 + tag;
  l.rmb_rkey = 0x1234;
  return l;
}

clc::ClientConfig clc_client() {
  clc::ClientConfig cc;
  cc.link = link(1, 1);
  cc.offer_v2 = false;
  cc.ipv4 = {0xc0000200, 24};
  return cc;
}
clc::ServerConfig clc_server() {
  clc::ServerConfig sc;
  sc.link = link(2, 2);
  sc.accept_v2 = false;
  sc.ipv4 = {0xc0000200, 24};
  return sc;
}

ClcExchange clc_exchange() {
  clc::ClientHandshake client(clc_client());
  clc::ServerHandshake server(clc_server());
  ClcExchange x;
  x.proposal = client.start(true).send;
  (void)server.start(true);
  x.accept = server.on_message(x.proposal).send;
  x.confirm = client.on_message(x.accept).send;
  return x;
}

std::string clc_capture(const ClcExchange& x, bool smc_option, const std::string& name) {
  CaptureBuilder cap;
  cap.handshake(smc_option, smc_option);
  cap.segment(0, x.proposal, 0, x.proposal.size());
  cap.segment(1, x.accept, 0, x.accept.size());
  Bytes both = x.proposal;
  both.insert(both.end(), x.confirm.begin(), x.confirm.end());
  cap.segment(0, both, x.proposal.size(), x.confirm.size());
  return cap.save(name);
}

TEST(CaptureAnalysis, ClcExchangeIsConsistent) {
  const ClcExchange x = clc_exchange();
  ASSERT_FALSE(x.confirm.empty());
  const AnalysisResult r = analyze(clc_capture(x, true, "clc.pcapng"));
  EXPECT_EQ(r.summary.violations, 0u) << dump(r);
  EXPECT_EQ(r.summary.clc_connections, 1u);
  EXPECT_EQ(r.summary.clc_messages, 3u);
  EXPECT_EQ(r.summary.clc_types[1], 1u);
  EXPECT_EQ(r.summary.clc_types[2], 1u);
  EXPECT_EQ(r.summary.clc_types[3], 1u);
}

TEST(CaptureAnalysis, ClcWithoutTheTcpOptionIsReported) {
  // RFC 7609 §3.1: CLC only after both SYNs carried the SMC option.
  const AnalysisResult r = analyze(clc_capture(clc_exchange(), false, "clc-noopt.pcapng"));
  EXPECT_EQ(r.summary.violations_per_rule.count("rfc7609-3.1-no-clc-without-option"), 1u) << dump(r);
}

TEST(CaptureAnalysis, ClcConfirmInconsistentWithAccept) {
  ClcExchange x = clc_exchange();
  // RFC 7609 App. A.2.4: the Confirm's QP MTU may not exceed the Accept's,
  // its peer ID is the Proposal's. Re-encode the Confirm with both broken.
  auto m = clc::decode(x.confirm);
  ASSERT_TRUE(m.ok());
  auto& c = std::get<clc::AcceptConfirm>(*m);
  c.smcr->set(clc::SmcrAcceptConfirmSpec::Field::QpMtu, 5);
  c.smcr->set(clc::SmcrAcceptConfirmSpec::Field::PeerId, 99);
  x.confirm = clc::encode(*m);
  const AnalysisResult r = analyze(clc_capture(x, true, "clc-bad.pcapng"));
  EXPECT_EQ(r.summary.violations_per_rule.count("rfc7609-a.2.4-confirm-peer-id"), 1u) << dump(r);
  EXPECT_EQ(r.summary.violations_per_rule.count("rfc7609-a.2.4-confirm-mtu-not-above-accept"), 1u) << dump(r);
  EXPECT_EQ(r.violations.front().side, Side::kInitiator);
}

// The CLC rules a capture reports, in the order reported.
std::vector<std::string_view> clc_rules_reported(const AnalysisResult& r) {
  std::vector<std::string_view> ids;
  for (const auto& v : r.violations) ids.push_back(v.rule->id);
  return ids;
}
std::vector<std::string_view> ids_of(const check::Verdict& verdict) {
  std::vector<std::string_view> ids;
  for (const check::Violation& v : verdict) ids.push_back(v.rule->id);
  return ids;
}

// A machine declined on the list's first rule, with the code that rule's row names.
void expect_declined_on(const clc::Step& st, const std::vector<std::string_view>& rules, const char* what) {
  ASSERT_TRUE(st.outcome && st.outcome->failed_rule) << what;
  EXPECT_EQ(st.outcome->failed_rule->id, rules.front()) << what;
  const clc::DeclineCode* code = clc::find_decline_code(st.outcome->diagnosis);
  ASSERT_NE(code, nullptr) << what;
  EXPECT_EQ(code->linux_name, rq::find(rules.front())->decline) << what;
}

// One table of broken Accepts, fed to the client's handshake machine and to
// the observer (as a capture): both get their verdict from
// check::accept_rules, so the observer reports the list's rules in its
// order and the machine declines on its first, with the diagnosis the
// rule's registry row names.
TEST(CaptureAnalysis, ClcMachineAndObserverJudgeAnAcceptWithOneList) {
  using RF = clc::SmcrAcceptConfirmSpec::Field;
  struct Case {
    const char* what;
    void (*mutate)(clc::SmcrBody&);
    std::vector<std::string_view> rules;
  };
  const Case cases[] = {
      {"QP1", [](clc::SmcrBody& b) { b.set(RF::QpNumber, 1); }, {"rfc7609-a.2.3-accept-qp-number"}},
      {"GID 0, QP0, RMBE index 0",
       [](clc::SmcrBody& b) {
         b.set_octets(RF::Gid, std::array<std::uint8_t, 16>{});
         b.set(RF::QpNumber, 0).set(RF::RmbeIndex, 0);
       },
       {"rfc7609-a.2.3-accept-peer-valid", "rfc7609-a.2.3-accept-qp-number", "rfc7609-a.2.3-accept-rmb-valid"}},
      {"RMBE index 0, multicast MAC",
       [](clc::SmcrBody& b) {
         b.set(RF::RmbeIndex, 0).set_octets(RF::Mac, std::array<std::uint8_t, 6>{0x01, 0, 0x5e, 0, 0, 1});
       },
       {"rfc7609-a.2.3-accept-peer-valid", "rfc7609-a.2.3-accept-rmb-valid"}},
  };
  const ClcExchange x = clc_exchange();
  for (const Case& k : cases) {
    auto m = clc::decode(x.accept);
    ASSERT_TRUE(m.ok());
    auto& a = std::get<clc::AcceptConfirm>(*m);
    k.mutate(*a.smcr);
    const Bytes accept = clc::encode(a);
    const auto proposal = std::get<clc::Proposal>(*clc::decode(x.proposal));
    EXPECT_EQ(ids_of(check::accept_rules(proposal, a, nullptr)), k.rules) << k.what;

    clc::ClientHandshake client(clc_client());
    ASSERT_EQ(client.start(true).send, x.proposal);
    const clc::Step st = client.on_message(accept);
    expect_declined_on(st, k.rules, k.what);

    ClcExchange seen{x.proposal, accept, st.send};  // the client's Decline ends the exchange
    const AnalysisResult r = analyze(clc_capture(seen, true, "clc-accept-table.pcapng"));
    EXPECT_EQ(clc_rules_reported(r), k.rules) << k.what << dump(r);
  }
}

// ... and a table of broken Confirms, fed to the server's machine and to the
// observer: check::confirm_rules for both.
TEST(CaptureAnalysis, ClcMachineAndObserverJudgeAConfirmWithOneList) {
  using RF = clc::SmcrAcceptConfirmSpec::Field;
  struct Case {
    const char* what;
    void (*mutate)(clc::SmcrBody&);
    std::vector<std::string_view> rules;
  };
  const Case cases[] = {
      {"QP MTU 5, peer ID 99", [](clc::SmcrBody& b) { b.set(RF::QpMtu, 5).set(RF::PeerId, 99); },
       {"rfc7609-a.2.4-confirm-peer-id", "rfc7609-a.2.4-confirm-mtu-not-above-accept"}},
      {"QP0, RMBE index 0", [](clc::SmcrBody& b) { b.set(RF::QpNumber, 0).set(RF::RmbeIndex, 0); },
       {"rfc7609-a.2.4-confirm-qp-number", "rfc7609-a.2.4-confirm-rmb-valid"}},
  };
  const ClcExchange x = clc_exchange();
  for (const Case& k : cases) {
    auto m = clc::decode(x.confirm);
    ASSERT_TRUE(m.ok());
    auto& c = std::get<clc::AcceptConfirm>(*m);
    k.mutate(*c.smcr);
    const Bytes confirm = clc::encode(c);
    const auto proposal = std::get<clc::Proposal>(*clc::decode(x.proposal));
    const auto accept = std::get<clc::AcceptConfirm>(*clc::decode(x.accept));
    EXPECT_EQ(ids_of(check::confirm_rules(proposal, accept, c, nullptr)), k.rules) << k.what;

    clc::ServerHandshake server(clc_server());
    (void)server.start(true);
    ASSERT_EQ(server.on_message(x.proposal).send, x.accept);
    const clc::Step st = server.on_message(confirm);
    expect_declined_on(st, k.rules, k.what);

    const AnalysisResult r = analyze(clc_capture(ClcExchange{x.proposal, x.accept, confirm}, true,
                                                 "clc-confirm-table.pcapng"));
    EXPECT_EQ(clc_rules_reported(r), k.rules) << k.what << dump(r);
  }
}

// ------------------------------------------------- annotation and the CLI

bool have_tshark() { return std::system("tshark --version >/dev/null 2>&1") == 0; }

TEST(CaptureAnalysis, AnnotatedCaptureCarriesACommentOnTheViolatingFrame) {
  Session s;
  s.start();
  s.fpdu(0, send_msg(1, filler(40)));
  s.fpdu(0, send_msg(5, filler(40)));  // MSN jumps: RFC 5041 §4.3
  CaptureBuilder cap;
  const std::string in = lay_out(s, cap, {s.boundaries[0][1]}, "annotate-in.pcapng");
  const AnalysisResult r = analyze(in);
  ASSERT_EQ(r.violations.size(), 1u) << dump(r);
  const std::string out = ::testing::TempDir() + "annotate-out.pcapng";
  std::string error;
  ASSERT_TRUE(write_annotated(in, out, r, error)) << error;
  // The annotated file reads back frame for frame.
  const AnalysisResult again = analyze(out);
  EXPECT_EQ(again.summary.frames, r.summary.frames);
  EXPECT_EQ(again.violations.size(), 1u);
  if (!have_tshark()) GTEST_SKIP() << "tshark not installed";
  int status = 0;
  const std::string fields =
      run_command("tshark -r " + out + " -Y frame.comment -T fields -e frame.number -e frame.comment 2>/dev/null", &status);
  EXPECT_EQ(status, 0);
  EXPECT_EQ(fields.substr(0, fields.find('\t')), std::to_string(r.violations[0].frame));
  EXPECT_NE(fields.find("rfc5041-4.3-msn-increment"), std::string::npos) << fields;
}

TEST(CaptureAnalysis, CliDecodeJsonAndAnalyzeExitCodes) {
  const Session s = busy_session({}, 7);
  CaptureBuilder cap;
  const std::string path = lay_out(s, cap, {}, "cli.pcapng");
  int status = 0;
  const std::string json = run_command(std::string(RDMACONF_CLI) + " decode " + path + " --json -", &status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(json.front(), '[');
  std::map<std::string, int> types;
  for (const auto& m : nlohmann::json::parse(json)) types[m.at("type").get<std::string>()]++;
  EXPECT_EQ(types["Send"], 8) << json;
  EXPECT_EQ(types["RDMA Read Request"], 1);
  EXPECT_EQ(types["RDMA Read Response"], 1);
  EXPECT_EQ(types["MPA Request"], 1);
  EXPECT_EQ(types["MPA Reply"], 1);

  const std::string report = ::testing::TempDir() + "cli.json";
  run_command(std::string(RDMACONF_CLI) + " analyze -q --json " + report + " " + path, &status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  std::ifstream f(report);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto analysis = nlohmann::json::parse(text);
  EXPECT_EQ(analysis["summary"]["mpa_fpdus"], 10) << text;
  EXPECT_EQ(analysis["rdmap_messages"]["Send"], 8) << text;
  EXPECT_EQ(analysis["summary"]["violations"], 0);

  Session bad;
  bad.start();
  bad.fpdu(0, send_msg(1, filler(8)), bad_crc(1));
  CaptureBuilder cap2;
  run_command(std::string(RDMACONF_CLI) + " analyze -q " + lay_out(bad, cap2, {}, "cli-bad.pcapng"), &status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  run_command(std::string(RDMACONF_CLI) + " analyze -q /nonexistent.pcap 2>/dev/null", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
}

// Every rule id the observer can emit is a distinct, well-formed catalogue id.
TEST(Rules, IdsAreUniqueAndFollowTheScheme) {
  std::set<std::string_view> seen;
  for (const Rule* r : all_rules()) {
    EXPECT_TRUE(seen.insert(r->id).second) << r->id;
    EXPECT_TRUE(r->id.starts_with("rfc") || r->id.starts_with("smcv2-")) << r->id;
    EXPECT_EQ(find_rule(r->id), r);
    EXPECT_FALSE(r->section.empty());
  }
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
