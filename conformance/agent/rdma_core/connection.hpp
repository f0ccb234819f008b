// One rdma_cm connection of the rdma-core backend and the verbs objects it
// owns: two protection domains (`otherpd` lives in the second), a completion
// queue, the queue pair, the test ULP's memory regions and the receives.
// Used by backend.cpp's loop thread only.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cstdint>
#include <string>
#include <vector>

#include "agent/backend.hpp"
#include "agent/rdma_core/caps.hpp"
#include "agent/rdma_core/plan.hpp"

namespace rdmaconf::agent::rdma_core {

// What an rdma_cm event carried, copied before the event is acknowledged.
struct ConnectInfo {
  std::uint8_t peer_ird = 0;  // param.conn.initiator_depth (iw_cm: the peer's IRD)
  std::uint8_t peer_ord = 0;  // param.conn.responder_resources (the peer's ORD)
  std::vector<std::uint8_t> private_data;
};

class Connection {
 public:
  // The profile's buffers (test_ulp.hpp), receive geometry as the reference's.
  static constexpr std::size_t kRecvSlots = 8;
  static constexpr std::size_t kRecvSize = 256;
  static constexpr std::size_t kEchoSlots = 2 * kRecvSlots;
  static constexpr std::uint32_t kPatternLength = 128 * 1024;  // longest Send/Write a command gets
  static constexpr int kSendQueueDepth = 64;
  static constexpr std::size_t kMaxWaiting = 1024;  // work waiting for the send queue

  Connection(std::uint64_t handle, rdma_cm_id* id, bool initiator, const DeviceFacts& facts);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Names and sizes in advertisement order (STags zero): what every
  // connection on this device advertises, for the capabilities.
  static std::vector<conformance::AdvertisedBuffer> advertised_buffers_template(const DeviceFacts& f);
  // Whether a peer's Send with Invalidate can invalidate an ordinary memory
  // region (ibv_reg_mr) of the QP's protection domain. Linux siw: yes, any
  // STag of the PD (siw_mem.c, siw_invalidate_stag), so `inv` is such a
  // region there. Elsewhere only a type 2 memory window would be, and none
  // is bound (README.md): `inv` is then not advertised. Where it is, `noinv`
  // is not: every STag of the stream may be invalidated (RFC 5040 §5.3).
  static bool peer_may_invalidate_mrs(const DeviceFacts& f);

  // PDs, CQ (on `comp`), QP, memory regions, posted receives. false with a
  // line for the report; destroy() frees what was made.
  bool create_resources(ibv_comp_channel* comp, std::string& error);
  // The advertisement for the MPA Reply, fitted into `budget` octets.
  const std::vector<std::uint8_t>& reply_advertisement(std::size_t budget);
  // Initiator: the first Send, carrying the advertisement.
  void send_advertisement(std::vector<Event>& out);
  // The completion queue has completions: poll, report, echo, obey.
  void on_cq_event(std::vector<Event>& out);
  // rdma_disconnect when still up, the last completions, every verbs
  // object; the rdma_cm id stays for the caller to destroy.
  void destroy(std::vector<Event>& out);

  Event event(EventKind kind, std::string name) const;
  ibv_cq* cq() const { return cq_; }
  rdma_cm_id* id() const { return id_; }

  const std::uint64_t handle;  // the listener's or connect()'s Handle
  const bool initiator;
  bool established = false;
  bool disconnected = false;
  std::string local, peer, notes;

 private:
  struct Region {
    std::vector<std::uint8_t> octets;
    ibv_mr* mr = nullptr;
    std::uint64_t base = 0;  // address of octets[0] in work requests and the advertisement
  };
  bool reg(Region& r, ibv_pd* pd, std::size_t length, int access, std::string& error);
  bool reg_pattern(std::string& error);
  void post_receive(std::size_t slot, std::vector<Event>& out);
  void pump(std::vector<Event>& out);
  int post(const PlannedWr& w);
  void on_wc(const ibv_wc& wc, std::vector<Event>& out);
  void on_receive(std::size_t slot, std::uint32_t byte_len, std::vector<Event>& out);
  void note(std::vector<Event>& out, const char* name, std::string detail) const;
  void drain(std::vector<Event>& out);

  rdma_cm_id* id_;
  DeviceFacts facts_;
  PlanLimits limits_;
  ibv_pd* pd_ = nullptr;
  ibv_pd* other_pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  bool qp_ = false;
  Region rw_, ro_, wo_, local_, inv_, noinv_, otherpd_, recv_, echo_, adv_, atomic_;
  ibv_mr* pattern_mr_ = nullptr;
  std::uint32_t stale_stag_ = 0;
  std::vector<std::uint8_t> reply_ad_;
  SendQueueGate gate_{kSendQueueDepth, kMaxWaiting};
  std::vector<bool> echo_busy_ = std::vector<bool>(kEchoSlots, false);
  std::uint64_t sequence_ = 0;
  bool destroyed_ = false;
};

}  // namespace rdmaconf::agent::rdma_core
