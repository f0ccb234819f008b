#include "smcr/transport.hpp"

#include <algorithm>

#include "check/smcr.hpp"

namespace rdmaconf::smcr {

// ------------------------------------------------------ MemoryQueuePair

WorkId MemoryQueuePair::post_send(wire::Bytes message) {
  const WorkId id = next_work_++;
  if (broken_) {
    events_.push_back({QpEvent::Kind::kCompletion, {}, id, WorkOp::kSend, WorkStatus::kFlushed, std::nullopt});
    return id;
  }
  outbound_.push_back({id, WorkOp::kSend, {}, {message.begin(), message.end()}});
  return id;
}

WorkId MemoryQueuePair::post_write(RToken target, wire::Bytes octets) {
  const WorkId id = next_work_++;
  if (broken_) {
    events_.push_back({QpEvent::Kind::kCompletion, {}, id, WorkOp::kWrite, WorkStatus::kFlushed, std::nullopt});
    return id;
  }
  outbound_.push_back({id, WorkOp::kWrite, target, {octets.begin(), octets.end()}});
  return id;
}

void MemoryQueuePair::deliver() {
  if (!peer_ || stalled_) return;
  MemoryQueuePair& from = *peer_;
  // RC: the peer's work in posting order; a refused Write stops the rest.
  while (!from.outbound_.empty() && !broken_) {
    Work w = std::move(from.outbound_.front());
    from.outbound_.pop_front();
    if (w.op == WorkOp::kWrite) {
      if (auto v = host_.place(*this, w.target, w.octets)) {
        from.events_.push_back(
            {QpEvent::Kind::kCompletion, {}, w.id, WorkOp::kWrite, WorkStatus::kRemoteAccessError, std::nullopt});
        enter_error(WorkStatus::kRemoteAccessError, v);
        from.enter_error(WorkStatus::kRemoteAccessError, v);
        return;
      }
    } else {
      if (host_.fabric_.record_sends) host_.fabric_.sends.push_back({from.number_, number_, w.octets});
      events_.push_back({QpEvent::Kind::kReceive, std::move(w.octets), 0, WorkOp::kSend, WorkStatus::kSuccess,
                         std::nullopt});
    }
    from.events_.push_back({QpEvent::Kind::kCompletion, {}, w.id, w.op, WorkStatus::kSuccess, std::nullopt});
  }
}

std::optional<QpEvent> MemoryQueuePair::poll() {
  deliver();
  // The peer's completions arrive as this side takes its work: let the
  // peer's poll see them; this side's own completions come from its peer.
  if (peer_ && !peer_->broken_) peer_->deliver();
  if (events_.empty()) return std::nullopt;
  QpEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

void MemoryQueuePair::enter_error(WorkStatus why, std::optional<check::Violation> v) {
  if (broken_) return;
  broken_ = true;
  // Everything not yet taken by the peer is flushed, in order.
  for (const Work& w : outbound_)
    events_.push_back({QpEvent::Kind::kCompletion, {}, w.id, w.op, WorkStatus::kFlushed, std::nullopt});
  outbound_.clear();
  events_.push_back({QpEvent::Kind::kError, {}, 0, WorkOp::kSend, why, v});
}

// ----------------------------------------------------------- MemoryHost

QueuePair* MemoryHost::create_qp(const Gid& local) {
  (void)local;  // one fabric: every queue pair reaches every other
  return &fabric_.create_qp(index_);
}

bool MemoryHost::connect(QueuePair& qp, std::uint32_t peer_qp_number) {
  MemoryQueuePair* peer = fabric_.find_qp(peer_qp_number);
  auto* mine = fabric_.find_qp(qp.qp_number());
  if (!peer || !mine || &peer->host_ == this || peer->broken_) return false;
  mine->peer_ = peer;
  // The peer's RTR transition names us when it connects; until then a Send
  // to it already arrives (RoCE needs no handshake once both are set up,
  // and the peer set itself up before it announced its QP number).
  if (!peer->peer_) peer->peer_ = mine;
  return true;
}

void MemoryHost::destroy_qp(QueuePair& qp) {
  if (MemoryQueuePair* q = fabric_.find_qp(qp.qp_number())) {
    // Linux waits for the sends it posted before it frees a link
    // (smc_wr_tx_wait_no_pending_sends): they reach the peer first. Then
    // the peer's queue pair has no one to talk to.
    if (q->peer_ && q->peer_->peer_ == q && !q->broken_) q->peer_->deliver();
    if (q->peer_ && q->peer_->peer_ == q) q->peer_->enter_error(WorkStatus::kRetryExceeded, std::nullopt);
    q->enter_error(WorkStatus::kFlushed, std::nullopt);
  }
  for (Registration& r : registrations_)
    if (r.qp == &qp) r.deregistered = true;
}

std::optional<std::uint32_t> MemoryHost::allocate_rmb(std::uint64_t size) {
  if (size == 0 || size > kMaxMemory - allocated_) return std::nullopt;
  allocated_ += size;
  rmbs_.emplace_back(size, std::uint8_t{0});
  // Each RMB its own range of addresses, 4 GiB apart, host-specific: a
  // Write through one RMB's rkey with another's address is out of bounds.
  rmb_addresses_.push_back((std::uint64_t{0x10} + static_cast<std::uint64_t>(index_)) << 40 |
                           static_cast<std::uint64_t>(rmbs_.size()) << 32);
  return static_cast<std::uint32_t>(rmbs_.size() - 1);
}

wire::MutableBytes MemoryHost::rmb(std::uint32_t id) {
  return id < rmbs_.size() ? wire::MutableBytes(rmbs_[id]) : wire::MutableBytes();
}

std::optional<RToken> MemoryHost::register_rmb(std::uint32_t id, QueuePair& qp) {
  if (id >= rmbs_.size()) return std::nullopt;
  for (const Registration& r : registrations_)
    if (r.rmb == id && r.qp == &qp && !r.deregistered) return r.rtoken;
  Registration r;
  r.rmb = id;
  r.qp = &qp;
  r.rtoken = {fabric_.next_rkey_++, rmb_addresses_[id]};
  registrations_.push_back(r);
  return r.rtoken;
}

void MemoryHost::deregister_rmb(std::uint32_t id, QueuePair& qp) {
  for (Registration& r : registrations_)
    if (r.rmb == id && r.qp == &qp) r.deregistered = true;
}

std::optional<check::Violation> MemoryHost::place(const QueuePair& qp, RToken target, wire::Bytes octets) {
  // The latest registration of the rkey counts (rkeys are never reused here).
  const Registration* reg = nullptr;
  for (const Registration& r : registrations_)
    if (r.rtoken.rkey == target.rkey && r.qp == &qp) reg = &r;
  if (auto v = check::write_through_announced_rkey(reg != nullptr, reg && reg->deregistered, target.rkey)) return v;
  std::vector<std::uint8_t>& memory = rmbs_[reg->rmb];
  if (auto v = check::write_inside_rmbe(target.virtual_address, octets.size(), reg->rtoken.virtual_address,
                                        memory.size()))
    return v;
  const std::uint64_t at = target.virtual_address - reg->rtoken.virtual_address;
  std::copy(octets.begin(), octets.end(), memory.begin() + static_cast<std::ptrdiff_t>(at));
  written_ += octets.size();
  return std::nullopt;
}

// --------------------------------------------------------- MemoryFabric

MemoryFabric::MemoryFabric() = default;

MemoryQueuePair& MemoryFabric::create_qp(int h) {
  qps_.push_back(std::unique_ptr<MemoryQueuePair>(new MemoryQueuePair(host(h), next_qp_++ & 0xFFFFFF)));
  return *qps_.back();
}

MemoryQueuePair* MemoryFabric::find_qp(std::uint32_t number) {
  for (auto& q : qps_)
    if (q->number_ == number) return q.get();
  return nullptr;
}

void MemoryFabric::connect(MemoryQueuePair& a, MemoryQueuePair& b) {
  a.peer_ = &b;
  b.peer_ = &a;
}

void MemoryFabric::break_link(MemoryQueuePair& qp) {
  // A lost path: neither end takes more work; what was posted is flushed.
  qp.enter_error(WorkStatus::kRetryExceeded, std::nullopt);
  if (qp.peer_) qp.peer_->enter_error(WorkStatus::kRetryExceeded, std::nullopt);
}

}  // namespace rdmaconf::smcr
