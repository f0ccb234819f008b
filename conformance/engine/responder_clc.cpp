// The reference IUT's CLC handshake (RFC 7609 App. A, SMC v2): the reference
// server or client, with the faults that patch the messages it receives
// before its checks see them and the ones it sends (responder_internal.hpp).
#include <algorithm>
#include <memory>

#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "engine/responder_internal.hpp"
#include "engine/smcr_memory.hpp"

namespace rdmaconf::conformance::iut {
namespace {

// The CLC header and trailer of a message's octets, written through their
// declarations (RFC 7609 App. A): the eyecatchers, the Type, the type bits.
using Hdr = wire::Header<clc::ClcHeaderSpec>;
using Trl = wire::Header<clc::TrailerSpec>;

template <typename Fn>
std::vector<std::uint8_t> patch_clc(std::vector<std::uint8_t> octets, Fn fn) {
  auto m = clc::decode(octets);
  if (!m) return octets;
  clc::Message msg = std::move(*m);
  if (!fn(msg)) return octets;
  return clc::encode(msg);
}

clc::ServerConfig reference_server() {
  clc::ServerConfig c;
  c.link.peer_id = 0x5245465300000001ull;  // "REFS" + 1
  c.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0x03};
  c.link.mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x03};
  c.link.qp_number = 0x000400;
  c.link.rmb_rkey = 0x4321;
  c.link.rmb_virtual_address = 0x200000;
  c.link.initial_psn = 0x20;
  c.v2.user_eids = {clc::make_eid("RDMACONF-TEST-EID")};
  c.v2.rocev2_gid = c.link.gid;
  c.ipv4 = {0x7f000000, 8};
  return c;
}

clc::ClientConfig reference_client() {
  clc::ClientConfig c;
  const clc::ServerConfig s = reference_server();
  c.link = s.link;
  c.link.peer_id = 0x5245464300000001ull;
  c.link.mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x04};
  c.link.qp_number = 0x000500;
  c.v2 = s.v2;
  c.ipv4 = s.ipv4;
  return c;
}

// Fault clc-ism-gid-count-unchecked: a Proposal refused only for listing
// more ISM GID/CHID entries than 8 (SMC v2: smc_clc_msg_prop_valid) is read
// as one listing the first 8. The list is the Proposal's last area: the
// entries past the eighth are the octets before the trailer.
std::vector<std::uint8_t> keep_eight_ism_gids(std::vector<std::uint8_t> m) {
  const auto decoded = clc::decode(m);
  const wire::FieldDecl& count = clc::V2ExtensionSpec::fields[static_cast<std::size_t>(clc::V2ExtensionSpec::Field::IsmGidCount)];
  if (decoded || decoded.error().field != count.name) return m;
  const std::size_t x_at = decoded.error().offset - count.octet_offset();
  const wire::MutableBytes x = wire::MutableBytes(m).subspan(x_at);
  const std::uint64_t n = wire::Header<clc::V2ExtensionSpec>::read(x, clc::V2ExtensionSpec::Field::IsmGidCount);
  const std::size_t extra = static_cast<std::size_t>(n - clc::kMaxIsmGids) * clc::IsmGidChidSpec::decl.size_octets;
  if (n <= clc::kMaxIsmGids || m.size() < clc::kHeaderSize + clc::kTrailerSize + extra) return m;
  wire::Header<clc::V2ExtensionSpec>::write(x, clc::V2ExtensionSpec::Field::IsmGidCount, clc::kMaxIsmGids);
  const auto end = m.end() - static_cast<std::ptrdiff_t>(clc::kTrailerSize);
  m.erase(end - static_cast<std::ptrdiff_t>(extra), end);
  Hdr::write(m, clc::ClcHeaderSpec::Field::Length, m.size());
  return m;
}

