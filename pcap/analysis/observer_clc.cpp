// The observer on an SMC CLC exchange (observer.hpp): message format and
// order, and field consistency across Proposal, Accept and Confirm (RFC 7609
// App. A, C; SMC v2 as Linux implements it), Decline rules.
#include "analysis/observer_internal.hpp"
#include "check/clc.hpp"
#include "check/smc_tcp.hpp"
#include "clc/decline_codes.hpp"

namespace rdmaconf::analysis {

using namespace observer_detail;
using wire::Bytes;

// How the observer words a broken CLC rule: the rule's values and the
// message's, one sentence per rule. A rule only a side can judge is never
// broken in a capture; its phrase words it all the same.
namespace {
using PF = clc::ProposalBodySpec::Field;
using std::to_string;

std::string proposal_words(const check::Violation& v, const clc::Proposal& p) {
  if (v.rule == &check::kProposalPeerId)
    return "Proposal offers SMC-R v1 with peer ID 0 (the Peer ID names the client's SMC-R instance)";
  if (v.rule == &check::kProposalGidMac)
    return "Proposal offers SMC-R v1 with GID " + std::string(all_zero(p.body.octets(PF::Gid)) ? "zero" : "set") +
           " and MAC " + hex_octets(p.body.octets(PF::Mac)) + " (GID must be set, MAC unicast)";
  return std::string(v.rule->summary);
}

std::string accept_words(const check::Violation& v, const clc::AcceptConfirm& a) {
  const check::Rule* r = v.rule;
  if (r == &check::kAcceptVersion) return "Accept version " + to_string(a.version()) + " not offered";
  if (r == &check::kAcceptPath) return "Accept path not offered for its version";
  if (r == &check::kAcceptPeer) return "Accept peer ID or GID zero, or MAC not unicast";
  if (r == &check::kAcceptQp) return "Accept QP " + to_string(v.seen);
  if (r == &check::kAcceptRmb) return "Accept RMBE index 0 or RMB wraps";
  if (r == &check::kAcceptEid) return "Accept EID not among the Proposal's";
  if (r == &check::kAcceptRelease) return "Accept release " + to_string(v.seen) + " above the Proposal's";
  if (r == &check::kAcceptMaxConns) return "Max Conns " + to_string(v.seen);
  if (r == &check::kAcceptMaxLinks) return "Max Links " + to_string(v.seen);
  return std::string(r->summary);
}

std::string confirm_words(const check::Violation& v, const clc::AcceptConfirm& a, const clc::AcceptConfirm& c) {
  const check::Rule* r = v.rule;
  if (r == &check::kConfirmVersion)
    return "Confirm version " + to_string(c.version()) + ", Accept's " + to_string(a.version());
  if (r == &check::kConfirmPath) return "Confirm path differs from the Accept's";
  if (r == &check::kConfirmFirstContact) return "First Contact differs from the Accept's";
  if (r == &check::kConfirmPeerId)
    return "Confirm peer ID " + hex(v.seen) + " differs from the Proposal's " + hex(v.expected);
  if (r == &check::kConfirmPeer) return "Confirm GID zero or MAC not unicast";
  if (r == &check::kConfirmQp) return "Confirm QP " + to_string(v.seen);
  if (r == &check::kConfirmRmb) return "Confirm RMBE index 0 or RMB wraps";
  if (r == &check::kConfirmMtu)
    return "Confirm QP MTU " + to_string(v.seen) + " above the Accept's " + to_string(v.expected);
  if (r == &check::kConfirmEid) return "Confirm EID differs from the Accept's";
  if (r == &check::kConfirmRelease) return "Confirm release differs from the Accept's";
  if (r == &check::kConfirmMaxConns) return "Confirm Max Conns differs from the Accept's";
  if (r == &check::kConfirmMaxLinks) return "Confirm Max Links differs from the Accept's";
  return std::string(r->summary);
}

std::string decline_words(const check::Violation& v, const clc::Decline& dc) {
  if (v.rule == &check::kDeclineOutOfSync)
    return "diagnosis " + hex(dc.diagnosis()) + " with Out of Sync " + to_string(dc.out_of_sync());
  if (v.rule == &check::kDeclineCodeOnWire)
    return "diagnosis " + std::string(clc::find_decline_code(dc.diagnosis())->linux_name) + " is a local reason";
  return std::string(v.rule->summary);
}
}  // namespace

// ------------------------------------------------ the SMC option (§3.1, A.1)

namespace {
std::string option_words(const clc::ExperimentalOption& o) {
  return "kind " + to_string(o.kind) + ", length " + to_string(o.length) + ", ExID " +
         (o.length >= clc::kTcpOptionLengthSmc ? hex(o.exid) : hex(o.exid >> 16));
}
std::string syn_words(const check::SynSmc (&syn)[2]) {
  return std::string("SMC option in SYN: ") + (syn[0].option ? "yes" : "no") + ", in SYN-ACK: " +
         (syn[1].option ? "yes" : "no");
}
}  // namespace

void ConnectionObserver::on_syn_options(Side side, FrameNo frame, const clc::SynExperimentalOptions& experimental) {
  check::SynSmc& syn = syn_smc_[static_cast<int>(side)];
  syn.experimental = experimental;
  // An option with the SMC ExID names SMC whether or not CLC follows.
  for (const clc::ExperimentalOption& o : experimental.kept())
    if (auto v = check::option_kind(o))
      violate(*v->rule, side, frame, 0,
              "SMC option as " + option_words(o) + " (App. A.1: kind 254, length 6)");
}

// A side's first CLC message, against the SYNs (both seen: a capture that
// starts later cannot tell what they carried).
void ConnectionObserver::judge_option(Direction& d, FrameNo frame, std::uint64_t offset) {
  const int me = static_cast<int>(d.side);
  if (clc_sent_[me] || !syn_seen_[0] || !syn_seen_[1]) return;
  const bool first = !clc_sent_[0] && !clc_sent_[1];
  clc_sent_[me] = true;
  const check::SynSmc& syn = syn_smc_[0];
  const check::SynSmc& synack = syn_smc_[1];
  const check::SynSmc& mine = syn_smc_[me];
  auto report = [&](const check::Outcome& v, const std::string& text) {
    if (v) violate(*v->rule, d.side, frame, offset, text);
  };
  if (first) report(check::both_or_tcp(syn, synack), "CLC after a handshake without the option on both sides: " +
                                                         syn_words(syn_smc_));
  if (auto v = check::option_exid(mine)) {
    std::string option;
    for (const clc::ExperimentalOption& o : mine.experimental.kept())
      if (option.empty() && o.exid == v->seen) option = option_words(o);
    report(v, std::string(d.side == Side::kInitiator ? "client" : "server") + " speaks CLC after a " +
                  (d.side == Side::kInitiator ? "SYN" : "SYN-ACK") + " whose experimental option is " + option +
                  ", without the SMC ExID " + hex(clc::kTcpOptionSmcExId));
  }
  if (d.side == Side::kInitiator) {
    report(check::option_in_syn(syn), "client speaks CLC after a SYN without the SMC option");
  } else {
    report(check::option_in_synack(syn, synack), "server speaks CLC after a SYN-ACK without the SMC option the SYN carried");
    report(check::no_clc_without_option(synack), "server speaks CLC after a SYN-ACK without the SMC option");
  }
}

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
  judge_option(d, frame, offset);
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
      // The Proposal's rules (check::proposal_rules, the server machine's
      // list); a capture knows nothing of the server, so only the client's
      // identity is judged: Peer ID, GID and MAC, on a v1 SMC-R offer.
      for (const check::Violation& v : check::proposal_rules(p, nullptr).broken)
        violate(*v.rule, d.side, frame, offset, proposal_words(v, p));
      if (!proposal_) proposal_ = p;
      break;
    }
    case MessageType::kAccept: {
      const auto& a = std::get<clc::AcceptConfirm>(m);
      fce_absent(d, a, octets, frame, offset);
      if (client || !proposal_ || accept_) order(client ? "an Accept from the client" : "an Accept out of order");
      if (proposal_ && !accept_) check_accept(d, a, frame, offset);
      if (!accept_) accept_ = a;
      break;
    }
    case MessageType::kConfirm: {
      const auto& c = std::get<clc::AcceptConfirm>(m);
      fce_absent(d, c, octets, frame, offset);
      if (!client || !accept_) order(!client ? "a Confirm from the server" : "a Confirm before any Accept");
      if (accept_ && proposal_) check_confirm(d, c, frame, offset);
      clc_done_ = true;
      break;
    }
    case MessageType::kDecline: {
      const auto& dc = std::get<clc::Decline>(m);
      for (const check::Violation& v : check::decline_rules(dc)) violate(*v.rule, d.side, frame, offset, decline_words(v, dc));
      clc_done_ = true;
      break;
    }
  }
}

