#include "check/clc.hpp"

#include <algorithm>

#include "clc/decline_codes.hpp"

namespace rdmaconf::check {
namespace {

// The table: which function implements which rule (grep-able, one row each).
constexpr Implementation kImplementations[] = {
    {&kProposalPeerId, "proposal_peer_id"},
    {&kProposalGidMac, "proposal_gid_mac"},
    {&kAcceptVersion, "accept_version_offered"},
    {&kAcceptPath, "accept_path_offered"},
    {&kAcceptPeer, "accept_peer_valid"},
    {&kAcceptQp, "accept_qp_number"},
    {&kAcceptRmb, "accept_rmb_valid"},
    {&kAcceptEid, "accept_eid_offered"},
    {&kAcceptRelease, "accept_release"},
    {&kAcceptMaxConns, "accept_max_conns"},
    {&kAcceptMaxLinks, "accept_max_links"},
    {&kConfirmVersion, "confirm_version"},
    {&kConfirmPath, "confirm_path"},
    {&kConfirmFirstContact, "confirm_first_contact"},
    {&kConfirmPeerId, "confirm_peer_id"},
    {&kConfirmPeer, "confirm_peer_valid"},
    {&kConfirmQp, "confirm_qp_number"},
    {&kConfirmRmb, "confirm_rmb_valid"},
    {&kConfirmMtu, "confirm_mtu"},
    {&kConfirmEid, "confirm_eid"},
    {&kConfirmRelease, "confirm_release"},
    {&kConfirmMaxConns, "confirm_max_conns"},
    {&kConfirmMaxLinks, "confirm_max_links"},
    {&kDeclineOutOfSync, "decline_out_of_sync"},
    {&kDeclineCodeOnWire, "decline_code_on_wire"},
    {&kFceAbsent, "fce_absent"},
};
// ... and of the rules only a side can judge (its own configuration).
constexpr Implementation kLocalImplementations[] = {
    {&kNoSmcDevice, "client_has_path"},
    {&kProposalSmcrPath, "proposal_smcr_path"},
    {&kVersionChoice, "proposal_rules"},
    {&kPrefixMatch, "proposal_prefix_match"},
    {&kEidMatch, "proposal_eid_match"},
    {&kProposalMaxConns, "proposal_max_conns"},
    {&kProposalMaxLinks, "proposal_max_links"},
    {&kAcceptLinkGroup, "accept_link_group"},
    {&kConfirmLinkGroup, "confirm_link_group"},
};
constexpr const Rule* kLocalRules[] = {
    &kNoSmcDevice,      &kProposalSmcrPath, &kVersionChoice,   &kPrefixMatch,      &kEidMatch,
    &kProposalMaxConns, &kProposalMaxLinks, &kAcceptLinkGroup, &kConfirmLinkGroup,
};
constexpr const Rule* kRules[] = {
    &kProposalPeerId,   &kProposalGidMac,   &kAcceptVersion,   &kAcceptPath,      &kAcceptPeer,
    &kAcceptQp,         &kAcceptRmb,        &kAcceptEid,       &kAcceptRelease,   &kAcceptMaxConns,
    &kAcceptMaxLinks,   &kConfirmVersion,   &kConfirmPath,     &kConfirmFirstContact, &kConfirmPeerId,
    &kConfirmPeer,      &kConfirmQp,        &kConfirmRmb,      &kConfirmMtu,      &kConfirmEid,
    &kConfirmRelease,   &kConfirmMaxConns,  &kConfirmMaxLinks, &kDeclineOutOfSync, &kDeclineCodeOnWire,
    &kFceAbsent,
};

using HF = clc::ClcHeaderSpec::Field;
using PF = clc::ProposalBodySpec::Field;
using RF = clc::SmcrAcceptConfirmSpec::Field;
using EF = clc::SmcrV2AcceptConfirmSpec::Field;
using FF = clc::FirstContactExtSpec::Field;
using XF = clc::FirstContactExtV2xSpec::Field;

// A Violation at a field, named and placed (in its block) by its declaration.
template <typename Spec>
Violation broke(const Rule& r, typename Spec::Field f, std::uint64_t seen, std::uint64_t expected) {
  const wire::FieldDecl& d = wire::Header<Spec>::field_decl(f);
  return Violation{&r, d.name, d.octet_offset(), seen, expected};
}
// ... at a bit field of the header's type-bits overlay (First Contact, path, Out of Sync).
Violation broke(const Rule& r, const wire::FieldDecl& d, std::uint64_t seen, std::uint64_t expected) {
  return Violation{&r, d.name, d.octet_offset(), seen, expected};
}

bool all_zero(clc::Bytes b) {
  return std::all_of(b.begin(), b.end(), [](std::uint8_t o) { return o == 0; });
}
// A MAC a RoCE port can have: neither zero nor a group address (IEEE 802:
// the I/G bit, the least significant bit of the first octet, clear).
bool unicast_mac(clc::Bytes mac) { return !all_zero(mac) && (mac[0] & 0x01) == 0; }
bool same(clc::Bytes a, clc::Bytes b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

// The paths the Proposal offered for a version (none for a version it does not know).
clc::SmcType offered_for(const clc::Proposal& p, std::uint8_t version) {
  return version == clc::kVersion1   ? p.smcv1_type()
         : version == clc::kVersion2 ? p.smcv2_type()
                                     : clc::SmcType::kNone;
}

Outcome gid_mac(const Rule& r, clc::Bytes gid, clc::Bytes mac, const wire::FieldDecl& gid_decl,
                const wire::FieldDecl& mac_decl) {
  if (all_zero(gid)) return Violation{&r, gid_decl.name, gid_decl.octet_offset(), 0, 0};
  if (!unicast_mac(mac)) return Violation{&r, mac_decl.name, mac_decl.octet_offset(), mac[0], 0};
  return std::nullopt;
}

Outcome qp_number(const Rule& r, const clc::SmcrBody& b) {
  // InfiniBand reserves QP0 and QP1 for subnet management and general services.
  if (b.get(RF::QpNumber) >= 2) return std::nullopt;
  return broke<clc::SmcrAcceptConfirmSpec>(r, RF::QpNumber, b.get(RF::QpNumber), 2);
}

Outcome rmb(const Rule& r, const clc::SmcrBody& b) {
  if (clc::rmb_valid(b)) return std::nullopt;
  if (b.get(RF::RmbeIndex) < 1) return broke<clc::SmcrAcceptConfirmSpec>(r, RF::RmbeIndex, 0, 1);
  return broke<clc::SmcrAcceptConfirmSpec>(r, RF::RmbVirtualAddress, b.get(RF::RmbVirtualAddress), 0);
}

template <typename Spec>
Outcome equal(const Rule& r, const wire::Header<Spec>& accept, const wire::Header<Spec>& confirm,
              typename Spec::Field f) {
  if (confirm.get(f) == accept.get(f)) return std::nullopt;
  return broke<Spec>(r, f, confirm.get(f), accept.get(f));
}

}  // namespace

std::span<const Implementation> clc_implementations() { return kImplementations; }
std::span<const Rule* const> clc_rules() { return kRules; }
std::span<const Implementation> clc_local_implementations() { return kLocalImplementations; }
std::span<const Rule* const> clc_local_rules() { return kLocalRules; }

std::uint32_t decline_code(const Rule& r) {
  if (!r.row || r.row->decline.empty()) return 0;
  for (const clc::DeclineCode& c : clc::decline_codes())
    if (c.linux_name == r.row->decline) return c.code;
  return 0;
}

// ---- Proposal

Outcome proposal_peer_id(const clc::Proposal& p) {
  if (!p.v1_smcr_identity() || p.body.get(PF::PeerId) != 0) return std::nullopt;
  return broke<clc::ProposalBodySpec>(kProposalPeerId, PF::PeerId, 0, 1);
}

Outcome proposal_gid_mac(const clc::Proposal& p) {
  if (!p.v1_smcr_identity()) return std::nullopt;
  return gid_mac(kProposalGidMac, p.body.octets(PF::Gid), p.body.octets(PF::Mac), clc::ProposalBody::field_decl(PF::Gid),
                 clc::ProposalBody::field_decl(PF::Mac));
}

// ---- Accept

Outcome accept_version_offered(const clc::Proposal& p, const clc::AcceptConfirm& a) {
  if (offered_for(p, a.version()) != clc::SmcType::kNone) return std::nullopt;
  return broke<clc::ClcHeaderSpec>(kAcceptVersion, HF::Version, a.version(), p.version());
}

Outcome accept_path_offered(const clc::Proposal& p, const clc::AcceptConfirm& a) {
  const clc::SmcType offered = offered_for(p, a.version());
  if (offered == clc::SmcType::kNone) return std::nullopt;  // accept_version_offered's
  const clc::SmcType path = a.smc_type();
  if ((path == clc::SmcType::kR && clc::offers_r(offered)) || (path == clc::SmcType::kD && clc::offers_d(offered)))
    return std::nullopt;
  return broke(kAcceptPath, clc::kAcceptConfirmTypeBits[2], static_cast<std::uint64_t>(path),
               static_cast<std::uint64_t>(offered));
}

Outcome accept_peer_valid(const clc::SmcrBody& b) {
  if (b.get(RF::PeerId) == 0) return broke<clc::SmcrAcceptConfirmSpec>(kAcceptPeer, RF::PeerId, 0, 1);
  return gid_mac(kAcceptPeer, b.octets(RF::Gid), b.octets(RF::Mac), clc::SmcrBody::field_decl(RF::Gid),
                 clc::SmcrBody::field_decl(RF::Mac));
}

Outcome accept_qp_number(const clc::SmcrBody& b) { return qp_number(kAcceptQp, b); }
Outcome accept_rmb_valid(const clc::SmcrBody& b) { return rmb(kAcceptRmb, b); }

Outcome accept_eid_offered(const clc::Proposal& p, const clc::AcceptConfirm& a) {
  if (a.version() != clc::kVersion2 || !a.smcr_v2) return std::nullopt;
  const clc::Bytes eid = a.smcr_v2->octets(EF::Eid);
  const bool offered = std::any_of(p.user_eids.begin(), p.user_eids.end(),
                                   [&](const clc::EidEntry& e) { return same(e.octets(clc::EidSpec::Field::Eid), eid); });
  if (offered) return std::nullopt;
  return broke<clc::SmcrV2AcceptConfirmSpec>(kAcceptEid, EF::Eid, 0, 0);
}

Outcome accept_release(const clc::Proposal& p, const clc::AcceptConfirm& a) {
  if (a.version() != clc::kVersion2 || !a.fce || !p.v2_ext) return std::nullopt;
  const std::uint64_t release = a.fce->get(FF::Release);
  const std::uint64_t proposed = p.v2_ext->get(clc::V2ExtensionSpec::Field::Release);
  if (release <= proposed) return std::nullopt;
  return broke<clc::FirstContactExtSpec>(kAcceptRelease, FF::Release, release, proposed);
}

namespace {
// The v2.1 limits of a first-contact Accept, when it states them. Max Conns
// and Max Links are SMC-R's: on the SMC-D path the same two octets are
// reserved (Linux smc_clc_first_contact_ext_v2x, and smc_clc.c checks them
// only when the path is not SMC-D), so an SMC-D message states no limits.
const clc::FirstContactExtV2x* v21_limits(const clc::AcceptConfirm& a) {
  if (a.version() != clc::kVersion2 || !a.fce || !a.fce_v2x || a.fce->get(FF::Release) < clc::kRelease1) return nullptr;
  if (a.smcd) return nullptr;
  return &*a.fce_v2x;
}
}  // namespace

Outcome accept_max_conns(const clc::AcceptConfirm& a) {
  const clc::FirstContactExtV2x* x = v21_limits(a);
  if (!x || x->get(XF::MaxConns) >= clc::kMinMaxConns) return std::nullopt;
  return broke<clc::FirstContactExtV2xSpec>(kAcceptMaxConns, XF::MaxConns, x->get(XF::MaxConns), clc::kMinMaxConns);
}

Outcome accept_max_links(const clc::AcceptConfirm& a) {
  const clc::FirstContactExtV2x* x = v21_limits(a);
  if (!x) return std::nullopt;
  const std::uint64_t links = x->get(XF::MaxLinks);
  if (links >= clc::kMinMaxLinks && links <= clc::kMaxMaxLinks) return std::nullopt;
  return broke<clc::FirstContactExtV2xSpec>(kAcceptMaxLinks, XF::MaxLinks, links,
                                             links < clc::kMinMaxLinks ? clc::kMinMaxLinks : clc::kMaxMaxLinks);
}

// ---- Confirm

Outcome confirm_version(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  return equal(kConfirmVersion, a.header, c.header, HF::Version);
}

Outcome confirm_path(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  if (c.smc_type() == a.smc_type()) return std::nullopt;
  return broke(kConfirmPath, clc::kAcceptConfirmTypeBits[2], static_cast<std::uint64_t>(c.smc_type()),
               static_cast<std::uint64_t>(a.smc_type()));
}

Outcome confirm_first_contact(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  if (c.first_contact() == a.first_contact()) return std::nullopt;
  return broke(kConfirmFirstContact, clc::kAcceptConfirmTypeBits[0], c.first_contact(), a.first_contact());
}

Outcome confirm_peer_id(const clc::Proposal& p, const clc::SmcrBody& b) {
  if (!p.v1_smcr_identity() || b.get(RF::PeerId) == p.body.get(PF::PeerId)) return std::nullopt;
  return broke<clc::SmcrAcceptConfirmSpec>(kConfirmPeerId, RF::PeerId, b.get(RF::PeerId), p.body.get(PF::PeerId));
}

Outcome confirm_peer_valid(const clc::SmcrBody& b) {
  return gid_mac(kConfirmPeer, b.octets(RF::Gid), b.octets(RF::Mac), clc::SmcrBody::field_decl(RF::Gid),
                 clc::SmcrBody::field_decl(RF::Mac));
}

Outcome confirm_qp_number(const clc::SmcrBody& b) { return qp_number(kConfirmQp, b); }
Outcome confirm_rmb_valid(const clc::SmcrBody& b) { return rmb(kConfirmRmb, b); }

Outcome confirm_mtu(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  // The client takes the smaller of its own path MTU and the Accept's.
  if (!a.smcr || !c.smcr || c.smcr->get(RF::QpMtu) <= a.smcr->get(RF::QpMtu)) return std::nullopt;
  return broke<clc::SmcrAcceptConfirmSpec>(kConfirmMtu, RF::QpMtu, c.smcr->get(RF::QpMtu), a.smcr->get(RF::QpMtu));
}

Outcome confirm_eid(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  if (!a.smcr_v2 || !c.smcr_v2 || same(c.smcr_v2->octets(EF::Eid), a.smcr_v2->octets(EF::Eid))) return std::nullopt;
  return broke<clc::SmcrV2AcceptConfirmSpec>(kConfirmEid, EF::Eid, 0, 0);
}

Outcome confirm_release(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  if (!a.fce || !c.fce) return std::nullopt;
  return equal(kConfirmRelease, *a.fce, *c.fce, FF::Release);
}

namespace {
// Both first-contact extensions state v2.1 limits (the Accept's release is 1 or more).
bool both_v21(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  return v21_limits(a) && c.fce && c.fce_v2x;
}
}  // namespace

Outcome confirm_max_conns(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  if (!both_v21(a, c)) return std::nullopt;
  return equal(kConfirmMaxConns, *a.fce_v2x, *c.fce_v2x, XF::MaxConns);
}

Outcome confirm_max_links(const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  if (!both_v21(a, c)) return std::nullopt;
  return equal(kConfirmMaxLinks, *a.fce_v2x, *c.fce_v2x, XF::MaxLinks);
}

// ---- Decline

Outcome decline_out_of_sync(const clc::Decline& d) {
  const bool want = clc::requires_out_of_sync(d.diagnosis());
  if (d.out_of_sync() == want) return std::nullopt;
  return broke(kDeclineOutOfSync, clc::kDeclineTypeBits[0], d.out_of_sync(), want);
}

Outcome decline_code_on_wire(const clc::Decline& d) {
  const clc::DeclineCode* code = clc::find_decline_code(d.diagnosis());
  if (!code || code->on_wire) return std::nullopt;
  return broke<clc::DeclineSpec>(kDeclineCodeOnWire, clc::DeclineSpec::Field::PeerDiagnosis, d.diagnosis(), 0);
}

Outcome fce_absent(const clc::AcceptConfirm& m, clc::Bytes octets) {
  if (m.version() < clc::kVersion2 || m.first_contact()) return std::nullopt;
  // Where the blocks the header's flags announce end: the trailer follows.
  clc::AcceptConfirm blocks = m;
  clc::finalize(blocks);
  const std::uint64_t end = blocks.header.get(HF::Length) - clc::kTrailerSize;
  const std::size_t fce_size = clc::FirstContactExtSpec::decl.size_octets;
  if (octets.size() < end + fce_size + clc::kTrailerSize) return std::nullopt;
  const std::size_t surplus = octets.size() - clc::kTrailerSize - static_cast<std::size_t>(end);
  const clc::FirstContactExt fce(octets.subspan(static_cast<std::size_t>(end)).first<clc::FirstContactExtSpec::decl.size_octets>());
  const bool v2x = m.smc_type() == clc::SmcType::kR || fce.get(FF::Release) >= clc::kRelease1;
  if (surplus != fce_size + (v2x ? clc::FirstContactExtV2xSpec::decl.size_octets : 0)) return std::nullopt;
  return broke(kFceAbsent, clc::kAcceptConfirmTypeBits[0], surplus, 0);
}

// ---- what only a side knows

namespace {
using IF = clc::IpPrefixSpec::Field;
using VF = clc::V2ExtensionSpec::Field;

// Whether the message names one of the group's links (§3.5.2.2: the
// Accept's GID, MAC and QP match a known link; §3.5.2.3: the Confirm's an
// active one, not necessarily the server's).
bool same_link(const clc::LinkGroupPeer& g, const clc::SmcrBody& b) {
  const auto names = [&b](const auto& end) {
    return same(end.gid, b.octets(RF::Gid)) && same(end.mac, b.octets(RF::Mac)) && end.qp_number == b.get(RF::QpNumber);
  };
  return names(g) || std::any_of(g.other_links.begin(), g.other_links.end(), names);
}
// The smaller of the server's preference and the Proposal's.
std::uint8_t agreed(std::uint8_t mine, std::uint64_t theirs) {
  return static_cast<std::uint8_t>(std::min<std::uint64_t>(mine, theirs));
}
}  // namespace

Outcome client_has_path(bool v1_path, bool v2_path) {
  if (v1_path || v2_path) return std::nullopt;
  return Violation{&kNoSmcDevice, "", 0, 0, 0};
}

Outcome proposal_smcr_path(const clc::Proposal& p) {
  if (clc::offers_r(p.smcv1_type()) || clc::offers_r(p.smcv2_type())) return std::nullopt;
  return broke(kProposalSmcrPath, clc::kProposalTypeBits[1], static_cast<std::uint64_t>(p.smcv1_type()),
               static_cast<std::uint64_t>(clc::SmcType::kR));
}

Outcome proposal_eid_match(const clc::Proposal& p, const ServerSide& s, const clc::Eid** common) {
  for (const clc::EidEntry& e : p.user_eids) {
    const clc::Bytes eid = e.octets(clc::EidSpec::Field::Eid);
    for (const clc::Eid& mine : s.user_eids)
      if (same(eid, mine)) {
        *common = &mine;
        return std::nullopt;
      }
  }
  return broke<clc::EidSpec>(kEidMatch, clc::EidSpec::Field::Eid, p.user_eids.size(), s.user_eids.size());
}

Outcome proposal_prefix_match(const clc::Proposal& p, const ServerSide& s) {
  if (!p.ip_prefix) return broke<clc::IpPrefixSpec>(kPrefixMatch, IF::OutgoingSubnet, 0, s.ipv4.subnet);
  const clc::IpPrefix& pre = *p.ip_prefix;
  bool match = false;
  if (p.ipv6_prefixes.empty()) {
    match = pre.get(IF::OutgoingSubnet) == s.ipv4.subnet && pre.get(IF::PrefixLength) == s.ipv4.prefix_length;
  } else {
    for (const clc::Ipv6Prefix& e : p.ipv6_prefixes)
      for (const clc::Ipv6PrefixEntry& mine : s.ipv6)
        match = match || (same(mine.prefix, e.octets(clc::Ipv6PrefixSpec::Field::Prefix)) &&
                          mine.prefix_length == e.get(clc::Ipv6PrefixSpec::Field::PrefixLength));
  }
  if (match) return std::nullopt;
  return broke<clc::IpPrefixSpec>(kPrefixMatch, IF::OutgoingSubnet, pre.get(IF::OutgoingSubnet), s.ipv4.subnet);
}

Outcome proposal_max_conns(const clc::Proposal& p, const ServerSide& s) {
  if (!p.v2_ext) return std::nullopt;
  const std::uint8_t conns = agreed(s.max_conns, p.v2_ext->get(VF::MaxConns));
  if (conns >= clc::kMinMaxConns) return std::nullopt;
  return broke<clc::V2ExtensionSpec>(kProposalMaxConns, VF::MaxConns, conns, clc::kMinMaxConns);
}

Outcome proposal_max_links(const clc::Proposal& p, const ServerSide& s) {
  if (!p.v2_ext) return std::nullopt;
  const std::uint8_t links = agreed(s.max_links, p.v2_ext->get(VF::MaxLinks));
  if (links >= clc::kMinMaxLinks) return std::nullopt;
  return broke<clc::V2ExtensionSpec>(kProposalMaxLinks, VF::MaxLinks, links, clc::kMinMaxLinks);
}

Outcome accept_link_group(const clc::AcceptConfirm& a, const clc::LinkGroupPeer* have) {
  if (a.first_contact() || !a.smcr) return std::nullopt;
  const clc::SmcrBody& b = *a.smcr;
  if (have && have->peer_id == b.get(RF::PeerId) && same_link(*have, b)) return std::nullopt;
  return broke(kAcceptLinkGroup, clc::kAcceptConfirmTypeBits[0], 0, 1);
}

Outcome confirm_link_group(const clc::AcceptConfirm& c, const clc::LinkGroupPeer* reused) {
  if (!reused || !c.smcr || same_link(*reused, *c.smcr)) return std::nullopt;
  return broke<clc::SmcrAcceptConfirmSpec>(kConfirmLinkGroup, RF::Gid, 0, 0);
}

// ---- each message's rules, in order

namespace {
void add(Verdict& v, const Outcome& o) {
  if (o) v.push_back(*o);
}
}  // namespace

ProposalVerdict proposal_rules(const clc::Proposal& p, const ServerSide* server) {
  ProposalVerdict out;
  add(out.broken, proposal_peer_id(p));
  add(out.broken, proposal_gid_mac(p));
  if (!server) return out;  // the rest rests on what the server has
  // Each of what follows needs the one before it kept.
  if (!out.broken.empty()) return out;
  if (auto v = proposal_smcr_path(p)) {
    out.broken.push_back(*v);
    return out;
  }
  // v2 first, as Linux does, then v1; neither: the refusal of the last one tried.
  Outcome refusal = broke<clc::ClcHeaderSpec>(kVersionChoice, HF::Version, p.version(), 0);
  if (clc::offers_r(p.smcv2_type()) && server->smcr_v2) {
    if (auto v = proposal_eid_match(p, *server, &out.eid)) refusal = v;
    else out.version = clc::kVersion2;
  }
  if (!out.version && clc::offers_r(p.smcv1_type()) && server->smcr_v1) {
    if (auto v = proposal_prefix_match(p, *server)) refusal = v;
    else out.version = clc::kVersion1;
  }
  if (!out.version) {
    out.broken.push_back(*refusal);
    return out;
  }
  // First contact unless the server has a link group with this client (peer
  // ID and GID: RFC 7609 §3.5.1, §3.5.2).
  for (const clc::LinkGroupPeer& g : server->link_groups)
    if (g.peer_id == p.body.get(PF::PeerId) && same(g.gid, p.body.octets(PF::Gid))) out.reused = &g;
  if (out.version != clc::kVersion2 || out.reused || !p.v2_ext) return out;
  out.release = agreed(server->release, p.v2_ext->get(VF::Release));
  if (out.release < clc::kRelease1) return out;
  out.max_conns = agreed(server->max_conns, p.v2_ext->get(VF::MaxConns));
  out.max_links = agreed(server->max_links, p.v2_ext->get(VF::MaxLinks));
  add(out.broken, proposal_max_conns(p, *server));
  add(out.broken, proposal_max_links(p, *server));
  return out;
}

Verdict accept_rules(const clc::Proposal& p, const clc::AcceptConfirm& a,
                     const std::optional<clc::LinkGroupPeer>* link_group) {
  Verdict out;
  add(out, accept_version_offered(p, a));
  add(out, accept_path_offered(p, a));
  if (!out.empty()) return out;
  if (a.smcr) {
    add(out, accept_peer_valid(*a.smcr));
    add(out, accept_qp_number(*a.smcr));
    add(out, accept_rmb_valid(*a.smcr));
  }
  if (link_group) add(out, accept_link_group(a, *link_group ? &**link_group : nullptr));
  add(out, accept_eid_offered(p, a));
  add(out, accept_release(p, a));
  add(out, accept_max_conns(a));
  add(out, accept_max_links(a));
  return out;
}

Verdict confirm_rules(const clc::Proposal& p, const clc::AcceptConfirm& a, const clc::AcceptConfirm& c,
                      const std::optional<clc::LinkGroupPeer>* reused) {
  Verdict out;
  add(out, confirm_version(a, c));
  add(out, confirm_path(a, c));
  add(out, confirm_first_contact(a, c));
  if (c.smcr) {
    add(out, confirm_peer_id(p, *c.smcr));
    add(out, confirm_peer_valid(*c.smcr));
    add(out, confirm_qp_number(*c.smcr));
    add(out, confirm_rmb_valid(*c.smcr));
    add(out, confirm_mtu(a, c));
  }
  if (reused) add(out, confirm_link_group(c, *reused ? &**reused : nullptr));
  add(out, confirm_eid(a, c));
  add(out, confirm_release(a, c));
  add(out, confirm_max_conns(a, c));
  add(out, confirm_max_links(a, c));
  return out;
}

Verdict decline_rules(const clc::Decline& d) {
  Verdict out;
  add(out, decline_out_of_sync(d));
  add(out, decline_code_on_wire(d));
  return out;
}

}  // namespace rdmaconf::check
