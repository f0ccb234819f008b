// MPA connection setup (RFC 5044 §7.1.2, RFC 6581) as two explicit sans-IO
// state machines, one per role. The caller owns the socket and the clock:
//
//   Negotiation n(config);            // an initiator queues its Request at once
//   send(n.pending_output()); n.output_sent(k);
//   size_t used = n.receive(bytes);   // octets after the peer's frame are not
//                                     // consumed: they are FPDUs (e.g. the RTR)
//   if (n.timer_running()) ...        // arm the reply timer; on expiry:
//   n.timer_expired();
//   responder: once state() == kRequestReceived, inspect peer_frame() and
//   call accept() or reject().
//
// Afterwards outcome() says what full operation uses (revision, CRC,
// Markers per direction, private data, IRD/ORD, RTR), or failure() says why
// not and what the RFC requires the caller to do about it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "mpa/errors.hpp"
#include "mpa/req_rep.hpp"
#include "wire/bytes.hpp"
#include "wire/result.hpp"

namespace rdmaconf::mpa {

enum class Role : std::uint8_t { kInitiator, kResponder };

// RFC 6581: the ready-to-receive message that starts a peer-to-peer
// connection. The RDMAP layer sends (initiator) or expects (responder) it.
enum class RtrKind : std::uint8_t { kNone, kZeroLengthSend, kZeroLengthWrite, kZeroLengthRead };
std::string_view name(RtrKind kind);

struct RtrKinds {
  bool send = false;   // Control Flag B
  bool write = false;  // Control Flag C
  bool read = false;   // Control Flag D
  bool contains(RtrKind k) const;
  bool empty() const { return !send && !write && !read; }
  friend bool operator==(const RtrKinds&, const RtrKinds&) = default;
};

struct NegotiationConfig {
  Role role = Role::kInitiator;
  // Revision the initiator sends; the revisions either role accepts.
  std::uint8_t revision = kRevision2;
  bool accept_rev1 = true;
  bool accept_rev2 = true;
  // M in our frame: we want Markers in the FPDUs we receive.
  bool want_markers = false;
  // Whether we can insert Markers when the peer asks for them; if not, a
  // peer asking for them is refused.
  bool can_send_markers = true;
  // C in our frame. CRC is used in both directions if either frame sets C.
  bool want_crc = true;
  // The ULP's private data (at most 512 octets, 508 with enhanced data).
  std::vector<std::uint8_t> private_data;
  // RFC 6581 (sent when the negotiated revision is 2).
  std::uint16_t ird = 1;
  std::uint16_t ord = 1;
  bool peer_to_peer = false;  // initiator: ask for the peer-to-peer model
  // Initiator: RTR kinds it can send, all offered (RFC 6581 §9.2).
  // Responder: RTR kinds it can receive.
  RtrKinds rtr = {true, true, true};
  // Initiator: order in which it picks one of the kinds the Reply sets.
  RtrKind rtr_preference[3] = {RtrKind::kZeroLengthWrite, RtrKind::kZeroLengthRead,
                               RtrKind::kZeroLengthSend};
  // Initiator: lower our ORD to the responder's IRD (true), or fail with
  // Insufficient IRD (false; Linux siw's strict mode).
  bool allow_ord_reduction = true;
  // Responder: the ORD its ULP needs (0: it issues no RDMA Reads). A
  // Request whose IRD is below it cannot serve the ULP: it is rejected,
  // the Reject's enhanced data naming this ORD (RFC 6581 §9.1).
  std::uint16_t required_ord = 0;
  // Reject a peer frame with non-zero Res. Off: RFC 5044 §7.1.1 says Res is
  // not checked on receipt (see ReqRepDecodeOptions::check_reserved).
  bool check_reserved = false;
};

enum class NegotiationState : std::uint8_t {
  kAwaitRequest,     // responder: waiting for the Request
  kAwaitReply,       // initiator: Request queued/sent, waiting for the Reply
  kRequestReceived,  // responder: the ULP must accept() or reject()
  kFullOperation,    // success: see outcome()
  kFailed,           // see failure()
};
std::string_view name(NegotiationState s);

// What full operation uses, from this endpoint's point of view.
struct NegotiationOutcome {
  Role role = Role::kInitiator;
  std::uint8_t revision = kRevision1;
  bool crc = false;             // CRCs generated and checked, both directions
  bool markers_send = false;    // we insert Markers (the peer's M)
  bool markers_receive = false; // the peer inserts Markers (our M)
  wire::Bytes peer_private_data;  // the peer's ULP private data (enhanced data removed)
  bool enhanced = false;        // RFC 6581 IRD/ORD exchange took place
  std::uint16_t ird = 0;        // our IRD, as advertised
  std::uint16_t ord = 0;        // our ORD, after adjustment to the peer's IRD
  std::uint16_t peer_ird = 0;
  std::uint16_t peer_ord = 0;
  bool peer_to_peer = false;
  RtrKind rtr_to_send = RtrKind::kNone;    // initiator: RDMAP sends this first
  RtrKinds rtr_to_expect;                  // responder: the kinds its Reply set; nothing is sent before one arrives
};

enum class FailureKind : std::uint8_t {
  kRejectedByPeer,     // Reply with R set
  kRejectedLocally,    // responder's ULP called reject()
  kRevisionMismatch,
  kMalformedFrame,     // see decode_error
  kTimeout,
  kMarkersUnsupported, // the peer wants Markers we cannot send
  kInsufficientIrd,    // RFC 6581 (the responder's: the Request's IRD is below the ORD its ULP needs)
  kNoMatchingRtr,      // RFC 6581
  kUnexpectedData,     // octets before the responder's Reply was sent
};
std::string_view name(FailureKind k);

// What the RFC requires once negotiation failed. In every case the octets
// in pending_output() (a Reply, possibly with R set) go out first.
enum class FailureAction : std::uint8_t {
  kClose,                   // close the TCP connection
  kSendRejectThenClose,     // pending_output() holds a Reply with R set
  kSendTerminateThenClose,  // send an RDMAP Terminate (layer LLP, type MPA, terminate_code)
};
std::string_view name(FailureAction a);

struct NegotiationFailure {
  FailureKind kind = FailureKind::kMalformedFrame;
  FailureAction action = FailureAction::kClose;
  std::optional<LlpErrorCode> terminate_code;
  std::optional<wire::DecodeError> decode_error;
  std::string_view reason;                   // one line, with the section
  std::optional<std::uint8_t> peer_revision; // for kRevisionMismatch
  wire::Bytes peer_private_data;             // e.g. the reason a peer gave for rejecting
};

class Negotiation {
 public:
  explicit Negotiation(NegotiationConfig config);
  Negotiation(const Negotiation&) = delete;  // views point into this object
  Negotiation& operator=(const Negotiation&) = delete;

