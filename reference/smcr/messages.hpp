// SMC-R link-layer messages carried in RC Send Only packets: LLC messages
// (RFC 7609 App. A.3, v1; Linux net/smc/smc_llc.c, v2) and CDC messages
// (App. A.4). The first octet tells them apart: 0xFE is CDC, anything else
// LLC (A.3: CDC types have both high-order bits set).
//
// One table row per LLC type (type octet, name, body declaration, flag
// overlay, section): decoding is the same walk for every type, and the
// variable parts of three v2 types (ADD LINK's RToken extension, REQUEST ADD
// LINK's GID list, DELETE RKEY's RKey list) are counted entries checked
// against Length before they are touched. A decoded message holds views into
// the octets it was decoded from, valid while they are.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "smcr/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/field.hpp"
#include "wire/result.hpp"

namespace rdmaconf::smcr {

using LlcHeaderV1 = wire::Header<LlcHeaderV1Spec>;
using LlcHeaderV2 = wire::Header<LlcHeaderV2Spec>;
using AddLinkV2Ext = wire::Header<AddLinkV2ExtSpec>;
using Cdc = wire::Header<CdcSpec>;

// What a type's variable part, if any, is made of.
enum class LlcEntries : std::uint8_t { kNone, kAddLinkV2RTokens, kReqAddLinkV2Gids, kDeleteRkeyV2Rkeys };

struct LlcTypeInfo {
  std::uint8_t type;                     // octet 0 as sent
  std::string_view name;                 // "CONFIRM LINK", "ADD LINK v2", ...
  const wire::HeaderDecl* body;          // the fixed body after the 4-octet header
  std::span<const wire::FieldDecl> flags;  // what header bits 24-31 mean
  std::string_view section;
  LlcEntries entries = LlcEntries::kNone;
};

// The row for a type octet, or nullptr.
const LlcTypeInfo* find_llc_type(std::uint8_t type);

struct LlcMessage {
  const LlcTypeInfo* info = nullptr;
  std::uint8_t version = 1;     // 1, or 2 when the type's high nibble is 2
  std::uint16_t length = 0;     // the Length field (v2: assembled, see messages.cpp)
  std::uint8_t flags = 0;       // header octet 3
  wire::Bytes octets;           // the message's `length` octets
  wire::Bytes body;             // the fixed body (info->body->size_octets octets)
  std::optional<AddLinkV2Ext> add_link_ext;  // ADD LINK v2 with RTokens
  std::size_t entry_count = 0;  // RToken pairs, GIDs or RKeys that follow
  wire::Bytes entry_octets;     // entry_count entries of the row's entry size
  std::size_t surplus = 0;      // octets the Send carried beyond Length

  std::uint8_t type() const { return info->type; }
  // The RFC 7609 type number (1-9), the same in both versions.
  std::uint8_t base_type() const { return static_cast<std::uint8_t>(info->type & 0x0F); }
  bool reply() const { return (flags & kFlagReply) != 0; }
  // A field of the body, or of the header (bits below 32) through the flag overlay.
  std::uint64_t get(const wire::FieldDecl& body_field) const { return wire::read_field(body, body_field); }
  std::uint64_t flag(const wire::FieldDecl& overlay_field) const;
};

// A CDC message's producer or consumer cursor: wrap count and offset.
struct Cursor {
  std::uint16_t wrap = 0;
  std::uint32_t count = 0;
  friend bool operator==(const Cursor&, const Cursor&) = default;
};

struct CdcMessage {
  Cdc header;
  std::size_t surplus = 0;  // octets the Send carried beyond the 44

  std::uint16_t sequence_number() const { return static_cast<std::uint16_t>(header.get(CdcSpec::Field::SequenceNumber)); }
  std::uint32_t alert_token() const { return static_cast<std::uint32_t>(header.get(CdcSpec::Field::AlertToken)); }
  Cursor producer() const;
  Cursor consumer() const;
  bool flag(CdcSpec::Field f) const { return header.flag(f); }
};

// Decodes the payload of one RC Send as an LLC message (its type must not be 0xFE).
wire::Result<LlcMessage> decode_llc(wire::Bytes payload);
// Decodes the payload of one RC Send as a CDC message.
wire::Result<CdcMessage> decode_cdc(wire::Bytes payload);

using SmcrMessage = std::variant<LlcMessage, CdcMessage>;
// Either, by the first octet.
wire::Result<SmcrMessage> decode_send(wire::Bytes payload);

// "CONFIRM LINK v2 request", "TEST LINK v2 reply", "CDC".
std::string message_name(const SmcrMessage& m);
// Every field, one line each (wire::describe for each block).
std::string describe(const SmcrMessage& m);
// One line of the fields that say most, for `rdmaconf decode`.
std::string summarize(const SmcrMessage& m);

}  // namespace rdmaconf::smcr
