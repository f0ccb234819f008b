// The close sequences of the SMC-R connection (reference/smcr/connection.hpp):
// RFC 7609 §4.8.1 (Figure 22: active and passive orderly close, shutdown for
// write, both sides at once) and §4.8.2 (Figure 23: active and passive
// abort), each from both sides, with the states named as the RFC does.
#include <vector>

#include <gtest/gtest.h>

#include "smcr/connection.hpp"
#include "smcr_connection_test_util.hpp"

namespace rdmaconf::smcr {
namespace {

using F = CdcSpec::Field;
using S = ConnectionState;
using testing::config_of;
using testing::cursor_after;
using testing::mirrored;
using testing::Pair;

std::vector<std::uint8_t> octets(std::size_t n) { return std::vector<std::uint8_t>(n, 0x5A); }

// The flags of the last CDC message each side received.
bool last_to_b(Pair& p, F f) { return !p.seen_by_b.empty() && p.seen_by_b.back().flag(f); }
bool last_to_a(Pair& p, F f) { return !p.seen_by_a.empty() && p.seen_by_a.back().flag(f); }

TEST(SmcrConnectionClose, ActiveCloseThenPassiveClose) {
  Pair p(config_of(16384, 16384));
  // 3A: A closes: C, PeerCloseWait1.
  Output c = p.a().close();
  ASSERT_TRUE(c.cdc);
  EXPECT_TRUE(c.cdc->flag(F::C));
  EXPECT_EQ(p.a().state(), S::kPeerCloseWait1);
  p.from_a(std::move(c));
  p.settle();
  // 4A: B learns it, AppCloseWait1; nothing more arrives.
  EXPECT_EQ(p.b().state(), S::kAppCloseWait1);
  EXPECT_TRUE(p.b().peer_done_writing());
  EXPECT_EQ(p.b().send(octets(10)).status, SendStatus::kPeerClosed);
  // 4C: B closes: C, Closed (the peer's C came first); 3C: A Closed.
  Output bc = p.b().close();
  ASSERT_TRUE(bc.cdc);
  EXPECT_TRUE(bc.cdc->flag(F::C));
  EXPECT_EQ(p.b().state(), S::kClosed);
  p.from_b(std::move(bc));
  p.settle();
  EXPECT_EQ(p.a().state(), S::kClosed);
  EXPECT_FALSE(p.a().aborted());
  EXPECT_FALSE(p.b().aborted());
  // Closed takes nothing more.
  EXPECT_EQ(p.a().send(octets(1)).status, SendStatus::kShutdown);
  EXPECT_TRUE(p.a().close().empty());
}

TEST(SmcrConnectionClose, ShutdownForWriteOnBothSides) {
  Pair p(config_of(16384, 16384));
  // 3A with shutdown(): D, PeerCloseWait1; A can still read.
  Output d = p.a().shutdown_write();
  ASSERT_TRUE(d.cdc);
  EXPECT_TRUE(d.cdc->flag(F::D));
  EXPECT_FALSE(d.cdc->flag(F::C));
  EXPECT_EQ(p.a().state(), S::kPeerCloseWait1);
  EXPECT_EQ(p.a().send(octets(1)).status, SendStatus::kShutdown);
  p.from_a(std::move(d));
  p.settle();
  EXPECT_EQ(p.b().state(), S::kAppCloseWait1);
  // B still writes to A.
  p.from_b(p.b().send(octets(300)).out);
  p.settle();
  std::vector<std::uint8_t> got(300);
  EXPECT_EQ(p.a().receive(got).octets, 300u);
  // 4B: B shuts down for write: D, AppCloseWait2; 3B: A PeerCloseWait2.
  p.from_b(p.b().shutdown_write());
  EXPECT_EQ(p.b().state(), S::kAppCloseWait2);
  p.settle();
  EXPECT_EQ(p.a().state(), S::kPeerCloseWait2);
  EXPECT_TRUE(last_to_a(p, F::D));
  // 4C: B closes: C, PeerFinCloseWait (A has not said C); 3C: A AppFinCloseWait.
  p.from_b(p.b().close());
  EXPECT_EQ(p.b().state(), S::kPeerFinCloseWait);
  p.settle();
  EXPECT_EQ(p.a().state(), S::kAppFinCloseWait);
  // 3D: A closes: C, Closed; 4D: B Closed.
  p.from_a(p.a().close());
  EXPECT_EQ(p.a().state(), S::kClosed);
  p.settle();
  EXPECT_EQ(p.b().state(), S::kClosed);
  EXPECT_TRUE(last_to_b(p, F::C));
}

TEST(SmcrConnectionClose, BothSidesCloseAtOnce) {
  // §4.8.1: both take the active path.
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().close());
  p.from_b(p.b().close());
  EXPECT_EQ(p.a().state(), S::kPeerCloseWait1);
  EXPECT_EQ(p.b().state(), S::kPeerCloseWait1);
  p.settle();
  EXPECT_EQ(p.a().state(), S::kClosed);
  EXPECT_EQ(p.b().state(), S::kClosed);
  EXPECT_FALSE(p.a().aborted());
}

TEST(SmcrConnectionClose, CloseWaitsUntilQueuedDataIsWritten) {
  // 3A: the pending close: C goes out with the last Write.
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().send(octets(20000)).out);
  Output c = p.a().close();
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(p.a().state(), S::kActive);
  EXPECT_EQ(p.a().send(octets(1)).status, SendStatus::kShutdown);
  p.settle();
  std::vector<std::uint8_t> got(20000);
  std::size_t total = 0;
  for (int i = 0; i < 10 && total < 20000; ++i) {
    ReceiveResult r = p.b().receive(got);
    total += r.octets;
    p.from_b(std::move(r.out));
    p.settle();
  }
  EXPECT_EQ(total, 20000u);
  EXPECT_EQ(p.a().state(), S::kPeerCloseWait1);
  EXPECT_TRUE(last_to_b(p, F::C));
  EXPECT_EQ(p.b().state(), S::kAppCloseWait1);
}

