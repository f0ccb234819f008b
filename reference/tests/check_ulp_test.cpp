// The rules of a ULP's use of RDMA (check/ulp.hpp): each function names its
// rule and field, says nothing about what keeps the rule, and every rule has
// exactly one implementing entry.
#include "check/ulp.hpp"

#include <map>
#include <vector>

#include <gtest/gtest.h>

namespace rdmaconf::check {
namespace {

using ulp::rpcrdma::Segment;
using ulp::rpcrdma::WriteChunk;

TEST(CheckUlp, EveryRuleHasExactlyOneImplementation) {
  std::map<std::string_view, int> count;
  for (const Implementation& i : ulp_implementations()) ++count[i.rule->id];
  for (const Rule* r : ulp_rules()) EXPECT_EQ(count[r->id], 1) << r->id;
  EXPECT_EQ(count.size(), ulp_rules().size());
}

TEST(CheckUlp, RegionsHoldRangesInsideThem) {
  const Region r{0x1234, 0x1000, 0x100};
  EXPECT_TRUE(within(r, 0x1234, 0x1000, 0x100));
  EXPECT_TRUE(within(r, 0x1234, 0x10ff, 1));
  EXPECT_TRUE(within(r, 0x1234, 0x1100, 0));
  EXPECT_FALSE(within(r, 0x1234, 0x10ff, 2));  // one octet past the end
  EXPECT_FALSE(within(r, 0x1234, 0xfff, 1));   // one before the start
  EXPECT_FALSE(within(r, 0x1235, 0x1000, 1));  // another STag
  EXPECT_FALSE(within(r, 0x1234, 0x1010, ~std::uint64_t{0}));  // a length that would wrap
  const std::vector<Region> rs = {{1, 0, 10}, {2, 100, 10}};
  EXPECT_EQ(region_holding(rs, 2, 105, 5), 1u);
  EXPECT_FALSE(region_holding(rs, 2, 105, 6));
}

TEST(CheckUlp, ReadsAndWritesStayInsideWhatWasAdvertised) {
  const std::vector<Region> open = {{0xd408f501, 0x950ad9c70cd31000, 131072}};
  EXPECT_FALSE(read_within_read_chunk(0xd408f501, 0x950ad9c70cd31000, 131072, open));
  auto v = read_within_read_chunk(0xd408f501, 0x950ad9c70cd31000, 131073, open);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRpcReadWithinReadChunk);
  EXPECT_EQ(v->field, "Data Source STag");
  EXPECT_EQ(v->octet, kReadRequestSourceStagOctet);
  EXPECT_EQ(v->seen, 0xd408f501u);
  EXPECT_EQ(v->expected, 0xd408f501u);  // the STag was advertised, the range was not
  v = write_within_chunk(0x42, 0, 1, open);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRpcWriteWithinChunk);
  EXPECT_EQ(v->octet, kTaggedStagOctet);
  EXPECT_EQ(v->expected, 0u);  // no open region has that STag
  EXPECT_FALSE(write_within_chunk(0xd408f501, 0x950ad9c70cd31000 + 4096, 1442, open));
  // Nothing open: every transfer is outside.
  EXPECT_TRUE(read_uses_write_stag(1, 0, 1, {}));
  EXPECT_EQ(read_uses_write_stag(1, 0, 1, {})->rule, &kIserReadUsesWriteStag);
  EXPECT_EQ(write_uses_read_stag(1, 0, 1, {})->rule, &kIserWriteUsesReadStag);
  EXPECT_FALSE(write_uses_read_stag(7, 0x2000, 512, std::vector<Region>{{7, 0x2000, 512}}));
}

