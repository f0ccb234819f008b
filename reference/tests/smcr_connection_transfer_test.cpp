// Two SMC-R connections (reference/smcr/connection.hpp) move a long stream
// in both directions through small RMBEs, thousands of wraps (RFC 7609
// §4.7, App. A.4), with send and receive sizes from a seeded generator and
// the messages of both directions interleaved at random. Every octet on the
// wire and every octet read is compared with the stream; every Write's
// offset and every CDC message's cursors and sequence number are compared
// with cursors computed here from octet counts alone.
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "smcr/connection.hpp"
#include "smcr_connection_test_util.hpp"

namespace rdmaconf::smcr {
namespace {

using testing::cursor_after;
using testing::stream_octet;

struct Side {
  std::vector<std::uint8_t> rmbe;
  Connection conn;
  std::uint64_t offered = 0;   // octets send() accepted
  std::uint64_t read = 0;      // octets receive() returned, all checked
  std::uint64_t on_wire = 0;   // octets in this side's Writes, all checked
  std::uint16_t sequence = 0;  // of this side's last CDC message
  std::uint64_t cdcs = 0;
  explicit Side(const ConnectionConfig& c) : rmbe(c.own.size), conn(c, rmbe) {}
};

class Transfer {
 public:
  Transfer(const ConnectionConfig& a, std::uint64_t total, std::size_t max_chunk, std::uint32_t seed)
      : total_(total), max_chunk_(max_chunk), rng_(seed) {
    sides_.emplace_back(a);
    sides_.emplace_back(testing::mirrored(a));
  }

  void run() {
    std::uniform_int_distribution<std::size_t> size(1, max_chunk_);
    std::uniform_int_distribution<int> deliver(0, 3);
    std::vector<std::uint8_t> buf(max_chunk_);
    std::uint64_t idle = 0;
    while (sides_[0].read < total_ || sides_[1].read < total_) {
      const std::uint64_t before = progress();
      for (int s = 0; s < 2; ++s) {
        Side& me = sides_[s];
        if (me.offered < total_) {
          const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(size(rng_), total_ - me.offered));
          for (std::size_t i = 0; i < n; ++i) buf[i] = stream_octet(s, me.offered + i);
          SendResult r = me.conn.send(wire::Bytes(buf).first(n));
          ASSERT_EQ(r.status, SendStatus::kOk);
          me.offered += r.accepted;
          emit(s, std::move(r.out));
        }
        ReceiveResult r = me.conn.receive(std::span(buf).first(size(rng_)));
        for (std::size_t i = 0; i < r.octets; ++i)
          ASSERT_EQ(buf[i], stream_octet(1 - s, me.read + i)) << "octet " << me.read + i << " to side " << s;
        me.read += r.octets;
        ASSERT_EQ(me.conn.consumer(), cursor_after(me.read, me.conn.config().own));
        emit(s, std::move(r.out));
        if (::testing::Test::HasFatalFailure()) return;
      }
      // Deliver some of what is queued, in order per direction.
      for (int d = 0; d < 2; ++d)
        for (int k = deliver(rng_); k > 0 && !queue_[d].empty(); --k) step(d);
      if (::testing::Test::HasFatalFailure()) return;
      // Nothing sent, read, announced or delivered, nothing in flight: stuck.
      if (progress() != before) {
        idle = 0;
      } else if (queue_[0].empty() && queue_[1].empty()) {
        ASSERT_LT(++idle, 100u) << "no progress" << dump();
      }
      if (queue_[0].empty() && queue_[1].empty()) quiet_checks();
    }
    while (!queue_[0].empty() || !queue_[1].empty())
      for (int d = 0; d < 2; ++d)
        if (!queue_[d].empty()) step(d);
    quiet_checks();
    for (Side& s : sides_) {
      EXPECT_EQ(s.conn.octets_written(), total_);
      EXPECT_EQ(s.conn.octets_consumed(), total_);
      EXPECT_EQ(s.conn.queued(), 0u);
    }
  }

  const Side& side(int s) const { return sides_[s]; }
  std::string dump() const {
    std::string out;
    for (const Side& s : sides_) {
      const Connection& c = s.conn;
      out += "\n prod " + std::to_string(c.producer().wrap) + ":" + std::to_string(c.producer().count) + " cons " +
             std::to_string(c.consumer().wrap) + ":" + std::to_string(c.consumer().count) + " peer_prod " +
             std::to_string(c.peer_producer().wrap) + ":" + std::to_string(c.peer_producer().count) + " peer_cons " +
             std::to_string(c.peer_consumer().wrap) + ":" + std::to_string(c.peer_consumer().count) + " readable " +
             std::to_string(c.readable()) + " unread " + std::to_string(c.unread()) + " queued " +
             std::to_string(c.queued()) + " window " + std::to_string(c.window()) + " blocked " +
             std::to_string(c.write_blocked()) + " offered " + std::to_string(s.offered) + " read " +
             std::to_string(s.read);
    }
    return out;
  }

 private:
  std::uint64_t progress() const {
    return sides_[0].read + sides_[1].read + sides_[0].offered + sides_[1].offered + sides_[0].cdcs + sides_[1].cdcs +
           delivered_;
  }

