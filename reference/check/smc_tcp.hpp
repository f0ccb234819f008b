// How an SMC side uses the TCP connection under CLC (RFC 7609 §3.1, App.
// A.1, §4.8.1): the SMC experimental option in the SYN and the SYN-ACK, CLC
// only after a handshake whose SYNs both carried it, and the TCP FIN only
// after the SMC-R connection was closed. A side's socket sees none of this
// (its TCP stack takes the options and sends the FIN), so only a watcher of
// the TCP segments judges these rules: the capture observer
// (pcap/analysis/observer_clc.cpp) and the capture analyzer, which ties a
// TCP connection to its link group's CDC messages.
//
// Who is judged where, and on what:
//  - option_kind: every experimental option carrying the SMC ExID, in any
//    SYN or SYN-ACK: the ExID names SMC, so the kind and length must be
//    App. A.1's (254, 6 octets).
//  - option_exid: a side that speaks CLC without a SMC ExID in its SYN, but
//    with an experimental option of another ExID, sent its option with the
//    wrong ExID. An experiment known to be another's (TCP Fast Open's
//    experimental form, ExID 0xF989, RFC 7413) is not taken for it.
//  - option_in_syn, option_in_synack: a side that speaks CLC shows it wants
//    SMC (the client) or can do it (the server); its SYN (SYN-ACK, when the
//    SYN offered SMC) lacked any such option. Where it sent one in a wrong
//    form, option_kind or option_exid is the verdict instead.
//  - both_or_tcp: the first CLC message of a connection whose SYN or
//    SYN-ACK lacked the option, whoever sent it.
//  - no_clc_without_option: a server that did not send the option still
//    speaks CLC (it took the client's octets as a Proposal).
//  - fin_after_smc_close: a side's FIN on a connection whose SMC-R side the
//    capture shows, before the side ended its writing there: a CDC message
//    with PeerDoneWriting, PeerConnectionClosed or PeerConnAbort. §4.8.1's
//    design point (SMC-R's close first, then TCP's FIN) counts a shutdown
//    for write among the close's triggers: its PeerDoneWriting, then a FIN
//    that half-closes TCP the same way, keeps it.
//
// smc_tcp_implementations() lists which function implements which rule id.
#pragma once

#include <cstdint>
#include <span>

#include "check/rule.hpp"
#include "clc/tcp_option.hpp"

namespace rdmaconf::check {

// ---- registry rows (reference/requirements/rfc7609.hpp)
inline constexpr const Rule& kOptionInSyn = rule<"rfc7609-3.1-option-in-syn">;
inline constexpr const Rule& kOptionInSynAck = rule<"rfc7609-3.1-option-in-synack">;
inline constexpr const Rule& kBothOrTcp = rule<"rfc7609-3.1-both-or-tcp">;
inline constexpr const Rule& kNoClcWithoutOption = rule<"rfc7609-3.1-no-clc-without-option">;
inline constexpr const Rule& kOptionKind = rule<"rfc7609-a.1-option-kind">;
inline constexpr const Rule& kOptionExid = rule<"rfc7609-a.1-option-exid">;
inline constexpr const Rule& kFinAfterSmcClose = rule<"rfc7609-4.8.1-fin-after-smc-close">;

// What one SYN or SYN-ACK said of SMC.
struct SynSmc {
  bool option = false;                       // it carried the SMC option (the SMC ExID in an experimental option)
  clc::SynExperimentalOptions experimental;  // its experimental options as sent
};

// TCP Fast Open's 16-bit ExID in the experimental option (RFC 7413), as
// ExperimentalOption holds a 16-bit one.
inline constexpr std::uint32_t kTcpFastOpenExid = 0xF9890000;

// App. A.1: an option with the SMC ExID is kind 254, 6 octets long.
Outcome option_kind(const clc::ExperimentalOption& o);
// App. A.1: the SYN of a side that speaks CLC carries the SMC ExID.
Outcome option_exid(const SynSmc& syn);
// §3.1: the SYN of a client that speaks CLC carries the option.
Outcome option_in_syn(const SynSmc& syn);
// §3.1: the SYN-ACK of a server that speaks CLC carries the option when the SYN did.
Outcome option_in_synack(const SynSmc& syn, const SynSmc& synack);
// §3.1: CLC flows only after a SYN and a SYN-ACK that both carried the option.
Outcome both_or_tcp(const SynSmc& syn, const SynSmc& synack);
// §3.1: a server whose SYN-ACK lacked the option speaks no CLC.
Outcome no_clc_without_option(const SynSmc& synack);
// §4.8.1: a side's FIN comes after its PeerConnectionClosed or PeerConnAbort;
// `closed`: it sent one of them before the FIN.
Outcome fin_after_smc_close(bool done_writing);

std::span<const Implementation> smc_tcp_implementations();
std::span<const Rule* const> smc_tcp_rules();

}  // namespace rdmaconf::check
