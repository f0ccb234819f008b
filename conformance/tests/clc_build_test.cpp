// The tester's CLC Proposals that offer SMC-D (runner_build.cpp: `smcd=`,
// `ism_gids=`, `offer=none`), sent to the reference IUT over loopback: what
// goes on the wire, read back through the declarations of reference/clc.
#include <gtest/gtest.h>

#include "clc/messages.hpp"
#include "engine/engine.hpp"
#include "engine/mutation.hpp"
#include "engine/responder.hpp"

namespace rdmaconf::conformance {
namespace {

Case clc_case(const std::string& steps) {
  auto r = parse_script("id: t\ntitle: t\nrequirement: smcv2-proposal-gid-count-max\nrfc: SMC v2\nlevel: MUST\n"
                        "role: responder\nneeds: clc\n\n" + steps,
                        "inline.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) ADD_FAILURE() << e->to_string();
  Case c = std::get<std::vector<Case>>(r).front();
  c.protocol = "clc";
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
    options = reference_options(iut, o);
  }
};

// The tester's first message, as it went on the wire.
std::vector<std::uint8_t> sent(const CaseResult& r) {
  for (const StreamChunk& ch : r.exchange.chunks)
    if (ch.from_tester) return ch.octets;
  return {};
}

// Nine GID/CHID entries: the count and Length say nine, the ninth entry is
// there, and the codec (which holds at most 8) refuses the count.
TEST(ClcBuild, IsmGidsBeyondEightAreWrittenWithTheirCountAndLength) {
  Reference ref;
  const CaseResult r = run_case(clc_case("> clc.proposal offer=v2 smcd=v2 ism_gids=9\n< clc.decline | close\n"), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  const auto octets = sent(r);
  ASSERT_GE(octets.size(), clc::kHeaderSize);
  EXPECT_EQ(clc::ClcHeader::read(octets, clc::ClcHeaderSpec::Field::Length), octets.size());
  const auto m = clc::decode(octets);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().field, "ISM GID Count") << m.error().to_string();
  EXPECT_EQ(octets[m.error().offset], 9);

  // Eight entries make a whole Proposal, 8 x 10 octets in its SMC-Dv2 extension.
  const CaseResult eight = run_case(clc_case("> clc.proposal offer=v2 smcd=v2 ism_gids=8\n< clc\n"), ref.options);
  const auto whole = clc::decode(sent(eight));
  ASSERT_TRUE(whole.ok()) << whole.error().to_string();
  const auto& p = std::get<clc::Proposal>(*whole);
  EXPECT_EQ(p.ism_gids.size(), 8u);
  EXPECT_EQ(p.smcv2_type(), clc::SmcType::kBoth);
  EXPECT_EQ(sent(eight).size() + 10, octets.size());
}

// SMC-D alone: a version 1 Proposal naming the tester's ISM device, which
// the reference (no ISM device) declines with NOSMCDDEV.
TEST(ClcBuild, SmcdAloneIsAVersion1ProposalOfSmcd) {
  Reference ref;
  const CaseResult r = run_case(clc_case("> clc.proposal offer=none smcd=v1\n< clc.decline code=0x03030001\n"), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  const auto m = clc::decode(sent(r));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  const auto& p = std::get<clc::Proposal>(*m);
  EXPECT_EQ(p.version(), clc::kVersion1);
  EXPECT_EQ(p.smcv1_type(), clc::SmcType::kD);
  ASSERT_TRUE(p.smcd);
  EXPECT_NE(p.smcd->get(clc::ProposalSmcdSpec::Field::IsmGid), 0u);
}

TEST(ClcBuild, WhatCannotBeOfferedIsAnErrorThatSaysWhy) {
  Reference ref;
  const CaseResult none = run_case(clc_case("> clc.proposal offer=none\n< clc.decline\n"), ref.options);
  EXPECT_EQ(none.verdict, Verdict::kError);
  EXPECT_NE(none.reason.find("offer=none"), std::string::npos) << none.reason;
  const CaseResult gids = run_case(clc_case("> clc.proposal offer=v2 ism_gids=9\n< clc.decline\n"), ref.options);
  EXPECT_EQ(gids.verdict, Verdict::kError);
  EXPECT_NE(gids.reason.find("no SMC-Dv2"), std::string::npos) << gids.reason;
}

}  // namespace
}  // namespace rdmaconf::conformance