  // Checks what side `s` sends against counts kept here, then queues it
  // towards the other side.
  void emit(int s, Output o) {
    Side& me = sides_[s];
    const RmbeGeometry& peer = me.conn.config().peer;
    for (const RdmaWrite& w : o.writes) {
      const Cursor at = cursor_after(me.on_wire, peer);
      ASSERT_EQ(w.rmbe_offset, at.count);
      ASSERT_FALSE(w.octets.empty());
      ASSERT_LE(w.rmbe_offset + w.octets.size(), peer.size) << "a Write crosses the RMBE's end";
      for (std::size_t i = 0; i < w.octets.size(); ++i) ASSERT_EQ(w.octets[i], stream_octet(s, me.on_wire + i));
      me.on_wire += w.octets.size();
    }
    // §4.3: never more in the peer's RMBE than it consumed plus its data area.
    ASSERT_LE(me.on_wire, sides_[1 - s].read + peer.capacity());
    if (o.cdc) {
      ASSERT_EQ(o.cdc->sequence_number(), static_cast<std::uint16_t>(me.sequence + 1));
      me.sequence = o.cdc->sequence_number();
      ++me.cdcs;
      ASSERT_EQ(o.cdc->producer(), cursor_after(me.on_wire, peer));
      ASSERT_EQ(o.cdc->consumer(), cursor_after(me.read, me.conn.config().own));
      ASSERT_EQ(o.cdc->alert_token(), me.conn.config().peer_alert_token);
      ASSERT_FALSE(o.cdc->flag(CdcSpec::Field::P) || o.cdc->flag(CdcSpec::Field::U) ||
                   o.cdc->flag(CdcSpec::Field::D) || o.cdc->flag(CdcSpec::Field::C) || o.cdc->flag(CdcSpec::Field::A));
    }
    if (!o.empty()) queue_[s].push_back(std::move(o));
  }

  // Delivers the oldest message from side `d` to the other side.
  void step(int d) {
    Output o = std::move(queue_[d].front());
    queue_[d].pop_front();
    ++delivered_;
    Side& to = sides_[1 - d];
    for (const RdmaWrite& w : o.writes) {
      WriteOutcome wo = to.conn.on_rdma_write(w.rmbe_offset, w.octets.size());
      ASSERT_TRUE(wo.place);
      ASSERT_TRUE(wo.findings.empty()) << name(wo.findings[0].error);
      std::memcpy(to.rmbe.data() + w.rmbe_offset, w.octets.data(), w.octets.size());
    }
    if (o.cdc) {
      CdcOutcome r = to.conn.on_cdc(testing::through_wire(*o.cdc));
      ASSERT_EQ(r.verdict, CdcVerdict::kAccepted);
      ASSERT_TRUE(r.findings.empty()) << name(r.findings[0].error);
      ASSERT_LE(to.conn.unread(), to.conn.config().own.capacity());
      emit(1 - d, std::move(r.out));
    }
  }

  // With nothing in flight each side knows the other's cursors exactly.
  void quiet_checks() {
    for (int s = 0; s < 2; ++s) {
      const Connection& me = sides_[s].conn;
      const Connection& other = sides_[1 - s].conn;
      ASSERT_EQ(me.peer_producer(), other.producer());
      ASSERT_EQ(me.producer(), cursor_after(me.octets_written(), me.config().peer));
      ASSERT_EQ(me.octets_received(), other.octets_written());
      ASSERT_LE(me.window(), me.config().peer.capacity());
      // The peer's consumer cursor as last sent: never ahead of what it read.
      ASSERT_LE(forward_distance(me.peer_consumer(), other.consumer(), me.config().peer),
                me.config().peer.capacity());
    }
  }

  std::uint64_t total_;
  std::size_t max_chunk_;
  std::mt19937 rng_;
  std::deque<Side> sides_;  // a deque: a Connection does not move
  std::deque<Output> queue_[2];
  std::uint64_t delivered_ = 0;
};

TEST(SmcrConnectionTransfer, SixtyFourMebibytesEachWayThroughSixteenKibibytes) {
  // 16 KiB RMBEs (CLC's smallest, with the eyecatcher: 16380 data octets),
  // 64 MiB each way: about 4100 wraps in each RMBE.
  Transfer t(testing::config_of(16384, 16384), 64ull << 20, 20000, 7);
  t.run();
  EXPECT_GT(t.side(0).cdcs, 4096u);
  EXPECT_GT(t.side(1).cdcs, 4096u);
}

TEST(SmcrConnectionTransfer, WrapCountsWrapAtSixteenBits) {
  // A tiny RMBE without eyecatcher (Linux's layout): 64 octets, 5 MiB each
  // way, about 82000 wraps: the 16-bit wrap counts wrap (A.4).
  Transfer t(testing::config_of(64, 64, false), 5ull << 20, 200, 11);
  t.run();
  // 81920 wraps: the count went round once and stands at 16384.
  EXPECT_EQ(t.side(0).conn.producer(), (Cursor{16384, 0}));
  EXPECT_EQ(t.side(1).conn.consumer(), (Cursor{16384, 0}));
}

}  // namespace
}  // namespace rdmaconf::smcr
