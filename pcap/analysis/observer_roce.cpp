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
  r.rmb_rkey = static_cast<std::uint32_t>(b.get(RF::RmbRkey));
  r.rmb_virtual_address = b.get(RF::RmbVirtualAddress);
  r.rmbe_index = static_cast<std::uint8_t>(b.get(RF::RmbeIndex));
  // App. A.2.3: 4-bit compressed size, 2^(x+4) KiB.
  r.rmbe_size = clc::uncompress_buffer_size(static_cast<std::uint8_t>(b.get(RF::RmbeSize)));
  return r;
}

bool RoceObserver::seen_before(Side side, std::uint32_t qp, std::uint32_t psn) {
  auto [it, inserted] = next_psn_.try_emplace({static_cast<int>(side), qp}, (psn + 1) & 0xFFFFFF);
  if (inserted) return false;
  if (psn_before(psn, it->second)) return true;
  if (psn != it->second) {
    // Requests the capture did not see: what follows their sender's messages
    // (sequence numbers, Writes against cursors) starts afresh.
    ++stats_.psn_gaps;
    const int s = static_cast<int>(side);
    for (CdcConnection& c : connections_) {
      c.sequence[s].reset();
      c.written_to[s].reset();
    }
  }
  it->second = (psn + 1) & 0xFFFFFF;
  return false;
}

void RoceObserver::add_connection(const ClcRmbe& initiator, const ClcRmbe& responder) {
  CdcConnection c;
  c.rmbe[0] = initiator;
  c.rmbe[1] = responder;
  // The same tokens again: a new connection that reuses them (the last CLC
  // exchange counts), or the analyzer telling a new link what it knows.
  for (CdcConnection& k : connections_)
    if (k.rmbe[0].alert_token == initiator.alert_token && k.rmbe[1].alert_token == responder.alert_token) {
      k = c;
      return;
    }
  connections_.push_back(c);
}

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

void RoceObserver::check_llc(Side side, FrameNo frame, const smcr::LlcMessage& m) {
  // RFC 7609 §3.5.1: a link starts with CONFIRM LINK; before one is seen the
  // requests a reply answers may lie before the capture.
  if (!llc_seen_) llc_from_start_ = m.base_type() == smcr::llc_type::kConfirmLink && !m.reply();
  llc_seen_ = true;
  if (m.base_type() == smcr::llc_type::kConfirmLink && !m.reply())
    data_start_ = m.flag(smcr::kConfirmLinkFlags[2]) == 3 ? 0u : 4u;
  // App. A.3.2: an ADD LINK reply without Z accepts a second link.
  if (m.base_type() == smcr::llc_type::kAddLink && m.reply() && m.flag(smcr::kAddLinkFlags[1]) == 0)
    second_link_ = true;
  const int s = static_cast<int>(side);
  if (!m.reply()) {
    ++open_requests_[{s, m.type()}];
    return;
  }
  std::uint32_t& open = open_requests_[{1 - s, m.type()}];
  if (llc_from_start_)
    if (auto v = check::llc_reply_answers_request(m, open))
      violate(*v, side, frame,
              std::string(m.info->name) + " reply without an open " + std::string(m.info->name) +
                  " request from the peer");
  if (open > 0) --open;
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
  if (auto v = check::cdc_sequence_number(m, c->sequence[s]); v && !second_link_)
    violate(*v, side, frame,
            "CDC sequence number " + std::to_string(v->seen) + ", expected " + std::to_string(v->expected) + token());
  if (!m.flag(F::F)) c->sequence[s] = m.sequence_number();
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
  if (c->written_to[s] && !second_link_)
    if (auto v = check::producer_tracks_writes(*c->written_to[s], prod, false))
      violate(*v, side, frame,
              "CDC producer cursor " + cursor_text(prod) + ", but this side's RDMA Writes end at " +
                  cursor_text(*c->written_to[s]) + token());
  c->producer[s] = prod;
  c->written_to[s] = prod;
  // From D on, each producer cursor move is reported once.
  if (m.flag(F::D) || m.flag(F::C) || m.flag(F::A)) c->done[s] = true;
  if (c->done[s]) c->final_producer[s] = prod;
  if (m.flag(F::C) || m.flag(F::A)) c->closed[s] = true;
}

void RoceObserver::check_write(Side side, FrameNo frame, const smcr::RocePacket& p) {
  using RF = smcr::RethSpec::Field;
  const int s = static_cast<int>(side), r = 1 - s;
  const std::uint64_t va = p.reth->get(RF::VirtualAddress), length = p.reth->get(RF::DmaLength);
  const auto rkey = static_cast<std::uint32_t>(p.reth->get(RF::RKey));
  // The receiver's RMBEs behind this rkey on the CLC link (its QP): the
  // latest connection whose element holds the Write and whose writer is not
  // done, else the latest that holds it, else the latest with that rkey.
  CdcConnection* last = nullptr;
  CdcConnection* holds = nullptr;
  for (CdcConnection& k : connections_) {
    if (k.rmbe[r].rmb_rkey != rkey || k.rmbe[r].qp_number != p.dest_qp()) continue;
    last = &k;
    if (!check::write_inside_rmbe(va, length, k.rmbe[r].rmbe_start(), k.rmbe[r].rmbe_size) &&
        (!holds || !k.done[s] || holds->done[s]))
      holds = &k;
  }
  if (!last) return;  // an rkey exchanged over LLC, or no CLC seen
  const auto where = [&] {
    return " (RDMA Write of " + std::to_string(length) + " octets at " + hex(va) + ", rkey " + hex(rkey) + ")";
  };
  if (!holds) {
    const ClcRmbe& e = last->rmbe[r];
    if (auto v = check::write_inside_rmbe(va, length, e.rmbe_start(), e.rmbe_size))
      violate(*v, side, frame,
              "the Write is not inside the " + std::to_string(e.rmbe_size) + "-octet RMBE at " + hex(e.rmbe_start()) +
                  " the peer announced in CLC" + where());
    return;
  }
  CdcConnection& c = *holds;
  if (auto v = check::no_writes_after_done(c.done[s], true, {}, {}))
    violate(*v, side, frame, "RDMA Write after this side said it is done writing (alert token " +
                                 hex(c.rmbe[r].alert_token) + ")" + where());
  // Before this side's first CDC message on the connection its data starts
  // at the RMBE's first data octet.
  if (!c.written_to[s] && !c.sequence[s] && !c.producer[s] && data_start_) c.written_to[s] = smcr::Cursor{0, *data_start_};
  if (!c.written_to[s] || second_link_) return;
  const smcr::Cursor start{c.written_to[s]->wrap, static_cast<std::uint32_t>(va - c.rmbe[r].rmbe_start())};
  if (auto v = check::producer_tracks_writes(*c.written_to[s], start, true))
    violate(*v, side, frame,
            "the Write starts at RMBE offset " + std::to_string(start.count) + ", but this side's data ends at " +
                cursor_text(*c.written_to[s]) + where());
  c.written_to[s] = advance(c, s, start, length);
}

void RoceObserver::on_packet(Side side, FrameNo frame, wire::Bytes udp_payload) {
  ++stats_.packets;
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
  if (request) info.retransmission = seen_before(side, p->dest_qp(), p->psn());
  if (info.retransmission) ++stats_.retransmissions;

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
        if (const auto* l = std::get_if<smcr::LlcMessage>(info.smcr)) check_llc(side, frame, *l);
        else check_cdc(side, frame, std::get<smcr::CdcMessage>(*info.smcr));
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
  if (!info.retransmission && write && p->reth) check_write(side, frame, *p);
}

}  // namespace rdmaconf::analysis
