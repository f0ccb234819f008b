// SMC CLC wire declarations: every fixed-size block of every CLC message,
// version 1 (RFC 7609 Appendix A) and version 2 (Linux net/smc/smc_clc.h),
// SMC-R and SMC-D, declared once as FieldDecl tables.
//
// A CLC message is a sequence of these blocks: the 8-octet common header,
// one or more bodies chosen by type, version and path, counted arrays of
// small entries (IPv6 prefixes, EIDs, ISM GID/CHID pairs, RoCE GIDs), and
// the 4-octet trailer. messages.hpp says which blocks a message holds and
// where; this file only says what the octets of each block mean. Offsets
// are bits from the first bit of the block, MSB first.
#pragma once

#include <cstdint>
#include <span>

#include "clc/cite.hpp"
#include "wire/field.hpp"

namespace rdmaconf::clc {

using wire::Display;
using wire::FieldDecl;
using wire::HeaderDecl;
using wire::Rule;
using wire::ValueName;

// ---------------------------------------------------------------- values

// "SMCR" and "SMCD" in EBCDIC (S=0xE2 M=0xD4 C=0xC3 R=0xD9 D=0xC4).
inline constexpr std::uint32_t kEyecatcherSmcr = 0xE2D4C3D9;
inline constexpr std::uint32_t kEyecatcherSmcd = 0xE2D4C3C4;

enum class MessageType : std::uint8_t { kProposal = 1, kAccept = 2, kConfirm = 3, kDecline = 4 };

// The 2-bit path code of the header (Linux SMC_TYPE_*). In a Proposal it is
// what the client offers (per version); in Accept/Confirm the chosen path.
enum class SmcType : std::uint8_t { kR = 0, kD = 1, kNone = 2, kBoth = 3 };

constexpr bool offers_r(SmcType t) { return t == SmcType::kR || t == SmcType::kBoth; }
constexpr bool offers_d(SmcType t) { return t == SmcType::kD || t == SmcType::kBoth; }

inline constexpr std::uint8_t kVersion1 = 1;
inline constexpr std::uint8_t kVersion2 = 2;

// OS types of the v2 Decline and first-contact extension (SMC_CLC_OS_*).
inline constexpr std::uint8_t kOsZos = 1;
inline constexpr std::uint8_t kOsLinux = 2;
inline constexpr std::uint8_t kOsAix = 3;

// SMC release numbers carried in v2 (SMC_RELEASE_0 = v2.0, _1 = v2.1).
inline constexpr std::uint8_t kRelease0 = 0;
inline constexpr std::uint8_t kRelease1 = 1;

// v2.1 link-group limits a first-contact Accept states (Linux
// smc_clc_v2x_features_*): Max Conns at least 16, Max Links 1 or 2.
inline constexpr std::uint8_t kMinMaxConns = 16;
inline constexpr std::uint8_t kMinMaxLinks = 1;
inline constexpr std::uint8_t kMaxMaxLinks = 2;

inline constexpr ValueName kEyecatcherNames[] = {{kEyecatcherSmcr, "SMCR"}, {kEyecatcherSmcd, "SMCD"}};
inline constexpr ValueName kMessageTypeNames[] = {
    {1, "Proposal"}, {2, "Accept"}, {3, "Confirm"}, {4, "Decline"}};
inline constexpr ValueName kVersionNames[] = {{1, "SMCv1"}, {2, "SMCv2"}};
inline constexpr ValueName kSmcTypeNames[] = {
    {0, "SMC-R"}, {1, "SMC-D"}, {2, "none"}, {3, "SMC-R and SMC-D"}};
inline constexpr ValueName kOsTypeNames[] = {{1, "z/OS"}, {2, "Linux"}, {3, "AIX"}, {15, "unknown"}};
// RFC 7609 App. A.2.3: the QP MTU uses the InfiniBand enumeration.
inline constexpr ValueName kQpMtuNames[] = {
    {1, "256"}, {2, "512"}, {3, "1024"}, {4, "2048"}, {5, "4096"}};

// ----------------------------------------------------------- the header

// Common header of every CLC message: RFC 7609 App. A.2.2-A.2.5 octets 0-7;
// Linux smc_clc_msg_hdr. The low four bits of octet 7 mean different things
// per message type; they are declared below, per type.
struct ClcHeaderSpec {
  enum class Field : std::uint8_t { Eyecatcher, Type, Length, Version, TypeBits };
  static constexpr FieldDecl fields[] = {
      {"Eyecatcher", "eyecatcher", 0, 32, "EBCDIC \"SMCR\" (or \"SMCD\" on the SMC-D path)",
       cite::kClcMessages, Display::kHex, kEyecatcherNames},
      {"Type", "type", 32, 8, "CLC message type", cite::kClcMessages, Display::kDecimal, kMessageTypeNames},
      {"Length", "length", 40, 16, "octets in the whole message, header and trailer included",
       cite::kClcMessages},
      {"Version", "version", 56, 4, "SMC version of this message", cite::kClcMessages, Display::kDecimal,
       kVersionNames},
      {"Type-specific bits", "type_bits", 60, 4,
       "per message type: path types, first contact or out of sync (see below)", cite::kV2Header,
       Display::kHex},
  };
  static constexpr HeaderDecl decl{"CLC header", "smcclc.hdr", 8, fields, cite::kClcMessages};
};

// What octet 7's low nibble (header bits 60-63) means in each message. These
// overlay ClcHeaderSpec's "Type-specific bits"; bit offsets are header bits.
inline constexpr FieldDecl kProposalTypeBits[] = {
    {"SMCv2 Type", "proposal.smcv2_type", 60, 2,
     "paths offered with SMC version 2 (reserved, zero, in a version 1 Proposal)", cite::kV2Header,
     Display::kDecimal, kSmcTypeNames},
    {"SMCv1 Type", "proposal.smcv1_type", 62, 2, "paths offered with SMC version 1", cite::kV2Header,
     Display::kDecimal, kSmcTypeNames},
};
inline constexpr FieldDecl kAcceptConfirmTypeBits[] = {
    {"First Contact", "first_contact", 60, 1,
     "set when this connection starts a new link group (Linux SMC_FIRST_CONTACT_MASK)",
     cite::kFirstContact, Display::kFlag},
    {"Reserved (header)", "hdr_reserved", 61, 1, "reserved", cite::kV2Header, Display::kHex, {},
     Rule::kMustBeZero},
    {"SMC Type", "smc_type", 62, 2, "the path this message sets up: SMC-R or SMC-D", cite::kV2Header,
     Display::kDecimal, kSmcTypeNames},
};
inline constexpr FieldDecl kDeclineTypeBits[] = {
    {"Out of Sync", "out_of_sync", 60, 1,
     "sender's link group state is out of sync with the receiver's; the receiver must end the link "
     "group",
     cite::kOutOfSync, Display::kFlag},
    {"Reserved (header)", "hdr_reserved", 61, 1, "reserved", cite::kV2Header, Display::kHex, {},
     Rule::kMustBeZero},
    {"SMC Type", "smc_type", 62, 2, "path of the declined exchange (Linux sends SMC-R, 0)", cite::kV2Header,
     Display::kDecimal, kSmcTypeNames},
};

// Compile-time proof that an overlay covers header bits [first, first+width)
// exactly, like tiles_exactly does for a whole header.
constexpr bool covers_exactly(std::span<const FieldDecl> fs, std::uint32_t first, std::uint32_t width) {
  std::uint32_t next = first;
  for (const FieldDecl& f : fs) {
    if (f.bit_offset != next || f.bit_width == 0) return false;
    next += f.bit_width;
  }
  return next == first + width;
}
static_assert(covers_exactly(kProposalTypeBits, 60, 4));
static_assert(covers_exactly(kAcceptConfirmTypeBits, 60, 4));
static_assert(covers_exactly(kDeclineTypeBits, 60, 4));

// The 4-octet trailer of every CLC message: the eyecatcher again.
struct TrailerSpec {
  enum class Field : std::uint8_t { Eyecatcher };
  static constexpr FieldDecl fields[] = {
      {"Trailer Eyecatcher", "trailer", 0, 32, "EBCDIC \"SMCR\" or \"SMCD\", closing the message",
       cite::kClcMessages, Display::kHex, kEyecatcherNames},
  };
  static constexpr HeaderDecl decl{"CLC trailer", "smcclc.trailer", 4, fields, cite::kClcMessages};
};

// ------------------------------------------------------------- Proposal

// Octets 8-39 of every Proposal (Linux smc_clc_msg_proposal after hdr).
struct ProposalBodySpec {
  enum class Field : std::uint8_t { PeerId, Gid, Mac, IpAreaOffset };
  static constexpr FieldDecl fields[] = {
      {"Client Peer ID", "proposal.peer_id", 0, 64,
       "the client system's SMC peer ID: 2-octet instance + 6-octet RoCE MAC", cite::kPeerId,
       Display::kHex},
      {"Client Preferred GID", "proposal.gid", 64, 128, "GID of the client's preferred RoCE port",
       cite::kProposal, Display::kBytes},
      {"Client Preferred MAC", "proposal.mac", 192, 48, "MAC of the client's preferred RoCE port",
       cite::kProposal, Display::kBytes},
      {"IP Area Offset", "proposal.ip_area_offset", 240, 16,
       "octets from the end of this field to the IP prefix area (v1: growth area, or the 40-octet "
       "SMC-D area)",
       cite::kProposal},
  };
  static constexpr HeaderDecl decl{"CLC Proposal body", "smcclc.proposal", 32, fields, cite::kProposal};
};

// The SMC-D area that follows the Proposal body: in v1 only when SMC-D is
// offered (IP Area Offset = 40), in v2 always (Linux smc_clc_msg_smcd).
struct ProposalSmcdSpec {
  enum class Field : std::uint8_t { IsmGid, IsmChid, V2ExtOffset, VendorOui, VendorOptions, Reserved };
  static constexpr FieldDecl fields[] = {
      {"ISM GID", "proposal.ism_gid", 0, 64, "GID of the client's native ISM device (SMC-D)",
       cite::kV2ProposalSmcd, Display::kHex},
      {"ISM CHID", "proposal.ism_chid", 64, 16, "channel ID of that ISM device (v2)", cite::kV2ProposalSmcd,
       Display::kHex},
      {"SMCv2 Extension Offset", "proposal.v2_ext_offset", 80, 16,
       "octets from the end of this field to the SMCv2 extension; 0 when none", cite::kV2ProposalSmcd},
      {"Vendor OUI", "proposal.vendor_oui", 96, 24, "vendor organizationally unique identifier",
       cite::kV2ProposalSmcd, Display::kHex},
      {"Vendor Experimental Options", "proposal.vendor_options", 120, 40, "vendor specific",
       cite::kV2ProposalSmcd, Display::kHex},
      {"Reserved", "proposal.smcd_reserved", 160, 160, "reserved", cite::kV2ProposalSmcd, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CLC Proposal SMC-D area", "smcclc.proposal.smcd", 40, fields,
                                   cite::kV2ProposalSmcd};
};

// The IP prefix area (RFC 7609 App. A.2.2; Linux smc_clc_msg_proposal_prefix).
struct IpPrefixSpec {
  enum class Field : std::uint8_t { OutgoingSubnet, PrefixLength, Reserved, Ipv6PrefixCount };
  static constexpr FieldDecl fields[] = {
      {"Outgoing Subnet", "proposal.ipv4_subnet", 0, 32,
       "IPv4 subnet of the client's outgoing interface (zero for IPv6)", cite::kProposal, Display::kHex},
      {"Prefix Length", "proposal.ipv4_prefix_len", 32, 8, "significant bits of that subnet", cite::kProposal},
      {"Reserved (prefix)", "proposal.prefix_reserved", 40, 16, "reserved", cite::kProposal, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"IPv6 Prefix Count", "proposal.ipv6_count", 56, 8, "number of IPv6 prefix entries that follow (max 8)",
       cite::kProposal},
  };
  static constexpr HeaderDecl decl{"CLC Proposal IP prefix area", "smcclc.proposal.prefix", 8, fields,
                                   cite::kProposal};
};

// One IPv6 prefix entry (Linux smc_clc_ipv6_prefix, packed: 17 octets).
struct Ipv6PrefixSpec {
  enum class Field : std::uint8_t { Prefix, PrefixLength };
  static constexpr FieldDecl fields[] = {
      {"IPv6 Prefix", "proposal.ipv6_prefix", 0, 128, "an IPv6 prefix of the outgoing interface",
       cite::kProposal, Display::kBytes},
      {"IPv6 Prefix Length", "proposal.ipv6_prefix_len", 128, 8, "significant bits of that prefix",
       cite::kProposal},
  };
  static constexpr HeaderDecl decl{"CLC IPv6 prefix entry", "smcclc.proposal.ipv6", 17, fields,
                                   cite::kProposal};
};

// The SMCv2 extension of a Proposal (Linux smc_clc_v2_extension, fixed part).
struct V2ExtensionSpec {
  enum class Field : std::uint8_t {
    EidCount, IsmGidCount, Reserved1, Release, Reserved2, Seid, Reserved3, SmcdV2ExtOffset,
    RoceV2Gid, MaxConns, MaxLinks, FeatureMask, Reserved4
  };
  static constexpr FieldDecl fields[] = {
      {"EID Count", "v2ext.eid_count", 0, 8, "number of user-defined EIDs (UEIDs) that follow (max 8)",
       cite::kV2Extension},
      {"ISM GID Count", "v2ext.ism_gid_count", 8, 8, "number of ISMv2 GID/CHID entries (max 8)",
       cite::kV2Extension},
      {"Reserved1", "v2ext.reserved1", 16, 8, "reserved", cite::kV2Extension, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Release", "v2ext.release", 24, 4, "highest SMCv2 release the client supports (0 = v2.0, 1 = v2.1)",
       cite::kV2Extension},
      {"Reserved2", "v2ext.reserved2", 28, 3, "reserved", cite::kV2Extension, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"SEID Indicator", "v2ext.seid", 31, 1, "the client offers its system EID", cite::kV2Extension,
       Display::kFlag},
      {"Reserved3", "v2ext.reserved3", 32, 16, "reserved", cite::kV2Extension, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"SMC-Dv2 Extension Offset", "v2ext.smcd_v2_ext_offset", 48, 16,
       "octets from the end of this field to the SMC-Dv2 extension", cite::kV2Extension},
      {"RoCEv2 GID", "v2ext.rocev2_gid", 64, 128, "the client's RoCEv2 GID (SMC-Rv2)", cite::kV2Extension,
       Display::kBytes},
      {"Max Conns", "v2ext.max_conns", 192, 8, "preferred connections per link group (v2.1)",
       cite::kV2Features},
      {"Max Links", "v2ext.max_links", 200, 8, "preferred links per link group (v2.1)", cite::kV2Features},
      {"Feature Mask", "v2ext.feature_mask", 208, 16, "v2.1 feature bits", cite::kV2Features, Display::kHex},
      {"Reserved4", "v2ext.reserved4", 224, 96, "reserved", cite::kV2Extension, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CLC SMCv2 extension", "smcclc.v2ext", 40, fields, cite::kV2Extension};
};

// A 32-octet Enterprise ID (user EID list entry, system EID, negotiated EID).
struct EidSpec {
  enum class Field : std::uint8_t { Eid };
  static constexpr FieldDecl fields[] = {
      {"EID", "eid", 0, 256, "enterprise ID: upper-case A-Z 0-9 . -, blank padded", cite::kV2Extension,
       Display::kAscii},
  };
  static constexpr HeaderDecl decl{"CLC EID", "smcclc.eid", 32, fields, cite::kV2Extension};
};

// The SMC-Dv2 extension (Linux smc_clc_smcd_v2_extension, fixed part).
struct SmcdV2ExtensionSpec {
  enum class Field : std::uint8_t { SystemEid, Reserved };
  static constexpr FieldDecl fields[] = {
      {"System EID", "smcdv2ext.seid", 0, 256, "the client's system EID (SEID)", cite::kV2SmcdExtension,
       Display::kAscii},
      {"Reserved", "smcdv2ext.reserved", 256, 128, "reserved", cite::kV2SmcdExtension, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CLC SMC-Dv2 extension", "smcclc.smcdv2ext", 48, fields,
                                   cite::kV2SmcdExtension};
};

// One ISMv2 GID/CHID entry (Linux smc_clc_smcd_gid_chid, packed: 10 octets).
struct IsmGidChidSpec {
  enum class Field : std::uint8_t { Gid, Chid };
  static constexpr FieldDecl fields[] = {
      {"ISMv2 GID", "smcdv2ext.gid", 0, 64, "GID of an ISMv2 device", cite::kV2SmcdExtension, Display::kHex},
      {"ISMv2 CHID", "smcdv2ext.chid", 64, 16, "its channel ID", cite::kV2SmcdExtension, Display::kHex},
  };
  static constexpr HeaderDecl decl{"CLC ISM GID/CHID entry", "smcclc.smcdv2ext.entry", 10, fields,
                                   cite::kV2SmcdExtension};
};

// ------------------------------------------------------- Accept, Confirm

// SMC-R Accept/Confirm body, octets 8-63 (RFC 7609 App. A.2.3/A.2.4; Linux
// smcr_clc_msg_accept_confirm). Accept carries the server's values, Confirm
// the client's.
struct SmcrAcceptConfirmSpec {
  enum class Field : std::uint8_t {
    PeerId, Gid, Mac, QpNumber, RmbRkey, RmbeIndex, RmbeAlertToken, RmbeSize, QpMtu, Reserved1,
    RmbVirtualAddress, Reserved2, InitialPsn
  };
  static constexpr FieldDecl fields[] = {
      {"Sender Peer ID", "smcr.peer_id", 0, 64, "the sender system's SMC peer ID", cite::kPeerId,
       Display::kHex},
      {"Sender GID", "smcr.gid", 64, 128, "GID of the sender's RoCE port for this link", cite::kAccept,
       Display::kBytes},
      {"Sender MAC", "smcr.mac", 192, 48, "MAC of the sender's RoCE port", cite::kAccept, Display::kBytes},
      {"QP Number", "smcr.qpn", 240, 24, "the sender's RC queue pair for this link", cite::kAccept,
       Display::kHex},
      {"RMB RKey", "smcr.rmb_rkey", 264, 32, "remote key of the sender's RMB", cite::kAccept, Display::kHex},
      {"RMBE Index", "smcr.rmbe_index", 296, 8, "which element of the RMB this connection uses (first is 1)",
       cite::kAccept},
      {"RMBE Alert Token", "smcr.rmbe_alert_token", 304, 32, "the sender's token for this connection",
       cite::kAccept, Display::kHex},
      {"RMBE Size", "smcr.rmbe_size", 336, 4, "element size, compressed: 0 = 16 KiB ... 15 = 512 MiB",
       cite::kAccept},
      {"QP MTU", "smcr.qp_mtu", 340, 4, "path MTU of the QP, InfiniBand enumeration 1-5", cite::kAccept,
       Display::kDecimal, kQpMtuNames},
      {"Reserved1", "smcr.reserved1", 344, 8, "reserved", cite::kAccept, Display::kHex, {}, Rule::kMustBeZero},
      {"RMB Virtual Address", "smcr.rmb_vaddr", 352, 64, "virtual address of the sender's RMB", cite::kAccept,
       Display::kHex},
      {"Reserved2", "smcr.reserved2", 416, 8, "reserved", cite::kAccept, Display::kHex, {}, Rule::kMustBeZero},
      {"Initial PSN", "smcr.psn", 424, 24, "initial packet sequence number of the sender's QP", cite::kAccept,
       Display::kHex},
  };
  static constexpr HeaderDecl decl{"CLC SMC-R Accept/Confirm body", "smcclc.smcr", 56, fields, cite::kAccept};
};

// SMC-Rv2 addition after the v1 body (Linux ...accept_confirm r1).
struct SmcrV2AcceptConfirmSpec {
  enum class Field : std::uint8_t { Eid, Reserved };
  static constexpr FieldDecl fields[] = {
      {"Negotiated EID", "smcrv2.eid", 0, 256, "the EID both sides share", cite::kV2AcceptConfirm,
       Display::kAscii},
      {"Reserved", "smcrv2.reserved", 256, 64, "reserved", cite::kV2AcceptConfirm, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CLC SMC-Rv2 Accept/Confirm part", "smcclc.smcrv2", 40, fields,
                                   cite::kV2AcceptConfirm};
};

// SMC-D Accept/Confirm body, octets 8-31 (Linux smcd_clc_msg_accept_confirm_common).
struct SmcdAcceptConfirmSpec {
  enum class Field : std::uint8_t { Gid, DmbToken, DmbeIndex, DmbeSize, Reserved1, Reserved2, LinkId };
  static constexpr FieldDecl fields[] = {
      {"Sender ISM GID", "smcd.gid", 0, 64, "GID of the sender's ISM device", cite::kV2AcceptConfirm,
       Display::kHex},
      {"DMB Token", "smcd.dmb_token", 64, 64, "token of the sender's direct memory buffer",
       cite::kV2AcceptConfirm, Display::kHex},
      {"DMBE Index", "smcd.dmbe_index", 128, 8, "element of the DMB", cite::kV2AcceptConfirm},
      {"DMBE Size", "smcd.dmbe_size", 136, 4, "element size, compressed like the RMBE size",
       cite::kV2AcceptConfirm},
      {"Reserved1", "smcd.reserved1", 140, 4, "reserved", cite::kV2AcceptConfirm, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Reserved2", "smcd.reserved2", 144, 16, "reserved", cite::kV2AcceptConfirm, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Link ID", "smcd.link_id", 160, 32, "link group identifier", cite::kV2AcceptConfirm, Display::kHex},
  };
  static constexpr HeaderDecl decl{"CLC SMC-D Accept/Confirm body", "smcclc.smcd", 24, fields,
                                   cite::kV2AcceptConfirm};
};

// Octets 32-43 of an SMC-D v1 Accept/Confirm: reserved.
struct SmcdV1ReservedSpec {
  enum class Field : std::uint8_t { Reserved };
  static constexpr FieldDecl fields[] = {
      {"Reserved", "smcd.v1_reserved", 0, 96, "reserved in SMC-D version 1", cite::kV2AcceptConfirm,
       Display::kBytes, {}, Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CLC SMC-Dv1 reserved part", "smcclc.smcdv1", 12, fields,
                                   cite::kV2AcceptConfirm};
};

// SMC-Dv2 addition (Linux ...accept_confirm d1).
struct SmcdV2AcceptConfirmSpec {
  enum class Field : std::uint8_t { Chid, Eid, GidExtension };
  static constexpr FieldDecl fields[] = {
      {"ISM CHID", "smcdv2.chid", 0, 16, "channel ID of the sender's ISM device", cite::kV2AcceptConfirm,
       Display::kHex},
      {"Negotiated EID", "smcdv2.eid", 16, 256, "the EID both sides share", cite::kV2AcceptConfirm,
       Display::kAscii},
      {"GID Extension", "smcdv2.gid_ext", 272, 64, "upper GID half of an emulated ISM device",
       cite::kV2AcceptConfirm, Display::kHex},
  };
  static constexpr HeaderDecl decl{"CLC SMC-Dv2 Accept/Confirm part", "smcclc.smcdv2", 42, fields,
                                   cite::kV2AcceptConfirm};
};

// First-contact extension, v2 (Linux smc_clc_first_contact_ext).
struct FirstContactExtSpec {
  enum class Field : std::uint8_t { V2Direct, Reserved1, OsType, Release, Reserved2, Hostname };
  static constexpr FieldDecl fields[] = {
      {"V2 Direct", "fce.v2_direct", 0, 1, "peers share a subnet: the link needs no gateway (SMC-Rv2)",
       cite::kV2FirstContactExt, Display::kFlag},
      {"Reserved1", "fce.reserved1", 1, 7, "reserved", cite::kV2FirstContactExt, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"OS Type", "fce.os_type", 8, 4, "sender's operating system", cite::kV2FirstContactExt,
       Display::kDecimal, kOsTypeNames},
      {"Release", "fce.release", 12, 4, "SMCv2 release chosen for the link group", cite::kV2FirstContactExt},
      {"Reserved2", "fce.reserved2", 16, 16, "reserved", cite::kV2FirstContactExt, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Hostname", "fce.hostname", 32, 256, "sender's host name, blank padded", cite::kV2FirstContactExt,
       Display::kAscii},
  };
  static constexpr HeaderDecl decl{"CLC first-contact extension", "smcclc.fce", 36, fields,
                                   cite::kV2FirstContactExt};
};

// The v2.1 tail of the first-contact extension (smc_clc_first_contact_ext_v2x).
// Always present on SMC-R; on SMC-D only when the release is v2.1 or later.
struct FirstContactExtV2xSpec {
  enum class Field : std::uint8_t { MaxConns, MaxLinks, FeatureMask, VendorOptions, Reserved };
  static constexpr FieldDecl fields[] = {
      {"Max Conns", "fce.max_conns", 0, 8, "connections per link group agreed (SMC-R v2.1)", cite::kV2Features},
      {"Max Links", "fce.max_links", 8, 8, "links per link group agreed (SMC-R v2.1)", cite::kV2Features},
      {"Feature Mask", "fce.feature_mask", 16, 16, "v2.1 feature bits", cite::kV2Features, Display::kHex},
      {"Vendor Experimental Options", "fce.vendor_options", 32, 32, "vendor specific", cite::kV2Features,
       Display::kHex},
      {"Reserved", "fce.reserved3", 64, 64, "reserved", cite::kV2Features, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CLC first-contact extension v2.1 part", "smcclc.fce_v2x", 16, fields,
                                   cite::kV2Features};
};

// The RoCE GID list of a first-contact SMC-Rv2 Confirm (smc_clc_fce_gid_ext).
struct GidListSpec {
  enum class Field : std::uint8_t { GidCount, Reserved };
  static constexpr FieldDecl fields[] = {
      {"GID Count", "gidlist.count", 0, 8, "number of 16-octet RoCE GIDs that follow (max 8)", cite::kV2GidList},
      {"Reserved", "gidlist.reserved", 8, 24, "reserved", cite::kV2GidList, Display::kHex, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CLC GID list header", "smcclc.gidlist", 4, fields, cite::kV2GidList};
};

struct GidSpec {
  enum class Field : std::uint8_t { Gid };
  static constexpr FieldDecl fields[] = {
      {"GID", "gid", 0, 128, "a RoCE GID of the sender", cite::kV2GidList, Display::kBytes},
  };
  static constexpr HeaderDecl decl{"CLC GID entry", "smcclc.gidlist.gid", 16, fields, cite::kV2GidList};
};

// ---------------------------------------------------------------- Decline

// Decline body, octets 8-23 (RFC 7609 App. A.2.5; Linux smc_clc_msg_decline).
struct DeclineSpec {
  enum class Field : std::uint8_t { PeerId, PeerDiagnosis, OsType, Reserved1, Reserved2 };
  static constexpr FieldDecl fields[] = {
      {"Sender Peer ID", "decline.peer_id", 0, 64, "the declining system's peer ID (zero if it has none)",
       cite::kPeerId, Display::kHex},
      {"Peer Diagnosis Information", "decline.diagnosis", 64, 32, "why SMC was declined (see decline_codes)",
       cite::kDecline, Display::kHex},
      {"OS Type", "decline.os_type", 96, 4, "sender's operating system (v2; zero in v1)", cite::kV2Decline,
       Display::kDecimal, kOsTypeNames},
      {"Reserved1", "decline.reserved1", 100, 4, "reserved", cite::kDecline, Display::kHex, {},
       Rule::kMustBeZero},
      {"Reserved2", "decline.reserved2", 104, 24, "reserved", cite::kDecline, Display::kHex, {},
       Rule::kMustBeZero},
  };
  static constexpr HeaderDecl decl{"CLC Decline body", "smcclc.decline", 16, fields, cite::kDecline};
};

// The four additional diagnosis codes of a v2 Decline (peer_diagnosis_v2[4]).
struct DeclineV2DiagnosisSpec {
  enum class Field : std::uint8_t { Diagnosis2, Diagnosis3, Diagnosis4, Diagnosis5 };
  static constexpr FieldDecl fields[] = {
      {"Peer Diagnosis 2", "decline.diagnosis2", 0, 32, "additional diagnosis code", cite::kV2Decline,
       Display::kHex},
      {"Peer Diagnosis 3", "decline.diagnosis3", 32, 32, "additional diagnosis code", cite::kV2Decline,
       Display::kHex},
      {"Peer Diagnosis 4", "decline.diagnosis4", 64, 32, "additional diagnosis code", cite::kV2Decline,
       Display::kHex},
      {"Peer Diagnosis 5", "decline.diagnosis5", 96, 32, "additional diagnosis code", cite::kV2Decline,
       Display::kHex},
  };
  static constexpr HeaderDecl decl{"CLC Decline v2 diagnosis list", "smcclc.decline.v2", 16, fields,
                                   cite::kV2Decline};
};

// Every block, for the dissector generator and the catalogue.
inline constexpr const HeaderDecl* kAllDecls[] = {
    &ClcHeaderSpec::decl,        &TrailerSpec::decl,         &ProposalBodySpec::decl,
    &ProposalSmcdSpec::decl,     &IpPrefixSpec::decl,        &Ipv6PrefixSpec::decl,
    &V2ExtensionSpec::decl,      &EidSpec::decl,             &SmcdV2ExtensionSpec::decl,
    &IsmGidChidSpec::decl,       &SmcrAcceptConfirmSpec::decl, &SmcrV2AcceptConfirmSpec::decl,
    &SmcdAcceptConfirmSpec::decl, &SmcdV1ReservedSpec::decl, &SmcdV2AcceptConfirmSpec::decl,
    &FirstContactExtSpec::decl,  &FirstContactExtV2xSpec::decl, &GidListSpec::decl,
    &GidSpec::decl,              &DeclineSpec::decl,         &DeclineV2DiagnosisSpec::decl,
};

// Message lengths that follow from the declarations (Linux: SMCR_CLC_ACCEPT_
// CONFIRM_LEN 68, _V2 108; SMCD_... 48, _V2 78; decline 28 / 44).
inline constexpr std::size_t kHeaderSize = ClcHeaderSpec::decl.size_octets;
inline constexpr std::size_t kTrailerSize = TrailerSpec::decl.size_octets;
inline constexpr std::size_t kSmcrAcceptConfirmV1Length =
    kHeaderSize + SmcrAcceptConfirmSpec::decl.size_octets + kTrailerSize;
inline constexpr std::size_t kSmcrAcceptConfirmV2Length =
    kSmcrAcceptConfirmV1Length + SmcrV2AcceptConfirmSpec::decl.size_octets;
inline constexpr std::size_t kSmcdAcceptConfirmV1Length = kHeaderSize + SmcdAcceptConfirmSpec::decl.size_octets +
                                                          SmcdV1ReservedSpec::decl.size_octets + kTrailerSize;
inline constexpr std::size_t kSmcdAcceptConfirmV2Length =
    kHeaderSize + SmcdAcceptConfirmSpec::decl.size_octets + SmcdV2AcceptConfirmSpec::decl.size_octets + kTrailerSize;
inline constexpr std::size_t kDeclineV1Length = kHeaderSize + DeclineSpec::decl.size_octets + kTrailerSize;
inline constexpr std::size_t kDeclineV2Length = kDeclineV1Length + DeclineV2DiagnosisSpec::decl.size_octets;
static_assert(kSmcrAcceptConfirmV1Length == 68 && kSmcrAcceptConfirmV2Length == 108);
static_assert(kSmcdAcceptConfirmV1Length == 48 && kSmcdAcceptConfirmV2Length == 78);
static_assert(kDeclineV1Length == 28 && kDeclineV2Length == 44);

// Linux limits on the counted arrays (SMC_CLC_MAX_V6_PREFIX, SMC_CLC_MAX_UEID,
// SMCD_CLC_MAX_V2_GID_ENTRIES); the GID list bound is ours (see README).
inline constexpr std::size_t kMaxIpv6Prefixes = 8;
inline constexpr std::size_t kMaxUserEids = 8;
inline constexpr std::size_t kMaxIsmGids = 8;
inline constexpr std::size_t kMaxListGids = 8;

// The longest CLC message these limits allow (a v2 Proposal offering both
// paths with every list full): the receive buffer bound. A Length field above
// it is an error before anything is read or allocated.
inline constexpr std::size_t kMaxMessageLength =
    kHeaderSize + ProposalBodySpec::decl.size_octets + ProposalSmcdSpec::decl.size_octets +
    IpPrefixSpec::decl.size_octets + kMaxIpv6Prefixes * Ipv6PrefixSpec::decl.size_octets +
    V2ExtensionSpec::decl.size_octets + kMaxUserEids * EidSpec::decl.size_octets +
    SmcdV2ExtensionSpec::decl.size_octets + kMaxIsmGids * IsmGidChidSpec::decl.size_octets + kTrailerSize;
static_assert(kMaxMessageLength == 652);

}  // namespace rdmaconf::clc
