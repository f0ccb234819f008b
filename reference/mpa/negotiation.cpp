#include "mpa/negotiation.hpp"

#include "check/mpa_startup.hpp"

#include <algorithm>
#include <utility>

namespace rdmaconf::mpa {
namespace {

using F = ReqRepSpec::Field;

std::size_t private_data_limit(bool enhanced) {
  return kMaxPrivateDataLength - (enhanced ? kEnhancedDataSize : 0);
}

RtrKinds offered_by(const EnhancedData& e) { return RtrKinds{e.rtr_send, e.rtr_write, e.rtr_read}; }

wire::DecodeError frame_rule(F field, std::string_view rule, std::string_view section) {
  const wire::FieldDecl& d = ReqRepHeader::field_decl(field);
  return wire::DecodeError{d.name, rule, section, d.octet_offset()};
}

bool is_field(const wire::DecodeError& e, F field) { return e.field == ReqRepHeader::field_decl(field).name; }

// The three ways a failed startup ends (RFC 5044 §7.1.2, §8): the
// connection closed with nothing sent; the responder's Reply with R set,
// then the close; an LLP Terminate, then the close.
NegotiationFailure closing(FailureKind kind, std::string_view reason, std::optional<std::uint8_t> peer_revision = {},
                           wire::Bytes peer_private_data = {}, std::optional<wire::DecodeError> error = {}) {
  return {.kind = kind,
          .action = FailureAction::kClose,
          .terminate_code = std::nullopt,
          .decode_error = error,
          .reason = reason,
          .peer_revision = peer_revision,
          .peer_private_data = peer_private_data};
}

NegotiationFailure rejecting(FailureKind kind, std::string_view reason, std::optional<std::uint8_t> peer_revision,
                             wire::Bytes peer_private_data, std::optional<wire::DecodeError> error = {}) {
  return {.kind = kind,
          .action = FailureAction::kSendRejectThenClose,
          .terminate_code = std::nullopt,
          .decode_error = error,
          .reason = reason,
          .peer_revision = peer_revision,
          .peer_private_data = peer_private_data};
}

NegotiationFailure terminating(FailureKind kind, LlpErrorCode code, std::string_view reason,
                               std::optional<std::uint8_t> peer_revision, wire::Bytes peer_private_data,
                               std::optional<wire::DecodeError> error = {}) {
  return {.kind = kind,
          .action = FailureAction::kSendTerminateThenClose,
          .terminate_code = code,
          .decode_error = error,
          .reason = reason,
          .peer_revision = peer_revision,
          .peer_private_data = peer_private_data};
}

// RFC 5044 §7.1.1, §8: a peer frame that does not decode. The initiator
// answers a bad Reply with LLP error 0x04; a responder closes.
NegotiationFailure invalid_frame(bool initiator, const wire::DecodeError& error) {
  constexpr std::string_view kReason = "invalid MPA Request/Reply (RFC 5044 §7.1.1, §8)";
  if (initiator)
    return terminating(FailureKind::kMalformedFrame, LlpErrorCode::kInvalidRequestOrReply, kReason, std::nullopt, {},
                       error);
  return closing(FailureKind::kMalformedFrame, kReason, std::nullopt, {}, error);
}

// RFC 5044 §7.1.4: our own private data does not fit the frame.
NegotiationFailure private_data_too_long(std::string_view reason) {
  return closing(FailureKind::kMalformedFrame, reason, std::nullopt, {},
                 frame_rule(F::PD_Length, "local private data exceeds the limit", cite::kPrivateData));
}

// The responder's side of RFC 6581's exchange for a Request that carries
// the enhanced block: the IRD/ORD it answers (§9.1) and, in the peer-to-peer
// model, the RTR kinds it sets (§9.2). Fills `out`; `no_matching_rtr` when
// this responder can receive no RTR kind at all.
EnhancedData answer_enhanced(const NegotiationConfig& config, const EnhancedData& theirs, NegotiationOutcome& out,
                             bool& no_matching_rtr) {
  EnhancedData ours;
  // RFC 6581 §9.1: our ORD never exceeds the initiator's IRD; our IRD is
  // what we have (the initiator lowers its ORD to it if it must). 0x3FFF
  // asks for no automatic negotiation: an initiator ORD of 0x3FFF leaves
  // our IRD as it is and is answered with IRD 0x3FFF; an initiator IRD of
  // 0x3FFF leaves our ORD as it is and is answered with ORD 0x3FFF.
  const std::uint16_t local_ird = std::min(config.ird, kMaxIrdOrd);
  const std::uint16_t local_ord = theirs.ird == kMaxIrdOrd ? std::min(config.ord, kMaxIrdOrd)
                                                           : std::min({config.ord, theirs.ird, kMaxIrdOrd});
  ours.ird = theirs.ord == kMaxIrdOrd ? kMaxIrdOrd : local_ird;
  ours.ord = theirs.ird == kMaxIrdOrd ? kMaxIrdOrd : local_ord;
  if (theirs.peer_to_peer) {
    // RFC 6581 §9.2: A is echoed; the Reply sets every offered RTR kind
    // we can receive (a SHOULD), and when there is none, every kind we
    // can receive (at least one is a MUST). The initiator picks one of
    // them, or terminates with code 0x07 if it can send none.
    ours.peer_to_peer = true;
    RtrKinds usable = config.rtr;
    // A zero-length Read needs a Read credit on both sides.
    if (local_ird == 0 || theirs.ord == 0) usable.read = false;
    const RtrKinds offered = offered_by(theirs);
    RtrKinds set{usable.send && offered.send, usable.write && offered.write, usable.read && offered.read};
    if (set.empty()) set = usable;
    ours.rtr_send = set.send;
    ours.rtr_write = set.write;
    ours.rtr_read = set.read;
    // Only a responder that can receive no RTR kind at all has none to set.
    no_matching_rtr = set.empty();
    out.peer_to_peer = true;
    out.rtr_to_expect = set;
  }
  out.enhanced = true;
  out.ird = local_ird;
  out.ord = local_ord;
  out.peer_ird = theirs.ird;
  out.peer_ord = theirs.ord;
  return ours;
}

// The initiator's side of RFC 6581's exchange on an accepting Reply that
// carries the enhanced block: the IRD/ORD settled (§9.1) and, in the
// peer-to-peer model, A echoed and the RTR kind chosen (§9.2). Fills `out`,
// or says how the startup fails.
std::optional<NegotiationFailure> settle_reply_enhanced(const NegotiationConfig& config, const EnhancedData& ours,
                                                        const ReqRepFrame& reply, NegotiationOutcome& out) {
  auto terminate = [&](FailureKind kind, LlpErrorCode code, std::string_view reason,
                       std::optional<wire::DecodeError> detail = std::nullopt) {
    return terminating(kind, code, reason, reply.revision, reply.ulp_private_data, detail);
  };
  const EnhancedData& theirs = *reply.enhanced_data;
  out.enhanced = true;
  out.ird = ours.ird;
  out.peer_ird = theirs.ird;
  out.peer_ord = theirs.ord;
  if (check::responder_ord(ours, theirs))
    return terminate(FailureKind::kInsufficientIrd, LlpErrorCode::kInsufficientIrd,
                     "responder's ORD exceeds our IRD (RFC 6581 §9.1)");
  out.ord = ours.ord;
  if (theirs.ird != kMaxIrdOrd && theirs.ird < ours.ord) {
    if (!config.allow_ord_reduction)
      return terminate(FailureKind::kInsufficientIrd, LlpErrorCode::kInsufficientIrd,
                       "responder's IRD is below our ORD (RFC 6581 §9)");
    out.ord = theirs.ird;
  }
  // RFC 6581 §9.2 (check/mpa_startup.hpp): A echoed. A Reply that clears
  // the A we set leaves no RTR to start the peer-to-peer model: code 0x07;
  // one that sets A we did not is an invalid Reply: code 0x04.
  if (check::p2p_echo(ours, theirs)) {
    if (ours.peer_to_peer)
      return terminate(FailureKind::kNoMatchingRtr, LlpErrorCode::kNoMatchingRtr,
                       "the Reply clears A: no peer-to-peer model to start (RFC 6581 §9.2)");
    return terminate(FailureKind::kMalformedFrame, LlpErrorCode::kInvalidRequestOrReply,
                     "Reply sets A although the Request did not (RFC 6581 §9.2)",
                     wire::DecodeError{"A", "set in a Reply to a client/server Request", cite::kPeerToPeer,
                                       kReqRepHeaderSize});
  }
  if (ours.peer_to_peer) {
    // RFC 6581 §9.2: the Reply sets at least one kind (a Reply with none
    // leaves nothing to send: code 0x07), may set several, also ones we
    // did not offer; we send one of those we can send (all of which we
    // offered), in our order of preference. None: code 0x07.
    if (check::reply_rtr_at_least_one(ours, theirs))
      return terminate(FailureKind::kNoMatchingRtr, LlpErrorCode::kNoMatchingRtr,
                       "the Reply sets no RTR kind we can send (RFC 6581 §9.2)");
    const RtrKinds set = offered_by(theirs);
    RtrKind kind = RtrKind::kNone;
    for (RtrKind k : config.rtr_preference)
      // A zero-length Read needs a Read credit (our ORD after adjustment).
      if (set.contains(k) && config.rtr.contains(k) && !(k == RtrKind::kZeroLengthRead && out.ord == 0)) {
        kind = k;
        break;
      }
    if (kind == RtrKind::kNone)
      return terminate(FailureKind::kNoMatchingRtr, LlpErrorCode::kNoMatchingRtr,
                       "the Reply sets no RTR kind we can send (RFC 6581 §9.2)");
    out.peer_to_peer = true;
    out.rtr_to_send = kind;
  }
  return std::nullopt;
}

}  // namespace

std::string_view name(RtrKind kind) {
  switch (kind) {
    case RtrKind::kNone: return "none";
    case RtrKind::kZeroLengthSend: return "zero-length Send";
    case RtrKind::kZeroLengthWrite: return "zero-length RDMA Write";
    case RtrKind::kZeroLengthRead: return "zero-length RDMA Read";
  }
  return "?";
}

bool RtrKinds::contains(RtrKind k) const {
  switch (k) {
    case RtrKind::kZeroLengthSend: return send;
    case RtrKind::kZeroLengthWrite: return write;
    case RtrKind::kZeroLengthRead: return read;
    case RtrKind::kNone: return false;
  }
  return false;
}

std::string_view name(NegotiationState s) {
  switch (s) {
    case NegotiationState::kAwaitRequest: return "awaiting MPA Request";
    case NegotiationState::kAwaitReply: return "awaiting MPA Reply";
    case NegotiationState::kRequestReceived: return "MPA Request received, ULP to accept or reject";
    case NegotiationState::kFullOperation: return "full operation";
    case NegotiationState::kFailed: return "failed";
  }
  return "?";
}

std::string_view name(FailureKind k) {
  switch (k) {
    case FailureKind::kRejectedByPeer: return "rejected by peer";
    case FailureKind::kRejectedLocally: return "rejected locally";
    case FailureKind::kRevisionMismatch: return "revision mismatch";
    case FailureKind::kMalformedFrame: return "malformed Request/Reply";
    case FailureKind::kTimeout: return "timeout";
    case FailureKind::kMarkersUnsupported: return "Markers requested but unsupported";
    case FailureKind::kInsufficientIrd: return "insufficient IRD";
    case FailureKind::kNoMatchingRtr: return "no matching RTR";
    case FailureKind::kUnexpectedData: return "data before the Reply";
  }
  return "?";
}

std::string_view name(FailureAction a) {
  switch (a) {
    case FailureAction::kClose: return "close the connection";
    case FailureAction::kSendRejectThenClose: return "send the MPA Reply with R set, then close";
    case FailureAction::kSendTerminateThenClose: return "send a Terminate (layer LLP, type MPA), then close";
  }
  return "?";
}

Negotiation::Negotiation(NegotiationConfig config)
    : config_(std::move(config)),
      state_(config_.role == Role::kInitiator ? NegotiationState::kAwaitReply
                                              : NegotiationState::kAwaitRequest) {
  if (config_.role == Role::kInitiator) start_initiator();
}

bool Negotiation::accepts(std::uint8_t revision) const {
  return (revision == kRevision1 && config_.accept_rev1) || (revision == kRevision2 && config_.accept_rev2);
}

std::uint8_t Negotiation::highest_accepted() const {
  return config_.accept_rev2 ? kRevision2 : kRevision1;
}

void Negotiation::fail(NegotiationFailure f) {
  state_ = NegotiationState::kFailed;
  failure_ = f;
}

wire::Bytes Negotiation::pending_output() const { return wire::Bytes(output_).subspan(output_sent_); }

void Negotiation::output_sent(std::size_t n) {
  output_sent_ = std::min(output_.size(), output_sent_ + n);
}

bool Negotiation::timer_running() const {
  return state_ == NegotiationState::kAwaitReply || state_ == NegotiationState::kAwaitRequest;
}

void Negotiation::timer_expired() {
  if (!timer_running()) return;
  // RFC 5044 §7.1.2: an initiator that gets no Reply in time, and a responder
  // that gets no Request, give up on the connection.
  fail(closing(FailureKind::kTimeout, config_.role == Role::kInitiator
                                          ? "no MPA Reply before the timer expired (RFC 5044 §7.1.2)"
                                          : "no MPA Request before the timer expired (RFC 5044 §7.1.2)"));
}

void Negotiation::start_initiator() {
  ReqRepFields f;
  f.kind = FrameKind::kRequest;
  f.markers = config_.want_markers;
  f.crc = config_.want_crc;
  f.revision = config_.revision;
  if (config_.revision == kRevision2) {
    EnhancedData e;
    e.ird = std::min(config_.ird, kMaxIrdOrd);
    e.ord = std::min(config_.ord, kMaxIrdOrd);
    e.peer_to_peer = config_.peer_to_peer;
    if (config_.peer_to_peer) {
      e.rtr_send = config_.rtr.send;
      e.rtr_write = config_.rtr.write;
      e.rtr_read = config_.rtr.read;
    }
    f.enhanced = e;
  }
  if (config_.private_data.size() > private_data_limit(f.enhanced.has_value())) {
    fail(private_data_too_long("configured private data is longer than a Request can carry (RFC 5044 §7.1.4)"));
    return;
  }
  f.private_data = config_.private_data;
  sent_enhanced_ = f.enhanced;
  sent_markers_ = f.markers;
  sent_crc_ = f.crc;
  sent_revision_ = f.revision;
  encode_req_rep(f, output_);
}

std::size_t Negotiation::receive(wire::Bytes received) {
  if (state_ == NegotiationState::kRequestReceived && !received.empty()) {
    // RFC 5044 §7.1.2: the initiator sends nothing after its Request until
    // it has the Reply.
    fail(closing(FailureKind::kUnexpectedData,
                 "octets arrived after the Request, before the Reply was sent (RFC 5044 §7.1.2)"));
    return 0;
  }
  if (!timer_running()) return 0;

  const FrameKind expect = config_.role == Role::kInitiator ? FrameKind::kReply : FrameKind::kRequest;
  std::size_t used = 0;
  for (;;) {
    auto need = required_frame_size(input_, expect);
    if (!need) {
      fail(invalid_frame(config_.role == Role::kInitiator, need.error()));
      return used;
    }
    if (input_.size() >= *need) break;
    if (used == received.size()) return used;
    const std::size_t take = std::min(*need - input_.size(), received.size() - used);
    input_.insert(input_.end(), received.begin() + static_cast<std::ptrdiff_t>(used),
                  received.begin() + static_cast<std::ptrdiff_t>(used + take));
    used += take;
  }
  on_frame();
  return used;
}

void Negotiation::on_frame() {
  const bool initiator = config_.role == Role::kInitiator;
  ReqRepDecodeOptions options;
  options.expect = initiator ? FrameKind::kReply : FrameKind::kRequest;
  options.check_reserved = config_.check_reserved;
  auto frame = decode_req_rep(input_, options);
  if (!frame) {
    const std::uint8_t peer_rev = input_[17];
    if (is_field(frame.error(), F::Rev)) {
      if (!initiator) {
        // RFC 5044 §7.1.2: a responder that cannot speak the requested
        // revision rejects, naming the revision it has.
        queue_reply(true, highest_accepted(), std::nullopt, {});
        fail(rejecting(FailureKind::kRevisionMismatch, "Request revision not supported; rejected (RFC 5044 §7.1.2)",
                       peer_rev, {}, frame.error()));
      } else {
        fail(terminating(FailureKind::kRevisionMismatch, LlpErrorCode::kInvalidRequestOrReply,
                         "Reply carries an unknown revision (RFC 5044 §7.1.1, §8)", peer_rev, {}, frame.error()));
      }
      return;
    }
    fail(invalid_frame(initiator, frame.error()));
    return;
  }
  peer_frame_ = *frame;
  if (initiator)
    on_reply(*peer_frame_);
  else
    on_request(*peer_frame_);
}

void Negotiation::on_request(const ReqRepFrame& request) {
  if (!accepts(request.revision)) {
    queue_reply(true, highest_accepted(), std::nullopt, {});
    fail(rejecting(FailureKind::kRevisionMismatch, "Request revision not accepted; rejected (RFC 5044 §7.1.2)",
                   request.revision, request.ulp_private_data));
    return;
  }
  // RFC 5044 §7.1.1: M is a requirement of the receiver; one we cannot meet
  // is refused (Linux siw does the same, having no Marker support).
  if (request.markers && !config_.can_send_markers) {
    queue_reply(true, request.revision, std::nullopt, {});
    fail(rejecting(FailureKind::kMarkersUnsupported,
                   "peer requires Markers this endpoint cannot insert; rejected (RFC 5044 §7.1.1)", std::nullopt,
                   request.ulp_private_data));
    return;
  }
  // RFC 6581 §9.1: a responder whose ULP needs more outstanding RDMA Reads
  // than the initiator's IRD lets it issue may refuse the connection; its
  // Reject carries its IRD and, as its ORD, the ORD the ULP needs, so the
  // initiator learns why. An IRD of 0x3FFF leaves the negotiation to the
  // ULP: nothing to refuse here.
  if (const auto& theirs = request.enhanced_data;
      theirs && theirs->ird != kMaxIrdOrd && theirs->ird < config_.required_ord) {
    NegotiationOutcome unused;
    bool no_matching_rtr = false;
    EnhancedData ours = answer_enhanced(config_, *theirs, unused, no_matching_rtr);
    ours.ord = std::min(config_.required_ord, kMaxIrdOrd);
    queue_reply(true, request.revision, ours, {});
    fail(rejecting(FailureKind::kInsufficientIrd,
                   "the initiator's IRD is below the ORD this responder's ULP needs; rejected (RFC 6581 §9.1)",
                   std::nullopt, request.ulp_private_data));
    return;
  }
  state_ = NegotiationState::kRequestReceived;
}

void Negotiation::accept() { accept(config_.private_data); }

void Negotiation::accept(wire::Bytes private_data) {
  if (state_ != NegotiationState::kRequestReceived) return;
  const ReqRepFrame& request = *peer_frame_;

  NegotiationOutcome out;
  out.role = Role::kResponder;
  out.revision = request.revision;
  out.crc = request.crc || config_.want_crc;
  out.markers_send = request.markers;
  out.markers_receive = config_.want_markers;
  out.peer_private_data = request.ulp_private_data;

  std::optional<EnhancedData> reply_data;
  bool no_matching_rtr = false;
  if (request.enhanced_data) reply_data = answer_enhanced(config_, *request.enhanced_data, out, no_matching_rtr);

  if (private_data.size() > private_data_limit(reply_data.has_value())) {
    fail(private_data_too_long("private data is longer than a Reply can carry (RFC 5044 §7.1.4)"));
    return;
  }
  queue_reply(false, request.revision, reply_data, private_data);
  if (no_matching_rtr) {
    fail(terminating(FailureKind::kNoMatchingRtr, LlpErrorCode::kNoMatchingRtr,
                     "this responder can receive no RTR kind, so it cannot serve the peer-to-peer model (RFC 6581 §9.2)",
                     std::nullopt, request.ulp_private_data));
    return;
  }
  state_ = NegotiationState::kFullOperation;
  outcome_ = out;
}

void Negotiation::reject(wire::Bytes private_data) {
  if (state_ != NegotiationState::kRequestReceived) return;
  queue_reply(true, peer_frame_->revision, std::nullopt,
              private_data.subspan(0, std::min(private_data.size(), kMaxPrivateDataLength)));
  fail(rejecting(FailureKind::kRejectedLocally, "the ULP rejected the connection (RFC 5044 §7.1.2)", std::nullopt,
                 peer_frame_->ulp_private_data));
}

void Negotiation::queue_reply(bool reject, std::uint8_t revision, std::optional<EnhancedData> enhanced,
                              wire::Bytes private_data) {
  ReqRepFields f;
  f.kind = FrameKind::kReply;
  f.markers = config_.want_markers && !reject;
  f.crc = config_.want_crc || (peer_frame_ && peer_frame_->crc);
  f.reject = reject;
  f.revision = revision;
  f.enhanced = enhanced;
  f.private_data = private_data;
  encode_req_rep(f, output_);
}

void Negotiation::on_reply(const ReqRepFrame& reply) {
  auto terminate = [&](FailureKind kind, LlpErrorCode code, std::string_view reason,
                       std::optional<wire::DecodeError> detail = std::nullopt) {
    fail(terminating(kind, code, reason, reply.revision, reply.ulp_private_data, detail));
  };
  if (reply.reject) {
    // RFC 5044 §7.1.2: a Reply with R set ends the attempt; the initiator
    // closes. A different Rev tells which revision the responder speaks.
    const bool revision = reply.revision != sent_revision_;
    fail(closing(revision ? FailureKind::kRevisionMismatch : FailureKind::kRejectedByPeer,
                 revision ? "peer rejected the revision (RFC 5044 §7.1.2)"
                          : "peer rejected the connection (RFC 5044 §7.1.2)",
                 reply.revision, reply.ulp_private_data));
    return;
  }
  // RFC 6581 §10: never a revision above the Request's (check/mpa_startup.hpp);
  // a lower one (a Rev 1 Reply to Rev 2) this initiator does not work with
  // either, which §10 allows.
  if (check::reply_revision(sent_revision_, reply) || reply.revision != sent_revision_)
    return terminate(FailureKind::kRevisionMismatch, LlpErrorCode::kInvalidRequestOrReply,
                     "Reply accepts with a revision other than the Request's (RFC 5044 §7.1.2)");
  if (reply.markers && !config_.can_send_markers) {
    fail(closing(FailureKind::kMarkersUnsupported, "peer requires Markers this endpoint cannot insert (RFC 5044 §7.1.1)",
                 std::nullopt, reply.ulp_private_data));
    return;
  }

  NegotiationOutcome out;
  out.role = Role::kInitiator;
  out.revision = reply.revision;
  out.crc = sent_crc_ || reply.crc;
  out.markers_send = reply.markers;
  out.markers_receive = sent_markers_;
  out.peer_private_data = reply.ulp_private_data;

  // RFC 6581 §10, §9.1 (check/mpa_startup.hpp): the enhanced block answered
  // in kind, and the responder reads from us with no more outstanding reads
  // than our IRD allows (a responder ORD or IRD of 0x3FFF declines automatic
  // negotiation: our IRD or ORD stays as it is).
  if (auto v = check::reply_enhanced(sent_enhanced_.has_value(), reply)) {
    return terminate(FailureKind::kMalformedFrame, LlpErrorCode::kInvalidRequestOrReply,
                     "enhanced data in one frame but not the other (RFC 6581 §10)",
                     frame_rule(F::S, v->rule->summary, v->rule->section));
  }
  if (sent_enhanced_) {
    if (auto failure = settle_reply_enhanced(config_, *sent_enhanced_, reply, out)) return fail(*failure);
  }
  state_ = NegotiationState::kFullOperation;
  outcome_ = out;
}

}  // namespace rdmaconf::mpa
