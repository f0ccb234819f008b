// The observer on an SMC CLC exchange (observer.hpp): message format and
// order, and field consistency across Proposal, Accept and Confirm (RFC 7609
// App. A, C; SMC v2 as Linux implements it), Decline rules.
#include "analysis/observer_internal.hpp"
#include "clc/decline_codes.hpp"

namespace rdmaconf::analysis {

using namespace observer_detail;
using wire::Bytes;

// --------------------------------------------------------------------- CLC

ConnectionObserver::Consumed ConnectionObserver::clc_stream(Direction& d, FrameNo frame, wire::Bytes rest,
                                                            FrameNo first_frame) {
  if (clc_done_) {
    // After a Confirm nothing more is CLC; after a Decline the connection
    // falls back to plain TCP (RFC 7609 App. C.1).
    d.mode = Direction::Mode::kOpaque;
    return {};
  }
  if (rest.size() < clc::kHeaderSize) return {0, clc::kHeaderSize};
  auto len = clc::message_length(rest.first(clc::kHeaderSize));
  if (!len) {
    violate(rules::kClcFormat, d.side, frame, d.consumed_to, len.error().to_string());
    d.mode = Direction::Mode::kOpaque;
    return {};
  }
  if (rest.size() < *len) return {0, *len};
  const wire::Bytes octets = rest.first(*len);
  ++d.stats.clc_messages;
  auto m = clc::decode(octets);
  if (!m) {
    violate(rules::kClcFormat, d.side, frame, d.consumed_to, m.error().to_string());
    // The peer takes what a receiver's rules allow (a Decline's reserved
    // bits, a v2 Accept's surplus octets, clc::DecodeRules): the exchange
    // goes on as the peer sees it.
    m = clc::decode(octets, clc::DecodeRules::kReceiver);
  }
  if (m) on_clc(d, *m, octets, first_frame, frame, d.consumed_to);
  return {*len, 0};
}

void ConnectionObserver::on_clc(Direction& d, const clc::Message& m, wire::Bytes octets, FrameNo first_frame,
                                FrameNo frame, std::uint64_t offset) {
  using clc::MessageType;
  const MessageType type = clc::message_type(m);
  ++d.clc_types[static_cast<std::size_t>(type) % d.clc_types.size()];
  if (!clc_option_checked_ && syn_seen_[0] && syn_seen_[1]) {
    clc_option_checked_ = true;
    if (!(syn_smc_[0] && syn_smc_[1]))
      violate(rules::kClcWithoutOption, d.side, frame, offset,
              std::string("SMC option in SYN: ") + (syn_smc_[0] ? "yes" : "no") + ", in SYN-ACK: " +
                  (syn_smc_[1] ? "yes" : "no"));
  }
  Message msg;
  msg.kind = MessageKind::kClc;
  msg.side = d.side;
  msg.first_frame = first_frame;
  msg.frame = frame;
  msg.stream_offset = offset;
  msg.octets = octets.size();
  msg.clc = &m;
  msg.clc_octets = octets;
  sink_.on_message(msg);

  const bool client = d.side == Side::kInitiator;
  auto order = [&](std::string what) { violate(rules::kClcOrder, d.side, frame, offset, std::move(what)); };
  switch (type) {
    case MessageType::kProposal: {
      const auto& p = std::get<clc::Proposal>(m);
      if (!client || proposal_) order(client ? "a second Proposal" : "a Proposal from the server");
      using PF = clc::ProposalBodySpec::Field;
      // Peer ID, GID and MAC are the client's identity only on a v1 SMC-R
      // offer; a v2-only Proposal leaves them zero (clc::Proposal::v1_smcr_identity).
      if (p.v1_smcr_identity()) {
        if (p.body.get(PF::PeerId) == 0)
          violate(rules::kProposalPeerId, d.side, frame, offset,
                  "Proposal offers SMC-R v1 with peer ID 0 (the Peer ID names the client's SMC-R instance)");
        if (all_zero(p.body.octets(PF::Gid)) || !unicast_mac(p.body.octets(PF::Mac)))
          violate(rules::kProposalGidMac, d.side, frame, offset,
                  "Proposal offers SMC-R v1 with GID " + std::string(all_zero(p.body.octets(PF::Gid)) ? "zero" : "set") +
                      " and MAC " + hex_octets(p.body.octets(PF::Mac)) + " (GID must be set, MAC unicast)");
      }
      if (!proposal_) proposal_ = p;
      break;
    }
    case MessageType::kAccept: {
      const auto& a = std::get<clc::AcceptConfirm>(m);
      if (client || !proposal_ || accept_) order(client ? "an Accept from the client" : "an Accept out of order");
      if (proposal_ && !accept_) check_accept(d, a, frame, offset);
      if (!accept_) accept_ = a;
      break;
    }
    case MessageType::kConfirm: {
      const auto& c = std::get<clc::AcceptConfirm>(m);
      if (!client || !accept_) order(!client ? "a Confirm from the server" : "a Confirm before any Accept");
      if (accept_ && proposal_) check_confirm(d, c, frame, offset);
      clc_done_ = true;
      break;
    }
    case MessageType::kDecline: {
      const auto& dc = std::get<clc::Decline>(m);
      if (dc.out_of_sync() != clc::requires_out_of_sync(dc.diagnosis()))
        violate(rules::kDeclineOutOfSync, d.side, frame, offset,
                "diagnosis " + hex(dc.diagnosis()) + " with Out of Sync " + std::to_string(dc.out_of_sync()));
      if (const clc::DeclineCode* code = clc::find_decline_code(dc.diagnosis()); code && !code->on_wire)
        violate(rules::kDeclineCodeOnWire, d.side, frame, offset,
                "diagnosis " + std::string(code->linux_name) + " is a local reason");
      clc_done_ = true;
      break;
    }
  }
}

namespace {
using RF = clc::SmcrAcceptConfirmSpec::Field;
bool same(Bytes a, Bytes b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
}  // namespace

void ConnectionObserver::check_accept(Direction& d, const clc::AcceptConfirm& a, FrameNo frame, std::uint64_t offset) {
  const clc::Proposal& p = *proposal_;
  const std::uint8_t v = a.version();
  const clc::SmcType offered =
      v == clc::kVersion1 ? p.smcv1_type() : v == clc::kVersion2 ? p.smcv2_type() : clc::SmcType::kNone;
  auto bad = [&](const Rule& r, std::string text) { violate(r, d.side, frame, offset, std::move(text)); };
  if (offered == clc::SmcType::kNone) bad(rules::kAcceptVersion, "Accept version " + std::to_string(v) + " not offered");
  const clc::SmcType path = a.smc_type();
  const bool path_ok = (path == clc::SmcType::kR && clc::offers_r(offered)) ||
                       (path == clc::SmcType::kD && clc::offers_d(offered));
  if (offered != clc::SmcType::kNone && !path_ok) bad(rules::kAcceptPath, "Accept path not offered for its version");
  // What follows compares the Accept with the offer for its version and
  // path; an Accept outside the offer has nothing there to compare with.
  if (offered == clc::SmcType::kNone || !path_ok) return;
  if (a.smcr) {
    const clc::SmcrBody& b = *a.smcr;
    if (b.get(RF::PeerId) == 0 || all_zero(b.octets(RF::Gid)) || !unicast_mac(b.octets(RF::Mac)))
      bad(rules::kAcceptPeer, "Accept peer ID or GID zero, or MAC not unicast");
    if (b.get(RF::QpNumber) < 2) bad(rules::kAcceptQp, "Accept QP " + std::to_string(b.get(RF::QpNumber)));
    if (!clc::rmb_valid(b)) bad(rules::kAcceptRmb, "Accept RMBE index 0 or RMB wraps");
  }
  if (v == clc::kVersion2 && a.smcr_v2) {
    const Bytes eid = a.smcr_v2->octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid);
    const bool offered_eid = std::any_of(p.user_eids.begin(), p.user_eids.end(), [&](const clc::EidEntry& e) {
      return same(e.octets(clc::EidSpec::Field::Eid), eid);
    });
    if (!offered_eid) bad(rules::kAcceptEid, "Accept EID not among the Proposal's");
  }
  if (v == clc::kVersion2 && a.fce && p.v2_ext) {
    const auto release = a.fce->get(clc::FirstContactExtSpec::Field::Release);
    if (release > p.v2_ext->get(clc::V2ExtensionSpec::Field::Release))
      bad(rules::kAcceptRelease, "Accept release " + std::to_string(release) + " above the Proposal's");
    if (release >= clc::kRelease1 && a.fce_v2x) {
      const auto conns = a.fce_v2x->get(clc::FirstContactExtV2xSpec::Field::MaxConns);
      const auto links = a.fce_v2x->get(clc::FirstContactExtV2xSpec::Field::MaxLinks);
      if (conns < 16) bad(rules::kAcceptMaxConns, "Max Conns " + std::to_string(conns));
      if (links < 1 || links > 2) bad(rules::kAcceptMaxLinks, "Max Links " + std::to_string(links));
    }
  }
}

void ConnectionObserver::check_confirm(Direction& d, const clc::AcceptConfirm& c, FrameNo frame, std::uint64_t offset) {
  const clc::AcceptConfirm& a = *accept_;
  auto bad = [&](const Rule& r, std::string text) { violate(r, d.side, frame, offset, std::move(text)); };
  if (c.version() != a.version())
    bad(rules::kConfirmVersion, "Confirm version " + std::to_string(c.version()) + ", Accept's " + std::to_string(a.version()));
  if (c.smc_type() != a.smc_type()) bad(rules::kConfirmPath, "Confirm path differs from the Accept's");
  if (c.first_contact() != a.first_contact()) bad(rules::kConfirmFirstContact, "First Contact differs from the Accept's");
  if (c.smcr) {
    const clc::SmcrBody& b = *c.smcr;
    if (proposal_->v1_smcr_identity() && b.get(RF::PeerId) != proposal_->body.get(clc::ProposalBodySpec::Field::PeerId))
      bad(rules::kConfirmPeerId, "Confirm peer ID " + hex(b.get(RF::PeerId)) + " differs from the Proposal's " +
                                     hex(proposal_->body.get(clc::ProposalBodySpec::Field::PeerId)));
    if (all_zero(b.octets(RF::Gid)) || !unicast_mac(b.octets(RF::Mac)))
      bad(rules::kConfirmPeer, "Confirm GID zero or MAC not unicast");
    if (b.get(RF::QpNumber) < 2) bad(rules::kConfirmQp, "Confirm QP " + std::to_string(b.get(RF::QpNumber)));
    if (!clc::rmb_valid(b)) bad(rules::kConfirmRmb, "Confirm RMBE index 0 or RMB wraps");
    if (a.smcr && b.get(RF::QpMtu) > a.smcr->get(RF::QpMtu))
      bad(rules::kConfirmMtu, "Confirm QP MTU " + std::to_string(b.get(RF::QpMtu)) + " above the Accept's " +
                                  std::to_string(a.smcr->get(RF::QpMtu)));
  }
  if (c.smcr_v2 && a.smcr_v2 &&
      !same(c.smcr_v2->octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid),
            a.smcr_v2->octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid)))
    bad(rules::kConfirmEid, "Confirm EID differs from the Accept's");
  if (c.fce && a.fce) {
    const auto release = a.fce->get(clc::FirstContactExtSpec::Field::Release);
    if (c.fce->get(clc::FirstContactExtSpec::Field::Release) != release)
      bad(rules::kConfirmRelease, "Confirm release differs from the Accept's");
    if (release >= clc::kRelease1 && c.fce_v2x && a.fce_v2x) {
      using XF = clc::FirstContactExtV2xSpec::Field;
      if (c.fce_v2x->get(XF::MaxConns) != a.fce_v2x->get(XF::MaxConns))
        bad(rules::kConfirmMaxConns, "Confirm Max Conns differs from the Accept's");
      if (c.fce_v2x->get(XF::MaxLinks) != a.fce_v2x->get(XF::MaxLinks))
        bad(rules::kConfirmMaxLinks, "Confirm Max Links differs from the Accept's");
    }
  }
}


}  // namespace rdmaconf::analysis
