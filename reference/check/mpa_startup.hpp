// The rules of MPA connection setup (RFC 5044 §7.1, RFC 6581 §9, §10): the
// Request and Reply frames, each rule implemented once, for the negotiation
// machine (mpa/negotiation.hpp) and the capture observer alike.
//
// Two kinds of rule:
//  - of one frame (key, Res, Rev, R in a Request, PD_Length, the IRD/ORD
//    block S promises): the frame codec checks them while it decodes
//    (mpa::required_frame_size, mpa::decode_req_rep), since a frame that
//    breaks one cannot be read further; its typed error names the field, and
//    req_rep_rule() says which registry row that field's rule is. The
//    negotiation answers the error (Reply with R set, or Terminate with LLP
//    error 0x04), the observer reports the row.
//  - between the Request and the Reply (revision, the peer-to-peer model):
//    one function each below, taking the decoded frames and returning the
//    Violation or nothing. The initiator's negotiation maps it to its
//    Terminate (LLP error 0x04, or 0x07 when no RTR can start the
//    peer-to-peer model), the observer words it.
//  - the RTR that opens the peer-to-peer model: which RTR kind a segment is
//    (rtr_kind), for the responder that waits for it (rdmap::is_rtr, the
//    endpoint and the conformance IUT) and the observer that checks the
//    initiator's first FPDU (rtr_first_fpdu).
//
// mpa_startup_implementations() lists which function implements which rule id.
#pragma once

#include <cstdint>
#include <span>

#include "check/rule.hpp"
#include "ddp/headers.hpp"
#include "mpa/negotiation.hpp"
#include "wire/result.hpp"

namespace rdmaconf::check {

// ---- registry rows (conformance/requirements/rfc5044.cpp, rfc6581.cpp)
// Of one frame (checked by the frame codec):
inline constexpr const Rule& kReqRepKey = rule<"rfc5044-7.1.1-key-reply">;
inline constexpr const Rule& kReqRepReserved = rule<"rfc5044-7.1.1-res-zero">;
inline constexpr const Rule& kReqRepRevision = rule<"rfc5044-7.1.1-rev-1">;
inline constexpr const Rule& kRequestReject = rule<"rfc5044-7.1.1-r-request-zero">;
inline constexpr const Rule& kPdLengthMax = rule<"rfc5044-7.1.1-pd-length-max">;
inline constexpr const Rule& kEnhancedDataShort = rule<"rfc6581-6-enhanced-data-present">;
// Between Request and Reply:
inline constexpr const Rule& kReplyRevision = rule<"rfc6581-10-reply-rev-not-above">;
inline constexpr const Rule& kP2pOffer = rule<"rfc6581-9.2-p2p-flag-a">;
inline constexpr const Rule& kP2pEcho = rule<"rfc6581-9.2-p2p-echo-a">;
inline constexpr const Rule& kReplyRtrAtLeastOne = rule<"rfc6581-9.2-reply-rtr-at-least-one">;
inline constexpr const Rule& kReplyEnhanced = rule<"rfc6581-10-reply-enhanced">;
inline constexpr const Rule& kResponderOrd = rule<"rfc6581-9.1-responder-ord">;
inline constexpr const Rule& kNoNegotiation = rule<"rfc6581-9.1-ird-ord-no-negotiation">;
// The first FPDU:
inline constexpr const Rule& kRtrFirst = rule<"rfc6581-9.2-rtr-first-fpdu">;

// The row of the one-frame rule a decode error of mpa::required_frame_size or
// mpa::decode_req_rep names (by its field: Key, Res, Rev, R, PD_Length, IRD).
const Rule& req_rep_rule(const wire::DecodeError& e);

// RFC 6581 §10: an accepting Reply never names a revision above the
// Request's. A rejecting one may name the responder's own, higher one: RFC
// 5044 App. C.2.1 has a responder that cannot run a Rev 0 Request answer
// with Rev 1 and close.
Outcome reply_revision(std::uint8_t request_revision, const mpa::ReqRepFrame& reply);
// RFC 6581 §10: a responder that supports enhanced establishment answers an
// enhanced Request (S set) with an enhanced Reply, and an unenhanced one with
// an unenhanced Reply (one that does not close the connection instead). Any
// Reply, accepting or rejecting.
Outcome reply_enhanced(bool request_enhanced, const mpa::ReqRepFrame& reply);
// RFC 6581 §9.1: an accepting Reply sets ORD at most to the Request's IRD.
// 0x3FFF on either side is outside automatic negotiation (no_negotiation);
// a rejecting Reply may name a larger ORD: the one the ULP requires.
Outcome responder_ord(const mpa::EnhancedData& request, const mpa::EnhancedData& reply);
// RFC 6581 §9.1: 0x3FFF declines automatic negotiation; an accepting Reply
// answers a Request ORD of 0x3FFF with IRD 0x3FFF, and a Request IRD of
// 0x3FFF with ORD 0x3FFF (a rejecting Reply's ORD is the required one).
Outcome no_negotiation(const mpa::EnhancedData& request, const mpa::EnhancedData& reply);
// RFC 6581 §9.2: a Request that asks for the peer-to-peer model (A) offers
// at least one RTR kind (B, C or D).
Outcome p2p_offer(const mpa::EnhancedData& request);
// RFC 6581 §9.2: an accepting Reply's A is the Request's.
Outcome p2p_echo(const mpa::EnhancedData& request, const mpa::EnhancedData& reply);
// RFC 6581 §9.2: an accepting peer-to-peer Reply (A in both) sets at least
// one RTR kind; it may set several, and kinds the Request did not offer.
Outcome reply_rtr_at_least_one(const mpa::EnhancedData& request, const mpa::EnhancedData& reply);

// RFC 6581 §9.2: the RTR kind a DDP segment is, or kNone: a zero-length
// Send (untagged, L set, no payload), a zero-length RDMA Write (tagged, L
// set, no payload) or a zero-length RDMA Read (a one-segment Read Request
// whose RDMA Read Message Size is 0). `payload`: the DDP payload's octets
// (the RDMAP header included); `read_size`: the Read Request's RDMA Read
// Message Size (anything for other opcodes).
mpa::RtrKind rtr_kind(const ddp::Control& c, std::uint8_t opcode, std::size_t payload, std::uint64_t read_size);
// RFC 6581 §9.2: in the peer-to-peer model the initiator's first FPDU is the
// RTR of a kind the Reply set. `first`: rtr_kind of that FPDU.
Outcome rtr_first_fpdu(const mpa::RtrKinds& reply_sets, mpa::RtrKind first);

// ---- which function implements which rule (the table in mpa_startup.cpp)
std::span<const Implementation> mpa_startup_implementations();
std::span<const Rule* const> mpa_startup_rules();

}  // namespace rdmaconf::check
