// The sans-IO RDMAP stream's receive errors (RFC 5040 §4.8, §5-§7, RFC 5041
// §7.2, RFC 7306, RFC 5042 §5): every receive error we can provoke yields
// the exact Terminate, with the offending headers copied, and moves the
// stream to its terminated state; the IRD and ORD limits; the conformance
// faults that act in the stream. One file shows every Terminate the stream
// sends. The segments here are built by hand from the RFC figures, not
// through the declarations, on purpose: an independent oracle.
#include "rdmap/stream.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "rdmap_stream_test_util.hpp"

namespace rdmaconf::rdmap {
namespace {

using namespace testing;

// Hand-built segments against one stream.

std::vector<std::uint8_t> tagged(std::uint8_t ctrl, std::uint8_t rdmap, std::uint32_t stag,
                                 std::uint64_t to, const std::vector<std::uint8_t>& payload) {
  ddp::TaggedHeader h;
  std::vector<std::uint8_t> v(h.bytes().begin(), h.bytes().end());
  v[0] = ctrl;
  v[1] = rdmap;
  wire::store_be(wire::MutableBytes(v).subspan(2, 4), stag);
  wire::store_be(wire::MutableBytes(v).subspan(6, 8), to);
  v.insert(v.end(), payload.begin(), payload.end());
  return v;
}

std::vector<std::uint8_t> untagged(std::uint8_t ctrl, std::uint8_t rdmap, std::uint32_t rsvd32,
                                   std::uint32_t qn, std::uint32_t msn, std::uint32_t mo,
                                   const std::vector<std::uint8_t>& payload) {
  std::vector<std::uint8_t> v(ddp::kUntaggedHeaderSize, 0);
  v[0] = ctrl;
  v[1] = rdmap;
  wire::store_be(wire::MutableBytes(v).subspan(2, 4), rsvd32);
  wire::store_be(wire::MutableBytes(v).subspan(6, 4), qn);
  wire::store_be(wire::MutableBytes(v).subspan(10, 4), msn);
  wire::store_be(wire::MutableBytes(v).subspan(14, 4), mo);
  v.insert(v.end(), payload.begin(), payload.end());
  return v;
}

constexpr std::uint8_t kTaggedLast = 0xc1;    // T=1 L=1 DV=1
constexpr std::uint8_t kUntaggedLast = 0x41;  // T=0 L=1 DV=1
std::uint8_t rdmap_octet(Opcode op) { return Control::octet(op); }

std::vector<std::uint8_t> read_request(std::uint32_t sink, std::uint64_t sink_to,
                                       std::uint32_t size, std::uint32_t src, std::uint64_t src_to) {
  ReadRequestHeader h;
  using F = ReadRequestSpec::Field;
  h.set(F::SinkSTag, sink).set(F::SinkTO, sink_to).set(F::ReadSize, size);
  h.set(F::SourceSTag, src).set(F::SourceTO, src_to);
  return {h.bytes().begin(), h.bytes().end()};
}

// The stream must have queued exactly one Terminate (RFC 5040 §5.4: untagged,
// QN 2, MSN 1, MO 0, L=1) whose body decodes to `code`; returns the body.
TerminateMessage expect_terminate(Stream& s, TerminateCode code) {
  EXPECT_EQ(s.state(), StreamState::kTerminateSent);
  auto seg = s.take_outgoing();
  EXPECT_TRUE(seg.has_value());
  if (!seg) return {};
  EXPECT_FALSE(s.take_outgoing().has_value()) << "only the Terminate goes out";
  const auto bytes = seg->to_vector();
  wire::ByteReader r(bytes);
  auto h = ddp::UntaggedHeader::decode(r);
  EXPECT_TRUE(h.ok());
  using F = ddp::UntaggedSpec::Field;
  EXPECT_EQ(h->get(F::T), 0u);
  EXPECT_EQ(h->get(F::L), 1u);
  EXPECT_EQ(h->get(F::DV), 1u);
  EXPECT_EQ(h->get(F::RsvdULP), 0x47u);  // RV=1, Opcode=Terminate
  EXPECT_EQ(h->get(F::QN), 2u);
  EXPECT_EQ(h->get(F::MSN), 1u);
  EXPECT_EQ(h->get(F::MO), 0u);
  auto t = decode_terminate(r.rest());
  EXPECT_TRUE(t.ok()) << t.error().to_string();
  if (!t) return {};
  EXPECT_EQ(t->code, code) << "got " << int(t->code.layer) << "/" << int(t->code.etype) << "/"
                           << int(t->code.code);
  EXPECT_EQ(s.terminate_sent(), *t);
  return *t;
}

void expect_copied_ddp_header(const TerminateMessage& t, const std::vector<std::uint8_t>& seg) {
  ASSERT_TRUE(t.m && t.d);
  EXPECT_EQ(t.ddp_segment_length, seg.size());
  const std::size_t n = (seg[0] & 0x80) ? 14 : 18;
  EXPECT_EQ(std::vector<std::uint8_t>(t.copied_ddp_header().begin(), t.copied_ddp_header().end()),
            std::vector<std::uint8_t>(seg.begin(), seg.begin() + static_cast<std::ptrdiff_t>(n)));
}

struct StreamErrors : ::testing::Test {
  Stream s{StreamConfig{}};
  std::vector<std::uint8_t> mem = std::vector<std::uint8_t>(256, 0);
  std::vector<std::uint8_t> recv = std::vector<std::uint8_t>(32, 0);