TEST(SmcrConnectionClose, CloseWithUnreadDataResets) {
  // 3A: unread data in the own RMBE: abnormal reset instead of C.
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().send(octets(100)).out);
  p.settle();
  Output c = p.b().close();
  ASSERT_TRUE(c.cdc);
  EXPECT_TRUE(c.cdc->flag(F::A));
  EXPECT_FALSE(c.cdc->flag(F::C));
  EXPECT_EQ(p.b().state(), S::kPeerAbortWait);
  p.from_b(std::move(c));
  p.settle();
  // §4.8.2 2A/2B at A, 1B at B.
  EXPECT_EQ(p.a().state(), S::kClosed);
  EXPECT_EQ(p.b().state(), S::kClosed);
  EXPECT_TRUE(p.a().aborted());
  EXPECT_TRUE(p.b().aborted());
  EXPECT_TRUE(last_to_b(p, F::A));
}

TEST(SmcrConnectionClose, FaultClosesWithUnreadDataWithoutAbort) {
  ConnectionConfig c = config_of(16384, 16384);
  Pair p(c, [&] {
    ConnectionConfig b = mirrored(c);
    b.faults.set(Fault::kCloseIgnoresUnread);
    return b;
  }());
  p.from_a(p.a().send(octets(100)).out);
  p.settle();
  Output out = p.b().close();
  ASSERT_TRUE(out.cdc);
  EXPECT_FALSE(out.cdc->flag(F::A));
  EXPECT_TRUE(out.cdc->flag(F::C));
}

TEST(SmcrConnectionClose, DataCarriesTheConsumerCursorAsItStands) {
  // §4.5.1: B read 100 octets (no update due yet); its own data's CDC
  // message then carries the consumer cursor past them. The fault leaves the
  // one last sent there.
  for (const bool stale : {false, true}) {
    ConnectionConfig c = config_of(16384, 16384);
    ConnectionConfig b = mirrored(c);
    if (stale) b.faults.set(Fault::kStaleConsumerCursor);
    Pair p(c, b);
    p.from_a(p.a().send(octets(100)).out);
    p.settle();
    std::vector<std::uint8_t> got(100);
    ReceiveResult r = p.b().receive(got);
    ASSERT_EQ(r.octets, 100u);
    EXPECT_TRUE(r.out.empty());
    SendResult sent = p.b().send(octets(10));
    ASSERT_TRUE(sent.out.cdc);
    const Cursor want = stale ? Cursor{0, c.own.data_start()} : cursor_after(100, b.own);
    EXPECT_EQ(sent.out.cdc->consumer(), want) << (stale ? "stale" : "as it stands");
  }
}

TEST(SmcrConnectionClose, PeerClosesWhileDataWaitsResets) {
  // 4A: C arrives while this side still has data to write: reset.
  ConnectionConfig mute = testing::mirrored(config_of(16384, 16384));
  mute.faults.set(Fault::kNoConsumerUpdate);
  Pair p(config_of(16384, 16384), mute);
  p.from_a(p.a().send(octets(20000)).out);
  p.settle();
  std::vector<std::uint8_t> got(20000);
  EXPECT_EQ(p.b().receive(got).octets, 16380u);
  p.from_b(p.b().close());
  p.settle();
  ASSERT_FALSE(p.outcomes_a.empty());
  const CdcOutcome& r = p.outcomes_a.back();
  EXPECT_EQ(r.verdict, CdcVerdict::kAborted);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].error, PeerError::kClosedWithDataPending);
  EXPECT_EQ(p.a().state(), S::kClosed);
  EXPECT_TRUE(p.a().aborted());
  EXPECT_EQ(p.b().state(), S::kClosed);  // B said C: the A is answered by nothing
}

