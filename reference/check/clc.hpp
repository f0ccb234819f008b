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
// Each message has one ordered list of its rules (proposal_rules,
// accept_rules, confirm_rules, decline_rules, at the end): the machine
// declines on the first rule broken, the observer words each, and both get
// them from the same function in the same order. A rule that rests on what
// a side knows of itself (its prefixes, EIDs, link groups: clc/local.hpp)
// is judged only when the caller passes that knowledge; a capture passes
// none and the list skips the rule as not observable there. The diagnosis
// a machine declines with is the rule's registry row's (`declined_with`,
// decline_code()).
//
// Rules of one message alone (eyecatchers, lengths, layouts) are the codec's
// (clc::decode); the order of the messages is each tool's own (a machine
// waits for one type, the observer follows both sides).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "check/rule.hpp"
#include "clc/local.hpp"
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
inline constexpr const Rule& kFceAbsent = rule<"smcv2-fce-absent">;

// ---- the rows only a side can judge: they rest on what it has (clc/local.hpp)
inline constexpr const Rule& kNoSmcDevice = rule<"rfc7609-c.1-decline-reason">;
inline constexpr const Rule& kProposalSmcrPath = rule<"smcv2-proposal-smcr-path">;
inline constexpr const Rule& kVersionChoice = rule<"smcv2-proposal-version-choice">;
inline constexpr const Rule& kPrefixMatch = rule<"rfc7609-3.5.1.2-prefix-match">;
inline constexpr const Rule& kEidMatch = rule<"smcv2-proposal-eid-match">;
inline constexpr const Rule& kProposalMaxConns = rule<"smcv2-fce-v21-max-conns">;
inline constexpr const Rule& kProposalMaxLinks = rule<"smcv2-fce-v21-max-links">;
inline constexpr const Rule& kAcceptLinkGroup = rule<"rfc7609-3.5.2-client-first-contact-mismatch">;
inline constexpr const Rule& kConfirmLinkGroup = rule<"rfc7609-a.2.4-confirm-consistent">;

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

// ---- a v2 Accept or Confirm as sent (SMC v2: smc_clc_fill_fce): without
// First Contact no first-contact extension follows its body. `octets` is
// the whole message; `m` its decode with a receiver's rules, which leaves
// the octets past the blocks aside (a receiver ignores them,
// smcv2-hdr-surplus-ignored, so the machines do not judge this rule; the
// capture observer does). Broken when those octets are exactly the
// extension a first contact would carry (with its v2.1 part for SMC-R and
// from release 1).
Outcome fce_absent(const clc::AcceptConfirm& m, clc::Bytes octets);

// ---- a Decline (RFC 7609 App. C.4; Linux SMC_CLC_DECL_*)
Outcome decline_out_of_sync(const clc::Decline& d);
Outcome decline_code_on_wire(const clc::Decline& d);

// ---- what only a side knows (a handshake machine's configuration)

// A server judging a Proposal: the versions it takes SMC-R in, its prefixes
// and user EIDs, the link groups it has and its v2.1 preferences.
struct ServerSide {
  bool smcr_v1 = true;
  bool smcr_v2 = true;
  std::span<const clc::Eid> user_eids;
  clc::Ipv4Prefix ipv4;
  std::span<const clc::Ipv6PrefixEntry> ipv6;
  std::span<const clc::LinkGroupPeer> link_groups;
  std::uint8_t release = clc::kRelease1;
  std::uint8_t max_conns = 255;
  std::uint8_t max_links = 2;
};

// A client with nothing to propose (no path in either version) declines at
// once (RFC 7609 App. C.1; Linux smc_connect): no message to judge, its own
// state. The reference client has SMC-R alone; a tester's may offer SMC-D.
Outcome client_has_path(bool v1_path, bool v2_path);
// The reference has no ISM device: a Proposal offering no SMC-R path is
// declined (Linux smc_listen_find_device).
Outcome proposal_smcr_path(const clc::Proposal& p);
// SMC-Rv2: one of the Proposal's user EIDs is the server's (smc_clc_match_eid);
// `common` gets the server's EID.
Outcome proposal_eid_match(const clc::Proposal& p, const ServerSide& s, const clc::Eid** common);
// SMC-Rv1: a proposed IP prefix is the server's (RFC 7609 App. A.2.2; Linux smc_clc_prfx_match).
Outcome proposal_prefix_match(const clc::Proposal& p, const ServerSide& s);
// v2.1 first contact: the smaller of both preferences is within the limits
// (Linux smc_clc_srv_v2x_features_validate).
Outcome proposal_max_conns(const clc::Proposal& p, const ServerSide& s);
Outcome proposal_max_links(const clc::Proposal& p, const ServerSide& s);
// A reused link group (no First Contact) is the one this side has with the
// peer: the client's on an Accept (RFC 7609 §3.5.2; Linux smc_conn_create),
// the server's on the Confirm answering its Accept (App. A.2.4). Null: none.
Outcome accept_link_group(const clc::AcceptConfirm& a, const clc::LinkGroupPeer* have);
Outcome confirm_link_group(const clc::AcceptConfirm& c, const clc::LinkGroupPeer* reused);

// ---- each message's rules, in the order they are judged

// The rules a message broke, in order: a machine declines on the first, the
// observer words each.
using Verdict = std::vector<Violation>;

// A Proposal: its identity, then with a ServerSide (a machine) the rules
// that rest on what the server has, and the server's choice when nothing
// was broken. A capture passes no ServerSide.
struct ProposalVerdict {
  Verdict broken;
  std::uint8_t version = 0;                    // the version the server answers in
  const clc::Eid* eid = nullptr;               // v2: the user EID both have (the server's)
  const clc::LinkGroupPeer* reused = nullptr;  // the link group the server has with this client
  std::uint8_t release = 0;                    // v2 first contact: the agreed release
  std::uint8_t max_conns = 0;                  // and from release 1 the agreed limits
  std::uint8_t max_links = 0;
};
ProposalVerdict proposal_rules(const clc::Proposal& p, const ServerSide* server);

// An Accept against the Proposal it answers. An Accept outside the offer
// (version or path) is judged no further: the rest compares it with an
// offer it is not in. `link_group`: the client's link group with the server
// (a machine), absent for a capture (null pointer to the optional).
Verdict accept_rules(const clc::Proposal& p, const clc::AcceptConfirm& a,
                     const std::optional<clc::LinkGroupPeer>* link_group);

// A Confirm against the Accept (and the Proposal). `reused`: the link group
// the server's Accept reused, a machine's; absent for a capture.
Verdict confirm_rules(const clc::Proposal& p, const clc::AcceptConfirm& a, const clc::AcceptConfirm& c,
                      const std::optional<clc::LinkGroupPeer>* reused);

// A Decline (a received one means fallback regardless: these are reported).
Verdict decline_rules(const clc::Decline& d);

// The diagnosis code a machine declines a broken rule with: its row's
// `declined_with` column (clc/decline_codes.hpp); 0 for a row naming none.
std::uint32_t decline_code(const Rule& r);

// ---- which function implements which rule (the tables in clc.cpp): the
// rules a capture can judge, and those only a side can (clc_local_*).
std::span<const Implementation> clc_implementations();
std::span<const Rule* const> clc_rules();
std::span<const Implementation> clc_local_implementations();
std::span<const Rule* const> clc_local_rules();

}  // namespace rdmaconf::check
