// roce_plan.hpp: the queue pair transitions of an SMC-R link over RoCEv2
// (RFC 7609 §3.5.1.5, §3.5.1.6.2: connected by hand from what CLC or ADD
// LINK announced) and how verbs' completions and async events become the
// link layer's QpEvents. No device needed.
#include "agent/rdma_core/roce_plan.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace rdmaconf::agent::rdma_core {
namespace {

TEST(RocePlan, InitAllowsTheRemoteWritesOfTheRmbsOnly) {
  const QpTransition t = plan_init(1);
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_INIT);
  EXPECT_EQ(t.attr.port_num, 1);
  // §2.1: the peer writes into our RMBs; SMC-R never reads remotely.
  EXPECT_EQ(t.attr.qp_access_flags, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  EXPECT_EQ(t.mask, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

TEST(RocePlan, PathMtuIsTheSmallerOfTheAnnouncedAndThePorts) {
  // A.2.3 enumerates as IBTA does: 1 = 256 ... 5 = 4096.
  EXPECT_EQ(path_mtu(3, IBV_MTU_4096), IBV_MTU_1024);
  EXPECT_EQ(path_mtu(5, IBV_MTU_1024), IBV_MTU_1024);
  EXPECT_EQ(path_mtu(1, IBV_MTU_1024), IBV_MTU_256);
  EXPECT_EQ(path_mtu(0, IBV_MTU_2048), IBV_MTU_2048);  // not announced: the port's
  EXPECT_EQ(path_mtu(6, IBV_MTU_2048), IBV_MTU_2048);  // not a code: the port's
  EXPECT_EQ(path_mtu(0xff, IBV_MTU_512), IBV_MTU_512);
}

TEST(RocePlan, RtrAddressesThePeersGidQpAndPsn) {
  smcr::PeerPath p;
  p.mac = 0x020000000001;
  p.gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 79, 0, 1};
  p.psn = 0x1abcdef;  // 24 bits are kept
  p.mtu = 3;
  p.local_psn = 0x123456;
  const QpTransition t = plan_rtr(p, 0x01000102, 1, 3, IBV_MTU_4096);
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_RTR);
  EXPECT_EQ(t.attr.dest_qp_num, 0x000102u);
  EXPECT_EQ(t.attr.rq_psn, 0xabcdefu);  // the peer's initial PSN is what we expect first
  EXPECT_EQ(t.attr.path_mtu, IBV_MTU_1024);
  EXPECT_EQ(t.attr.max_dest_rd_atomic, 1);
  EXPECT_EQ(t.attr.min_rnr_timer, kMinRnrTimer);
  EXPECT_EQ(t.attr.ah_attr.is_global, 1);
  EXPECT_EQ(t.attr.ah_attr.port_num, 1);
  EXPECT_EQ(t.attr.ah_attr.grh.sgid_index, 3);
  EXPECT_EQ(t.attr.ah_attr.grh.hop_limit, kHopLimit);
  EXPECT_EQ(0, std::memcmp(t.attr.ah_attr.grh.dgid.raw, p.gid.data(), 16));
  EXPECT_EQ(t.attr.ah_attr.dlid, 0);  // RoCE: no LID
  EXPECT_EQ(t.mask, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

TEST(RocePlan, RtsSendsFromTheAnnouncedPsnWithLinuxsRetries) {
  const QpTransition t = plan_rts(0xff123456);
  EXPECT_EQ(t.attr.qp_state, IBV_QPS_RTS);
  EXPECT_EQ(t.attr.sq_psn, 0x123456u);
  EXPECT_EQ(t.attr.timeout, 15);
  EXPECT_EQ(t.attr.retry_cnt, 7);
  EXPECT_EQ(t.attr.rnr_retry, 7);
  EXPECT_EQ(t.attr.max_rd_atomic, 1);
  EXPECT_EQ(t.mask, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                        IBV_QP_MAX_QP_RD_ATOMIC);
}

TEST(RocePlan, WorkRequestIdsTellReceivesFromPostedWork) {
  EXPECT_TRUE(is_receive(receive_wr_id(0)));
  EXPECT_TRUE(is_receive(receive_wr_id(63)));
  EXPECT_EQ(receive_slot(receive_wr_id(63)), 63u);
  EXPECT_FALSE(is_receive(1));
  EXPECT_FALSE(is_receive(0x7fffffffffffffffULL));
}

TEST(RocePlan, CompletionsBecomeTheLinkLayersStatuses) {
  struct Row {
    ibv_wc_status status;
    smcr::WorkStatus expected;
  };
  const Row rows[] = {
      {IBV_WC_SUCCESS, smcr::WorkStatus::kSuccess},
      {IBV_WC_REM_ACCESS_ERR, smcr::WorkStatus::kRemoteAccessError},  // the target refused the Write
      {IBV_WC_WR_FLUSH_ERR, smcr::WorkStatus::kFlushed},
      {IBV_WC_RETRY_EXC_ERR, smcr::WorkStatus::kRetryExceeded},
      {IBV_WC_RNR_RETRY_EXC_ERR, smcr::WorkStatus::kRetryExceeded},
      {IBV_WC_LOC_PROT_ERR, smcr::WorkStatus::kRetryExceeded},     // other failures end the QP as a lost path
      {IBV_WC_REM_INV_REQ_ERR, smcr::WorkStatus::kRetryExceeded},
      {IBV_WC_GENERAL_ERR, smcr::WorkStatus::kRetryExceeded},
  };
  for (const Row& r : rows) {
    const smcr::QpEvent e = completion_event(r.status, 42, smcr::WorkOp::kWrite);
    EXPECT_EQ(e.kind, smcr::QpEvent::Kind::kCompletion);
    EXPECT_EQ(e.work, 42u);
    EXPECT_EQ(e.op, smcr::WorkOp::kWrite);  // what was posted, not the (undefined) opcode of a failure
    EXPECT_EQ(e.status, r.expected) << r.status;
  }
}

TEST(RocePlan, StagingRingHandsOutInPostingOrderAndWraps) {
  StagingRing r(100);
  EXPECT_FALSE(r.reserve(0));
  EXPECT_FALSE(r.reserve(100));  // never the whole ring: full and empty must differ
  EXPECT_EQ(r.reserve(40), 0u);
  EXPECT_EQ(r.reserve(40), 40u);
  EXPECT_FALSE(r.reserve(30));  // 20 left at the end, nothing free before the oldest
  r.release(40);                // the first is done: [0, 40) is free
  EXPECT_FALSE(r.reserve(40));  // not strictly below the oldest in flight
  EXPECT_EQ(r.reserve(30), 0u); // wraps: contiguous from 0
  EXPECT_FALSE(r.reserve(10));  // wrapped: [30, 40) holds 10, not strictly more
  EXPECT_EQ(r.reserve(9), 30u);
  EXPECT_EQ(r.in_flight(), 3u);
  r.release(80);
  r.release(30);
  r.release(39);
  EXPECT_EQ(r.in_flight(), 0u);
  EXPECT_EQ(r.reserve(99), 0u);  // empty again: from the start
}

TEST(RocePlan, StagingRingGivesBackAReservationThatWasNotPosted) {
  StagingRing r(100);
  ASSERT_EQ(r.reserve(60), 0u);
  ASSERT_EQ(r.reserve(30), 60u);
  r.release(60);
  ASSERT_EQ(r.reserve(20), 0u);  // wrapped
  r.cancel_last();               // back to before the wrap
  EXPECT_EQ(r.in_flight(), 1u);
  EXPECT_EQ(r.reserve(10), 90u);  // the end is still free
  r.cancel_last();
  r.cancel_last();
  EXPECT_EQ(r.in_flight(), 0u);
  r.cancel_last();  // nothing in flight: nothing happens
  EXPECT_EQ(r.reserve(50), 0u);
}

TEST(RocePlan, AsyncErrorsThatEndAQueuePair) {
  EXPECT_EQ(async_qp_error(IBV_EVENT_QP_ACCESS_ERR), smcr::WorkStatus::kRemoteAccessError);
  EXPECT_EQ(async_qp_error(IBV_EVENT_QP_FATAL), smcr::WorkStatus::kRetryExceeded);
  EXPECT_EQ(async_qp_error(IBV_EVENT_QP_REQ_ERR), smcr::WorkStatus::kRetryExceeded);
  EXPECT_EQ(async_qp_error(IBV_EVENT_DEVICE_FATAL), smcr::WorkStatus::kRetryExceeded);
  EXPECT_FALSE(async_qp_error(IBV_EVENT_COMM_EST));
  EXPECT_FALSE(async_qp_error(IBV_EVENT_PORT_ACTIVE));
  EXPECT_FALSE(async_qp_error(IBV_EVENT_SQ_DRAINED));
  EXPECT_FALSE(async_qp_error(IBV_EVENT_QP_LAST_WQE_REACHED));
}

}  // namespace
}  // namespace rdmaconf::agent::rdma_core
