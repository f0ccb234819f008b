// The link group's routing of connections (link_group.hpp): which link
// carries each connection's CDC messages and RDMA Writes, the work kept
// until its completion so a failover can post it again on the link that
// takes over (RFC 7609 §4.6.2), and the RTokens each link uses for a
// buffer (§3.5.5.2).
#include <algorithm>

#include "smcr/link_group.hpp"

namespace rdmaconf::smcr {

std::size_t LinkGroup::peer_rmb_with(std::size_t slot, std::uint32_t rkey) const {
  for (std::size_t i = 0; i < peer_rmbs_.size(); ++i)
    if (peer_rmbs_[i].rtokens[slot] && peer_rmbs_[i].rtokens[slot]->rkey == rkey) return i;
  return peer_rmbs_.size();
}

bool LinkGroup::add_connection(const ConnectionRoute& route) {
  if (routes_.size() >= kMaxConnections || state_ == State::kTerminated) return false;
  idle_deadline_.reset();
  for (const Route& r : routes_)
    if (r.route.token == route.token) return false;
  for (std::size_t i = 0; i < peer_rmbs_.size(); ++i)
    for (std::size_t s = 0; s < kMaxLinks; ++s) {
      if (!peer_rmbs_[i].rtokens[s] || *peer_rmbs_[i].rtokens[s] != route.peer_rmb) continue;
      Route r;
      r.route = route;
      r.peer_rmb = i;
      // The link the RMB was announced on, while it works; another otherwise.
      r.slot = links_[s].state == LinkState::kActive ? s : usable_slot().value_or(s);
      routes_.push_back(std::move(r));
      return true;
    }
  return false;
}

void LinkGroup::remove_connection(std::uint32_t token, Time now) {
  if (std::erase_if(routes_, [&](const Route& r) { return r.route.token == token; }) == 0) return;
  if (state_ == State::kTerminated) return;
  // §2: the group outlives a connection, the others go on (the fault ends it).
  if (!routes_.empty()) {
    if (cfg_.faults.has(GroupFault::kEndsWithAnyConnection)) request_termination(delete_reason::kProgramInitiated, now);
    return;
  }
  // The last connection: the group waits for the next one for a time of
  // this side's choosing (local policy, not a rule), then ends.
  if (cfg_.idle_time.count() > 0) idle_deadline_ = now + cfg_.idle_time;
}

std::optional<std::uint8_t> LinkGroup::link_of(std::uint32_t token) const {
  for (const Route& r : routes_)
    if (r.route.token == token && r.slot != kStranded && links_[r.slot].state != LinkState::kUnused)
      return links_[r.slot].number;
  return std::nullopt;
}

std::optional<WorkId> LinkGroup::send_cdc(std::uint32_t token, wire::Bytes message) {
  for (Route& r : routes_) {
    if (r.route.token != token) continue;
    if (r.slot == kStranded) return std::nullopt;
    Link& l = links_[r.slot];
    if (l.qp == nullptr || state_ == State::kTerminated) return std::nullopt;
    const WorkId id = l.qp->post_send(message);
    track(r, id, false, 0, message);
    return id;
  }
  return std::nullopt;
}

std::optional<WorkId> LinkGroup::write(std::uint32_t token, std::uint64_t offset, wire::Bytes octets) {
  for (Route& r : routes_) {
    if (r.route.token != token) continue;
    if (r.slot == kStranded) return std::nullopt;
    Link& l = links_[r.slot];
    if (l.qp == nullptr || state_ == State::kTerminated || r.peer_rmb >= peer_rmbs_.size()) return std::nullopt;
    const std::optional<RToken>& t = peer_rmbs_[r.peer_rmb].rtokens[r.slot];
    if (!t) return std::nullopt;
    const WorkId id = l.qp->post_write({t->rkey, t->virtual_address + r.route.rmbe_offset + offset}, octets);
    track(r, id, true, offset, octets);
    return id;
  }
  return std::nullopt;
}

void LinkGroup::track(Route& r, WorkId id, bool write, std::uint64_t offset, wire::Bytes octets) {
  if (r.work.size() >= kMaxTrackedWork) return;
  Posted w{r.slot, id, write, offset, {}, false, false};
  if (r.kept_octets + octets.size() <= kMaxKeptOctets) {
    w.octets.assign(octets.begin(), octets.end());
    w.kept = true;
    r.kept_octets += octets.size();
  }
  r.work.push_back(std::move(w));
}

std::uint16_t LinkGroup::sequence_sent(std::uint32_t token) const {
  for (const Route& r : routes_)
    if (r.route.token == token) return r.sequence_sent;
  return 0;
}

bool LinkGroup::replay(std::uint32_t token) {
  for (Route& r : routes_) {
    if (r.route.token != token) continue;
    if (r.slot == kStranded) return false;
    Link& l = links_[r.slot];
    if (l.qp == nullptr || state_ == State::kTerminated) return false;
    bool whole = true;
    // rfc7609-4.6.2-replay-before-new-data: the failed work again, as it
    // was (its sequence numbers kept), in order, on the connection's link.
    for (Posted& w : r.work) {
      if (!w.failed) continue;
      if (cfg_.faults.has(GroupFault::kNoReplay) || !w.kept) {
        whole = false;
        continue;
      }
      const std::optional<RToken>& t =
          r.peer_rmb < peer_rmbs_.size() ? peer_rmbs_[r.peer_rmb].rtokens[r.slot] : std::optional<RToken>{};
      if (w.write && !t) {
        whole = false;
        continue;
      }
      w.id = w.write ? l.qp->post_write({t->rkey, t->virtual_address + r.route.rmbe_offset + w.offset}, w.octets)
                     : l.qp->post_send(w.octets);
      w.slot = r.slot;
      w.failed = false;
    }
    // What cannot be replayed is forgotten: its place in the stream is lost.
    std::erase_if(r.work, [&](const Posted& w) {
      const bool gone = w.failed;
      if (gone) r.kept_octets -= w.octets.size();
      return gone;
    });
    return whole;
  }
  return false;
}

std::optional<RToken> LinkGroup::peer_rtoken(RToken any, std::uint8_t number) const {
  const std::optional<std::size_t> slot = slot_of(number);
  if (!slot) return std::nullopt;
  for (const PeerRmb& p : peer_rmbs_)
    for (const std::optional<RToken>& t : p.rtokens)
      if (t && *t == any) return p.rtokens[*slot];
  return std::nullopt;
}

std::optional<RToken> LinkGroup::local_rtoken(std::uint32_t rmb, std::uint8_t number) const {
  const std::optional<std::size_t> slot = slot_of(number);
  if (!slot) return std::nullopt;
  for (const LocalRmb& r : local_rmbs_)
    if (r.id == rmb) return r.rtokens[*slot];
  return std::nullopt;
}

}  // namespace rdmaconf::smcr
