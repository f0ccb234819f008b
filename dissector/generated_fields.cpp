#include "generated_fields.hpp"

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "clc/decline_codes.hpp"
#include "clc/headers.hpp"
#include "ddp/headers.hpp"
#include "mpa/headers.hpp"
#include "rdmap/headers.hpp"
#include "sctp/headers.hpp"
#include "smcr/headers.hpp"
#include "ulp/iser.hpp"
#include "ulp/rpcrdma.hpp"

namespace rdmaconf::dissector {
namespace {

// Which protocol each declaration belongs to and the filter prefix its
// fields take. This is the dissector's only say in the naming: the layout,
// names, meanings and value names all come from the declarations.
// `strip` is taken off the front of each field abbrev first (the LLC flag
// overlays' "llc." when their prefix already names the LLC type).
struct Binding {
  const wire::HeaderDecl* decl;
  Protocol protocol;
  std::string_view prefix;
  std::string_view strip = {};
};

// The CLC header's per-type bits are overlays (FieldDecl lists that share
// the header's octets); they get a HeaderDecl of their own here so that the
// generator treats them like any header.
constexpr wire::HeaderDecl kProposalTypeBitsDecl{"CLC header, Proposal bits", "smcclc.hdr", 8,
                                                 clc::kProposalTypeBits, clc::cite::kV2Header};
constexpr wire::HeaderDecl kAcceptConfirmTypeBitsDecl{"CLC header, Accept/Confirm bits", "smcclc.hdr", 8,
                                                      clc::kAcceptConfirmTypeBits, clc::cite::kV2Header};
constexpr wire::HeaderDecl kDeclineTypeBitsDecl{"CLC header, Decline bits", "smcclc.hdr", 8,
                                                clc::kDeclineTypeBits, clc::cite::kV2Header};
// The same for the LLC header's flags octet, whose bits mean something per
// LLC type (smcr/headers.hpp): one overlay per meaning.
constexpr wire::HeaderDecl kConfirmLinkFlagsDecl{"CONFIRM LINK flags", "smcr.llc.hdr", 4, smcr::kConfirmLinkFlags,
                                                 smcr::cite::kConfirmLink};
constexpr wire::HeaderDecl kAddLinkFlagsDecl{"ADD LINK flags", "smcr.llc.hdr", 4, smcr::kAddLinkFlags,
                                             smcr::cite::kAddLink};
constexpr wire::HeaderDecl kReplyOnlyFlagsDecl{"LLC flags", "smcr.llc.hdr", 4, smcr::kReplyOnlyFlags,
                                               smcr::cite::kLlcMessages};
constexpr wire::HeaderDecl kDeleteLinkFlagsDecl{"DELETE LINK flags", "smcr.llc.hdr", 4, smcr::kDeleteLinkFlags,
                                                smcr::cite::kDeleteLink};
constexpr wire::HeaderDecl kConfirmRkeyFlagsDecl{"CONFIRM RKEY flags", "smcr.llc.hdr", 4, smcr::kConfirmRkeyFlags,
                                                 smcr::cite::kConfirmRkey};
constexpr wire::HeaderDecl kRkeyReplyFlagsDecl{"RKEY reply flags", "smcr.llc.hdr", 4, smcr::kRkeyReplyFlags,
                                               smcr::cite::kDeleteRkey};

const Binding kBindings[] = {
    // MPA: the FPDU header and the CRC are MPA's own fields (rdmaconf.mpa.ulpdu_length,
    // rdmaconf.mpa.crc); the Request/Reply, enhanced data and Marker get their own level.
    {&mpa::ReqRepSpec::decl, Protocol::kMpa, "rdmaconf.mpa.rr"},
    {&mpa::EnhancedDataSpec::decl, Protocol::kMpa, "rdmaconf.mpa.enhanced"},
    {&mpa::FpduHeaderSpec::decl, Protocol::kMpa, "rdmaconf.mpa"},
    {&mpa::MarkerSpec::decl, Protocol::kMpa, "rdmaconf.mpa.marker"},
    {&mpa::CrcTrailerSpec::decl, Protocol::kMpa, "rdmaconf.mpa"},
    // DDP: both headers share T, L, Rsvd, DV, RsvdULP (same bits, one field each).
    {&ddp::TaggedSpec::decl, Protocol::kDdp, "rdmaconf.ddp"},
    {&ddp::UntaggedSpec::decl, Protocol::kDdp, "rdmaconf.ddp"},
    // RDMAP: the control field and the single-field headers are RDMAP's own
    // fields (rdmaconf.rdmap.opcode, .inval_stag, .immediate_data); the rest
    // get a level each because their field abbrevs overlap (rsvd).
    {&rdmap::ControlSpec::decl, Protocol::kRdmap, "rdmaconf.rdmap"},
    {&rdmap::InvalidateStagSpec::decl, Protocol::kRdmap, "rdmaconf.rdmap"},
    {&rdmap::ImmediateDataSpec::decl, Protocol::kRdmap, "rdmaconf.rdmap"},
    {&rdmap::ReadRequestSpec::decl, Protocol::kRdmap, "rdmaconf.rdmap.read"},
    {&rdmap::TerminateControlSpec::decl, Protocol::kRdmap, "rdmaconf.rdmap.term"},
    {&rdmap::TerminateSegmentLengthSpec::decl, Protocol::kRdmap, "rdmaconf.rdmap.term"},
    {&rdmap::AtomicRequestSpec::decl, Protocol::kRdmap, "rdmaconf.rdmap.atomic"},
    {&rdmap::AtomicResponseSpec::decl, Protocol::kRdmap, "rdmaconf.rdmap.atomic"},
    // CLC: the declarations' field abbrevs are already qualified per block
    // ("proposal.peer_id", "smcr.qpn"), so one prefix serves them all.
    {&clc::ClcHeaderSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&kProposalTypeBitsDecl, Protocol::kClc, "rdmaconf.clc"},
    {&kAcceptConfirmTypeBitsDecl, Protocol::kClc, "rdmaconf.clc"},
    {&kDeclineTypeBitsDecl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::TrailerSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::ProposalBodySpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::ProposalSmcdSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::IpPrefixSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::Ipv6PrefixSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::V2ExtensionSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::EidSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::SmcdV2ExtensionSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::IsmGidChidSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::SmcrAcceptConfirmSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::SmcrV2AcceptConfirmSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::SmcdAcceptConfirmSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::SmcdV1ReservedSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::SmcdV2AcceptConfirmSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::FirstContactExtSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::FirstContactExtV2xSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::GidListSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::GidSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::DeclineSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    {&clc::DeclineV2DiagnosisSpec::decl, Protocol::kClc, "rdmaconf.clc"},
    // Upper-layer protocols over RDMAP: the RPC-over-RDMA fixed words and
    // ERR_VERS range at the protocol's level, each kind of segment and the
    // RFC 8797 private data at a level of its own; the iSER headers by opcode
    // and the iSCSI BHS behind them.
    {&ulp::rpcrdma::FixedSpec::decl, Protocol::kRpcRdma, "rdmaconf.rpcrdma"},
    {&ulp::rpcrdma::ErrVersSpec::decl, Protocol::kRpcRdma, "rdmaconf.rpcrdma"},
    {&ulp::rpcrdma::ReadSegmentSpec::decl, Protocol::kRpcRdma, "rdmaconf.rpcrdma.read_segment"},
    {&ulp::rpcrdma::SegmentSpec::decl, Protocol::kRpcRdma, "rdmaconf.rpcrdma.segment"},
    {&ulp::rpcrdma::PrivateDataSpec::decl, Protocol::kRpcRdma, "rdmaconf.rpcrdma.cm"},
    {&ulp::iser::ControlSpec::decl, Protocol::kIser, "rdmaconf.iser"},
    {&ulp::iser::HelloSpec::decl, Protocol::kIser, "rdmaconf.iser.hello"},
    {&ulp::iser::HelloReplySpec::decl, Protocol::kIser, "rdmaconf.iser.helloreply"},
    {&ulp::iser::BhsSpec::decl, Protocol::kIser, "rdmaconf.iser.bhs"},
    // SMC-R over RoCEv2: the InfiniBand transport headers rdmaconf reads
    // (rdmaconf.roce.bth.opcode, .reth.va), the LLC headers and bodies
    // (rdmaconf.smcr.llc.type, rdmaconf.smcr.llc.confirm_link.link_num; v1
    // and v2 share Type and Flags), each flag overlay under its LLC type
    // (rdmaconf.smcr.llc.delete_link.flags.orderly; the reply-only one at the
    // LLC level), and the CDC message (rdmaconf.smcr.cdc.prod_cursor).
    // DDP over SCTP (RFC 5043): the DDP-SSN both payloads start with is one
    // field (rdmaconf.ddp_sctp.ddp_ssn), the Function Code and the
    // Adaptation Layer Indication beside it.
    {&sctp::SegmentChunkSpec::decl, Protocol::kDdpSctp, "rdmaconf.ddp_sctp"},
    {&sctp::SessionControlSpec::decl, Protocol::kDdpSctp, "rdmaconf.ddp_sctp"},
    {&sctp::AdaptationLayerIndicationSpec::decl, Protocol::kDdpSctp, "rdmaconf.ddp_sctp.ali"},
    {&smcr::BthSpec::decl, Protocol::kRoce, "rdmaconf.roce"},
    {&smcr::RethSpec::decl, Protocol::kRoce, "rdmaconf.roce"},
    {&smcr::AethSpec::decl, Protocol::kRoce, "rdmaconf.roce"},
    {&smcr::LlcHeaderV1Spec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr"},
    {&smcr::LlcHeaderV2Spec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr"},
    {&kReplyOnlyFlagsDecl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc", "llc."},
    {&kConfirmLinkFlagsDecl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc.confirm_link", "llc."},
    {&kAddLinkFlagsDecl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc.add_link", "llc."},
    {&kDeleteLinkFlagsDecl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc.delete_link", "llc."},
    {&kConfirmRkeyFlagsDecl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc.confirm_rkey", "llc."},
    {&kRkeyReplyFlagsDecl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc.rkey_reply", "llc."},
    {&smcr::ConfirmLinkSpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::AddLinkSpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::AddLinkContSpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::DeleteLinkSpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::ConfirmRkeySpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::ConfirmRkeyContSpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::DeleteRkeySpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::TestLinkSpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::AddLinkV2ExtSpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::RkeyPairSpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::ReqAddLinkV2Spec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::DeleteRkeyV2Spec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::RkeySpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::GidEntrySpec::decl, Protocol::kSmcrLlc, "rdmaconf.smcr.llc"},
    {&smcr::CdcSpec::decl, Protocol::kSmcrCdc, "rdmaconf.smcr"},
};

// Value names that live in a table of their own rather than in the
// declaration: the Decline's peer diagnosis codes (clc/decline_codes.hpp).
std::span<const wire::ValueName> extra_value_names(std::string_view abbrev) {
  static const std::vector<wire::ValueName> decline = [] {
    std::vector<wire::ValueName> v;
    for (const clc::DeclineCode& c : clc::decline_codes()) v.push_back({c.code, c.meaning});
    return v;
  }();
  if (abbrev.starts_with("decline.diagnosis")) return decline;
  return {};
}

// How one FieldDecl is shown: which octets of the header it touches and
// the Wireshark type and mask that cover them.
struct Layout {
  int first_octet = 0;
  int octets = 0;
  ftenum type = FT_NONE;
  int display = BASE_NONE;
  std::uint64_t bitmask = 0;
  unsigned encoding = ENC_NA;
};

Layout layout_of(const wire::FieldDecl& f) {
  Layout l;
  l.first_octet = static_cast<int>(f.bit_offset / 8);
  const int last_octet = static_cast<int>((f.bit_offset + f.bit_width - 1) / 8);
  l.octets = last_octet - l.first_octet + 1;
  if (f.is_octet_string()) {
    // tiles_exactly() guarantees octet alignment for fields wider than 64 bits.
    l.type = f.display == wire::Display::kAscii ? FT_STRING : FT_BYTES;
    l.encoding = f.display == wire::Display::kAscii ? ENC_ASCII : ENC_NA;
    return l;
  }
  static constexpr ftenum kByOctets[] = {FT_NONE,   FT_UINT8,  FT_UINT16, FT_UINT24, FT_UINT32,
                                         FT_UINT40, FT_UINT48, FT_UINT56, FT_UINT64};
  if (l.octets > 8) {
    // A 64-bit field off octet alignment would touch nine octets; no
    // declaration has one, and Wireshark cannot mask it.
    std::fprintf(stderr, "rdmaconf: field %.*s spans %d octets\n", static_cast<int>(f.name.size()),
                 f.name.data(), l.octets);
    std::abort();
  }
  l.type = kByOctets[l.octets];
  // tiles_exactly() guarantees a little-endian field is whole octets, so it
  // never needs a bitmask.
  l.encoding = f.little_endian() ? ENC_LITTLE_ENDIAN : ENC_BIG_ENDIAN;
  l.display = f.display == wire::Display::kHex ? BASE_HEX : BASE_DEC;
  if (f.bit_width != static_cast<std::uint32_t>(l.octets) * 8) {
    const std::uint32_t trailing = static_cast<std::uint32_t>(l.octets) * 8 - (f.bit_offset % 8) - f.bit_width;
    l.bitmask = f.max_value() << trailing;
  }
  return l;
}

struct FieldEntry {
  int hf = -1;
  Layout layout;
  std::string abbrev;
};

struct HeaderEntry {
  int ett = -1;
};

struct Registry {
  // Stable storage: Wireshark keeps pointers into the hf arrays and strings.
  std::deque<std::string> strings;
  std::deque<std::vector<value_string>> value_strings;
  std::deque<std::vector<val64_string>> value64_strings;
  std::deque<int> ids;
  std::deque<std::vector<hf_register_info>> arrays;
  std::unordered_map<const wire::FieldDecl*, FieldEntry*> by_field;
  std::unordered_map<std::string, FieldEntry> by_abbrev;
  std::unordered_map<const wire::HeaderDecl*, HeaderEntry> headers;
  std::deque<int> etts;
};

Registry& registry() {
  static Registry* r = new Registry;  // lives as long as the process, as Wireshark's fields do
  return *r;
}

const char* keep(std::string s) {
  Registry& r = registry();
  r.strings.push_back(std::move(s));
  return r.strings.back().c_str();
}

const void* strings_for(const wire::FieldDecl& f, std::string_view abbrev_tail, const Layout& l, int& display) {
  std::span<const wire::ValueName> names = f.value_names;
  if (names.empty()) names = extra_value_names(abbrev_tail);
  if (names.empty() || f.is_octet_string()) return nullptr;
  Registry& r = registry();
  if (l.type == FT_UINT40 || l.type == FT_UINT48 || l.type == FT_UINT56 || l.type == FT_UINT64) {
    std::vector<val64_string> v;
    for (const wire::ValueName& n : names) v.push_back({n.value, keep(std::string(n.name))});
    v.push_back({0, nullptr});
    r.value64_strings.push_back(std::move(v));
    display |= BASE_VAL64_STRING;
    return r.value64_strings.back().data();
  }
  std::vector<value_string> v;
  for (const wire::ValueName& n : names)
    v.push_back({static_cast<guint32>(n.value), keep(std::string(n.name))});
  v.push_back({0, nullptr});
  r.value_strings.push_back(std::move(v));
  return r.value_strings.back().data();
}

bool same_layout(const Layout& a, const Layout& b) {
  return a.type == b.type && a.bitmask == b.bitmask && a.octets == b.octets && a.encoding == b.encoding;
}

}  // namespace

void register_generated_fields(std::span<const int, kProtocols> protos) {
  Registry& r = registry();
  std::vector<hf_register_info> per_proto[kProtocols];
  std::vector<gint*> ett_pointers;

  for (const Binding& b : kBindings) {
    const int p = static_cast<int>(b.protocol);
    if (!r.headers.contains(b.decl)) {
      r.etts.push_back(-1);
      r.headers[b.decl].ett = -1;
      ett_pointers.push_back(&r.etts.back());
    }
    for (const wire::FieldDecl& f : b.decl->fields) {
      std::string_view tail = f.abbrev;
      if (!b.strip.empty() && tail.starts_with(b.strip)) tail.remove_prefix(b.strip.size());
      std::string abbrev = std::string(b.prefix) + "." + std::string(tail);
      Layout l = layout_of(f);
      auto found = r.by_abbrev.find(abbrev);
      if (found != r.by_abbrev.end()) {
        // One filter name, one layout: two declarations may share a field
        // only when they agree on where its bits are.
        if (!same_layout(found->second.layout, l)) {
          std::fprintf(stderr, "rdmaconf: %s declared twice with different layouts\n", abbrev.c_str());
          std::abort();
        }
        r.by_field[&f] = &found->second;
        continue;
      }
      FieldEntry& e = r.by_abbrev[abbrev];
      e.layout = l;
      e.abbrev = abbrev;
      r.by_field[&f] = &e;
      r.ids.push_back(-1);
      int display = l.display;
      const void* strings = strings_for(f, f.abbrev, l, display);
      hf_register_info hf{};
      hf.p_id = &r.ids.back();
      hf.hfinfo.name = keep(std::string(f.name));
      hf.hfinfo.abbrev = keep(abbrev);
      hf.hfinfo.type = l.type;
      hf.hfinfo.display = display;
      hf.hfinfo.strings = strings;
      hf.hfinfo.bitmask = l.bitmask;
      hf.hfinfo.blurb = keep(std::string(f.meaning) + " [" + std::string(f.rfc_section) + "]");
      hf.hfinfo.id = -1;
      hf.hfinfo.parent = 0;
      hf.hfinfo.ref_type = HF_REF_TYPE_NONE;
      hf.hfinfo.same_name_prev_id = -1;
      hf.hfinfo.same_name_next = nullptr;
      per_proto[p].push_back(hf);
    }
  }
  for (int p = 0; p < kProtocols; ++p) {
    r.arrays.push_back(std::move(per_proto[p]));
    std::vector<hf_register_info>& a = r.arrays.back();
    proto_register_field_array(protos[p], a.data(), static_cast<int>(a.size()));
  }
  // The hf ids now hold Wireshark's field numbers; copy them to the entries.
  {
    std::size_t i = 0;
    for (const std::vector<hf_register_info>& a : r.arrays)
      for (const hf_register_info& hf : a) {
        r.by_abbrev[hf.hfinfo.abbrev].hf = *hf.p_id;
        ++i;
      }
  }
  proto_register_subtree_array(ett_pointers.data(), static_cast<int>(ett_pointers.size()));
  // ett ids were written through the pointers into r.etts, in the order the
  // headers were first bound.
  std::size_t k = 0;
  std::unordered_map<const wire::HeaderDecl*, bool> done;
  for (const Binding& b : kBindings) {
    if (done[b.decl]) continue;
    done[b.decl] = true;
    r.headers[b.decl].ett = r.etts[k++];
  }
}

int field_id(const wire::FieldDecl& f) {
  auto it = registry().by_field.find(&f);
  return it == registry().by_field.end() ? -1 : it->second->hf;
}

std::string_view field_abbrev(const wire::FieldDecl& f) {
  auto it = registry().by_field.find(&f);
  return it == registry().by_field.end() ? std::string_view{} : std::string_view{it->second->abbrev};
}

namespace {
void add_fields(proto_tree* tree, tvbuff_t* tvb, int offset, std::span<const wire::FieldDecl> fields) {
  Registry& r = registry();
  for (const wire::FieldDecl& f : fields) {
    auto it = r.by_field.find(&f);
    if (it == r.by_field.end()) continue;
    const FieldEntry& e = *it->second;
    proto_tree_add_item(tree, e.hf, tvb, offset + e.layout.first_octet, e.layout.octets, e.layout.encoding);
  }
}
}  // namespace

proto_tree* add_header(proto_tree* tree, tvbuff_t* tvb, int offset, const wire::HeaderDecl& decl,
                       const char* label) {
  if (!tree) return nullptr;
  Registry& r = registry();
  auto h = r.headers.find(&decl);
  const int ett = h == r.headers.end() ? -1 : h->second.ett;
  const int size = static_cast<int>(decl.size_octets);
  const int available = tvb_captured_length_remaining(tvb, offset);
  proto_tree* sub = proto_tree_add_subtree_format(
      tree, tvb, offset, available < size ? (available > 0 ? available : 0) : size, ett, nullptr, "%s%s",
      label ? label : std::string(decl.name).c_str(), available < size ? " [truncated]" : "");
  if (available < size) return sub;
  add_fields(sub, tvb, offset, decl.fields);
  return sub;
}

std::optional<std::uint64_t> read_field(tvbuff_t* tvb, int offset, const wire::FieldDecl& f) {
  // Only the octets the field touches must be there: a truncated header
  // still shows its first fields.
  const int need = field_offset(f) + field_length(f);
  if (offset < 0 || f.is_octet_string() || tvb_captured_length_remaining(tvb, offset) < need) return std::nullopt;
  return wire::read_field(wire::Bytes(tvb_get_ptr(tvb, offset, need), static_cast<std::size_t>(need)), f);
}

void add_overlay(proto_tree* tree, tvbuff_t* tvb, int offset, std::span<const wire::FieldDecl> overlay) {
  if (!tree) return;
  add_fields(tree, tvb, offset, overlay);
}

}  // namespace rdmaconf::dissector