TEST(CheckUlp, RepliesEchoTheirChunks) {
  const WriteChunk advertised{{Segment{0xa1, 4096, 0x1000, 0}, Segment{0xa2, 4096, 0x9000, 0}}};
  WriteChunk returned{{Segment{0xa1, 4096, 0x1000, 40}, Segment{0xa2, 100, 0x9000, 56}}};
  const std::vector<std::uint64_t> written = {4096, 100};
  EXPECT_FALSE(write_chunk_echoed(advertised, &returned, written));
  // An unused chunk: lengths zero, whatever was written (RFC 8166 §4.3.2.2).
  const WriteChunk unused{{Segment{0xa1, 0, 0x1000, 40}, Segment{0xa2, 0, 0x9000, 56}}};
  EXPECT_FALSE(write_chunk_echoed(advertised, &unused, written));
  // Missing, fewer segments, another handle, another offset, longer than advertised, longer than written.
  auto v = write_chunk_echoed(advertised, nullptr, written);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRpcWriteChunkEchoed);
  EXPECT_EQ(v->field, "chunk list");
  const WriteChunk shorter{{Segment{0xa1, 4096, 0x1000, 40}}};
  EXPECT_EQ(write_chunk_echoed(advertised, &shorter, written)->field, "segment count");
  returned.segments[1].handle = 0xa3;
  v = write_chunk_echoed(advertised, &returned, written);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->field, "Handle");
  EXPECT_EQ(v->octet, kSendPayloadOctet + 56);
  returned.segments[1] = Segment{0xa2, 100, 0x9004, 56};
  EXPECT_EQ(write_chunk_echoed(advertised, &returned, written)->field, "Offset");
  returned.segments[1] = Segment{0xa2, 4097, 0x9000, 56};
  v = write_chunk_echoed(advertised, &returned, std::vector<std::uint64_t>{4096, 8192});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->field, "Length");
  EXPECT_EQ(v->seen, 4097u);
  EXPECT_EQ(v->expected, 4096u);
  returned.segments[1] = Segment{0xa2, 101, 0x9000, 56};
  v = write_chunk_echoed(advertised, &returned, written);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->seen, 101u);
  EXPECT_EQ(v->expected, 100u);  // what the Writes put there
  // The Reply chunk: the same checks under its own rule.
  v = reply_chunk_echoed(advertised, nullptr, written);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRpcReplyChunkEchoed);
}

TEST(CheckUlp, RepliesAndCredits) {
  ulp::rpcrdma::Message reply;
  reply.credits = 128;
  EXPECT_FALSE(reply_read_list_empty(reply));
  EXPECT_FALSE(grant_not_zero(reply));
  reply.read_list.push_back({});
  auto v = reply_read_list_empty(reply);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRpcReplyReadListEmpty);
  EXPECT_EQ(v->seen, 1u);
  reply.credits = 0;
  EXPECT_EQ(grant_not_zero(reply)->rule, &kRpcGrantNotZero);
  EXPECT_FALSE(credit_limit(1, 1));
  EXPECT_FALSE(credit_limit(128, 128));
  v = credit_limit(2, 1);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRpcCreditLimit);
  EXPECT_EQ(v->field, "Credits");
  EXPECT_EQ(v->seen, 2u);
  EXPECT_EQ(v->expected, 1u);
}

TEST(CheckUlp, OnlyDdpEligibleItemsAreReduced) {
    using ulp::onc_rpc::Call;
  const Call write3{0, 100003, 3, 7}, read3{0, 100003, 3, 6}, getattr3{0, 100003, 3, 1}, write2{0, 100003, 2, 8};
  const Call getacl{0, 100227, 3, 1}, compound{0, 100003, 4, 1};
  EXPECT_FALSE(ddp_eligible_only(write3, 1, 0));
  EXPECT_FALSE(ddp_eligible_only(write2, 1, 0));
  EXPECT_FALSE(ddp_eligible_only(read3, 0, 1));
  EXPECT_FALSE(ddp_eligible_only(getattr3, 0, 0));
  auto v = ddp_eligible_only(getattr3, 1, 0);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRpcDdpEligibleOnly);
  EXPECT_EQ(v->field, "Read list");
  EXPECT_EQ(ddp_eligible_only(write3, 0, 1)->field, "Write list");  // WRITE's result is not eligible
  EXPECT_EQ(ddp_eligible_only(read3, 1, 0)->field, "Read list");    // nor READ's arguments
  EXPECT_TRUE(ddp_eligible_only(getacl, 0, 1));                     // NFSACL has no eligible item
  EXPECT_FALSE(ddp_eligible_only(compound, 3, 3));                  // NFSv4 COMPOUND: not judged here
}

TEST(CheckUlp, TheResponseInvalidatesItsCommandsStag) {
  EXPECT_FALSE(response_invalidates_task_stag(0x1e37, 0x1e37u));
  auto v = response_invalidates_task_stag(0x1e38, 0x1e37u);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kIserResponseInvalidatesTaskStag);
  EXPECT_EQ(v->field, "Invalidate STag");
  EXPECT_EQ(v->seen, 0x1e38u);
  EXPECT_EQ(v->expected, 0x1e37u);
  // A command that advertised no STag gets no Send with Invalidate.
  EXPECT_TRUE(response_invalidates_task_stag(0x1e37, std::nullopt));
}

}  // namespace
}  // namespace rdmaconf::check
