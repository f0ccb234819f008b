// The sans-IO SMC-R connection (reference/smcr/connection.hpp): cursor
// arithmetic across wraps (RFC 7609 App. A.4), the RFC's data flows of §4.7
// (Figures 16-21) between two connections, the window and the consumer
// cursor update policy (§4.3, §4.5.1), and the peer's broken rules as typed
// outcomes. The close sequences are in smcr_connection_close_test.cpp, the
// 64 MiB transfer in smcr_connection_transfer_test.cpp.
#include "smcr/connection.hpp"

#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "check/smcr.hpp"
#include "smcr_connection_test_util.hpp"

namespace rdmaconf::smcr {
namespace {

using F = CdcSpec::Field;
using testing::config_of;
using testing::Pair;
using testing::through_wire;

std::vector<std::uint8_t> octets(std::size_t n, std::uint8_t seed = 1) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 7);
  return v;
}

// A CDC message as the peer (token 0x1111 is this side's) would send it.
CdcMessage peer_cdc(std::uint16_t seq, Cursor prod, Cursor cons, std::initializer_list<F> flags = {},
                    std::uint32_t token = 0x1111) {
  CdcMessage m;
  m.header.set(F::Type, kCdcType).set(F::Length, kCdcMessageSize).set(F::SequenceNumber, seq);
  m.header.set(F::AlertToken, token);
  m.header.set(F::ProducerWrap, prod.wrap).set(F::ProducerCursor, prod.count);
  m.header.set(F::ConsumerWrap, cons.wrap).set(F::ConsumerCursor, cons.count);
  for (F f : flags) m.header.set(f, 1);
  return through_wire(m);
}

// One connection alone, fed crafted CDC messages: 16 KiB RMBEs with eyecatcher.
struct Lone {
  std::vector<std::uint8_t> rmbe = std::vector<std::uint8_t>(16384);
  Connection c{config_of(16384, 16384), rmbe};
};

bool has(const CdcOutcome& r, PeerError e, const check::Rule* rule = nullptr) {
  for (const Finding& f : r.findings)
    if (f.error == e && (!rule ? true : (f.violation && f.violation->rule == rule))) return true;
  return false;
}

// ---------------------------------------------------------------- A.4 cursor arithmetic

TEST(SmcrConnection, CursorsStartAndWrapAtTheFirstDataOctet) {
  const RmbeGeometry g{16384, true};
  EXPECT_EQ(g.data_start(), 4u);
  EXPECT_EQ(g.capacity(), 16380u);
  EXPECT_EQ(advance({0, 4}, 16379, g), (Cursor{0, 16383}));
  // Reaching the end wraps to 4 and counts the wrap (A.4).
  EXPECT_EQ(advance({0, 4}, 16380, g), (Cursor{1, 4}));
  EXPECT_EQ(advance({0, 16383}, 1, g), (Cursor{1, 4}));
  EXPECT_EQ(advance({3, 10000}, 2 * 16380 + 5, g), (Cursor{5, 10005}));
  // The wrap count is 16 bits and wraps too.
  EXPECT_EQ(advance({0xFFFF, 4}, 16380, g), (Cursor{0, 4}));
  EXPECT_EQ(forward_distance({0, 4}, {1, 4}, g), 16380u);
  EXPECT_EQ(forward_distance({0xFFFF, 10}, {0, 10}, g), 16380u);
  EXPECT_EQ(forward_distance({0, 100}, {0, 100}, g), 0u);
  EXPECT_TRUE(behind({1, 4}, {0, 4}, g));
  EXPECT_TRUE(behind({0, 4}, {0xFFFF, 4}, g));
  EXPECT_FALSE(behind({0, 4}, {1, 4}, g));
  EXPECT_FALSE(behind({0xFFFF, 4}, {0, 4}, g));
  // Linux's RMBEs have no eyecatcher: cursors start and wrap at 0.
  const RmbeGeometry linux_rmbe{16384, false};
  EXPECT_EQ(linux_rmbe.capacity(), 16384u);
  EXPECT_EQ(advance({0, 0}, 16384, linux_rmbe), (Cursor{1, 0}));
  EXPECT_EQ(position({2, 100}, linux_rmbe), 2u * 16384 + 100);
  EXPECT_EQ(position({2, 100}, g), 2u * 16380 + 96);
}

