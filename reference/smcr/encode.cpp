#include "smcr/encode.hpp"

#include <algorithm>
#include <string_view>

namespace rdmaconf::smcr {
namespace {

using wire::Bytes;
using wire::FieldDecl;

// A flag of a type's overlay (headers.hpp), by its filter name; a name the
// overlay lacks does not compile.
consteval const FieldDecl& overlay(std::span<const FieldDecl> fs, std::string_view abbrev) {
  for (const FieldDecl& f : fs)
    if (f.abbrev == abbrev) return f;
  throw "no such flag in this overlay";
}

// R is the first bit of every overlay (A.3), so one declaration serves all.
constexpr const FieldDecl& kReply = overlay(kReplyOnlyFlags, "llc.flags.reply");
static_assert(kReply.bit_offset == kConfirmLinkFlags[0].bit_offset && kReply.bit_offset == kAddLinkFlags[0].bit_offset &&
              kReply.bit_offset == kDeleteLinkFlags[0].bit_offset &&
              kReply.bit_offset == kConfirmRkeyFlags[0].bit_offset && kReply.bit_offset == kRkeyReplyFlags[0].bit_offset);
constexpr const FieldDecl& kNoRmbeEyec = overlay(kConfirmLinkFlags, "llc.flags.no_rmbe_eyec");
constexpr const FieldDecl& kAddLinkReject = overlay(kAddLinkFlags, "llc.flags.reject");
constexpr const FieldDecl& kDeleteAll = overlay(kDeleteLinkFlags, "llc.flags.all");
constexpr const FieldDecl& kDeleteOrderly = overlay(kDeleteLinkFlags, "llc.flags.orderly");
constexpr const FieldDecl& kRkeyNegative = overlay(kConfirmRkeyFlags, "llc.flags.negative");
constexpr const FieldDecl& kRkeyRetry = overlay(kConfirmRkeyFlags, "llc.flags.retry");
constexpr const FieldDecl& kRkeyReplyNegative = overlay(kRkeyReplyFlags, "llc.flags.negative");
static_assert(kRkeyNegative.bit_offset == kRkeyReplyNegative.bit_offset);

template <typename Spec>
const FieldDecl& decl(typename Spec::Field f) {
  return Spec::fields[static_cast<std::size_t>(f)];
}

template <typename Spec>
std::uint64_t get(const LlcMessage& m, typename Spec::Field f) {
  return m.get(decl<Spec>(f));
}

template <typename Spec>
Gid gid_of(const LlcMessage& m, typename Spec::Field f) {
  Gid g{};
  const FieldDecl& d = decl<Spec>(f);
  const Bytes b = m.body.subspan(d.octet_offset(), g.size());
  std::copy(b.begin(), b.end(), g.begin());
  return g;
}

// The type's row in messages.cpp's table for `version`: a type without a v2
// row (the continuations) keeps its v1 form, as Linux sends it.
const LlcTypeInfo& row(std::uint8_t base, std::uint8_t version) {
  if (version == 2)
    if (const LlcTypeInfo* v2 = find_llc_type(static_cast<std::uint8_t>(llc_type::kV2 | base))) return *v2;
  return *find_llc_type(base);
}

// Builds one LLC message: the header of its version, the flag overlay of
// its type, the fixed body, a v2 variable part; Length last, over what was
// written and at least 44 octets (A.3; Linux pads every v2 message to 44).
class LlcWriter {
 public:
  LlcWriter(std::uint8_t base, std::uint8_t version) : info_(row(base, version)) {
    out_.resize(4);
    LlcHeaderV1::write(out_, LlcHeaderV1Spec::Field::Type, info_.type);
  }
  bool v2() const { return (info_.type & 0xF0) == llc_type::kV2; }