  TerminateMessage inject(const std::vector<std::uint8_t>& seg, TerminateCode code) {
    hand_over(s, seg);
    return expect_terminate(s, code);
  }
};

void expect_nothing_copied(const TerminateMessage& t) {
  EXPECT_FALSE(t.m);
  EXPECT_FALSE(t.d);
  EXPECT_FALSE(t.r);
}

// RFC 5041 §7.2 0x1/0x1/0x04 and 0x1/0x2/0x06: DV != 1. RFC 5040 §4.8
// Figure 10: a DDP-layer error includes the DDP header and segment length.
TEST_F(StreamErrors, InvalidDdpVersionTaggedAndUntagged) {
  const auto seg = tagged(0xc2, rdmap_octet(Opcode::kRdmaWrite), 1, 0, {1});
  expect_copied_ddp_header(inject(seg, ddp::code_of(ddp::TaggedError::kInvalidDdpVersion)), seg);
  Stream u{StreamConfig{}};
  const auto useg = untagged(0x40, rdmap_octet(Opcode::kSend), 0, 0, 1, 0, {});  // DV=0
  hand_over(u, useg);
  const auto t = expect_terminate(u, ddp::code_of(ddp::UntaggedError::kInvalidDdpVersion));
  expect_copied_ddp_header(t, useg);
  EXPECT_FALSE(t.r);
}

// RFC 5040 §4.8 0x0/0x2/0x05: RV != 1. Figure 10: a Remote Operation Error
// includes the DDP header and segment length, not the RDMA header.
TEST_F(StreamErrors, InvalidRdmapVersion) {
  const auto seg = untagged(kUntaggedLast, 0x83, 0, 0, 1, 0, {});  // RV=2 Send
  const auto t = inject(seg, operation(ErrorCode::kInvalidRdmapVersion));
  expect_copied_ddp_header(t, seg);
  EXPECT_FALSE(t.r);
}

// The conformance fault kOmitTerminatedHeader copies nothing for these (as
// Linux siw does), and still copies for other errors.
TEST(StreamFaults, OmitTerminatedHeader) {
  StreamConfig c;
  c.faults.set(Fault::kOmitTerminatedHeader);
  Stream s(c);
  hand_over(s, untagged(kUntaggedLast, 0x83, 0, 0, 1, 0, {}));
  expect_nothing_copied(expect_terminate(s, operation(ErrorCode::kInvalidRdmapVersion)));
  Stream q(c);
  const auto seg = untagged(kUntaggedLast, rdmap_octet(Opcode::kSend), 0, 7, 1, 0, {});
  hand_over(q, seg);
  expect_copied_ddp_header(expect_terminate(q, ddp::code_of(ddp::UntaggedError::kInvalidQn)), seg);
}

// RFC 5040 §4.8 0x0/0x2/0x06: a reserved opcode, and defined opcodes out of
// place: wrong T bit, wrong queue, Read Response with no Read outstanding,
// Atomic Response with none. Every one copies the DDP header (Figure 10).
TEST_F(StreamErrors, UnexpectedOpcode) {
  const auto reserved = untagged(kUntaggedLast, 0x4c, 0, 0, 1, 0, {});
  expect_copied_ddp_header(inject(reserved, operation(ErrorCode::kUnexpectedOpcode)), reserved);
  for (const auto& seg : {
           tagged(kTaggedLast, rdmap_octet(Opcode::kSend), 1, 0, {}),
           untagged(kUntaggedLast, rdmap_octet(Opcode::kRdmaWrite), 0, 0, 1, 0, {}),
           untagged(kUntaggedLast, rdmap_octet(Opcode::kSend), 0, 1, 1, 0, {}),
           tagged(kTaggedLast, rdmap_octet(Opcode::kRdmaReadResponse), 1, 0, {1, 2}),
           untagged(kUntaggedLast, rdmap_octet(Opcode::kAtomicResponse), 0, 3, 1, 0,
                    std::vector<std::uint8_t>(12, 0)),
       }) {
    Stream fresh{StreamConfig{}};
    hand_over(fresh, seg);
    expect_copied_ddp_header(expect_terminate(fresh, operation(ErrorCode::kUnexpectedOpcode)), seg);
  }
}

// RFC 5041 §7.2 0x1/0x2/0x01.
TEST_F(StreamErrors, InvalidQn) {
  const auto seg = untagged(kUntaggedLast, rdmap_octet(Opcode::kSend), 0, 7, 1, 0, {});
  expect_copied_ddp_header(inject(seg, ddp::code_of(ddp::UntaggedError::kInvalidQn)), seg);
}

// RFC 5041 §7.2 0x1/0x2/0x02: a Send with no receive posted.
TEST_F(StreamErrors, MsnNoBuffer) {
  inject(untagged(kUntaggedLast, rdmap_octet(Opcode::kSend), 0, 0, 1, 0, {1, 2, 3}),
         ddp::code_of(ddp::UntaggedError::kInvalidMsnNoBuffer));
}

// RFC 5041 §7.2 0x1/0x2/0x03: MSN of a message already delivered.
TEST_F(StreamErrors, MsnRange) {
  s.post_receive(1, recv);
  s.post_receive(2, recv);
  hand_over(s, untagged(kUntaggedLast, rdmap_octet(Opcode::kSend), 0, 0, 1, 0, {1}));
  EXPECT_EQ(s.state(), StreamState::kOperational);
  inject(untagged(kUntaggedLast, rdmap_octet(Opcode::kSend), 0, 0, 1, 0, {1}),
         ddp::code_of(ddp::UntaggedError::kInvalidMsnRange));
}

// RFC 5041 §7.2 0x1/0x2/0x04 and 0x05.
TEST_F(StreamErrors, InvalidMoAndMessageTooLong) {
  s.post_receive(1, recv);
  inject(untagged(0x01, rdmap_octet(Opcode::kSend), 0, 0, 1, 33, {}),
         ddp::code_of(ddp::UntaggedError::kInvalidMo));
  Stream t{StreamConfig{}};
  t.post_receive(1, recv);
  hand_over(t, untagged(kUntaggedLast, rdmap_octet(Opcode::kSend), 0, 0, 1, 0, std::vector<std::uint8_t>(33, 1)));
  auto term = expect_terminate(t, ddp::code_of(ddp::UntaggedError::kMessageTooLong));
  EXPECT_EQ(term.ddp_segment_length, 18u + 33);
  // The posted receive is flushed (RFC 5040 §6.2.2).
  auto c = t.poll_completion();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, CompletionStatus::kFlushed);
}

// RFC 5041 §7.2 tagged codes for RDMA Write placement.
TEST_F(StreamErrors, WriteInvalidStag) {
  const auto seg = tagged(kTaggedLast, rdmap_octet(Opcode::kRdmaWrite), 0x4242, 0, {1});
  expect_copied_ddp_header(inject(seg, ddp::code_of(ddp::TaggedError::kInvalidStag)), seg);
}
TEST_F(StreamErrors, WriteToInvalidatedStag) {
  const Stag st = s.register_memory(mem, 0, Access::kRemoteWrite);
  ASSERT_TRUE(s.invalidate_local(st));
  inject(tagged(kTaggedLast, 0x40, ddp::value(st), 0, {1}), ddp::code_of(ddp::TaggedError::kInvalidStag));
}
TEST_F(StreamErrors, WriteBaseOrBounds) {
  const Stag st = s.register_memory(mem, 0x1000, Access::kRemoteWrite);
  inject(tagged(kTaggedLast, 0x40, ddp::value(st), 0x10ff, {1, 2}),
         ddp::code_of(ddp::TaggedError::kBaseOrBoundsViolation));
}
TEST_F(StreamErrors, WriteStagNotAssociated) {
  const Stag st = s.memory().register_region(mem, 0, Access::kRemoteWrite, ddp::ProtectionDomain{99});
  inject(tagged(kTaggedLast, 0x40, ddp::value(st), 0, {1}),
         ddp::code_of(ddp::TaggedError::kStagNotAssociated));
}
TEST_F(StreamErrors, WriteToWrap) {
  const Stag st = s.register_memory(mem, 0xffffffffffffff00ull, Access::kRemoteWrite);
  inject(tagged(kTaggedLast, 0x40, ddp::value(st), 0xfffffffffffffff0ull, std::vector<std::uint8_t>(32, 1)),
         ddp::code_of(ddp::TaggedError::kToWrap));
}
// RFC 5040 §4.8 0x0/0x1/0x02: the buffer lacks the remote write right.
TEST_F(StreamErrors, WriteAccessRights) {
  const Stag st = s.register_memory(mem, 0, Access::kRemoteRead);
  const auto seg = tagged(kTaggedLast, 0x40, ddp::value(st), 0, {1});
  auto t = inject(seg, protection(ErrorCode::kAccessRightsViolation));
  expect_copied_ddp_header(t, seg);
  EXPECT_FALSE(t.r);
  EXPECT_EQ(mem[0], 0) << "nothing placed";
}

// RFC 5040 §4.8 Remote Protection errors of an RDMA Read Request's source,
// reported with the Read Request copied (R).
struct ReadRequestErrors : StreamErrors {
  void check(std::uint32_t src, std::uint64_t src_to, std::uint32_t size, ErrorCode code) {
    const auto seg = untagged(kUntaggedLast, rdmap_octet(Opcode::kRdmaReadRequest), 0, 1, 1, 0,
                              read_request(0x100, 0, size, src, src_to));
    auto t = inject(seg, protection(code));
    expect_copied_ddp_header(t, seg);
    ASSERT_TRUE(t.r);
    EXPECT_EQ(std::vector<std::uint8_t>(t.copied_rdma_header().begin(), t.copied_rdma_header().end()),
              std::vector<std::uint8_t>(seg.begin() + 18, seg.end()));
  }
};
TEST_F(ReadRequestErrors, InvalidStag) { check(0x777700, 0, 8, ErrorCode::kInvalidStag); }
TEST_F(ReadRequestErrors, BaseOrBounds) {
  check(ddp::value(s.register_memory(mem, 0, Access::kRemoteRead)), 250, 8,
        ErrorCode::kBaseOrBoundsViolation);
}
TEST_F(ReadRequestErrors, AccessRights) {
  check(ddp::value(s.register_memory(mem, 0, Access::kRemoteWrite)), 0, 8,
        ErrorCode::kAccessRightsViolation);
}
TEST_F(ReadRequestErrors, StagNotAssociated) {
  check(ddp::value(s.memory().register_region(mem, 0, Access::kRemoteRead, ddp::ProtectionDomain{5})),
        0, 8, ErrorCode::kStagNotAssociated);
}
TEST_F(ReadRequestErrors, ToWrap) {
  check(ddp::value(s.register_memory(mem, 0xffffffffffffff80ull, Access::kRemoteRead)),
        0xfffffffffffffff0ull, 0x20, ErrorCode::kToWrap);
}

// RFC 5040 §5.3 / §4.8: Send with Invalidate naming an STag that may not be
// invalidated: unknown or not remotely invalidatable is a Remote Operation
// Error, another protection domain's a Remote Protection Error (code 0x09).
TEST_F(StreamErrors, CannotInvalidate) {
  const auto send_inv = [](std::uint32_t stag) {
    return untagged(kUntaggedLast, rdmap_octet(Opcode::kSendWithInvalidate), stag, 0, 1, 0, {});
  };
  s.post_receive(1, recv);
  inject(send_inv(0x5500), operation(ErrorCode::kStagCannotBeInvalidated));

  Stream other_pd{StreamConfig{}};
  other_pd.post_receive(1, recv);
  const Stag foreign = other_pd.memory().register_region(mem, 0, Access::kRemoteWrite, ddp::ProtectionDomain{9});
  hand_over(other_pd, send_inv(ddp::value(foreign)));
  expect_terminate(other_pd, protection(ErrorCode::kStagCannotBeInvalidated));
  EXPECT_TRUE(other_pd.memory().find(foreign)->valid);

  Stream pinned{StreamConfig{}};
  pinned.post_receive(1, recv);
  const Stag no_remote = pinned.register_memory(mem, 0, Access::kRemoteWrite, false);
  hand_over(pinned, send_inv(ddp::value(no_remote)));
  expect_terminate(pinned, operation(ErrorCode::kStagCannotBeInvalidated));
}

// RFC 5040 §5.2.1: more RDMA Read Requests than IRD find no QN 1 buffer.
TEST(StreamIrd, ReadRequestsBeyondIrd) {
  StreamConfig ca, cb;
  ca.ord = 8;
  cb.ird = 2;
  Pair p(ca, cb);
  std::vector<std::uint8_t> src(64, 1), sink(64, 0);
  const Stag r = p.b.register_memory(src, 0, Access::kRemoteRead);
  const Stag s = p.a.register_memory(sink, 0, Access::kLocalWrite);
  for (WorkRequestId id = 1; id <= 3; ++id) ASSERT_TRUE(p.a.post_read(id, {s, 0, 8, r, 0}));
  // Hand A's three requests to B without letting B answer in between.
  while (auto seg = p.a.take_outgoing()) hand_over(p.b, seg->to_vector());
  EXPECT_EQ(p.b.state(), StreamState::kTerminateSent);
  auto t = p.b.terminate_sent();
  ASSERT_TRUE(t);
  EXPECT_EQ(t->code, ddp::code_of(ddp::UntaggedError::kInvalidMsnNoBuffer));
  const ddp::Control copied = ddp::Control::from_octets(t->ddp_header[0], t->ddp_header[1]);
  EXPECT_FALSE(copied.tagged);
  EXPECT_EQ(wire::load_be(wire::Bytes(t->ddp_header).subspan(6, 4)), 1u);   // QN 1
  EXPECT_EQ(wire::load_be(wire::Bytes(t->ddp_header).subspan(10, 4)), 3u);  // MSN 3
  // The Terminate reaches A, which flushes its reads and reports it.
  p.pump();
  EXPECT_EQ(p.a.state(), StreamState::kTerminateReceived);
  const auto ca_done = drain(p.a);
  const Completion* term = nullptr;
  std::size_t flushed = 0;
  for (const Completion& c : ca_done) {
    if (c.type == CompletionType::kTerminateReceived) term = &c;
    if (c.type == CompletionType::kRdmaRead && c.status == CompletionStatus::kFlushed) ++flushed;
  }
  ASSERT_TRUE(term && term->terminate);
  EXPECT_EQ(term->terminate->code, ddp::code_of(ddp::UntaggedError::kInvalidMsnNoBuffer));
  EXPECT_EQ(flushed, 3u);
}

// IRD is freed when the Read Response has been handed to the LLP.
TEST(StreamIrd, AnsweredRequestsFreeTheirSlots) {
  StreamConfig cb;
  cb.ird = 1;
  Pair p({}, cb);
  std::vector<std::uint8_t> src(64, 1), sink(64, 0);
  const Stag r = p.b.register_memory(src, 0, Access::kRemoteRead);
  const Stag s = p.a.register_memory(sink, 0, Access::kLocalWrite);
  for (WorkRequestId id = 1; id <= 5; ++id) {
    ASSERT_TRUE(p.a.post_read(id, {s, 0, 8, r, 0}));
    p.pump();
  }
  EXPECT_EQ(p.b.state(), StreamState::kOperational);
}

TEST(StreamOrd, InitiatorEnforcesOrd) {
  StreamConfig ca;
  ca.ord = 2;
  Stream a(ca);
  EXPECT_TRUE(a.post_read(1, {}));
  EXPECT_TRUE(a.post_atomic(2, {}));
  auto third = a.post_read(3, {});
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.error().field, "ORD");
  ca.faults.set(Fault::kSkipOrdCheck);
  Stream b(ca);
  for (WorkRequestId id = 0; id < 4; ++id) EXPECT_TRUE(b.post_read(id, {}));
}