TEST(SmcrConnection, OwnRmbeIsZeroedWithItsEyecatcher) {
  std::vector<std::uint8_t> rmbe(16384, 0xAA);
  Connection c(config_of(16384, 16384), rmbe);
  EXPECT_EQ(c.state(), ConnectionState::kActive);
  EXPECT_EQ(rmbe[0], 'R');
  EXPECT_EQ(rmbe[3], 'E');
  EXPECT_EQ(std::accumulate(rmbe.begin() + 4, rmbe.end(), 0u), 0u);
  // Without eyecatcher everything is data area.
  std::vector<std::uint8_t> linux_rmbe(16384, 0xAA);
  Connection l(config_of(16384, 16384, false), linux_rmbe);
  EXPECT_EQ(std::accumulate(linux_rmbe.begin(), linux_rmbe.end(), 0u), 0u);
  EXPECT_EQ(l.consumer(), (Cursor{0, 0}));
  // A buffer smaller than the announced RMBE is never touched.
  std::vector<std::uint8_t> small(100, 0xAA);
  Connection bad(config_of(16384, 16384), small);
  EXPECT_EQ(bad.state(), ConnectionState::kClosed);
  EXPECT_EQ(small[0], 0xAA);
  EXPECT_EQ(bad.send(octets(10)).status, SendStatus::kShutdown);
}

// ---------------------------------------------------------------- §4.7 flows

TEST(SmcrConnection, Scenario1SendFlowWindowUnconstrained) {
  // Figure 16: 1000 octets into an RMBE of 10,000.
  Pair p(config_of(10000, 10000));
  const auto data = octets(1000);
  SendResult s = p.a().send(data);
  EXPECT_EQ(s.status, SendStatus::kOk);
  EXPECT_EQ(s.accepted, 1000u);
  ASSERT_EQ(s.out.writes.size(), 1u);
  EXPECT_EQ(s.out.writes[0].rmbe_offset, 4u);  // skips the eyecatcher
  EXPECT_EQ(s.out.writes[0].octets, data);
  ASSERT_TRUE(s.out.cdc);
  EXPECT_EQ(s.out.cdc->sequence_number(), 1);
  EXPECT_EQ(s.out.cdc->alert_token(), 0x2222u);
  EXPECT_EQ(s.out.cdc->producer(), (Cursor{0, 1004}));
  EXPECT_EQ(s.out.cdc->consumer(), (Cursor{0, 4}));
  EXPECT_FALSE(s.out.cdc->flag(F::B));
  p.from_a(std::move(s.out));
  p.settle();
  ASSERT_EQ(p.outcomes_b.size(), 1u);
  EXPECT_EQ(p.outcomes_b[0].verdict, CdcVerdict::kAccepted);
  EXPECT_TRUE(p.outcomes_b[0].findings.empty());
  EXPECT_EQ(p.outcomes_b[0].new_octets, 1000u);
  std::vector<std::uint8_t> got(10000);
  ReceiveResult r = p.b().receive(got);
  EXPECT_EQ(r.octets, 1000u);
  got.resize(1000);
  EXPECT_EQ(got, data);
  // 8996 free of 9996 as A sees it: no consumer cursor update.
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(p.b().consumer(), (Cursor{0, 1004}));
}

TEST(SmcrConnection, Scenario2ReplyCarriesTheConsumerCursor) {
  // Figure 17: B's 500-octet answer tells A that 1000 octets were consumed.
  Pair p(config_of(10000, 10000));
  p.from_a(p.a().send(octets(1000)).out);
  p.settle();
  std::vector<std::uint8_t> got(1000);
  EXPECT_TRUE(p.b().receive(got).out.empty());
  SendResult s = p.b().send(octets(500, 9));
  ASSERT_TRUE(s.out.cdc);
  EXPECT_EQ(s.out.cdc->producer(), (Cursor{0, 504}));
  EXPECT_EQ(s.out.cdc->consumer(), (Cursor{0, 1004}));
  p.from_b(std::move(s.out));
  p.settle();
  EXPECT_EQ(p.a().peer_consumer(), (Cursor{0, 1004}));
  EXPECT_EQ(p.a().window(), 9996u);
}

TEST(SmcrConnection, Scenario3ConsumerUpdateOnceTheWindowIsBelowHalf) {
  // Figure 18: 3000 then 4000 octets; only the second consumption is confirmed.
  Pair p(config_of(10000, 10000));
  std::vector<std::uint8_t> got(10000);
  p.from_a(p.a().send(octets(3000)).out);
  p.settle();
  EXPECT_TRUE(p.b().receive(got).out.empty());  // 6996 free: no update
  SendResult s = p.a().send(octets(4000));
  ASSERT_EQ(s.out.writes.size(), 1u);
  EXPECT_EQ(s.out.writes[0].rmbe_offset, 3004u);
  p.from_a(std::move(s.out));
  p.settle();
  ReceiveResult r = p.b().receive(got);
  EXPECT_EQ(r.octets, 4000u);
  // A sees 2996 free (below half), the update frees 7000 (above a tenth).
  ASSERT_TRUE(r.out.cdc);
  EXPECT_EQ(r.out.cdc->consumer(), (Cursor{0, 7004}));
  EXPECT_TRUE(r.out.writes.empty());
  p.from_b(std::move(r.out));
  p.settle();
  EXPECT_EQ(p.a().window(), 9996u);
}