std::vector<std::uint8_t> patch_incoming_clc(const FaultSet& f, std::vector<std::uint8_t> m) {
  using HF = clc::ClcHeaderSpec::Field;
  if (f.has(FaultId::kClcIsmGidCountUnchecked)) m = keep_eight_ism_gids(std::move(m));
  if (f.has(FaultId::kClcAcceptBadEyecatcher) && m.size() >= 8) {
    Hdr::write(m, clc::ClcHeaderSpec::Field::Eyecatcher, clc::kEyecatcherSmcr);
    if (m.size() >= clc::kHeaderSize + clc::kTrailerSize)
      Trl::write(wire::MutableBytes(m).last(clc::kTrailerSize), clc::TrailerSpec::Field::Eyecatcher, clc::kEyecatcherSmcr);
  }
  return patch_clc(std::move(m), [&](clc::Message& msg) {
    bool changed = false;
    if (auto* p = std::get_if<clc::Proposal>(&msg)) {
      using PF = clc::ProposalBodySpec::Field;
      if (f.has(FaultId::kClcSkipPeerIdCheck) && p->body.get(PF::PeerId) == 0) {
        p->body.set(PF::PeerId, 1);
        changed = true;
      }
      if (f.has(FaultId::kClcSkipGidMacCheck)) {
        const auto ref = reference_client();
        p->body.set_octets(PF::Gid, ref.link.gid).set_octets(PF::Mac, ref.link.mac);
        changed = true;
      }
      if (f.has(FaultId::kClcSkipPrefixCheck) && p->ip_prefix) {
        p->ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0x7f000000).set(clc::IpPrefixSpec::Field::PrefixLength, 8);
        p->ipv6_prefixes.clear();
        changed = true;
      }
      if (f.has(FaultId::kClcCheckReserved) && p->ip_prefix &&
          p->ip_prefix->get(clc::IpPrefixSpec::Field::Reserved) != 0) {
        // Refused the way a prefix the server does not share is refused.
        p->ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0);
        changed = true;
      }
      if (f.has(FaultId::kClcRefuseGrowth) && !p->v1_growth_area.empty() && p->ip_prefix) {
        // Octets of future growth taken for the prefix area: no prefix in common.
        p->ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0);
        changed = true;
      }
      if (f.has(FaultId::kClcSkipEidCheck) && p->v2_ext && !p->user_eids.empty()) {
        p->user_eids[0].set_octets(clc::EidSpec::Field::Eid, clc::make_eid("RDMACONF-TEST-EID"));
        changed = true;
      }
    } else if (auto* a = std::get_if<clc::AcceptConfirm>(&msg)) {
      if (a->type() == clc::MessageType::kAccept) {
        // Client-side checks switched off by rewriting the Accept into one
        // that passes them.
        const clc::V2Settings own = reference_client().v2;
        if (a->fce && f.has(FaultId::kClcSkipAcceptReleaseCheck) &&
            a->fce->get(clc::FirstContactExtSpec::Field::Release) > own.release) {
          a->fce->set(clc::FirstContactExtSpec::Field::Release, own.release);
          changed = true;
        }
        if (a->fce_v2x && f.has(FaultId::kClcSkipAcceptLimitsCheck)) {
          using XF = clc::FirstContactExtV2xSpec::Field;
          a->fce_v2x->set(XF::MaxConns, std::max<std::uint64_t>(a->fce_v2x->get(XF::MaxConns), 16));
          a->fce_v2x->set(XF::MaxLinks, std::clamp<std::uint64_t>(a->fce_v2x->get(XF::MaxLinks), 1, 2));
          changed = true;
        }
        if (!a->first_contact() && f.has(FaultId::kClcSkipFirstContactCheck)) {
          a->header.set(clc::ClcHeaderSpec::Field::TypeBits, a->header.get(clc::ClcHeaderSpec::Field::TypeBits) | 0x8);
          changed = true;
        }
      }
      if (f.has(FaultId::kClcSkipConfirmQpCheck) && a->smcr && a->smcr->get(clc::SmcrAcceptConfirmSpec::Field::QpNumber) < 2) {
        a->smcr->set(clc::SmcrAcceptConfirmSpec::Field::QpNumber, 0x600);
        changed = true;
      }
    }
    (void)HF::Type;
    if (changed) std::visit([](auto& x) { clc::finalize(x); }, msg);
    return changed;
  });
}

// A 48-bit MAC (a numeric field) with the IEEE 802 I/G bit set, the least
// significant bit of its first octet: a group address.
std::uint64_t group_mac(std::uint64_t mac) { return mac | (std::uint64_t{1} << 40); }