  void flag(const FieldDecl& f, std::uint64_t v) { wire::write_field(out_, f, v); }
  void reason_code(std::uint8_t rsn) {
    if (!v2()) LlcHeaderV1::write(out_, LlcHeaderV1Spec::Field::ReasonCode, rsn);
  }
  void put(Bytes b) { out_.insert(out_.end(), b.begin(), b.end()); }

  std::vector<std::uint8_t> finish(std::optional<std::uint16_t> length) {
    if (out_.size() < kLlcMessageSize) out_.resize(kLlcMessageSize);
    const std::uint16_t n = length.value_or(static_cast<std::uint16_t>(out_.size()));
    if (v2()) {
      // Linux stores length_v2 in host order: little-endian on the hosts
      // we have seen (messages.cpp, decode_llc).
      LlcHeaderV2::write(out_, LlcHeaderV2Spec::Field::LengthLow, n & 0xFF);
      LlcHeaderV2::write(out_, LlcHeaderV2Spec::Field::LengthHigh, n >> 8);
    } else {
      LlcHeaderV1::write(out_, LlcHeaderV1Spec::Field::Length, n);
    }
    return std::move(out_);
  }

 private:
  const LlcTypeInfo& info_;
  std::vector<std::uint8_t> out_;
};

std::vector<std::uint8_t> encode_one(const ConfirmLink& m, const LlcEncoding& e) {
  using F = ConfirmLinkSpec::Field;
  LlcWriter w(llc_type::kConfirmLink, e.version);
  w.flag(kReply, m.reply);
  w.flag(kNoRmbeEyec, m.no_rmbe_eyecatcher);
  wire::Header<ConfirmLinkSpec> b;
  b.set(F::Mac, m.mac).set_octets(F::Gid, m.gid).set(F::QpNumber, m.qp_number).set(F::LinkNumber, m.link_number);
  b.set(F::LinkUserId, m.link_user_id).set(F::MaxLinks, m.max_links);
  w.put(b.bytes());
  return w.finish(e.length);
}

wire::Header<RkeyPairSpec> pair_octets(const RTokenPair& p) {
  using F = RkeyPairSpec::Field;
  wire::Header<RkeyPairSpec> h;
  h.set(F::ReferenceRKey, p.reference_rkey).set(F::NewRKey, p.new_rtoken.rkey);
  h.set(F::NewVirtualAddress, p.new_rtoken.virtual_address);
  return h;
}

std::vector<std::uint8_t> encode_one(const AddLink& m, const LlcEncoding& e) {
  using F = AddLinkSpec::Field;
  LlcWriter w(llc_type::kAddLink, e.version);
  w.flag(kReply, m.reply);
  w.flag(kAddLinkReject, m.reject);
  w.reason_code(m.reason_code);
  wire::Header<AddLinkSpec> b;
  b.set(F::Mac, m.mac).set_octets(F::Gid, m.gid).set(F::QpNumber, m.qp_number).set(F::LinkNumber, m.link_number);
  b.set(F::Mtu, m.mtu).set(F::InitialPsn, m.initial_psn);
  w.put(b.bytes());
  if (m.v2_extension && w.v2()) {
    using X = AddLinkV2ExtSpec::Field;
    const AddLink::V2Extension& x = *m.v2_extension;
    const std::uint16_t n = x.num_rkeys.value_or(static_cast<std::uint16_t>(x.rtokens.size()));
    AddLinkV2Ext ext;
    ext.set(X::V2Direct, x.v2_direct).set_octets(X::ClientTargetGid, x.client_target_gid);
    // The count is host order like Length (messages.cpp, decode_entries).
    ext.set(X::NumRkeysLow, n & 0xFF).set(X::NumRkeysHigh, n >> 8);
    w.put(ext.bytes());
    for (const RTokenPair& p : x.rtokens) w.put(pair_octets(p).bytes());
  }
  return w.finish(e.length);
}

std::vector<std::uint8_t> encode_one(const AddLinkContinuation& m, const LlcEncoding& e) {
  using F = AddLinkContSpec::Field;
  LlcWriter w(llc_type::kAddLinkCont, e.version);
  w.flag(kReply, m.reply);
  wire::Header<AddLinkContSpec> b;
  b.set(F::LinkNumber, m.link_number)
      .set(F::NumRTokens, m.num_rtokens.value_or(static_cast<std::uint8_t>(m.rtokens.size())));
  const F slots[AddLinkContinuation::kPairs][3] = {{F::RefRKey1, F::NewRKey1, F::NewVa1},
                                                   {F::RefRKey2, F::NewRKey2, F::NewVa2}};
  for (std::size_t i = 0; i < m.rtokens.size() && i < AddLinkContinuation::kPairs; ++i) {
    b.set(slots[i][0], m.rtokens[i].reference_rkey).set(slots[i][1], m.rtokens[i].new_rtoken.rkey);
    b.set(slots[i][2], m.rtokens[i].new_rtoken.virtual_address);
  }
  w.put(b.bytes());
  return w.finish(e.length);
}

std::vector<std::uint8_t> encode_one(const DeleteLink& m, const LlcEncoding& e) {
  using F = DeleteLinkSpec::Field;
  LlcWriter w(llc_type::kDeleteLink, e.version);
  w.flag(kReply, m.reply);
  w.flag(kDeleteAll, m.all);
  w.flag(kDeleteOrderly, m.orderly);
  wire::Header<DeleteLinkSpec> b;
  b.set(F::LinkNumber, m.link_number).set(F::ReasonCode, m.reason_code);
  w.put(b.bytes());
  return w.finish(e.length);
}

std::vector<std::uint8_t> encode_one(const ConfirmRkey& m, const LlcEncoding& e) {
  using F = ConfirmRkeySpec::Field;
  LlcWriter w(llc_type::kConfirmRkey, e.version);
  w.flag(kReply, m.reply);
  w.flag(kRkeyNegative, m.negative);
  w.flag(kRkeyRetry, m.retry);
  wire::Header<ConfirmRkeySpec> b;
  b.set(F::NumTkns, m.num_tkns.value_or(static_cast<std::uint8_t>(m.other_links.size())));
  b.set(F::RKey, m.this_link.rkey).set(F::VirtualAddress, m.this_link.virtual_address);
  const F slots[ConfirmRkey::kOtherLinks][3] = {{F::Link1, F::RKey1, F::Va1}, {F::Link2, F::RKey2, F::Va2}};
  for (std::size_t i = 0; i < m.other_links.size() && i < ConfirmRkey::kOtherLinks; ++i) {
    b.set(slots[i][0], m.other_links[i].link_number).set(slots[i][1], m.other_links[i].rtoken.rkey);
    b.set(slots[i][2], m.other_links[i].rtoken.virtual_address);
  }
  w.put(b.bytes());
  return w.finish(e.length);
}

std::vector<std::uint8_t> encode_one(const ConfirmRkeyContinuation& m, const LlcEncoding& e) {
  using F = ConfirmRkeyContSpec::Field;
  LlcWriter w(llc_type::kConfirmRkeyCont, e.version);
  w.flag(kReply, m.reply);
  w.flag(kRkeyReplyNegative, m.negative);
  wire::Header<ConfirmRkeyContSpec> b;
  b.set(F::NumTknsLeft, m.num_tkns_left);
  const F slots[ConfirmRkeyContinuation::kLinks][3] = {
      {F::Link1, F::RKey1, F::Va1}, {F::Link2, F::RKey2, F::Va2}, {F::Link3, F::RKey3, F::Va3}};
  for (std::size_t i = 0; i < m.rtokens.size() && i < ConfirmRkeyContinuation::kLinks; ++i) {
    b.set(slots[i][0], m.rtokens[i].link_number).set(slots[i][1], m.rtokens[i].rtoken.rkey);
    b.set(slots[i][2], m.rtokens[i].rtoken.virtual_address);
  }
  w.put(b.bytes());
  return w.finish(e.length);
}

std::vector<std::uint8_t> encode_one(const DeleteRkey& m, const LlcEncoding& e) {
  LlcWriter w(llc_type::kDeleteRkey, e.version);
  w.flag(kReply, m.reply);
  w.flag(kRkeyReplyNegative, m.negative);
  if (w.v2()) {
    const auto count = m.count.value_or(static_cast<std::uint8_t>(std::min<std::size_t>(m.rkeys.size(), 255)));
    using F = DeleteRkeyV2Spec::Field;
    wire::Header<DeleteRkeyV2Spec> b;
    b.set(F::Count, count).set(F::NumInvalidRkeys, m.error_mask);
    w.put(b.bytes());
    for (std::size_t i = 0; i < m.rkeys.size() && i < 255; ++i)
      w.put(wire::Header<RkeySpec>().set(RkeySpec::Field::RKey, m.rkeys[i]).bytes());
    return w.finish(e.length);
  }
  using F = DeleteRkeySpec::Field;
  const auto count =
      m.count.value_or(static_cast<std::uint8_t>(std::min<std::size_t>(m.rkeys.size(), DeleteRkey::kRkeys)));
  wire::Header<DeleteRkeySpec> b;
  b.set(F::Count, count).set(F::ErrorMask, m.error_mask);
  const F slots[DeleteRkey::kRkeys] = {F::RKey1, F::RKey2, F::RKey3, F::RKey4,
                                       F::RKey5, F::RKey6, F::RKey7, F::RKey8};
  for (std::size_t i = 0; i < m.rkeys.size() && i < DeleteRkey::kRkeys; ++i) b.set(slots[i], m.rkeys[i]);
  w.put(b.bytes());
  return w.finish(e.length);
}

std::vector<std::uint8_t> encode_one(const TestLink& m, const LlcEncoding& e) {
  LlcWriter w(llc_type::kTestLink, e.version);
  w.flag(kReply, m.reply);
  wire::Header<TestLinkSpec> b;
  b.set_octets(TestLinkSpec::Field::UserData, m.user_data);
  w.put(b.bytes());
  return w.finish(e.length);
}

std::vector<std::uint8_t> encode_one(const RequestAddLink& m, const LlcEncoding& e) {
  // A v2 type only (Linux smc_llc_send_request_add_link).
  LlcWriter w(llc_type::kReqAddLink, 2);
  w.flag(kReply, m.reply);
  wire::Header<ReqAddLinkV2Spec> b;
  b.set(ReqAddLinkV2Spec::Field::GidCount, m.gid_count.value_or(static_cast<std::uint8_t>(m.gids.size())));
  w.put(b.bytes());
  for (std::size_t i = 0; i < m.gids.size() && i < 255; ++i) w.put(m.gids[i]);
  return w.finish(e.length);
}

// Slots up to the last one that is not all zero; the count field says the
// rest (encode writes it back when it differs from the list's size).
template <typename Zero>
std::size_t used_slots(std::size_t slots, Zero&& zero) {
  for (std::size_t i = slots; i > 0; --i)
    if (!zero(i - 1)) return i;
  return 0;
}

}  // namespace

std::uint8_t base_type(const Llc& m) {
  constexpr std::uint8_t kTypes[] = {llc_type::kConfirmLink,  llc_type::kAddLink,       llc_type::kAddLinkCont,
                                     llc_type::kDeleteLink,   llc_type::kConfirmRkey,   llc_type::kConfirmRkeyCont,
                                     llc_type::kDeleteRkey,   llc_type::kTestLink,      llc_type::kReqAddLink};
  static_assert(std::size(kTypes) == std::variant_size_v<Llc>);
  return kTypes[m.index()];
}

bool is_reply(const Llc& m) {
  return std::visit([](const auto& v) { return v.reply; }, m);
}

std::vector<std::uint8_t> encode(const Llc& m, LlcEncoding e) {
  return std::visit([&](const auto& v) { return encode_one(v, e); }, m);
}

LlcEncoding encoding_of(const LlcMessage& m) {
  LlcEncoding e;
  e.version = m.version;
  const std::vector<std::uint8_t> again = encode(fields_of(m), e);
  if (again.size() != m.length) e.length = m.length;
  return e;
}

Llc fields_of(const LlcMessage& m) {
  const bool reply = m.reply();
  switch (m.base_type()) {
    case llc_type::kConfirmLink: {
      using S = ConfirmLinkSpec;
      using F = S::Field;
      ConfirmLink c;
      c.reply = reply;
      c.no_rmbe_eyecatcher = static_cast<std::uint8_t>(m.flag(kNoRmbeEyec));
      c.mac = get<S>(m, F::Mac);
      c.gid = gid_of<S>(m, F::Gid);
      c.qp_number = static_cast<std::uint32_t>(get<S>(m, F::QpNumber));
      c.link_number = static_cast<std::uint8_t>(get<S>(m, F::LinkNumber));
      c.link_user_id = static_cast<std::uint32_t>(get<S>(m, F::LinkUserId));
      c.max_links = static_cast<std::uint8_t>(get<S>(m, F::MaxLinks));
      return c;
    }
    case llc_type::kAddLink: {
      using S = AddLinkSpec;
      using F = S::Field;
      AddLink a;
      a.reply = reply;
      a.reject = m.flag(kAddLinkReject) != 0;
      if (m.version == 1)
        a.reason_code = static_cast<std::uint8_t>(
            wire::read_field(m.octets, LlcHeaderV1::field_decl(LlcHeaderV1Spec::Field::ReasonCode)));
      a.mac = get<S>(m, F::Mac);
      a.gid = gid_of<S>(m, F::Gid);
      a.qp_number = static_cast<std::uint32_t>(get<S>(m, F::QpNumber));
      a.link_number = static_cast<std::uint8_t>(get<S>(m, F::LinkNumber));
      a.mtu = static_cast<std::uint8_t>(get<S>(m, F::Mtu));
      a.initial_psn = static_cast<std::uint32_t>(get<S>(m, F::InitialPsn));
      if (m.add_link_ext) {
        using X = AddLinkV2ExtSpec::Field;
        AddLink::V2Extension x;
        x.v2_direct = m.add_link_ext->flag(X::V2Direct);
        const Bytes g = m.add_link_ext->octets(X::ClientTargetGid);
        std::copy(g.begin(), g.end(), x.client_target_gid.begin());
        for (std::size_t i = 0; i < m.entry_count; ++i) {
          const Bytes p = m.entry_octets.subspan(i * RkeyPairSpec::decl.size_octets, RkeyPairSpec::decl.size_octets);
          using P = RkeyPairSpec::Field;
          x.rtokens.push_back({static_cast<std::uint32_t>(wire::Header<RkeyPairSpec>::read(p, P::ReferenceRKey)),
                               {static_cast<std::uint32_t>(wire::Header<RkeyPairSpec>::read(p, P::NewRKey)),
                                wire::Header<RkeyPairSpec>::read(p, P::NewVirtualAddress)}});
        }
        // The count the message carries: equal to the entries taken, which
        // decode_llc checked against Length.
        a.v2_extension = std::move(x);
      }
      return a;
    }
    case llc_type::kAddLinkCont: {
      using S = AddLinkContSpec;
      using F = S::Field;
      AddLinkContinuation c;
      c.reply = reply;
      c.link_number = static_cast<std::uint8_t>(get<S>(m, F::LinkNumber));
      const auto n = static_cast<std::uint8_t>(get<S>(m, F::NumRTokens));
      const F slots[AddLinkContinuation::kPairs][3] = {{F::RefRKey1, F::NewRKey1, F::NewVa1},
                                                       {F::RefRKey2, F::NewRKey2, F::NewVa2}};
      const std::size_t used = used_slots(AddLinkContinuation::kPairs, [&](std::size_t i) {
        return get<S>(m, slots[i][0]) == 0 && get<S>(m, slots[i][1]) == 0 && get<S>(m, slots[i][2]) == 0;
      });
      for (std::size_t i = 0; i < used; ++i)
        c.rtokens.push_back({static_cast<std::uint32_t>(get<S>(m, slots[i][0])),
                             {static_cast<std::uint32_t>(get<S>(m, slots[i][1])), get<S>(m, slots[i][2])}});
      if (n != c.rtokens.size()) c.num_rtokens = n;
      return c;
    }
    case llc_type::kDeleteLink: {
      using S = DeleteLinkSpec;
      DeleteLink d;
      d.reply = reply;
      d.all = m.flag(kDeleteAll) != 0;
      d.orderly = m.flag(kDeleteOrderly) != 0;
      d.link_number = static_cast<std::uint8_t>(get<S>(m, S::Field::LinkNumber));
      d.reason_code = static_cast<std::uint32_t>(get<S>(m, S::Field::ReasonCode));
      return d;
    }
    case llc_type::kConfirmRkey: {
      using S = ConfirmRkeySpec;
      using F = S::Field;
      ConfirmRkey c;
      c.reply = reply;
      c.negative = m.flag(kRkeyNegative) != 0;
      c.retry = m.flag(kRkeyRetry) != 0;
      c.this_link = {static_cast<std::uint32_t>(get<S>(m, F::RKey)), get<S>(m, F::VirtualAddress)};
      const auto n = static_cast<std::uint8_t>(get<S>(m, F::NumTkns));
      const F slots[ConfirmRkey::kOtherLinks][3] = {{F::Link1, F::RKey1, F::Va1}, {F::Link2, F::RKey2, F::Va2}};
      const std::size_t used = used_slots(ConfirmRkey::kOtherLinks, [&](std::size_t i) {
        return get<S>(m, slots[i][0]) == 0 && get<S>(m, slots[i][1]) == 0 && get<S>(m, slots[i][2]) == 0;
      });
      for (std::size_t i = 0; i < used; ++i)
        c.other_links.push_back({static_cast<std::uint8_t>(get<S>(m, slots[i][0])),
                                 {static_cast<std::uint32_t>(get<S>(m, slots[i][1])), get<S>(m, slots[i][2])}});
      if (n != c.other_links.size()) c.num_tkns = n;
      return c;
    }
    case llc_type::kConfirmRkeyCont: {
      using S = ConfirmRkeyContSpec;
      using F = S::Field;
      ConfirmRkeyContinuation c;
      c.reply = reply;
      c.negative = m.flag(kRkeyReplyNegative) != 0;
      c.num_tkns_left = static_cast<std::uint8_t>(get<S>(m, F::NumTknsLeft));
      const F slots[ConfirmRkeyContinuation::kLinks][3] = {
          {F::Link1, F::RKey1, F::Va1}, {F::Link2, F::RKey2, F::Va2}, {F::Link3, F::RKey3, F::Va3}};
      const std::size_t used = used_slots(ConfirmRkeyContinuation::kLinks, [&](std::size_t i) {
        return get<S>(m, slots[i][0]) == 0 && get<S>(m, slots[i][1]) == 0 && get<S>(m, slots[i][2]) == 0;
      });
      for (std::size_t i = 0; i < used; ++i)
        c.rtokens.push_back({static_cast<std::uint8_t>(get<S>(m, slots[i][0])),
                             {static_cast<std::uint32_t>(get<S>(m, slots[i][1])), get<S>(m, slots[i][2])}});
      return c;
    }
    case llc_type::kDeleteRkey: {
      DeleteRkey d;
      d.reply = reply;
      d.negative = m.flag(kRkeyReplyNegative) != 0;
      if (m.version == 2) {
        using S = DeleteRkeyV2Spec;
        d.error_mask = static_cast<std::uint8_t>(get<S>(m, S::Field::NumInvalidRkeys));
        for (std::size_t i = 0; i < m.entry_count; ++i)
          d.rkeys.push_back(static_cast<std::uint32_t>(wire::Header<RkeySpec>::read(
              m.entry_octets.subspan(i * RkeySpec::decl.size_octets), RkeySpec::Field::RKey)));
        return d;
      }
      using S = DeleteRkeySpec;
      using F = S::Field;
      d.error_mask = static_cast<std::uint8_t>(get<S>(m, F::ErrorMask));
      const auto n = static_cast<std::uint8_t>(get<S>(m, F::Count));
      const F slots[DeleteRkey::kRkeys] = {F::RKey1, F::RKey2, F::RKey3, F::RKey4,
                                           F::RKey5, F::RKey6, F::RKey7, F::RKey8};
      const std::size_t used =
          used_slots(DeleteRkey::kRkeys, [&](std::size_t i) { return get<S>(m, slots[i]) == 0; });
      for (std::size_t i = 0; i < used; ++i) d.rkeys.push_back(static_cast<std::uint32_t>(get<S>(m, slots[i])));
      if (n != d.rkeys.size()) d.count = n;
      return d;
    }
    case llc_type::kTestLink: {
      TestLink t;
      t.reply = reply;
      const FieldDecl& f = decl<TestLinkSpec>(TestLinkSpec::Field::UserData);
      const Bytes u = m.body.subspan(f.octet_offset(), t.user_data.size());
      std::copy(u.begin(), u.end(), t.user_data.begin());
      return t;
    }
    default: {  // kReqAddLink: the only other row in the table
      RequestAddLink r;
      r.reply = reply;
      for (std::size_t i = 0; i < m.entry_count; ++i) {
        Gid g{};
        const Bytes b = m.entry_octets.subspan(i * GidEntrySpec::decl.size_octets, g.size());
        std::copy(b.begin(), b.end(), g.begin());
        r.gids.push_back(g);
      }
      return r;
    }
  }
}

// ------------------------------------------------------------------- CDC

std::vector<std::uint8_t> encode(const CdcFields& c) {
  using F = CdcSpec::Field;
  Cdc h;
  h.set(F::Type, kCdcType).set(F::Length, kCdcMessageSize).set(F::SequenceNumber, c.sequence_number);
  h.set(F::AlertToken, c.alert_token);
  h.set(F::ProducerWrap, c.producer.wrap).set(F::ProducerCursor, c.producer.count);
  h.set(F::ConsumerWrap, c.consumer.wrap).set(F::ConsumerCursor, c.consumer.count);
  h.set(F::B, c.writer_blocked).set(F::P, c.urgent_data_pending).set(F::U, c.urgent_data_present);
  h.set(F::R, c.consumer_update_requested).set(F::F, c.failover_validation);
  h.set(F::D, c.sending_done).set(F::C, c.peer_connection_closed).set(F::A, c.abnormal_close);
  const Bytes b = h.bytes();
  return {b.begin(), b.end()};
}

CdcFields fields_of(const CdcMessage& m) {
  using F = CdcSpec::Field;
  CdcFields c;
  c.sequence_number = m.sequence_number();
  c.alert_token = m.alert_token();
  c.producer = m.producer();
  c.consumer = m.consumer();
  c.writer_blocked = m.flag(F::B);
  c.urgent_data_pending = m.flag(F::P);
  c.urgent_data_present = m.flag(F::U);
  c.consumer_update_requested = m.flag(F::R);
  c.failover_validation = m.flag(F::F);
  c.sending_done = m.flag(F::D);
  c.peer_connection_closed = m.flag(F::C);
  c.abnormal_close = m.flag(F::A);
  return c;
}

}  // namespace rdmaconf::smcr
