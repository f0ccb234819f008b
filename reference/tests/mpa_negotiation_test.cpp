// MPA connection setup (RFC 5044 §7.1.2, RFC 6581 §9) with both roles
// talking to each other through byte buffers: Marker and CRC preferences,
// reject, revision mismatch, timeouts, malformed frames, IRD/ORD and
// peer-to-peer with each RTR kind, and any split of the frames.
#include "mpa/negotiation.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace rdmaconf::mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;
Bytes to_vec(wire::Bytes b) { return Bytes(b.begin(), b.end()); }

NegotiationConfig initiator(std::uint8_t revision = kRevision2) {
  NegotiationConfig c;
  c.role = Role::kInitiator;
  c.revision = revision;
  c.private_data = {'i', 'n', 'i'};
  return c;
}
NegotiationConfig responder() {
  NegotiationConfig c;
  c.role = Role::kResponder;
  c.private_data = {'r', 'e', 's', 'p'};
  return c;
}

// Moves every pending octet from one side to the other; `chunk` bounds the
// size of each receive() call (any TCP split).
void deliver(Negotiation& from, Negotiation& to, std::size_t chunk = SIZE_MAX) {
  Bytes octets = to_vec(from.pending_output());
  from.output_sent(octets.size());
  for (std::size_t at = 0; at < octets.size();) {
    const std::size_t n = std::min(chunk, octets.size() - at);
    const std::size_t used = to.receive(wire::Bytes(octets).subspan(at, n));
    EXPECT_LE(used, n);
    if (used < n) break;  // the frame is complete (or failed); the rest is not MPA setup
    at += n;
  }
}

struct Pair {
  Negotiation init;
  Negotiation resp;
  Pair(NegotiationConfig i, NegotiationConfig r) : init(std::move(i)), resp(std::move(r)) {}
  // Request -> responder (accepting) -> Reply -> initiator.
  void run(std::size_t chunk = SIZE_MAX, bool accept = true) {
    deliver(init, resp, chunk);
    if (resp.state() == NegotiationState::kRequestReceived) {
      if (accept)
        resp.accept();
      else
        resp.reject(wire::Bytes(kNo));
    }
    deliver(resp, init, chunk);
  }
  static constexpr std::uint8_t kNo[] = {'n', 'o'};
};

TEST(MpaNegotiation, Rev2DefaultsSucceedOnBothSides) {
  Pair p(initiator(), responder());
  EXPECT_EQ(p.init.state(), NegotiationState::kAwaitReply);
  EXPECT_TRUE(p.init.timer_running());
  EXPECT_EQ(p.resp.state(), NegotiationState::kAwaitRequest);
  EXPECT_TRUE(p.resp.timer_running());
  p.run();
  ASSERT_EQ(p.resp.state(), NegotiationState::kFullOperation);
  ASSERT_EQ(p.init.state(), NegotiationState::kFullOperation);
  EXPECT_FALSE(p.init.timer_running());
  const NegotiationOutcome& i = *p.init.outcome();
  const NegotiationOutcome& r = *p.resp.outcome();
  EXPECT_EQ(i.revision, 2);
  EXPECT_EQ(r.revision, 2);
  EXPECT_TRUE(i.enhanced);
  EXPECT_TRUE(i.crc);
  EXPECT_EQ(to_vec(i.peer_private_data), (Bytes{'r', 'e', 's', 'p'}));
  EXPECT_EQ(to_vec(r.peer_private_data), (Bytes{'i', 'n', 'i'}));
  EXPECT_FALSE(i.peer_to_peer);
  EXPECT_EQ(i.rtr_to_send, RtrKind::kNone);
  EXPECT_TRUE(r.rtr_to_expect.empty());
}

TEST(MpaNegotiation, Rev1) {
  NegotiationConfig i = initiator(kRevision1);
  Pair p(i, responder());
  p.run();
  ASSERT_EQ(p.init.state(), NegotiationState::kFullOperation);
  EXPECT_EQ(p.init.outcome()->revision, 1);
  EXPECT_FALSE(p.init.outcome()->enhanced);
  EXPECT_EQ(p.resp.outcome()->revision, 1);
  // The Request on the wire is plain RFC 5044: no S bit, no IRD/ORD octets.
  Negotiation fresh(initiator(kRevision1));
  const Bytes req = to_vec(fresh.pending_output());
  EXPECT_EQ(req[16], 0x40);  // C only
  EXPECT_EQ(req[17], 1);
  EXPECT_EQ(req[19], 3);     // PD_Length: the ULP's 3 octets
}

