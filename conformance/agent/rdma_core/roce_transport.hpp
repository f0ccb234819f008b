// The SMC-R link layer's transport (reference/smcr/transport.hpp) over a
// real RoCEv2 device through libibverbs: the same reference link group and
// connections that run in memory run against another host's SMC-R.
//
// One queue pair per link, each in a protection domain of its own, so that
// an RMB registered on one link has an rkey of that link only (RFC 7609
// §3.5.5.2: an RToken per RMB and link; Linux registers each RMB once per
// link, smcr_link_reg_buf). Queue pairs are RC and connected by hand from
// what CLC or ADD LINK announced (roce_plan.hpp); every work request is
// signalled, so completions come back in posting order and a staging ring
// of registered memory holds each Send's message and each Write's octets
// until its completion. 64 receives of 8192 octets each stay posted (an LLC
// v2 message is at most 8192 octets, smc_llc.h; Linux posts 48).
//
// A host may span two devices (two RoCE ports, RFC 7609 §2.2: the links of
// a symmetric link group run over different RNICs): the first link's queue
// pair on the primary, every later one (added links, §3.5.1.6) on the
// alternate when there is one. RMBs are the host's, registered per queue
// pair, so one RMB serves links on both devices.
//
// Nothing blocks: poll() drains the completion queue and the device's async
// events. A failed completion (other than a flush) or an async queue pair
// error puts the queue pair into the error state, flushes what it still
// holds and hands over kError, as the in-memory queue pair does; the verbs
// status in words stays in notes() for the log. Work the staging ring or
// the send queue cannot take completes at once as flushed (a note says so).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/rdma_core/roce_plan.hpp"
#include "smcr/link_group.hpp"
#include "smcr/transport.hpp"

namespace rdmaconf::agent::rdma_core {

struct RoceDeviceConfig {
  std::string device;              // "rxe0"; empty: the first device
  std::uint8_t port = 1;
  std::optional<std::uint32_t> ipv4;  // use the RoCEv2 GID mapped from this address; none: the first such GID
  std::optional<std::uint8_t> gid_index;  // use this GID table entry (a RoCEv2 one) whatever its address
};

class RoceHost;

// One device port the host uses: its context and the GID it picked.
struct RocePort {
  ibv_context* ctx = nullptr;
  std::string name;
  std::uint8_t port = 1;
  std::uint8_t gid_index = 0;
  ibv_mtu active_mtu = IBV_MTU_1024;
  smcr::LinkAddress address;
};

class RoceQueuePair final : public smcr::QueuePair {
 public:
  ~RoceQueuePair() override;
  std::uint32_t qp_number() const override { return number_; }
  bool broken() const override { return broken_; }
  smcr::WorkId post_send(wire::Bytes message) override;
  smcr::WorkId post_write(smcr::RToken target, wire::Bytes octets) override;
  std::optional<smcr::QpEvent> poll() override;

  static constexpr std::size_t kReceives = 64;
  static constexpr std::size_t kReceiveSize = 8192;
  static constexpr std::size_t kStaging = std::size_t{4} << 20;  // Sends and Writes in flight
  static constexpr std::uint32_t kSendDepth = 256;

 private:
  friend class RoceHost;
  struct Posted {
    smcr::WorkId id = 0;
    smcr::WorkOp op = smcr::WorkOp::kSend;
    std::size_t end = 0;  // where its octets end in the staging ring
  };
  RoceQueuePair(RoceHost& host, RocePort& port) : host_(host), port_(port) {}
  bool open(std::string& error);
  void close();
  smcr::WorkId post(smcr::WorkOp op, smcr::RToken target, wire::Bytes octets);
  void enter_error(smcr::WorkStatus why, const std::string& what);
  void take_completions();