TEST(SmcrConnection, WindowExhaustionSetsWriterBlockedUntilAnUpdate) {
  // §4.3, §4.7.4: a 16 KiB RMBE (16380 data octets), 20000 octets to send.
  Pair p(config_of(16384, 16384));
  const auto data = octets(20000);
  SendResult s = p.a().send(data);
  EXPECT_EQ(s.accepted, 20000u);
  ASSERT_EQ(s.out.writes.size(), 1u);
  EXPECT_EQ(s.out.writes[0].octets.size(), 16380u);
  ASSERT_TRUE(s.out.cdc);
  // The whole window written: the producer cursor wrapped onto the consumer's.
  EXPECT_EQ(s.out.cdc->producer(), (Cursor{1, 4}));
  EXPECT_TRUE(s.out.cdc->flag(F::B));
  EXPECT_EQ(p.a().window(), 0u);
  EXPECT_EQ(p.a().queued(), 3620u);
  EXPECT_TRUE(p.a().write_blocked());
  // Nothing more goes until B consumed: another send is only buffered.
  EXPECT_TRUE(p.a().send(octets(10)).out.empty());
  p.from_a(std::move(s.out));
  p.settle();
  EXPECT_EQ(p.b().readable(), 16380u);  // same cursor, next wrap: a full window (A.4)
  // B set: any consumption is confirmed at once (§4.5.1).
  std::vector<std::uint8_t> got(100);
  ReceiveResult r = p.b().receive(got);
  ASSERT_TRUE(r.out.cdc);
  EXPECT_EQ(r.out.cdc->consumer(), (Cursor{0, 104}));
  p.from_b(std::move(r.out));
  ASSERT_TRUE(p.step_to_a());
  // A writes the 100 octets that freed, at the start of the data area.
  ASSERT_EQ(p.pending_to_b(), 1u);
  std::vector<std::uint8_t> all(got.begin(), got.end());
  p.settle();
  EXPECT_EQ(p.a().producer(), (Cursor{1, 104}));
  // Drain everything; every octet arrives in order.
  for (int i = 0; i < 100 && all.size() < 20010; ++i) {
    std::vector<std::uint8_t> buf(5000);
    ReceiveResult rr = p.b().receive(buf);
    all.insert(all.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(rr.octets));
    p.from_b(std::move(rr.out));
    p.settle();
  }
  ASSERT_EQ(all.size(), 20010u);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), all.begin()));
  EXPECT_FALSE(p.a().write_blocked());
  EXPECT_EQ(p.a().queued(), 0u);
}

TEST(SmcrConnection, WritesSplitWhereThePeerRmbeWraps) {
  // §4.7.4 steps 1-2: one Write to the RMBE's end, one from its first data octet.
  Pair p(config_of(16384, 16384));
  std::vector<std::uint8_t> got(20000);
  p.from_a(p.a().send(octets(14996)).out);
  p.settle();
  ReceiveResult r = p.b().receive(got);
  ASSERT_TRUE(r.out.cdc);  // 1384 free as A sees it: confirm
  p.from_b(std::move(r.out));
  p.settle();
  const auto data = octets(3000, 42);
  SendResult s = p.a().send(data);
  ASSERT_EQ(s.out.writes.size(), 2u);
  EXPECT_EQ(s.out.writes[0].rmbe_offset, 15000u);
  EXPECT_EQ(s.out.writes[0].octets.size(), 1384u);
  EXPECT_EQ(s.out.writes[1].rmbe_offset, 4u);
  EXPECT_EQ(s.out.writes[1].octets.size(), 1616u);
  EXPECT_EQ(s.out.cdc->producer(), (Cursor{1, 1620}));
  p.from_a(std::move(s.out));
  p.settle();
  ReceiveResult r2 = p.b().receive(got);
  ASSERT_EQ(r2.octets, 3000u);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), got.begin()));
  EXPECT_EQ(p.b().consumer(), (Cursor{1, 1620}));
}

