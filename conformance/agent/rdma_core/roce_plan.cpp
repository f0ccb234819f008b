#include "agent/rdma_core/roce_plan.hpp"

#include <algorithm>

namespace rdmaconf::agent::rdma_core {

QpTransition plan_init(std::uint8_t port) {
  QpTransition t;
  t.attr.qp_state = IBV_QPS_INIT;
  t.attr.pkey_index = 0;
  t.attr.port_num = port;
  t.attr.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  t.mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
  return t;
}

ibv_mtu path_mtu(std::uint8_t smc_mtu, ibv_mtu port_mtu) {
  if (smc_mtu < IBV_MTU_256 || smc_mtu > IBV_MTU_4096) return port_mtu;
  return std::min(static_cast<ibv_mtu>(smc_mtu), port_mtu);
}

QpTransition plan_rtr(const smcr::PeerPath& path, std::uint32_t peer_qp_number, std::uint8_t port,
                      std::uint8_t sgid_index, ibv_mtu port_mtu) {
  QpTransition t;
  t.attr.qp_state = IBV_QPS_RTR;
  t.attr.path_mtu = path_mtu(path.mtu, port_mtu);
  t.attr.dest_qp_num = peer_qp_number & 0xFFFFFF;
  t.attr.rq_psn = path.psn & 0xFFFFFF;
  // SMC-R posts no RDMA Reads: one outstanding as a responder is enough
  // (Linux: max_dest_rd_atomic 1).
  t.attr.max_dest_rd_atomic = 1;
  t.attr.min_rnr_timer = kMinRnrTimer;
  ibv_ah_attr& ah = t.attr.ah_attr;
  ah.is_global = 1;  // RoCE: every packet carries the GRH (RoCEv2: IP and UDP)
  ah.port_num = port;
  ah.grh.sgid_index = sgid_index;
  ah.grh.hop_limit = kHopLimit;
  std::copy(path.gid.begin(), path.gid.end(), ah.grh.dgid.raw);
  t.mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  return t;
}

QpTransition plan_rts(std::uint32_t local_psn) {
  QpTransition t;
  t.attr.qp_state = IBV_QPS_RTS;
  t.attr.timeout = kQpTimeout;
  t.attr.retry_cnt = kRetryCount;
  t.attr.rnr_retry = kRnrRetry;
  t.attr.sq_psn = local_psn & 0xFFFFFF;
  t.attr.max_rd_atomic = 1;
  t.mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
           IBV_QP_MAX_QP_RD_ATOMIC;
  return t;
}

smcr::WorkStatus work_status(ibv_wc_status s) {
  switch (s) {
    case IBV_WC_SUCCESS: return smcr::WorkStatus::kSuccess;
    case IBV_WC_REM_ACCESS_ERR: return smcr::WorkStatus::kRemoteAccessError;
    case IBV_WC_WR_FLUSH_ERR: return smcr::WorkStatus::kFlushed;
    default: return smcr::WorkStatus::kRetryExceeded;
  }
}

smcr::QpEvent completion_event(ibv_wc_status status, std::uint64_t wr_id, smcr::WorkOp op) {
  smcr::QpEvent e;
  e.kind = smcr::QpEvent::Kind::kCompletion;
  e.work = wr_id;
  e.op = op;
  e.status = work_status(status);
  return e;
}

std::optional<std::size_t> StagingRing::reserve(std::size_t n) {
  if (in_flight_ == 0) head_ = tail_ = 0;
  if (n == 0 || n >= capacity_) return std::nullopt;
  std::optional<std::size_t> at;
  if (tail_ >= head_) {  // not wrapped: [tail, end) is free, and [0, head)
    if (capacity_ - tail_ >= n) at = tail_;
    else if (head_ > n) at = 0;  // strictly below head: a full ring never looks empty
  } else if (head_ - tail_ > n) {  // wrapped: [tail, head) is free
    at = tail_;
  }
  if (!at) return std::nullopt;
  previous_tail_ = tail_;
  tail_ = *at + n;
  ++in_flight_;
  return at;
}

void StagingRing::cancel_last() {
  if (in_flight_ == 0) return;
  tail_ = previous_tail_;
  --in_flight_;
}

void StagingRing::release(std::size_t end) {
  if (in_flight_ == 0) return;
  head_ = end;
  --in_flight_;
}

std::optional<smcr::WorkStatus> async_qp_error(ibv_event_type t) {
  switch (t) {
    case IBV_EVENT_QP_ACCESS_ERR: return smcr::WorkStatus::kRemoteAccessError;
    case IBV_EVENT_QP_FATAL:
    case IBV_EVENT_QP_REQ_ERR:
    case IBV_EVENT_PATH_MIG_ERR:
    case IBV_EVENT_DEVICE_FATAL: return smcr::WorkStatus::kRetryExceeded;
    default: return std::nullopt;
  }
}

}  // namespace rdmaconf::agent::rdma_core
