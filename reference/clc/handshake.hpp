// The CLC handshake, both roles, as socket-free explicit state machines.
//
//   client                                   server
//   (SYN and SYN-ACK both carried the SMC TCP option)
//   Proposal  --------------------------->   choose version and path,
//                                            check prefix / EID / peer
//             <---------------------------   Accept   (or Decline)
//   check Accept against the Proposal
//   Confirm   --------------------------->   check Confirm against
//   (or Decline)                             Proposal and Accept
//
// Each machine takes events (start, one complete CLC message, the CLC wait
// timer expiring) and answers with a Step: octets to send and, once the
// exchange is over, an Outcome: SMC (with the negotiated values), fallback
// to plain TCP (a Decline sent or received, or no SMC option), or failure
// (timeout or a protocol error: the connection is reset, as Linux does).
//
// Every consistency rule between messages is one named Check (kChecks)
// with the section that states it and the diagnosis code a violation is
// declined with. The reference negotiates SMC-R (v1 and v2); SMC-D layouts
// are decoded and encoded by messages.hpp, and a Proposal offering only
// SMC-D is declined with NOSMCDDEV, as a host without an ISM device does.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "clc/decline_codes.hpp"
#include "clc/messages.hpp"

namespace rdmaconf::clc {

using PeerId = std::uint64_t;
using Gid = std::array<std::uint8_t, 16>;
using Mac = std::array<std::uint8_t, 6>;
using Eid = std::array<std::uint8_t, 32>;

// A 32-octet EID (or host name) from text: upper-cased bytes kept as given,
// blank padded, truncated at 32.
Eid make_eid(std::string_view text);

// Linux waits 6 s for each CLC message (CLC_WAIT_TIME).
inline constexpr std::chrono::milliseconds kClcWaitTime{6000};

// The values one side sends in its Accept (server) or Confirm (client).
struct SmcrLink {
  PeerId peer_id = 0;
  Gid gid{};
  Mac mac{};
  std::uint32_t qp_number = 0;  // 24 bits
  std::uint32_t rmb_rkey = 0;
  std::uint8_t rmbe_index = 1;
  std::uint32_t rmbe_alert_token = 0;
  std::uint64_t rmbe_size = 65536;  // octets; sent in compressed notation
  std::uint8_t qp_mtu = 3;          // InfiniBand code of the local path MTU
  std::uint64_t rmb_virtual_address = 0;
  std::uint32_t initial_psn = 0;  // 24 bits
};

struct Ipv4Prefix {
  std::uint32_t subnet = 0;
  std::uint8_t prefix_length = 0;
};
struct Ipv6PrefixEntry {
  std::array<std::uint8_t, 16> prefix{};
  std::uint8_t prefix_length = 0;
  friend bool operator==(const Ipv6PrefixEntry&, const Ipv6PrefixEntry&) = default;
};

struct V2Settings {
  std::vector<Eid> user_eids;  // at most kMaxUserEids are sent
  std::optional<Eid> system_eid;
  std::uint8_t release = kRelease1;
  std::uint8_t max_conns = 255;  // v2.1 preference
  std::uint8_t max_links = 2;
  Gid rocev2_gid{};
  std::string hostname = "rdmaconf";
  std::uint8_t os_type = kOsLinux;
};

// A link group this side already has with a peer: its peer's identity and
// the peer's end of the link (subsequent contact reuses it).
struct LinkGroupPeer {
  PeerId peer_id = 0;
  Gid gid{};
  Mac mac{};
  std::uint32_t qp_number = 0;
};

struct ClientConfig {
  SmcrLink link;
  bool offer_v1 = true;  // SMC-R version 1
  bool offer_v2 = true;  // SMC-R version 2
  V2Settings v2;
  Ipv4Prefix ipv4;
  std::vector<Ipv6PrefixEntry> ipv6;  // sent instead of the IPv4 subnet when not empty
  std::optional<LinkGroupPeer> link_group;  // with the server, if any
};

struct ServerConfig {
  SmcrLink link;
  bool accept_v1 = true;
  bool accept_v2 = true;
  V2Settings v2;
  Ipv4Prefix ipv4;
  std::vector<Ipv6PrefixEntry> ipv6;
  std::vector<LinkGroupPeer> link_groups;  // clients this server has link groups with
};

// One consistency rule between CLC messages.
struct Check {
  std::string_view name;     // stable identifier, e.g. "accept-version-offered"
  std::string_view section;  // where the rule is stated
  std::uint32_t decline_code;
  std::string_view summary;
};

namespace checks {
// Server, on the Proposal
inline constexpr Check kProposalPeerId{"proposal-peer-id-set", cite::kPeerId, kDeclCnfErr,
                                       "the client's peer ID is not zero"};
inline constexpr Check kProposalGidMac{"proposal-gid-mac-valid", cite::kProposal, kDeclCnfErr,
                                       "client GID is not zero and its MAC is a unicast address"};
inline constexpr Check kProposalSmcrOffered{"proposal-offers-smc-r", cite::kV2Header, kDeclNoSmcdDev,
                                            "SMC-R is offered in some version (the reference has no ISM device)"};
inline constexpr Check kVersionCommon{"version-in-common", cite::kV2Header, kDeclVersMismat,
                                      "client and server share an SMC version for SMC-R"};
inline constexpr Check kPrefixMatch{"v1-ip-prefix-match", cite::kLinuxPrefixMatch, kDeclDiffPrefix,
                                    "SMC-Rv1: a proposed IP prefix is one of the server's"};
inline constexpr Check kEidMatch{"v2-eid-match", cite::kV2EidMatch, kDeclNoUeid,
                                 "SMC-Rv2: a user EID of the Proposal is one of the server's"};
inline constexpr Check kProposalMaxConns{"v21-max-conns", cite::kV2Features, kDeclMaxConnErr,
                                         "v2.1: agreed Max Conns is at least 16"};
inline constexpr Check kProposalMaxLinks{"v21-max-links", cite::kV2Features, kDeclMaxLinkErr,
                                         "v2.1: agreed Max Links is 1 or 2"};
// Client, on the Accept
inline constexpr Check kAcceptVersion{"accept-version-offered", cite::kV2Header, kDeclVersMismat,
                                      "the Accept's version is one the Proposal offered for SMC-R"};
inline constexpr Check kAcceptPath{"accept-path-offered", cite::kV2Header, kDeclModeUnsupp,
                                   "the Accept's path is one the Proposal offered"};
inline constexpr Check kAcceptPeer{"accept-peer-valid", cite::kAccept, kDeclCnfErr,
                                   "server peer ID and GID are not zero, its MAC is unicast"};
inline constexpr Check kAcceptQp{"accept-qp-number", cite::kInfiniBandQp, kDeclCnfErr,
                                 "the server QP is not QP0 or QP1"};
inline constexpr Check kAcceptRmb{"accept-rmb-valid", cite::kAccept, kDeclCnfErr,
                                  "RMBE index counts from 1; RMB address + size does not wrap"};
inline constexpr Check kAcceptFirstContact{"accept-first-contact-in-sync", cite::kLinuxConnCreate, kDeclSyncErr,
                                           "a reused link group (no First Contact) is one the client has"};
inline constexpr Check kAcceptEid{"accept-eid-offered", cite::kV2EidMatch, kDeclNoUeid,
                                  "the negotiated EID is one the client offered"};
inline constexpr Check kAcceptRelease{"accept-release", cite::kV2FirstContactExt, kDeclReleaseErr,
                                      "the server's release is not above the client's"};
inline constexpr Check kAcceptMaxConns{"accept-max-conns", cite::kV2Features, kDeclMaxConnErr,
                                       "v2.1: Max Conns is at least 16"};
inline constexpr Check kAcceptMaxLinks{"accept-max-links", cite::kV2Features, kDeclMaxLinkErr,
                                       "v2.1: Max Links is 1 or 2"};
// Server, on the Confirm
inline constexpr Check kConfirmVersion{"confirm-version", cite::kConfirm, kDeclVersMismat,
                                       "the Confirm has the Accept's version"};
inline constexpr Check kConfirmPath{"confirm-path", cite::kConfirm, kDeclModeUnsupp,
                                    "the Confirm has the Accept's path"};
inline constexpr Check kConfirmFirstContact{"confirm-first-contact-echo", cite::kOutOfSync, kDeclSyncErr,
                                            "the Confirm's First Contact equals the Accept's"};
inline constexpr Check kConfirmPeerId{"confirm-peer-id", cite::kConfirm, kDeclCnfErr,
                                      "the Confirm's peer ID is the Proposal's"};
inline constexpr Check kConfirmPeer{"confirm-peer-valid", cite::kConfirm, kDeclCnfErr,
                                    "client GID is not zero, its MAC is unicast"};
inline constexpr Check kConfirmQp{"confirm-qp-number", cite::kInfiniBandQp, kDeclCnfErr,
                                  "the client QP is not QP0 or QP1"};
inline constexpr Check kConfirmRmb{"confirm-rmb-valid", cite::kConfirm, kDeclCnfErr,
                                   "RMBE index counts from 1; RMB address + size does not wrap"};
inline constexpr Check kConfirmMtu{"confirm-mtu-not-above-accept", cite::kConfirm, kDeclCnfErr,
                                   "the Confirm's QP MTU is at most the Accept's (the client takes the minimum)"};
inline constexpr Check kConfirmLinkGroup{"confirm-link-group-in-sync", cite::kSubsequentContact, kDeclSyncErr,
                                         "on a reused link group the client's GID, MAC and QP are the known ones"};
inline constexpr Check kConfirmEid{"confirm-eid", cite::kV2EidMatch, kDeclNoUeid,
                                   "the Confirm carries the negotiated EID"};
inline constexpr Check kConfirmRelease{"confirm-release", cite::kV2Features, kDeclReleaseErr,
                                       "the Confirm's release equals the Accept's"};
inline constexpr Check kConfirmMaxConns{"confirm-max-conns", cite::kV2Features, kDeclMaxConnErr,
                                        "v2.1: Max Conns equals the Accept's"};
inline constexpr Check kConfirmMaxLinks{"confirm-max-links", cite::kV2Features, kDeclMaxLinkErr,
                                        "v2.1: Max Links equals the Accept's"};
// On a received Decline (reported, the fallback happens regardless)
inline constexpr Check kDeclineOutOfSync{"decline-out-of-sync-with-syncerr", cite::kOutOfSync, 0,
                                         "Out of Sync is set exactly with diagnosis SYNCERR"};
inline constexpr Check kDeclineCodeOnWire{"decline-code-on-wire", cite::kDiagnosisCodes, 0,
                                          "the diagnosis is not a local-only reason"};
}  // namespace checks

// Every check, for the catalogue and the conformance engine.
std::span<const Check* const> all_checks();

enum class OutcomeKind : std::uint8_t { kSmc, kFallback, kFailed };
enum class FailReason : std::uint8_t { kNone, kTimeout, kProtocolError };

struct Outcome {
  OutcomeKind kind = OutcomeKind::kFailed;
  // kSmc
  std::uint8_t version = 0;
  SmcType path = SmcType::kNone;
  bool first_contact = false;
  std::optional<SmcrLink> peer;  // the peer's values from its Accept/Confirm
  std::uint8_t qp_mtu = 0;       // agreed (the Confirm's value)
  std::optional<Eid> negotiated_eid;
  std::uint8_t release = 0;
  // kFallback
  std::uint32_t diagnosis = 0;  // the code sent or received (PEERNOSMC: no SMC option)
  bool decline_sent = false;
  bool decline_received = false;
  bool peer_out_of_sync = false;  // received Out of Sync: end the link group
  const Check* failed_check = nullptr;  // the local check that caused our Decline
  std::vector<const Check*> peer_violations;  // rules the peer's Decline broke
  // kFailed
  FailReason fail = FailReason::kNone;
  std::optional<DecodeError> error;
};

struct Step {
  std::vector<std::uint8_t> send;  // one encoded CLC message, or empty
  std::optional<Outcome> outcome;  // set when the exchange is over
};

class ClientHandshake {
 public:
  enum class State : std::uint8_t { kIdle, kAwaitAccept, kDone };