TEST(SmcrConnection, ConsumerUpdatePolicyOfSection451) {
  // §4.5.1's examples on a 64 KiB receive buffer (64 KiB + the eyecatcher).
  constexpr std::uint32_t kSize = 65536 + 4;
  std::vector<std::uint8_t> got(65536);
  {
    // a. The sender's window stays at 50K: no update.
    Pair p(config_of(kSize, kSize));
    p.from_a(p.a().send(octets(14 * 1024)).out);
    p.settle();
    EXPECT_TRUE(p.b().receive(got).out.empty());
  }
  Pair p(config_of(kSize, kSize));
  p.from_a(p.a().send(octets(34 * 1024)).out);
  p.settle();
  // b. Window 30K for the sender, 31K after consuming 1K: below a tenth.
  EXPECT_TRUE(p.b().receive(std::span(got).first(1024)).out.empty());
  // c. All consumed: the window would grow by 34K: update.
  ReceiveResult r = p.b().receive(got);
  ASSERT_TRUE(r.out.cdc);
  EXPECT_EQ(r.out.cdc->consumer(), (Cursor{0, 4 + 34 * 1024}));
  // Other thresholds are configurable: at 100 % of the window every
  // consumption of at least 1 % is confirmed.
  ConnectionConfig eager = config_of(kSize, kSize);
  eager.update = {100, 1};
  Pair q(testing::mirrored(eager), eager);
  q.from_a(q.a().send(octets(14 * 1024)).out);
  q.settle();
  EXPECT_TRUE(q.b().receive(got).out.cdc);
}

TEST(SmcrConnection, UpdateRequestedAnswersAtOnce) {
  // §4.5.1, A.4 R: the consumer cursor goes back when asked, whatever the window.
  Lone l;
  EXPECT_EQ(l.c.on_cdc(peer_cdc(1, {0, 104}, {0, 4})).verdict, CdcVerdict::kAccepted);
  std::vector<std::uint8_t> got(50);
  EXPECT_TRUE(l.c.receive(got).out.empty());
  CdcOutcome r = l.c.on_cdc(peer_cdc(2, {0, 104}, {0, 4}, {F::R}));
  ASSERT_TRUE(r.out.cdc);
  EXPECT_EQ(r.out.cdc->consumer(), (Cursor{0, 54}));
  // Still requested: the next consumption is confirmed too.
  ReceiveResult rr = l.c.receive(got);
  ASSERT_TRUE(rr.out.cdc);
  EXPECT_EQ(rr.out.cdc->consumer(), (Cursor{0, 104}));
  EXPECT_EQ(rr.out.cdc->sequence_number(), 2);
}

// ---------------------------------------------------------------- §4.7.5, §4.7.6 urgent data

TEST(SmcrConnection, Scenario5UrgentDataWindowOpen) {
  Pair p(config_of(16384, 16384));
  const auto urgent = octets(500, 3);
  SendResult s = p.a().send_urgent(urgent);
  ASSERT_TRUE(s.out.cdc);
  EXPECT_TRUE(s.out.cdc->flag(F::P));
  EXPECT_TRUE(s.out.cdc->flag(F::U));
  EXPECT_EQ(s.out.cdc->producer(), (Cursor{0, 504}));  // one past the last urgent octet
  p.from_a(std::move(s.out));
  // Normal data after it is buffered, not written, until B confirms.
  const auto normal = octets(1000, 5);
  SendResult n = p.a().send(normal);
  EXPECT_EQ(n.accepted, 1000u);
  EXPECT_TRUE(n.out.empty());
  EXPECT_EQ(p.a().send_urgent(octets(1)).status, SendStatus::kUrgentWait);
  p.settle();
  EXPECT_TRUE(p.b().urgent_pending());
  EXPECT_EQ(p.b().urgent_mark(), 500u);
  // receive() stops at the mark; the update goes out though the window is open.
  std::vector<std::uint8_t> got(4000);
  ReceiveResult r = p.b().receive(got);
  EXPECT_EQ(r.octets, 500u);
  EXPECT_TRUE(std::equal(urgent.begin(), urgent.end(), got.begin()));
  ASSERT_TRUE(r.out.cdc);
  EXPECT_EQ(r.out.cdc->consumer(), (Cursor{0, 504}));
  EXPECT_FALSE(p.b().urgent_pending());
  EXPECT_FALSE(p.b().urgent_mark());
  p.from_b(std::move(r.out));
  ASSERT_TRUE(p.step_to_a());
  // A resumes with the normal data; P and U are off again.
  ASSERT_EQ(p.seen_by_b.size(), 1u);
  p.settle();
  ASSERT_EQ(p.seen_by_b.size(), 2u);
  EXPECT_EQ(p.seen_by_b[1].producer(), (Cursor{0, 1504}));
  EXPECT_FALSE(p.seen_by_b[1].flag(F::P));
  EXPECT_FALSE(p.seen_by_b[1].flag(F::U));
  EXPECT_EQ(p.b().receive(got).octets, 1000u);
  EXPECT_TRUE(std::equal(normal.begin(), normal.end(), got.begin()));
}