std::vector<std::uint8_t> patch_outgoing_clc(const FaultSet& f, std::vector<std::uint8_t> m) {
  using HF = clc::ClcHeaderSpec::Field;
  m = patch_clc(std::move(m), [&](clc::Message& msg) {
    bool changed = false;
    if (auto* a = std::get_if<clc::AcceptConfirm>(&msg); a && f.has(FaultId::kClcInconsistentAccept) &&
                                                         a->type() == clc::MessageType::kAccept) {
      a->header.set(HF::Version, a->version() == clc::kVersion1 ? clc::kVersion2 : clc::kVersion1);
      changed = true;
    }
    // SMC v2 (Linux smc_listen_find_device): the missing device is SMC-D's.
    if (auto* d = std::get_if<clc::Decline>(&msg);
        d && f.has(FaultId::kClcDeclineNamesOtherDevice) && d->diagnosis() == clc::kDeclNoSmcdDev) {
      d->body.set(clc::DeclineSpec::Field::PeerDiagnosis, clc::kDeclNoSmcrDev);
      changed = true;
    }
    if (auto* d = std::get_if<clc::Decline>(&msg); d && f.has(FaultId::kClcDeclineZeroDiagnosis)) {
      d->body.set(clc::DeclineSpec::Field::PeerDiagnosis, 0);
      changed = true;
    }
    // SMC v2 (Linux SMC_CLC_DECL_*): PEERDECL is a local reason, never sent.
    if (auto* d = std::get_if<clc::Decline>(&msg); d && f.has(FaultId::kClcDeclineLocalCode)) {
      d->body.set(clc::DeclineSpec::Field::PeerDiagnosis, clc::kDeclPeerDecl);
      changed = true;
    }
    if (auto* p = std::get_if<clc::Proposal>(&msg)) {
      if (f.has(FaultId::kClcMulticastMac)) {
        p->body.set(clc::ProposalBodySpec::Field::Mac, group_mac(p->body.get(clc::ProposalBodySpec::Field::Mac)));
        changed = true;
      }
      if (f.has(FaultId::kClcProposalNoPath)) {
        // Header bits 60-61 SMCv2 type, 62-63 SMCv1 type; 2 is "none".
        p->header.set(HF::TypeBits, (static_cast<std::uint64_t>(clc::SmcType::kNone) << 2) |
                                        static_cast<std::uint64_t>(clc::SmcType::kNone));
        changed = true;
      }
    }
    if (auto* a = std::get_if<clc::AcceptConfirm>(&msg)) {
      using RF = clc::SmcrAcceptConfirmSpec::Field;
      const bool accept = a->type() == clc::MessageType::kAccept;
      if (a->smcr && f.has(FaultId::kClcMulticastMac)) {
        a->smcr->set(RF::Mac, group_mac(a->smcr->get(RF::Mac)));
        changed = true;
      }
      if (a->smcr && f.has(FaultId::kClcRmbWraps)) {
        // 4 KiB below 2^64: smaller than any RMB (16 KiB and up).
        a->smcr->set(RF::RmbVirtualAddress, ~std::uint64_t{0} - 0xfff);
        changed = true;
      }
      if (accept && f.has(FaultId::kClcAcceptWrongPath)) {
        // Header bits 62-63 of an Accept: the path; First Contact stays.
        a->header.set(HF::TypeBits, (a->header.get(HF::TypeBits) & ~std::uint64_t{3}) |
                                        static_cast<std::uint64_t>(clc::SmcType::kD));
        changed = true;
      }
      if (accept && a->fce_v2x && f.has(FaultId::kClcV21LimitsOutOfRange)) {
        a->fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, 8).set(clc::FirstContactExtV2xSpec::Field::MaxLinks, 3);
        changed = true;
      }
      if (!accept && a->smcr && f.has(FaultId::kClcConfirmPeerIdChanged)) {
        a->smcr->set(RF::PeerId, a->smcr->get(RF::PeerId) ^ 1);
        changed = true;
      }
      if (!accept && f.has(FaultId::kClcConfirmOtherVersion)) {
        a->header.set(HF::Version, a->version() == clc::kVersion1 ? clc::kVersion2 : clc::kVersion1);
        changed = true;
      }
      if (!accept && f.has(FaultId::kClcConfirmIgnoresAccept)) {
        const clc::V2Settings own = reference_client().v2;
        if (a->fce) a->fce->set(clc::FirstContactExtSpec::Field::Release, own.release);
        if (a->fce_v2x)
          a->fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, own.max_conns)
              .set(clc::FirstContactExtV2xSpec::Field::MaxLinks, own.max_links);
        changed = a->fce.has_value();
      }
    }
    return changed;
  });
  // Fault (RFC 7609 App. A.2.2): the Proposal's IP Area Offset names four
  // octets of future growth that are not there.
  if (f.has(FaultId::kClcProposalOffsetWrong) && m.size() >= clc::kHeaderSize + clc::ProposalBodySpec::decl.size_octets &&
      Hdr::read(m, HF::Type) == static_cast<std::uint8_t>(clc::MessageType::kProposal)) {
    const wire::MutableBytes at = wire::MutableBytes(m).subspan(clc::kHeaderSize, clc::ProposalBodySpec::decl.size_octets);
    wire::Header<clc::ProposalBodySpec> body(wire::Bytes(at).first<clc::ProposalBodySpec::decl.size_octets>());
    using PF = clc::ProposalBodySpec::Field;
    body.set(PF::IpAreaOffset, body.get(PF::IpAreaOffset) + 4);
    std::copy(body.bytes().begin(), body.bytes().end(), at.begin());
  }
  if (f.has(FaultId::kClcWrongTrailer) && m.size() >= clc::kHeaderSize + clc::kTrailerSize)
    Trl::write(wire::MutableBytes(m).last(clc::kTrailerSize), clc::TrailerSpec::Field::Eyecatcher, clc::kEyecatcherSmcd);
  // RFC 7609 App. A.2: header bit 61 of an Accept or Decline is reserved
  // (the type bits' 0x4).
  const bool accept_or_decline = m.size() >= clc::kHeaderSize &&
                                 (Hdr::read(m, HF::Type) == static_cast<std::uint8_t>(clc::MessageType::kAccept) ||
                                  Hdr::read(m, HF::Type) == static_cast<std::uint8_t>(clc::MessageType::kDecline));
  if (f.has(FaultId::kClcReservedSet) && accept_or_decline) Hdr::write(m, HF::TypeBits, Hdr::read(m, HF::TypeBits) | 0x4);
  return m;
}

}  // namespace