TEST(SmcrConnectionClose, ActiveAbortWaitsForThePeersAbort) {
  Pair p(config_of(16384, 16384));
  p.from_b(p.b().send(octets(100)).out);
  // 1A: A, PeerAbortWait; data and other messages from the peer are ignored.
  Output a = p.a().abort();
  ASSERT_TRUE(a.cdc);
  EXPECT_TRUE(a.cdc->flag(F::A));
  EXPECT_EQ(p.a().state(), S::kPeerAbortWait);
  EXPECT_EQ(p.a().send(octets(1)).status, SendStatus::kShutdown);
  p.from_a(std::move(a));
  ASSERT_TRUE(p.step_to_a());  // B's data message, sent before B knew
  EXPECT_EQ(p.outcomes_a.back().verdict, CdcVerdict::kIgnored);
  EXPECT_FALSE(p.writes_a.back().place);
  EXPECT_EQ(p.a().readable(), 0u);
  // 2A/2B at B: A back, Closed; 1B at A: Closed.
  p.settle();
  EXPECT_EQ(p.b().state(), S::kClosed);
  EXPECT_EQ(p.a().state(), S::kClosed);
  EXPECT_TRUE(last_to_a(p, F::A));
  EXPECT_EQ(p.b().send(octets(1)).status, SendStatus::kShutdown);
}

TEST(SmcrConnectionClose, BothSidesAbortAtOnce) {
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().abort());
  p.from_b(p.b().abort());
  p.settle();
  EXPECT_EQ(p.a().state(), S::kClosed);
  EXPECT_EQ(p.b().state(), S::kClosed);
}

TEST(SmcrConnectionClose, NothingIsSentAfterC) {
  // A.4: after C this side sends no control message; an abort then is silent.
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().close());
  p.from_b(p.b().send(octets(16000)).out);
  p.settle();
  EXPECT_EQ(p.b().state(), S::kAppCloseWait1);
  // A consumes what B wrote before it saw C: §4.5.1 would confirm it (B's
  // window is below half), but not after C.
  std::vector<std::uint8_t> got(16000);
  ReceiveResult r = p.a().receive(got);
  EXPECT_EQ(r.octets, 16000u);
  EXPECT_TRUE(r.out.empty());
  EXPECT_TRUE(p.a().abort().empty());
  EXPECT_EQ(p.a().state(), S::kClosed);
  EXPECT_TRUE(p.a().aborted());
}

TEST(SmcrConnectionClose, TimersEndTheWaitingStates) {
  // §4.8.1: a peer that never answers C: the timer closes, silently (C was said).
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().close());
  EXPECT_TRUE(p.a().close_timeout().empty());
  EXPECT_EQ(p.a().state(), S::kClosed);
  // After D only, the timer resets with A.
  Pair q(config_of(16384, 16384));
  q.from_a(q.a().shutdown_write());
  Output t = q.a().close_timeout();
  ASSERT_TRUE(t.cdc);
  EXPECT_TRUE(t.cdc->flag(F::A));
  EXPECT_TRUE(t.cdc->flag(F::D));
  EXPECT_EQ(q.a().state(), S::kClosed);
  // §4.8.2 1B: the abort wait ends too.
  Pair r(config_of(16384, 16384));
  r.from_a(r.a().abort());
  EXPECT_TRUE(r.a().close_timeout().empty());
  EXPECT_EQ(r.a().state(), S::kClosed);
}

TEST(SmcrConnectionClose, PassiveSideClosesAfterDoneWriting) {
  // 4A then 4C after the peer's D only: PeerFinCloseWait until its C.
  Pair p(config_of(16384, 16384));
  p.from_a(p.a().shutdown_write());
  p.settle();
  EXPECT_EQ(p.b().state(), S::kAppCloseWait1);
  p.from_b(p.b().close());
  EXPECT_EQ(p.b().state(), S::kPeerFinCloseWait);
  p.settle();
  EXPECT_EQ(p.a().state(), S::kAppFinCloseWait);
  p.from_a(p.a().close());
  p.settle();
  EXPECT_EQ(p.a().state(), S::kClosed);
  EXPECT_EQ(p.b().state(), S::kClosed);
  EXPECT_FALSE(p.a().aborted());
  EXPECT_FALSE(p.b().aborted());
}

}  // namespace
}  // namespace rdmaconf::smcr