// RFC 5044 §7.1.1: M asks the peer to insert Markers towards us; C in
// either frame turns CRC on in both directions.
TEST(MpaNegotiation, MarkerAndCrcPreferenceCombinations) {
  for (int bits = 0; bits < 16; ++bits) {
    NegotiationConfig i = initiator(kRevision1), r = responder();
    i.want_markers = bits & 1;
    i.want_crc = bits & 2;
    r.want_markers = bits & 4;
    r.want_crc = bits & 8;
    Pair p(i, r);
    p.run();
    ASSERT_EQ(p.init.state(), NegotiationState::kFullOperation) << bits;
    ASSERT_EQ(p.resp.state(), NegotiationState::kFullOperation) << bits;
    const bool crc = (bits & 2) || (bits & 8);
    EXPECT_EQ(p.init.outcome()->crc, crc) << bits;
    EXPECT_EQ(p.resp.outcome()->crc, crc) << bits;
    EXPECT_EQ(p.init.outcome()->markers_receive, (bits & 1) != 0) << bits;
    EXPECT_EQ(p.resp.outcome()->markers_send, (bits & 1) != 0) << bits;
    EXPECT_EQ(p.resp.outcome()->markers_receive, (bits & 4) != 0) << bits;
    EXPECT_EQ(p.init.outcome()->markers_send, (bits & 4) != 0) << bits;
  }
}

TEST(MpaNegotiation, EverySplitOfRequestAndReply) {
  for (std::size_t chunk = 1; chunk <= 40; ++chunk) {
    Pair p(initiator(), responder());
    p.run(chunk);
    ASSERT_EQ(p.init.state(), NegotiationState::kFullOperation) << chunk;
    EXPECT_EQ(to_vec(p.init.outcome()->peer_private_data), (Bytes{'r', 'e', 's', 'p'}));
  }
}

// Octets after the Reply are FPDUs: receive() leaves them to the caller.
TEST(MpaNegotiation, OctetsAfterTheReplyAreNotConsumed) {
  Pair p(initiator(), responder());
  deliver(p.init, p.resp);
  p.resp.accept();
  Bytes octets = to_vec(p.resp.pending_output());
  const std::size_t reply_size = octets.size();
  octets.insert(octets.end(), {0x00, 0x02, 0xaa, 0xbb});
  EXPECT_EQ(p.init.receive(octets), reply_size);
  EXPECT_EQ(p.init.state(), NegotiationState::kFullOperation);
  EXPECT_EQ(p.init.receive(octets), 0u);
}

TEST(MpaNegotiation, RejectedByTheResponder) {
  Pair p(initiator(), responder());
  p.run(SIZE_MAX, false);
  ASSERT_EQ(p.resp.state(), NegotiationState::kFailed);
  EXPECT_EQ(p.resp.failure()->kind, FailureKind::kRejectedLocally);
  EXPECT_EQ(p.resp.failure()->action, FailureAction::kSendRejectThenClose);
  ASSERT_EQ(p.init.state(), NegotiationState::kFailed);
  const NegotiationFailure& f = *p.init.failure();
  EXPECT_EQ(f.kind, FailureKind::kRejectedByPeer);
  EXPECT_EQ(f.action, FailureAction::kClose);
  EXPECT_EQ(to_vec(f.peer_private_data), (Bytes{'n', 'o'}));
}

// RFC 5044 §7.1.2: a responder that does not speak the requested revision
// rejects with its own; the initiator learns which.
TEST(MpaNegotiation, RevisionMismatchRev2AgainstRev1OnlyResponder) {
  NegotiationConfig r = responder();
  r.accept_rev2 = false;
  Pair p(initiator(kRevision2), r);
  p.run();
  ASSERT_EQ(p.resp.state(), NegotiationState::kFailed);
  EXPECT_EQ(p.resp.failure()->kind, FailureKind::kRevisionMismatch);
  EXPECT_EQ(p.resp.failure()->action, FailureAction::kSendRejectThenClose);
  EXPECT_EQ(p.resp.failure()->peer_revision, 2);
  ASSERT_EQ(p.init.state(), NegotiationState::kFailed);
  EXPECT_EQ(p.init.failure()->kind, FailureKind::kRevisionMismatch);
  EXPECT_EQ(p.init.failure()->peer_revision, 1);
  EXPECT_EQ(p.init.failure()->action, FailureAction::kClose);
  // A retry with Rev 1 succeeds.
  Pair retry(initiator(kRevision1), r);
  retry.run();
  EXPECT_EQ(retry.init.state(), NegotiationState::kFullOperation);
}

