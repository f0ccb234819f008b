// The observer on an SMC CLC exchange (observer.hpp): message format and
// order, and field consistency across Proposal, Accept and Confirm (RFC 7609
// App. A, C; SMC v2 as Linux implements it), Decline rules.
#include "analysis/observer_internal.hpp"
#include "check/clc.hpp"
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
      // offer; the rules judge nothing else (clc::Proposal::v1_smcr_identity).
      if (auto v = check::proposal_peer_id(p))
        violate(*v->rule, d.side, frame, offset,
                "Proposal offers SMC-R v1 with peer ID 0 (the Peer ID names the client's SMC-R instance)");
      if (auto v = check::proposal_gid_mac(p))
        violate(*v->rule, d.side, frame, offset,
                "Proposal offers SMC-R v1 with GID " + std::string(all_zero(p.body.octets(PF::Gid)) ? "zero" : "set") +
                    " and MAC " + hex_octets(p.body.octets(PF::Mac)) + " (GID must be set, MAC unicast)");
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
      if (auto v = check::decline_out_of_sync(dc))
        violate(*v->rule, d.side, frame, offset,
                "diagnosis " + hex(dc.diagnosis()) + " with Out of Sync " + std::to_string(dc.out_of_sync()));
      if (auto v = check::decline_code_on_wire(dc))
        violate(*v->rule, d.side, frame, offset,
                "diagnosis " + std::string(clc::find_decline_code(dc.diagnosis())->linux_name) + " is a local reason");
      clc_done_ = true;
      break;
    }
  }
}

namespace {
using RF = clc::SmcrAcceptConfirmSpec::Field;
}  // namespace

// The rules between Proposal and Accept are the rule layer's (check/clc.hpp),
// which the client's handshake machine declines on; here they are worded.
void ConnectionObserver::check_accept(Direction& d, const clc::AcceptConfirm& a, FrameNo frame, std::uint64_t offset) {
  const clc::Proposal& p = *proposal_;
  const std::uint8_t v = a.version();
  // Worded only when a rule is broken.
  auto bad = [&](const check::Outcome& o, std::string text) { violate(*o->rule, d.side, frame, offset, std::move(text)); };
  const check::Outcome version = check::accept_version_offered(p, a);
  if (version) bad(version, "Accept version " + std::to_string(v) + " not offered");
  const check::Outcome path = check::accept_path_offered(p, a);
  if (path) bad(path, "Accept path not offered for its version");
  // What follows compares the Accept with the offer for its version and
  // path; an Accept outside the offer has nothing there to compare with.
  if (version || path) return;
  if (a.smcr) {
    const clc::SmcrBody& b = *a.smcr;
    if (auto o = check::accept_peer_valid(b)) bad(o, "Accept peer ID or GID zero, or MAC not unicast");
    if (auto o = check::accept_qp_number(b)) bad(o, "Accept QP " + std::to_string(b.get(RF::QpNumber)));
    if (auto o = check::accept_rmb_valid(b)) bad(o, "Accept RMBE index 0 or RMB wraps");
  }
  if (auto o = check::accept_eid_offered(p, a)) bad(o, "Accept EID not among the Proposal's");
  if (auto o = check::accept_release(p, a))
    bad(o, "Accept release " + std::to_string(o->seen) + " above the Proposal's");
  if (auto o = check::accept_max_conns(a)) bad(o, "Max Conns " + std::to_string(o->seen));
  if (auto o = check::accept_max_links(a)) bad(o, "Max Links " + std::to_string(o->seen));
}

// The rules between Accept and Confirm (check/clc.hpp), which the server's
// handshake machine declines on.
void ConnectionObserver::check_confirm(Direction& d, const clc::AcceptConfirm& c, FrameNo frame, std::uint64_t offset) {
  const clc::AcceptConfirm& a = *accept_;
  // Worded only when a rule is broken.
  auto bad = [&](const check::Outcome& o, std::string text) { violate(*o->rule, d.side, frame, offset, std::move(text)); };
  if (auto o = check::confirm_version(a, c))
    bad(o, "Confirm version " + std::to_string(c.version()) + ", Accept's " + std::to_string(a.version()));
  if (auto o = check::confirm_path(a, c)) bad(o, "Confirm path differs from the Accept's");
  if (auto o = check::confirm_first_contact(a, c)) bad(o, "First Contact differs from the Accept's");
  if (c.smcr) {
    const clc::SmcrBody& b = *c.smcr;
    if (auto o = check::confirm_peer_id(*proposal_, b))
      bad(o, "Confirm peer ID " + hex(o->seen) + " differs from the Proposal's " + hex(o->expected));
    if (auto o = check::confirm_peer_valid(b)) bad(o, "Confirm GID zero or MAC not unicast");
    if (auto o = check::confirm_qp_number(b)) bad(o, "Confirm QP " + std::to_string(b.get(RF::QpNumber)));
    if (auto o = check::confirm_rmb_valid(b)) bad(o, "Confirm RMBE index 0 or RMB wraps");
    if (auto o = check::confirm_mtu(a, c))
      bad(o, "Confirm QP MTU " + std::to_string(o->seen) + " above the Accept's " + std::to_string(o->expected));
  }
  if (auto o = check::confirm_eid(a, c)) bad(o, "Confirm EID differs from the Accept's");
  if (auto o = check::confirm_release(a, c)) bad(o, "Confirm release differs from the Accept's");
  if (auto o = check::confirm_max_conns(a, c)) bad(o, "Confirm Max Conns differs from the Accept's");
  if (auto o = check::confirm_max_links(a, c)) bad(o, "Confirm Max Links differs from the Accept's");
}

}  // namespace rdmaconf::analysis
