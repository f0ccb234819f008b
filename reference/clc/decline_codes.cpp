#include "clc/decline_codes.hpp"

#include <algorithm>

namespace rdmaconf::clc {
namespace {

// Meanings and senders from Linux net/smc (smc_clc.h, af_smc.c), in our words.
constexpr DeclineCode kTable[] = {
    {kDeclMem, "MEM", "insufficient memory for the link group or buffers",
     "either side, when it cannot allocate an RMB/DMB or link group", true},
    {kDeclTimeoutConfirmLink, "TIMEOUT_CL", "timeout waiting for LLC CONFIRM LINK",
     "first contact: after the CLC exchange, when the link never confirms", true},
    {kDeclTimeoutAddLink, "TIMEOUT_AL", "timeout waiting for LLC ADD LINK",
     "first contact: while adding the second link of the group", true},
    {kDeclCnfErr, "CNFERR", "configuration error",
     "client that cannot determine its IP prefix; a peer whose values are inconsistent", true},
    {kDeclPeerNoSmc, "PEERNOSMC", "peer did not indicate SMC",
     "never sent: the SYN or SYN-ACK lacked the SMC TCP option, so no CLC follows", false},
    {kDeclIpsec, "IPSEC", "the connection uses IPsec", "server, in answer to a Proposal on an IPsec flow", true},
    {kDeclNoSmcDev, "NOSMCDEV", "no SMC device found (R or D)",
     "server with no device for any offered path; client before proposing", true},
    {kDeclNoSmcdDev, "NOSMCDDEV", "no SMC-D device found", "server offered only SMC-D", true},
    {kDeclNoSmcrDev, "NOSMCRDEV", "no SMC-R device found", "server offered only SMC-R", true},
    {kDeclNoIsm2Supp, "NOISM2SUPP", "hardware has no ISMv2 support", "server asked for SMC-Dv2", true},
    {kDeclNoV2Ext, "NOV2EXT", "peer sent no CLC v2 extension", "server, v2 Proposal without its extension", true},
    {kDeclNoV2DExt, "NOV2DEXT", "peer sent no SMC-Dv2 extension", "server, SMC-Dv2 offered without it", true},
    {kDeclNoSeid, "NOSEID", "peer sent no system EID", "server, SMC-Dv2 needs the SEID", true},
    {kDeclNoSmcd2Dev, "NOSMCD2DEV", "no SMC-Dv2 device found", "server", true},
    {kDeclNoUeid, "NOUEID", "no common user EID", "server, when no EID of the Proposal matches its own", true},
    {kDeclReleaseErr, "RELEASEERR", "release version negotiation failed",
     "server, when the Confirm's release differs from the one it accepted", true},
    {kDeclMaxConnErr, "MAXCONNERR", "max connections negotiation failed",
     "either side, v2.1: offered or agreed Max Conns below 16 or changed", true},
    {kDeclMaxLinkErr, "MAXLINKERR", "max links negotiation failed",
     "either side, v2.1: Max Links outside 1-2 or changed", true},
    {kDeclModeUnsupp, "MODEUNSUPP", "SMC modes do not match (R or D)",
     "server with no path in common; client when the Accept chose a path it did not offer", true},
    {kDeclRmbeEc, "RMBE_EC", "peer has an eyecatcher in its RMBE", "client, first contact", true},
    {kDeclOptUnsupp, "OPTUNSUPP", "a socket option SMC cannot support (e.g. TCP Fast Open)",
     "never sent: a local fallback reason", false},
    {kDeclDiffPrefix, "DIFFPREFIX", "IP prefix / subnet mismatch",
     "server, SMC-R v1: the Proposal's prefixes match none of its own", true},
    {kDeclGetVlanErr, "GETVLANERR", "cannot get the VLAN ID of the IP device", "either side", true},
    {kDeclIsmVlanErr, "ISMVLANERR", "cannot register the VLAN ID on the ISM device", "either side", true},
    {kDeclNoActLink, "NOACTLINK", "no active SMC-R link in the link group", "either side, subsequent contact", true},
    {kDeclNoSrvLink, "NOSRVLINK", "the server's SMC-R link was not found",
     "client, subsequent contact: the Accept names a link it does not have", true},
    {kDeclVersMismat, "VERSMISMAT", "SMC version mismatch",
     "server with no version in common; client when the Accept's version was not offered", true},
    {kDeclMaxDmb, "MAX_DMB", "SMC-D DMB limit exceeded", "server", true},
    {kDeclNoRoute, "NOROUTE", "SMC-Rv2: no route to the peer", "either side", true},
    {kDeclNoIndirect, "NOINDIRECT", "SMC-Rv2: direct/indirect mismatch", "client", true},
    {kDeclSyncErr, "SYNCERR", "synchronization error: link group state differs",
     "either side; always with the Out of Sync bit, and the receiver ends the link group", true},
    {kDeclPeerDecl, "PEERDECL", "peer declined during the handshake",
     "never sent: the local reason after receiving a Decline", false},
    {kDeclInterr, "INTERR", "internal error", "either side", true},
    {kDeclErrRtok, "ERR_RTOK", "internal error: rtoken handling failed", "either side", true},
    {kDeclErrRdyLnk, "ERR_RDYLNK", "internal error: making the IB link ready failed", "either side", true},
    {kDeclErrRegBuf, "ERR_REGBUF", "internal error: registering RDMA buffers failed", "either side", true},
};

static_assert(std::is_sorted(std::begin(kTable), std::end(kTable),
                             [](const DeclineCode& a, const DeclineCode& b) { return a.code < b.code; }));

}  // namespace

std::span<const DeclineCode> decline_codes() { return kTable; }

const DeclineCode* find_decline_code(std::uint32_t code) {
  for (const DeclineCode& c : kTable)
    if (c.code == code) return &c;
  return nullptr;
}

std::string_view decline_category(std::uint32_t code) {
  switch (code >> 24) {
    case 0x01: return "resource";
    case 0x02: return "timeout";
    case 0x03: return "configuration";
    case 0x04: return "synchronization";
    case 0x05: return "peer decline";
    case 0x09: return "internal";
    default: return "unknown";
  }
}

}  // namespace rdmaconf::clc