TEST(MpaNegotiation, RevisionMismatchRev1AgainstRev2OnlyResponder) {
  NegotiationConfig r = responder();
  r.accept_rev1 = false;
  Pair p(initiator(kRevision1), r);
  p.run();
  EXPECT_EQ(p.resp.failure()->kind, FailureKind::kRevisionMismatch);
  EXPECT_EQ(p.init.failure()->kind, FailureKind::kRevisionMismatch);
  EXPECT_EQ(p.init.failure()->peer_revision, 2);
}

TEST(MpaNegotiation, UnknownRevisionInARequestIsRejected) {
  Negotiation resp(responder());
  ReqRepFields f;
  f.revision = 3;
  const Bytes request = encode_req_rep(f);
  EXPECT_EQ(resp.receive(request), request.size());
  ASSERT_EQ(resp.state(), NegotiationState::kFailed);
  EXPECT_EQ(resp.failure()->kind, FailureKind::kRevisionMismatch);
  ASSERT_TRUE(resp.failure()->decode_error.has_value());
  EXPECT_EQ(resp.failure()->decode_error->field, "Rev");
  auto reply = decode_req_rep(resp.pending_output());
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(reply->reject);
  EXPECT_EQ(reply->revision, 2);
}

TEST(MpaNegotiation, ReplyAcceptingWithAnotherRevisionIsATerminate) {
  Negotiation init(initiator(kRevision2));
  ReqRepFields f;
  f.kind = FrameKind::kReply;
  f.revision = 1;
  init.receive(encode_req_rep(f));
  ASSERT_EQ(init.state(), NegotiationState::kFailed);
  EXPECT_EQ(init.failure()->kind, FailureKind::kRevisionMismatch);
  EXPECT_EQ(init.failure()->action, FailureAction::kSendTerminateThenClose);
  EXPECT_EQ(init.failure()->terminate_code, LlpErrorCode::kInvalidRequestOrReply);
}

// RFC 5044 §7.1.2: both sides give up when their timer expires first.
TEST(MpaNegotiation, TimeoutOnEitherSide) {
  Negotiation init(initiator());
  init.timer_expired();
  ASSERT_EQ(init.state(), NegotiationState::kFailed);
  EXPECT_EQ(init.failure()->kind, FailureKind::kTimeout);
  EXPECT_EQ(init.failure()->action, FailureAction::kClose);
  EXPECT_FALSE(init.timer_running());

  Negotiation resp(responder());
  const Bytes partial = {'M', 'P', 'A'};
  resp.receive(partial);
  resp.timer_expired();
  EXPECT_EQ(resp.failure()->kind, FailureKind::kTimeout);

  // After success the timer is irrelevant.
  Pair p(initiator(), responder());
  p.run();
  p.init.timer_expired();
  EXPECT_EQ(p.init.state(), NegotiationState::kFullOperation);
}

TEST(MpaNegotiation, MalformedReplyAsksForInvalidReplyTerminate) {
  Negotiation init(initiator());
  Bytes reply = encode_req_rep([] {
    ReqRepFields f;
    f.kind = FrameKind::kReply;
    f.revision = 2;
    return f;
  }());
  reply[3] = 'X';  // key
  init.receive(reply);
  ASSERT_EQ(init.state(), NegotiationState::kFailed);
  EXPECT_EQ(init.failure()->kind, FailureKind::kMalformedFrame);
  EXPECT_EQ(init.failure()->action, FailureAction::kSendTerminateThenClose);
  EXPECT_EQ(init.failure()->terminate_code, LlpErrorCode::kInvalidRequestOrReply);
  EXPECT_EQ(init.failure()->decode_error->field, "Key");
}

TEST(MpaNegotiation, MalformedRequestClosesAndPdLengthNeverDrivesBuffering) {
  Negotiation resp(responder());
  ReqRepFields f;
  f.pd_length = 0xffff;
  const Bytes request = encode_req_rep(f);
  resp.receive(request);
  ASSERT_EQ(resp.state(), NegotiationState::kFailed);
  EXPECT_EQ(resp.failure()->kind, FailureKind::kMalformedFrame);
  EXPECT_EQ(resp.failure()->action, FailureAction::kClose);
  EXPECT_EQ(resp.failure()->decode_error->field, "PD_Length");
  EXPECT_TRUE(resp.pending_output().empty());
}

