// A connection's data through the whole reference SMC-R link layer: two
// connection machines (smcr/connection.hpp) whose Writes and CDC messages
// the link groups (smcr/link_group.hpp) route over the in-memory transport
// (smcr/transport.hpp) into RMBs the transport registered, 64 MiB each way
// through 16 KiB RMBs (about 4,100 wraps each; RFC 7609 §4.7, App. A.4).
// Every octet read is compared with the stream, every CDC message's cursors
// with cursors computed here from octet counts, every CDC message received
// is accepted with no finding; halfway the link the connection uses is
// deleted (§3.5.5.1.3) and the rest flows on the other link. A link that
// fails with work in flight: that work comes again on the other link,
// after the failover validation and before anything new (§4.6.1-§4.6.2).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "smcr/connection.hpp"
#include "smcr/link_group.hpp"
#include "smcr_connection_test_util.hpp"

namespace rdmaconf::smcr {
namespace {

using testing::cursor_after;
using testing::stream_octet;

Gid gid_v4(std::uint8_t d) { return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, d}; }

constexpr std::uint32_t kRmbSize = 16384;
constexpr std::uint64_t kTotal = 64ull << 20;
constexpr std::size_t kChunk = 7001;  // a prime: Writes end everywhere in the RMBE

struct Side {
  LinkGroup* group = nullptr;
  std::optional<Connection> conn;
  std::uint32_t token = 0;
  std::uint64_t offered = 0, read = 0, on_wire = 0, cdcs = 0;
  std::uint16_t sequence = 0;
};

class TransferTest : public ::testing::TestWithParam<std::uint8_t> {
 protected:
  TransferTest() : sq_(fabric_.create_qp(0)), cq_(fabric_.create_qp(1)) {}

  void SetUp() override { start({}); }

  void start(GroupFaults server_faults) {
    LinkGroupConfig sc, cc;
    sc.faults = server_faults;
    sc.role = Role::kServer;
    cc.role = Role::kClient;
    sc.version = cc.version = GetParam();
    sc.alternate = LinkAddress{0x11, gid_v4(11)};
    cc.alternate = LinkAddress{0x12, gid_v4(12)};
    sc.test_link_time = cc.test_link_time = Time{0};
    server_.emplace(sc, fabric_.host(0));
    client_.emplace(cc, fabric_.host(1));
    MemoryFabric::connect(sq_, cq_);
    const std::uint32_t srmb = *fabric_.host(0).allocate_rmb(kRmbSize);
    const std::uint32_t crmb = *fabric_.host(1).allocate_rmb(kRmbSize);
    const RToken srt = *fabric_.host(0).register_rmb(srmb, sq_);
    const RToken crt = *fabric_.host(1).register_rmb(crmb, cq_);
    server_->start({&sq_, {0x1, gid_v4(1)}, {0x2, gid_v4(2), cq_.qp_number()}, srmb, crt}, now_);
    client_->start({&cq_, {0x2, gid_v4(2)}, {0x1, gid_v4(1), sq_.qp_number()}, crmb, srt}, now_);
    settle();
    ASSERT_EQ(server_->active_links(), 2u);
    ASSERT_EQ(client_->active_links(), 2u);
    // One connection per side, each RMB one RMBE; Linux's RMBEs carry no
    // eyecatcher (the CONFIRM LINK flags the link groups sent).
    ConnectionConfig c;
    c.own = c.peer = RmbeGeometry{kRmbSize, false};
    c.own_alert_token = 0xA;
    c.peer_alert_token = 0xB;
    sides_[0].group = &*server_;
    sides_[0].token = 0xA;
    sides_[0].conn.emplace(c, fabric_.host(0).rmb(srmb));
    std::swap(c.own_alert_token, c.peer_alert_token);
    sides_[1].group = &*client_;
    sides_[1].token = 0xB;
    sides_[1].conn.emplace(c, fabric_.host(1).rmb(crmb));
    ASSERT_TRUE(server_->add_connection({0xA, crt, 0}));
    ASSERT_TRUE(client_->add_connection({0xB, srt, 0}));
  }

