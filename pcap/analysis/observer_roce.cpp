#include "analysis/observer_roce.hpp"

#include "analysis/hex.hpp"

namespace rdmaconf::analysis {

namespace {

// PSNs are 24-bit serial numbers: a is before b when b - a, mod 2^24, is in
// the lower half of the space (IBTA vol. 1 §9.7.1).
bool psn_before(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t d = (b - a) & 0xFFFFFF;
  return d != 0 && d < 0x800000;
}

std::string cursor_text(smcr::Cursor c) { return std::to_string(c.wrap) + ":" + std::to_string(c.count); }

}  // namespace

ClcRmbe ClcRmbe::from(const clc::SmcrBody& b) {
  using RF = clc::SmcrAcceptConfirmSpec::Field;
  ClcRmbe r;
  r.alert_token = static_cast<std::uint32_t>(b.get(RF::RmbeAlertToken));
  r.qp_number = static_cast<std::uint32_t>(b.get(RF::QpNumber));
  const wire::Bytes gid = b.octets(RF::Gid);
  std::copy(gid.begin(), gid.end(), r.gid.begin());
  r.mac = b.get(RF::Mac);
  r.rmb_rkey = static_cast<std::uint32_t>(b.get(RF::RmbRkey));
  r.rmb_virtual_address = b.get(RF::RmbVirtualAddress);
  r.rmbe_index = static_cast<std::uint8_t>(b.get(RF::RmbeIndex));
  // App. A.2.3: 4-bit compressed size, 2^(x+4) KiB.
  r.rmbe_size = clc::uncompress_buffer_size(static_cast<std::uint8_t>(b.get(RF::RmbeSize)));
  return r;
}

bool RoceObserver::seen_before(Side side, std::size_t link, std::uint32_t psn) {
  auto [it, inserted] = next_psn_.try_emplace({static_cast<int>(side), link}, (psn + 1) & 0xFFFFFF);
  if (inserted) return false;
  if (psn_before(psn, it->second)) return true;
  if (psn != it->second) gap(static_cast<int>(side));
  it->second = (psn + 1) & 0xFFFFFF;
  return false;
}

void RoceObserver::gap(int s) {
  // Requests the capture did not see: what follows their sender's messages
  // (sequence numbers, cursors, Writes against cursors) starts afresh.
  ++stats_.psn_gaps;
  for (CdcConnection& c : connections_) {
    c.sequence[s].reset();
    c.written_to[s].reset();
    c.producer[s].reset();
    c.resync[s] = true;
  }
}

void RoceObserver::on_ack(Side side, const smcr::RocePacket& p,
                          const std::optional<std::array<std::uint8_t, 16>>& receiver) {
  // IBTA vol. 1 §9.7.5.1: an ACK's PSN is the last request PSN it
  // acknowledges. One acknowledging a request this capture never held
  // shows a gap before the requester's next packet does. Only positive ACKs
  // (syndrome 000xxxxx), on a link whose two QPs are known.
  if (!p.aeth || (p.aeth->get(smcr::AethSpec::Field::Syndrome) >> 5) != 0) return;
  const int s = static_cast<int>(side), requester = 1 - s;
  const std::size_t link = find_link(requester, p.dest_qp(), receiver);
  if (link == links_.size() || !links_[link].qp[s]) return;
  auto it = next_psn_.find({requester, link});
  if (it == next_psn_.end() || psn_before(p.psn(), it->second)) return;
  gap(requester);
  it->second = (p.psn() + 1) & 0xFFFFFF;
}

void RoceObserver::add_connection(const ClcRmbe& initiator, const ClcRmbe& responder) {
  if (!packets_seen_) clc_first_ = true;
  // The link the CLC exchange names (its two QPs): known, or learnt now.
  std::size_t link = links_.size();
  for (std::size_t i = links_.size(); i-- > 0 && link == links_.size();) {
    const Link& l = links_[i];
    if ((l.qp[0] == initiator.qp_number || !l.qp[0]) && (l.qp[1] == responder.qp_number || !l.qp[1]) &&
        (l.qp[0] || l.qp[1]))
      link = i;
  }
  if (link == links_.size()) links_.emplace_back();
  links_[link].qp[0] = initiator.qp_number;
  links_[link].qp[1] = responder.qp_number;
  links_[link].gid[0] = initiator.gid;
  links_[link].gid[1] = responder.gid;
  links_[link].announced[0] = check::LinkEnd{initiator.mac, initiator.gid, initiator.qp_number};
  links_[link].announced[1] = check::LinkEnd{responder.mac, responder.gid, responder.qp_number};
  CdcConnection c;
  c.rmbe[0] = initiator;
  c.rmbe[1] = responder;
  // App. A.2.3/A.2.4: each side's RMB RToken on that link.
  for (int side = 0; side < 2; ++side)
    c.rmb[side] = announce_rkey(side, link, c.rmbe[side].rmb_rkey, c.rmbe[side].rmb_virtual_address, std::nullopt, 0,
                                "CLC");
  // The same tokens again: a new connection that reuses them (the last CLC
  // exchange counts), or the analyzer telling a new link what it knows.
  for (CdcConnection& k : connections_)
    if (k.rmbe[0].alert_token == initiator.alert_token && k.rmbe[1].alert_token == responder.alert_token) {
      k = c;
      return;
    }
  judge_rmbe_reuse(c);
  connections_.push_back(c);
}

// rfc7609-4.4.2-rmbe-reuse-after-close: each side's RMBE of a new
// connection against the ones it named for the group's other connections.
void RoceObserver::judge_rmbe_reuse(const CdcConnection& c) {
  for (int side = 0; side < 2; ++side) {
    std::vector<check::RmbeHolder> held;
    for (const CdcConnection& k : connections_) held.push_back({rmbe_name(k.rmbe[side]), k.closed[0] || k.closed[1]});
    if (auto v = check::rmbe_reuse_after_close(rmbe_name(c.rmbe[side]), held))
      violate(*v, side == 0 ? Side::kInitiator : Side::kResponder, c.rmbe[side].frame,
              "RMBE " + std::to_string(c.rmbe[side].rmbe_index) + " of RMB rkey " + hex(c.rmbe[side].rmb_rkey) +
                  " named for a new connection (alert token " + hex(c.rmbe[side].alert_token) +
                  ") while an open connection of the link group still has it");
  }
}

check::RmbeName RoceObserver::rmbe_name(const ClcRmbe& r) { return {r.rmb_rkey, r.rmb_virtual_address, r.rmbe_index}; }

void RoceObserver::violate(const check::Violation& v, Side side, FrameNo frame, std::string text) {
  Violation out;
  out.rule = v.rule;
  out.side = side;
  out.frame = frame;
  out.text = std::move(text);
  sink_.on_violation(out);
}

smcr::Cursor RoceObserver::advance(const CdcConnection& c, int writer, smcr::Cursor at, std::uint64_t octets) const {
  // A.4: the producer cursor wraps to the first data octet of the RMBE and
  // the wrap count grows.
  const std::uint64_t size = c.rmbe[1 - writer].rmbe_size;
  std::uint64_t count = at.count + octets;
  if (count >= size && size > 0) {
    count = count - size + data_start_.value_or(0);
    ++at.wrap;
  }
  at.count = static_cast<std::uint32_t>(count);
  return at;
}

std::optional<bool> RoceObserver::done_writing(std::uint32_t initiator_token, std::uint32_t responder_token, Side side) const {
  const CdcConnection* c = nullptr;
  for (const CdcConnection& k : connections_)  // the last: a reused pair of tokens is the newest connection
    if (k.rmbe[0].alert_token == initiator_token && k.rmbe[1].alert_token == responder_token) c = &k;
  if (!c || !(c->cdc_seen[0] || c->cdc_seen[1]) || stats_.psn_gaps != 0) return std::nullopt;
  return c->done[static_cast<int>(side)];
}

void RoceObserver::check_cdc(Side side, FrameNo frame, const smcr::CdcMessage& m) {
  using F = smcr::CdcSpec::Field;
  // The token is the receiver's: the one the other side assigned.
  const int s = static_cast<int>(side);
  CdcConnection* c = nullptr;
  for (CdcConnection& k : connections_)
    if (k.rmbe[1 - s].alert_token == m.alert_token()) c = &k;
  if (!c) return;  // a connection whose CLC exchange the capture does not hold
  // Words for a violation, made only when one is reported.
  const auto token = [&m] { return " (alert token " + hex(m.alert_token()) + ")"; };
  const smcr::Cursor prod = m.producer(), cons = m.consumer();

  if (auto v = check::nothing_after_closed(c->closed[s]))
    violate(*v, side, frame, "CDC message after this side's C or A flag" + token());
  if (auto v = check::cdc_sequence_number(m, c->sequence[s]); v && !c->resync[s])
    violate(*v, side, frame,
            "CDC sequence number " + std::to_string(v->seen) + ", expected " + std::to_string(v->expected) + token());
  if (!m.flag(F::F)) {
    c->sequence[s] = m.sequence_number();
    c->resync[s] = false;
  }
  if (auto v = check::urgent_present_pending(m))
    violate(*v, side, frame, "CDC urgent data present (U) without urgent data pending (P)" + token());
  // A failover validation message's cursors and flags say nothing (A.4).
  if (m.flag(F::F)) return;
  if (auto v = check::cursor_within_rmbe(m, c->rmbe[1 - s].rmbe_size, c->rmbe[s].rmbe_size))
    violate(*v, side, frame,
            std::string(v->field) + " " + std::to_string(v->seen) + " is not inside the " +
                std::to_string(v->expected) + "-octet RMBE " + (v->field == "Producer Cursor" ? "the peer" : "this side") +
                " announced in CLC" + token());
  if (c->producer[1 - s])
    if (auto v = check::consumer_not_ahead(cons, *c->producer[1 - s]))
      violate(*v, side, frame,
              "CDC consumer cursor " + cursor_text(cons) + " is ahead of the producer cursor " +
                  cursor_text(*c->producer[1 - s]) + " the peer last announced" + token());
  if (c->final_producer[s])
    if (auto v = check::no_writes_after_done(c->done[s], false, *c->final_producer[s], prod))
      violate(*v, side, frame,
              "producer cursor " + cursor_text(prod) + " moved from " + cursor_text(*c->final_producer[s]) +
                  " after this side said it is done writing" + token());
  if (c->written_to[s])
    if (auto v = check::producer_tracks_writes(*c->written_to[s], prod, false))
      violate(*v, side, frame,
              "CDC producer cursor " + cursor_text(prod) + ", but this side's RDMA Writes end at " +
                  cursor_text(*c->written_to[s]) + token());
  c->producer[s] = prod;
  c->written_to[s] = prod;
  c->cdc_seen[s] = true;
  // From D on, each producer cursor move is reported once.
  if (m.flag(F::D) || m.flag(F::C) || m.flag(F::A)) c->done[s] = true;
  if (c->done[s]) c->final_producer[s] = prod;
  if (m.flag(F::C) || m.flag(F::A)) c->closed[s] = true;
}

void RoceObserver::check_write(Side side, FrameNo frame, std::size_t link, const smcr::RocePacket& p) {
  using RF = smcr::RethSpec::Field;
  const int s = static_cast<int>(side), r = 1 - s;
  const std::uint64_t va = p.reth->get(RF::VirtualAddress), length = p.reth->get(RF::DmaLength);
  const auto rkey = static_cast<std::uint32_t>(p.reth->get(RF::RKey));
  const auto where = [&] {
    return " (RDMA Write of " + std::to_string(length) + " octets at " + hex(va) + ", rkey " + hex(rkey) + ")";
  };
  check_data_link(side, frame, link, true);
  // §3.5.5.2: the rkey names an RMB of the receiver on this link.
  Rkey* k = nullptr;
  for (std::size_t i = rkeys_.size(); i-- > 0 && !k;)
    if (rkeys_[i].owner == r && rkeys_[i].link == link && rkeys_[i].rkey == rkey) k = &rkeys_[i];
  if (!k || k->deleted) {
    // Never announced is judged only when the link group's CLC came first
    // (else an exchange before the capture may have announced it).
    const bool judge = links_[link].judged && (k || (clc_first_ && !overflow_));
    const std::pair<int, std::uint32_t> key{r, rkey};
    bool reported = k ? k->reported : false;
    if (!k)
      for (const auto& u : unknown_rkeys_reported_) reported |= u == key;
    if (judge && !reported)
      if (auto v = check::write_through_announced_rkey(k != nullptr, k != nullptr, rkey)) {
        violate(*v, side, frame,
                std::string(k ? "the peer deleted this rkey (DELETE RKEY)" : "the peer never announced this rkey") +
                    " on link " + std::to_string(links_[link].number) + where() +
                    "; reported once per rkey");
        if (k) k->reported = true;
        else unknown_rkeys_reported_.push_back(key);
      }
    // Data the observer cannot place: where this side's data ends in its
    // connections' RMBEs is no longer known.
    for (CdcConnection& c : connections_) c.written_to[s].reset();
    return;
  }
  notes_.rkey_announced = true;
  notes_.rkey_announced_in = k->announced_in;
  notes_.rkey_announced_by = k->announced_by;
  // The receiver's RMBEs in that RMB: the latest connection whose element
  // holds the Write and whose writer is not done, else the latest that
  // holds it, else the latest in that RMB. Offsets count from the RMB's
  // start, which is the rkey's address on this link.
  const std::uint64_t offset = va - k->va;
  CdcConnection* last = nullptr;
  CdcConnection* holds = nullptr;
  for (CdcConnection& c : connections_) {
    if (c.rmb[r] != k->rmb) continue;
    last = &c;
    const std::uint64_t start = c.rmbe[r].rmbe_start() - c.rmbe[r].rmb_virtual_address;
    if (va >= k->va && !check::write_inside_rmbe(offset, length, start, c.rmbe[r].rmbe_size) &&
        (!holds || !c.done[s] || holds->done[s]))
      holds = &c;
  }
  if (!last) return;  // an RMB no CLC exchange of the capture uses
  if (!holds) {
    const ClcRmbe& e = last->rmbe[r];
    const std::uint64_t start = k->va + (e.rmbe_start() - e.rmb_virtual_address);
    if (auto v = check::write_inside_rmbe(va, length, start, e.rmbe_size))
      violate(*v, side, frame,
              "the Write is not inside the " + std::to_string(e.rmbe_size) + "-octet RMBE at " + hex(start) +
                  " the peer announced in CLC" + where());
    return;
  }
  CdcConnection& c = *holds;
  if (auto v = check::no_writes_after_done(c.done[s], true, {}, {}))
    violate(*v, side, frame, "RDMA Write after this side said it is done writing (alert token " +
                                 hex(c.rmbe[r].alert_token) + ")" + where());
  // Before this side's first CDC message on the connection its data starts
  // at the RMBE's first data octet.
  if (!c.written_to[s] && !c.cdc_seen[s] && data_start_) c.written_to[s] = smcr::Cursor{0, *data_start_};
  if (!c.written_to[s]) return;
  const std::uint64_t element = c.rmbe[r].rmbe_start() - c.rmbe[r].rmb_virtual_address;
  const smcr::Cursor start{c.written_to[s]->wrap, static_cast<std::uint32_t>(offset - element)};
  if (auto v = check::producer_tracks_writes(*c.written_to[s], start, true))
    violate(*v, side, frame,
            "the Write starts at RMBE offset " + std::to_string(start.count) + ", but this side's data ends at " +
                cursor_text(*c.written_to[s]) + where());
  c.written_to[s] = advance(c, s, start, length);
}

void RoceObserver::on_packet(Side side, FrameNo frame, wire::Bytes udp_payload,
                             const std::optional<std::array<std::uint8_t, 16>>& receiver) {
  ++stats_.packets;
  notes_ = {};
  added_links_.clear();
  Message m;
  m.kind = MessageKind::kRoce;
  m.side = side;
  m.first_frame = m.frame = frame;
  m.octets = udp_payload.size();
  RoceInfo info;
  m.roce = &info;

  auto p = smcr::decode_roce(udp_payload);
  if (!p) {
    ++stats_.undecoded;
    info.error = &p.error();
    sink_.on_message(m);
    return;
  }
  info.packet = &*p;
  const std::uint8_t op = p->opcode();
  ++stats_.opcodes[op];
  // Acknowledges answer a PSN rather than carry their own: only requests
  // (every RC opcode but Acknowledge and Read Responses) are retransmitted.
  const bool request = p->info && !p->info->aeth;
  if (p->aeth) on_ack(side, *p, receiver);
  const std::size_t link = link_of(static_cast<int>(side), p->dest_qp(), receiver);
  if (request) info.retransmission = seen_before(side, link, p->psn());
  if (info.retransmission) ++stats_.retransmissions;
  packets_seen_ = true;
  info.link = link;
  info.link_number = links_[link].number;
  info.link_state = links_[link].state;
  // Marked after the packet: its own CONFIRM LINK may start the link.
  struct Traffic {
    std::vector<Link>& links;
    std::size_t at;
    ~Traffic() { links[at].traffic = true; }
  } traffic{links_, link};

  std::optional<wire::Result<smcr::SmcrMessage>> send;
  if (op == smcr::opcode::kSendOnly) {
    send.emplace(smcr::decode_send(p->payload));
    if (send->ok()) {
      info.smcr = &send->value();
      if (!info.retransmission) {
        if (const auto* l = std::get_if<smcr::LlcMessage>(info.smcr)) ++stats_.llc_messages[smcr::message_name(*l)];
        else ++stats_.cdc_messages;
      }
      // The message first, as for TCP: its violations follow it.
      sink_.on_message(m);
      if (!info.retransmission) {
        if (const auto* l = std::get_if<smcr::LlcMessage>(info.smcr)) check_llc(side, frame, link, *l);
        else {
          check_data_link(side, frame, link, false);
          check_cdc(side, frame, std::get<smcr::CdcMessage>(*info.smcr));
        }
      }
      return;
    } else {
      ++stats_.undecoded;
      info.error = &send->error();
    }
  }
  // A Write message's RETH is in its First (or Only) packet.
  const bool write = op == smcr::opcode::kRdmaWriteFirst || op == smcr::opcode::kRdmaWriteOnly ||
                     op == 0x0B /* Write Only with Immediate */;
  if (!info.retransmission && write) ++stats_.rdma_writes;
  sink_.on_message(m);
  if (!info.retransmission && write && p->reth) check_write(side, frame, link, *p);
}

}  // namespace rdmaconf::analysis
