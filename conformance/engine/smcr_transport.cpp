#include "engine/smcr_transport.hpp"

#include <algorithm>

namespace rdmaconf::conformance {

smcr::WorkId TapQueuePair::post_send(wire::Bytes message) {
  std::vector<std::uint8_t> octets(message.begin(), message.end());
  // A message held back still completes for the sender: it was posted.
  if (host_.outgoing && !host_.outgoing(*this, octets)) return inner_.post_send({});
  return inner_.post_send(octets);
}

std::optional<smcr::QpEvent> TapQueuePair::poll() {
  for (;;) {
    std::optional<smcr::QpEvent> e = inner_.poll();
    if (!e || e->kind != smcr::QpEvent::Kind::kReceive || !host_.incoming) return e;
    // An empty Send is what a held-back message left: nothing arrived.
    if (e->octets.empty()) continue;
    if (host_.incoming(*this, e->octets)) return e;
  }
}

smcr::QueuePair& TapHost::unwrap(smcr::QueuePair& qp) {
  auto* t = dynamic_cast<TapQueuePair*>(&qp);
  return t ? t->inner() : qp;
}

TapQueuePair* TapHost::adopt(smcr::QueuePair& qp) {
  qps_.push_back(std::make_unique<TapQueuePair>(*this, qp));
  return qps_.back().get();
}

TapQueuePair* TapHost::find(std::uint32_t qp_number) {
  for (auto& q : qps_)
    if (q->qp_number() == qp_number) return q.get();
  return nullptr;
}

smcr::QueuePair* TapHost::create_qp(const smcr::Gid& local) {
  smcr::QueuePair* qp = inner_.create_qp(local);
  return qp ? adopt(*qp) : nullptr;
}

bool TapHost::connect(smcr::QueuePair& qp, std::uint32_t peer_qp_number) {
  return inner_.connect(unwrap(qp), peer_qp_number);
}

bool TapHost::connect_path(smcr::QueuePair& qp, std::uint32_t peer_qp_number, const smcr::PeerPath& path) {
  return inner_.connect_path(unwrap(qp), peer_qp_number, path);
}

void TapHost::destroy_qp(smcr::QueuePair& qp) {
  smcr::QueuePair& inner = unwrap(qp);
  const auto it = std::find_if(qps_.begin(), qps_.end(), [&](const auto& t) { return &t->inner() == &inner; });
  if (holding_ && it != qps_.end()) {
    held_.push_back(std::move(*it));
    qps_.erase(it);
    return;
  }
  if (it != qps_.end()) qps_.erase(it);
  inner_.destroy_qp(inner);
}

bool TapHost::poll_held() {
  bool any = false;
  for (const auto& t : held_)
    while (t->inner().poll()) any = true;
  return any;
}

void TapHost::release_held() {
  for (const auto& t : held_) inner_.destroy_qp(t->inner());
  held_.clear();
  holding_ = false;
}

std::optional<smcr::RToken> TapHost::register_rmb(std::uint32_t id, smcr::QueuePair& qp) {
  return inner_.register_rmb(id, unwrap(qp));
}

void TapHost::deregister_rmb(std::uint32_t id, smcr::QueuePair& qp) { inner_.deregister_rmb(id, unwrap(qp)); }

}  // namespace rdmaconf::conformance