TEST(SmcrConnection, Scenario6UrgentDataWindowClosed) {
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().send(octets(16380)).out);
  p.settle();
  ASSERT_EQ(p.a().window(), 0u);
  // Step 1: P (with B) alone, no data.
  const auto urgent = octets(500, 3);
  SendResult s = p.a().send_urgent(urgent);
  ASSERT_TRUE(s.out.cdc);
  EXPECT_TRUE(s.out.writes.empty());
  EXPECT_TRUE(s.out.cdc->flag(F::P));
  EXPECT_TRUE(s.out.cdc->flag(F::B));
  EXPECT_FALSE(s.out.cdc->flag(F::U));
  EXPECT_EQ(s.out.cdc->producer(), (Cursor{1, 4}));
  p.from_a(std::move(s.out));
  p.settle();
  EXPECT_TRUE(p.b().urgent_pending());
  EXPECT_FALSE(p.b().urgent_mark());
  // Step 2: B consumes the full window and confirms it.
  std::vector<std::uint8_t> got(20000);
  ReceiveResult r = p.b().receive(got);
  EXPECT_EQ(r.octets, 16380u);
  ASSERT_TRUE(r.out.cdc);
  EXPECT_EQ(r.out.cdc->consumer(), (Cursor{1, 4}));
  p.from_b(std::move(r.out));
  p.settle();
  // Steps 3-4: the urgent data, U and P set, B off.
  const CdcMessage& u = p.seen_by_b.back();
  EXPECT_TRUE(u.flag(F::U));
  EXPECT_TRUE(u.flag(F::P));
  EXPECT_FALSE(u.flag(F::B));
  EXPECT_EQ(u.producer(), (Cursor{1, 504}));
  EXPECT_EQ(p.b().urgent_mark(), 16380u + 500u);
  // Step 5: consumed and confirmed.
  r = p.b().receive(got);
  EXPECT_EQ(r.octets, 500u);
  EXPECT_TRUE(std::equal(urgent.begin(), urgent.end(), got.begin()));
  ASSERT_TRUE(r.out.cdc);
  p.from_b(std::move(r.out));
  p.settle();
  EXPECT_EQ(p.a().send_urgent(octets(1)).status, SendStatus::kOk);
}

// ---------------------------------------------------------------- the peer's broken rules

TEST(SmcrConnection, CursorBeyondTheRmbeAborts) {
  Lone l;
  CdcOutcome r = l.c.on_cdc(peer_cdc(1, {0, 16384}, {0, 4}));
  EXPECT_EQ(r.verdict, CdcVerdict::kAborted);
  EXPECT_TRUE(has(r, PeerError::kCursorOutsideRmbe, &check::kCdcCursorWithinRmbe));
  ASSERT_TRUE(r.out.cdc);
  EXPECT_TRUE(r.out.cdc->flag(F::A));
  EXPECT_EQ(l.c.state(), ConnectionState::kPeerAbortWait);
  EXPECT_EQ(l.c.readable(), 0u);
  // A cursor inside the eyecatcher, and the consumer cursor, the same.
  Lone e;
  EXPECT_TRUE(has(e.c.on_cdc(peer_cdc(1, {0, 2}, {0, 4})), PeerError::kCursorOutsideRmbe));
  Lone k;
  EXPECT_TRUE(has(k.c.on_cdc(peer_cdc(1, {0, 4}, {0, 20000})), PeerError::kCursorOutsideRmbe));
}

TEST(SmcrConnection, ConsumerAheadOfWhatWasWrittenAborts) {
  Lone l;
  // Nothing was written into the peer's RMBE; it claims to have consumed 96.
  CdcOutcome r = l.c.on_cdc(peer_cdc(1, {0, 4}, {0, 100}));
  EXPECT_EQ(r.verdict, CdcVerdict::kAborted);
  EXPECT_TRUE(has(r, PeerError::kConsumerAhead, &check::kCdcConsumerNotAhead));
  // Two wraps ahead is ahead too (serial wrap counts).
  Lone w;
  EXPECT_TRUE(has(w.c.on_cdc(peer_cdc(1, {0, 4}, {2, 4})), PeerError::kConsumerAhead));
  // One that went back is kept as it was (Linux), not an error.
  Lone b;
  EXPECT_EQ(b.c.on_cdc(peer_cdc(1, {0, 4}, {0xFFFF, 4})).verdict, CdcVerdict::kAccepted);
  EXPECT_EQ(b.c.peer_consumer(), (Cursor{0, 4}));
}

