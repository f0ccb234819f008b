#include "clc/messages.hpp"

#include <cstdio>

namespace rdmaconf::clc {
namespace {

using wire::ByteReader;
using wire::ByteWriter;
using wire::FieldDecl;
using wire::HeaderDecl;
using HF = ClcHeaderSpec::Field;

constexpr DecodeError ends_inside(const HeaderDecl& h, std::size_t offset) {
  return DecodeError{h.name, "the message's Length ends inside this block", h.rfc_section, offset};
}

constexpr DecodeError header_error(HF f, std::string_view rule) {
  const FieldDecl& d = ClcHeaderSpec::fields[static_cast<std::size_t>(f)];
  return DecodeError{d.name, rule, d.rfc_section, d.octet_offset()};
}

constexpr DecodeError type_bits_error(const FieldDecl& d, std::string_view rule) {
  return DecodeError{d.name, rule, d.rfc_section, d.octet_offset()};
}

// Reserved fields marked kMustBeZero in a block's declaration.
Result<void> check_reserved(const HeaderDecl& decl, Bytes block, std::size_t base) {
  for (const FieldDecl& f : decl.fields) {
    if (f.rule != wire::Rule::kMustBeZero) continue;
    bool zero = true;
    if (f.is_octet_string()) {
      for (std::uint8_t o : block.subspan(f.octet_offset(), f.bit_width / 8)) zero = zero && o == 0;
    } else {
      zero = wire::read_field(block, f) == 0;
    }
    if (!zero) return wire::field_error(f, "reserved: must be zero", base);
  }
  return {};
}

// Decodes one block, mapping a short read to "Length ends inside this block".
template <typename H>
Result<H> take_block(ByteReader& r, bool check_reserved_fields = true) {
  std::size_t at = r.offset();
  auto b = r.take(H::kSize);
  if (!b) return ends_inside(H::decl, at);
  H h(b->template first<H::kSize>());
  if (check_reserved_fields)
    if (auto s = check_reserved(H::decl, h.bytes(), at); !s) return s.error();
  return h;
}

// A count field says how many fixed-size entries follow: the entries must
// fit in what the Length leaves before anything is read.
template <typename H, std::size_t N>
Result<void> take_list(ByteReader& r, std::uint64_t count, const FieldDecl& count_field,
                       std::size_t count_base, std::string_view limit_rule, BoundedList<H, N>& out) {
  if (count > N) return wire::field_error(count_field, limit_rule, count_base);
  if (!r.can_read(static_cast<std::size_t>(count) * H::kSize))
    return wire::field_error(count_field, "announces more entries than the message's Length holds", count_base);
  for (std::uint64_t i = 0; i < count; ++i) {
    auto e = take_block<H>(r);
    if (!e) return e.error();
    out.push_back(*e);
  }
  return {};
}

Result<void> check_trailer(Bytes octets, std::size_t length, Trailer& out) {
  ByteReader tr(octets.subspan(length - kTrailerSize, kTrailerSize), length - kTrailerSize);
  auto t = Trailer::decode(tr);
  if (!t) return t.error();
  std::uint64_t e = t->get(TrailerSpec::Field::Eyecatcher);
  if (e != kEyecatcherSmcr && e != kEyecatcherSmcd)
    return wire::field_error(TrailerSpec::fields[0], "must be EBCDIC \"SMCR\" or \"SMCD\"", length - kTrailerSize);
  out = *t;
  return {};
}

// The octets between the last block and the trailer must be none.
Result<void> consumed_exactly(const ByteReader& r, std::string_view rule, std::string_view section) {
  if (!r.empty()) return DecodeError{"Length", rule, section, r.offset()};
  return {};
}

Result<Message> decode_proposal(const ClcHeader& h, ByteReader& r) {
  Proposal m;
  m.header = h;
  auto body = take_block<ProposalBody>(r);
  if (!body) return body.error();
  m.body = *body;
  const SmcType v1 = m.smcv1_type();
  const SmcType v2 = m.smcv2_type();
  const std::size_t offset_field_end = 40;  // the IP Area Offset is counted from here
  const std::uint64_t ip_area_offset = m.body.get(ProposalBodySpec::Field::IpAreaOffset);
  const FieldDecl& ip_area_field = ProposalBodySpec::fields[3];

  auto take_prefix_area = [&]() -> Result<void> {
    auto p = take_block<IpPrefix>(r);
    if (!p) return p.error();
    m.ip_prefix = *p;
    return take_list(r, p->get(IpPrefixSpec::Field::Ipv6PrefixCount), IpPrefixSpec::fields[3],
                     r.offset() - IpPrefixSpec::decl.size_octets,
                     "at most 8 IPv6 prefixes (Linux SMC_CLC_MAX_V6_PREFIX)", m.ipv6_prefixes);
  };

  if (m.version() == kVersion1) {
    if (type_bits_field(h, kProposalTypeBits[0]) != 0)
      return type_bits_error(kProposalTypeBits[0], "reserved in a version 1 Proposal: must be zero");
    if (v1 == SmcType::kNone)
      return type_bits_error(kProposalTypeBits[1], "a version 1 Proposal must offer SMC-R, SMC-D or both");
    if (offers_d(v1) && ip_area_offset != ProposalSmcdSpec::decl.size_octets)
      return wire::field_error(ip_area_field, "must be 40 (the SMC-D area) when SMC-D is offered", kHeaderSize);
    if (offers_d(v1)) {
      auto d = take_block<ProposalSmcd>(r);
      if (!d) return d.error();
      m.smcd = *d;
    } else {
      auto g = r.take(static_cast<std::size_t>(ip_area_offset));
      if (!g) return wire::field_error(ip_area_field, "points past the message's Length", kHeaderSize);
      m.v1_growth_area.assign(g->begin(), g->end());
    }
    if (auto s = take_prefix_area(); !s) return s.error();
    if (auto s = consumed_exactly(r, "must equal the Proposal's parts: fixed part, IP area offset, prefixes, trailer",
                                  cite::kProposal);
        !s)
      return s.error();
    return Message(std::move(m));
  }

  // Version 2 (Linux smc_clc_msg_prop_valid): the SMC-D area always follows
  // the body; each further area is present when its path type says so, and
  // Length must equal their sum.
  if (v1 == SmcType::kNone && v2 == SmcType::kNone)
    return type_bits_error(kProposalTypeBits[0], "a Proposal must offer at least one path");
  auto d = take_block<ProposalSmcd>(r);
  if (!d) return d.error();
  m.smcd = *d;
  if (v1 != SmcType::kNone) {
    if (ip_area_offset != ProposalSmcdSpec::decl.size_octets)
      return wire::field_error(ip_area_field, "must be 40 (the SMC-D area) when an SMCv1 path is offered",
                               kHeaderSize);
    if (auto s = take_prefix_area(); !s) return s.error();
  }
  if (v2 != SmcType::kNone) {
    const std::size_t v2_offset_end = offset_field_end + 12;  // end of the SMCv2 Extension Offset field
    const std::uint64_t v2_off = m.smcd->get(ProposalSmcdSpec::Field::V2ExtOffset);
    if (v2_off != r.offset() - v2_offset_end)
      return wire::field_error(ProposalSmcdSpec::fields[2],
                               "must point just past the IP prefix area (areas are back to back)",
                               offset_field_end);
    auto x = take_block<V2Extension>(r);
    if (!x) return x.error();
    m.v2_ext = *x;
    const std::size_t x_at = r.offset() - V2ExtensionSpec::decl.size_octets;
    if (auto s = take_list(r, x->get(V2ExtensionSpec::Field::EidCount), V2ExtensionSpec::fields[0], x_at,
                           "at most 8 user EIDs (Linux SMC_CLC_MAX_UEID)", m.user_eids);
        !s)
      return s.error();
    if (offers_d(v2)) {
      const std::uint64_t sd_off = x->get(V2ExtensionSpec::Field::SmcdV2ExtOffset);
      if (sd_off != r.offset() - (x_at + 8))
        return wire::field_error(V2ExtensionSpec::fields[7], "must point just past the user EID list", x_at);
      auto sd = take_block<SmcdV2Extension>(r);
      if (!sd) return sd.error();
      m.smcd_v2_ext = *sd;
      if (auto s = take_list(r, x->get(V2ExtensionSpec::Field::IsmGidCount), V2ExtensionSpec::fields[1], x_at,
                             "at most 8 ISMv2 GID entries (Linux SMCD_CLC_MAX_V2_GID_ENTRIES)", m.ism_gids);
          !s)
        return s.error();
    }
  }
  if (auto s = consumed_exactly(r, "must equal the sum of the Proposal's areas", cite::kV2ProposalLength); !s)
    return s.error();
  return Message(std::move(m));
}

Result<Message> decode_accept_confirm(const ClcHeader& h, ByteReader& r, DecodeRules rules) {
  AcceptConfirm m;
  m.header = h;
  const bool v2 = m.version() >= kVersion2;
  const bool confirm = m.type() == MessageType::kConfirm;
  const SmcType path = m.smc_type();
  if (path != SmcType::kR && path != SmcType::kD)
    return type_bits_error(kAcceptConfirmTypeBits[2], "must name one path: SMC-R (0) or SMC-D (1)");
  if (m.first_contact() && !v2) {
    // v1: the flag is the RFC's first-contact flag; nothing extra follows.
  }
  if (path == SmcType::kR) {
    auto b = take_block<SmcrBody>(r);
    if (!b) return b.error();
    const std::uint64_t mtu = b->get(SmcrAcceptConfirmSpec::Field::QpMtu);
    if (qp_mtu_octets(static_cast<std::uint8_t>(mtu)) == 0)
      return wire::field_error(SmcrAcceptConfirmSpec::fields[8], "must be an InfiniBand MTU code, 1 to 5",
                               kHeaderSize);
    m.smcr = *b;
    if (!v2) {
      if (auto s = consumed_exactly(r, "an SMC-R version 1 Accept/Confirm is 68 octets", cite::kAccept); !s)
        return s.error();
    } else {
      auto p = take_block<SmcrV2Part>(r);
      if (!p) return DecodeError{"Length", "an SMC-Rv2 Accept/Confirm is at least 108 octets",
                                 cite::kV2AcceptConfirmLength, 5};
      m.smcr_v2 = *p;
    }
  } else {
    auto b = take_block<SmcdBody>(r);
    if (!b) return b.error();
    m.smcd = *b;
    if (!v2) {
      auto p = take_block<SmcdV1Reserved>(r);
      if (!p) return p.error();
      m.smcd_v1 = *p;
      if (auto s = consumed_exactly(r, "an SMC-D version 1 Accept/Confirm is 48 octets", cite::kV2AcceptConfirm); !s)
        return s.error();
    } else {
      auto p = take_block<SmcdV2Part>(r);
      if (!p) return DecodeError{"Length", "an SMC-Dv2 Accept/Confirm is at least 78 octets",
                                 cite::kV2AcceptConfirmLength, 5};
      m.smcd_v2 = *p;
    }
  }
  if (v2 && m.first_contact()) {
    auto f = take_block<FirstContactExt>(r);
    if (!f) return DecodeError{"Length", "First Contact is set but the first-contact extension is missing",
                               cite::kV2FirstContactExt, 5};
    m.fce = *f;
    // SMC-R always sends the v2.1 tail; SMC-D only from release 1 on
    // (Linux smc_clc_fill_fce).
    if (path == SmcType::kR || f->get(FirstContactExtSpec::Field::Release) >= kRelease1) {
      auto t = take_block<FirstContactExtV2x>(r);
      if (!t) return t.error();
      m.fce_v2x = *t;
    }
    if (path == SmcType::kR && confirm) {
      auto g = take_block<GidList>(r);
      if (!g) return g.error();
      m.gid_list = *g;
      if (auto s = take_list(r, g->get(GidListSpec::Field::GidCount), GidListSpec::fields[0],
                             r.offset() - GidListSpec::decl.size_octets,
                             "at most 8 GIDs in the first-contact GID list", m.gids);
          !s)
        return s.error();
    }
  }
  // A v2 sender ends the message where its blocks end; a receiver takes a
  // longer one and ignores the surplus (Linux smc_clc_msg_acc_conf_valid
  // asks only for a minimum Length, and smc_clc_wait_msg reads to the
  // Length, discarding what its buffer cannot hold).
  if (v2 && rules == DecodeRules::kSender) {
    if (auto s = consumed_exactly(r, "must end where the blocks its flags announce end", cite::kV2AcceptConfirmLength);
        !s)
      return s.error();
  }
  return Message(std::move(m));
}

Result<Message> decode_decline(const ClcHeader& h, ByteReader& r, DecodeRules rules) {
  Decline m;
  m.header = h;
  const SmcType path = static_cast<SmcType>(type_bits_field(h, kDeclineTypeBits[2]));
  if (path != SmcType::kR && path != SmcType::kD)
    return type_bits_error(kDeclineTypeBits[2], "must be SMC-R (0) or SMC-D (1)");
  // A Decline's receiver does not check its reserved bits (DecodeRules).
  auto b = take_block<DeclineBody>(r, rules == DecodeRules::kSender);
  if (!b) return b.error();
  m.body = *b;
  if (m.version() == kVersion1) {
    if (rules == DecodeRules::kSender && b->get(DeclineSpec::Field::OsType) != 0)
      return wire::field_error(DeclineSpec::fields[2], "reserved in a version 1 Decline: must be zero", kHeaderSize);
    if (auto s = consumed_exactly(r, "a version 1 Decline is 28 octets", cite::kDecline); !s) return s.error();
  } else {
    auto d = take_block<DeclineV2Diagnosis>(r);
    if (!d) return DecodeError{"Length", "a version 2 Decline is 44 octets", cite::kV2Decline, 5};
    m.v2_diagnosis = *d;
    if (auto s = consumed_exactly(r, "a version 2 Decline is 44 octets", cite::kV2Decline); !s) return s.error();
  }
  return Message(std::move(m));
}

void put(ByteWriter& w, Bytes b) { w.put(b); }

}  // namespace

bool rmb_wraps(const SmcrBody& b) {
  using RF = SmcrAcceptConfirmSpec::Field;
  const std::uint64_t size = uncompress_buffer_size(static_cast<std::uint8_t>(b.get(RF::RmbeSize)));
  return b.get(RF::RmbVirtualAddress) > ~std::uint64_t{0} - size + 1;
}

bool rmb_valid(const SmcrBody& b) {
  return b.get(SmcrAcceptConfirmSpec::Field::RmbeIndex) >= 1 && !rmb_wraps(b);
}

// ------------------------------------------------ header bit overlays

std::uint64_t type_bits_field(const ClcHeader& h, const FieldDecl& f) { return wire::read_field(h.bytes(), f); }

void set_type_bits_field(ClcHeader& h, const FieldDecl& f, std::uint64_t v) {
  const std::uint32_t shift = 64 - (f.bit_offset + f.bit_width);  // position inside the low nibble
  const std::uint64_t mask = f.max_value() << shift;
  std::uint64_t nibble = h.get(HF::TypeBits);
  nibble = (nibble & ~mask) | ((v << shift) & mask);
  h.set(HF::TypeBits, nibble);
}

std::span<const FieldDecl> type_bits_decl(MessageType t) {
  switch (t) {
    case MessageType::kProposal: return kProposalTypeBits;
    case MessageType::kAccept:
    case MessageType::kConfirm: return kAcceptConfirmTypeBits;
    case MessageType::kDecline: return kDeclineTypeBits;
  }
  return {};
}

SmcType Proposal::smcv1_type() const { return static_cast<SmcType>(type_bits_field(header, kProposalTypeBits[1])); }
SmcType Proposal::smcv2_type() const {
  // A version 1 Proposal has no SMCv2 paths, whatever the reserved bits hold.
  if (version() < kVersion2) return SmcType::kNone;
  return static_cast<SmcType>(type_bits_field(header, kProposalTypeBits[0]));
}
bool Proposal::v1_smcr_identity() const { return offers_r(smcv1_type()); }
bool AcceptConfirm::first_contact() const { return type_bits_field(header, kAcceptConfirmTypeBits[0]) != 0; }
SmcType AcceptConfirm::smc_type() const {
  return static_cast<SmcType>(type_bits_field(header, kAcceptConfirmTypeBits[2]));
}
bool Decline::out_of_sync() const { return type_bits_field(header, kDeclineTypeBits[0]) != 0; }

MessageType message_type(const Message& m) {
  if (std::holds_alternative<Proposal>(m)) return MessageType::kProposal;
  if (const auto* ac = std::get_if<AcceptConfirm>(&m)) return ac->type();
  return MessageType::kDecline;
}

// ------------------------------------------------------------ decode

Result<std::size_t> message_length(Bytes first) {
  ByteReader r(first);
  auto h = ClcHeader::decode(r);
  if (!h) return h.error();
  const std::uint64_t e = h->get(HF::Eyecatcher);
  if (e != kEyecatcherSmcr && e != kEyecatcherSmcd)
    return header_error(HF::Eyecatcher, "must be EBCDIC \"SMCR\" or \"SMCD\"");
  const std::uint64_t type = h->get(HF::Type);
  if (type < 1 || type > 4) return header_error(HF::Type, "must be 1 (Proposal) to 4 (Decline)");
  const std::uint64_t version = h->get(HF::Version);
  if (version != kVersion1 && version != kVersion2) return header_error(HF::Version, "must be 1 or 2");
  const std::uint64_t length = h->get(HF::Length);
  if (length < kDeclineV1Length)
    return header_error(HF::Length, "shorter than the smallest CLC message (a 28-octet Decline)");
  if (length > kMaxMessageLength)
    return header_error(HF::Length, "longer than the largest CLC message the limits allow (652 octets)");
  return static_cast<std::size_t>(length);
}

Result<Message> decode(Bytes octets, DecodeRules rules) {
  auto len = message_length(octets);
  if (!len) return len.error();
  const std::size_t length = *len;
  if (length > octets.size()) return header_error(HF::Length, "exceeds the octets received");
  ByteReader hr(octets.first(kHeaderSize));
  ClcHeader h = *ClcHeader::decode(hr);  // length checked by message_length
  Trailer trailer;
  if (auto s = check_trailer(octets, length, trailer); !s) return s.error();
  const auto type = static_cast<MessageType>(h.get(HF::Type));
  const bool ignore_reserved = rules == DecodeRules::kReceiver && type == MessageType::kDecline;
  for (const FieldDecl& f : type_bits_decl(type))
    if (!ignore_reserved && f.rule == wire::Rule::kMustBeZero && type_bits_field(h, f) != 0)
      return type_bits_error(f, "reserved: must be zero");
  ByteReader body(octets.subspan(kHeaderSize, length - kHeaderSize - kTrailerSize), kHeaderSize);
  Result<Message> m = [&]() -> Result<Message> {
    switch (type) {
      case MessageType::kProposal: return decode_proposal(h, body);
      case MessageType::kAccept:
      case MessageType::kConfirm: return decode_accept_confirm(h, body, rules);
      case MessageType::kDecline: return decode_decline(h, body, rules);
    }
    return header_error(HF::Type, "must be 1 (Proposal) to 4 (Decline)");
  }();
  if (!m) return m;
  std::visit([&](auto& msg) { msg.trailer = trailer; }, *m);
  return m;
}

// ------------------------------------------------------------ finalize

void finalize(Proposal& m) {
  std::size_t len = kHeaderSize + ProposalBodySpec::decl.size_octets;
  std::size_t ip_area = m.smcd ? ProposalSmcdSpec::decl.size_octets : m.v1_growth_area.size();
  if (m.version() >= kVersion2) ip_area = ProposalSmcdSpec::decl.size_octets;
  len += ip_area;
  std::size_t prefix_area = 0;
  if (m.ip_prefix) {
    m.ip_prefix->set(IpPrefixSpec::Field::Ipv6PrefixCount, m.ipv6_prefixes.size());
    prefix_area = IpPrefixSpec::decl.size_octets + m.ipv6_prefixes.size() * Ipv6PrefixSpec::decl.size_octets;
  }
  m.body.set(ProposalBodySpec::Field::IpAreaOffset, m.ip_prefix ? ip_area : 0);
  len += prefix_area;
  if (m.smcd) {
    // Counted from the end of the SMCv2 Extension Offset field, 12 octets
    // into the SMC-D area (Linux smc_clc_send_proposal).
    m.smcd->set(ProposalSmcdSpec::Field::V2ExtOffset,
                m.v2_ext ? ProposalSmcdSpec::decl.size_octets - 12 + prefix_area : 0);
  }
  if (m.v2_ext) {
    m.v2_ext->set(V2ExtensionSpec::Field::EidCount, m.user_eids.size());
    m.v2_ext->set(V2ExtensionSpec::Field::IsmGidCount, m.smcd_v2_ext ? m.ism_gids.size() : 0);
    m.v2_ext->set(V2ExtensionSpec::Field::SmcdV2ExtOffset,
                  m.smcd_v2_ext ? V2ExtensionSpec::decl.size_octets - 8 + m.user_eids.size() * EidSpec::decl.size_octets
                                : 0);
    len += V2ExtensionSpec::decl.size_octets + m.user_eids.size() * EidSpec::decl.size_octets;
  }
  if (m.smcd_v2_ext)
    len += SmcdV2ExtensionSpec::decl.size_octets + m.ism_gids.size() * IsmGidChidSpec::decl.size_octets;
  len += kTrailerSize;
  m.header.set(HF::Type, static_cast<std::uint64_t>(MessageType::kProposal));
  m.header.set(HF::Length, len);
  m.trailer.set(TrailerSpec::Field::Eyecatcher, m.header.get(HF::Eyecatcher));
}

void finalize(AcceptConfirm& m) {
  std::size_t len = kHeaderSize + kTrailerSize;
  if (m.smcr) len += SmcrAcceptConfirmSpec::decl.size_octets;
  if (m.smcr_v2) len += SmcrV2AcceptConfirmSpec::decl.size_octets;
  if (m.smcd) len += SmcdAcceptConfirmSpec::decl.size_octets;
  if (m.smcd_v1) len += SmcdV1ReservedSpec::decl.size_octets;
  if (m.smcd_v2) len += SmcdV2AcceptConfirmSpec::decl.size_octets;
  if (m.fce) len += FirstContactExtSpec::decl.size_octets;
  if (m.fce_v2x) len += FirstContactExtV2xSpec::decl.size_octets;
  if (m.gid_list) {
    m.gid_list->set(GidListSpec::Field::GidCount, m.gids.size());
    len += GidListSpec::decl.size_octets + m.gids.size() * GidSpec::decl.size_octets;
  }
  set_type_bits_field(m.header, kAcceptConfirmTypeBits[2],
                      static_cast<std::uint64_t>(m.smcd ? SmcType::kD : SmcType::kR));
  m.header.set(HF::Length, len);
  m.trailer.set(TrailerSpec::Field::Eyecatcher, m.header.get(HF::Eyecatcher));
}

void finalize(Decline& m) {
  m.header.set(HF::Type, static_cast<std::uint64_t>(MessageType::kDecline));
  m.header.set(HF::Length, m.v2_diagnosis ? kDeclineV2Length : kDeclineV1Length);
  m.trailer.set(TrailerSpec::Field::Eyecatcher, m.header.get(HF::Eyecatcher));
}

// ------------------------------------------------------------ encode

std::vector<std::uint8_t> encode(const Message& msg) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        put(w, m.header.bytes());
        if constexpr (std::is_same_v<T, Proposal>) {
          put(w, m.body.bytes());
          if (m.smcd) put(w, m.smcd->bytes());
          else put(w, m.v1_growth_area);
          if (m.ip_prefix) put(w, m.ip_prefix->bytes());
          for (const auto& p : m.ipv6_prefixes) put(w, p.bytes());
          if (m.v2_ext) put(w, m.v2_ext->bytes());
          for (const auto& e : m.user_eids) put(w, e.bytes());
          if (m.smcd_v2_ext) put(w, m.smcd_v2_ext->bytes());
          for (const auto& g : m.ism_gids) put(w, g.bytes());
        } else if constexpr (std::is_same_v<T, AcceptConfirm>) {
          if (m.smcr) put(w, m.smcr->bytes());
          if (m.smcr_v2) put(w, m.smcr_v2->bytes());
          if (m.smcd) put(w, m.smcd->bytes());
          if (m.smcd_v1) put(w, m.smcd_v1->bytes());
          if (m.smcd_v2) put(w, m.smcd_v2->bytes());
          if (m.fce) put(w, m.fce->bytes());
          if (m.fce_v2x) put(w, m.fce_v2x->bytes());
          if (m.gid_list) put(w, m.gid_list->bytes());
          for (const auto& g : m.gids) put(w, g.bytes());
        } else {
          put(w, m.body.bytes());
          if (m.v2_diagnosis) put(w, m.v2_diagnosis->bytes());
        }
        put(w, m.trailer.bytes());
      },
      msg);
  return out;
}

