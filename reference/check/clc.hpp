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

// ---- the registry rows (conformance/requirements/rfc7609.cpp, smc_v2.cpp)
inline constexpr Rule kProposalPeerId{"rfc7609-a.2.1-proposal-peer-id-set", Level::kMust, "RFC 7609 App. A.2.1",
                                      "the client's peer ID is not zero"};
inline constexpr Rule kProposalGidMac{"rfc7609-a.2.2-proposal-gid-mac-valid", Level::kMust, "RFC 7609 App. A.2.2",
                                      "the client's GID is not zero and its MAC is unicast"};
inline constexpr Rule kAcceptVersion{"smcv2-accept-version-offered", Level::kMust, "SMCv2: smc_clc_msg_hdr",
                                     "the Accept's version is one the Proposal offered for its path"};
inline constexpr Rule kAcceptPath{"smcv2-accept-path-offered", Level::kMust, "SMCv2: smc_clc_msg_hdr",
                                  "the Accept's path is one the Proposal offered"};
inline constexpr Rule kAcceptPeer{"rfc7609-a.2.3-accept-peer-valid", Level::kMust, "RFC 7609 App. A.2.3",
                                  "the server's peer ID and GID are not zero and its MAC is unicast"};
inline constexpr Rule kAcceptQp{"rfc7609-a.2.3-accept-qp-number", Level::kMust, "IBTA vol. 1 §3.5.1",
                                "the server QP is not QP0 or QP1"};
inline constexpr Rule kAcceptRmb{"rfc7609-a.2.3-accept-rmb-valid", Level::kMust, "RFC 7609 App. A.2.3",
                                 "RMBE index counts from 1 and RMB address + size does not wrap"};
inline constexpr Rule kAcceptEid{"smcv2-accept-eid", Level::kMust, "SMCv2: smc_clc_match_eid",
                                 "the Accept's EID is one the Proposal offered"};
inline constexpr Rule kAcceptRelease{"smcv2-accept-release", Level::kMust, "SMCv2: smc_clc_first_contact_ext",
                                     "the server's release is not above the client's"};
inline constexpr Rule kAcceptMaxConns{"smcv2-accept-max-conns", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                      "v2.1: Max Conns is at least 16"};
inline constexpr Rule kAcceptMaxLinks{"smcv2-accept-max-links", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                      "v2.1: Max Links is 1 or 2"};
inline constexpr Rule kConfirmVersion{"rfc7609-a.2.4-confirm-version", Level::kMust, "RFC 7609 App. A.2.4",
                                      "the Confirm has the Accept's version"};
inline constexpr Rule kConfirmPath{"rfc7609-a.2.4-confirm-path", Level::kMust, "RFC 7609 App. A.2.4",
                                   "the Confirm has the Accept's path"};
inline constexpr Rule kConfirmFirstContact{"rfc7609-c.4-confirm-first-contact-echo", Level::kMust, "RFC 7609 App. C.4",
                                           "the Confirm's First Contact equals the Accept's"};
inline constexpr Rule kConfirmPeerId{"rfc7609-a.2.4-confirm-peer-id", Level::kMust, "RFC 7609 App. A.2.4",
                                     "the Confirm's peer ID is the Proposal's"};
inline constexpr Rule kConfirmPeer{"rfc7609-a.2.4-confirm-peer-valid", Level::kMust, "RFC 7609 App. A.2.4",
                                   "the client's GID is not zero and its MAC is unicast"};
inline constexpr Rule kConfirmQp{"rfc7609-a.2.4-confirm-qp-number", Level::kMust, "IBTA vol. 1 §3.5.1",
                                 "the client QP is not QP0 or QP1"};
inline constexpr Rule kConfirmRmb{"rfc7609-a.2.4-confirm-rmb-valid", Level::kMust, "RFC 7609 App. A.2.4",
                                  "RMBE index counts from 1 and RMB address + size does not wrap"};
inline constexpr Rule kConfirmMtu{"rfc7609-a.2.4-confirm-mtu-not-above-accept", Level::kMust, "RFC 7609 App. A.2.4",
                                  "the Confirm's QP MTU is at most the Accept's"};
inline constexpr Rule kConfirmEid{"smcv2-confirm-eid", Level::kMust, "SMCv2: smc_clc_match_eid",
                                  "the Confirm carries the Accept's EID"};
inline constexpr Rule kConfirmRelease{"smcv2-confirm-release", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                      "the Confirm's release equals the Accept's"};
inline constexpr Rule kConfirmMaxConns{"smcv2-confirm-max-conns", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                       "v2.1: Max Conns equals the Accept's"};
inline constexpr Rule kConfirmMaxLinks{"smcv2-confirm-max-links", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                       "v2.1: Max Links equals the Accept's"};
inline constexpr Rule kDeclineOutOfSync{"rfc7609-c.4-decline-out-of-sync", Level::kMust, "RFC 7609 App. C.4",
                                        "Out of Sync is set exactly with diagnosis SYNCERR"};
// The registry writes it as a lower-case "must" (Linux's practice, no written
// rule); a Decline with a local reason harms nothing but the peer's
// diagnosis, so the observer weighs it as a SHOULD (the row says so).
inline constexpr Rule kDeclineCodeOnWire{"smcv2-decline-code-on-wire", Level::kShould, "Linux net/smc: SMC_CLC_DECL_*",
                                         "a Decline's diagnosis is not a local-only reason"};

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