TEST(SmcrConnection, ProducerPastTheConsumerCursorAborts) {
  Lone l;
  // 16380 + 6 octets announced into a 16380-octet data area: data lost.
  CdcOutcome r = l.c.on_cdc(peer_cdc(1, {1, 10}, {0, 4}));
  EXPECT_EQ(r.verdict, CdcVerdict::kAborted);
  EXPECT_TRUE(has(r, PeerError::kProducerPastConsumer));
  EXPECT_EQ(l.c.readable(), 0u);
  // Exactly a full window is fine (Figure 19).
  Lone f;
  EXPECT_EQ(f.c.on_cdc(peer_cdc(1, {1, 4}, {0, 4})).verdict, CdcVerdict::kAccepted);
  EXPECT_EQ(f.c.readable(), 16380u);
  // Then one more octet before any consumption is past it.
  EXPECT_TRUE(has(f.c.on_cdc(peer_cdc(2, {1, 5}, {0, 4})), PeerError::kProducerPastConsumer));
}

TEST(SmcrConnection, OldSequenceNumberIsDiscardedAGapReported) {
  Lone l;
  EXPECT_EQ(l.c.on_cdc(peer_cdc(1, {0, 14}, {0, 4})).verdict, CdcVerdict::kAccepted);
  EXPECT_EQ(l.c.on_cdc(peer_cdc(2, {0, 24}, {0, 4})).verdict, CdcVerdict::kAccepted);
  // A.4: a number going back is discarded, nothing taken from it.
  CdcOutcome r = l.c.on_cdc(peer_cdc(1, {0, 34}, {0, 4}));
  EXPECT_EQ(r.verdict, CdcVerdict::kDiscarded);
  EXPECT_TRUE(has(r, PeerError::kSequenceNumber, &check::kCdcSequenceNumber));
  EXPECT_EQ(l.c.readable(), 20u);
  EXPECT_EQ(l.c.last_sequence_received(), 2);
  // A gap: reported, processed (A.4 processes a greater number).
  r = l.c.on_cdc(peer_cdc(5, {0, 44}, {0, 4}));
  EXPECT_EQ(r.verdict, CdcVerdict::kAccepted);
  EXPECT_TRUE(has(r, PeerError::kSequenceNumber));
  EXPECT_EQ(l.c.readable(), 40u);
  // The first message must be 1.
  Lone f;
  EXPECT_TRUE(has(f.c.on_cdc(peer_cdc(7, {0, 4}, {0, 4})), PeerError::kSequenceNumber));
}

// A conformance script sends a CDC message of its own with the next number
// (the tester's runner); the connection's next message follows it, or the
// peer would discard it as old (A.4), as Linux did with the tester's A.
TEST(SmcrConnection, ASequenceNumberTakenOutsideIsFollowed) {
  Pair p(config_of(16384, 16384), testing::mirrored(config_of(16384, 16384)));
  p.from_a(p.a().send(octets(10)).out);  // number 1
  p.settle();
  ASSERT_EQ(p.a().last_sequence_sent(), 1);
  const CdcMessage own = peer_cdc(2, p.a().producer(), p.a().consumer(), {}, p.a().config().peer_alert_token);
  EXPECT_EQ(p.b().on_cdc(own).verdict, CdcVerdict::kAccepted);
  p.a().sequence_taken(2);
  p.from_a(p.a().send(octets(10)).out);  // number 3
  p.settle();
  ASSERT_FALSE(p.outcomes_b.empty());
  EXPECT_EQ(p.outcomes_b.back().verdict, CdcVerdict::kAccepted);
  EXPECT_EQ(p.a().last_sequence_sent(), 3);
  EXPECT_EQ(p.b().readable(), 20u);
  // A number behind the last sent (a script's deliberately old one) changes nothing.
  p.a().sequence_taken(1);
  EXPECT_EQ(p.a().last_sequence_sent(), 3);
}

TEST(SmcrConnection, DataAfterDoneWritingAborts) {
  Lone l;
  EXPECT_EQ(l.c.on_cdc(peer_cdc(1, {0, 104}, {0, 4}, {F::D})).verdict, CdcVerdict::kAccepted);
  EXPECT_TRUE(l.c.peer_done_writing());
  EXPECT_EQ(l.c.state(), ConnectionState::kAppCloseWait1);
  // The same cursor again (a consumer update after D) is fine.
  EXPECT_EQ(l.c.on_cdc(peer_cdc(2, {0, 104}, {0, 4}, {F::D})).verdict, CdcVerdict::kAccepted);
  CdcOutcome r = l.c.on_cdc(peer_cdc(3, {0, 204}, {0, 4}, {F::D}));
  EXPECT_EQ(r.verdict, CdcVerdict::kAborted);
  EXPECT_TRUE(has(r, PeerError::kWritesAfterDone, &check::kNoWritesAfterDone));
  // A Write after D is refused before it is placed.
  Lone w;
  w.c.on_cdc(peer_cdc(1, {0, 104}, {0, 4}, {F::D}));
  WriteOutcome wo = w.c.on_rdma_write(104, 10);
  EXPECT_FALSE(wo.place);
  ASSERT_EQ(wo.findings.size(), 1u);
  EXPECT_EQ(wo.findings[0].error, PeerError::kWritesAfterDone);
}