void serve_clc(Socket& sock, const FaultSet& f, bool client) {
  if (f.has(FaultId::kClcNoTimer)) sock.lifetime = Clock::duration::max() / 2;
  std::unique_ptr<clc::ServerHandshake> server;
  std::unique_ptr<clc::ClientHandshake> cl;
  clc::ServerConfig server_cfg;  // as server: with the link groups a client may reuse
  clc::Step step;
  // The first link's queue pair and RMB, on the in-memory fabric the
  // smcr suite's tester finds by this connection's addresses
  // (smcr_memory.hpp): the Accept or Confirm names what exists.
  struct Forget {
    std::string key;
    ~Forget() { iut_connection_ended(key); }
  } const fabric{iut_exchange_key(sock.fd)};
  const clc::SmcrLink own = [&] {
    clc::SmcrLink l = client ? reference_client().link : reference_server().link;
    const IutFirstLink first = iut_first_link(fabric.key, l.rmbe_size);
    l.qp_number = first.qp_number;
    l.rmb_rkey = first.rmb_rkey;
    l.rmb_virtual_address = first.rmb_virtual_address;
    l.rmbe_alert_token = first.alert_token;
    return l;
  }();
  if (client) {
    clc::ClientConfig cfg = reference_client();
    cfg.link = own;
    cl = std::make_unique<clc::ClientHandshake>(cfg);
    step = cl->start(true);
  } else {
    server_cfg = reference_server();
    server_cfg.link = own;
    iut_link_groups(server_cfg, f);  // a client with a link group here reuses it (§3.5.2)
    server = std::make_unique<clc::ServerHandshake>(server_cfg);
    step = server->start(true);
  }
  std::vector<std::uint8_t> rx;
  // RFC 7609 App. C.5: each wait for the peer's next CLC message is bounded.
  auto clc_deadline = Clock::now() + kHandshakeTimer;
  for (;;) {
    if (!step.send.empty()) sock.send(patch_outgoing_clc(f, step.send));
    if (step.outcome) {
      if (step.outcome->kind == clc::OutcomeKind::kFailed) {
        sock.reset();  // Linux resets the connection on a CLC protocol error
        return;
      }
      if (step.outcome->kind == clc::OutcomeKind::kSmc && step.outcome->path == clc::SmcType::kR) {
        // Without first contact the Accept named the reused group's link
        // and the RMBE given to this connection (§3.5.2, §4.1).
        clc::SmcrLink named = own;
        for (std::size_t i = 0; !client && !step.outcome->first_contact && step.outcome->peer &&
                                i < server_cfg.link_groups.size() && i < server_cfg.link_group_links.size();
             ++i)
          if (server_cfg.link_groups[i].peer_id == step.outcome->peer->peer_id) named = server_cfg.link_group_links[i];
        iut_reached_smcr(fabric.key, !client, named, *step.outcome, f);
      }
      // SMC or a fallback: the TCP connection stays up until the peer ends it.
      std::vector<std::uint8_t> sink;
      while (sock.read(sink, 200ms)) {
        sink.clear();
        if (iut_smcr_reset(fabric.key) && !f.has(FaultId::kSmcrNoTcpReset)) {
          sock.reset();
          return;
        }
      }
      // RFC 7609 §4.8.2: the peer's RST on an SMC-R connection that saw no
      // A starts the abort on this side (smcr_memory.hpp).
      if (sock.reset_by_peer) iut_tcp_reset_received(fabric.key);
      return;
    }
    // One complete message (the header's Length says where it ends).
    for (;;) {
      if (rx.size() >= clc::kHeaderSize) {
        std::vector<std::uint8_t> hdr(rx.begin(), rx.begin() + clc::kHeaderSize);
        if (f.has(FaultId::kClcAcceptBadEyecatcher)) Hdr::write(hdr, clc::ClcHeaderSpec::Field::Eyecatcher, clc::kEyecatcherSmcr);
        auto len = clc::message_length(hdr);
        if (!len) break;
        if (rx.size() >= *len) break;
      }
      if (Clock::now() > clc_deadline && !f.has(FaultId::kClcNoTimer)) {
        step = client ? cl->on_timeout() : server->on_timeout();
        goto next;
      }
      if (!sock.read(rx)) return;
    }
    {
      std::vector<std::uint8_t> hdr(rx.begin(), rx.begin() + std::min(rx.size(), clc::kHeaderSize));
      if (f.has(FaultId::kClcAcceptBadEyecatcher) && hdr.size() >= clc::kHeaderSize)
        Hdr::write(hdr, clc::ClcHeaderSpec::Field::Eyecatcher, clc::kEyecatcherSmcr);
      auto len = hdr.size() >= clc::kHeaderSize ? clc::message_length(hdr) : wire::Result<std::size_t>(clc::kHeaderSize);
      const std::size_t n = len ? std::min(*len, rx.size()) : rx.size();
      std::vector<std::uint8_t> msg(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(n));
      rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(n));
      const auto type = msg.size() >= clc::kHeaderSize ? Hdr::read(msg, clc::ClcHeaderSpec::Field::Type) : 0;
      const bool is_decline = type == static_cast<std::uint8_t>(clc::MessageType::kDecline);
      const bool is_accept_confirm = type == static_cast<std::uint8_t>(clc::MessageType::kAccept) ||
                                     type == static_cast<std::uint8_t>(clc::MessageType::kConfirm);
      // Faults: what a receiver's rules take and a sender's refuse (a
      // Decline's reserved bits, a v2 Accept/Confirm's surplus octets) is
      // taken as a protocol error.
      if (((is_decline && f.has(FaultId::kClcCheckDeclineReserved)) ||
           (is_accept_confirm && f.has(FaultId::kClcRefuseSurplus))) &&
          !clc::decode(msg).ok() && clc::decode(msg, clc::DecodeRules::kReceiver).ok()) {
        sock.reset();
        return;
      }
      msg = patch_incoming_clc(f, std::move(msg));
      clc_deadline = Clock::now() + kHandshakeTimer;
      step = client ? cl->on_message(msg) : server->on_message(msg);
      if (is_decline && f.has(FaultId::kClcAnswerDecline))
        step.send = clc::encode(clc::build_decline(clc::kVersion2, reference_server().link.peer_id, clc::kDeclPeerDecl, clc::kOsLinux));
    }
  next:;
  }
}

}  // namespace rdmaconf::conformance::iut
