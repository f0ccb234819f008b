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
  o.peer_violations = check::decline_rules(d);
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

}  // namespace

Eid make_eid(std::string_view text) {
  Eid e;
  e.fill(' ');
  for (std::size_t i = 0; i < e.size() && i < text.size(); ++i) e[i] = static_cast<std::uint8_t>(text[i]);
  return e;
}

namespace {
// The path a Proposal offers in one version: SMC-R, SMC-D, both or none.
SmcType offered(bool smcr, bool smcd) {
  return smcr && smcd ? SmcType::kBoth : smcr ? SmcType::kR : smcd ? SmcType::kD : SmcType::kNone;
}
}  // namespace

Proposal build_proposal(const ClientConfig& c) {
  Proposal p;
  const bool v1 = c.offer_v1 || c.smcd.v1;
  const bool v2 = c.offer_v2 || c.smcd.v2;
  p.header.set(HF::Eyecatcher, kEyecatcherSmcr).set(HF::Version, v2 ? kVersion2 : kVersion1);
  set_type_bits_field(p.header, kProposalTypeBits[1], static_cast<std::uint64_t>(offered(c.offer_v1, c.smcd.v1)));
  if (v2) set_type_bits_field(p.header, kProposalTypeBits[0], static_cast<std::uint64_t>(offered(c.offer_v2, c.smcd.v2)));
  p.body.set(ProposalBodySpec::Field::PeerId, c.link.peer_id)
      .set_octets(ProposalBodySpec::Field::Gid, c.link.gid)
      .set_octets(ProposalBodySpec::Field::Mac, c.link.mac);
  // The SMC-D area: always in v2, zero without SMC-D; in v1 when SMC-D is
  // offered. Its GID names the native ISM device for SMC-D version 1 (Linux
  // smc_clc_send_proposal fills it only then), its CHID exists from v2 on.
  if (v2 || c.smcd.v1) p.smcd.emplace();
  if (c.smcd.v1) {
    p.smcd->set(ProposalSmcdSpec::Field::IsmGid, c.smcd.native.gid);
    if (v2) p.smcd->set(ProposalSmcdSpec::Field::IsmChid, c.smcd.native.chid);
  }
  if (v1) {
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
  if (c.smcd.v2) {
    // The SMC-Dv2 extension: the system EID (when the client has one) and
    // one GID/CHID entry per ISMv2 device (Linux smc_clc_smcd_v2_extension).
    p.smcd_v2_ext.emplace();
    if (c.v2.system_eid) {
      p.smcd_v2_ext->set_octets(SmcdV2ExtensionSpec::Field::SystemEid, *c.v2.system_eid);
      p.v2_ext->set(V2ExtensionSpec::Field::Seid, 1);
    }
    for (const IsmDevice& d : c.smcd.v2_devices) {
      IsmGidChid entry;
      entry.set(IsmGidChidSpec::Field::Gid, d.gid).set(IsmGidChidSpec::Field::Chid, d.chid);
      if (!p.ism_gids.push_back(entry)) break;
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

// Both roles answer a broken rule the same way: fall back to TCP and send a
// Decline carrying the diagnosis of the rule's registry row (declined_with).
Step declined(std::uint8_t version, const check::Rule& r, PeerId sender, std::uint8_t os_type) {
  Outcome o;
  o.kind = OutcomeKind::kFallback;
  o.decline_sent = true;
  o.diagnosis = check::decline_code(r);
  o.failed_rule = &r;
  return Step{encode(build_decline(version, sender, o.diagnosis, os_type)), std::move(o)};
}

}  // namespace

// ------------------------------------------------------------- client

ClientHandshake::ClientHandshake(ClientConfig config) : cfg_(std::move(config)) {}

Step ClientHandshake::finish(Outcome o) {
  state_ = State::kDone;
  return Step{{}, std::move(o)};
}

Step ClientHandshake::decline(std::uint8_t version, const check::Rule& r) {
  state_ = State::kDone;
  return declined(version, r, cfg_.link.peer_id, cfg_.v2.os_type);
}

Step ClientHandshake::start(bool peer_smc_capable) {
  if (state_ != State::kIdle) return Step{};
  if (!peer_smc_capable) {
    Outcome o;
    o.kind = OutcomeKind::kFallback;
    o.diagnosis = kDeclPeerNoSmc;  // no CLC at all
    return finish(std::move(o));
  }
  // Linux declines at once when it has nothing to propose (smc_connect).
  // (A client offering SMC-D has a path in that version too.)
  if (auto bad = check::client_has_path(cfg_.offer_v1 || cfg_.smcd.v1, cfg_.offer_v2 || cfg_.smcd.v2))
    return decline(kVersion1, *bad->rule);
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
  // The Accept's rules in their order (check::accept_rules, which the capture
  // observer judges with too), with the link group this client has. An
  // offered version is at most the Proposal's, so the Decline's version is
  // the Accept's unless the Accept's was not offered.
  const check::Verdict bad = check::accept_rules(proposal_, *a, &cfg_.link_group);
  if (!bad.empty()) return decline(std::min<std::uint8_t>(v, proposal_.version()), *bad.front().rule);
  // The Proposal offers SMC-R alone, so an Accept on an offered path is an
  // SMC-R one, and the decoder gives every SMC-R Accept its body.
  if (!a->smcr) return decline(v, check::kAcceptPath);
  const SmcrBody& b = *a->smcr;
  std::uint8_t release = 0;
  std::uint8_t max_conns = 0, max_links = 0;
  if (v == kVersion2 && a->first_contact()) {
    release = static_cast<std::uint8_t>(a->fce->get(FirstContactExtSpec::Field::Release));
    if (release >= kRelease1) {
      max_conns = static_cast<std::uint8_t>(a->fce_v2x->get(FirstContactExtV2xSpec::Field::MaxConns));
      max_links = static_cast<std::uint8_t>(a->fce_v2x->get(FirstContactExtV2xSpec::Field::MaxLinks));
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

Step ServerHandshake::decline(std::uint8_t version, const check::Rule& r) {
  state_ = State::kDone;
  return declined(version, r, cfg_.link.peer_id, cfg_.v2.os_type);
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
  // The Proposal's rules in their order (check::proposal_rules, the capture
  // observer's too), with what this server has: its choice of version, EID
  // and link group, and the v2.1 limits both agree on.
  check::ServerSide side;
  side.smcr_v1 = cfg_.accept_v1;
  side.smcr_v2 = cfg_.accept_v2;
  side.user_eids = cfg_.v2.user_eids;
  side.ipv4 = cfg_.ipv4;
  side.ipv6 = cfg_.ipv6;
  side.link_groups = cfg_.link_groups;
  side.release = cfg_.v2.release;
  side.max_conns = cfg_.v2.max_conns;
  side.max_links = cfg_.v2.max_links;
  const check::ProposalVerdict verdict = check::proposal_rules(p, &side);
  if (!verdict.broken.empty()) return decline(reply_version, *verdict.broken.front().rule);
  const std::uint8_t v = verdict.version;
  if (verdict.eid) negotiated_eid_ = *verdict.eid;
  reused_.reset();
  if (verdict.reused) reused_ = *verdict.reused;
  const bool first_contact = !reused_;

  accept_ = AcceptConfirm{};
  accept_.header.set(HF::Eyecatcher, kEyecatcherSmcr).set(HF::Type, static_cast<std::uint64_t>(MessageType::kAccept));
  accept_.header.set(HF::Version, v);
  set_type_bits_field(accept_.header, kAcceptConfirmTypeBits[0], first_contact ? 1 : 0);
  // §3.5.2: a reused group's Accept names that group's link and the new
  // connection's own RMBE.
  const SmcrLink* own = &cfg_.link;
  if (verdict.reused) {
    const auto i = static_cast<std::size_t>(verdict.reused - side.link_groups.data());
    if (i < cfg_.link_group_links.size()) own = &cfg_.link_group_links[i];
  }
  accept_.smcr = body_from(*own, own->qp_mtu);
  if (v == kVersion2) {
    accept_.smcr_v2.emplace();
    accept_.smcr_v2->set_octets(SmcrV2AcceptConfirmSpec::Field::Eid, negotiated_eid_);
    if (first_contact) {
      accept_.fce = make_fce(cfg_.v2, verdict.release, true);
      accept_.fce_v2x.emplace();
      accept_.fce_v2x->set(FirstContactExtV2xSpec::Field::MaxConns, verdict.max_conns)
          .set(FirstContactExtV2xSpec::Field::MaxLinks, verdict.max_links);
    }
  }
  finalize(accept_);
  state_ = State::kAwaitConfirm;
  return Step{encode(accept_), std::nullopt};
}

Step ServerHandshake::on_confirm(const AcceptConfirm& c) {
  const std::uint8_t v = accept_.version();
  // The Confirm's rules in their order (check::confirm_rules, the capture
  // observer's too), with the link group this server's Accept reused.
  const check::Verdict bad = check::confirm_rules(proposal_, accept_, c, &reused_);
  if (!bad.empty()) return decline(v, *bad.front().rule);
  // The server accepted SMC-R, so confirm_path holds the Confirm to it, and
  // the decoder gives every SMC-R Confirm its body.
  if (!c.smcr) return decline(v, check::kConfirmPath);
  const SmcrBody& b = *c.smcr;
  std::uint8_t release = 0;
  if (v == kVersion2 && c.first_contact())
    release = static_cast<std::uint8_t>(accept_.fce->get(FirstContactExtSpec::Field::Release));
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