TEST(SmcrConnection, UrgentPresentWithoutPendingIsReportedAndTaken) {
  Lone l;
  CdcOutcome r = l.c.on_cdc(peer_cdc(1, {0, 14}, {0, 4}, {F::U}));
  EXPECT_EQ(r.verdict, CdcVerdict::kAccepted);
  EXPECT_TRUE(has(r, PeerError::kUrgentPresentPending, &check::kUrgentPresentPending));
  EXPECT_EQ(l.c.urgent_mark(), 10u);
}

TEST(SmcrConnection, MessagesAfterThePeersCloseAreIgnored) {
  Lone l;
  EXPECT_EQ(l.c.on_cdc(peer_cdc(1, {0, 4}, {0, 4}, {F::C})).verdict, CdcVerdict::kAccepted);
  CdcOutcome r = l.c.on_cdc(peer_cdc(2, {0, 14}, {0, 4}));
  EXPECT_EQ(r.verdict, CdcVerdict::kIgnored);
  EXPECT_TRUE(has(r, PeerError::kAfterClosed, &check::kNothingAfterClosed));
  EXPECT_EQ(l.c.readable(), 0u);
  // Another connection's token is not taken either.
  Lone t;
  CdcOutcome o = t.c.on_cdc(peer_cdc(1, {0, 14}, {0, 4}, {}, 0x9999));
  EXPECT_EQ(o.verdict, CdcVerdict::kIgnored);
  EXPECT_TRUE(has(o, PeerError::kWrongAlertToken));
  EXPECT_EQ(t.c.readable(), 0u);
}

TEST(SmcrConnection, FailoverValidationComparesWithWhatWasProcessed) {
  // §4.6.1: SR (2 here) at least the validated number: fine; beyond: reset.
  Lone l;
  l.c.on_cdc(peer_cdc(1, {0, 14}, {0, 4}));
  l.c.on_cdc(peer_cdc(2, {0, 24}, {0, 4}));
  CdcOutcome ok = l.c.on_cdc(peer_cdc(2, {0, 0}, {0, 0}, {F::F}));
  EXPECT_EQ(ok.verdict, CdcVerdict::kAccepted);
  EXPECT_TRUE(ok.findings.empty());  // its cursors are not significant
  EXPECT_EQ(l.c.readable(), 20u);
  CdcOutcome lost = l.c.on_cdc(peer_cdc(3, {0, 34}, {0, 4}, {F::F}));
  EXPECT_EQ(lost.verdict, CdcVerdict::kAborted);
  EXPECT_TRUE(has(lost, PeerError::kFailoverDataLost));
  // This side's own validation message: F, the last number sent.
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().send(octets(10)).out);
  p.from_a(p.a().send(octets(10)).out);
  const CdcMessage v = p.a().failover_validation();
  EXPECT_TRUE(v.flag(F::F));
  EXPECT_EQ(v.sequence_number(), 2);
  EXPECT_EQ(p.a().failover_validation(1).sequence_number(), 1);
  p.settle();
  EXPECT_EQ(p.b().on_cdc(through_wire(v)).verdict, CdcVerdict::kAccepted);
  EXPECT_EQ(p.b().state(), ConnectionState::kActive);
}

TEST(SmcrConnection, OverlaidEyecatcherResets) {
  Lone l;
  l.rmbe[1] = 'X';  // §4.4.1: an overlay of the RMBE's start
  CdcOutcome r = l.c.on_cdc(peer_cdc(1, {0, 14}, {0, 4}));
  EXPECT_EQ(r.verdict, CdcVerdict::kAborted);
  EXPECT_TRUE(has(r, PeerError::kEyecatcherOverlaid));
}

TEST(SmcrConnection, WritesAreJudgedBeforeTheyArePlaced) {
  Lone l;
  // §4.4.1: not inside the RMBE.
  WriteOutcome w = l.c.on_rdma_write(16000, 1000);
  EXPECT_FALSE(w.place);
  ASSERT_FALSE(w.findings.empty());
  EXPECT_EQ(w.findings[0].error, PeerError::kWriteOutsideRmbe);
  ASSERT_TRUE(w.findings[0].violation);
  EXPECT_EQ(w.findings[0].violation->rule, &check::kWriteInsideRmbe);
  EXPECT_TRUE(w.out.cdc && w.out.cdc->flag(F::A));
  // A.4: not where the producer cursor stands.
  Lone t;
  WriteOutcome s = t.c.on_rdma_write(100, 10);
  EXPECT_FALSE(s.place);
  EXPECT_EQ(s.findings.at(0).error, PeerError::kProducerNotWrites);
  // Writes that follow each other are placed; one reaching unread data is not.
  Lone u;
  EXPECT_TRUE(u.c.on_rdma_write(4, 10000).place);
  EXPECT_EQ(u.c.on_cdc(peer_cdc(1, {0, 10004}, {0, 4})).verdict, CdcVerdict::kAccepted);
  EXPECT_TRUE(u.c.on_rdma_write(10004, 6380).place);  // to the RMBE's end: the window is full
  WriteOutcome over = u.c.on_rdma_write(4, 1);
  EXPECT_FALSE(over.place);
  EXPECT_EQ(over.findings.at(0).error, PeerError::kProducerPastConsumer);
}

