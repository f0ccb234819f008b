// Peer diagnosis codes of the CLC Decline, as data.
//
// RFC 7609 App. A.2.5 leaves the Peer Diagnosis Information to the
// implementation; the codes every SMC implementation in the field exchanges
// are Linux's SMC_CLC_DECL_* values (net/smc/smc_clc.h), which IBM's z/OS
// uses too. The high octet is the category (1 resources, 2 timeout, 3
// configuration, 4 synchronization, 5 peer decline, 9 internal). Some codes
// are only local fallback reasons and never appear on the wire; `on_wire`
// says which.
//
// Rules for sending (the "peer diagnosis" rules), each checked in handshake.cpp:
//  1. The header's Out of Sync bit is set exactly when the code is
//     kDeclSyncErr; a receiver seeing it must end the link group
//     (RFC 7609 App. C.4; Linux smc_clc_send_decline / smc_clc_wait_msg).
//  2. A Decline is never answered by a Decline; receiving one is a local
//     fallback with reason kDeclPeerDecl (RFC 7609 App. C.1).
//  3. A Decline carries the version of the exchange it ends: 28 octets (v1)
//     or 44 octets with the OS type and four more diagnosis slots (v2).
//  4. A local-only code (on_wire == false) is never put in a Decline.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace rdmaconf::clc {

inline constexpr std::uint32_t kDeclMem = 0x01010000;
inline constexpr std::uint32_t kDeclTimeoutConfirmLink = 0x02010000;
inline constexpr std::uint32_t kDeclTimeoutAddLink = 0x02020000;
inline constexpr std::uint32_t kDeclCnfErr = 0x03000000;
inline constexpr std::uint32_t kDeclPeerNoSmc = 0x03010000;
inline constexpr std::uint32_t kDeclIpsec = 0x03020000;
inline constexpr std::uint32_t kDeclNoSmcDev = 0x03030000;
inline constexpr std::uint32_t kDeclNoSmcdDev = 0x03030001;
inline constexpr std::uint32_t kDeclNoSmcrDev = 0x03030002;
inline constexpr std::uint32_t kDeclNoIsm2Supp = 0x03030003;
inline constexpr std::uint32_t kDeclNoV2Ext = 0x03030004;
inline constexpr std::uint32_t kDeclNoV2DExt = 0x03030005;
inline constexpr std::uint32_t kDeclNoSeid = 0x03030006;
inline constexpr std::uint32_t kDeclNoSmcd2Dev = 0x03030007;
inline constexpr std::uint32_t kDeclNoUeid = 0x03030008;
inline constexpr std::uint32_t kDeclReleaseErr = 0x03030009;
inline constexpr std::uint32_t kDeclMaxConnErr = 0x0303000a;
inline constexpr std::uint32_t kDeclMaxLinkErr = 0x0303000b;
inline constexpr std::uint32_t kDeclModeUnsupp = 0x03040000;
inline constexpr std::uint32_t kDeclRmbeEc = 0x03050000;
inline constexpr std::uint32_t kDeclOptUnsupp = 0x03060000;
inline constexpr std::uint32_t kDeclDiffPrefix = 0x03070000;
inline constexpr std::uint32_t kDeclGetVlanErr = 0x03080000;
inline constexpr std::uint32_t kDeclIsmVlanErr = 0x03090000;
inline constexpr std::uint32_t kDeclNoActLink = 0x030a0000;
inline constexpr std::uint32_t kDeclNoSrvLink = 0x030b0000;
inline constexpr std::uint32_t kDeclVersMismat = 0x030c0000;
inline constexpr std::uint32_t kDeclMaxDmb = 0x030d0000;
inline constexpr std::uint32_t kDeclNoRoute = 0x030e0000;
inline constexpr std::uint32_t kDeclNoIndirect = 0x030f0000;
inline constexpr std::uint32_t kDeclSyncErr = 0x04000000;
inline constexpr std::uint32_t kDeclPeerDecl = 0x05000000;
inline constexpr std::uint32_t kDeclInterr = 0x09990000;
inline constexpr std::uint32_t kDeclErrRtok = 0x09990001;
inline constexpr std::uint32_t kDeclErrRdyLnk = 0x09990002;
inline constexpr std::uint32_t kDeclErrRegBuf = 0x09990003;

struct DeclineCode {
  std::uint32_t code;
  std::string_view linux_name;  // SMC_CLC_DECL_<this>
  std::string_view meaning;
  std::string_view sent_when;   // who sends it, at which step
  bool on_wire;                 // false: a local fallback reason only
};

// The table, in code order.
std::span<const DeclineCode> decline_codes();

// The entry for a code, or nullptr for a code no implementation defines.
const DeclineCode* find_decline_code(std::uint32_t code);

// Category from the high octet: "resource", "timeout", "configuration",
// "synchronization", "peer decline", "internal", or "unknown".
std::string_view decline_category(std::uint32_t code);

// Rule 1: the Out of Sync bit accompanies exactly this code.
constexpr bool requires_out_of_sync(std::uint32_t code) { return code == kDeclSyncErr; }

}  // namespace rdmaconf::clc
