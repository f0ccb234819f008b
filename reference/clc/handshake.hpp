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
// Every rule the machines decline on is a registry row, judged in the order
// of its message's list in check/clc.hpp (proposal_rules, accept_rules,
// confirm_rules), the lists the capture observer judges with too; a machine
// passes what it knows of itself (its prefixes, EIDs, link groups) and
// declines on the first rule broken with the diagnosis of the rule's row
// (check::decline_code). The reference negotiates SMC-R (v1 and v2); SMC-D layouts
// are decoded and encoded by messages.hpp, a client can offer SMC-D (SmcdOffer:
// the conformance tester's Proposals), and a Proposal offering only SMC-D is
// declined with NOSMCDDEV, as a host without an ISM device does.
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
#include "clc/local.hpp"
#include "clc/messages.hpp"

namespace rdmaconf::clc {

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

// One ISM device a client offers for SMC-Dv2 (Linux smc_clc_smcd_gid_chid).
struct IsmDevice {
  std::uint64_t gid = 0;
  std::uint16_t chid = 0;
};

// What a client with ISM devices offers for SMC-D (Linux
// smc_clc_send_proposal). The reference has no ISM device and offers none;
// the tester offers SMC-D to see how a server without (or with) one answers.
struct SmcdOffer {
  bool v1 = false;   // SMC-D version 1: the native ISM GID in the SMC-D area
  bool v2 = false;   // SMC-Dv2: the SMC-Dv2 extension and its GID/CHID list
  IsmDevice native;  // the device named in the SMC-D area
  std::vector<IsmDevice> v2_devices;  // at most kMaxIsmGids are sent
};

struct ClientConfig {
  SmcrLink link;
  bool offer_v1 = true;  // SMC-R version 1
  bool offer_v2 = true;  // SMC-R version 2
  SmcdOffer smcd;
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
  // RFC 7609 §3.5.2, §4.1: this server's values for a connection that
  // reuses link_groups[i], same order: the group's link end (QP, GID, MAC)
  // and an RMBE and alert token of the new connection's own. An Accept
  // reusing a group without an entry here names `link`.
  std::vector<SmcrLink> link_group_links;
};

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
  const check::Rule* failed_rule = nullptr;  // the rule whose breach our Decline names
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
  Step decline(std::uint8_t version, const check::Rule& r);
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
  Step decline(std::uint8_t version, const check::Rule& r);
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