// RFC 5040 §5.5 / RFC 7306 §7: a Send posted with the Read fence is not
// handed to the LLP while an earlier Read or Atomic Request has no Response;
// Sends behind it keep their order, other work is refused meanwhile.
TEST(StreamFence, FencedSendWaitsForEarlierResponses) {
  Pair p;
  std::vector<std::uint8_t> source = pattern(64), sink(64, 0), target(8, 0), rx(64, 0), rx2(64, 0);
  const Stag src = p.b.register_memory(source, 0, Access::kRemoteRead);
  const Stag tgt = p.b.register_memory(target, 0, Access::kRemoteAtomic);
  const Stag dst = p.a.register_memory(sink, 0, Access::kLocalWrite);
  p.b.post_receive(10, rx);
  p.b.post_receive(11, rx2);
  const auto msg = pattern(4, 0x40);
  ASSERT_TRUE(p.a.post_read(1, {dst, 0, 64, src, 0}));
  ASSERT_TRUE(p.a.post_atomic(2, atomic(AtomicOpcode::kFetchAdd, tgt, 0, 1)));
  ASSERT_TRUE(p.a.post_send(3, wire::Chunks(wire::Bytes(msg)), {.solicited_event = false, .invalidate = std::nullopt, .read_fence = true}));
  ASSERT_TRUE(p.a.post_send(4, wire::Chunks(wire::Bytes(msg))));  // behind the fence, in order
  EXPECT_EQ(p.a.fenced_waiting(), 2u);
  EXPECT_FALSE(p.a.post_write(5, wire::Chunks(wire::Bytes(msg)), src, 0).ok());
  // Only the two requests go out; the Sends wait.
  int requests = 0;
  while (auto seg = p.a.take_outgoing()) {
    ++requests;
    hand_over(p.b, seg->to_vector());
  }
  EXPECT_EQ(requests, 2);
  // The Read Response alone does not release them: the Atomic is outstanding.
  auto read_response = p.b.take_outgoing();
  ASSERT_TRUE(read_response);
  hand_over(p.a, read_response->to_vector());
  EXPECT_EQ(p.a.fenced_waiting(), 2u);
  EXPECT_FALSE(p.a.has_outgoing());
  p.pump();  // the Atomic Response arrives, the Sends follow
  EXPECT_EQ(p.a.fenced_waiting(), 0u);
  const auto at_b = drain(p.b);
  ASSERT_NE(find(at_b, 10, CompletionType::kReceive), nullptr);
  ASSERT_NE(find(at_b, 11, CompletionType::kReceive), nullptr);
  const auto at_a = drain(p.a);
  EXPECT_NE(find(at_a, 3, CompletionType::kSend), nullptr);
  EXPECT_NE(find(at_a, 4, CompletionType::kSend), nullptr);
  EXPECT_EQ(sink, source);
}

