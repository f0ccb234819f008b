// What one SMC-R link's RC queue pair offers the link layer's machines, and
// an implementation of it in memory (two peers, reference against
// reference, for tests and fuzzing); the rdma-core one over RoCEv2
// (conformance/agent/rdma_core/roce_transport.hpp) offers the same interface.
//
// A queue pair posts two kinds of work (RFC 7609 §2.1, §3.3, §4.4): an RC
// Send carrying one LLC or CDC message (44 octets; a v2 LLC message up to
// 8192), and an RDMA Write of octets into the peer's registered memory at a
// virtual address through an rkey. Reliable connected service (IBTA vol. 1
// ch. 9) delivers both in the order they were posted, exactly once: a Write
// posted before a Send is placed before that Send arrives, which is what
// lets a CDC message announce the data written ahead of it (§4.4.1). A
// Write through an rkey the target did not register on this queue pair, or
// outside the registration, is a remote access error: the responder NAKs
// it and both queue pairs enter the error state (IBTA vol. 1 ch. 9's RC
// error handling; rdma_rxe does the same), ending the link. A queue pair in error flushes all its work.
//
// Receiving is polled: poll() hands over, in order, the Sends that arrived,
// the completions of work posted here, and once the queue pair breaks the
// error that broke it. Nothing here keeps time: the machines take time as an
// input, and the in-memory queue pair delivers when the receiving side polls.
//
// Registered memory is the transport's: a host registers an RMB on a queue
// pair and gets the RToken (rkey, virtual address) the peer writes through
// (§2.1; one RToken per RMB and link, §3.5.5.2).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "check/rule.hpp"
#include "smcr/types.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::smcr {

// The work completion statuses an SMC-R link sees (IBTA vol. 1 ch. 11).
enum class WorkStatus : std::uint8_t {
  kSuccess,
  kRemoteAccessError,  // the target refused a Write: bad rkey or bounds
  kRetryExceeded,      // the peer stopped answering: the path is lost
  kFlushed,            // the queue pair was in error: the work was not done
};

enum class WorkOp : std::uint8_t { kSend, kWrite };

using WorkId = std::uint64_t;

// One thing poll() hands over.
struct QpEvent {
  enum class Kind : std::uint8_t {
    kReceive,     // a Send arrived: `octets`
    kCompletion,  // work posted here completed: `work`, `op`, `status`
    kError,       // the queue pair entered the error state: `status` says why
  };
  Kind kind = Kind::kReceive;
  std::vector<std::uint8_t> octets;
  WorkId work = 0;
  WorkOp op = WorkOp::kSend;
  WorkStatus status = WorkStatus::kSuccess;
  // kError after a refused Write: the rule the Write broke (check/smcr.hpp).
  std::optional<check::Violation> violation;
};

class QueuePair {
 public:
  virtual ~QueuePair() = default;
  // The 24-bit QP number the peer addresses (CLC Accept/Confirm, ADD LINK).
  virtual std::uint32_t qp_number() const = 0;
  // In the error state: nothing posted will be done.
  virtual bool broken() const = 0;
  virtual WorkId post_send(wire::Bytes message) = 0;
  virtual WorkId post_write(RToken target, wire::Bytes octets) = 0;
  virtual std::optional<QpEvent> poll() = 0;
};

// The peer's end of a RoCE path and the sequence numbers that start it, as
// CLC (App. A.2.3/A.2.4) or ADD LINK (A.3.2) announce them: what a queue
// pair over a real device needs for its RTR/RTS transitions (the peer's
// GID addresses it, its initial PSN is our receive PSN, ours our send
// PSN). The in-memory fabric addresses queue pairs by number alone and
// ignores the rest.
struct PeerPath {
  Mac mac = 0;
  Gid gid{};
  std::uint32_t psn = 0;        // the peer's initial packet sequence number (24 bits)
  std::uint8_t mtu = 0;         // the path MTU as A.2.3 enumerates it (1 = 256 ... 5 = 4096); 0: the port's
  std::uint32_t local_psn = 0;  // the initial PSN this side announced for its queue pair (24 bits)
};

// A host's side of the fabric: the queue pairs it creates and the memory
// it registers on them.
class Host {
 public:
  virtual ~Host() = default;
  // A new queue pair (for an added link), not yet connected, on the port
  // whose GID is `local`: the link's own end, as its ADD LINK names it (the
  // first link's port again for an asymmetric link, §2.2.1). A host with
  // one port has it there.
  virtual QueuePair* create_qp(const Gid& local) = 0;
  // Connects a queue pair to the peer's queue pair `peer_qp_number` (the
  // RTR/RTS transitions of §3.5.1.5 / §3.5.1.6.2). False if there is none.
  virtual bool connect(QueuePair& qp, std::uint32_t peer_qp_number) = 0;
  // The same with the path the peer announced: a host over a real device
  // needs it (and refuses connect() without it); the link group always
  // calls this one. By default the path is not needed. (A name of its own,
  // not an overload: a Host that overrides connect() hides nothing.)
  virtual bool connect_path(QueuePair& qp, std::uint32_t peer_qp_number, const PeerPath& path) {
    (void)path;
    return connect(qp, peer_qp_number);
  }
  virtual void destroy_qp(QueuePair& qp) = 0;
  // Memory the link layer owns (an RMB): `id` is the host's handle.
  virtual std::optional<std::uint32_t> allocate_rmb(std::uint64_t size) = 0;
  virtual wire::MutableBytes rmb(std::uint32_t id) = 0;
  // Registers the RMB on a queue pair: the RToken the peer writes through.
  virtual std::optional<RToken> register_rmb(std::uint32_t id, QueuePair& qp) = 0;
  virtual void deregister_rmb(std::uint32_t id, QueuePair& qp) = 0;
};