  // Both link groups take what their queue pairs hold; CDC messages go to
  // the connections, whose answers go out again.
  void settle() {
    for (int i = 0; i < 100000; ++i) {
      bool any = server_->poll(now_);
      any |= client_->poll(now_);
      for (int s = 0; s < 2 && sides_[s].group; ++s)
        while (auto e = sides_[s].group->next_event()) any |= take(s, *e);
      if (!any) return;
      if (::testing::Test::HasFatalFailure()) return;
    }
    FAIL() << "never quiet";
  }

  bool take(int s, const Event& e) {
    // A failed link: both sides delete it and one DELETE LINK meets the other.
    if (e.kind == Event::Kind::kDropped && !failover_) ADD_FAILURE() << "side " << s << " dropped: " << name(e.drop);
    if (e.kind == Event::Kind::kConnectionMoved && failover_) {
      // §4.6.1: the validation names SS; §4.6.2: then the flushed work.
      Side& me = sides_[s];
      EXPECT_TRUE(me.group->send_cdc(me.token, me.conn->failover_validation(me.group->sequence_sent(me.token)).header.bytes()));
      replayed_[s] = me.group->replay(me.token);
      return true;
    }
    if (e.kind != Event::Kind::kCdc) return false;
    EXPECT_EQ(e.token, sides_[s].token);
    auto m = decode_cdc(e.octets);
    EXPECT_TRUE(m.ok());
    if (!m) return false;
    CdcOutcome r = sides_[s].conn->on_cdc(*m);
    EXPECT_EQ(r.verdict, CdcVerdict::kAccepted);
    EXPECT_TRUE(r.findings.empty()) << name(r.findings[0].error);
    emit(s, std::move(r.out));
    return true;
  }

  // Checks side `s`'s Writes and CDC message against counts kept here and
  // hands them to its link group.
  void emit(int s, Output o) {
    Side& me = sides_[s];
    const RmbeGeometry& peer = me.conn->config().peer;
    for (const RdmaWrite& w : o.writes) {
      ASSERT_EQ(w.rmbe_offset, cursor_after(me.on_wire, peer).count);
      me.on_wire += w.octets.size();
      ASSERT_TRUE(me.group->write(me.token, w.rmbe_offset, w.octets));
    }
    if (!o.cdc) return;
    ASSERT_EQ(o.cdc->sequence_number(), static_cast<std::uint16_t>(me.sequence + 1));
    me.sequence = o.cdc->sequence_number();
    ++me.cdcs;
    ASSERT_EQ(o.cdc->producer(), cursor_after(me.on_wire, peer));
    ASSERT_EQ(o.cdc->consumer(), cursor_after(me.read, me.conn->config().own));
    ASSERT_TRUE(me.group->send_cdc(me.token, o.cdc->header.bytes()));
  }

  MemoryFabric fabric_;
  MemoryQueuePair& sq_;
  MemoryQueuePair& cq_;
  std::optional<LinkGroup> server_, client_;
  Side sides_[2];
  bool failover_ = false;
  bool replayed_[2] = {false, false};
  std::vector<std::uint8_t> taken_ = std::vector<std::uint8_t>(4096);