  RoceHost& host_;
  RocePort& port_;
  ibv_pd* pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
  std::uint32_t number_ = 0;
  bool broken_ = false;
  std::vector<std::uint8_t> receive_buffers_, staging_;
  ibv_mr* receive_mr_ = nullptr;
  ibv_mr* staging_mr_ = nullptr;
  StagingRing ring_{kStaging};
  smcr::WorkId next_work_ = 1;
  std::deque<Posted> posted_;
  std::deque<smcr::QpEvent> events_;
};

class RoceHost final : public smcr::Host {
 public:
  // Opens the device and picks its RoCEv2 GID; null with `error` if there is none.
  static std::unique_ptr<RoceHost> open(const RoceDeviceConfig& config, std::string& error);
  ~RoceHost() override;
  RoceHost(const RoceHost&) = delete;
  RoceHost& operator=(const RoceHost&) = delete;

  // The primary port's MAC and GID: what CLC and CONFIRM LINK announce.
  smcr::LinkAddress address() const { return primary_.address; }
  // The primary port's active MTU as A.2.3 enumerates it (the IBTA code).
  std::uint8_t active_mtu() const { return static_cast<std::uint8_t>(primary_.active_mtu); }
  std::uint8_t gid_index() const { return primary_.gid_index; }
  std::string device_name() const { return primary_.name; }
  // Opens a second device for the links added after the first (§3.5.1.6);
  // false with `error` when it cannot (then the host stays one-port).
  bool add_alternate(const RoceDeviceConfig& config, std::string& error);
  // The alternate port's MAC and GID (ADD LINK's), if the host has one.
  std::optional<smcr::LinkAddress> alternate_address() const;
  // The first link's queue pair: always on the primary port.
  smcr::QueuePair* create_primary_qp();
  // What verbs said that the link layer's events cannot carry (failed
  // statuses in words, async events, resources refused); taken once.
  std::vector<std::string> take_notes();

  // A queue pair for an added link: on the port whose GID the link names.
  smcr::QueuePair* create_qp(const smcr::Gid& local) override;
  // Without the peer's path there is nothing to connect to: false.
  bool connect(smcr::QueuePair& qp, std::uint32_t peer_qp_number) override;
  bool connect_path(smcr::QueuePair& qp, std::uint32_t peer_qp_number, const smcr::PeerPath& path) override;
  void destroy_qp(smcr::QueuePair& qp) override;
  std::optional<std::uint32_t> allocate_rmb(std::uint64_t size) override;
  wire::MutableBytes rmb(std::uint32_t id) override;
  std::optional<smcr::RToken> register_rmb(std::uint32_t id, smcr::QueuePair& qp) override;
  void deregister_rmb(std::uint32_t id, smcr::QueuePair& qp) override;
  // A path failure made here (the smcr suite's smcr.break_link): the queue
  // pair goes into the error state as if verbs had reported one; the peer
  // sees its work go unanswered (RFC 7609 §4.6). False for a queue pair
  // not of this host or already broken.
  bool break_qp(smcr::QueuePair& qp);

  // The most memory RMBs take on this host (a local bound).
  static constexpr std::uint64_t kMaxMemory = std::uint64_t{64} << 20;

 private:
  friend class RoceQueuePair;
  struct Rmb {
    std::unique_ptr<std::uint8_t, void (*)(void*)> memory{nullptr, nullptr};
    std::uint64_t size = 0;
  };
  struct Registration {
    std::uint32_t rmb = 0;
    const RoceQueuePair* qp = nullptr;
    ibv_mr* mr = nullptr;
  };
  RoceHost() = default;
  // Opens `config`'s device into `port` and picks its RoCEv2 GID.
  static bool open_port(const RoceDeviceConfig& config, RocePort& port, std::string& error);
  smcr::QueuePair* create_qp_on(RocePort& port);
  RoceQueuePair* find(const smcr::QueuePair& qp) const;
  void read_async_events();
  void note(std::string text);
  void deregister_all(const RoceQueuePair& qp);

  RocePort primary_;
  std::unique_ptr<RocePort> alternate_;  // stable: queue pairs keep a reference
  std::vector<std::unique_ptr<RoceQueuePair>> qps_;
  std::vector<Rmb> rmbs_;
  std::vector<Registration> registrations_;
  std::uint64_t allocated_ = 0;
  std::vector<std::string> notes_;
};

}  // namespace rdmaconf::agent::rdma_core
