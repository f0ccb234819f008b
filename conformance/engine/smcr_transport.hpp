// The RoCE side of the smcr suite (docs/conformance.md, "The smcr suite"):
// what the tester's SMC-R peer runs over once the CLC handshake reached
// SMC-R. The engine asks a RoceFactory for a RoceSide per case connection:
// a Host for the tester's queue pairs and RMBs (reference/smcr/transport.hpp)
// and the first link's end the tester's CLC message announces (RFC 7609
// App. A.2.3/A.2.4: QP, GID, MAC, the RMB's RToken). Against the reference
// IUT both sides live on one in-memory fabric in this process
// (smcr_memory.hpp) and the runner drives the IUT's side too; an rdma-core
// RoCEv2 transport offers the same interface for a live device, whose side
// runs on its own.
//
// TapHost wraps a Host so that what its queue pairs send and receive can be
// watched, changed or held back: the tester's log of the IUT's LLC and CDC
// messages, and the reference IUT's faults, act there.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "smcr/link_group.hpp"
#include "smcr/transport.hpp"

namespace rdmaconf::conformance {

// The case's TCP connection, both ends as "a.b.c.d:port".
struct RoceEndpoints {
  std::string tester_address;
  std::string iut_address;
};

// The tester's end of the first link, made before its CLC message names it.
struct RoceFirstLink {
  smcr::QueuePair* qp = nullptr;
  smcr::LinkAddress address;
  std::uint32_t rmb = 0;     // the Host's handle of the tester's first RMB
  smcr::RToken rtoken;       // that RMB registered on qp
  std::uint64_t rmb_size = 0;
};

// What a script asks the IUT's own side to do (`> smcr.iut.ACTION`, the
// cases that need `smcr-actions`): its application or its link group acts,
// unprompted by the tester.
struct IutAction {
  enum class Kind : std::uint8_t {
    kAddRmb,      // a new RMB for the link group: its CONFIRM RKEY (§3.5.5.2.1)
    kAddLink,     // a new link: the server's ADD LINK, or the client's telling of a new RNIC (§3.5.5.1.2)
    kDeleteLink,  // the link numbered `link` leaves the group: DELETE LINK (§3.5.5.1.3)
    kClose,       // the application closes its connection (§4.8.1)
  };
  Kind kind = Kind::kAddRmb;
  std::uint8_t link = 0;
  // kClose: which of the link group's connections, in the order they were
  // set up (0: the first contact's).
  std::size_t connection = 0;
};

class RoceSide {
 public:
  virtual ~RoceSide() = default;
  virtual smcr::Host& host() = 0;
  // Creates the first link's queue pair and an RMB of `rmb_size` octets
  // registered on it; nullopt with `error` when the device cannot.
  virtual std::optional<RoceFirstLink> first_link(std::uint64_t rmb_size, std::string& error) = 0;
  // A second RoCE port of the tester for added links (§3.5.1.6), if any.
  virtual std::optional<smcr::LinkAddress> alternate() const = 0;
  // Connects the first link from what the CLC handshake agreed (RFC 7609
  // §3.5.1.5: the peer's QP number, MAC, GID and initial PSN from its Accept
  // or Confirm, the agreed MTU, the PSN the tester's own message announced).
  // A device connects before the tester's last CLC message leaves, so that
  // its queue pair already receives the server's CONFIRM LINK; in process,
  // once the IUT took that message. False with `error` when it cannot.
  virtual bool connect_first(smcr::QueuePair& qp, std::uint32_t peer_qp, const smcr::PeerPath& path,
                             std::string& error) = 0;
  // Runs the IUT's side where it lives in this process; false when nothing
  // moved there. A device runs on its own: false.
  virtual bool drive(smcr::Time /*now*/) { return false; }
  // True when drive() runs the whole IUT: a quiet fabric is a final answer.
  virtual bool in_process() const { return false; }
  // A path failure on the link whose tester queue pair is `qp` (§4.6).
  virtual bool break_link(smcr::QueuePair& qp) = 0;
  // What the transport noticed that no link event carries (a device's
  // verbs: work refused, a failed completion in words, async events);
  // taken once, for the report of a case that did not pass.
  virtual std::vector<std::string> take_notes() { return {}; }
  // The link whose tester queue pair is `qp` stops delivering the IUT's
  // work to the tester (nothing completes) until break_link: only a fabric
  // the tester controls can (needs: smcr-fabric). False: it cannot.
  virtual bool stall_link(smcr::QueuePair& /*qp*/) { return false; }
  // Has the IUT's side act on its own; false with `error` when this side
  // cannot ask it (only an IUT in process can be asked).
  // The IUT's side took connection `index` of the link group (one whose CLC
  // reused the group, §3.5.2) so that its CDC messages find it: the
  // reference's CLC thread hands it over on its own time, and the runner
  // waits here (bounded) before the connection's first SMC-R step. A
  // device's IUT did when its CLC did.
  virtual bool await_connection(std::size_t /*index*/, std::string& /*error*/) { return true; }
  virtual bool iut_act(const IutAction& /*action*/, std::string& error) {
    error = "this RoCE side cannot ask the IUT to act on its own (needs: smcr-actions)";
    return false;
  }
};

using RoceFactory = std::function<std::unique_ptr<RoceSide>(const RoceEndpoints&, std::string& error)>;

// ------------------------------------------------------------ watching a host

// What a tap may do with one message: pass it (perhaps changed), or hold it back.
using SendTap = std::function<bool(smcr::QueuePair& qp, std::vector<std::uint8_t>& octets)>;

class TapHost;

class TapQueuePair final : public smcr::QueuePair {
 public:
  TapQueuePair(TapHost& host, smcr::QueuePair& inner) : host_(host), inner_(inner) {}
  std::uint32_t qp_number() const override { return inner_.qp_number(); }
  bool broken() const override { return inner_.broken(); }
  smcr::WorkId post_send(wire::Bytes message) override;
  smcr::WorkId post_write(smcr::RToken target, wire::Bytes octets) override { return inner_.post_write(target, octets); }
  std::optional<smcr::QpEvent> poll() override;
  smcr::QueuePair& inner() { return inner_; }