TEST(StreamFence, WithoutOutstandingRequestsTheFenceIsFree) {
  Stream a{StreamConfig{}};
  const auto msg = pattern(4);
  ASSERT_TRUE(a.post_send(1, wire::Chunks(wire::Bytes(msg)), {.solicited_event = false, .invalidate = std::nullopt, .read_fence = true}));
  EXPECT_TRUE(a.has_outgoing());
  EXPECT_EQ(a.fenced_waiting(), 0u);
}

TEST(StreamFence, SkipReadFenceFaultSendsAtOnce) {
  StreamConfig c;
  c.faults.set(Fault::kSkipReadFence);
  Stream a(c);
  const auto msg = pattern(4);
  ASSERT_TRUE(a.post_read(1, {}));
  ASSERT_TRUE(a.post_send(2, wire::Chunks(wire::Bytes(msg)), {.solicited_event = false, .invalidate = std::nullopt, .read_fence = true}));
  EXPECT_EQ(a.fenced_waiting(), 0u);
}

TEST(StreamFence, WaitingSendsAreFlushedWhenTheStreamEnds) {
  Stream a{StreamConfig{}};
  const auto msg = pattern(4);
  ASSERT_TRUE(a.post_read(1, {}));
  ASSERT_TRUE(a.post_send(2, wire::Chunks(wire::Bytes(msg)), {.solicited_event = false, .invalidate = std::nullopt, .read_fence = true}));
  a.close();
  const auto cs = drain(a);
  const Completion* c = find(cs, 2, CompletionType::kSend);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, CompletionStatus::kFlushed);
}