  explicit ClientHandshake(ClientConfig config);
  // peer_smc_capable: the SYN-ACK carried the SMC option (tcp_option.hpp).
  Step start(bool peer_smc_capable);
  // One complete CLC message (MessageReader frames the stream).
  Step on_message(Bytes message);
  // The CLC wait timer expired.
  Step on_timeout();

  State state() const { return state_; }
  const Proposal& proposal() const { return proposal_; }

 private:
  Step decline(std::uint8_t version, const Check& c);
  Step finish(Outcome o);

  ClientConfig cfg_;
  State state_ = State::kIdle;
  Proposal proposal_;
};

class ServerHandshake {
 public:
  enum class State : std::uint8_t { kIdle, kAwaitProposal, kAwaitConfirm, kDone };

  explicit ServerHandshake(ServerConfig config);
  // peer_smc_capable: the SYN carried the SMC option.
  Step start(bool peer_smc_capable);
  Step on_message(Bytes message);
  Step on_timeout();

  State state() const { return state_; }

 private:
  Step on_proposal(const Proposal& p);
  Step on_confirm(const AcceptConfirm& c);
  Step decline(std::uint8_t version, const Check& c);
  Step finish(Outcome o);

  ServerConfig cfg_;
  State state_ = State::kIdle;
  Proposal proposal_;
  AcceptConfirm accept_;
  std::optional<LinkGroupPeer> reused_;
  Eid negotiated_eid_{};
};

// Builders the machines use, public for conformance scripts and tests.
Proposal build_proposal(const ClientConfig& c);
Decline build_decline(std::uint8_t version, PeerId sender, std::uint32_t diagnosis, std::uint8_t os_type);

}  // namespace rdmaconf::clc
