// SMC-R link-layer wire declarations: the RoCEv2 transport headers SMC-R
// rides on (BTH, RETH, AETH), the LLC messages of RFC 7609 App. A.3 and their
// SMC v2 variants (Linux net/smc/smc_llc.c), and the CDC message of RFC 7609
// App. A.4, each declared once as a FieldDecl table.
//
// An LLC message is a 4-octet header and a body chosen by its Type; what the
// flag octet's bits mean differs per type, so the flags are declared as
// overlays (as clc/headers.hpp does for the CLC header's type bits). Offsets
// are bits from the first bit of the block, MSB first. Bodies are declared
// from octet 4 of the message, so an LLC figure's octet n is body octet n-4.
#pragma once

#include <cstdint>
#include <span>

#include "smcr/cite.hpp"
#include "wire/field.hpp"

namespace rdmaconf::smcr {

using wire::Display;
using wire::FieldDecl;
using wire::HeaderDecl;
using wire::Rule;
using wire::ValueName;

// ================================================================ RoCEv2

// IBTA Annex A17: RoCEv2 is the InfiniBand transport inside UDP to this port.
inline constexpr std::uint16_t kRoceV2UdpPort = 4791;

// Base Transport Header (IBTA vol. 1 §9.2), first in every RoCEv2 UDP payload.
struct BthSpec {
  enum class Field : std::uint8_t { OpCode, Se, MigReq, PadCnt, TVer, PKey, Fecn, Becn, Resv6, DestQp, AckReq, Resv7, Psn };
  static constexpr FieldDecl fields[] = {
      {"OpCode", "bth.opcode", 0, 8, "transport service (high 3 bits) and operation", cite::kOpcodes, Display::kHex},
      {"SE", "bth.se", 8, 1, "solicited event: the responder raises a completion event", cite::kBth, Display::kFlag},
      {"M", "bth.m", 9, 1, "migration request state", cite::kBth, Display::kFlag},
      {"PadCnt", "bth.padcnt", 10, 2, "pad octets before the ICRC that align the payload to 4", cite::kPadCount},
      {"TVer", "bth.tver", 12, 4, "transport header version, 0", cite::kBth},
      {"P_Key", "bth.pkey", 16, 16, "partition key", cite::kBth, Display::kHex},
      {"FECN", "bth.fecn", 32, 1, "forward explicit congestion notification", cite::kBth, Display::kFlag},
      {"BECN", "bth.becn", 33, 1, "backward explicit congestion notification", cite::kBth, Display::kFlag},
      {"Resv6", "bth.resv6", 34, 6, "reserved", cite::kBth, Display::kHex, {}, Rule::kIgnoredOnReceive},
      {"DestQP", "bth.destqp", 40, 24, "destination queue pair", cite::kBth, Display::kHex},
      {"A", "bth.ackreq", 64, 1, "acknowledge request", cite::kBth, Display::kFlag},
      {"Resv7", "bth.resv7", 65, 7, "reserved", cite::kBth, Display::kHex, {}, Rule::kIgnoredOnReceive},
      {"PSN", "bth.psn", 72, 24, "packet sequence number", cite::kBth},
  };
  static constexpr HeaderDecl decl{"InfiniBand Base Transport Header", "roce.bth", 12, fields, cite::kBth};
};

// RDMA Extended Transport Header (§9.3.2): in RDMA Write First/Only and Read Request.
struct RethSpec {
  enum class Field : std::uint8_t { VirtualAddress, RKey, DmaLength };
  static constexpr FieldDecl fields[] = {
      {"Virtual Address", "reth.va", 0, 64, "where in the responder's memory the operation starts", cite::kReth,
       Display::kHex},
      {"R_Key", "reth.rkey", 64, 32, "remote key of that memory region", cite::kReth, Display::kHex},
      {"DMA Length", "reth.dma_length", 96, 32, "octets of the whole RDMA operation", cite::kReth},
  };
  static constexpr HeaderDecl decl{"RDMA Extended Transport Header", "roce.reth", 16, fields, cite::kReth};
};

// ACK Extended Transport Header (§9.3.5): in Acknowledge and Read Responses.
struct AethSpec {
  enum class Field : std::uint8_t { Syndrome, Msn };
  static constexpr FieldDecl fields[] = {
      {"Syndrome", "aeth.syndrome", 0, 8, "ACK, RNR NAK or NAK, with credit count or timer", cite::kAeth,
       Display::kHex},
      {"MSN", "aeth.msn", 8, 24, "message sequence number of the last completed request", cite::kAeth},
  };
  static constexpr HeaderDecl decl{"ACK Extended Transport Header", "roce.aeth", 4, fields, cite::kAeth};
};

// The invariant CRC that ends every RoCEv2 packet (not checked: see README).
inline constexpr std::size_t kIcrcSize = 4;

// ================================================================== LLC

// LLC message types: RFC 7609 App. A.3 (v1) and Linux enum smc_llc_msg_type
// (v2: the version in the high nibble, 0x2_).
namespace llc_type {
inline constexpr std::uint8_t kConfirmLink = 0x01;
inline constexpr std::uint8_t kAddLink = 0x02;
inline constexpr std::uint8_t kAddLinkCont = 0x03;
inline constexpr std::uint8_t kDeleteLink = 0x04;
inline constexpr std::uint8_t kReqAddLink = 0x05;  // Linux only; its v2 form is 0x25
inline constexpr std::uint8_t kConfirmRkey = 0x06;
inline constexpr std::uint8_t kTestLink = 0x07;
inline constexpr std::uint8_t kConfirmRkeyCont = 0x08;
inline constexpr std::uint8_t kDeleteRkey = 0x09;
inline constexpr std::uint8_t kV2 = 0x20;  // version 2 in the high nibble
}  // namespace llc_type

// A.4: the type octet of a CDC message (its two high-order bits set).
inline constexpr std::uint8_t kCdcType = 0xFE;
// A.3, A.4: every v1 LLC message and every CDC message is 44 octets.
inline constexpr std::size_t kLlcMessageSize = 44;
inline constexpr std::size_t kCdcMessageSize = 44;

inline constexpr ValueName kLlcTypeNames[] = {
    {0x01, "CONFIRM LINK"},          {0x02, "ADD LINK"},          {0x03, "ADD LINK CONTINUATION"},
    {0x04, "DELETE LINK"},           {0x05, "REQUEST ADD LINK"},  {0x06, "CONFIRM RKEY"},
    {0x07, "TEST LINK"},             {0x08, "CONFIRM RKEY CONTINUATION"}, {0x09, "DELETE RKEY"},
    {0x21, "CONFIRM LINK v2"},       {0x22, "ADD LINK v2"},       {0x24, "DELETE LINK v2"},
    {0x25, "REQUEST ADD LINK v2"},   {0x26, "CONFIRM RKEY v2"},   {0x27, "TEST LINK v2"},
    {0x29, "DELETE RKEY v2"},        {0xFE, "CDC"},
};

// The version 1 LLC header (A.3.1-A.3.8, octets 0-3). Octet 2 is reserved in
// every message but ADD LINK, where its low nibble is the reject reason.
struct LlcHeaderV1Spec {
  enum class Field : std::uint8_t { Type, Length, Reserved, ReasonCode, Flags };
  static constexpr FieldDecl fields[] = {
      {"Type", "llc.type", 0, 8, "LLC message type", cite::kLlcMessages, Display::kHex, kLlcTypeNames},
      {"Length", "llc.length", 8, 8, "octets in the message: 44", cite::kLlcMessages},
      {"Reserved (octet 2)", "llc.reserved_hdr", 16, 4, "reserved", cite::kLlcMessages, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"RsnCode", "llc.add_link.rsn_code", 20, 4,
       "ADD LINK reply with Z set: why it was rejected (1 no alternate path, 2 invalid MTU); reserved otherwise",
       cite::kAddLink},
      {"Flags", "llc.flags", 24, 8, "per message type: R (reply) and the type's own flags, see the overlays",
       cite::kLlcMessages, Display::kHex},
  };
  static constexpr HeaderDecl decl{"LLC header", "smcr.llc.hdr", 4, fields, cite::kLlcMessages};
};

// The version 2 LLC header (Linux smc_llc_hdr with length_v2). Length is a
// 16-bit field in octets 1-2 that Linux stores in host order; on the real
// capture (x86 hosts) it is little-endian, so it is declared as its two
// octets and the codec assembles it (messages.cpp says how).
struct LlcHeaderV2Spec {
  enum class Field : std::uint8_t { Type, LengthLow, LengthHigh, Flags };
  static constexpr FieldDecl fields[] = {
      {"Type", "llc.type", 0, 8, "LLC message type, version 2 in the high nibble", cite::kV2LlcTypes, Display::kHex,
       kLlcTypeNames},
      {"Length (low octet)", "llc.length_v2_lo", 8, 8, "octets in the message, low-order octet (44-8192)",
       cite::kV2LlcHeader},
      {"Length (high octet)", "llc.length_v2_hi", 16, 8, "octets in the message, high-order octet",
       cite::kV2LlcHeader},
      {"Flags", "llc.flags", 24, 8, "per message type, as in version 1", cite::kV2LlcHeader, Display::kHex},
  };
  static constexpr HeaderDecl decl{"LLC v2 header", "smcr.llc.hdr_v2", 4, fields, cite::kV2LlcHeader};
};

// ---- flag overlays: header bits 24-31 per message type
inline constexpr FieldDecl kConfirmLinkFlags[] = {
    {"R", "llc.flags.reply", 24, 1, "this is the reply", cite::kConfirmLink, Display::kFlag},
    {"Reserved (flags)", "llc.flags.reserved", 25, 5, "reserved", cite::kConfirmLink, Display::kHex, {},
     Rule::kIgnoredOnReceive},
    {"No RMBE Eyecatcher", "llc.flags.no_rmbe_eyec", 30, 2,
     "Linux sets 0b11: its RMBEs carry no eyecatcher, so cursors start at 0 (RFC 7609 keeps these bits reserved)",
     cite::kLinuxNoRmbeEyecatcher, Display::kHex},
};
inline constexpr FieldDecl kAddLinkFlags[] = {
    {"R", "llc.flags.reply", 24, 1, "this is the reply", cite::kAddLink, Display::kFlag},
    {"Z", "llc.flags.reject", 25, 1, "the reply rejects the ADD LINK; RsnCode says why", cite::kAddLink,
     Display::kFlag},
    {"Reserved (flags)", "llc.flags.reserved", 26, 6, "reserved", cite::kAddLink, Display::kHex, {},
     Rule::kIgnoredOnReceive},
};
inline constexpr FieldDecl kReplyOnlyFlags[] = {
    {"R", "llc.flags.reply", 24, 1, "this is the reply", cite::kLlcMessages, Display::kFlag},
    {"Reserved (flags)", "llc.flags.reserved", 25, 7, "reserved", cite::kLlcMessages, Display::kHex, {},
     Rule::kIgnoredOnReceive},
};
inline constexpr FieldDecl kDeleteLinkFlags[] = {
    {"R", "llc.flags.reply", 24, 1, "this is the reply", cite::kDeleteLink, Display::kFlag},
    {"A", "llc.flags.all", 25, 1, "every link of the link group ends: the link group ends", cite::kDeleteLink,
     Display::kFlag},
    {"O", "llc.flags.orderly", 26, 1, "orderly termination (operator command rather than error)", cite::kDeleteLink,
     Display::kFlag},
    {"Reserved (flags)", "llc.flags.reserved", 27, 5, "reserved", cite::kDeleteLink, Display::kHex, {},
     Rule::kIgnoredOnReceive},
};
inline constexpr FieldDecl kConfirmRkeyFlags[] = {
    {"R", "llc.flags.reply", 24, 1, "this is the reply", cite::kConfirmRkey, Display::kFlag},
    {"Reserved bit", "llc.flags.reserved0", 25, 1, "reserved", cite::kConfirmRkey, Display::kFlag, {},
     Rule::kIgnoredOnReceive},
    {"Z", "llc.flags.negative", 26, 1, "negative reply", cite::kConfirmRkey, Display::kFlag},
    {"C", "llc.flags.retry", 27, 1, "negative reply: retry once the configuration change completes",
     cite::kConfirmRkey, Display::kFlag},
    {"Reserved (flags)", "llc.flags.reserved", 28, 4, "reserved", cite::kConfirmRkey, Display::kHex, {},
     Rule::kIgnoredOnReceive},
};
inline constexpr FieldDecl kRkeyReplyFlags[] = {
    {"R", "llc.flags.reply", 24, 1, "this is the reply", cite::kDeleteRkey, Display::kFlag},
    {"Reserved bit", "llc.flags.reserved0", 25, 1, "reserved", cite::kDeleteRkey, Display::kFlag, {},
     Rule::kIgnoredOnReceive},
    {"Z", "llc.flags.negative", 26, 1, "negative reply", cite::kDeleteRkey, Display::kFlag},
    {"Reserved (flags)", "llc.flags.reserved", 27, 5, "reserved", cite::kDeleteRkey, Display::kHex, {},
     Rule::kIgnoredOnReceive},
};

// Compile-time proof that a flag overlay covers header bits 24-31 exactly.
constexpr bool covers_flags(std::span<const FieldDecl> fs) {
  std::uint32_t next = 24;
  for (const FieldDecl& f : fs) {
    if (f.bit_offset != next || f.bit_width == 0) return false;
    next += f.bit_width;
  }
  return next == 32;
}
static_assert(covers_flags(kConfirmLinkFlags) && covers_flags(kAddLinkFlags) && covers_flags(kReplyOnlyFlags));
static_assert(covers_flags(kDeleteLinkFlags) && covers_flags(kConfirmRkeyFlags) && covers_flags(kRkeyReplyFlags));

// The R bit, common to every overlay.
inline constexpr std::uint8_t kFlagReply = 0x80;

// ---- bodies (octets 4-43 of a 44-octet message)

struct ConfirmLinkSpec {
  enum class Field : std::uint8_t { Mac, Gid, QpNumber, LinkNumber, LinkUserId, MaxLinks, Reserved };
  static constexpr FieldDecl fields[] = {
      {"Sender's RoCE MAC address", "confirm_link.mac", 0, 48, "MAC of the sender's RNIC for this link",
       cite::kConfirmLink, Display::kHex},
      {"Sender's RoCE GID", "confirm_link.gid", 48, 128, "GID of the sender's RNIC for this link", cite::kConfirmLink,
       Display::kBytes},
      {"Sender's QP number", "confirm_link.qpn", 176, 24, "the sender's RC queue pair of this link",
       cite::kConfirmLink, Display::kHex},
      {"Link number", "confirm_link.link_num", 200, 8, "the link's number in its link group, set by the server",
       cite::kConfirmLink},
      {"Sender's link userID", "confirm_link.link_uid", 208, 32, "the sender's own identifier of the link",
       cite::kConfirmLink, Display::kHex},
      {"Max links", "confirm_link.max_links", 240, 8, "most links the sender supports in the link group",
       cite::kConfirmLink},
      {"Reserved", "confirm_link.reserved", 248, 72, "reserved", cite::kConfirmLink, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CONFIRM LINK body", "smcr.llc.confirm_link", 40, fields, cite::kConfirmLink};
};

struct AddLinkSpec {
  enum class Field : std::uint8_t {
    Mac, Reserved1, Gid, QpNumber, LinkNumber, Reserved2, Mtu, InitialPsn, Reserved3
  };
  static constexpr FieldDecl fields[] = {
      {"Sender's RoCE MAC address", "add_link.mac", 0, 48, "MAC of the sender's RNIC for the new link",
       cite::kAddLink, Display::kHex},
      {"Reserved (after MAC)", "add_link.reserved1", 48, 16, "reserved", cite::kAddLink, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Sender's RoCE GID", "add_link.gid", 64, 128, "GID of the sender's RNIC for the new link", cite::kAddLink,
       Display::kBytes},
      {"Sender's QP number", "add_link.qpn", 192, 24, "the sender's RC queue pair for the new link", cite::kAddLink,
       Display::kHex},
      {"Link number", "add_link.link_num", 216, 8, "the new link's number, set by the server", cite::kAddLink},
      {"Reserved (before MTU)", "add_link.reserved2", 224, 4, "reserved", cite::kAddLink, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"MTU", "add_link.mtu", 228, 4, "the sender's QP MTU, enumerated as in App. A.2.3", cite::kAddLink},
      {"Initial PSN", "add_link.psn", 232, 24, "first PSN the sender will use on the new link", cite::kAddLink,
       Display::kHex},
      {"Reserved", "add_link.reserved3", 256, 64, "reserved", cite::kAddLink, Display::kHex, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"ADD LINK body", "smcr.llc.add_link", 40, fields, cite::kAddLink};
};

struct AddLinkContSpec {
  enum class Field : std::uint8_t {
    LinkNumber, NumRTokens, Reserved1, RefRKey1, NewRKey1, NewVa1, RefRKey2, NewRKey2, NewVa2, Reserved2
  };
  static constexpr FieldDecl fields[] = {
      {"Linknum", "add_link_cont.link_num", 0, 8, "the new link the RTokens are for", cite::kAddLinkCont},
      {"NumRTokens", "add_link_cont.num_rtokens", 8, 8, "RTokens still to communicate, this message's included",
       cite::kAddLinkCont},
      {"Reserved (after count)", "add_link_cont.reserved1", 16, 16, "reserved", cite::kAddLinkCont, Display::kHex,
       {}, Rule::kIgnoredOnReceive},
      {"Reference RKey 1", "add_link_cont.ref_rkey1", 32, 32, "the RMB's RKey on the link this message uses",
       cite::kAddLinkCont, Display::kHex},
      {"New RKey 1", "add_link_cont.new_rkey1", 64, 32, "the RMB's RKey on the new link", cite::kAddLinkCont,
       Display::kHex},
      {"New Virtual Address 1", "add_link_cont.new_va1", 96, 64, "the RMB's address on the new link",
       cite::kAddLinkCont, Display::kHex},
      {"Reference RKey 2", "add_link_cont.ref_rkey2", 160, 32, "second pair, or zeros", cite::kAddLinkCont,
       Display::kHex},
      {"New RKey 2", "add_link_cont.new_rkey2", 192, 32, "second pair, or zeros", cite::kAddLinkCont, Display::kHex},
      {"New Virtual Address 2", "add_link_cont.new_va2", 224, 64, "second pair, or zeros", cite::kAddLinkCont,
       Display::kHex},
      {"Reserved", "add_link_cont.reserved2", 288, 32, "reserved", cite::kAddLinkCont, Display::kHex, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"ADD LINK CONTINUATION body", "smcr.llc.add_link_cont", 40, fields,
                                   cite::kAddLinkCont};
};

inline constexpr ValueName kDeleteLinkReasons[] = {
    {0x00010000, "lost path"},
    {0x00020000, "operator initiated termination"},
    {0x00030000, "program initiated termination"},
    {0x00040000, "LLC protocol violation"},
    {0x00050000, "asymmetric link no longer needed"},
    {0x00100000, "unknown link ID"},
};

struct DeleteLinkSpec {
  enum class Field : std::uint8_t { LinkNumber, ReasonCode, Reserved };
  static constexpr FieldDecl fields[] = {
      {"Linknum", "delete_link.link_num", 0, 8, "the link to end (0 with A set)", cite::kDeleteLink},
      {"RsnCode", "delete_link.reason", 8, 32, "why the link ends", cite::kDeleteLink, Display::kHex,
       kDeleteLinkReasons},
      {"Reserved", "delete_link.reserved", 40, 280, "reserved", cite::kDeleteLink, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"DELETE LINK body", "smcr.llc.delete_link", 40, fields, cite::kDeleteLink};
};

struct ConfirmRkeySpec {
  enum class Field : std::uint8_t {
    NumTkns, RKey, VirtualAddress, Link1, RKey1, Va1, Link2, RKey2, Va2, Reserved
  };
  static constexpr FieldDecl fields[] = {
      {"NumTkns", "confirm_rkey.num_tkns", 0, 8, "other link/RToken pairs to communicate (this link's excluded)",
       cite::kConfirmRkey},
      {"New RMB RKey for this link", "confirm_rkey.rkey", 8, 32, "the new RMB's RKey on this link",
       cite::kConfirmRkey, Display::kHex},
      {"New RMB virtual address for this link", "confirm_rkey.va", 40, 64, "the new RMB's address on this link",
       cite::kConfirmRkey, Display::kHex},
      {"Link number 1", "confirm_rkey.link1", 104, 8, "another link of the group, or zero", cite::kConfirmRkey},
      {"RKey 1", "confirm_rkey.rkey1", 112, 32, "the RMB's RKey on that link", cite::kConfirmRkey, Display::kHex},
      {"Virtual address 1", "confirm_rkey.va1", 144, 64, "the RMB's address on that link", cite::kConfirmRkey,
       Display::kHex},
      {"Link number 2", "confirm_rkey.link2", 208, 8, "another link of the group, or zero", cite::kConfirmRkey},
      {"RKey 2", "confirm_rkey.rkey2", 216, 32, "the RMB's RKey on that link", cite::kConfirmRkey, Display::kHex},
      {"Virtual address 2", "confirm_rkey.va2", 248, 64, "the RMB's address on that link", cite::kConfirmRkey,
       Display::kHex},
      {"Reserved", "confirm_rkey.reserved", 312, 8, "reserved", cite::kConfirmRkey, Display::kHex, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CONFIRM RKEY body", "smcr.llc.confirm_rkey", 40, fields, cite::kConfirmRkey};
};

struct ConfirmRkeyContSpec {
  enum class Field : std::uint8_t { NumTknsLeft, Link1, RKey1, Va1, Link2, RKey2, Va2, Link3, RKey3, Va3 };
  static constexpr FieldDecl fields[] = {
      {"NumTknsLeft", "confirm_rkey_cont.num_left", 0, 8, "pairs still to communicate", cite::kConfirmRkeyCont},
      {"Link number 1", "confirm_rkey_cont.link1", 8, 8, "a link of the group", cite::kConfirmRkeyCont},
      {"RKey 1", "confirm_rkey_cont.rkey1", 16, 32, "the RMB's RKey on it", cite::kConfirmRkeyCont, Display::kHex},
      {"Virtual address 1", "confirm_rkey_cont.va1", 48, 64, "the RMB's address on it", cite::kConfirmRkeyCont,
       Display::kHex},
      {"Link number 2", "confirm_rkey_cont.link2", 112, 8, "a link, or zero", cite::kConfirmRkeyCont},
      {"RKey 2", "confirm_rkey_cont.rkey2", 120, 32, "or zeros", cite::kConfirmRkeyCont, Display::kHex},
      {"Virtual address 2", "confirm_rkey_cont.va2", 152, 64, "or zeros", cite::kConfirmRkeyCont, Display::kHex},
      {"Link number 3", "confirm_rkey_cont.link3", 216, 8, "a link, or zero", cite::kConfirmRkeyCont},
      {"RKey 3", "confirm_rkey_cont.rkey3", 224, 32, "or zeros", cite::kConfirmRkeyCont, Display::kHex},
      {"Virtual address 3", "confirm_rkey_cont.va3", 256, 64, "or zeros", cite::kConfirmRkeyCont, Display::kHex},
  };
  static constexpr HeaderDecl decl{"CONFIRM RKEY CONTINUATION body", "smcr.llc.confirm_rkey_cont", 40, fields,
                                   cite::kConfirmRkeyCont};
};

struct DeleteRkeySpec {
  enum class Field : std::uint8_t {
    Count, ErrorMask, Reserved1, RKey1, RKey2, RKey3, RKey4, RKey5, RKey6, RKey7, RKey8, Reserved2
  };
  static constexpr FieldDecl fields[] = {
      {"Count", "delete_rkey.count", 0, 8, "RMBs deleted by this message (at most 8)", cite::kDeleteRkey},
      {"Error Mask", "delete_rkey.error_mask", 8, 8, "negative reply: one bit per listed RKey not deleted, MSB first",
       cite::kDeleteRkey, Display::kHex},
      {"Reserved (after mask)", "delete_rkey.reserved1", 16, 16, "reserved", cite::kDeleteRkey, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Deleted RKey 1", "delete_rkey.rkey1", 32, 32, "", cite::kDeleteRkey, Display::kHex},
      {"Deleted RKey 2", "delete_rkey.rkey2", 64, 32, "or zeros", cite::kDeleteRkey, Display::kHex},
      {"Deleted RKey 3", "delete_rkey.rkey3", 96, 32, "or zeros", cite::kDeleteRkey, Display::kHex},
      {"Deleted RKey 4", "delete_rkey.rkey4", 128, 32, "or zeros", cite::kDeleteRkey, Display::kHex},
      {"Deleted RKey 5", "delete_rkey.rkey5", 160, 32, "or zeros", cite::kDeleteRkey, Display::kHex},
      {"Deleted RKey 6", "delete_rkey.rkey6", 192, 32, "or zeros", cite::kDeleteRkey, Display::kHex},
      {"Deleted RKey 7", "delete_rkey.rkey7", 224, 32, "or zeros", cite::kDeleteRkey, Display::kHex},
      {"Deleted RKey 8", "delete_rkey.rkey8", 256, 32, "or zeros", cite::kDeleteRkey, Display::kHex},
      {"Reserved", "delete_rkey.reserved2", 288, 32, "reserved", cite::kDeleteRkey, Display::kHex, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"DELETE RKEY body", "smcr.llc.delete_rkey", 40, fields, cite::kDeleteRkey};
};

struct TestLinkSpec {
  enum class Field : std::uint8_t { UserData, Reserved };
  static constexpr FieldDecl fields[] = {
      {"User Data", "test_link.user_data", 0, 128, "echoed back by the reply", cite::kTestLink, Display::kBytes},
      {"Reserved", "test_link.reserved", 128, 192, "reserved", cite::kTestLink, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"TEST LINK body", "smcr.llc.test_link", 40, fields, cite::kTestLink};
};

// ---- SMC v2 variable parts

// After a v2 ADD LINK's 44 octets (Linux smc_llc_msg_add_link_v2_ext):
// the target GID and the RTokens for the new link, so v2 needs no ADD LINK
// CONTINUATION. The RToken count is a 16-bit host-order field like Length.
struct AddLinkV2ExtSpec {
  enum class Field : std::uint8_t { V2Direct, Reserved1, Reserved2, ClientTargetGid, Reserved3, NumRkeysLow, NumRkeysHigh };
  static constexpr FieldDecl fields[] = {
      {"V2 Direct", "add_link_v2.v2_direct", 0, 1, "the peers share a subnet: no gateway on the new link",
       cite::kV2AddLinkExt, Display::kFlag},
      {"Reserved (after V2 Direct)", "add_link_v2.reserved1", 1, 7, "reserved", cite::kV2AddLinkExt, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Reserved (octet 1)", "add_link_v2.reserved2", 8, 8, "reserved", cite::kV2AddLinkExt, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Client Target GID", "add_link_v2.client_target_gid", 16, 128, "the client GID the new link is to reach",
       cite::kV2AddLinkExt, Display::kBytes},
      {"Reserved (after GID)", "add_link_v2.reserved3", 144, 64, "reserved", cite::kV2AddLinkExt, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Num RKeys (low octet)", "add_link_v2.num_rkeys_lo", 208, 8, "RKey/RToken pairs that follow, low octet",
       cite::kV2AddLinkExt},
      {"Num RKeys (high octet)", "add_link_v2.num_rkeys_hi", 216, 8, "RKey/RToken pairs that follow, high octet",
       cite::kV2AddLinkExt},
  };
  static constexpr HeaderDecl decl{"ADD LINK v2 extension", "smcr.llc.add_link_v2", 28, fields, cite::kV2AddLinkExt};
};

// One RKey/RToken pair (RFC 7609 App. A.3.3, Figure 34), as the v2 ADD LINK
// extension lists them.
struct RkeyPairSpec {
  enum class Field : std::uint8_t { ReferenceRKey, NewRKey, NewVirtualAddress };
  static constexpr FieldDecl fields[] = {
      {"Reference RKey", "rtoken.ref_rkey", 0, 32, "the RMB's RKey on the link this message uses", cite::kAddLinkCont,
       Display::kHex},
      {"New RKey", "rtoken.new_rkey", 32, 32, "the RMB's RKey on the new link", cite::kAddLinkCont, Display::kHex},
      {"New Virtual Address", "rtoken.new_va", 64, 64, "the RMB's address on the new link", cite::kAddLinkCont,
       Display::kHex},
  };
  static constexpr HeaderDecl decl{"RKey/RToken pair", "smcr.llc.rtoken", 16, fields, cite::kAddLinkCont};
};

// REQUEST ADD LINK v2 (Linux smc_llc_msg_req_add_link_v2), octets 4-27, then
// GID Count 16-octet GIDs.
struct ReqAddLinkV2Spec {
  enum class Field : std::uint8_t { Reserved1, GidCount, Reserved2 };
  static constexpr FieldDecl fields[] = {
      {"Reserved", "req_add_link_v2.reserved1", 0, 160, "reserved", cite::kV2ReqAddLink, Display::kBytes, {},
       Rule::kIgnoredOnReceive},
      {"GID Count", "req_add_link_v2.gid_cnt", 160, 8, "client GIDs that follow", cite::kV2ReqAddLink},
      {"Reserved (after count)", "req_add_link_v2.reserved2", 168, 24, "reserved", cite::kV2ReqAddLink, Display::kHex,
       {}, Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"REQUEST ADD LINK v2 body", "smcr.llc.req_add_link_v2", 24, fields,
                                   cite::kV2ReqAddLink};
};

// DELETE RKEY v2 (Linux smc_llc_msg_delete_rkey_v2), octets 4-7, then Count
// 4-octet RKeys.
struct DeleteRkeyV2Spec {
  enum class Field : std::uint8_t { Count, NumInvalidRkeys, Reserved };
  static constexpr FieldDecl fields[] = {
      {"Count", "delete_rkey_v2.count", 0, 8, "RKeys that follow", cite::kV2DeleteRkey},
      {"Num Invalid RKeys", "delete_rkey_v2.num_inval", 8, 8, "negative reply: how many were not deleted",
       cite::kV2DeleteRkey},
      {"Reserved", "delete_rkey_v2.reserved", 16, 16, "reserved", cite::kV2DeleteRkey, Display::kHex, {},
       Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"DELETE RKEY v2 body", "smcr.llc.delete_rkey_v2", 4, fields, cite::kV2DeleteRkey};
};

struct RkeySpec {
  enum class Field : std::uint8_t { RKey };
  static constexpr FieldDecl fields[] = {
      {"RKey", "rkey", 0, 32, "a deleted RMB's RKey on this link", cite::kV2DeleteRkey, Display::kHex},
  };
  static constexpr HeaderDecl decl{"RKey entry", "smcr.llc.rkey", 4, fields, cite::kV2DeleteRkey};
};

struct GidEntrySpec {
  enum class Field : std::uint8_t { Gid };
  static constexpr FieldDecl fields[] = {
      {"GID", "gid", 0, 128, "a client RoCE GID", cite::kV2ReqAddLink, Display::kBytes},
  };
  static constexpr HeaderDecl decl{"GID entry", "smcr.llc.gid", 16, fields, cite::kV2ReqAddLink};
};

// ================================================================== CDC

// The Connection Data Control message (RFC 7609 App. A.4, Figure 41; Linux
// struct smc_cdc_msg has the same layout).
struct CdcSpec {
  enum class Field : std::uint8_t {
    Type, Length, SequenceNumber, AlertToken, Reserved1, ProducerWrap, ProducerCursor, Reserved2, ConsumerWrap,
    ConsumerCursor, B, P, U, R, F, Reserved3, D, C, A, Reserved4, Reserved5
  };
  static constexpr FieldDecl fields[] = {
      {"Type", "cdc.type", 0, 8, "0xFE: a CDC message", cite::kCdc, Display::kHex, kLlcTypeNames},
      {"Length", "cdc.length", 8, 8, "44", cite::kCdc},
      {"Sequence number", "cdc.seqno", 16, 16, "wrapping count of control messages sent; starts at 1", cite::kCdc},
      {"SMC-R alert token", "cdc.token", 32, 32, "the receiver's token of the connection (from CLC)", cite::kCdc,
       Display::kHex},
      {"Reserved (producer)", "cdc.reserved1", 64, 16, "reserved", cite::kCdc, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Producer cursor wrap seqno", "cdc.prod_wrap", 80, 16, "times the producer cursor wrapped in the receiver's RMBE",
       cite::kCdc},
      {"Producer Cursor", "cdc.prod_cursor", 96, 32, "offset in the receiver's RMBE of the next octet to be written",
       cite::kCdc},
      {"Reserved (consumer)", "cdc.reserved2", 128, 16, "reserved", cite::kCdc, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Consumer cursor wrap seqno", "cdc.cons_wrap", 144, 16, "producer wrap count when the sender last read",
       cite::kCdc},
      {"Consumer Cursor", "cdc.cons_cursor", 160, 32, "offset in the sender's RMBE of the next octet it will consume",
       cite::kCdc},
      {"B", "cdc.writer_blocked", 192, 1, "sender is blocked for writing", cite::kCdc, Display::kFlag},
      {"P", "cdc.urg_pending", 193, 1, "sender has urgent data pending", cite::kCdc, Display::kFlag},
      {"U", "cdc.urg_present", 194, 1, "urgent data present: the producer cursor is one past its last octet",
       cite::kCdc, Display::kFlag},
      {"R", "cdc.cons_update_req", 195, 1, "requests an immediate consumer cursor update", cite::kCdc, Display::kFlag},
      {"F", "cdc.failover_validation", 196, 1, "failover validation message", cite::kCdc, Display::kFlag},
      {"Reserved (producer flags)", "cdc.reserved3", 197, 3, "reserved", cite::kCdc, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"D", "cdc.done_writing", 200, 1, "sending done: no more data into the receiver's RMBE", cite::kCdc,
       Display::kFlag},
      {"C", "cdc.conn_closed", 201, 1, "PeerConnectionClosed: the sender is done with the connection", cite::kCdc,
       Display::kFlag},
      {"A", "cdc.conn_abort", 202, 1, "abnormal close (as a TCP RST)", cite::kCdc, Display::kFlag},
      {"Reserved (state flags)", "cdc.reserved4", 203, 21, "reserved", cite::kCdc, Display::kHex, {},
       Rule::kIgnoredOnReceive},
      {"Reserved", "cdc.reserved5", 224, 128, "reserved", cite::kCdc, Display::kBytes, {}, Rule::kIgnoredOnReceive},
  };
  static constexpr HeaderDecl decl{"CDC message", "smcr.cdc", 44, fields, cite::kCdc};
};

// Every block, for the dissector generator and the catalogue.
inline constexpr const HeaderDecl* kAllDecls[] = {
    &BthSpec::decl,          &RethSpec::decl,          &AethSpec::decl,         &LlcHeaderV1Spec::decl,
    &LlcHeaderV2Spec::decl,  &ConfirmLinkSpec::decl,   &AddLinkSpec::decl,      &AddLinkContSpec::decl,
    &DeleteLinkSpec::decl,   &ConfirmRkeySpec::decl,   &ConfirmRkeyContSpec::decl, &DeleteRkeySpec::decl,
    &TestLinkSpec::decl,     &AddLinkV2ExtSpec::decl,  &RkeyPairSpec::decl,     &ReqAddLinkV2Spec::decl,
    &DeleteRkeyV2Spec::decl, &RkeySpec::decl,          &GidEntrySpec::decl,     &CdcSpec::decl,
};

constexpr bool all_tile() {
  for (const HeaderDecl* d : kAllDecls)
    if (!wire::tiles_exactly(*d)) return false;
  return true;
}
static_assert(all_tile(), "an SMC-R declaration does not tile its block");
static_assert(4 + ConfirmLinkSpec::decl.size_octets == kLlcMessageSize);

}  // namespace rdmaconf::smcr
