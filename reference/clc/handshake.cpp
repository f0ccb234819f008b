#include "clc/handshake.hpp"

#include <algorithm>

namespace rdmaconf::clc {
namespace {

using HF = ClcHeaderSpec::Field;
using RF = SmcrAcceptConfirmSpec::Field;

template <std::size_t N>
std::array<std::uint8_t, N> to_array(Bytes b) {
  std::array<std::uint8_t, N> a{};
  for (std::size_t i = 0; i < N && i < b.size(); ++i) a[i] = b[i];
  return a;
}

SmcrLink link_from(const SmcrBody& b) {
  SmcrLink l;
  l.peer_id = b.get(RF::PeerId);
  l.gid = to_array<16>(b.octets(RF::Gid));
  l.mac = to_array<6>(b.octets(RF::Mac));
  l.qp_number = static_cast<std::uint32_t>(b.get(RF::QpNumber));
  l.rmb_rkey = static_cast<std::uint32_t>(b.get(RF::RmbRkey));
  l.rmbe_index = static_cast<std::uint8_t>(b.get(RF::RmbeIndex));
  l.rmbe_alert_token = static_cast<std::uint32_t>(b.get(RF::RmbeAlertToken));
  l.rmbe_size = uncompress_buffer_size(static_cast<std::uint8_t>(b.get(RF::RmbeSize)));
  l.qp_mtu = static_cast<std::uint8_t>(b.get(RF::QpMtu));
  l.rmb_virtual_address = b.get(RF::RmbVirtualAddress);
  l.initial_psn = static_cast<std::uint32_t>(b.get(RF::InitialPsn));
  return l;
}

SmcrBody body_from(const SmcrLink& l, std::uint8_t qp_mtu) {
  SmcrBody b;
  b.set(RF::PeerId, l.peer_id).set_octets(RF::Gid, l.gid).set_octets(RF::Mac, l.mac);
  b.set(RF::QpNumber, l.qp_number).set(RF::RmbRkey, l.rmb_rkey).set(RF::RmbeIndex, l.rmbe_index);
  b.set(RF::RmbeAlertToken, l.rmbe_alert_token).set(RF::RmbeSize, compress_buffer_size(l.rmbe_size));
  b.set(RF::QpMtu, qp_mtu).set(RF::RmbVirtualAddress, l.rmb_virtual_address).set(RF::InitialPsn, l.initial_psn);
  return b;
}

bool matches(const LinkGroupPeer& g, PeerId id, Bytes gid) {
  return g.peer_id == id && std::equal(g.gid.begin(), g.gid.end(), gid.begin(), gid.end());
}

bool same_eid(Bytes a, const Eid& b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

FirstContactExt make_fce(const V2Settings& v2, std::uint8_t release, bool v2_direct) {
  FirstContactExt f;
  f.set(FirstContactExtSpec::Field::V2Direct, v2_direct ? 1 : 0)
      .set(FirstContactExtSpec::Field::OsType, v2.os_type)
      .set(FirstContactExtSpec::Field::Release, release)
      .set_octets(FirstContactExtSpec::Field::Hostname, make_eid(v2.hostname));
  return f;
}

Outcome fallback_received(const Decline& d) {
  Outcome o;
  o.kind = OutcomeKind::kFallback;
  o.decline_received = true;
  o.diagnosis = d.diagnosis();
  o.peer_out_of_sync = d.out_of_sync();
  // Reported; the fallback happens regardless (RFC 7609 App. C.1).
  if (auto v = check::decline_out_of_sync(d)) o.peer_violations.push_back(*v);
  if (auto v = check::decline_code_on_wire(d)) o.peer_violations.push_back(*v);
  return o;
}

Outcome failed(FailReason r, std::optional<DecodeError> e = std::nullopt) {
  Outcome o;
  o.kind = OutcomeKind::kFailed;
  o.fail = r;
  o.error = e;
  return o;
}

// RFC 7609 App. C.6: a message of the wrong type ends the exchange.
DecodeError unexpected_type() {
  return DecodeError{"Type", "not the message this step of the handshake waits for", cite::kClcProtocolError, 4};
}

constexpr const Check* kAll[] = {
    &checks::kProposalPeerId,   &checks::kProposalGidMac,  &checks::kProposalSmcrOffered,
    &checks::kVersionCommon,    &checks::kPrefixMatch,     &checks::kEidMatch,
    &checks::kProposalMaxConns, &checks::kProposalMaxLinks, &checks::kAcceptVersion,
    &checks::kAcceptPath,       &checks::kAcceptPeer,      &checks::kAcceptQp,
    &checks::kAcceptRmb,        &checks::kAcceptFirstContact, &checks::kAcceptEid,
    &checks::kAcceptRelease,    &checks::kAcceptMaxConns,  &checks::kAcceptMaxLinks,
    &checks::kConfirmVersion,   &checks::kConfirmPath,     &checks::kConfirmFirstContact,
    &checks::kConfirmPeerId,    &checks::kConfirmPeer,     &checks::kConfirmQp,
    &checks::kConfirmRmb,       &checks::kConfirmMtu,      &checks::kConfirmLinkGroup,
    &checks::kConfirmEid,       &checks::kConfirmRelease,  &checks::kConfirmMaxConns,
    &checks::kConfirmMaxLinks,  &checks::kNoSmcDevice,
};

}  // namespace

std::span<const Check* const> all_checks() { return kAll; }

const Check* check_for(const check::Rule& rule) {
  for (const Check* c : kAll)
    if (c->rule == &rule) return c;
  return nullptr;
}

Eid make_eid(std::string_view text) {
  Eid e;
  e.fill(' ');
  for (std::size_t i = 0; i < e.size() && i < text.size(); ++i) e[i] = static_cast<std::uint8_t>(text[i]);
  return e;
}

Proposal build_proposal(const ClientConfig& c) {
  Proposal p;
  const bool v2 = c.offer_v2;
  p.header.set(HF::Eyecatcher, kEyecatcherSmcr).set(HF::Version, v2 ? kVersion2 : kVersion1);
  set_type_bits_field(p.header, kProposalTypeBits[1],
                      static_cast<std::uint64_t>(c.offer_v1 ? SmcType::kR : SmcType::kNone));
  if (v2) set_type_bits_field(p.header, kProposalTypeBits[0], static_cast<std::uint64_t>(SmcType::kR));
  p.body.set(ProposalBodySpec::Field::PeerId, c.link.peer_id)
      .set_octets(ProposalBodySpec::Field::Gid, c.link.gid)
      .set_octets(ProposalBodySpec::Field::Mac, c.link.mac);
  if (v2) p.smcd.emplace();  // always present in v2, zero without SMC-D
  if (c.offer_v1) {
    p.ip_prefix.emplace();
    if (c.ipv6.empty()) {
      p.ip_prefix->set(IpPrefixSpec::Field::OutgoingSubnet, c.ipv4.subnet)
          .set(IpPrefixSpec::Field::PrefixLength, c.ipv4.prefix_length);
    }
    for (const Ipv6PrefixEntry& e : c.ipv6) {
      Ipv6Prefix entry;
      entry.set_octets(Ipv6PrefixSpec::Field::Prefix, e.prefix).set(Ipv6PrefixSpec::Field::PrefixLength, e.prefix_length);
      if (!p.ipv6_prefixes.push_back(entry)) break;
    }
  }
  if (v2) {
    p.v2_ext.emplace();
    p.v2_ext->set(V2ExtensionSpec::Field::Release, c.v2.release)
        .set_octets(V2ExtensionSpec::Field::RoceV2Gid, c.v2.rocev2_gid)
        .set(V2ExtensionSpec::Field::MaxConns, c.v2.max_conns)
        .set(V2ExtensionSpec::Field::MaxLinks, c.v2.max_links);
    for (const Eid& e : c.v2.user_eids) {
      EidEntry entry;
      entry.set_octets(EidSpec::Field::Eid, e);
      if (!p.user_eids.push_back(entry)) break;
    }
  }
  finalize(p);
  return p;
}

Decline build_decline(std::uint8_t version, PeerId sender, std::uint32_t diagnosis, std::uint8_t os_type) {
  Decline d;
  d.header.set(HF::Eyecatcher, kEyecatcherSmcr).set(HF::Version, version);
  // Rule 1 of decline_codes.hpp: Out of Sync goes with SYNCERR, and only with it.
  set_type_bits_field(d.header, kDeclineTypeBits[0], requires_out_of_sync(diagnosis) ? 1 : 0);
  d.body.set(DeclineSpec::Field::PeerId, sender).set(DeclineSpec::Field::PeerDiagnosis, diagnosis);
  if (version >= kVersion2) {
    d.body.set(DeclineSpec::Field::OsType, os_type);
    d.v2_diagnosis.emplace();
  }
  finalize(d);
  return d;
}

// ------------------------------------------------- either role declines

namespace {

// Both roles answer a failed consistency check the same way: fall back to
// TCP and send a Decline carrying the check's diagnosis code.
Step declined(std::uint8_t version, const Check& c, PeerId sender, std::uint8_t os_type) {
  Outcome o;
  o.kind = OutcomeKind::kFallback;
  o.decline_sent = true;
  o.diagnosis = c.decline_code;
  o.failed_check = &c;
  return Step{encode(build_decline(version, sender, c.decline_code, os_type)), std::move(o)};
}

}  // namespace

// ------------------------------------------------------------- client

ClientHandshake::ClientHandshake(ClientConfig config) : cfg_(std::move(config)) {}

Step ClientHandshake::finish(Outcome o) {
  state_ = State::kDone;
  return Step{{}, std::move(o)};
}

Step ClientHandshake::decline(std::uint8_t version, const Check& c) {
  state_ = State::kDone;
  return declined(version, c, cfg_.link.peer_id, cfg_.v2.os_type);
}

Step ClientHandshake::decline(std::uint8_t version, const check::Violation& v) {
  return decline(version, *check_for(*v.rule));
}

Step ClientHandshake::start(bool peer_smc_capable) {
  if (state_ != State::kIdle) return Step{};
  if (!peer_smc_capable) {
    Outcome o;
    o.kind = OutcomeKind::kFallback;
    o.diagnosis = kDeclPeerNoSmc;  // no CLC at all
    return finish(std::move(o));
  }
  if (!cfg_.offer_v1 && !cfg_.offer_v2) {
    // Linux declines at once when it has nothing to propose (smc_connect).
    return decline(kVersion1, checks::kNoSmcDevice);
  }
  proposal_ = build_proposal(cfg_);
  state_ = State::kAwaitAccept;
  return Step{encode(proposal_), std::nullopt};
}

Step ClientHandshake::on_timeout() {
  if (state_ != State::kAwaitAccept) return Step{};
  return finish(failed(FailReason::kTimeout,
                       DecodeError{"Accept", "not received within the CLC wait time", cite::kClcTimeout, 0}));
}

Step ClientHandshake::on_message(Bytes bytes) {
  if (state_ != State::kAwaitAccept) return Step{};
  auto m = decode(bytes, DecodeRules::kReceiver);
  if (!m) return finish(failed(FailReason::kProtocolError, m.error()));
  if (const auto* d = std::get_if<Decline>(&*m)) return finish(fallback_received(*d));
  const auto* a = std::get_if<AcceptConfirm>(&*m);
  if (!a || a->type() != MessageType::kAccept) return finish(failed(FailReason::kProtocolError, unexpected_type()));

  const std::uint8_t v = a->version();
  const std::uint8_t decline_version = std::min<std::uint8_t>(v, proposal_.version());
  // The rules between Proposal and Accept (check/clc.hpp); the Proposal
  // offers SMC-R alone, so a path it offered is SMC-R and has its body.
  if (auto bad = check::accept_version_offered(proposal_, *a)) return decline(decline_version, *bad);
  if (auto bad = check::accept_path_offered(proposal_, *a)) return decline(v, *bad);
  if (!a->smcr) return decline(v, checks::kAcceptPath);
  const SmcrBody& b = *a->smcr;
  for (auto rule : {check::accept_peer_valid, check::accept_qp_number, check::accept_rmb_valid})
    if (auto bad = rule(b)) return decline(v, *bad);
  // Linux smc_conn_create: the server reuses a link group (no First Contact)
  // the client does not have -> out of sync.
  if (!a->first_contact()) {
    const auto& g = cfg_.link_group;
    const bool have = g && matches(*g, b.get(RF::PeerId), b.octets(RF::Gid)) &&
                      std::equal(g->mac.begin(), g->mac.end(), b.octets(RF::Mac).begin()) &&
                      g->qp_number == b.get(RF::QpNumber);
    if (!have) return decline(v, checks::kAcceptFirstContact);
  }
  std::uint8_t release = 0;
  std::uint8_t max_conns = 0, max_links = 0;
  if (v == kVersion2) {
    // The EID among those the Proposal offered (the client's own), the
    // release not above the client's, v2.1 limits.
    if (auto bad = check::accept_eid_offered(proposal_, *a)) return decline(v, *bad);
    if (a->first_contact()) {
      if (auto bad = check::accept_release(proposal_, *a)) return decline(v, *bad);
      for (auto rule : {check::accept_max_conns, check::accept_max_links})
        if (auto bad = rule(*a)) return decline(v, *bad);
      release = static_cast<std::uint8_t>(a->fce->get(FirstContactExtSpec::Field::Release));
      if (release >= kRelease1) {
        max_conns = static_cast<std::uint8_t>(a->fce_v2x->get(FirstContactExtV2xSpec::Field::MaxConns));
        max_links = static_cast<std::uint8_t>(a->fce_v2x->get(FirstContactExtV2xSpec::Field::MaxLinks));
      }
    }
  }

  // Build the Confirm: the client's values, the Accept's version, path and
  // First Contact, and the smaller of the two path MTUs.
  const std::uint8_t mtu = std::min<std::uint8_t>(cfg_.link.qp_mtu, static_cast<std::uint8_t>(b.get(RF::QpMtu)));
  AcceptConfirm c;
  c.header.set(HF::Eyecatcher, kEyecatcherSmcr).set(HF::Type, static_cast<std::uint64_t>(MessageType::kConfirm));
  c.header.set(HF::Version, v);
  set_type_bits_field(c.header, kAcceptConfirmTypeBits[0], a->first_contact() ? 1 : 0);
  c.smcr = body_from(cfg_.link, mtu);
  if (v == kVersion2) {
    c.smcr_v2.emplace();
    c.smcr_v2->set_octets(SmcrV2AcceptConfirmSpec::Field::Eid, a->smcr_v2->octets(SmcrV2AcceptConfirmSpec::Field::Eid));
    if (a->first_contact()) {
      c.fce = make_fce(cfg_.v2, release, a->fce->get(FirstContactExtSpec::Field::V2Direct) != 0);
      c.fce_v2x.emplace();
      c.fce_v2x->set(FirstContactExtV2xSpec::Field::MaxConns, max_conns)
          .set(FirstContactExtV2xSpec::Field::MaxLinks, max_links);
      c.gid_list.emplace();
      GidEntry g;
      g.set_octets(GidSpec::Field::Gid, cfg_.v2.rocev2_gid);
      c.gids.push_back(g);
    }
  }
  finalize(c);

  Outcome o;
  o.kind = OutcomeKind::kSmc;
  o.version = v;
  o.path = SmcType::kR;
  o.first_contact = a->first_contact();
  o.peer = link_from(b);
  o.qp_mtu = mtu;
  o.release = release;
  if (v == kVersion2) o.negotiated_eid = to_array<32>(a->smcr_v2->octets(SmcrV2AcceptConfirmSpec::Field::Eid));
  Step s = finish(std::move(o));
  s.send = encode(c);
  return s;
}

// ------------------------------------------------------------- server

ServerHandshake::ServerHandshake(ServerConfig config) : cfg_(std::move(config)) {}

Step ServerHandshake::finish(Outcome o) {
  state_ = State::kDone;
  return Step{{}, std::move(o)};
}

Step ServerHandshake::decline(std::uint8_t version, const Check& c) {
  state_ = State::kDone;
  return declined(version, c, cfg_.link.peer_id, cfg_.v2.os_type);
}

Step ServerHandshake::decline(std::uint8_t version, const check::Violation& v) {
  return decline(version, *check_for(*v.rule));
}

Step ServerHandshake::start(bool peer_smc_capable) {
  if (state_ != State::kIdle) return Step{};
  if (!peer_smc_capable) {
    Outcome o;
    o.kind = OutcomeKind::kFallback;
    o.diagnosis = kDeclPeerNoSmc;
    return finish(std::move(o));
  }
  state_ = State::kAwaitProposal;
  return Step{};
}

Step ServerHandshake::on_timeout() {
  if (state_ != State::kAwaitProposal && state_ != State::kAwaitConfirm) return Step{};
  const std::string_view what = state_ == State::kAwaitProposal ? "Proposal" : "Confirm";
  return finish(failed(FailReason::kTimeout,
                       DecodeError{what, "not received within the CLC wait time", cite::kClcTimeout, 0}));
}

Step ServerHandshake::on_message(Bytes bytes) {
  if (state_ != State::kAwaitProposal && state_ != State::kAwaitConfirm) return Step{};
  auto m = decode(bytes, DecodeRules::kReceiver);
  if (!m) return finish(failed(FailReason::kProtocolError, m.error()));
  if (const auto* d = std::get_if<Decline>(&*m)) return finish(fallback_received(*d));
  if (state_ == State::kAwaitProposal) {
    if (const auto* p = std::get_if<Proposal>(&*m)) return on_proposal(*p);
  } else if (const auto* c = std::get_if<AcceptConfirm>(&*m); c && c->type() == MessageType::kConfirm) {
    return on_confirm(*c);
  }
  return finish(failed(FailReason::kProtocolError, unexpected_type()));
}

Step ServerHandshake::on_proposal(const Proposal& p) {
  proposal_ = p;
  const std::uint8_t reply_version = p.version() >= kVersion2 && cfg_.accept_v2 ? kVersion2 : kVersion1;
  // The body's Peer ID, GID and MAC mean something only on a v1 SMC-R offer.
  for (auto rule : {check::proposal_peer_id, check::proposal_gid_mac})
    if (auto bad = rule(p)) return decline(reply_version, *bad);
  const bool r_v1 = offers_r(p.smcv1_type());
  const bool r_v2 = offers_r(p.smcv2_type());
  if (!r_v1 && !r_v2) return decline(reply_version, checks::kProposalSmcrOffered);

  // Try v2 first, as Linux does, then v1; remember why each was refused.
  const Check* v2_refusal = nullptr;
  bool use_v2 = false;
  if (r_v2 && cfg_.accept_v2) {
    for (const EidEntry& e : p.user_eids) {
      Bytes eid = e.octets(EidSpec::Field::Eid);
      auto it = std::find_if(cfg_.v2.user_eids.begin(), cfg_.v2.user_eids.end(),
                             [&](const Eid& mine) { return same_eid(eid, mine); });
      if (it != cfg_.v2.user_eids.end()) {
        negotiated_eid_ = *it;
        use_v2 = true;
        break;
      }
    }
    if (!use_v2) v2_refusal = &checks::kEidMatch;
  }
  const Check* v1_refusal = nullptr;
  bool use_v1 = false;
  if (!use_v2 && r_v1 && cfg_.accept_v1) {
    const IpPrefix& pre = *p.ip_prefix;
    bool match = false;
    if (p.ipv6_prefixes.empty()) {
      match = pre.get(IpPrefixSpec::Field::OutgoingSubnet) == cfg_.ipv4.subnet &&
              pre.get(IpPrefixSpec::Field::PrefixLength) == cfg_.ipv4.prefix_length;
    } else {
      for (const Ipv6Prefix& e : p.ipv6_prefixes) {
        Ipv6PrefixEntry theirs{to_array<16>(e.octets(Ipv6PrefixSpec::Field::Prefix)),
                               static_cast<std::uint8_t>(e.get(Ipv6PrefixSpec::Field::PrefixLength))};
        match = match || std::find(cfg_.ipv6.begin(), cfg_.ipv6.end(), theirs) != cfg_.ipv6.end();
      }
    }
    if (match) use_v1 = true;
    else v1_refusal = &checks::kPrefixMatch;
  }
  if (!use_v1 && !use_v2) {
    const Check* why = v1_refusal ? v1_refusal : v2_refusal ? v2_refusal : &checks::kVersionCommon;
    return decline(reply_version, *why);
  }
  const std::uint8_t v = use_v2 ? kVersion2 : kVersion1;

  // First contact unless a link group with this client (peer ID and GID)
  // exists (RFC 7609 §3.5.1, §3.5.2).
  reused_.reset();
  for (const LinkGroupPeer& g : cfg_.link_groups)
    if (matches(g, p.body.get(ProposalBodySpec::Field::PeerId), p.body.octets(ProposalBodySpec::Field::Gid)))
      reused_ = g;
  const bool first_contact = !reused_;

  accept_ = AcceptConfirm{};
  accept_.header.set(HF::Eyecatcher, kEyecatcherSmcr).set(HF::Type, static_cast<std::uint64_t>(MessageType::kAccept));
  accept_.header.set(HF::Version, v);
  set_type_bits_field(accept_.header, kAcceptConfirmTypeBits[0], first_contact ? 1 : 0);
  accept_.smcr = body_from(cfg_.link, cfg_.link.qp_mtu);
  if (v == kVersion2) {
    accept_.smcr_v2.emplace();
    accept_.smcr_v2->set_octets(SmcrV2AcceptConfirmSpec::Field::Eid, negotiated_eid_);
    if (first_contact) {
      const std::uint8_t release = std::min<std::uint8_t>(
          cfg_.v2.release, static_cast<std::uint8_t>(p.v2_ext->get(V2ExtensionSpec::Field::Release)));
      std::uint8_t max_conns = 0, max_links = 0;
      if (release >= kRelease1) {
        // Linux smc_clc_srv_v2x_features_validate: the smaller preference wins.
        max_conns = std::min<std::uint8_t>(cfg_.v2.max_conns,
                                           static_cast<std::uint8_t>(p.v2_ext->get(V2ExtensionSpec::Field::MaxConns)));
        max_links = std::min<std::uint8_t>(cfg_.v2.max_links,
                                           static_cast<std::uint8_t>(p.v2_ext->get(V2ExtensionSpec::Field::MaxLinks)));
        if (max_conns < kMinMaxConns) return decline(v, checks::kProposalMaxConns);
        if (max_links < kMinMaxLinks) return decline(v, checks::kProposalMaxLinks);
      }
      accept_.fce = make_fce(cfg_.v2, release, true);
      accept_.fce_v2x.emplace();
      accept_.fce_v2x->set(FirstContactExtV2xSpec::Field::MaxConns, max_conns)
          .set(FirstContactExtV2xSpec::Field::MaxLinks, max_links);
    }
  }
  finalize(accept_);
  state_ = State::kAwaitConfirm;
  return Step{encode(accept_), std::nullopt};
}

Step ServerHandshake::on_confirm(const AcceptConfirm& c) {
  const std::uint8_t v = accept_.version();
  // The rules between Accept and Confirm (check/clc.hpp), in the order a
  // reader of the Confirm meets its fields.
  for (auto rule : {check::confirm_version, check::confirm_path, check::confirm_first_contact})
    if (auto bad = rule(accept_, c)) return decline(v, *bad);
  if (!c.smcr) return decline(v, checks::kConfirmPath);
  const SmcrBody& b = *c.smcr;
  if (auto bad = check::confirm_peer_id(proposal_, b)) return decline(v, *bad);
  for (auto rule : {check::confirm_peer_valid, check::confirm_qp_number, check::confirm_rmb_valid})
    if (auto bad = rule(b)) return decline(v, *bad);
  if (auto bad = check::confirm_mtu(accept_, c)) return decline(v, *bad);
  if (reused_) {
    const bool same = std::equal(reused_->gid.begin(), reused_->gid.end(), b.octets(RF::Gid).begin()) &&
                      std::equal(reused_->mac.begin(), reused_->mac.end(), b.octets(RF::Mac).begin()) &&
                      reused_->qp_number == b.get(RF::QpNumber);
    if (!same) return decline(v, checks::kConfirmLinkGroup);
  }
  std::uint8_t release = 0;
  if (v == kVersion2) {
    // The negotiated EID is the Accept's; Linux smc_clc_v2x_features_confirm_check
    // for the release and the v2.1 limits.
    for (auto rule : {check::confirm_eid, check::confirm_release, check::confirm_max_conns, check::confirm_max_links})
      if (auto bad = rule(accept_, c)) return decline(v, *bad);
    if (c.first_contact()) release = static_cast<std::uint8_t>(accept_.fce->get(FirstContactExtSpec::Field::Release));
  }
  Outcome o;
  o.kind = OutcomeKind::kSmc;
  o.version = v;
  o.path = SmcType::kR;
  o.first_contact = accept_.first_contact();
  o.peer = link_from(b);
  o.qp_mtu = static_cast<std::uint8_t>(b.get(RF::QpMtu));
  o.release = release;
  if (v == kVersion2) o.negotiated_eid = negotiated_eid_;
  return finish(std::move(o));
}

}  // namespace rdmaconf::clc
