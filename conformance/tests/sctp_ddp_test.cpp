// The ddp and rdmap suites over SCTP (RunOptions::llp, docs/sctp-ddp.md)
// against the reference IUT's association in memory: every case whose
// meaning does not rest on MPA or TCP runs and passes, over DDP Segment
// Chunks; the others are unimplemented with the reason their script gives;
// the DDP and RDMAP faults of the reference are caught over SCTP as over MPA.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "engine/engine.hpp"
#include "engine/needs.hpp"
#include "engine/sctp_transport.hpp"

namespace rdmaconf::conformance {
namespace {

const Catalogue& catalogue() {
  static const Catalogue c = load_catalogue(RDMACONF_SOURCE_DIR "/conformance/cases");
  return c;
}

RunOptions over_sctp(FaultSet f = {}) {
  RunOptions o;
  o.time_scale = 0.25;
  o.jobs = 2;
  o.llp = RunOptions::Llp::kSctp;
  o.sctp = memory_sctp_factory(f);
  return o;
}

// The case of that id, or the first of a family (`ddp-bounds-beyond-end*`).
const Case& one(std::string_view id) {
  auto cs = select(catalogue(), {}, {std::string(id)});
  EXPECT_GE(cs.size(), 1u) << id;
  return *cs.at(0);
}

bool carried_by_chunks(const CaseResult& r) {
  return std::any_of(r.frames.begin(), r.frames.end(),
                     [](const FrameRecord& f) { return f.headline.find("DDP Segment Chunk") != std::string::npos; });
}

// The counts are pinned: a case that starts or stops running over SCTP, or
// stops passing there, shows here.
TEST(SctpDdp, SuitesRunOverSctpAgainstTheReference) {
  ASSERT_TRUE(catalogue().errors.empty()) << catalogue().errors.front().to_string();
  const auto cases = select(catalogue(), {"ddp", "rdmap"}, {});
  std::map<Verdict, int> counts;
  for (const CaseResult& r : run_cases(cases, over_sctp())) {
    ++counts[r.verdict];
    if (r.verdict == Verdict::kUnimplemented) {
      // Left out by what its script says, never after running.
      EXPECT_EQ(r.reason.rfind("not over SCTP (RFC 5043): ", 0), 0u) << r.c->id << ": " << r.reason;
      EXPECT_FALSE(mpa_bound(*r.c).empty()) << r.c->id;
      EXPECT_TRUE(r.frames.empty()) << r.c->id;
      continue;
    }
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.c->id << ": " << r.reason;
    EXPECT_TRUE(mpa_bound(*r.c).empty()) << r.c->id;
    // Every unit of the case went in DDP Segment Chunks, none through MPA.
    EXPECT_TRUE(carried_by_chunks(r)) << r.c->id;
    EXPECT_FALSE(r.negotiated.has_value()) << r.c->id;
  }
  EXPECT_EQ(counts[Verdict::kPass], 244);
  EXPECT_EQ(counts[Verdict::kUnimplemented], 21);
  EXPECT_EQ(counts[Verdict::kPass] + counts[Verdict::kUnimplemented], static_cast<int>(cases.size()));
}

// Faults of DDP and RDMAP (in rdmap::Stream and at the outgoing seams the
// TCP path shares) fail the case of their rule over SCTP too.
TEST(SctpDdp, StreamFaultsAreCaughtOverSctp) {
  const std::pair<FaultId, std::string_view> kProofs[] = {
      {FaultId::kUntaggedMsnFromZero, "ddp-echo-msn-increment"},
      {FaultId::kNoCloseAfterTerminate, "rdmap-terminate-then-close"},
      {FaultId::kTerminateWrongCode, "ddp-terminate-tagged-invalid-stag-copy"},
      {FaultId::kBounds, "ddp-bounds-beyond-end*"},
      {FaultId::kReadResponseWrongStag, "rdmap-read-answered"},
  };
  for (const auto& [fault, id] : kProofs) {
    FaultSet f;
    f.set(fault);
    const Case& c = one(id);
    const CaseResult clean = run_case(c, over_sctp());
    EXPECT_EQ(clean.verdict, Verdict::kPass) << id << ": " << clean.reason;
    const CaseResult broken = run_case(c, over_sctp(f));
    EXPECT_EQ(broken.verdict, Verdict::kFail) << id << " with fault " << f.names() << ": " << broken.reason;
    EXPECT_TRUE(carried_by_chunks(broken)) << id;
  }
}

// The IUT's Terminate ends the session: the tester reads its Session
// Terminate as the stream's close (RFC 5043 §6.2, §11.3).
TEST(SctpDdp, TheSessionTerminateIsTheClose) {
  const CaseResult r = run_case(one("rdmap-terminate-then-close"), over_sctp());
  ASSERT_EQ(r.verdict, Verdict::kPass) << r.reason;
  EXPECT_TRUE(std::any_of(r.frames.begin(), r.frames.end(), [](const FrameRecord& f) {
    return !f.from_tester && f.headline.starts_with("<-- Session Terminate");
  }));
}

Case parsed(std::string_view text) {
  auto r = parse_script(text, "t.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) ADD_FAILURE() << e->to_string();
  auto* cs = std::get_if<std::vector<Case>>(&r);
  return cs && !cs->empty() ? cs->front() : Case{};
}

TEST(SctpDdp, WhatRestsOnMpaIsReadFromTheScript) {
  constexpr std::string_view kHead =
      "id: ddp-x\ntitle: t\nrequirement: rfc5041-4.3-msn-increment\nrfc: RFC 5041 §4.3\nlevel: MUST\nrole: responder\n";
  EXPECT_EQ(mpa_bound(parsed(std::string(kHead) + "\nhandshake\n> send payload=4\n< send msn=1\n")), "");
  EXPECT_NE(mpa_bound(parsed(std::string(kHead) + "\nhandshake\n> send payload=4 split=3\n< send\n")).find("split"),
            std::string::npos);
  EXPECT_NE(mpa_bound(parsed(std::string(kHead) + "\nhandshake c=1\n> send payload=4\n< send\n")).find("MPA Request"),
            std::string::npos);
  EXPECT_NE(mpa_bound(parsed(std::string(kHead) + "\nhandshake\n> send payload=4\n< send crc_ok=1\n")).find("crc_ok"),
            std::string::npos);
  EXPECT_NE(mpa_bound(parsed(std::string(kHead) + "needs: mpa\n\nhandshake\n> send payload=4\n< send\n")).find("'mpa'"),
            std::string::npos);
  EXPECT_NE(mpa_bound(parsed(std::string(kHead) + "\nhandshake\n> fin\n< close fin\n")).find("TCP fin"),
            std::string::npos);
}

// Without an SCTP side a case over SCTP is the tester's error, not the IUT's failure.
TEST(SctpDdp, WithoutAnSctpSideACaseIsAnError) {
  RunOptions o = over_sctp();
  o.sctp = nullptr;
  const CaseResult r = run_case(one("ddp-echo-msn-increment"), o);
  EXPECT_EQ(r.verdict, Verdict::kError) << r.reason;
}

}  // namespace
}  // namespace rdmaconf::conformance