  void fail_with_work_in_flight();
  Time now_{0};
};
INSTANTIATE_TEST_SUITE_P(SmcrLinkGroup, TransferTest, ::testing::Values(1, 2));

TEST_P(TransferTest, SixtyFourMebibytesEachWayThroughSixteenKibibyteRmbs) {
  std::vector<std::uint8_t> buf(kChunk);
  bool moved = false;
  std::uint64_t idle = 0;
  while (sides_[0].read < kTotal || sides_[1].read < kTotal) {
    const std::uint64_t before = sides_[0].read + sides_[1].read + sides_[0].offered + sides_[1].offered;
    for (int s = 0; s < 2; ++s) {
      Side& me = sides_[s];
      if (me.offered < kTotal) {
        const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, kTotal - me.offered));
        for (std::size_t i = 0; i < n; ++i) buf[i] = stream_octet(s, me.offered + i);
        SendResult r = me.conn->send(wire::Bytes(buf).first(n));
        ASSERT_EQ(r.status, SendStatus::kOk);
        me.offered += r.accepted;
        emit(s, std::move(r.out));
      }
      ReceiveResult r = me.conn->receive(buf);
      for (std::size_t i = 0; i < r.octets; ++i)
        ASSERT_EQ(buf[i], stream_octet(1 - s, me.read + i)) << "octet " << me.read + i << " to side " << s;
      me.read += r.octets;
      emit(s, std::move(r.out));
      if (HasFatalFailure()) return;
    }
    settle();
    if (HasFatalFailure()) return;
    // §3.5.5.1.3: halfway, the server deletes the connections' link; they
    // move to the other one and the data goes on there.
    if (!moved && sides_[0].read >= kTotal / 2) {
      ASSERT_EQ(server_->link_of(0xA), 1);
      ASSERT_TRUE(server_->delete_link(1, true, now_));
      settle();
      ASSERT_EQ(server_->link_of(0xA), 2);
      ASSERT_EQ(client_->link_of(0xB), 2);
      ASSERT_EQ(server_->active_links(), 1u);
      moved = true;
    }
    if (sides_[0].read + sides_[1].read + sides_[0].offered + sides_[1].offered == before)
      ASSERT_LT(++idle, 100u) << "no progress";
    else
      idle = 0;
  }
  for (int s = 0; s < 2; ++s) {
    const Connection& me = *sides_[s].conn;
    const Connection& other = *sides_[1 - s].conn;
    EXPECT_EQ(me.octets_written(), kTotal);
    EXPECT_EQ(me.octets_consumed(), kTotal);
    EXPECT_EQ(me.peer_producer(), other.producer());
    EXPECT_EQ(me.producer(), cursor_after(kTotal, me.config().peer));
    // Thousands of wraps of a 16 KiB RMB.
    EXPECT_EQ(me.producer().wrap, static_cast<std::uint16_t>(kTotal / kRmbSize));
  }
  EXPECT_TRUE(moved);
  // Every octet went through the transport's registered RMBs.
  EXPECT_EQ(fabric_.host(0).octets_written(), kTotal);
  EXPECT_EQ(fabric_.host(1).octets_written(), kTotal);
}

// The server's 1000 octets reach the client; link 1 then stops delivering
// to the client, so the server's next 1000 (a Write and its CDC message)
// stay in flight until the link breaks and flushes them.
void TransferTest::fail_with_work_in_flight() {
  failover_ = true;
  for (int round = 0; round < 2; ++round) {
    if (round == 1) cq_.stall();
    Side& me = sides_[0];
    std::vector<std::uint8_t> buf(1000);
    for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = stream_octet(0, me.offered + i);
    SendResult r = me.conn->send(buf);
    me.offered += r.accepted;
    emit(0, std::move(r.out));
    settle();
    if (round == 0) {
      ASSERT_EQ(sides_[1].conn->receive(taken_).octets, 1000u);
    }
  }
  EXPECT_EQ(sides_[1].conn->receive(taken_).octets, 0u);
  MemoryFabric::break_link(sq_);
  settle();
  ASSERT_EQ(server_->link_of(0xA), 2);
}

TEST_P(TransferTest, WorkInFlightWhenTheLinkFailsIsReplayedFirst) {
  fail_with_work_in_flight();
  EXPECT_TRUE(replayed_[0]);
  // The client found SS (the first CDC message) processed and took the
  // replayed one: its stream is whole and in order.
  const ReceiveResult r = sides_[1].conn->receive(taken_);
  ASSERT_EQ(r.octets, 1000u);
  for (std::size_t i = 0; i < r.octets; ++i) ASSERT_EQ(taken_[i], stream_octet(0, 1000 + i)) << i;
  EXPECT_FALSE(sides_[1].conn->aborted());
}

class NoReplayTest : public TransferTest {
 protected:
  void SetUp() override { start(GroupFaults{}.set(GroupFault::kNoReplay)); }
};
INSTANTIATE_TEST_SUITE_P(SmcrLinkGroup, NoReplayTest, ::testing::Values(1, 2));

TEST_P(NoReplayTest, FaultReplaysNothingAndSaysSo) {
  fail_with_work_in_flight();
  EXPECT_FALSE(replayed_[0]);
  EXPECT_EQ(sides_[1].conn->receive(taken_).octets, 0u);
}

}  // namespace
}  // namespace rdmaconf::smcr
