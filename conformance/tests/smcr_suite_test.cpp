// The smcr suite's SMC-R phase (runner_smcr.hpp) against the reference IUT's
// link group and connection on the in-memory fabric (smcr_memory.hpp): the
// whole suite passes, 64 MiB included; a fault of the IUT's link group fails
// a case with the row the tester's machines judged; without a RoCE side a
// case cannot run; and TapHost (smcr_transport.hpp) holds back and changes
// Sends as the faults and the tester's log need.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "engine/engine.hpp"
#include "engine/mutation.hpp"
#include "engine/needs.hpp"
#include "engine/responder.hpp"
#include "engine/runner_smcr.hpp"
#include "engine/runner_smcr_phase.hpp"
#include "engine/smcr_memory.hpp"
#include "engine/smcr_transport.hpp"
#include "smcr/messages.hpp"
#include "smcr/transport.hpp"

namespace rdmaconf::conformance {
namespace {

const Catalogue& catalogue() {
  static const Catalogue c = load_catalogue(RDMACONF_SOURCE_DIR "/conformance/cases");
  return c;
}

struct Reference {
  ReferenceIut iut;
  RunOptions options;
  explicit Reference(FaultSet f = {}) : iut(f) {
    std::string error;
    EXPECT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
    EXPECT_TRUE(iut.listen_clc("127.0.0.1", 0, error)) << error;
    RunOptions o;
    o.time_scale = 0.25;
    o.jobs = 4;
    options = reference_options(iut, o);
  }
};

const Case& one(std::string_view id) {
  auto cs = select(catalogue(), {}, {std::string(id)});
  EXPECT_EQ(cs.size(), 1u) << id;
  return *cs.at(0);
}

TEST(SmcrSuite, PassesAgainstTheReference) {
  Reference ref;
  const auto cases = select(catalogue(), {"smcr"}, {});
  EXPECT_GE(cases.size(), 15u);
  for (const CaseResult& r : run_cases(cases, ref.options)) {
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.c->id << ": " << r.reason;
    EXPECT_FALSE(r.frames.empty()) << r.c->id;
  }
}

TEST(SmcrSuite, SixtyFourMebibytesGoThroughTheRmbes) {
  Reference ref;
  const Case& c = one("smcr-data-64-mib");
  // The case's own expectation is the tester's count of octets read back,
  // each compared with the octet written.
  bool expects_all = false;
  for (const Step& st : c.steps)
    for (const Alternative& a : st.alternatives)
      for (const Arg& arg : a.args)
        expects_all |= a.unit == "data" && arg.name == "octets" && arg.value.number == (64u << 20);
  EXPECT_TRUE(expects_all);
  const CaseResult r = run_case(c, ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
}

TEST(SmcrSuite, AFaultOfTheIutFailsTheCaseWithTheRowItBroke) {
  FaultSet f;
  f.set(FaultId::kSmcrConfirmLinkWrongQp);
  Reference ref(f);
  const CaseResult r = run_case(one("smcr-confirm-link-as-announced"), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kFail);
  EXPECT_NE(r.reason.find("rfc7609-3.5.1.5-confirm-link-roce-info"), std::string::npos) << r.reason;
}

TEST(SmcrSuite, WithoutARoceSideACaseIsAnErrorNotAFailure) {
  Reference ref;
  RunOptions o = ref.options;
  o.roce = nullptr;
  const CaseResult r = run_case(one("smcr-test-link-echo"), o);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.reason.find("RoCE"), std::string::npos) << r.reason;
}

// RunOptions::smcr_version: the Proposal offers the run's version, not the
// script's (offer=v1), and the case needs that version instead; an IUT
// without SMC-R version 1 still runs the suite.
TEST(SmcrSuite, RunsOverTheVersionTheRunNames) {
  Reference ref;
  RunOptions o = ref.options;
  o.iut_lacks = {"smcr-v1"};
  const Case& c = one("smcr-close-passive");
  EXPECT_EQ(run_case(c, o).verdict, Verdict::kUnimplemented);
  o.smcr_version = 2;
  const CaseResult r = run_case(c, o);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  ASSERT_FALSE(r.frames.empty());
  // The Proposal's header says version 2 (§3.2), although the script offers v1.
  const FrameRecord& proposal = r.frames.front();
  EXPECT_NE(proposal.headline.find("CLC proposal"), std::string::npos) << proposal.headline;
  EXPECT_NE(proposal.detail.find("Version: 2 (SMCv2)"), std::string::npos) << proposal.detail;
  o.iut_lacks = {"smcr-v2"};
  const CaseResult lacking = run_case(c, o);
  EXPECT_EQ(lacking.verdict, Verdict::kUnimplemented);
  EXPECT_NE(lacking.reason.find("smcr-v2"), std::string::npos) << lacking.reason;
}

// The same with the IUT as SMC client: the tester's server accepts the
// run's version (its Accept says version 2 although the script chooses v1),
// and the IUT's Proposal need not offer version 1.
TEST(SmcrSuite, TheServerSideAcceptsTheVersionTheRunNames) {
  Reference ref;
  RunOptions o = ref.options;
  o.smcr_version = 2;
  const CaseResult r = run_case(one("smcr-client-ready-after-confirm"), o);  // > clc.accept choose=v1
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  const auto accept = std::find_if(r.frames.begin(), r.frames.end(), [](const FrameRecord& f) {
    return f.headline.find("CLC accept") != std::string::npos;
  });
  ASSERT_NE(accept, r.frames.end());
  EXPECT_NE(accept->detail.find("Version: 2 (SMCv2)"), std::string::npos) << accept->detail;
}

// A script that names a field of version 1's LLC header (llc.length) cannot
// run over version 2: the case is left out before it starts, with the field
// named, rather than counted as an error or charged to the IUT.
TEST(SmcrSuite, AScriptOfTheOtherVersionIsNotRun) {
  Reference ref;
  RunOptions o = ref.options;
  const Case& c = one("smcr-confirm-link-as-announced");  // < llc.confirm_link llc.length=44
  EXPECT_EQ(runner::smcr_field_missing_in(c, 1), "");
  EXPECT_EQ(runner::smcr_field_missing_in(c, 2), "llc.confirm_link llc.length");
  o.smcr_version = 2;
  const CaseResult r = run_case(c, o);
  EXPECT_EQ(r.verdict, Verdict::kUnimplemented);
  EXPECT_NE(r.reason.find("llc.length"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.frames.empty());
  o.smcr_version = 1;
  EXPECT_EQ(run_case(c, o).verdict, Verdict::kPass);
  // A send step's field counts too (llc.add_link.rsn_code is version 1's).
  EXPECT_NE(runner::smcr_field_missing_in(one("smcr-single-link-goes-on"), 2), "");
}

// A tester with one RoCE port leaves out the cases that need a second link.
TEST(SmcrSuite, TheLinksACaseNamesAreCounted) {
  EXPECT_EQ(smcr_links_named(one("smcr-confirm-link-as-announced")), 1u);
  EXPECT_EQ(smcr_links_named(one("smcr-close-passive")), 2u);  // < smcr.link_up link=2
  EXPECT_EQ(smcr_links_named(one("smcr-failover")), 2u);
}

TEST(SmcrSuite, ScriptsNameOnlyUnitsAndFieldsTheDeclarationsHave) {
  for (const char* bad : {"> llc.no_such_message\n", "> llc.test_link test_link.no_such_field=1\n",
                          "< cdc cdc.no_such_flag=1\n", "> data.write bytes=1\n"}) {
    auto parsed = parse_script(std::string("id: smcr-x\ntitle: t\nrequirement: rfc7609-a.3.8-test-link-echo\n"
                                           "rfc: RFC 7609\nlevel: MUST\nrole: responder\n\n") +
                                   bad,
                               "x.case");
    ASSERT_TRUE(std::holds_alternative<std::vector<Case>>(parsed)) << bad;
    Case c = std::get<std::vector<Case>>(parsed).at(0);
    c.protocol = "smcr";
    EXPECT_FALSE(check_case(c).empty()) << bad;
  }
  auto checked = [](const std::string& header, const std::string& steps) {
    auto parsed = parse_script("id: smcr-x\ntitle: t\nrequirement: rfc7609-a.3.8-test-link-echo\nrfc: RFC 7609\n"
                               "level: MUST\nrole: " + header + "\n\n" + steps,
                               "x.case");
    EXPECT_TRUE(std::holds_alternative<std::vector<Case>>(parsed)) << steps;
    if (!std::holds_alternative<std::vector<Case>>(parsed)) return std::vector<std::string>{"unparsed"};
    Case c = std::get<std::vector<Case>>(parsed).at(0);
    c.protocol = "smcr";
    return check_case(c);
  };
  // In role initiator the IUT is the SMC client and the tester's side the
  // server: its Proposal comes first.
  EXPECT_EQ(checked("initiator", "< clc.proposal\n"), std::vector<std::string>{});
  // Asking the IUT to act on its own is a need the case declares.
  const auto errors = checked("responder", "> smcr.iut.close\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("smcr-actions"), std::string::npos) << errors[0];
  EXPECT_EQ(checked("responder\nneeds: smcr-actions", "> smcr.iut.close\n"), std::vector<std::string>{});
  // So is stalling a link, which only a fabric the tester controls can.
  const auto stall = checked("responder", "> smcr.stall_link link=1\n");
  ASSERT_EQ(stall.size(), 1u);
  EXPECT_NE(stall[0].find("smcr-fabric"), std::string::npos) << stall[0];
  EXPECT_EQ(checked("responder\nneeds: smcr-fabric", "> smcr.stall_link link=1\n"), std::vector<std::string>{});
}

// The reference IUT's side as a device is to the tester once its first link
// is connected (in_process false; before, the in-memory IUT's side exists
// only once it took the Confirm): it runs only when the tester's phase
// drives it, and each drive is timed.
class AsDevice final : public RoceSide {
 public:
  // `late`: the IUT's first drives once connected do nothing (an IUT slow to
  // send its first CONFIRM LINK).
  AsDevice(std::unique_ptr<RoceSide> inner, std::vector<std::chrono::steady_clock::time_point>& drives, int late = 0)
      : inner_(std::move(inner)), late_(late), drives_(drives) {}
  smcr::Host& host() override { return inner_->host(); }
  std::optional<RoceFirstLink> first_link(std::uint64_t size, std::string& error) override {
    return inner_->first_link(size, error);
  }
  std::optional<smcr::LinkAddress> alternate() const override { return inner_->alternate(); }
  bool connect_first(smcr::QueuePair& qp, std::uint32_t peer, const smcr::PeerPath& path, std::string& error) override {
    connected_ = inner_->connect_first(qp, peer, path, error);
    return connected_;
  }
  bool drive(smcr::Time now) override {
    drives_.push_back(std::chrono::steady_clock::now());
    if (connected_ && late_ > 0) {
      --late_;
      return false;
    }
    return inner_->drive(now);
  }
  bool in_process() const override { return !connected_; }
  bool break_link(smcr::QueuePair& qp) override { return inner_->break_link(qp); }

 private:
  std::unique_ptr<RoceSide> inner_;
  int late_ = 0;
  bool connected_ = false;
  std::vector<std::chrono::steady_clock::time_point>& drives_;
};

Case smcr_script(const std::string& steps, const std::string& requirement = "rfc7609-a.4-sequence-number") {
  auto parsed = parse_script("id: smcr-x\ntitle: t\nrequirement: " + requirement + "\nrfc: RFC 7609\n"
                             "level: MUST\nrole: responder\nneeds: clc, roce\n\n"
                             "> clc.proposal offer=v1\n< clc.accept\n> clc.confirm\n< smcr.link_up link=2\n" +
                                 steps,
                             "x.case");
  EXPECT_TRUE(std::holds_alternative<std::vector<Case>>(parsed));
  Case c = std::get<std::vector<Case>>(parsed).at(0);
  c.protocol = "smcr";
  return c;
}

// The reference behind a RoCE side that behaves as a device's (AsDevice),
// recording each time the tester drives it; a case of `steps` after the
// link group is up runs through it.
struct DrivenAsDevice {
  Reference ref;
  std::vector<std::chrono::steady_clock::time_point> drives;
  RunOptions options = ref.options;

  DrivenAsDevice() {
    RoceFactory memory = ref.options.roce;
    options.roce = [this, memory](const RoceEndpoints& e, std::string& error) -> std::unique_ptr<RoceSide> {
      auto inner = memory(e, error);
      if (!inner) return nullptr;
      return std::make_unique<AsDevice>(std::move(inner), drives);
    };
    options.time_scale = 1;
  }
  DrivenAsDevice(const DrivenAsDevice&) = delete;
  DrivenAsDevice& operator=(const DrivenAsDevice&) = delete;

  CaseResult run(const std::string& steps) {
    return run_case(smcr_script(steps, "rfc7609-a.3.8-test-link-echo"), options);
  }
  // The longest time between two drives.
  std::chrono::nanoseconds widest_gap() const {
    std::chrono::nanoseconds widest{0};
    for (std::size_t i = 1; i < drives.size(); ++i) widest = std::max(widest, drives[i] - drives[i - 1]);
    return widest;
  }
};

// A device's IUT goes on while the tester waits (its TEST LINKs, §4.5.3,
// want an answer within seconds): the tester's side keeps answering through
// a `wait` rather than sleeping through it.
TEST(SmcrSuite, TheTestersSideAnswersThroughAWaitOnADevice) {
  DrivenAsDevice d;
  const CaseResult r = d.run("wait 600ms\n");
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  // From the first link on, through the wait and the link group's end, the
  // drives come at most 200 ms apart (a loaded machine's scheduler allowed
  // for), where a tester asleep for the whole wait drives once after it.
  ASSERT_GE(d.drives.size(), 2u);
  EXPECT_LT(d.widest_gap(), std::chrono::milliseconds(200));
}

// The tester's link group starts on the clock of the moment, not of the
// phase's last pump: after 2.5 s between the tester's CLC Confirm and its
// first smcr step (Linux held an Accept that long), an IUT whose CONFIRM
// LINK comes a few drives later still finds the tester waiting for it
// (kLlcWaitTime, 2 s, from the group's start).
TEST(SmcrSuite, TheTestersGroupWaitsForTheFirstConfirmLinkFromItsStart) {
  Reference ref;
  std::vector<std::chrono::steady_clock::time_point> drives;
  RoceFactory memory = ref.options.roce;
  RunOptions o = ref.options;
  o.time_scale = 1;
  o.roce = [&](const RoceEndpoints& e, std::string& error) -> std::unique_ptr<RoceSide> {
    auto inner = memory(e, error);
    if (!inner) return nullptr;
    return std::make_unique<AsDevice>(std::move(inner), drives, 3);
  };
  auto parsed = parse_script("id: smcr-x\ntitle: t\nrequirement: rfc7609-a.3.8-test-link-echo\nrfc: RFC 7609\n"
                             "level: MUST\nrole: responder\nneeds: clc, roce\n\n"
                             "> clc.proposal offer=v1\n< clc.accept\n> clc.confirm\nwait 2500ms\n< smcr.link_up link=2\n"
                             "> data.write octets=10\n< data octets=10\n",
                             "x.case");
  ASSERT_TRUE(std::holds_alternative<std::vector<Case>>(parsed));
  Case c = std::get<std::vector<Case>>(parsed).at(0);
  c.protocol = "smcr";
  const CaseResult r = run_case(c, o);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
}

// `wait D unscaled` stands for the IUT's own timer: --time-scale leaves it
// as written (here 150 ms where the scaled wait takes 40 times as long; the case's own
// steps and the tester's leave take about a second more), and
// the case's timeout stretches by the rest only.
TEST(SmcrSuite, AnUnscaledWaitIsAsWritten) {
  DrivenAsDevice d;
  d.options.time_scale = 40;
  const auto timed = [&d](const std::string& steps) {
    const auto before = std::chrono::steady_clock::now();
    const CaseResult r = d.run(steps);
    EXPECT_EQ(r.verdict, Verdict::kPass) << steps << ": " << r.reason;
    return std::chrono::steady_clock::now() - before;
  };
  const auto unscaled = timed("wait 150ms unscaled\n");
  EXPECT_GE(unscaled, std::chrono::milliseconds(150));
  EXPECT_LT(unscaled, std::chrono::milliseconds(4500));
  EXPECT_GE(timed("wait 150ms\n"), std::chrono::milliseconds(6000));
}

// The same through a wait on TCP (a later connection's CLC, a close): a
// device's IUT may ask first and wait for the answer (Linux's CONFIRM RKEY
// for a later connection's RMB comes before its Accept, §3.5.5.2.1). Here
// the TCP wait is one the reference never answers (a Decline after the
// link is up): the drives go on through it.
TEST(SmcrSuite, TheTestersSideAnswersThroughAWaitOnTcp) {
  DrivenAsDevice d;
  const auto before = std::chrono::steady_clock::now();
  const CaseResult r = d.run("< clc.decline\n");
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.reason;  // no Decline comes
  EXPECT_GT(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(500)) << "the wait on TCP was short";
  ASSERT_GE(d.drives.size(), 2u);
  EXPECT_LT(d.widest_gap(), std::chrono::milliseconds(200));
}

// A script's own CDC message takes the tester's next sequence number; the
// tester's connection goes on after it (A.4), so the IUT takes the data
// that follows rather than discarding its CDC message as old, and echoes it.
TEST(SmcrSuite, TheTestersConnectionFollowsTheScriptsSequenceNumber) {
  Reference ref;
  const CaseResult r = run_case(smcr_script("> cdc\n> data.write octets=100\n< data octets=100\n"), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
}

// §4.5.3: past a link's quiet time (30 s) either side sends TEST LINK; the
// keepalive and its reply break no `< silence`, any other message does.
TEST(SmcrSuite, AKeepaliveBreaksNoSilence) {
  Reference ref;
  const CaseResult quiet = run_case(smcr_script("wait 40s\n< silence\n"), ref.options);
  EXPECT_EQ(quiet.verdict, Verdict::kPass) << quiet.reason;
  const CaseResult data = run_case(smcr_script("> data.write octets=10\n< silence\n"), ref.options);
  EXPECT_EQ(data.verdict, Verdict::kFail) << data.reason;
}

// `ends_case` in the smcr phase: the alternative that matches settles the
// case as passed; the steps after it are not run.
TEST(SmcrSuite, AnAlternativeEndingTheCaseSettlesIt) {
  Reference ref;
  // The reference aborts on a consumer cursor ahead of the data (A.4): the
  // steps after the alternative (data never echoed) are not run.
  const CaseResult ended = run_case(
      smcr_script("> cdc cdc.cons_cursor=0x2000\n< cdc cdc.conn_abort=1 ends_case | silence\n"
                  "> data.write octets=10\n< data octets=10\n"),
      ref.options);
  EXPECT_EQ(ended.verdict, Verdict::kPass) << ended.reason;
  const CaseResult on = run_case(
      smcr_script("> data.write octets=10\n< data octets=10 ends_case | silence\n< data octets=99\n"), ref.options);
  EXPECT_EQ(on.verdict, Verdict::kPass) << on.reason;
}

// §4.4.2: connection 2 ends on both sides (the tester's D and C, the
// IUT's C); the reference IUT gives its element of the RMB (and alert
// token) to the next connection of the group, which then moves data.
TEST(SmcrSuite, TheReferenceGivesAFreedRmbeToTheNextConnection) {
  Reference ref;
  const CaseResult r = run_case(
      smcr_script("> data.write octets=10\n< data octets=10\n"
                  "connection 2\n> clc.proposal offer=v1\n< clc.accept first_contact=0 smcr.rmbe_index=@r2\n"
                  "> clc.confirm\n> data.write octets=20\n< data octets=20\n"
                  "> smcr.shutdown\n> smcr.close\n< cdc cdc.conn_closed=1\n"
                  "connection 3\n> clc.proposal offer=v1\n< clc.accept first_contact=0 smcr.rmbe_index=@r2\n"
                  "> clc.confirm\n> data.write octets=30\n< data octets=30\n"
                  "connection 1\n> data.write octets=40\n< data octets=50\n"),
      ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
}

// The tester judges each later Accept's RMBE (check::rmbe_reuse_after_close):
// an IUT that frees an RMBE once it sent its own C, before the tester's,
// names it for the next connection while connection 2 still holds it.
TEST(SmcrSuite, TheTesterReportsAnRmbeNamedWhileItsConnectionIsOpen) {
  const Case c = smcr_script(
      "connection 2\n> clc.proposal offer=v1\n< clc.accept first_contact=0\n> clc.confirm\n"
      "> data.write octets=20\n< data octets=20\n> smcr.shutdown\n< cdc cdc.conn_closed=1\n"
      "connection 3\n> clc.proposal offer=v1\n< clc.accept first_contact=0\n> clc.confirm\n"
      "> data.write octets=30\n< data octets=30\n");
  Reference clean;
  const CaseResult pass = run_case(c, clean.options);
  EXPECT_EQ(pass.verdict, Verdict::kPass) << pass.reason;
  FaultSet f;
  f.set(FaultId::kSmcrRmbeFreedEarly);
  Reference early(f);
  const CaseResult fail = run_case(c, early.options);
  EXPECT_EQ(fail.verdict, Verdict::kFail);
  EXPECT_NE(fail.reason.find("rfc7609-4.4.2-rmbe-reuse-after-close"), std::string::npos) << fail.reason;
}

// `< smcr.failover link=N` (§4.6.1, §2.3): a connection the IUT wrote over
// the broken link must come first with F on link N; one it wrote over
// another link has nothing to validate. The reference keeps both
// connections on link 1: breaking link 2 moves none of them, breaking
// link 1 both, and an IUT that moves one only or sends no F fails (the
// latter's CDC message without F already breaks the sequence the tester's
// connection checks).
TEST(SmcrSuite, AFailoverIsAskedOfTheConnectionsOnTheBrokenLinkOnly) {
  const std::string two = "> data.write octets=10\n< data octets=10\n"
                          "connection 2\n> clc.proposal offer=v1\n< clc.accept first_contact=0\n> clc.confirm\n"
                          "> data.write octets=20\n< data octets=20\n";
  const auto nothing_to_validate = [](const CaseResult& r) {
    return std::count_if(r.frames.begin(), r.frames.end(), [](const FrameRecord& f) {
      return f.headline.find("smcr.failover") != std::string::npos && f.detail.find("nothing to validate") != std::string::npos;
    });
  };
  Reference ref;
  const CaseResult stay = run_case(
      smcr_script(two + "> smcr.break_link link=2\n< smcr.failover link=1\n> data.write octets=5\n< data octets=25\n"
                        "connection 1\n< smcr.failover link=1\n> data.write octets=5\n< data octets=15\n"),
      ref.options);
  EXPECT_EQ(stay.verdict, Verdict::kPass) << stay.reason;
  EXPECT_EQ(nothing_to_validate(stay), 2);
  const CaseResult moved = run_case(one("smcr-failover-every-connection"), ref.options);
  EXPECT_EQ(moved.verdict, Verdict::kPass) << moved.reason;
  EXPECT_EQ(nothing_to_validate(moved), 0);
  FaultSet no_f;
  no_f.set(FaultId::kSmcrNoFailoverValidation);
  Reference without_f(no_f);
  const CaseResult unvalidated = run_case(one("smcr-failover-every-connection"), without_f.options);
  EXPECT_EQ(unvalidated.verdict, Verdict::kFail) << unvalidated.reason;
  FaultSet one_only;
  one_only.set(FaultId::kSmcrFailoverMovesOne);
  Reference moves_one(one_only);
  EXPECT_EQ(run_case(one("smcr-failover-every-connection"), moves_one.options).verdict, Verdict::kFail);
  // Without a break first the step is the script's error.
  const CaseResult unbroken = run_case(smcr_script("> data.write octets=10\n< data octets=10\n< smcr.failover link=2\n"), ref.options);
  EXPECT_EQ(unbroken.verdict, Verdict::kError);
  EXPECT_NE(unbroken.reason.find("follows > smcr.break_link"), std::string::npos) << unbroken.reason;
}

// The tester's first link's queue pair, recording what the tester posts on it.
class RecordingQp final : public smcr::QueuePair {
 public:
  explicit RecordingQp(smcr::QueuePair& inner) : inner(inner) {}
  std::uint32_t qp_number() const override { return inner.qp_number(); }
  bool broken() const override { return inner.broken(); }
  smcr::WorkId post_send(wire::Bytes m) override {
    sent.emplace_back(m.begin(), m.end());
    return inner.post_send(m);
  }
  smcr::WorkId post_write(smcr::RToken t, wire::Bytes o) override {
    sent.emplace_back();  // a Write: an empty entry, in order
    return inner.post_write(t, o);
  }
  std::optional<smcr::QpEvent> poll() override { return inner.poll(); }
  smcr::QueuePair& inner;
  std::vector<std::vector<std::uint8_t>> sent;
};

class RecordingSide final : public RoceSide {
 public:
  RecordingSide(std::unique_ptr<RoceSide> inner, std::unique_ptr<RecordingQp>& qp) : inner_(std::move(inner)), qp_(qp) {}
  smcr::Host& host() override { return inner_->host(); }
  std::optional<RoceFirstLink> first_link(std::uint64_t size, std::string& error) override {
    auto f = inner_->first_link(size, error);
    if (f) qp_ = std::make_unique<RecordingQp>(*f->qp), f->qp = qp_.get();
    return f;
  }
  std::optional<smcr::LinkAddress> alternate() const override { return inner_->alternate(); }
  bool connect_first(smcr::QueuePair& qp, std::uint32_t peer, const smcr::PeerPath& path, std::string& error) override {
    return inner_->connect_first(&qp == qp_.get() ? qp_->inner : qp, peer, path, error);
  }
  bool drive(smcr::Time now) override { return inner_->drive(now); }
  bool in_process() const override { return inner_->in_process(); }
  bool break_link(smcr::QueuePair& qp) override { return inner_->break_link(&qp == qp_.get() ? qp_->inner : qp); }

 private:
  std::unique_ptr<RoceSide> inner_;
  std::unique_ptr<RecordingQp>& qp_;
};

// The reference's options with the tester's first queue pair recorded into
// `qp`; with `drives`, the tester's side run as a device's (AsDevice).
RunOptions recorded(const Reference& ref, std::unique_ptr<RecordingQp>& qp,
                    std::vector<std::chrono::steady_clock::time_point>* drives = nullptr) {
  RunOptions o = ref.options;
  o.roce = [memory = ref.options.roce, &qp, drives](const RoceEndpoints& e, std::string& error) -> std::unique_ptr<RoceSide> {
    auto inner = memory(e, error);
    if (!inner) return nullptr;
    if (drives) inner = std::make_unique<AsDevice>(std::move(inner), *drives);
    return std::make_unique<RecordingSide>(std::move(inner), qp);
  };
  return o;
}

// The CDC messages the tester posted on its first link with C set, in
// order, and where the first of its DELETE LINKs is (sent.size(): none).
struct TestersClose {
  std::size_t closes = 0;
  std::size_t first_close = 0, first_delete_link = 0;
};
TestersClose testers_close(const RecordingQp& qp) {
  TestersClose t{0, qp.sent.size(), qp.sent.size()};
  for (std::size_t i = 0; i < qp.sent.size(); ++i) {
    const auto& m = qp.sent[i];
    if (m.size() != smcr::kLlcMessageSize) continue;
    if (m[0] == 0xFE) {
      const auto c = smcr::decode_cdc(m);
      if (c && c->header.get(smcr::CdcSpec::Field::C) != 0 && t.closes++ == 0) t.first_close = i;
    } else if ((m[0] & 0x0F) == smcr::llc_type::kDeleteLink && t.first_delete_link == qp.sent.size()) {
      t.first_delete_link = i;
    }
  }
  return t;
}

// App. A.4: once the script sent the connection's C itself, the tester's
// connection sends nothing more on it: neither the rest of the data the
// script queued nor CDC messages of its own.
TEST(SmcrSuite, NothingFollowsTheScriptsOwnClose) {
  Reference ref;
  std::unique_ptr<RecordingQp> qp;
  RunOptions o = recorded(ref, qp);
  const CaseResult r = run_case(smcr_script("> smcr.stop_reading\n> data.write octets=200000\n> cdc cdc.conn_closed=1\n> smcr.resume_reading\nwait 300ms\n"), o);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  ASSERT_TRUE(qp);
  const std::size_t closed = testers_close(*qp).first_close;
  ASSERT_LT(closed, qp->sent.size()) << "the script's C was not sent";
  for (auto it = qp->sent.begin() + static_cast<std::ptrdiff_t>(closed) + 1; it != qp->sent.end(); ++it)
    EXPECT_FALSE(it->empty() || it->at(0) == 0xFE) << "the tester sent a Write or a CDC message after its C";
}

// After `> smcr.manual` the tester has no link group, yet it leaves a
// device's IUT as a client leaves (§3.5.4): DELETE LINK with A over the
// first link, its last Send there. Without it Linux went on sending to the
// case's queue pair once it was gone (its ADD LINK unanswered, its CDC
// message after the TCP close, retransmitted without end over rxe).
TEST(SmcrSuite, AManualCaseLeavesTheIutWithDeleteLink) {
  Reference ref;
  std::vector<std::chrono::steady_clock::time_point> drives;
  std::unique_ptr<RecordingQp> qp;
  RunOptions o = recorded(ref, qp, &drives);
  o.time_scale = 1;
  const CaseResult r = run_case(one("smcr-test-link-during-add-link"), o);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  ASSERT_TRUE(qp);
  ASSERT_FALSE(qp->sent.empty());
  const std::vector<std::uint8_t>& last = qp->sent.back();
  ASSERT_EQ(last.size(), smcr::kLlcMessageSize);
  EXPECT_EQ(last[0] & 0x0F, smcr::llc_type::kDeleteLink);
  EXPECT_EQ(last[3] & 0xC0, 0x40) << "a request with A";
}

// §4.8.1: a case that leaves its connection open ends it as an application
// closes its socket: the tester's C first, then TCP's FIN
// (runner::smcr_close_before_fin), and on a device its leave of the link
// group (DELETE LINK) after both; a script that closed the connection
// itself gets no second C.
TEST(SmcrSuite, TheTestersCloseComesBeforeItsFin) {
  Reference ref;
  std::unique_ptr<RecordingQp> qp;
  RunOptions o = recorded(ref, qp);
  const CaseResult open = run_case(smcr_script("> data.write octets=100\n< data octets=100\n"), o);
  EXPECT_EQ(open.verdict, Verdict::kPass) << open.reason;
  ASSERT_TRUE(qp);
  EXPECT_EQ(testers_close(*qp).closes, 1u) << "the tester left its connection without its C";
  qp.reset();
  const CaseResult closed = run_case(smcr_script("> smcr.close\n< cdc cdc.conn_closed=1\n"), o);
  EXPECT_EQ(closed.verdict, Verdict::kPass) << closed.reason;
  ASSERT_TRUE(qp);
  EXPECT_EQ(testers_close(*qp).closes, 1u);

  // On a device: the C, its Send completed, before the leave.
  std::vector<std::chrono::steady_clock::time_point> drives;
  o = recorded(ref, qp, &drives);
  o.time_scale = 1;
  qp.reset();
  const CaseResult device = run_case(smcr_script("> data.write octets=100\n< data octets=100\n"), o);
  EXPECT_EQ(device.verdict, Verdict::kPass) << device.reason;
  ASSERT_TRUE(qp);
  const TestersClose t = testers_close(*qp);
  EXPECT_EQ(t.closes, 1u);
  EXPECT_LT(t.first_close, t.first_delete_link) << "the C did not come before the tester's DELETE LINK";
  EXPECT_LT(t.first_delete_link, qp->sent.size()) << "the tester did not leave the link group";
}

// §3.5.2.2, §3.5.2.3: a later connection's Confirm names the tester's end
// of the link the IUT's Accept chose, with the tester's RMB as registered
// on that link (a server takes the Confirm's RToken for the link it names:
// Linux 6.12 takes it for its own choice, docs/interop-6.12.md); an Accept
// naming no active link leaves the Confirm alone.
TEST(SmcrSuite, ALaterConfirmNamesTheTestersEndOfTheAcceptsLink) {
  using namespace smcr;
  const auto port = [](std::uint8_t d, Mac mac) {
    return LinkAddress{mac, Gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, d}};
  };
  const LinkAddress iut1 = port(1, 0x020000000001), iut2 = port(11, 0x020000000011);
  const LinkAddress tester1 = port(2, 0x020000000002), tester2 = port(12, 0x020000000012);
  MemoryFabric fabric;
  LinkGroupConfig iut_cfg, tester_cfg;
  iut_cfg.role = smcr::Role::kServer;
  iut_cfg.alternate = iut2;
  tester_cfg.role = smcr::Role::kClient;
  tester_cfg.alternate = tester2;
  iut_cfg.test_link_time = tester_cfg.test_link_time = Time{0};
  LinkGroup iut(iut_cfg, fabric.host(0)), tester(tester_cfg, fabric.host(1));
  auto& iq = fabric.create_qp(0);
  auto& tq = fabric.create_qp(1);
  MemoryFabric::connect(iq, tq);
  const std::uint32_t irmb = *fabric.host(0).allocate_rmb(65536), trmb = *fabric.host(1).allocate_rmb(65536);
  const RToken irt = *fabric.host(0).register_rmb(irmb, iq), trt = *fabric.host(1).register_rmb(trmb, tq);
  iut.start({&iq, iut1, {tester1.mac, tester1.gid, tq.qp_number()}, irmb, trt}, Time{0});
  tester.start({&tq, tester1, {iut1.mac, iut1.gid, iq.qp_number()}, trmb, irt}, Time{0});
  for (int i = 0; i < 10000 && (iut.poll(Time{0}) || tester.poll(Time{0}));) ++i;
  ASSERT_EQ(tester.active_links(), 2u);
  const auto slot2 = tester.slot_of(2);
  ASSERT_TRUE(slot2);
  const LinkGroup::Link& mine = tester.links()[*slot2];
  clc::SmcrLink accept;  // the IUT's Accept names its end of link 2
  accept.gid = iut2.gid;
  accept.qp_number = mine.peer.qp;
  const auto own = runner::smcr_own_end(tester, trmb, accept);
  ASSERT_TRUE(own);
  EXPECT_EQ(own->gid, tester2.gid);
  EXPECT_EQ(own->qp_number, mine.qp->qp_number());
  EXPECT_NE(own->qp_number, tq.qp_number());
  const auto on2 = tester.local_rtoken(trmb, 2);
  ASSERT_TRUE(on2);
  EXPECT_EQ(own->rmb_rkey, on2->rkey);
  EXPECT_EQ(own->rmb_virtual_address, on2->virtual_address);
  EXPECT_EQ(own->mac, (clc::Mac{0x02, 0, 0, 0, 0, 0x12}));
  accept.gid = iut1.gid;  // link 1: the first link's end and RToken
  accept.qp_number = iq.qp_number();
  const auto first = runner::smcr_own_end(tester, trmb, accept);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->qp_number, tq.qp_number());
  EXPECT_EQ(first->rmb_rkey, trt.rkey);
  accept.qp_number = 0x999;  // no link of the group
  EXPECT_FALSE(runner::smcr_own_end(tester, trmb, accept));
}

// The tester's stream made a run at a time is the stream octet by octet:
// from every offset within and across runs of 256 and of 65,536, for
// lengths that end inside, at and past a run's end.
TEST(SmcrStream, RunsAreTheStreamOctetByOctet) {
  for (std::uint64_t from : {0ull, 1ull, 200ull, 255ull, 256ull, 65'400ull, 65'535ull, 65'536ull, 16'777'000ull,
                             (1ull << 40) - 3}) {
    for (std::size_t n : {0u, 1u, 55u, 56u, 57u, 256u, 300u, 16'384u, 70'000u}) {
      std::vector<std::uint8_t> got(n, 0xEE);
      runner::stream_octets(from, got);
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(got[i], runner::stream_octet(from + i)) << "from " << from << ", octet " << i << " of " << n;
    }
  }
}

// A device's queue pairs connect only with the peer's path (ADD LINK's
// MAC, GID and PSN): the tap hands it on rather than dropping it.
TEST(TapHost, HandsThePeersPathOn) {
  // A host that records the path it was asked to connect with.
  struct PathRecorder final : smcr::Host {
    explicit PathRecorder(smcr::Host& inner) : inner(inner) {}
    smcr::Host& inner;
    std::optional<smcr::PeerPath> seen;
    smcr::QueuePair* create_qp(const smcr::Gid& local) override { return inner.create_qp(local); }
    bool connect(smcr::QueuePair& qp, std::uint32_t peer) override { return inner.connect(qp, peer); }
    bool connect_path(smcr::QueuePair& qp, std::uint32_t peer, const smcr::PeerPath& path) override {
      seen = path;
      return inner.connect(qp, peer);
    }
    void destroy_qp(smcr::QueuePair& qp) override { inner.destroy_qp(qp); }
    std::optional<std::uint32_t> allocate_rmb(std::uint64_t size) override { return inner.allocate_rmb(size); }
    wire::MutableBytes rmb(std::uint32_t id) override { return inner.rmb(id); }
    std::optional<smcr::RToken> register_rmb(std::uint32_t id, smcr::QueuePair& qp) override {
      return inner.register_rmb(id, qp);
    }
    void deregister_rmb(std::uint32_t id, smcr::QueuePair& qp) override { inner.deregister_rmb(id, qp); }
  };
  smcr::MemoryFabric fabric;
  PathRecorder recorder(fabric.host(0));
  TapHost tap(recorder);
  smcr::QueuePair* mine = tap.create_qp({});
  smcr::QueuePair* theirs = fabric.host(1).create_qp({});
  ASSERT_NE(mine, nullptr);
  ASSERT_NE(theirs, nullptr);
  const smcr::PeerPath path{0x020000000013, {0xfe, 0x80}, 0x123456, 3, 0x10};
  (void)tap.connect_path(*mine, theirs->qp_number(), path);
  ASSERT_TRUE(recorder.seen);
  EXPECT_EQ(recorder.seen->mac, path.mac);
  EXPECT_EQ(recorder.seen->gid, path.gid);
  EXPECT_EQ(recorder.seen->psn, 0x123456u);
  EXPECT_EQ(recorder.seen->mtu, 3);
  EXPECT_EQ(recorder.seen->local_psn, 0x10u);
}

TEST(TapHost, HoldsBackAndChangesSends) {
  smcr::MemoryFabric fabric;
  smcr::MemoryQueuePair& a = fabric.create_qp(0);
  smcr::MemoryQueuePair& b = fabric.create_qp(1);
  smcr::MemoryFabric::connect(a, b);
  TapHost tap(fabric.host(0)), peer(fabric.host(1));
  tap.outgoing = [](smcr::QueuePair&, std::vector<std::uint8_t>& m) {
    if (m[0] == 0x07) return false;  // held back
    m[1] = 0xAA;                     // changed
    return true;
  };
  std::vector<std::vector<std::uint8_t>> seen;
  peer.incoming = [&](smcr::QueuePair&, std::vector<std::uint8_t>& m) {
    seen.push_back(m);
    return true;
  };
  TapQueuePair* ta = tap.adopt(a);
  TapQueuePair* tb = peer.adopt(b);
  ASSERT_EQ(tap.find(a.qp_number()), ta);
  ta->post_send(std::vector<std::uint8_t>{0x07, 1, 2, 3});
  ta->post_send(std::vector<std::uint8_t>{0x01, 1, 2, 3});
  int received = 0;
  while (auto e = tb->poll())
    if (e->kind == smcr::QpEvent::Kind::kReceive) {
      ++received;
      EXPECT_EQ(e->octets, (std::vector<std::uint8_t>{0x01, 0xAA, 2, 3}));
    }
  EXPECT_EQ(received, 1);
  EXPECT_EQ(seen.size(), 1u);
}

// A queue pair destroyed while the tap holds them stays alive and takes
// what the peer still sends, until release_held() destroys it.
TEST(TapHost, HoldsDestroyedQueuePairsUntilReleased) {
  smcr::MemoryFabric fabric;
  fabric.record_sends = true;
  smcr::MemoryQueuePair& a = fabric.create_qp(0);
  smcr::MemoryQueuePair& b = fabric.create_qp(1);
  smcr::MemoryFabric::connect(a, b);
  TapHost tap(fabric.host(0));
  TapQueuePair* ta = tap.adopt(a);
  tap.hold_destroyed();
  tap.destroy_qp(*ta);
  EXPECT_EQ(tap.find(a.qp_number()), nullptr);
  b.post_send(std::vector<std::uint8_t>{0x01, 1, 2, 3});
  while (b.poll()) {
  }
  EXPECT_TRUE(tap.poll_held());
  ASSERT_EQ(fabric.sends.size(), 1u);  // delivered: a lives on
  tap.release_held();
  b.post_send(std::vector<std::uint8_t>{0x01, 4, 5, 6});
  while (b.poll()) {
  }
  EXPECT_EQ(fabric.sends.size(), 1u);  // a is gone
}

}  // namespace
}  // namespace rdmaconf::conformance
