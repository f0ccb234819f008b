#include "check/mpa_startup.hpp"

#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"

namespace rdmaconf::check {
namespace {

// The table: which function implements which rule (grep-able, one row each).
constexpr Implementation kImplementations[] = {
    // One frame: the codec's checks, named by req_rep_rule.
    {&kReqRepKey, "mpa::required_frame_size + mpa::decode_req_rep (Key)"},
    {&kReqRepReserved, "mpa::decode_req_rep (Res, with check_reserved)"},
    {&kReqRepRevision, "mpa::decode_req_rep (Rev)"},
    {&kRequestReject, "mpa::decode_req_rep (R)"},
    {&kPdLengthMax, "mpa::required_frame_size + mpa::decode_req_rep (PD_Length)"},
    {&kEnhancedDataShort, "mpa::decode_req_rep (IRD)"},
    // Request against Reply.
    {&kReplyRevision, "reply_revision"},
    {&kReplyEnhanced, "reply_enhanced"},
    {&kResponderOrd, "responder_ord"},
    {&kNoNegotiation, "no_negotiation"},
    {&kP2pOffer, "p2p_offer"},
    {&kP2pEcho, "p2p_echo"},
    {&kReplyRtrAtLeastOne, "reply_rtr_at_least_one"},
    {&kRtrFirst, "rtr_first_fpdu (the kind by rtr_kind, which rdmap::is_rtr uses too)"},
};
constexpr const Rule* kRules[] = {
    &kReqRepKey, &kReqRepReserved, &kReqRepRevision, &kRequestReject, &kPdLengthMax,
    &kEnhancedDataShort, &kReplyRevision, &kReplyEnhanced, &kResponderOrd, &kNoNegotiation, &kP2pOffer, &kP2pEcho, &kReplyRtrAtLeastOne, &kRtrFirst,
};

using EF = mpa::EnhancedDataSpec::Field;

// A Violation at a field of the IRD/ORD block, which follows the frame header.
Violation broke(const Rule& r, EF f, std::uint64_t seen, std::uint64_t expected) {
  const wire::FieldDecl& d = mpa::EnhancedDataHeader::field_decl(f);
  return Violation{&r, d.name, mpa::kReqRepHeaderSize + d.octet_offset(), seen, expected};
}

bool sets_rtr(const mpa::EnhancedData& e) { return e.rtr_send || e.rtr_write || e.rtr_read; }

}  // namespace

std::span<const Implementation> mpa_startup_implementations() { return kImplementations; }
std::span<const Rule* const> mpa_startup_rules() { return kRules; }

const Rule& req_rep_rule(const wire::DecodeError& e) {
  using F = mpa::ReqRepSpec::Field;
  auto is = [&](F f) { return e.field == mpa::ReqRepHeader::field_decl(f).name; };
  // In a Rev 1 frame S is one of the Res bits (RFC 6581 §9).
  if (is(F::Res) || is(F::S)) return kReqRepReserved;
  if (is(F::Rev)) return kReqRepRevision;
  if (is(F::R)) return kRequestReject;
  if (is(F::PD_Length)) return kPdLengthMax;
  if (e.field == mpa::EnhancedDataHeader::field_decl(EF::IRD).name) return kEnhancedDataShort;
  return kReqRepKey;
}

Outcome reply_revision(std::uint8_t request_revision, const mpa::ReqRepFrame& reply) {
  if (reply.revision <= request_revision || reply.reject) return std::nullopt;
  const wire::FieldDecl& d = mpa::ReqRepHeader::field_decl(mpa::ReqRepSpec::Field::Rev);
  return Violation{&kReplyRevision, d.name, d.octet_offset(), reply.revision, request_revision};
}

Outcome reply_enhanced(bool request_enhanced, const mpa::ReqRepFrame& reply) {
  const bool asked = request_enhanced;
  if (reply.enhanced_data.has_value() == asked) return std::nullopt;
  const wire::FieldDecl& d = mpa::ReqRepHeader::field_decl(mpa::ReqRepSpec::Field::S);
  return Violation{&kReplyEnhanced, d.name, d.octet_offset(), !asked, asked};
}

Outcome responder_ord(const mpa::EnhancedData& request, const mpa::EnhancedData& reply) {
  if (request.ird == mpa::kMaxIrdOrd || reply.ord == mpa::kMaxIrdOrd || reply.ord <= request.ird)
    return std::nullopt;
  return broke(kResponderOrd, EF::ORD, reply.ord, request.ird);
}

Outcome no_negotiation(const mpa::EnhancedData& request, const mpa::EnhancedData& reply) {
  if (request.ord == mpa::kMaxIrdOrd && reply.ird != mpa::kMaxIrdOrd)
    return broke(kNoNegotiation, EF::IRD, reply.ird, mpa::kMaxIrdOrd);
  if (request.ird == mpa::kMaxIrdOrd && reply.ord != mpa::kMaxIrdOrd)
    return broke(kNoNegotiation, EF::ORD, reply.ord, mpa::kMaxIrdOrd);
  return std::nullopt;
}

Outcome p2p_offer(const mpa::EnhancedData& request) {
  if (!request.peer_to_peer || sets_rtr(request)) return std::nullopt;
  return broke(kP2pOffer, EF::B, 0, 1);
}

Outcome p2p_echo(const mpa::EnhancedData& request, const mpa::EnhancedData& reply) {
  if (reply.peer_to_peer == request.peer_to_peer) return std::nullopt;
  return broke(kP2pEcho, EF::A, reply.peer_to_peer, request.peer_to_peer);
}

Outcome reply_rtr_at_least_one(const mpa::EnhancedData& request, const mpa::EnhancedData& reply) {
  if (!request.peer_to_peer || !reply.peer_to_peer || sets_rtr(reply)) return std::nullopt;
  return broke(kReplyRtrAtLeastOne, EF::B, 0, 1);
}

mpa::RtrKind rtr_kind(const ddp::Control& c, std::uint8_t opcode, std::size_t payload, std::uint64_t read_size) {
  if (!c.last) return mpa::RtrKind::kNone;
  const auto op = static_cast<rdmap::Opcode>(opcode);
  if (!c.tagged && op == rdmap::Opcode::kSend && payload == 0) return mpa::RtrKind::kZeroLengthSend;
  if (c.tagged && op == rdmap::Opcode::kRdmaWrite && payload == 0) return mpa::RtrKind::kZeroLengthWrite;
  if (!c.tagged && op == rdmap::Opcode::kRdmaReadRequest && payload == rdmap::kReadRequestHeaderSize && read_size == 0)
    return mpa::RtrKind::kZeroLengthRead;
  return mpa::RtrKind::kNone;
}

Outcome rtr_first_fpdu(const mpa::RtrKinds& reply_sets, mpa::RtrKind first) {
  if (reply_sets.contains(first)) return std::nullopt;
  // The opcode says which message it was: the RDMAP control field is the DDP
  // header's second octet (RFC 5040 §4.2).
  return Violation{&kRtrFirst, "Opcode", 1, static_cast<std::uint64_t>(first), 0};
}

}  // namespace rdmaconf::check