TEST(MpaNegotiation, DataBeforeTheReplyIsAProtocolError) {
  Negotiation resp(responder());
  Negotiation init(initiator());
  deliver(init, resp);
  ASSERT_EQ(resp.state(), NegotiationState::kRequestReceived);
  const Bytes fpdu = {0x00, 0x02};
  EXPECT_EQ(resp.receive(fpdu), 0u);
  EXPECT_EQ(resp.failure()->kind, FailureKind::kUnexpectedData);
}

TEST(MpaNegotiation, MarkersWantedButUnsupported) {
  NegotiationConfig i = initiator(kRevision1), r = responder();
  i.want_markers = true;
  r.can_send_markers = false;  // like Linux siw
  Pair p(i, r);
  p.run();
  EXPECT_EQ(p.resp.failure()->kind, FailureKind::kMarkersUnsupported);
  EXPECT_EQ(p.resp.failure()->action, FailureAction::kSendRejectThenClose);
  EXPECT_EQ(p.init.failure()->kind, FailureKind::kRejectedByPeer);
}

// --- RFC 6581: IRD/ORD ------------------------------------------------------

TEST(MpaNegotiation, IrdOrdExchangeAndAdjustment) {
  NegotiationConfig i = initiator(), r = responder();
  i.ird = 8;
  i.ord = 16;
  r.ird = 4;   // below the initiator's ORD: the initiator lowers its ORD
  r.ord = 32;  // above the initiator's IRD: the responder caps it
  Pair p(i, r);
  p.run();
  ASSERT_EQ(p.init.state(), NegotiationState::kFullOperation);
  const NegotiationOutcome& ri = *p.resp.outcome();
  EXPECT_EQ(ri.ird, 4);
  EXPECT_EQ(ri.ord, 8);
  EXPECT_EQ(ri.peer_ird, 8);
  EXPECT_EQ(ri.peer_ord, 16);
  const NegotiationOutcome& ii = *p.init.outcome();
  EXPECT_EQ(ii.ird, 8);
  EXPECT_EQ(ii.ord, 4);
  EXPECT_EQ(ii.peer_ird, 4);
  EXPECT_EQ(ii.peer_ord, 8);
}

// RFC 6581 §9.1: 0x3FFF declines automatic negotiation. The responder keeps
// its local IRD (ORD) and answers 0x3FFF; the initiator keeps its own values
// when the Reply says 0x3FFF.
TEST(MpaNegotiation, AllOnesDeclinesAutomaticNegotiation) {
  NegotiationConfig i = initiator(), r = responder();
  i.ird = 0x3fff;
  i.ord = 0x3fff;
  r.ird = 4;
  r.ord = 6;
  Pair p(i, r);
  p.run();
  ASSERT_EQ(p.init.state(), NegotiationState::kFullOperation);
  const NegotiationOutcome& ro = *p.resp.outcome();
  EXPECT_EQ(ro.ird, 4) << "local IRD unchanged";
  EXPECT_EQ(ro.ord, 6) << "local ORD unchanged";
  const NegotiationOutcome& io = *p.init.outcome();
  EXPECT_EQ(io.peer_ird, 0x3fff) << "the Reply's IRD";
  EXPECT_EQ(io.peer_ord, 0x3fff) << "the Reply's ORD";
  EXPECT_EQ(io.ird, 0x3fff) << "initiator IRD unchanged";
  EXPECT_EQ(io.ord, 0x3fff) << "initiator ORD unchanged";
}

TEST(MpaNegotiation, StrictOrdIsInsufficientIrd) {
  NegotiationConfig i = initiator(), r = responder();
  i.ord = 16;
  i.allow_ord_reduction = false;
  r.ird = 4;
  Pair p(i, r);
  p.run();
  ASSERT_EQ(p.init.state(), NegotiationState::kFailed);
  EXPECT_EQ(p.init.failure()->kind, FailureKind::kInsufficientIrd);
  EXPECT_EQ(p.init.failure()->action, FailureAction::kSendTerminateThenClose);
  EXPECT_EQ(p.init.failure()->terminate_code, LlpErrorCode::kInsufficientIrd);
}

TEST(MpaNegotiation, ResponderOrdAboveOurIrdIsInsufficientIrd) {
  Negotiation init(initiator());  // IRD 1
  ReqRepFields f;
  f.kind = FrameKind::kReply;
  f.revision = 2;
  EnhancedData e;
  e.ird = 1;
  e.ord = 5;
  f.enhanced = e;
  init.receive(encode_req_rep(f));
  ASSERT_EQ(init.state(), NegotiationState::kFailed);
  EXPECT_EQ(init.failure()->terminate_code, LlpErrorCode::kInsufficientIrd);
}

