// The AF_SMC side's netlink parsers (smc.hpp) on answers laid out as Linux
// sends them, and on truncated or lying ones.
#include "agent/rdma_core/smc.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <sys/socket.h>

#include <cstring>

namespace rdmaconf::agent::rdma_core {
namespace {

void put_attr(std::vector<std::uint8_t>& out, std::uint16_t type, const void* value, std::size_t len) {
  const auto total = static_cast<std::uint16_t>(4 + len);
  const std::size_t at = out.size();
  out.resize(at + ((total + 3u) & ~3u), 0);
  std::memcpy(out.data() + at, &total, 2);
  std::memcpy(out.data() + at + 2, &type, 2);
  std::memcpy(out.data() + at + 4, value, len);
}

std::vector<std::uint8_t> diag_answer(std::uint8_t mode, std::uint64_t inode, std::uint32_t reason, std::uint32_t peer) {
  smc_diag_msg m{};
  m.diag_family = AF_SMC;
  m.diag_state = 1;
  m.diag_mode = mode;
  m.id.idiag_sport = htons(7174);
  m.id.idiag_dport = htons(40000);
  m.diag_inode = inode;
  std::vector<std::uint8_t> out(sizeof m);
  std::memcpy(out.data(), &m, sizeof m);
  smc_diag_fallback f{reason, peer};
  put_attr(out, SMC_DIAG_FALLBACK, &f, sizeof f);
  return out;
}

TEST(NetlinkAttrs, WalksPaddedAttributesAndStopsAtLies) {
  std::vector<std::uint8_t> b;
  const std::uint8_t one = 1;
  const std::uint32_t four = 4;
  put_attr(b, 1, &one, 1);
  put_attr(b, 2, &four, 4);
  auto attrs = parse_netlink_attrs(b);
  ASSERT_EQ(attrs.size(), 2u);
  EXPECT_EQ(attrs[0].type, 1);
  EXPECT_EQ(attrs[0].value.size(), 1u);
  EXPECT_EQ(attrs[1].type, 2);
  // A length running past the buffer ends the walk, never the read.
  b[8] = 200;
  EXPECT_EQ(parse_netlink_attrs(b).size(), 1u);
  // A length below the header's own size too.
  b[0] = 2;
  EXPECT_TRUE(parse_netlink_attrs(b).empty());
  EXPECT_TRUE(parse_netlink_attrs({}).empty());
}

TEST(SmcDiag, FallbackReasonAndPeerDiagnosis) {
  const auto a = diag_answer(SMC_DIAG_MODE_FALLBACK_TCP, 4242, 0x03030000, 0x03030008);
  const auto info = parse_smc_diag(a);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->inode, 4242u);
  EXPECT_EQ(info->local_port, 7174);
  EXPECT_EQ(info->peer_port, 40000);
  EXPECT_STREQ(smc_mode_name(info->mode), "fallback");
  ASSERT_TRUE(info->has_fallback);
  EXPECT_EQ(info->fallback_reason, 0x03030000u);
  EXPECT_EQ(info->peer_diagnosis, 0x03030008u);
  EXPECT_NE(describe_smc_code(info->fallback_reason).find("SMC_CLC_DECL_NOSMCDEV"), std::string::npos);
  EXPECT_EQ(describe_smc_code(0), "none");
  EXPECT_EQ(describe_smc_code(0x7f000000), "0x7f000000");
}

TEST(SmcDiag, ShortOrForeignAnswersAreNotTaken) {
  auto a = diag_answer(SMC_DIAG_MODE_SMCR, 1, 0, 0);
  EXPECT_FALSE(parse_smc_diag(std::span<const std::uint8_t>(a).first(sizeof(smc_diag_msg) - 1)));
  const auto bare = parse_smc_diag(std::span<const std::uint8_t>(a).first(sizeof(smc_diag_msg)));
  ASSERT_TRUE(bare);
  EXPECT_FALSE(bare->has_fallback);
  EXPECT_STREQ(smc_mode_name(bare->mode), "smc-r");
  a[0] = AF_INET;
  EXPECT_FALSE(parse_smc_diag(a));
}

TEST(FallbackStats, OneNestPerReason) {
  std::vector<std::uint8_t> nest;
  const std::uint8_t server = 1;
  const std::uint32_t code = 0x03010000;
  const std::uint16_t count = 3;
  put_attr(nest, SMC_NLA_FBACK_STATS_TYPE, &server, 1);
  put_attr(nest, SMC_NLA_FBACK_STATS_RSN_CODE, &code, 4);
  put_attr(nest, SMC_NLA_FBACK_STATS_RSN_CNT, &count, 2);
  std::vector<std::uint8_t> msg;
  put_attr(msg, SMC_GEN_FBACK_STATS, nest.data(), nest.size());
  const auto c = parse_fallback_stats(msg);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->server);
  EXPECT_EQ(c->reason, 0x03010000u);
  EXPECT_EQ(c->count, 3u);
  EXPECT_EQ(describe_fallback_counts({*c, {false, 0x03030000, 1}}), "server PEERNOSMC=3, client NOSMCDEV=1");
  EXPECT_EQ(describe_fallback_counts({}), "no fallbacks counted");
  EXPECT_FALSE(parse_fallback_stats(nest));  // no SMC_GEN_FBACK_STATS nest
}

}  // namespace
}  // namespace rdmaconf::agent::rdma_core
