// The DDP Stream Session machine of RFC 5043 §6, socket-free, for both
// roles, and the association that holds one per SCTP stream pair (§8, §11).
//
//   active:  initiate(pd) -> kInitiateSent --Accept--> kEstablished
//                                          --Reject--> kRejected
//                                          --Terminate--> kTerminated
//   passive: kIdle --Initiate--> kInitiateReceived --accept(pd)--> kEstablished
//                                                  --reject(pd)--> kRejected
//                                                  --terminate()--> kTerminated (not the ULP's choice, §6.4)
//   both:    kEstablished --terminate() or the peer's Terminate--> kTerminated
//
// Chunks arrive unordered (RFC 5043 §10); the machine puts them back in
// DDP-SSN order (holding at most `reorder_limit` that came early, copied and
// bounded by the maximum segment size) and judges the peer's sequence in
// that order against the legal patterns of §6.2-§6.4. A sequence that fits
// none ends the session with a Terminate (§6.1) and a violation naming the
// rule. Sending, it numbers every message from DDP-SSN 0 without gaps
// (§5.2.1, §6), and holds a control message back while an earlier one of
// this session may still be overtaken by it (§6.6).
//
// The DDP layer above sees only take_segment() (one DDP segment per call, in
// order) and send_segment(): the same seam MPA's deframer and framer give the
// TCP path, so rdmap::Stream runs unchanged on either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "sctp/messages.hpp"
#include "wire/chunks.hpp"
#include "wire/result.hpp"

namespace rdmaconf::sctp {

enum class Role : std::uint8_t { kActive, kPassive };

enum class SessionState : std::uint8_t {
  kIdle,              // no session yet
  kInitiateSent,      // active: waits for Accept, Reject or Terminate
  kInitiateReceived,  // passive: the ULP decides
  kEstablished,       // DDP segments flow
  kRejected,          // a Reject was sent or received: the session never started
  kTerminated,        // a Terminate was sent or received, or the peer broke a rule
};
std::string_view to_string(SessionState s);

struct SessionConfig {
  Role role = Role::kActive;
  // RFC 5043 §9: the largest DDP segment this side takes (what it told its
  // DDP layer); never below 516. Larger incoming segments end the session.
  std::size_t max_segment_size = kSmallestMaxSegmentSize;
  // Chunks that arrived ahead of the next DDP-SSN, and the peer's segments
  // that arrived before the session was accepted, held at most (§10: a gap
  // no chunk in flight can account for is an invalid DDP-SSN).
  std::size_t reorder_limit = 64;
};

// One message for SCTP: send it as one unordered DATA chunk (§10) with `ppid`.
struct OutgoingMessage {
  std::uint32_t ppid = kPpidDdpSegment;
  std::vector<std::uint8_t> octets;
};

enum class EventKind : std::uint8_t {
  kInitiateReceived,   // passive: decide with accept() or reject()
  kAccepted,           // active: the peer accepted
  kRejected,           // active: the peer's ULP rejected
  kTerminateReceived,  // the peer ended the session (or refused it without its ULP, §6.4)
  kViolation,          // the peer's sequence broke a rule; this side sent (or will send) Terminate
};
std::string_view to_string(EventKind k);

// RFC 5043 §5.2.3: control messages are reported to the ULP with their
// private data (a copy, at most 512 octets).
struct SessionEvent {
  EventKind kind = EventKind::kInitiateReceived;
  std::vector<std::uint8_t> private_data;
  std::optional<wire::DecodeError> violation;
};

class Session {
 public:
  explicit Session(SessionConfig config);

  // ---- the ULP's session control (errors are local: wrong state, private
  // data over 512 octets; nothing goes on the wire then) ----
  wire::Status initiate(wire::Bytes private_data);  // active, kIdle
  wire::Status accept(wire::Bytes private_data);    // passive, kInitiateReceived
  wire::Status reject(wire::Bytes private_data);    // passive, kInitiateReceived
  // Ends the session: Terminate now, or as soon as §6.6 allows. In
  // kInitiateReceived this is the non-ULP rejection of §6.4.
  void terminate();

  // ---- DDP's side ----
  // True while a DDP segment may go out: established, not ending, and fewer
  // than 32767 chunks unacknowledged (§10).
  bool can_send() const;
  wire::Status send_segment(const wire::Chunks& ddp_segment);
  // The peer's DDP segments, in DDP-SSN order, once the session is established.
  std::optional<std::vector<std::uint8_t>> take_segment();

