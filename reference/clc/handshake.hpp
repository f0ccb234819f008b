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
// Every rule the machines decline on is a Check (checks::): its registry
// row and the diagnosis code a violation is declined with. The rules
// between the peer's messages are implemented once, in check/clc.hpp, for
// the machines and the capture observer alike. The reference negotiates SMC-R (v1 and v2); SMC-D layouts
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

#include "check/clc.hpp"
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

// Why a machine declines: the rule (a registry row) and the diagnosis code
// its Decline carries. The rules between the peer's messages are the rule
// layer's (check/clc.hpp, checked by the capture observer too); the rest
// rest on what this side has (an SMC path, a prefix, an EID, a link group)
// and only a machine checks them.
struct Check {
  const check::Rule* rule;
  std::uint32_t decline_code;
};

namespace checks {
// Registry rows of the refusals only a machine makes (conformance/requirements/).
inline constexpr const check::Rule& kDeclineReasonRule = check::rule<"rfc7609-c.1-decline-reason">;
inline constexpr const check::Rule& kVersionChoiceRule = check::rule<"smcv2-proposal-version-choice">;
inline constexpr const check::Rule& kPrefixMatchRule = check::rule<"rfc7609-3.5.1.2-prefix-match">;
inline constexpr const check::Rule& kEidMatchRule = check::rule<"smcv2-proposal-eid-match">;
inline constexpr const check::Rule& kV21LimitsRule = check::rule<"smcv2-fce-v21-limits">;
inline constexpr const check::Rule& kFirstContactMismatchRule = check::rule<"rfc7609-3.5.2-client-first-contact-mismatch">;
inline constexpr const check::Rule& kConfirmConsistentRule = check::rule<"rfc7609-a.2.4-confirm-consistent">;

// Server, on the Proposal
inline constexpr Check kProposalPeerId{&check::kProposalPeerId, kDeclCnfErr};
inline constexpr Check kProposalGidMac{&check::kProposalGidMac, kDeclCnfErr};
inline constexpr Check kProposalSmcrOffered{&kDeclineReasonRule, kDeclNoSmcdDev};
inline constexpr Check kVersionCommon{&kVersionChoiceRule, kDeclVersMismat};
inline constexpr Check kPrefixMatch{&kPrefixMatchRule, kDeclDiffPrefix};
inline constexpr Check kEidMatch{&kEidMatchRule, kDeclNoUeid};
inline constexpr Check kProposalMaxConns{&kV21LimitsRule, kDeclMaxConnErr};
inline constexpr Check kProposalMaxLinks{&kV21LimitsRule, kDeclMaxLinkErr};
// Client, on the Accept
inline constexpr Check kAcceptVersion{&check::kAcceptVersion, kDeclVersMismat};
inline constexpr Check kAcceptPath{&check::kAcceptPath, kDeclModeUnsupp};
inline constexpr Check kAcceptPeer{&check::kAcceptPeer, kDeclCnfErr};
inline constexpr Check kAcceptQp{&check::kAcceptQp, kDeclCnfErr};
inline constexpr Check kAcceptRmb{&check::kAcceptRmb, kDeclCnfErr};
inline constexpr Check kAcceptFirstContact{&kFirstContactMismatchRule, kDeclSyncErr};
inline constexpr Check kAcceptEid{&check::kAcceptEid, kDeclNoUeid};
inline constexpr Check kAcceptRelease{&check::kAcceptRelease, kDeclReleaseErr};
inline constexpr Check kAcceptMaxConns{&check::kAcceptMaxConns, kDeclMaxConnErr};
inline constexpr Check kAcceptMaxLinks{&check::kAcceptMaxLinks, kDeclMaxLinkErr};
// Server, on the Confirm
inline constexpr Check kConfirmVersion{&check::kConfirmVersion, kDeclVersMismat};
inline constexpr Check kConfirmPath{&check::kConfirmPath, kDeclModeUnsupp};
inline constexpr Check kConfirmFirstContact{&check::kConfirmFirstContact, kDeclSyncErr};
inline constexpr Check kConfirmPeerId{&check::kConfirmPeerId, kDeclCnfErr};
inline constexpr Check kConfirmPeer{&check::kConfirmPeer, kDeclCnfErr};
inline constexpr Check kConfirmQp{&check::kConfirmQp, kDeclCnfErr};
inline constexpr Check kConfirmRmb{&check::kConfirmRmb, kDeclCnfErr};
inline constexpr Check kConfirmMtu{&check::kConfirmMtu, kDeclCnfErr};
inline constexpr Check kConfirmLinkGroup{&kConfirmConsistentRule, kDeclSyncErr};
inline constexpr Check kConfirmEid{&check::kConfirmEid, kDeclNoUeid};
inline constexpr Check kConfirmRelease{&check::kConfirmRelease, kDeclReleaseErr};
inline constexpr Check kConfirmMaxConns{&check::kConfirmMaxConns, kDeclMaxConnErr};
inline constexpr Check kConfirmMaxLinks{&check::kConfirmMaxLinks, kDeclMaxLinkErr};
// Client, with nothing to propose (Linux smc_connect declines at once)
inline constexpr Check kNoSmcDevice{&kDeclineReasonRule, kDeclNoSmcDev};
}  // namespace checks

// The Check a rule-layer Violation of the peer's message maps to (the
// decline code), or null for a rule the machines do not decline on (the
// Decline rules: a received Decline means fallback regardless).
const Check* check_for(const check::Rule& rule);

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
  std::vector<check::Violation> peer_violations;  // rules the peer's Decline broke
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
  Step decline(std::uint8_t version, const check::Violation& v);
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
  Step decline(std::uint8_t version, const check::Violation& v);
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