// RFC 7306 §5: atomic target checks at the responder.
struct AtomicErrors : StreamErrors {
  // A Remote Protection Error copies the Atomic Request header (R); a
  // Remote Operation Error never copies an RDMA header (RFC 5040 §4.8 Fig. 10).
  void check(AtomicRequest a, TerminateCode code) {
    StreamConfig cfg;
    Stream initiator(cfg);
    ASSERT_TRUE(initiator.post_atomic(1, a));
    auto seg = initiator.take_outgoing();
    ASSERT_TRUE(seg);
    const auto bytes = seg->to_vector();
    auto t = inject(bytes, code);
    expect_copied_ddp_header(t, bytes);
    if (code.etype == operation(ErrorCode::kUnexpectedOpcode).etype) {
      EXPECT_FALSE(t.r);
      return;
    }
    ASSERT_TRUE(t.r);  // the Atomic Request header is copied (RFC 7306 extension of §4.8)
    EXPECT_EQ(t.rdma_header_size, kAtomicRequestHeaderSize);
  }
};
TEST_F(AtomicErrors, NoRemoteAtomicRight) {
  const Stag st = s.register_memory(mem, 0, Access::kRemoteWrite | Access::kRemoteRead);
  check(atomic(AtomicOpcode::kFetchAdd, st, 0, 1), protection(ErrorCode::kAccessRightsViolation));
}
TEST_F(AtomicErrors, Misaligned) {
  const Stag st = s.register_memory(mem, 0, Access::kRemoteAtomic);
  // RFC 7306 §8.2: Remote Operation Error, catastrophic error localized to the stream.
  check(atomic(AtomicOpcode::kFetchAdd, st, 4, 1), operation(ErrorCode::kCatastrophicLocalized));
}
TEST_F(AtomicErrors, OutOfBoundsAndInvalidStag) {
  const Stag st = s.register_memory(mem, 0, Access::kRemoteAtomic);
  check(atomic(AtomicOpcode::kSwap, st, 256, 1), protection(ErrorCode::kBaseOrBoundsViolation));
}
TEST_F(AtomicErrors, InvalidStag) {
  check(atomic(AtomicOpcode::kSwap, Stag{0x31337}, 0, 1), protection(ErrorCode::kInvalidStag));
}
TEST_F(AtomicErrors, ReservedAtomicOpcode) {
  const Stag st = s.register_memory(mem, 0, Access::kRemoteAtomic);
  AtomicRequest a = atomic(AtomicOpcode::kFetchAdd, st, 0, 1);
  a.raw_opcode_override = 0x7;
  check(a, operation(ErrorCode::kUnexpectedOpcode));
}
TEST(StreamAtomicIrd, AtomicRequestsBeyondIrd) {
  StreamConfig ca, cb;
  ca.ord = 4;
  cb.ird = 1;
  Pair p(ca, cb);
  std::vector<std::uint8_t> target(8, 0);
  const Stag t = p.b.register_memory(target, 0, Access::kRemoteAtomic);
  ASSERT_TRUE(p.a.post_atomic(1, atomic(AtomicOpcode::kFetchAdd, t, 0, 1)));
  ASSERT_TRUE(p.a.post_atomic(2, atomic(AtomicOpcode::kFetchAdd, t, 0, 1)));
  while (auto seg = p.a.take_outgoing()) hand_over(p.b, seg->to_vector());
  ASSERT_TRUE(p.b.terminate_sent());
  EXPECT_EQ(p.b.terminate_sent()->code, ddp::code_of(ddp::UntaggedError::kInvalidMsnNoBuffer));
  EXPECT_EQ(wire::load_be(wire::MutableBytes(target)), 1u) << "the first one executed";
}