  // ---- SCTP's side ----
  // The user data of one DATA chunk (reassembled) with its PPID and U flag.
  void receive(std::uint32_t ppid, bool unordered, wire::Bytes user_data);
  // SCTP reports every DATA chunk sent so far acknowledged (a sender-dry
  // event): control messages sent are known received (§6.6), and the count
  // of chunks in flight starts again (§10).
  void all_acknowledged();
  std::optional<OutgoingMessage> take_outgoing();

  std::optional<SessionEvent> take_event();
  SessionState state() const { return state_; }
  Role role() const { return config_.role; }
  const SessionConfig& config() const { return config_; }
  const std::optional<wire::DecodeError>& violation() const { return violation_; }
  bool terminate_sent() const { return terminate_sent_; }
  // Chunks the peer sent without the U flag, which §10 requires on every one.
  std::uint64_t ordered_chunks_received() const { return ordered_chunks_; }
  // Chunks that arrived after the session ended (left alone, §6).
  std::uint64_t dropped_chunks() const { return dropped_; }
  std::uint16_t next_ssn_to_send() const { return next_ssn_; }
  std::uint16_t next_ssn_expected() const { return expected_; }

 private:
  void emit_control(FunctionCode f, wire::Bytes private_data);
  void process(const Message& m);
  void process_first(const Message& m);
  void violate(const wire::DecodeError& e);
  void control_confirmed();
  void maybe_send_terminate();
  void event(EventKind k, wire::Bytes private_data = {});

  SessionConfig config_;
  SessionState state_ = SessionState::kIdle;
  std::uint16_t next_ssn_ = 0;
  std::uint16_t expected_ = 0;
  std::uint32_t in_flight_ = 0;
  bool control_unconfirmed_ = false;  // our last control message may still be overtaken
  bool terminate_wanted_ = false;
  bool terminate_sent_ = false;
  std::uint64_t ordered_chunks_ = 0;
  std::uint64_t dropped_ = 0;
  std::optional<wire::DecodeError> violation_;
  struct Held {
    std::uint32_t ppid;
    std::vector<std::uint8_t> octets;
  };
  std::map<std::uint16_t, Held> early_;  // by DDP-SSN, ahead of expected_
  std::deque<std::vector<std::uint8_t>> segments_;
  std::deque<OutgoingMessage> outgoing_;
  std::deque<SessionEvent> events_;
};

// One outgoing message with the SCTP stream it goes on.
struct OutgoingChunk {
  std::uint16_t stream = 0;
  OutgoingMessage message;
};

struct AssociationConfig {
  Role role = Role::kActive;  // which side initiates sessions
  // RFC 5043 §8: the same number of inbound and outbound streams; a DDP
  // stream is the pair with one Stream Identifier.
  std::uint16_t streams = 1;
  // RFC 5043 §6.4: Initiates waiting for the ULP's decision, at most; one
  // more is refused with a Terminate.
  std::size_t pending_limit = 4;
  SessionConfig session;  // role is set from `role`
};

// The association's view of the adaptation layer: the Adaptation Indication
// check of §11.1 and one Session per stream pair.
class Association {
 public:
  explicit Association(AssociationConfig config);

  // RFC 5043 §11.1: after INIT and INIT-ACK, the peer's Adaptation
  // Indication (nullopt if it sent none) decides whether DDP runs here at
  // all. An error says why not; every later chunk is then dropped.
  wire::Status association_up(std::optional<std::uint32_t> peer_indication);
  bool ddp_enabled() const { return ddp_enabled_; }

  // Active: starts a session on `stream`.
  wire::Status initiate(std::uint16_t stream, wire::Bytes private_data);
  Session* session(std::uint16_t stream);

  void receive(std::uint16_t stream, std::uint32_t ppid, bool unordered, wire::Bytes user_data);
  void all_acknowledged();
  std::optional<OutgoingChunk> take_outgoing();
  // Passive sessions waiting for the ULP's accept() or reject().
  std::size_t pending_initiates() const;
  std::uint64_t dropped_chunks() const { return dropped_; }

 private:
  AssociationConfig config_;
  bool up_ = false;
  bool ddp_enabled_ = false;
  std::map<std::uint16_t, Session> sessions_;
  std::uint64_t dropped_ = 0;
};

}  // namespace rdmaconf::sctp
