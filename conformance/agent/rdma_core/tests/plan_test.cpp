// The test ULP profile in verbs terms (plan.hpp) and the names of what a
// device reports (names.hpp), without a device.
#include "agent/rdma_core/plan.hpp"

#include <gtest/gtest.h>

#include "agent/rdma_core/names.hpp"

namespace rdmaconf::agent::rdma_core {
namespace {

using conformance::AdvertisedBuffer;
using conformance::UlpCommand;
using F = conformance::UlpCommandSpec::Field;

std::vector<AdvertisedBuffer> buffers(std::size_t n) {
  std::vector<AdvertisedBuffer> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back({"b" + std::to_string(i), static_cast<std::uint32_t>(0x100 + i), 0x1000 * i, 64});
  return v;
}

TEST(ReplyBudget, RdmaCmOctetIsTheLimit) {
  // rdma_conn_param.private_data_len is 8 bits: 255, below MPA's 512 - 4.
  EXPECT_EQ(reply_private_data_budget(0), 255u);
  EXPECT_EQ(reply_private_data_budget(128), 128u);
  EXPECT_EQ(reply_private_data_budget(1000), 255u);
}

TEST(FitAdvertisement, EverythingFitsRoundTrips) {
  const auto fitted = fit_advertisement(buffers(8), 255);
  EXPECT_EQ(fitted.advertised.size(), 8u);
  EXPECT_TRUE(fitted.omitted.empty());
  EXPECT_EQ(fitted.octets.size(), 10u + 8 * 24);
  const auto vars = conformance::parse_advertisement(fitted.octets);
  ASSERT_EQ(vars.size(), 24u);
  EXPECT_EQ(vars[0].first, "b0.stag");
  EXPECT_EQ(vars[0].second, 0x100u);
  EXPECT_EQ(vars[22].first, "b7.to");
  EXPECT_EQ(vars[22].second, 0x7000u);
}

TEST(FitAdvertisement, LeavesOutFromTheEndWhenTheBudgetBites) {
  // 255 octets: a 10-octet head and 10 entries of 24 (250); the 11th and 12th do not fit.
  const auto fitted = fit_advertisement(buffers(12), 255);
  ASSERT_EQ(fitted.advertised.size(), 10u);
  EXPECT_EQ(fitted.omitted, (std::vector<std::string>{"b10", "b11"}));
  EXPECT_LE(fitted.octets.size(), 255u);
  EXPECT_EQ(fitted.octets[9], 10);  // the count says what is there
  EXPECT_EQ(conformance::parse_advertisement(fitted.octets).size(), 30u);
}

TEST(FitAdvertisement, ABudgetBelowTheHeadAdvertisesNothing) {
  const auto fitted = fit_advertisement(buffers(2), 9);
  EXPECT_TRUE(fitted.octets.empty());
  EXPECT_EQ(fitted.omitted.size(), 2u);
}

TEST(WrId, RoundTripsAndNamesItsPurpose) {
  const std::uint64_t id = encode_wr_id({WrPurpose::kCommand, 1, 42});
  const auto w = decode_wr_id(id);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->purpose, WrPurpose::kCommand);
  EXPECT_EQ(w->operation, 1);
  EXPECT_EQ(w->index, 42u);
  EXPECT_EQ(describe_wr_id(id), "command 42: rdma_read");
  EXPECT_EQ(describe_wr_id(encode_wr_id({WrPurpose::kReceive, 0, 3})), "receive slot 3");
  EXPECT_EQ(describe_wr_id(encode_wr_id({WrPurpose::kAdvertisement, 0, 0})), "advertisement");
  EXPECT_FALSE(decode_wr_id(0x1234));
  EXPECT_EQ(describe_wr_id(0x1234), "unknown wr_id 0x1234");
}

UlpCommand command(std::uint8_t op, std::uint8_t count, std::uint32_t length, bool fence = false, std::uint8_t aop = 0) {
  UlpCommand c;
  c.set(F::Magic, conformance::kUlpMagic).set(F::Version, 1).set(F::Operation, op).set(F::Count, count);
  c.set(F::Fence, fence ? 1 : 0).set(F::Length, length).set(F::Stag, 0x7e570001).set(F::TaggedOffset, 0x2000);
  c.set(F::AtomicOpcode, aop).set(F::Data, 0x1122334455667788).set(F::Compare, 0x0102030405060708);
  return c;
}

PlanLimits limits() { return {.pattern_length = 131072, .rw_length = 4096, .max_message = 1u << 31, .atomics = true}; }

TEST(PlanCommand, ReadsIntoRwBackToBackWithTheFencedSendLast) {
  std::uint64_t seq = 7;
  const CommandPlan p = plan_command(command(1, 3, 16, true), limits(), seq);
  ASSERT_EQ(p.wrs.size(), 4u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(p.wrs[i].kind, WrKind::kRdmaRead);
    EXPECT_EQ(p.wrs[i].local, LocalBuffer::kRw);
    EXPECT_EQ(p.wrs[i].length, 16u);
    EXPECT_EQ(p.wrs[i].rkey, 0x7e570001u);
    EXPECT_EQ(p.wrs[i].remote_addr, 0x2000u);
    EXPECT_FALSE(p.wrs[i].fence);
    EXPECT_EQ(decode_wr_id(p.wrs[i].wr_id)->index, 7 + i);
  }
  // RFC 5040 §5.5: the 4-octet Send waits for the Reads (IBV_SEND_FENCE).
  EXPECT_EQ(p.wrs[3].kind, WrKind::kSend);
  EXPECT_TRUE(p.wrs[3].fence);
  EXPECT_EQ(p.wrs[3].length, 4u);
  EXPECT_EQ(decode_wr_id(p.wrs[3].wr_id)->purpose, WrPurpose::kFencedSend);
  EXPECT_EQ(seq, 11u);
}

TEST(PlanCommand, CountZeroIsOneAndLengthsAreCutToTheBuffers) {
  std::uint64_t seq = 0;
  CommandPlan p = plan_command(command(2, 0, 70000), limits(), seq);
  ASSERT_EQ(p.wrs.size(), 1u);
  EXPECT_EQ(p.wrs[0].kind, WrKind::kSend);
  EXPECT_EQ(p.wrs[0].length, 70000u);
  EXPECT_TRUE(p.shortened.empty());
  p = plan_command(command(1, 1, 8192), limits(), seq);  // rw holds 4096
  EXPECT_EQ(p.wrs[0].length, 4096u);
  ASSERT_EQ(p.shortened.size(), 1u);
  PlanLimits small = limits();
  small.max_message = 1000;  // the port's max_msg_sz
  p = plan_command(command(3, 2, 5000), small, seq);
  ASSERT_EQ(p.wrs.size(), 2u);
  EXPECT_EQ(p.wrs[1].kind, WrKind::kRdmaWrite);
  EXPECT_EQ(p.wrs[1].length, 1000u);
}

TEST(PlanCommand, AtomicsMapToVerbsOrAreRefused) {
  std::uint64_t seq = 0;
  CommandPlan p = plan_command(command(4, 1, 0, false, 0), limits(), seq);
  ASSERT_EQ(p.wrs.size(), 1u);
  EXPECT_EQ(p.wrs[0].kind, WrKind::kAtomicFetchAdd);
  EXPECT_EQ(p.wrs[0].compare_add, 0x1122334455667788u);
  EXPECT_EQ(p.wrs[0].local, LocalBuffer::kAtomicResult);
  p = plan_command(command(4, 1, 0, false, 2), limits(), seq);
  ASSERT_EQ(p.wrs.size(), 1u);
  EXPECT_EQ(p.wrs[0].kind, WrKind::kAtomicCmpSwap);
  EXPECT_EQ(p.wrs[0].compare_add, 0x0102030405060708u);
  EXPECT_EQ(p.wrs[0].swap, 0x1122334455667788u);
  // RFC 7306 Swap has no verbs work request.
  p = plan_command(command(4, 1, 0, false, 1), limits(), seq);
  EXPECT_TRUE(p.wrs.empty());
  ASSERT_EQ(p.refused.size(), 1u);
  EXPECT_NE(p.refused[0].find("Swap"), std::string::npos);
  PlanLimits none = limits();
  none.atomics = false;
  p = plan_command(command(4, 1, 0, false, 0), none, seq);
  EXPECT_TRUE(p.wrs.empty());
  EXPECT_EQ(p.refused.size(), 1u);
  p = plan_command(command(9, 1, 0), limits(), seq);
  EXPECT_TRUE(p.wrs.empty());
  EXPECT_EQ(p.refused.size(), 1u);
}

TEST(SendQueueGate, HoldsWhatTheQueueCannotTakeInOrder) {
  SendQueueGate g(2, 3);
  for (std::uint64_t i = 0; i < 3; ++i) EXPECT_TRUE(g.push({.wr_id = i}));
  EXPECT_FALSE(g.push({.wr_id = 9}));  // waiting list bounded
  auto a = g.next();
  ASSERT_TRUE(a);
  g.posted();
  auto b = g.next();
  ASSERT_TRUE(b);
  g.posted();
  EXPECT_FALSE(g.next());  // depth 2 in flight
  g.completed();
  auto c = g.next();
  ASSERT_TRUE(c);
  EXPECT_EQ(a->wr_id, 0u);
  EXPECT_EQ(b->wr_id, 1u);
  EXPECT_EQ(c->wr_id, 2u);
  g.requeue_front(*c);  // a post that failed for lack of room goes first again
  EXPECT_EQ(g.waiting(), 1u);
  g.completed();
  EXPECT_EQ(g.next()->wr_id, 2u);
}

TEST(Depths, ResponderNeverOrdersAboveThePeersIrd) {
  const DeviceDepths dev{.max_qp_rd_atom = 32, .max_qp_init_rd_atom = 16};
  // RFC 6581 §5: the initiator's IRD 1 bounds our ORD.
  Depths d = accept_depths(dev, 1);
  EXPECT_EQ(d.initiator_depth, 1);
  EXPECT_EQ(d.responder_resources, 32);
  d = accept_depths(dev, 200);
  EXPECT_EQ(d.initiator_depth, 16);  // the device's own limit
  d = accept_depths(dev, 0);         // Rev 1: no IRD told
  EXPECT_EQ(d.initiator_depth, kRev1Ord);
  d = connect_depths({.max_qp_rd_atom = 1000, .max_qp_init_rd_atom = 8});
  EXPECT_EQ(d.initiator_depth, 8);
  EXPECT_EQ(d.responder_resources, 255);  // one octet in rdma_conn_param
}

TEST(Names, CompletionsUseVerbsWordsAndTheWrIdWhenInError) {
  EXPECT_STREQ(wc_status_words(IBV_WC_SUCCESS), "success");
  EXPECT_STREQ(wc_status_words(IBV_WC_LOC_LEN_ERR), "local length error");
  EXPECT_STREQ(wc_status_words(IBV_WC_REM_ACCESS_ERR), "remote access error");
  EXPECT_STREQ(wc_status_id(IBV_WC_WR_FLUSH_ERR), "IBV_WC_WR_FLUSH_ERR");
  EXPECT_STREQ(wc_status_words(static_cast<ibv_wc_status>(99)), "unknown status");
  // The table agrees with libibverbs' own words for every status it knows.
  for (int s = IBV_WC_SUCCESS; s <= IBV_WC_TM_RNDV_INCOMPLETE; ++s)
    EXPECT_STREQ(wc_status_words(static_cast<ibv_wc_status>(s)), ibv_wc_status_str(static_cast<ibv_wc_status>(s)));
  EXPECT_EQ(completion_name(true, IBV_WC_RDMA_READ, 0), "rdma_read");
  EXPECT_EQ(completion_name(true, IBV_WC_FETCH_ADD, 0), "atomic");
  EXPECT_EQ(completion_name(true, IBV_WC_RECV, 0), "recv");
  // Verbs leaves the opcode of a failed completion undefined: the wr_id says.
  EXPECT_EQ(completion_name(false, IBV_WC_SEND, encode_wr_id({WrPurpose::kCommand, 3, 1})), "rdma_write");
  EXPECT_EQ(completion_name(false, IBV_WC_SEND, encode_wr_id({WrPurpose::kReceive, 0, 1})), "recv");
  EXPECT_EQ(completion_name(false, IBV_WC_SEND, 5), "unknown");
}

TEST(Names, AsyncAndCmEvents) {
  EXPECT_STREQ(async_event_name(IBV_EVENT_QP_FATAL), "qp_fatal");
  EXPECT_STREQ(async_event_id(IBV_EVENT_QP_ACCESS_ERR), "IBV_EVENT_QP_ACCESS_ERR");
  EXPECT_EQ(async_event_scope(IBV_EVENT_PORT_ERR), AsyncScope::kPort);
  EXPECT_EQ(async_event_scope(IBV_EVENT_QP_REQ_ERR), AsyncScope::kQp);
  EXPECT_STREQ(cm_event_state(RDMA_CM_EVENT_ESTABLISHED), "established");
  EXPECT_STREQ(cm_event_state(RDMA_CM_EVENT_REJECTED), "rejected");
  EXPECT_STREQ(cm_event_state(RDMA_CM_EVENT_DISCONNECTED), "closed");
  EXPECT_STREQ(cm_event_state(RDMA_CM_EVENT_CONNECT_ERROR), "failed");
  EXPECT_STREQ(cm_event_state(RDMA_CM_EVENT_ADDR_RESOLVED), "");
  EXPECT_STREQ(cm_event_id(RDMA_CM_EVENT_UNREACHABLE), "RDMA_CM_EVENT_UNREACHABLE");
  // The names agree with librdmacm's rdma_event_str for every event.
  for (int t = RDMA_CM_EVENT_ADDR_RESOLVED; t <= RDMA_CM_EVENT_TIMEWAIT_EXIT; ++t)
    EXPECT_STREQ(cm_event_id(static_cast<rdma_cm_event_type>(t)), rdma_event_str(static_cast<rdma_cm_event_type>(t)));
  EXPECT_EQ(cm_status_text(0), "0");
  EXPECT_EQ(cm_status_text(-ECONNREFUSED), "-111 (ECONNREFUSED)");
  EXPECT_EQ(cm_status_text(-4242), "-4242");
}

}  // namespace
}  // namespace rdmaconf::agent::rdma_core
