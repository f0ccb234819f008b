#include "analysis/observer_roce.hpp"

namespace rdmaconf::analysis {

namespace {

// PSNs are 24-bit serial numbers: a is before b when b - a, mod 2^24, is in
// the lower half of the space (IBTA vol. 1 §9.7.1).
bool psn_before(std::uint32_t a, std::uint32_t b) {
  const std::uint32_t d = (b - a) & 0xFFFFFF;
  return d != 0 && d < 0x800000;
}

}  // namespace

bool RoceObserver::seen_before(Side side, std::uint32_t qp, std::uint32_t psn) {
  auto [it, inserted] = next_psn_.try_emplace({static_cast<int>(side), qp}, (psn + 1) & 0xFFFFFF);
  if (inserted) return false;
  if (psn_before(psn, it->second)) return true;
  it->second = (psn + 1) & 0xFFFFFF;
  return false;
}

void RoceObserver::add_connection(std::uint32_t initiator_token, std::uint32_t responder_token) {
  for (const CdcConnection& c : connections_)
    if (c.token[0] == initiator_token && c.token[1] == responder_token) return;
  CdcConnection c;
  c.token[0] = initiator_token;
  c.token[1] = responder_token;
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

void RoceObserver::check_llc(Side side, FrameNo frame, const smcr::LlcMessage& m) {
  // RFC 7609 §3.5.1: a link starts with CONFIRM LINK; before one is seen the
  // requests a reply answers may lie before the capture.
  if (!llc_seen_) llc_from_start_ = m.base_type() == smcr::llc_type::kConfirmLink && !m.reply();
  llc_seen_ = true;
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
  // The token is the receiver's: the one the other side assigned.
  const int s = static_cast<int>(side);
  CdcConnection* c = nullptr;
  for (CdcConnection& k : connections_)
    if (k.token[1 - s] == m.alert_token()) c = &k;
  if (!c) return;  // a connection whose CLC exchange the capture does not hold
  if (c->producer[1 - s]) {
    const smcr::Cursor cons = m.consumer(), prod = *c->producer[1 - s];
    if (auto v = check::consumer_not_ahead(cons, prod))
      violate(*v, side, frame,
              "CDC consumer cursor " + std::to_string(cons.wrap) + ":" + std::to_string(cons.count) +
                  " is ahead of the producer cursor " + std::to_string(prod.wrap) + ":" +
                  std::to_string(prod.count) + " the peer last announced (alert token " +
                  std::to_string(m.alert_token()) + ")");
  }
  c->producer[s] = m.producer();
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
  if (!info.retransmission && (op == smcr::opcode::kRdmaWriteFirst || op == smcr::opcode::kRdmaWriteOnly ||
                               op == 0x0B /* Write Only with Immediate */))
    ++stats_.rdma_writes;
  sink_.on_message(m);
}

}  // namespace rdmaconf::analysis