// ---------------------------------------------------------------- faults (mutation)

TEST(SmcrConnection, FaultWritePastWindowIsCaughtByThePeer) {
  ConnectionConfig faulty = config_of(16384, 16384);
  faulty.faults.set(Fault::kWritePastWindow);
  Pair p(faulty, testing::mirrored(config_of(16384, 16384)));
  p.from_a(p.a().send(octets(16380)).out);
  p.from_a(p.a().send(octets(100)).out);  // a correct sender would wait
  p.settle();
  // B refuses the Write that would overwrite unread data, and aborts.
  ASSERT_EQ(p.writes_b.size(), 2u);
  EXPECT_TRUE(p.writes_b[0].place);
  EXPECT_FALSE(p.writes_b[1].place);
  ASSERT_FALSE(p.writes_b[1].findings.empty());
  EXPECT_EQ(p.writes_b[1].findings[0].error, PeerError::kProducerPastConsumer);
  EXPECT_TRUE(p.b().aborted());
  EXPECT_EQ(p.b().state(), ConnectionState::kClosed);  // A answered A
}

TEST(SmcrConnection, FaultWritePastUrgentWritesBeforeThePeerConsumedIt) {
  ConnectionConfig faulty = config_of(16384, 16384);
  faulty.faults.set(Fault::kWritePastUrgent);
  Pair p(faulty, testing::mirrored(config_of(16384, 16384)));
  p.from_a(p.a().send_urgent(octets(500, 3)).out);
  // §4.7.5 holds normal data back until the peer consumed the urgent data
  // (Scenario5UrgentDataWindowOpen); the fault writes it at once.
  SendResult n = p.a().send(octets(1000, 5));
  ASSERT_TRUE(n.out.cdc);
  EXPECT_EQ(n.out.cdc->producer(), (Cursor{0, 1504}));
  EXPECT_EQ(p.b().octets_consumed(), 0u);
}

TEST(SmcrConnection, FaultNoConsumerUpdateLeavesTheSenderBlocked) {
  ConnectionConfig mute = testing::mirrored(config_of(16384, 16384));
  mute.faults.set(Fault::kNoConsumerUpdate);
  Pair p(config_of(16384, 16384), mute);
  p.from_a(p.a().send(octets(20000)).out);
  p.settle();
  std::vector<std::uint8_t> got(20000);
  EXPECT_TRUE(p.b().receive(got).out.empty());
  EXPECT_EQ(p.a().queued(), 3620u);
  EXPECT_EQ(p.a().window(), 0u);
}

TEST(SmcrConnection, FaultRepeatSequenceNumberIsDiscardedByThePeer) {
  ConnectionConfig faulty = config_of(16384, 16384);
  faulty.faults.set(Fault::kRepeatSequenceNumber);
  Pair p(faulty, testing::mirrored(config_of(16384, 16384)));
  p.from_a(p.a().send(octets(10)).out);
  p.from_a(p.a().send(octets(10)).out);
  p.settle();
  ASSERT_EQ(p.outcomes_b.size(), 2u);
  EXPECT_EQ(p.outcomes_b[1].verdict, CdcVerdict::kDiscarded);
  EXPECT_EQ(p.b().readable(), 10u);
}

TEST(SmcrConnection, FaultSkipReceiveChecksTakesAnOldNumber) {
  ConnectionConfig lax = config_of(16384, 16384);
  lax.faults.set(Fault::kSkipReceiveChecks);
  std::vector<std::uint8_t> rmbe(16384);
  Connection c(lax, rmbe);
  c.on_cdc(peer_cdc(1, {0, 14}, {0, 4}));
  c.on_cdc(peer_cdc(2, {0, 24}, {0, 4}));
  CdcOutcome r = c.on_cdc(peer_cdc(1, {0, 34}, {0, 4}));
  EXPECT_EQ(r.verdict, CdcVerdict::kAccepted);
  EXPECT_EQ(c.readable(), 30u);
  // The data area's bounds hold whatever the faults.
  EXPECT_EQ(c.on_cdc(peer_cdc(3, {0, 16384}, {0, 4})).verdict, CdcVerdict::kAborted);
}

}  // namespace
}  // namespace rdmaconf::smcr