// ------------------------------------------------------------ describe

std::string describe(const Message& msg) {
  std::string out;
  auto block = [&](const HeaderDecl& d, Bytes b) { out += wire::describe(d, b); };
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        block(ClcHeaderSpec::decl, m.header.bytes());
        for (const FieldDecl& f : type_bits_decl(message_type(msg))) {
          std::uint64_t v = type_bits_field(m.header, f);
          out.append("    ").append(f.name).append(": ").append(std::to_string(v));
          std::string_view n = wire::value_name(f, v);
          if (!n.empty()) out.append(" (").append(n).append(")");
          out.append("\n");
        }
        if constexpr (std::is_same_v<T, Proposal>) {
          block(ProposalBodySpec::decl, m.body.bytes());
          if (m.smcd) block(ProposalSmcdSpec::decl, m.smcd->bytes());
          if (m.ip_prefix) block(IpPrefixSpec::decl, m.ip_prefix->bytes());
          for (const auto& p : m.ipv6_prefixes) block(Ipv6PrefixSpec::decl, p.bytes());
          if (m.v2_ext) block(V2ExtensionSpec::decl, m.v2_ext->bytes());
          for (const auto& e : m.user_eids) block(EidSpec::decl, e.bytes());
          if (m.smcd_v2_ext) block(SmcdV2ExtensionSpec::decl, m.smcd_v2_ext->bytes());
          for (const auto& g : m.ism_gids) block(IsmGidChidSpec::decl, g.bytes());
        } else if constexpr (std::is_same_v<T, AcceptConfirm>) {
          if (m.smcr) block(SmcrAcceptConfirmSpec::decl, m.smcr->bytes());
          if (m.smcr_v2) block(SmcrV2AcceptConfirmSpec::decl, m.smcr_v2->bytes());
          if (m.smcd) block(SmcdAcceptConfirmSpec::decl, m.smcd->bytes());
          if (m.smcd_v2) block(SmcdV2AcceptConfirmSpec::decl, m.smcd_v2->bytes());
          if (m.fce) block(FirstContactExtSpec::decl, m.fce->bytes());
          if (m.fce_v2x) block(FirstContactExtV2xSpec::decl, m.fce_v2x->bytes());
          if (m.gid_list) block(GidListSpec::decl, m.gid_list->bytes());
          for (const auto& g : m.gids) block(GidSpec::decl, g.bytes());
        } else {
          block(DeclineSpec::decl, m.body.bytes());
          if (m.v2_diagnosis) block(DeclineV2DiagnosisSpec::decl, m.v2_diagnosis->bytes());
        }
        block(TrailerSpec::decl, m.trailer.bytes());
      },
      msg);
  return out;
}

// ------------------------------------------------------- MessageReader

std::size_t MessageReader::put(Bytes in) {
  std::size_t used = 0;
  while (used < in.size() && (state_ == State::kHeader || state_ == State::kBody)) {
    const std::size_t n = std::min(need_ - have_, in.size() - used);
    for (std::size_t i = 0; i < n; ++i) buf_[have_ + i] = in[used + i];
    have_ += n;
    used += n;
    if (have_ < need_) break;
    if (state_ == State::kHeader) {
      auto len = message_length(Bytes(buf_).first(have_));
      if (!len) {
        error_ = len.error();
        state_ = State::kError;
        break;
      }
      need_ = *len;
      state_ = have_ == need_ ? State::kComplete : State::kBody;
    } else {
      state_ = State::kComplete;
    }
  }
  return used;
}

void MessageReader::next() {
  have_ = 0;
  need_ = kHeaderSize;
  state_ = State::kHeader;
  error_.reset();
}

}  // namespace rdmaconf::clc
