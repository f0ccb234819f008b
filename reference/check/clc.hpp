// The consistency rules of an SMC CLC exchange (RFC 7609 App. A.2, C.4; SMC
// v2 as Linux net/smc implements it), each implemented once, for both tools
// that judge a CLC exchange.
//
// The handshake machines (clc/handshake.hpp) check the peer's Proposal,
// Accept or Confirm before they answer; the capture observer checks every
// message of both sides. Each function below is one rule: it takes the
// decoded message(s) (clc/messages.hpp, read through the declarations of
// clc/headers.hpp) and returns the Violation or nothing. It neither reports
// nor acts: a machine maps the rule to the diagnosis code of its Decline
// (clc/handshake.cpp, decline codes of clc/decline_codes.hpp) and falls back
// to TCP; the observer words it and goes on. clc_implementations() lists
// which function implements which rule id.
//
// A Violation's octet counts from the start of the block the field belongs
// to (the header, the SMC-R body, the v2 part, the first-contact extension):
// where a block sits depends on the message.
//
// Rules of one message alone (eyecatchers, lengths, layouts) are the codec's
// (clc::decode); the order of the messages is each tool's own (a machine
// waits for one type, the observer follows both sides); what a side accepts
// from its own configuration (prefixes, EIDs, link groups it has) is the
// machine's alone.
#pragma once

#include <span>

#include "check/rule.hpp"
#include "clc/messages.hpp"

