// The sctp suite (runner_sctp.hpp) against the reference IUT's association
// in memory (sctp_transport.hpp): the whole suite passes; each SCTP fault of
// the reference fails the case written for its rule, with the field that
// showed it; the loader refuses what an sctp case cannot do; without an SCTP
// side a case is an error, not a failure.
#include <gtest/gtest.h>

#include "engine/engine.hpp"
#include "engine/sctp_transport.hpp"

namespace rdmaconf::conformance {
namespace {

const Catalogue& catalogue() {
  static const Catalogue c = load_catalogue(RDMACONF_SOURCE_DIR "/conformance/cases");
  return c;
}

RunOptions memory(FaultSet f = {}) {
  RunOptions o;
  o.time_scale = 0.25;
  o.jobs = 2;
  o.sctp = memory_sctp_factory(f);
  return o;
}

const Case& one(std::string_view id) {
  auto cs = select(catalogue(), {}, {std::string(id)});
  EXPECT_EQ(cs.size(), 1u) << id;
  return *cs.at(0);
}

TEST(SctpSuite, PassesAgainstTheReference) {
  ASSERT_TRUE(catalogue().errors.empty()) << catalogue().errors.front().to_string();
  const auto cases = select(catalogue(), {"sctp"}, {});
  EXPECT_GE(cases.size(), 18u);
  for (const CaseResult& r : run_cases(cases, memory())) {
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.c->id << ": " << r.reason;
    EXPECT_FALSE(r.frames.empty()) << r.c->id;
  }
}

// Each fault and a case written for its rule: the case fails (or, at MAY,
// informs) against the broken reference.
TEST(SctpSuite, EachFaultFailsTheCaseOfItsRule) {
  const std::pair<FaultId, std::string_view> kProofs[] = {
      {FaultId::kSctpNoIndication, "sctp-indication-in-init"},
      {FaultId::kSctpSkipIndicationCheck, "sctp-no-ddp-without-indication-none"},
      {FaultId::kSctpUnequalStreams, "sctp-equal-stream-counts"},
      {FaultId::kSctpAcceptNoPrivateData, "sctp-accept-private-data"},
      {FaultId::kSctpPrivateDataOver512, "sctp-private-data-max"},
      {FaultId::kSctpTerminatePrivateData, "sctp-terminate-no-private-data"},
      {FaultId::kSctpSsnGap, "sctp-no-ssn-gaps"},
      {FaultId::kSctpIllegalIgnored, "sctp-illegal-terminates-segment-first"},
      {FaultId::kSctpAnswerTwice, "sctp-legal-pattern-accepted"},
      {FaultId::kSctpAnswerTwice, "sctp-extra-only-on-request"},
      {FaultId::kSctpNeverRejects, "sctp-may-reject"},
      {FaultId::kSctpNoPendingLimit, "sctp-pending-limit"},
      {FaultId::kSctpOversizedAccepted, "sctp-reject-oversized"},
      {FaultId::kSctpSkipSsnValidityCheck, "sctp-invalid-ssn-terminate"},
      {FaultId::kSctpOrderedChunks, "sctp-unordered"},
      {FaultId::kSctpTerminateOvertakes, "sctp-control-not-overtaking"},
      {FaultId::kSctpSsnPerAssociation, "sctp-ddp-ssn-per-stream"},
      {FaultId::kSctpSegmentBeforeInitiate, "sctp-no-segment-before-initiate"},
      {FaultId::kSctpNoTerminate, "sctp-one-terminate"},
      {FaultId::kSctpTerminateTwice, "sctp-final-terminate"},
  };
  for (const auto& [fault, id] : kProofs) {
    FaultSet f;
    f.set(fault);
    const Case& c = one(id);
    const CaseResult r = run_case(c, memory(f));
    const Verdict want = c.level == Level::kMay ? Verdict::kInformational : Verdict::kFail;
    EXPECT_EQ(r.verdict, want) << id << " with fault " << f.names() << ": " << r.reason;
    EXPECT_EQ(run_case(c, memory()).verdict, Verdict::kPass) << id;
  }
}

TEST(SctpSuite, AMismatchNamesTheFieldAndWhatCame) {
  FaultSet f;
  f.set(FaultId::kSctpSsnGap);
  const CaseResult r = run_case(one("sctp-no-ssn-gaps"), memory(f));
  ASSERT_TRUE(r.failure.has_value()) << r.reason;
  EXPECT_EQ(r.failure->kind, Failure::Kind::kField);
  EXPECT_EQ(r.failure->got, "sctp.control");
  EXPECT_EQ(r.failure->field, "ddp_ssn");
  EXPECT_EQ(r.failure->have, "2");
  EXPECT_EQ(r.failure->stimulus, "sctp.control");
  // The Terminate as received: DDP-SSN 2, Function Code 4.
  EXPECT_EQ(r.failure->received, (std::vector<std::uint8_t>{0x00, 0x02, 0x00, 0x04}));
}

TEST(SctpSuite, WithoutAnSctpSideACaseIsAnErrorNotAFailure) {
  RunOptions o;
  o.time_scale = 0.25;
  const CaseResult r = run_case(one("sctp-indication-in-init"), o);
  EXPECT_EQ(r.verdict, Verdict::kError);
  EXPECT_NE(r.reason.find("no SCTP side"), std::string::npos) << r.reason;
}

std::vector<std::string> problems(std::string_view script) {
  auto parsed = parse_script(script, "t.case");
  const auto* cases = std::get_if<std::vector<Case>>(&parsed);
  EXPECT_TRUE(cases) << std::get<SyntaxError>(parsed).to_string();
  if (!cases) return {"parse"};
  Case c = cases->front();
  c.protocol = "sctp";
  return check_case(c);
}

TEST(SctpSuite, TheLoaderRefusesWhatAnSctpCaseCannotDo) {
  constexpr std::string_view kHead = "id: sctp-x\ntitle: t\nrequirement: rfc5043-10-unordered\nrfc: RFC 5043 §10\n"
                                     "level: MUST\nrole: responder\n";
  EXPECT_TRUE(problems(std::string(kHead) + "> sctp.init streams=4\n> sctp.control function=initiate pd=3\n"
                                            "< sctp.control function=accept unordered=1\n")
                  .empty());
  EXPECT_FALSE(problems(std::string(kHead) + "handshake\n").empty());
  EXPECT_FALSE(problems(std::string(kHead) + "> sctp.control function=initiate\n> sctp.init\n").empty());
  EXPECT_FALSE(problems(std::string(kHead) + "> sctp.control function=initiate color=1\n").empty());
  EXPECT_FALSE(problems(std::string(kHead) + "< sctp.control pd=3\n").empty());  // pd is sent, pd_len read
  EXPECT_FALSE(problems(std::string(kHead) + "> sctp.ack\n").empty());           // needs sctp-acks
  EXPECT_FALSE(problems(std::string(kHead) + "> mpa.request\n").empty());
}

}  // namespace
}  // namespace rdmaconf::conformance
