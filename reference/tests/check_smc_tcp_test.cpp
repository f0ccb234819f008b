// The SMC option's rules and the FIN after the SMC-R close
// (check/smc_tcp.hpp): each function names its rule, and a SYN that sent
// its option in a wrong form is judged for the form, not for a missing option.
#include "check/smc_tcp.hpp"

#include <gtest/gtest.h>

namespace rdmaconf::check {
namespace {

// kind 254, length 6, ExID E2 D4 C3 D9: RFC 7609 App. A.1.
constexpr clc::ExperimentalOption kSmc{254, 6, 0xE2D4C3D9};

SynSmc with(std::initializer_list<clc::ExperimentalOption> options) {
  SynSmc s;
  for (const auto& o : options) {
    s.experimental.add(o);
    s.option = s.option || o.smc_exid();
  }
  return s;
}

TEST(CheckSmcTcp, TheOptionIsKind254OfSixOctets) {
  EXPECT_FALSE(option_kind(kSmc));
  auto v = option_kind({253, 6, 0xE2D4C3D9});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kOptionKind);
  EXPECT_EQ(v->field, "Kind");
  EXPECT_EQ(v->seen, 253u);
  EXPECT_EQ(v->expected, 254u);
  v = option_kind({254, 8, 0xE2D4C3D9});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->field, "Length");
  EXPECT_EQ(v->octet, 1u);
  EXPECT_EQ(v->seen, 8u);
  // Another experiment's option is none of this rule's business.
  EXPECT_FALSE(option_kind({254, 6, 0x12345678}));
  EXPECT_FALSE(option_kind({254, 4, 0xF9890000}));
}

TEST(CheckSmcTcp, ASideThatSpeaksClcSentTheSmcExid) {
  EXPECT_FALSE(option_exid(with({kSmc})));
  EXPECT_FALSE(option_exid(with({})));  // no option at all: option_in_syn's
  auto v = option_exid(with({{254, 6, 0xD9C3D4E2}}));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kOptionExid);
  EXPECT_EQ(v->field, "ExID");
  EXPECT_EQ(v->octet, 2u);
  EXPECT_EQ(v->seen, 0xD9C3D4E2u);
  EXPECT_EQ(v->expected, 0xE2D4C3D9u);
  // A 16-bit ExID: its two octets in the upper half.
  EXPECT_EQ(option_exid(with({{254, 4, 0xE2D40000}}))->seen, 0xE2D40000u);
  // TCP Fast Open's experimental option is not a SMC option gone wrong.
  EXPECT_FALSE(option_exid(with({{254, 4, 0xF9890000}})));
}

TEST(CheckSmcTcp, TheClientsSynCarriesTheOption) {
  EXPECT_FALSE(option_in_syn(with({kSmc})));
  auto v = option_in_syn(with({}));
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kOptionInSyn);
  EXPECT_EQ(v->seen, 0u);
  EXPECT_EQ(option_in_syn(with({{254, 4, 0xF9890000}}))->rule, &kOptionInSyn);
  // An option in a wrong form is judged for its form (option_exid).
  EXPECT_FALSE(option_in_syn(with({{254, 6, 0xD9C3D4E2}})));
}

TEST(CheckSmcTcp, TheServersSynAckEchoesTheOption) {
  EXPECT_FALSE(option_in_synack(with({kSmc}), with({kSmc})));
  EXPECT_EQ(option_in_synack(with({kSmc}), with({}))->rule, &kOptionInSynAck);
  // Not offered: nothing to echo.
  EXPECT_FALSE(option_in_synack(with({}), with({})));
  EXPECT_FALSE(option_in_synack(with({kSmc}), with({{254, 6, 0x11223344}})));
}

TEST(CheckSmcTcp, ClcOnlyWhenBothCarriedTheOption) {
  EXPECT_FALSE(both_or_tcp(with({kSmc}), with({kSmc})));
  EXPECT_EQ(both_or_tcp(with({kSmc}), with({}))->rule, &kBothOrTcp);
  EXPECT_EQ(both_or_tcp(with({}), with({kSmc}))->rule, &kBothOrTcp);
  EXPECT_FALSE(no_clc_without_option(with({kSmc})));
  EXPECT_EQ(no_clc_without_option(with({}))->rule, &kNoClcWithoutOption);
}

TEST(CheckSmcTcp, TheFinFollowsTheEndOfWritingOnSmcR) {
  EXPECT_FALSE(fin_after_smc_close(true));
  auto v = fin_after_smc_close(false);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kFinAfterSmcClose);
}

}  // namespace
}  // namespace rdmaconf::check