 private:
  TapHost& host_;
  smcr::QueuePair& inner_;
};

// A Host whose queue pairs pass every Send through `outgoing` and every
// received one through `incoming`.
class TapHost final : public smcr::Host {
 public:
  explicit TapHost(smcr::Host& inner) : inner_(inner) {}
  SendTap outgoing, incoming;

  // Wraps a queue pair made elsewhere (the first link's, before CLC).
  TapQueuePair* adopt(smcr::QueuePair& qp);
  // The tap over `qp`, or nullptr.
  TapQueuePair* find(std::uint32_t qp_number);
  const std::vector<std::unique_ptr<TapQueuePair>>& queue_pairs() const { return qps_; }

  smcr::QueuePair* create_qp(const smcr::Gid& local) override;
  bool connect(smcr::QueuePair& qp, std::uint32_t peer_qp_number) override;
  // Added links of a device need the peer's path too (ADD LINK, App. A.3.2).
  bool connect_path(smcr::QueuePair& qp, std::uint32_t peer_qp_number, const smcr::PeerPath& path) override;
  void destroy_qp(smcr::QueuePair& qp) override;
  // While held (a device's link group ending, runner_smcr.cpp), destroy_qp()
  // keeps the queue pair alive until release_held(): the peer's last Sends
  // (a CDC message after its DELETE LINK) still find a queue pair to
  // acknowledge them; poll_held() takes and discards what arrives there.
  void hold_destroyed() { holding_ = true; }
  bool poll_held();
  void release_held();
  std::optional<std::uint32_t> allocate_rmb(std::uint64_t size) override { return inner_.allocate_rmb(size); }
  wire::MutableBytes rmb(std::uint32_t id) override { return inner_.rmb(id); }
  std::optional<smcr::RToken> register_rmb(std::uint32_t id, smcr::QueuePair& qp) override;
  void deregister_rmb(std::uint32_t id, smcr::QueuePair& qp) override;

 private:
  friend class TapQueuePair;
  static smcr::QueuePair& unwrap(smcr::QueuePair& qp);
  smcr::Host& inner_;
  std::vector<std::unique_ptr<TapQueuePair>> qps_;
  bool holding_ = false;
  std::vector<std::unique_ptr<TapQueuePair>> held_;
};

}  // namespace rdmaconf::conformance