// RFC 5040 §5.2.1: a Read Request is one segment of exactly its header.
TEST_F(StreamErrors, MalformedReadRequestShape) {
  inject(untagged(0x01, rdmap_octet(Opcode::kRdmaReadRequest), 0, 1, 1, 0, read_request(1, 0, 1, 1, 0)),
         operation(ErrorCode::kUnspecified));  // L=0
}

TEST_F(StreamErrors, SegmentShorterThanItsDdpHeader) {
  hand_over(s, {0xc1, 0x40, 0, 0});
  auto t = expect_terminate(s, ddp::kDdpLocalCatastrophic);
  EXPECT_FALSE(t.d);
}

TEST_F(StreamErrors, LlpErrorIsReportedWithLayerLlp) {
  s.report_llp_error(mpa::LlpErrorCode::kCrcError);
  auto t = expect_terminate(s, code_of(LlpErrorCode::kCrcError));
  EXPECT_FALSE(t.m || t.d || t.r);
}

// RFC 5041 §7.1: after the Terminate, later segments are dropped; queued
// work is not sent and completes as flushed.
TEST_F(StreamErrors, AfterTerminateEverythingIsDroppedOrFlushed) {
  s.post_receive(1, recv);
  const auto payload = pattern(10);
  ASSERT_TRUE(s.post_send(9, wire::Chunks(payload)));
  inject(untagged(kUntaggedLast, 0x4c, 0, 0, 1, 0, {}), operation(ErrorCode::kUnexpectedOpcode));
  const auto done = drain(s);
  ASSERT_EQ(done.size(), 2u);
  for (const Completion& c : done) EXPECT_EQ(c.status, CompletionStatus::kFlushed);
  hand_over(s, untagged(kUntaggedLast, rdmap_octet(Opcode::kSend), 0, 0, 1, 0, {1}));
  EXPECT_EQ(s.dropped_segments(), 1u);
  EXPECT_FALSE(s.take_outgoing());
  EXPECT_FALSE(s.post_send(10, wire::Chunks(payload)).ok());
  // A Terminate from the peer is still reported.
  std::vector<std::uint8_t> body;
  wire::ByteWriter w(body);
  encode(make_terminate(kRdmapLocalCatastrophic, nullptr), w);
  hand_over(s, untagged(kUntaggedLast, rdmap_octet(Opcode::kTerminate), 0, 2, 1, 0, body));
  auto c = s.poll_completion();
  ASSERT_TRUE(c);
  EXPECT_EQ(c->type, CompletionType::kTerminateReceived);
  EXPECT_EQ(c->terminate->code, kRdmapLocalCatastrophic);
  s.close();
  EXPECT_EQ(s.state(), StreamState::kClosed);
}

