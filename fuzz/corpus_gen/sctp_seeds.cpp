// Seeds of the DDP/SCTP adaptation layer's targets (RFC 5043): sctp_message
// gets each message kind as the reference encodes it, sctp_session the legal
// session sequences of §6.2-§6.4 and a few that break them.
#include "corpus_gen/seeds.hpp"
#include "sctp/messages.hpp"

namespace rdmaconf::corpus_gen {
namespace {

Octets control(std::uint16_t ssn, sctp::FunctionCode f, const Octets& pd = {}) {
  return sctp::encode_session_control({.ddp_ssn = ssn, .function = f, .private_data = pd,
                                       .raw_function_code = std::nullopt});
}
Octets segment_chunk(std::uint16_t ssn, const Octets& segment) {
  Octets out;
  sctp::encode_segment_chunk({.ddp_ssn = ssn, .ddp_segment = wire::Chunks(segment)}, out);
  return out;
}
// sctp_session's step "a chunk from the peer": op, 16-bit length, octets.
Octets peer(std::uint8_t op, const Octets& chunk) {
  return cat({{op, static_cast<std::uint8_t>(chunk.size() >> 8), static_cast<std::uint8_t>(chunk.size())}, chunk});
}

}  // namespace

void sctp_all() {
  // A DDP untagged Send header (RFC 5041 §4.3) and 8 octets of payload.
  const Octets send = cat({{0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0}, pattern(8, 1)});
  put("sctp_message", "segment_send", cat({{0}, segment_chunk(3, send)}));
  put("sctp_message", "initiate_pd", cat({{1}, control(0, sctp::FunctionCode::kInitiate, pattern(20, 7))}));
  put("sctp_message", "accept_empty", cat({{1}, control(0, sctp::FunctionCode::kAccept)}));
  put("sctp_message", "reject_pd_512", cat({{1}, control(0, sctp::FunctionCode::kReject, pattern(512, 3))}));
  put("sctp_message", "terminate", cat({{1}, control(9, sctp::FunctionCode::kTerminate)}));
  put("sctp_message", "segment_limited", cat({{4}, segment_chunk(1, pattern(600, 5))}));
  put("sctp_message", "adaptation_indication", cat({{2, 0, 0, 0, 17}, sctp::encode_adaptation_layer_indication()}));

  // Passive side, DDP announced: Initiate, accept, a segment, acknowledged,
  // the peer's Terminate.
  put("sctp_session", "passive_accepted",
      cat({{1}, peer(1, control(0, sctp::FunctionCode::kInitiate, pattern(4, 1))), {4}, peer(0, segment_chunk(1, send)),
           {7, 8}, peer(1, control(2, sctp::FunctionCode::kTerminate))}));
  // Chunks in reverse DDP-SSN order, then a reject.
  put("sctp_session", "passive_reordered_reject",
      cat({{1}, peer(0, segment_chunk(1, send)), peer(1, control(0, sctp::FunctionCode::kInitiate)), {5}}));
  // Two Initiates on two streams with a pending limit of one: §6.4.
  put("sctp_session", "passive_over_limit",
      cat({{1}, peer(1, control(0, sctp::FunctionCode::kInitiate)), peer(0x11, control(0, sctp::FunctionCode::kInitiate))}));
  // Active side: initiate, Accept, send, terminate before and after SCTP's acknowledgement.
  put("sctp_session", "active_accepted",
      cat({{0, 9}, peer(1, control(0, sctp::FunctionCode::kAccept)), {7, 7, 6, 8}}));
  put("sctp_session", "active_rejected", cat({{0, 9}, peer(1, control(0, sctp::FunctionCode::kReject, pattern(3, 2)))}));
  // Broken sequences: a segment first, a repeated DDP-SSN, an ordered chunk, no indication.
  put("sctp_session", "passive_segment_first", cat({{1}, peer(0, segment_chunk(0, send))}));
  put("sctp_session", "passive_ssn_repeated",
      cat({{1}, peer(1, control(0, sctp::FunctionCode::kInitiate)), {4}, peer(0, segment_chunk(0, send))}));
  put("sctp_session", "passive_ordered", cat({{1}, peer(3, control(0, sctp::FunctionCode::kInitiate))}));
  put("sctp_session", "no_indication", cat({{3}, peer(1, control(0, sctp::FunctionCode::kInitiate)), {9}}));
}

}  // namespace rdmaconf::corpus_gen