// SMC v2 (smc_clc_fill_fce): an Accept or Confirm without First Contact
// carries no first-contact extension; its octets are judged as sent.
void ConnectionObserver::fce_absent(Direction& d, const clc::AcceptConfirm& m, wire::Bytes octets, FrameNo frame,
                                    std::uint64_t offset) {
  if (auto v = check::fce_absent(m, octets))
    violate(*v->rule, d.side, frame, offset,
            std::string(m.type() == clc::MessageType::kAccept ? "Accept" : "Confirm") + " without First Contact ends with a " +
                to_string(v->seen) + "-octet first-contact extension");
}

// The rules between Proposal and Accept, in the order the client's handshake
// machine judges them (check::accept_rules); here they are worded. The
// capture has no client's link groups to judge a reused one against.
void ConnectionObserver::check_accept(Direction& d, const clc::AcceptConfirm& a, FrameNo frame, std::uint64_t offset) {
  for (const check::Violation& v : check::accept_rules(*proposal_, a, nullptr))
    violate(*v.rule, d.side, frame, offset, accept_words(v, a));
}

// The rules between Accept and Confirm, in the order the server's handshake
// machine judges them (check::confirm_rules); the capture has no server's
// link groups.
void ConnectionObserver::check_confirm(Direction& d, const clc::AcceptConfirm& c, FrameNo frame, std::uint64_t offset) {
  for (const check::Violation& v : check::confirm_rules(*proposal_, *accept_, c, nullptr))
    violate(*v.rule, d.side, frame, offset, confirm_words(v, *accept_, c));
}

}  // namespace rdmaconf::analysis
