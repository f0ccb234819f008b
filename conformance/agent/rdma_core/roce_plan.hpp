// What the rdma-core SMC-R transport (roce_transport.hpp) decides without a
// device: the attributes of each queue pair state transition, the path MTU,
// what a work request id means, and how a work completion or an async event
// becomes the link layer's QpEvent (reference/smcr/transport.hpp). Pure
// functions over <infiniband/verbs.h>'s types; nothing here calls verbs, so
// the unit tests run on any host.
//
// SMC-R connects its RC queue pairs by hand (RFC 7609 §3.5.1.5, §3.5.1.6.2):
// no rdma_cm, the peer's QP number, GID and initial PSN come from CLC
// (App. A.2.3/A.2.4) or ADD LINK (A.3.2). The values Linux chooses where the
// RFC names none (smc_ib.c, smc_ib_modify_qp_*) are ours too.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <cstddef>
#include <optional>

#include "smcr/transport.hpp"

namespace rdmaconf::agent::rdma_core {

// One modify_qp: the attributes and the mask naming them.
struct QpTransition {
  ibv_qp_attr attr{};
  int mask = 0;
};

// Linux smc_ib.h / smc_wr.h.
inline constexpr std::uint8_t kMinRnrTimer = 5;   // SMC_QP_MIN_RNR_TIMER
inline constexpr std::uint8_t kQpTimeout = 15;    // SMC_QP_TIMEOUT (4.096 us * 2^15, about 134 ms)
inline constexpr std::uint8_t kRetryCount = 7;    // SMC_QP_RETRY_CNT
inline constexpr std::uint8_t kRnrRetry = 7;      // SMC_QP_RNR_RETRY: retry for ever
inline constexpr std::uint8_t kHopLimit = 64;     // the GRH's hop limit (IPv4 TTL under RoCEv2)

// RESET -> INIT: the port, and remote Write into this side's registered
// memory (the peer writes into our RMBs, §2.1; nothing is read remotely).
QpTransition plan_init(std::uint8_t port);
// The MTU of the path: `smc_mtu` as A.2.3 enumerates it (1 = 256 ... 5 =
// 4096, the IBTA codes of ibv_mtu), never above the port's active MTU; 0 or
// a value outside 1..5: the port's.
ibv_mtu path_mtu(std::uint8_t smc_mtu, ibv_mtu port_mtu);
// INIT -> RTR: the peer's QP, its GID through the RoCEv2 GID `sgid_index`
// of `port`, its initial PSN as our receive PSN. The destination MAC is
// not set here: for RoCE the kernel resolves it from the GID.
QpTransition plan_rtr(const smcr::PeerPath& path, std::uint32_t peer_qp_number, std::uint8_t port,
                      std::uint8_t sgid_index, ibv_mtu port_mtu);
// RTR -> RTS: our send PSN is the one we announced.
QpTransition plan_rts(std::uint32_t local_psn);

// Work request ids: a receive's names its buffer slot with the high bit
// set; a Send's or Write's is the WorkId the link layer got back.
inline constexpr std::uint64_t kReceiveWrId = std::uint64_t{1} << 63;
inline constexpr std::uint64_t receive_wr_id(std::uint32_t slot) { return kReceiveWrId | slot; }
inline constexpr bool is_receive(std::uint64_t wr_id) { return (wr_id & kReceiveWrId) != 0; }
inline constexpr std::uint32_t receive_slot(std::uint64_t wr_id) { return static_cast<std::uint32_t>(wr_id); }

// ibv_wc.status in the link layer's words. A remote access error is the
// target refusing a Write (bad rkey or bounds); retries exceeded (transport
// or RNR) a lost path; a flush work the queue pair in error did not do.
// Anything else is a local or remote failure the link layer cannot name
// apart: it ends the queue pair like a lost path (kRetryExceeded); the
// transport keeps the verbs status for its log.
smcr::WorkStatus work_status(ibv_wc_status s);

// A completion of work posted here (`op`: what was posted under its id,
// since verbs leaves the opcode of a failed completion undefined).
smcr::QpEvent completion_event(ibv_wc_status status, std::uint64_t wr_id, smcr::WorkOp op);

// Where each Send's message and Write's octets wait, in registered memory,
// until the work completes: a ring handed out in posting order and given
// back in completion order (every request is signalled and an RC send
// queue completes in order). A reservation is contiguous: one that does not
// fit before the end starts again at 0, if the oldest work in flight has
// left room there.
class StagingRing {
 public:
  explicit StagingRing(std::size_t capacity) : capacity_(capacity) {}
  // The offset of `n` contiguous octets, or none when they do not fit now
  // (n of 0 or not below the capacity never fits).
  std::optional<std::size_t> reserve(std::size_t n);
  // The last reservation was not used after all (the post failed).
  void cancel_last();
  // The oldest reservation in flight, which ends at `end`, is done.
  void release(std::size_t end);
  std::size_t in_flight() const { return in_flight_; }

 private:
  std::size_t capacity_;
  std::size_t head_ = 0, tail_ = 0;  // in use: [head, tail), or [head, end) and [0, tail) once wrapped
  std::size_t previous_tail_ = 0;
  std::size_t in_flight_ = 0;
};

// An async event that puts a queue pair into the error state, and the
// status the link layer hears for it: a peer's Write through a bad rkey
// (IBV_EVENT_QP_ACCESS_ERR) is a remote access error, the rest of the
// fatal ones a lost path. Events that do not end a queue pair: none.
std::optional<smcr::WorkStatus> async_qp_error(ibv_event_type t);

}  // namespace rdmaconf::agent::rdma_core