// ------------------------------------------------------------- in memory

class MemoryFabric;
class MemoryHost;

class MemoryQueuePair final : public QueuePair {
 public:
  std::uint32_t qp_number() const override { return number_; }
  bool broken() const override { return broken_; }
  WorkId post_send(wire::Bytes message) override;
  WorkId post_write(RToken target, wire::Bytes octets) override;
  std::optional<QpEvent> poll() override;

  // Work posted here that the peer has not taken yet.
  std::size_t in_flight() const { return outbound_.size(); }
  // This end takes no more of the peer's work (a path that stopped
  // delivering, before RC's retries give up): what the peer posts stays in
  // flight, uncompleted, until the link breaks and flushes it (§4.6.2).
  void stall() { stalled_ = true; }

 private:
  friend class MemoryFabric;
  friend class MemoryHost;
  struct Work {
    WorkId id = 0;
    WorkOp op = WorkOp::kSend;
    RToken target;
    std::vector<std::uint8_t> octets;
  };
  MemoryQueuePair(MemoryHost& host, std::uint32_t number) : host_(host), number_(number) {}
  // Takes the peer's posted work, in order, into this side.
  void deliver();
  void enter_error(WorkStatus why, std::optional<check::Violation> v);

  MemoryHost& host_;
  std::uint32_t number_;
  MemoryQueuePair* peer_ = nullptr;
  bool broken_ = false;
  bool stalled_ = false;
  WorkId next_work_ = 1;
  std::deque<Work> outbound_;   // posted here, not yet taken by the peer
  std::deque<QpEvent> events_;  // for poll()
};

// One host's memory and queue pairs in a MemoryFabric.
class MemoryHost final : public Host {
 public:
  QueuePair* create_qp(const Gid& local) override;
  bool connect(QueuePair& qp, std::uint32_t peer_qp_number) override;
  void destroy_qp(QueuePair& qp) override;
  std::optional<std::uint32_t> allocate_rmb(std::uint64_t size) override;
  wire::MutableBytes rmb(std::uint32_t id) override;
  std::optional<RToken> register_rmb(std::uint32_t id, QueuePair& qp) override;
  void deregister_rmb(std::uint32_t id, QueuePair& qp) override;

  // Octets placed by Writes from the peer, for the tests' accounting.
  std::uint64_t octets_written() const { return written_; }
  // The most memory a host allocates for RMBs (a local bound, not a peer's).
  static constexpr std::uint64_t kMaxMemory = std::uint64_t{1} << 28;

 private:
  friend class MemoryFabric;
  friend class MemoryQueuePair;
  struct Registration {
    std::uint32_t rmb = 0;
    const QueuePair* qp = nullptr;
    RToken rtoken;
    bool deregistered = false;
  };
  MemoryHost(MemoryFabric& fabric, int index) : fabric_(fabric), index_(index) {}
  // Places a Write arriving on `qp`: the rkey must be registered on that
  // queue pair and not deregistered since (§3.5.5.2), and the octets must
  // lie inside the registration (§4.4.1); check/smcr.hpp judges both.
  std::optional<check::Violation> place(const QueuePair& qp, RToken target, wire::Bytes octets);

  MemoryFabric& fabric_;
  int index_;
  std::vector<std::vector<std::uint8_t>> rmbs_;
  std::vector<std::uint64_t> rmb_addresses_;
  std::vector<Registration> registrations_;
  std::uint64_t allocated_ = 0;
  std::uint64_t written_ = 0;
};

// Two hosts (0 and 1), their queue pairs and their registered memory.
class MemoryFabric {
 public:
  MemoryFabric();
  MemoryFabric(const MemoryFabric&) = delete;
  MemoryFabric& operator=(const MemoryFabric&) = delete;

  MemoryHost& host(int h) { return h == 0 ? host0_ : host1_; }
  // A queue pair on host `h`, numbered by the fabric (24-bit QP numbers,
  // unique across both hosts, so that a test can tell them apart).
  MemoryQueuePair& create_qp(int h);
  // Connects `a` and `b` both ways (the first link, set up by CLC).
  static void connect(MemoryQueuePair& a, MemoryQueuePair& b);
  // A path failure: both ends enter the error state, the work not yet
  // taken is flushed (the failover tests).
  static void break_link(MemoryQueuePair& qp);
  MemoryQueuePair* find_qp(std::uint32_t number);

  // Every Send delivered, in order, when `record_sends` is set: what a
  // capture of the fabric would show (the tests read the messages).
  struct Delivered {
    std::uint32_t from_qp = 0;
    std::uint32_t to_qp = 0;
    std::vector<std::uint8_t> octets;
  };
  bool record_sends = false;
  std::vector<Delivered> sends;

 private:
  friend class MemoryHost;
  friend class MemoryQueuePair;
  std::uint32_t next_qp_ = 0x100;
  std::uint32_t next_rkey_ = 0x1000;
  std::vector<std::unique_ptr<MemoryQueuePair>> qps_;
  MemoryHost host0_{*this, 0};
  MemoryHost host1_{*this, 1};
};

}  // namespace rdmaconf::smcr
