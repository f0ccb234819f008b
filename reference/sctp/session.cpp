#include "sctp/session.hpp"

namespace rdmaconf::sctp {
namespace {

wire::DecodeError local(std::string_view field, std::string_view rule, std::string_view section) {
  return wire::DecodeError{field, rule, section, 0};
}

}  // namespace

std::string_view to_string(SessionState s) {
  switch (s) {
    case SessionState::kIdle: return "idle";
    case SessionState::kInitiateSent: return "Initiate sent";
    case SessionState::kInitiateReceived: return "Initiate received";
    case SessionState::kEstablished: return "established";
    case SessionState::kRejected: return "rejected";
    case SessionState::kTerminated: return "terminated";
  }
  return "?";
}

std::string_view to_string(EventKind k) {
  switch (k) {
    case EventKind::kInitiateReceived: return "Initiate received";
    case EventKind::kAccepted: return "Accept received";
    case EventKind::kRejected: return "Reject received";
    case EventKind::kTerminateReceived: return "Terminate received";
    case EventKind::kViolation: return "violation";
  }
  return "?";
}

Session::Session(SessionConfig config) : config_(config) {
  // RFC 5043 §9: never below 516, whatever the caller asked for.
  if (config_.max_segment_size < kSmallestMaxSegmentSize) config_.max_segment_size = kSmallestMaxSegmentSize;
  if (config_.reorder_limit == 0) config_.reorder_limit = 1;
}

// ---- sending ----

void Session::emit_control(FunctionCode f, wire::Bytes private_data) {
  OutgoingMessage m{kPpidSessionControl, {}};
  encode_session_control({.ddp_ssn = next_ssn_++, .function = f, .private_data = private_data,
                          .raw_function_code = std::nullopt},
                         m.octets);
  ++in_flight_;
  control_unconfirmed_ = true;
  outgoing_.push_back(std::move(m));
}

wire::Status Session::initiate(wire::Bytes private_data) {
  if (config_.role != Role::kActive || state_ != SessionState::kIdle)
    return local("Function Code", "only an idle active side sends an Initiate", cite::kAccepted);
  if (private_data.size() > kMaxPrivateDataLength)
    return local("Private Data", "must not exceed 512 octets", cite::kSessionControl);
  // RFC 5043 §6.1: each session numbers its chunks from zero.
  next_ssn_ = 0;
  expected_ = 0;
  emit_control(FunctionCode::kInitiate, private_data);
  state_ = SessionState::kInitiateSent;
  return {};
}

wire::Status Session::accept(wire::Bytes private_data) {
  if (state_ != SessionState::kInitiateReceived)
    return local("Function Code", "an Accept answers a received Initiate", cite::kAccepted);
  if (private_data.size() > kMaxPrivateDataLength)
    return local("Private Data", "must not exceed 512 octets", cite::kSessionControl);
  emit_control(FunctionCode::kAccept, private_data);
  state_ = SessionState::kEstablished;
  return {};
}

wire::Status Session::reject(wire::Bytes private_data) {
  if (state_ != SessionState::kInitiateReceived)
    return local("Function Code", "a Reject answers a received Initiate", cite::kRejected);
  if (private_data.size() > kMaxPrivateDataLength)
    return local("Private Data", "must not exceed 512 octets", cite::kSessionControl);
  emit_control(FunctionCode::kReject, private_data);
  state_ = SessionState::kRejected;
  segments_.clear();  // §6: nothing of this session reaches a later one
  return {};
}

void Session::terminate() {
  if (terminate_wanted_ || state_ == SessionState::kIdle || state_ == SessionState::kRejected ||
      state_ == SessionState::kTerminated)
    return;  // nothing to end, or already ended (the peer's Terminate needs none back)
  terminate_wanted_ = true;
  // RFC 5043 §6.4: refused without the ULP; the peer's early segments go.
  if (state_ == SessionState::kInitiateReceived) segments_.clear();
  maybe_send_terminate();
}

void Session::maybe_send_terminate() {
  if (!terminate_wanted_ || terminate_sent_) return;
  // RFC 5043 §6.6: not while our previous control message may still be
  // received after it (it is known received once acknowledged or answered).
  // An active side waiting for its answer keeps waiting for it.
  if (control_unconfirmed_) return;
  emit_control(FunctionCode::kTerminate, {});
  terminate_sent_ = true;
  state_ = SessionState::kTerminated;
  segments_.clear();
  early_.clear();
}

void Session::control_confirmed() {
  control_unconfirmed_ = false;
  maybe_send_terminate();
}

bool Session::can_send() const {
  return state_ == SessionState::kEstablished && !terminate_wanted_ && in_flight_ < kMaxInFlight;
}

wire::Status Session::send_segment(const wire::Chunks& ddp_segment) {
  if (state_ != SessionState::kEstablished || terminate_wanted_)
    return local("DDP Segment", "DDP segments flow only in an established session", cite::kAccepted);
  // RFC 5043 §10: the sender itself keeps at most 32767 chunks unacknowledged.
  if (in_flight_ >= kMaxInFlight)
    return local("DDP-SSN", "32767 chunks are unacknowledged; wait for SCTP's acknowledgement", cite::kUnordered);
  if (ddp_segment.empty() || ddp_segment.size() > config_.max_segment_size)
    return local("DDP Segment", "must be one DDP segment no larger than the maximum segment size", cite::kFragmentation);
  OutgoingMessage m{kPpidDdpSegment, {}};
  encode_segment_chunk({.ddp_ssn = next_ssn_++, .ddp_segment = ddp_segment}, m.octets);
  ++in_flight_;
  outgoing_.push_back(std::move(m));
  return {};
}

void Session::all_acknowledged() {
  in_flight_ = 0;
  control_confirmed();
}

std::optional<OutgoingMessage> Session::take_outgoing() {
  if (outgoing_.empty()) return std::nullopt;
  OutgoingMessage m = std::move(outgoing_.front());
  outgoing_.pop_front();
  return m;
}

std::optional<SessionEvent> Session::take_event() {
  if (events_.empty()) return std::nullopt;
  SessionEvent e = std::move(events_.front());
  events_.pop_front();
  return e;
}

std::optional<std::vector<std::uint8_t>> Session::take_segment() {
  if (state_ != SessionState::kEstablished || segments_.empty()) return std::nullopt;
  std::vector<std::uint8_t> s = std::move(segments_.front());
  segments_.pop_front();
  return s;
}

void Session::event(EventKind k, wire::Bytes private_data) {
  events_.push_back(SessionEvent{k, std::vector<std::uint8_t>(private_data.begin(), private_data.end()), std::nullopt});
}

// ---- receiving ----

void Session::violate(const wire::DecodeError& e) {
  // RFC 5043 §6.1: a sequence that fits no legal pattern ends the session.
  violation_ = e;
  events_.push_back(SessionEvent{EventKind::kViolation, {}, e});
  early_.clear();
  segments_.clear();
  const bool answer = !terminate_sent_ && (state_ != SessionState::kIdle || config_.role == Role::kPassive);
  state_ = SessionState::kTerminated;
  if (answer) {
    terminate_wanted_ = true;
    maybe_send_terminate();
  }
}

void Session::receive(std::uint32_t ppid, bool unordered, wire::Bytes user_data) {
  if (state_ == SessionState::kRejected || state_ == SessionState::kTerminated) {
    ++dropped_;
    return;
  }
  if (!unordered) ++ordered_chunks_;
  auto m = decode_message(ppid, user_data, {.max_segment_size = config_.max_segment_size});
  if (!m) {
    violate(m.error());
    return;
  }
  const int ahead = ssn_distance(expected_, m->ddp_ssn);
  if (ahead < 0 || early_.count(m->ddp_ssn) != 0) {
    violate(wire::DecodeError{"DDP-SSN", "repeats one this session already received", cite::kSessions, 0});
    return;
  }
  if (static_cast<std::size_t>(ahead) >= config_.reorder_limit) {
    violate(wire::DecodeError{"DDP-SSN", "is further ahead than the chunks in flight can account for",
                              cite::kUnordered, 0});
    return;
  }
  if (ahead > 0) {
    early_.emplace(m->ddp_ssn, Held{ppid, std::vector<std::uint8_t>(user_data.begin(), user_data.end())});
    return;
  }
  process(*m);
  // Chunks that came early follow, in DDP-SSN order, while the next is here.
  for (auto it = early_.find(expected_); it != early_.end() && state_ != SessionState::kTerminated &&
                                         state_ != SessionState::kRejected;
       it = early_.find(expected_)) {
    Held h = std::move(it->second);
    early_.erase(it);
    auto next = decode_message(h.ppid, h.octets, {.max_segment_size = config_.max_segment_size});
    if (!next) {
      violate(next.error());
      return;
    }
    process(*next);
  }
}

void Session::process_first(const Message& m) {
  // RFC 5043 §6.2-§6.4: every legal session opens with a control message:
  // the active side's Initiate, the passive side's Accept, Reject or Terminate.
  if (m.kind != MessageKind::kControl) {
    violate(wire::DecodeError{"DDP-SSN", "a session opens with a Session Control message, not a DDP segment",
                              cite::kSequencing, 0});
    return;
  }
  if (config_.role == Role::kPassive) {
    if (m.function != FunctionCode::kInitiate) {
      violate(wire::DecodeError{"Function Code", "the active side opens a session with an Initiate",
                                cite::kAccepted, 2});
      return;
    }
    state_ = SessionState::kInitiateReceived;
    event(EventKind::kInitiateReceived, m.private_data);
    return;
  }
  if (state_ != SessionState::kInitiateSent || m.function == FunctionCode::kInitiate) {
    violate(wire::DecodeError{"Function Code", "the passive side answers an Initiate with Accept, Reject or Terminate",
                              cite::kAccepted, 2});
    return;
  }
  switch (m.function) {
    case FunctionCode::kAccept:
      state_ = SessionState::kEstablished;
      event(EventKind::kAccepted, m.private_data);
      control_confirmed();  // §6.6: the answer shows the Initiate arrived
      return;
    case FunctionCode::kReject:
      state_ = SessionState::kRejected;
      event(EventKind::kRejected, m.private_data);
      return;
    default:  // kTerminate: refused without the ULP (§6.4)
      state_ = SessionState::kTerminated;
      event(EventKind::kTerminateReceived);
      return;
  }
}

void Session::process(const Message& m) {
  const bool first = expected_ == 0 && state_ != SessionState::kInitiateReceived &&
                     state_ != SessionState::kEstablished;
  ++expected_;
  if (first) {
    process_first(m);
    return;
  }
  if (m.kind == MessageKind::kControl) {
    // After the opening exchange the only control message is the Terminate
    // that ends the peer's side (§6.2).
    if (m.function != FunctionCode::kTerminate) {
      violate(wire::DecodeError{"Function Code", "only a Terminate may follow the opening control message",
                                cite::kAccepted, 2});
      return;
    }
    state_ = SessionState::kTerminated;
    segments_.clear();
    early_.clear();
    event(EventKind::kTerminateReceived);
    control_confirmed();
    return;
  }
  if (state_ != SessionState::kEstablished && segments_.size() >= config_.reorder_limit) {
    violate(wire::DecodeError{"DDP Segment", "more DDP segments came before the session was accepted than are held",
                              cite::kUnordered, 0});
    return;
  }
  segments_.emplace_back(m.ddp_segment.begin(), m.ddp_segment.end());
}

// ---- association ----

Association::Association(AssociationConfig config) : config_(config) {
  config_.session.role = config_.role;
  if (config_.streams == 0) config_.streams = 1;
}

wire::Status Association::association_up(std::optional<std::uint32_t> peer_indication) {
  up_ = true;
  // RFC 5043 §11.1: no indication, or another one, means the peer runs no
  // DDP here, and this side must not either.
  if (!peer_indication)
    return wire::DecodeError{"Adaptation Indication", "the peer's INIT or INIT-ACK carried none",
                             cite::kAssociationInit, 0};
  if (*peer_indication != kAdaptationIndicationDdp)
    return wire::DecodeError{"Adaptation Indication", "the peer announced an adaptation other than DDP (1)",
                             cite::kAssociationInit, 0};
  ddp_enabled_ = true;
  return {};
}

Session* Association::session(std::uint16_t stream) {
  auto it = sessions_.find(stream);
  return it == sessions_.end() ? nullptr : &it->second;
}

wire::Status Association::initiate(std::uint16_t stream, wire::Bytes private_data) {
  if (!ddp_enabled_)
    return wire::DecodeError{"Adaptation Indication", "DDP runs only where both sides announced it",
                             cite::kAssociationInit, 0};
  if (config_.role != Role::kActive || stream >= config_.streams)
    return wire::DecodeError{"Stream Identifier", "the active side opens sessions on the streams it has",
                             cite::kStreams, 0};
  auto it = sessions_.find(stream);
  if (it != sessions_.end()) {
    const SessionState s = it->second.state();
    if (s != SessionState::kRejected && s != SessionState::kTerminated)
      return wire::DecodeError{"Stream Identifier", "a stream carries one session at a time", cite::kOtherSequencing, 0};
    sessions_.erase(it);
  }
  return sessions_.emplace(stream, Session(config_.session)).first->second.initiate(private_data);
}

std::size_t Association::pending_initiates() const {
  std::size_t n = 0;
  for (const auto& [id, s] : sessions_)
    if (s.state() == SessionState::kInitiateReceived) ++n;
  return n;
}

void Association::receive(std::uint16_t stream, std::uint32_t ppid, bool unordered, wire::Bytes user_data) {
  if (!ddp_enabled_ || stream >= config_.streams) {
    ++dropped_;
    return;
  }
  auto it = sessions_.find(stream);
  if (config_.role == Role::kPassive) {
    const bool ended = it != sessions_.end() && (it->second.state() == SessionState::kRejected ||
                                                  it->second.state() == SessionState::kTerminated);
    if (it == sessions_.end() || ended) {
      // A new session starts with an Initiate at DDP-SSN 0; chunks of an
      // ended one are left alone.
      auto m = decode_message(ppid, user_data);
      const bool opens = m && m->kind == MessageKind::kControl && m->function == FunctionCode::kInitiate &&
                         m->ddp_ssn == 0;
      if (ended && !opens) {
        it->second.receive(ppid, unordered, user_data);  // counted as dropped there
        return;
      }
      const bool over_limit = opens && pending_initiates() >= config_.pending_limit;
      if (ended) sessions_.erase(it);
      it = sessions_.emplace(stream, Session(config_.session)).first;
      it->second.receive(ppid, unordered, user_data);
      // RFC 5043 §6.4: past the limit of Initiates waiting for the ULP, the
      // answer is a Terminate.
      if (over_limit) it->second.terminate();
      return;
    }
  } else if (it == sessions_.end()) {
    ++dropped_;  // the active side has no session there: nothing to answer
    return;
  }
  it->second.receive(ppid, unordered, user_data);
}

void Association::all_acknowledged() {
  for (auto& [id, s] : sessions_) s.all_acknowledged();
}

std::optional<OutgoingChunk> Association::take_outgoing() {
  for (auto& [id, s] : sessions_)
    if (auto m = s.take_outgoing()) return OutgoingChunk{id, std::move(*m)};
  return std::nullopt;
}

}  // namespace rdmaconf::sctp