// RFC 6581 §9.1: a responder whose ULP needs an ORD the initiator's IRD
// does not allow may reject, naming its IRD and the ORD it needs; one that
// needs no more than the IRD, or an IRD of 0x3FFF, is not rejected.
TEST(MpaNegotiation, ResponderRejectsAnIrdBelowTheOrdItsUlpNeeds) {
  NegotiationConfig i = initiator(), r = responder();
  i.ird = 1;
  r.ird = 4;
  r.required_ord = 2;
  Pair p(i, r);
  p.run();
  ASSERT_EQ(p.resp.state(), NegotiationState::kFailed);
  EXPECT_EQ(p.resp.failure()->kind, FailureKind::kInsufficientIrd);
  EXPECT_EQ(p.resp.failure()->action, FailureAction::kSendRejectThenClose);
  ASSERT_EQ(p.init.state(), NegotiationState::kFailed);
  EXPECT_EQ(p.init.failure()->kind, FailureKind::kRejectedByPeer);
  const auto& reject = p.init.peer_frame();
  ASSERT_TRUE(reject && reject->reject && reject->enhanced_data);
  EXPECT_EQ(reject->revision, kRevision2);
  EXPECT_EQ(reject->enhanced_data->ird, 4) << "the responder's own IRD";
  EXPECT_EQ(reject->enhanced_data->ord, 2) << "the ORD its ULP needs";

  for (std::uint16_t ird : {std::uint16_t{2}, kMaxIrdOrd}) {
    NegotiationConfig enough = initiator();
    enough.ird = ird;
    Pair q(enough, r);
    q.run();
    EXPECT_EQ(q.init.state(), NegotiationState::kFullOperation) << "IRD " << ird;
  }
}

// --- RFC 6581: peer-to-peer and RTR kinds ---------------------------------

TEST(MpaNegotiation, PeerToPeerWithEachRtrKind) {
  const RtrKind kinds[] = {RtrKind::kZeroLengthSend, RtrKind::kZeroLengthWrite, RtrKind::kZeroLengthRead};
  for (RtrKind k : kinds) {
    NegotiationConfig i = initiator(), r = responder();
    i.peer_to_peer = true;
    i.rtr = RtrKinds{k == RtrKind::kZeroLengthSend, k == RtrKind::kZeroLengthWrite,
                     k == RtrKind::kZeroLengthRead};
    Pair p(i, r);
    p.run();
    ASSERT_EQ(p.init.state(), NegotiationState::kFullOperation) << name(k);
    EXPECT_TRUE(p.init.outcome()->peer_to_peer);
    EXPECT_EQ(p.init.outcome()->rtr_to_send, k) << name(k);
    EXPECT_EQ(p.resp.outcome()->rtr_to_expect, i.rtr) << name(k);
  }
}

// RFC 6581 §9.2: the Reply sets every offered kind the responder can
// receive (a SHOULD); the initiator picks one by its own preference.
TEST(MpaNegotiation, ReplySetsEveryOfferedKindAndTheInitiatorPicks) {
  NegotiationConfig i = initiator(), r = responder();
  i.peer_to_peer = true;  // offers all three
  i.rtr_preference[0] = RtrKind::kZeroLengthSend;
  r.rtr = RtrKinds{true, true, false};  // cannot receive a zero-length Read
  Pair p(i, r);
  p.run();
  ASSERT_EQ(p.init.state(), NegotiationState::kFullOperation);
  EXPECT_EQ(p.init.outcome()->rtr_to_send, RtrKind::kZeroLengthSend);
  EXPECT_EQ(p.resp.outcome()->rtr_to_expect, (RtrKinds{true, true, false}));
  ASSERT_TRUE(p.init.peer_frame().has_value());
  const EnhancedData& e = *p.init.peer_frame()->enhanced_data;
  EXPECT_TRUE(e.peer_to_peer);
  EXPECT_TRUE(e.rtr_send);
  EXPECT_TRUE(e.rtr_write);
  EXPECT_FALSE(e.rtr_read);
}