namespace rdmaconf::check {

// ---- the registry rows (reference/requirements/rfc7609.hpp, smc_v2.hpp), by id
inline constexpr const Rule& kProposalPeerId = rule<"rfc7609-a.2.1-proposal-peer-id-set">;
inline constexpr const Rule& kProposalGidMac = rule<"rfc7609-a.2.2-proposal-gid-mac-valid">;
inline constexpr const Rule& kAcceptVersion = rule<"smcv2-accept-version-offered">;
inline constexpr const Rule& kAcceptPath = rule<"smcv2-accept-path-offered">;
inline constexpr const Rule& kAcceptPeer = rule<"rfc7609-a.2.3-accept-peer-valid">;
inline constexpr const Rule& kAcceptQp = rule<"rfc7609-a.2.3-accept-qp-number">;
inline constexpr const Rule& kAcceptRmb = rule<"rfc7609-a.2.3-accept-rmb-valid">;
inline constexpr const Rule& kAcceptEid = rule<"smcv2-accept-eid">;
inline constexpr const Rule& kAcceptRelease = rule<"smcv2-accept-release">;
inline constexpr const Rule& kAcceptMaxConns = rule<"smcv2-accept-max-conns">;
inline constexpr const Rule& kAcceptMaxLinks = rule<"smcv2-accept-max-links">;
inline constexpr const Rule& kConfirmVersion = rule<"rfc7609-a.2.4-confirm-version">;
inline constexpr const Rule& kConfirmPath = rule<"rfc7609-a.2.4-confirm-path">;
inline constexpr const Rule& kConfirmFirstContact = rule<"rfc7609-c.4-confirm-first-contact-echo">;
inline constexpr const Rule& kConfirmPeerId = rule<"rfc7609-a.2.4-confirm-peer-id">;
inline constexpr const Rule& kConfirmPeer = rule<"rfc7609-a.2.4-confirm-peer-valid">;
inline constexpr const Rule& kConfirmQp = rule<"rfc7609-a.2.4-confirm-qp-number">;
inline constexpr const Rule& kConfirmRmb = rule<"rfc7609-a.2.4-confirm-rmb-valid">;
inline constexpr const Rule& kConfirmMtu = rule<"rfc7609-a.2.4-confirm-mtu-not-above-accept">;
inline constexpr const Rule& kConfirmEid = rule<"smcv2-confirm-eid">;
inline constexpr const Rule& kConfirmRelease = rule<"smcv2-confirm-release">;
inline constexpr const Rule& kConfirmMaxConns = rule<"smcv2-confirm-max-conns">;
inline constexpr const Rule& kConfirmMaxLinks = rule<"smcv2-confirm-max-links">;
inline constexpr const Rule& kDeclineOutOfSync = rule<"rfc7609-c.4-decline-out-of-sync">;
// The registry writes it as a lower-case "must" (Linux's practice, no written
// rule); a Decline with a local reason harms nothing but the peer's
// diagnosis, so the row weighs it as a SHOULD (its weight column).
inline constexpr const Rule& kDeclineCodeOnWire = rule<"smcv2-decline-code-on-wire">;

// ---- the client's Proposal (RFC 7609 App. A.2.1, A.2.2). Its Peer ID, GID
// and MAC are judged only on a v1 SMC-R offer (clc::Proposal::v1_smcr_identity).
Outcome proposal_peer_id(const clc::Proposal& p);
Outcome proposal_gid_mac(const clc::Proposal& p);

// ---- the server's Accept against the Proposal it answers
// (RFC 7609 App. A.2.3; SMC v2: smc_clc_msg_hdr, smc_clc_match_eid, smc_clc_v2x_features)
Outcome accept_version_offered(const clc::Proposal& p, const clc::AcceptConfirm& a);
// Judged once the version was offered: the path among those offered for it.
Outcome accept_path_offered(const clc::Proposal& p, const clc::AcceptConfirm& a);
Outcome accept_peer_valid(const clc::SmcrBody& accept);
Outcome accept_qp_number(const clc::SmcrBody& accept);
Outcome accept_rmb_valid(const clc::SmcrBody& accept);
// v2 only: the EID among the Proposal's user EIDs.
Outcome accept_eid_offered(const clc::Proposal& p, const clc::AcceptConfirm& a);
// v2 with a first-contact extension: release not above the Proposal's, and
// from release 1 (v2.1) the limits of the link group.
Outcome accept_release(const clc::Proposal& p, const clc::AcceptConfirm& a);
Outcome accept_max_conns(const clc::AcceptConfirm& a);
Outcome accept_max_links(const clc::AcceptConfirm& a);

// ---- the client's Confirm against the Accept (and the Proposal) (RFC 7609 App. A.2.4, C.4)
Outcome confirm_version(const clc::AcceptConfirm& accept, const clc::AcceptConfirm& confirm);
Outcome confirm_path(const clc::AcceptConfirm& accept, const clc::AcceptConfirm& confirm);
Outcome confirm_first_contact(const clc::AcceptConfirm& accept, const clc::AcceptConfirm& confirm);
Outcome confirm_peer_id(const clc::Proposal& p, const clc::SmcrBody& confirm);
Outcome confirm_peer_valid(const clc::SmcrBody& confirm);
Outcome confirm_qp_number(const clc::SmcrBody& confirm);
Outcome confirm_rmb_valid(const clc::SmcrBody& confirm);
Outcome confirm_mtu(const clc::AcceptConfirm& accept, const clc::AcceptConfirm& confirm);
Outcome confirm_eid(const clc::AcceptConfirm& accept, const clc::AcceptConfirm& confirm);
Outcome confirm_release(const clc::AcceptConfirm& accept, const clc::AcceptConfirm& confirm);
Outcome confirm_max_conns(const clc::AcceptConfirm& accept, const clc::AcceptConfirm& confirm);
Outcome confirm_max_links(const clc::AcceptConfirm& accept, const clc::AcceptConfirm& confirm);

// ---- a Decline (RFC 7609 App. C.4; Linux SMC_CLC_DECL_*)
Outcome decline_out_of_sync(const clc::Decline& d);
Outcome decline_code_on_wire(const clc::Decline& d);

// ---- which function implements which rule (the table in clc.cpp)
std::span<const Implementation> clc_implementations();
std::span<const Rule* const> clc_rules();

}  // namespace rdmaconf::check
