#include "smcr/messages.hpp"

#include <cstdio>

namespace rdmaconf::smcr {
namespace {

using wire::ByteReader;
using wire::Bytes;
using wire::DecodeError;
using wire::FieldDecl;
using wire::HeaderDecl;

// One row per LLC type: RFC 7609 App. A.3.1-A.3.8 for version 1; the Linux
// enum smc_llc_msg_type for version 2, whose bodies keep the v1 layouts
// except where a v2 structure is named.
constexpr LlcTypeInfo kLlcTypes[] = {
    {0x01, "CONFIRM LINK", &ConfirmLinkSpec::decl, kConfirmLinkFlags, cite::kConfirmLink},
    {0x02, "ADD LINK", &AddLinkSpec::decl, kAddLinkFlags, cite::kAddLink},
    {0x03, "ADD LINK CONTINUATION", &AddLinkContSpec::decl, kReplyOnlyFlags, cite::kAddLinkCont},
    {0x04, "DELETE LINK", &DeleteLinkSpec::decl, kDeleteLinkFlags, cite::kDeleteLink},
    {0x06, "CONFIRM RKEY", &ConfirmRkeySpec::decl, kConfirmRkeyFlags, cite::kConfirmRkey},
    {0x07, "TEST LINK", &TestLinkSpec::decl, kReplyOnlyFlags, cite::kTestLink},
    {0x08, "CONFIRM RKEY CONTINUATION", &ConfirmRkeyContSpec::decl, kRkeyReplyFlags, cite::kConfirmRkeyCont},
    {0x09, "DELETE RKEY", &DeleteRkeySpec::decl, kRkeyReplyFlags, cite::kDeleteRkey},
    {0x21, "CONFIRM LINK v2", &ConfirmLinkSpec::decl, kConfirmLinkFlags, cite::kV2LlcTypes},
    {0x22, "ADD LINK v2", &AddLinkSpec::decl, kAddLinkFlags, cite::kV2AddLinkExt, LlcEntries::kAddLinkV2RTokens},
    {0x24, "DELETE LINK v2", &DeleteLinkSpec::decl, kDeleteLinkFlags, cite::kV2LlcTypes},
    {0x25, "REQUEST ADD LINK v2", &ReqAddLinkV2Spec::decl, kReplyOnlyFlags, cite::kV2ReqAddLink,
     LlcEntries::kReqAddLinkV2Gids},
    {0x26, "CONFIRM RKEY v2", &ConfirmRkeySpec::decl, kConfirmRkeyFlags, cite::kV2LlcTypes},
    {0x27, "TEST LINK v2", &TestLinkSpec::decl, kReplyOnlyFlags, cite::kV2LlcTypes},
    {0x29, "DELETE RKEY v2", &DeleteRkeyV2Spec::decl, kRkeyReplyFlags, cite::kV2DeleteRkey,
     LlcEntries::kDeleteRkeyV2Rkeys},
};

// The largest v2 LLC message Linux accepts (SMC_WR_BUF_V2_SIZE): a bound
// for the entry counts, which a peer chooses.
constexpr std::size_t kMaxLlcV2Length = 8192;

const HeaderDecl& entry_decl(LlcEntries e) {
  switch (e) {
    case LlcEntries::kAddLinkV2RTokens: return RkeyPairSpec::decl;
    case LlcEntries::kReqAddLinkV2Gids: return GidEntrySpec::decl;
    case LlcEntries::kDeleteRkeyV2Rkeys:
    case LlcEntries::kNone: break;
  }
  return RkeySpec::decl;
}

const FieldDecl& v1_field(LlcHeaderV1Spec::Field f) { return LlcHeaderV1Spec::fields[static_cast<std::size_t>(f)]; }
const FieldDecl& v2_field(LlcHeaderV2Spec::Field f) { return LlcHeaderV2Spec::fields[static_cast<std::size_t>(f)]; }

// Reads `count` entries of `decl` after `r`'s position; the count is the
// peer's, so it is checked against what Length leaves first.
wire::Status take_entries(ByteReader& r, std::size_t count, const HeaderDecl& decl, const FieldDecl& count_field,
                          std::size_t count_base, LlcMessage& m) {
  if (!r.can_read(count * decl.size_octets))
    return wire::field_error(count_field, "announces more entries than the message's Length holds", count_base);
  m.entry_count = count;
  m.entry_octets = *r.take(count * decl.size_octets);
  return {};
}

wire::Status decode_entries(LlcMessage& m) {
  // Past the header and the fixed body, inside Length.
  const std::size_t fixed = 4 + m.info->body->size_octets;
  ByteReader r(m.octets.subspan(fixed), fixed);
  switch (m.info->entries) {
    case LlcEntries::kNone:
      return {};
    case LlcEntries::kAddLinkV2RTokens: {
      // A 44-octet ADD LINK v2 (the reply, or a request without RTokens) has
      // no extension; a longer one carries it (Linux smc_llc_fill_ext_v2).
      if (r.empty()) return {};
      const std::size_t at = r.offset();
      auto b = r.take(AddLinkV2Ext::kSize);
      if (!b) return wire::truncated(AddLinkV2ExtSpec::decl, at);
      m.add_link_ext = AddLinkV2Ext(b->first<AddLinkV2Ext::kSize>());
      // Linux stores num_rkeys in host order like length_v2 (see decode_llc).
      const std::size_t count = m.add_link_ext->get(AddLinkV2ExtSpec::Field::NumRkeysLow) |
                                (m.add_link_ext->get(AddLinkV2ExtSpec::Field::NumRkeysHigh) << 8);
      return take_entries(r, count, RkeyPairSpec::decl,
                          AddLinkV2ExtSpec::fields[static_cast<std::size_t>(AddLinkV2ExtSpec::Field::NumRkeysLow)],
                          at, m);
    }
    case LlcEntries::kReqAddLinkV2Gids: {
      const FieldDecl& f = ReqAddLinkV2Spec::fields[static_cast<std::size_t>(ReqAddLinkV2Spec::Field::GidCount)];
      return take_entries(r, m.get(f), GidEntrySpec::decl, f, 4, m);
    }
    case LlcEntries::kDeleteRkeyV2Rkeys: {
      const FieldDecl& f = DeleteRkeyV2Spec::fields[static_cast<std::size_t>(DeleteRkeyV2Spec::Field::Count)];
      return take_entries(r, m.get(f), RkeySpec::decl, f, 4, m);
    }
  }
  return {};
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

const LlcTypeInfo* find_llc_type(std::uint8_t type) {
  for (const LlcTypeInfo& t : kLlcTypes)
    if (t.type == type) return &t;
  return nullptr;
}

std::uint64_t LlcMessage::flag(const FieldDecl& overlay_field) const {
  return wire::read_field(octets, overlay_field);
}

wire::Result<LlcMessage> decode_llc(Bytes payload) {
  LlcMessage m;
  if (payload.size() < 4) return wire::truncated(LlcHeaderV1Spec::decl, 0);
  const std::uint8_t type = payload[0];
  if (type == kCdcType)
    return wire::field_error(v1_field(LlcHeaderV1Spec::Field::Type), "0xFE is a CDC message, not LLC", 0);
  m.info = find_llc_type(type);
  if (!m.info) {
    // A.3: the two high-order bits say what a peer does with a type it does
    // not know: 00 it must support (protocol error), 10 it drops silently.
    return wire::field_error(v1_field(LlcHeaderV1Spec::Field::Type),
                             (type & 0xC0) == 0x80 ? "unknown optional LLC type (high bits 10): silently discarded"
                                                   : "unknown LLC type: a protocol error for the receiver",
                             0);
  }
  m.version = (type & 0xF0) == llc_type::kV2 ? 2 : 1;
  m.flags = payload[3];
  if (m.version == 1) {
    // A.3: a version 1 LLC message is always 44 octets (Linux drops any other
    // Length, smc_llc_rx_handler).
    m.length = static_cast<std::uint16_t>(wire::read_field(payload, v1_field(LlcHeaderV1Spec::Field::Length)));
    if (m.length != kLlcMessageSize)
      return wire::field_error(v1_field(LlcHeaderV1Spec::Field::Length), "must be 44", 0);
  } else {
    // Linux smc_llc_hdr.length_v2 is a u16 stored in host order: the octets
    // of the real capture (x86 hosts) are little-endian (44 = 2c 00). Linux
    // takes any Length of at least 44 (smc_llc_rx_handler).
    m.length = static_cast<std::uint16_t>(wire::read_field(payload, v2_field(LlcHeaderV2Spec::Field::LengthLow)) |
                                          (wire::read_field(payload, v2_field(LlcHeaderV2Spec::Field::LengthHigh)) << 8));
    if (m.length < kLlcMessageSize)
      return wire::field_error(v2_field(LlcHeaderV2Spec::Field::LengthLow), "must be at least 44", 0);
    if (m.length > kMaxLlcV2Length)
      return wire::field_error(v2_field(LlcHeaderV2Spec::Field::LengthLow),
                               "must be at most 8192 (Linux SMC_WR_BUF_V2_SIZE)", 0);
  }
  if (payload.size() < m.length)
    return DecodeError{"Length", "the Send carried fewer octets than Length", m.version == 1 ? cite::kLlcMessages
                                                                                              : cite::kV2LlcHeader,
                       payload.size()};
  m.octets = payload.first(m.length);
  m.surplus = payload.size() - m.length;
  m.body = m.octets.subspan(4, m.info->body->size_octets);
  // Version 1 bodies tile the 40 octets; a v2 body must fit in its Length too.
  if (auto s = decode_entries(m); !s) return s.error();
  if (m.base_type() == llc_type::kDeleteRkey && m.version == 1 &&
      m.get(DeleteRkeySpec::fields[static_cast<std::size_t>(DeleteRkeySpec::Field::Count)]) > 8)
    return wire::field_error(DeleteRkeySpec::fields[0], "at most 8 RKeys in one DELETE RKEY", 4);
  return m;
}

Cursor CdcMessage::producer() const {
  return {static_cast<std::uint16_t>(header.get(CdcSpec::Field::ProducerWrap)),
          static_cast<std::uint32_t>(header.get(CdcSpec::Field::ProducerCursor))};
}
Cursor CdcMessage::consumer() const {
  return {static_cast<std::uint16_t>(header.get(CdcSpec::Field::ConsumerWrap)),
          static_cast<std::uint32_t>(header.get(CdcSpec::Field::ConsumerCursor))};
}

wire::Result<CdcMessage> decode_cdc(Bytes payload) {
  CdcMessage m;
  ByteReader r(payload);
  auto h = Cdc::decode(r);
  if (!h) return h.error();
  m.header = *h;
  if (m.header.get(CdcSpec::Field::Type) != kCdcType)
    return wire::field_error(Cdc::field_decl(CdcSpec::Field::Type), "must be 0xFE", 0);
  // A.4: Length is 44 (Linux smc_cdc_rx_handler drops any other).
  if (m.header.get(CdcSpec::Field::Length) != kCdcMessageSize)
    return wire::field_error(Cdc::field_decl(CdcSpec::Field::Length), "must be 44", 0);
  m.surplus = r.remaining();
  return m;
}

wire::Result<SmcrMessage> decode_send(Bytes payload) {
  if (!payload.empty() && payload[0] == kCdcType) {
    auto c = decode_cdc(payload);
    if (!c) return c.error();
    return SmcrMessage(*c);
  }
  auto l = decode_llc(payload);
  if (!l) return l.error();
  return SmcrMessage(*l);
}

std::string message_name(const SmcrMessage& m) {
  if (const auto* l = std::get_if<LlcMessage>(&m))
    return std::string(l->info->name) + (l->reply() ? " reply" : " request");
  return "CDC";
}

std::string describe(const SmcrMessage& m) {
  std::string out;
  if (const auto* c = std::get_if<CdcMessage>(&m)) return wire::describe(CdcSpec::decl, c->header.bytes());
  const LlcMessage& l = std::get<LlcMessage>(m);
  out = wire::describe(l.version == 1 ? LlcHeaderV1Spec::decl : LlcHeaderV2Spec::decl, l.octets.first(4));
  for (const FieldDecl& f : l.info->flags)
    out.append("  ").append(f.name).append(": ").append(std::to_string(l.flag(f))).append("  -- ")
        .append(f.meaning).append("\n");
  out += wire::describe(*l.info->body, l.body);
  if (l.add_link_ext) out += wire::describe(AddLinkV2ExtSpec::decl, l.add_link_ext->bytes());
  const HeaderDecl& e = entry_decl(l.info->entries);
  for (std::size_t i = 0; i < l.entry_count; ++i)
    out += wire::describe(e, l.entry_octets.subspan(i * e.size_octets, e.size_octets));
  return out;
}

std::string summarize(const SmcrMessage& m) {
  if (const auto* c = std::get_if<CdcMessage>(&m)) {
    std::string s = "seqno=" + std::to_string(c->sequence_number()) + " token=" + hex(c->alert_token()) +
                    " prod=" + std::to_string(c->producer().wrap) + ":" + std::to_string(c->producer().count) +
                    " cons=" + std::to_string(c->consumer().wrap) + ":" + std::to_string(c->consumer().count);
    std::string flags;
    for (CdcSpec::Field f : {CdcSpec::Field::B, CdcSpec::Field::P, CdcSpec::Field::U, CdcSpec::Field::R,
                             CdcSpec::Field::F, CdcSpec::Field::D, CdcSpec::Field::C, CdcSpec::Field::A})
      if (c->flag(f)) flags += Cdc::field_decl(f).name;
    return s + " flags=" + (flags.empty() ? "none" : flags);
  }
  const LlcMessage& l = std::get<LlcMessage>(m);
  std::string s = "length=" + std::to_string(l.length) + " flags=" + hex(l.flags);
  const std::string body = wire::summarize(*l.info->body, l.body);
  if (!body.empty()) s += " " + body;
  if (l.entry_count > 0) s += " entries=" + std::to_string(l.entry_count);
  return s;
}

}  // namespace rdmaconf::smcr