  NegotiationState state() const { return state_; }
  Role role() const { return config_.role; }

  // Octets to send (Request, Reply or Reject); report what went out.
  wire::Bytes pending_output() const;
  void output_sent(std::size_t n);

  // Feeds received stream octets; returns how many belong to the peer's
  // Request/Reply. The rest, if any, are the first octets of full operation.
  std::size_t receive(wire::Bytes received);

  // Whether the caller should have the negotiation timer running: the
  // initiator waiting for the Reply, the responder waiting for the Request
  // (RFC 5044 §7.1.2). The duration is the caller's (e.g. siw uses 10 s for
  // the Reply). On expiry call timer_expired().
  bool timer_running() const;
  void timer_expired();

  // Responder in kRequestReceived: the peer's Request and the ULP's answer.
  const std::optional<ReqRepFrame>& peer_frame() const { return peer_frame_; }
  void accept();
  void accept(wire::Bytes private_data);
  void reject(wire::Bytes private_data = {});

  const std::optional<NegotiationOutcome>& outcome() const { return outcome_; }
  const std::optional<NegotiationFailure>& failure() const { return failure_; }

 private:
  void start_initiator();
  void on_frame();
  void on_request(const ReqRepFrame& request);
  void on_reply(const ReqRepFrame& reply);
  void queue_reply(bool reject, std::uint8_t revision, std::optional<EnhancedData> enhanced,
                   wire::Bytes private_data);
  void fail(NegotiationFailure f);
  bool accepts(std::uint8_t revision) const;
  std::uint8_t highest_accepted() const;

  NegotiationConfig config_;
  NegotiationState state_;
  std::vector<std::uint8_t> output_;
  std::size_t output_sent_ = 0;
  // The peer's frame, gathered across receive() calls; never more than
  // 532 octets (the limit is checked before waiting for the private data).
  std::vector<std::uint8_t> input_;
  std::optional<ReqRepFrame> peer_frame_;
  std::optional<EnhancedData> sent_enhanced_;
  bool sent_markers_ = false;
  bool sent_crc_ = false;
  std::uint8_t sent_revision_ = 0;
  std::optional<NegotiationOutcome> outcome_;
  std::optional<NegotiationFailure> failure_;
};

}  // namespace rdmaconf::mpa