// RFC 6581 §9.2: a responder that can receive none of the offered kinds
// still sets one it can (a MUST), and the initiator, able to send none of
// them, terminates with code 0x07.
TEST(MpaNegotiation, NoOfferedKindSupportedSetsOwnKinds) {
  NegotiationConfig i = initiator(), r = responder();
  i.peer_to_peer = true;
  i.rtr = RtrKinds{true, false, false};  // Send only
  r.rtr = RtrKinds{false, true, true};   // cannot receive a Send RTR
  Pair p(i, r);
  p.run();
  ASSERT_EQ(p.resp.state(), NegotiationState::kFullOperation);
  EXPECT_EQ(p.resp.outcome()->rtr_to_expect, (RtrKinds{false, true, true}));
  ASSERT_EQ(p.init.state(), NegotiationState::kFailed);
  EXPECT_EQ(p.init.failure()->kind, FailureKind::kNoMatchingRtr);
  EXPECT_EQ(p.init.failure()->action, FailureAction::kSendTerminateThenClose);
  EXPECT_EQ(p.init.failure()->terminate_code, LlpErrorCode::kNoMatchingRtr);
}

// A responder that can receive no RTR kind at all cannot serve the
// peer-to-peer model: it fails with code 0x07 after its Reply.
TEST(MpaNegotiation, ResponderWithoutAnyRtrKind) {
  NegotiationConfig i = initiator(), r = responder();
  i.peer_to_peer = true;
  r.rtr = RtrKinds{};
  Pair p(i, r);
  p.run();
  ASSERT_EQ(p.resp.state(), NegotiationState::kFailed);
  EXPECT_EQ(p.resp.failure()->terminate_code, LlpErrorCode::kNoMatchingRtr);
}

// RFC 6581 §9.2: a Reply that clears A, or sets only kinds the initiator
// cannot send, leaves it nothing to send: code 0x07. One that also sets an
// unoffered kind beside one it can send is fine.
TEST(MpaNegotiation, ReplyWithoutAOrWithoutASendableRtr) {
  for (int variant = 0; variant < 4; ++variant) {
    NegotiationConfig i = initiator();
    i.peer_to_peer = true;
    i.rtr = RtrKinds{false, true, false};  // Write only
    Negotiation init(i);
    ReqRepFields f;
    f.kind = FrameKind::kReply;
    f.revision = 2;
    EnhancedData e;
    e.ird = 1;
    e.ord = 1;
    e.peer_to_peer = variant != 0;
    e.rtr_write = variant == 0 || variant == 3;
    e.rtr_read = variant == 1;
    e.rtr_send = variant == 2 || variant == 3;
    f.enhanced = e;
    init.receive(encode_req_rep(f));
    if (variant == 3) {
      ASSERT_EQ(init.state(), NegotiationState::kFullOperation);
      EXPECT_EQ(init.outcome()->rtr_to_send, RtrKind::kZeroLengthWrite);
      continue;
    }
    ASSERT_EQ(init.state(), NegotiationState::kFailed) << variant;
    EXPECT_EQ(init.failure()->kind, FailureKind::kNoMatchingRtr) << variant;
    EXPECT_EQ(init.failure()->terminate_code, LlpErrorCode::kNoMatchingRtr) << variant;
  }
}

TEST(MpaNegotiation, EnhancedDataMissingFromTheReply) {
  Negotiation init(initiator());
  ReqRepFields f;
  f.kind = FrameKind::kReply;
  f.revision = 2;  // Rev 2 but no S
  init.receive(encode_req_rep(f));
  ASSERT_EQ(init.state(), NegotiationState::kFailed);
  EXPECT_EQ(init.failure()->kind, FailureKind::kMalformedFrame);
  EXPECT_EQ(init.failure()->terminate_code, LlpErrorCode::kInvalidRequestOrReply);
  EXPECT_EQ(init.failure()->decode_error->field, "S");
}

TEST(MpaNegotiation, OversizedPrivateDataIsRefusedLocally) {
  NegotiationConfig i = initiator();
  i.private_data.assign(509, 0);  // 509 + 4 octets of enhanced data > 512
  Negotiation init(i);
  EXPECT_EQ(init.state(), NegotiationState::kFailed);
  EXPECT_TRUE(init.pending_output().empty());
}

TEST(MpaNegotiation, OutputIsConsumedAsSent) {
  Negotiation init(initiator());
  const std::size_t total = init.pending_output().size();
  init.output_sent(5);
  EXPECT_EQ(init.pending_output().size(), total - 5);
  init.output_sent(1000);
  EXPECT_TRUE(init.pending_output().empty());
}

}  // namespace
}  // namespace rdmaconf::mpa