// A switched-off check is a deliberately faulty peer: no Terminate, and the
// octets outside the buffer are dropped rather than written.
TEST(StreamFaults, SkipBoundsCheckPlacesOnlyInsideTheBuffer) {
  StreamConfig cfg;
  cfg.faults.set(Fault::kSkipBoundsCheck);
  Stream s(cfg);
  std::vector<std::uint8_t> backing(32, 0);
  const auto region = wire::MutableBytes(backing).subspan(8, 16);
  const Stag st = s.register_memory(region, 0, Access::kRemoteWrite);
  hand_over(s, tagged(kTaggedLast, 0x40, ddp::value(st), 8, std::vector<std::uint8_t>(16, 0xee)));
  EXPECT_EQ(s.state(), StreamState::kOperational);
  EXPECT_EQ(std::count(backing.begin(), backing.end(), 0xee), 8);
  EXPECT_EQ(backing[24], 0);
}

TEST(StreamFaults, SkipDdpVersionCheckAcceptsDv2) {
  StreamConfig cfg;
  cfg.faults.set(Fault::kSkipDdpVersionCheck);
  Stream s(cfg);
  std::vector<std::uint8_t> mem(8, 0);
  const Stag st = s.register_memory(mem, 0, Access::kRemoteWrite);
  hand_over(s, tagged(0xc2, 0x40, ddp::value(st), 0, {7}));
  EXPECT_EQ(s.state(), StreamState::kOperational);
  EXPECT_EQ(mem[0], 7);
}

}  // namespace
}  // namespace rdmaconf::rdmap
