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
