// The in-memory RC transport (smcr/transport.hpp): work in posting order
// (a Write placed before the Send posted after it arrives), completions,
// Writes judged against the target's registration by check/smcr.hpp (an
// unregistered or deregistered rkey, octets outside the RMB: a remote access
// error that breaks both queue pairs), a failed path flushing what was not
// taken, and a destroyed queue pair delivering what it had posted first.
#include "smcr/transport.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace rdmaconf::smcr {
namespace {

struct Fabric {
  Fabric() : a(f.create_qp(0)), b(f.create_qp(1)) {
    MemoryFabric::connect(a, b);
    rmb = *f.host(1).allocate_rmb(1024);
    rtoken = *f.host(1).register_rmb(rmb, b);
  }
  std::vector<QpEvent> drain(QueuePair& q) {
    std::vector<QpEvent> out;
    while (auto e = q.poll()) out.push_back(*e);
    return out;
  }
  MemoryFabric f;
  MemoryQueuePair& a;
  MemoryQueuePair& b;
  std::uint32_t rmb = 0;
  RToken rtoken;
};

TEST(SmcrTransport, AWriteIsPlacedBeforeTheSendPostedAfterItArrives) {
  Fabric t;
  const std::vector<std::uint8_t> data = {1, 2, 3}, msg(44, 0xfe);
  const WorkId w = t.a.post_write({t.rtoken.rkey, t.rtoken.virtual_address + 100}, data);
  const WorkId s = t.a.post_send(msg);
  EXPECT_EQ(t.a.in_flight(), 2u);
  const auto at_b = t.drain(t.b);
  ASSERT_EQ(at_b.size(), 1u);
  EXPECT_EQ(at_b[0].kind, QpEvent::Kind::kReceive);
  EXPECT_EQ(at_b[0].octets, msg);
  // The data is in the RMB by the time the Send is seen.
  EXPECT_EQ(t.f.host(1).rmb(t.rmb)[100], 1);
  EXPECT_EQ(t.f.host(1).rmb(t.rmb)[102], 3);
  EXPECT_EQ(t.f.host(1).octets_written(), 3u);
  const auto at_a = t.drain(t.a);
  ASSERT_EQ(at_a.size(), 2u);
  EXPECT_EQ(at_a[0].work, w);
  EXPECT_EQ(at_a[0].op, WorkOp::kWrite);
  EXPECT_EQ(at_a[1].work, s);
  EXPECT_EQ(at_a[1].status, WorkStatus::kSuccess);
}

TEST(SmcrTransport, AnUnregisteredRkeyIsARemoteAccessError) {
  Fabric t;
  const std::vector<std::uint8_t> data = {9};
  t.a.post_write({t.rtoken.rkey + 1, t.rtoken.virtual_address}, data);
  t.a.post_send(data);  // flushed: the queue pair broke before it
  const auto at_b = t.drain(t.b);
  ASSERT_EQ(at_b.size(), 1u);
  EXPECT_EQ(at_b[0].kind, QpEvent::Kind::kError);
  ASSERT_TRUE(at_b[0].violation);
  EXPECT_EQ(at_b[0].violation->rule->id, "rfc7609-3.5.5.2-write-through-announced-rkey");
  EXPECT_TRUE(t.a.broken());
  EXPECT_TRUE(t.b.broken());
  const auto at_a = t.drain(t.a);
  ASSERT_EQ(at_a.size(), 3u);
  EXPECT_EQ(at_a[0].status, WorkStatus::kRemoteAccessError);
  EXPECT_EQ(at_a[1].status, WorkStatus::kFlushed);
  EXPECT_EQ(at_a[2].kind, QpEvent::Kind::kError);
  EXPECT_EQ(t.f.host(1).octets_written(), 0u);
}

TEST(SmcrTransport, TheRegistrationBoundsAWrite) {
  Fabric t;
  const std::vector<std::uint8_t> fits(24, 1), beyond(25, 1);
  t.a.post_write({t.rtoken.rkey, t.rtoken.virtual_address + 1000}, fits);
  EXPECT_EQ(t.drain(t.b).size(), 0u);
  EXPECT_FALSE(t.b.broken());
  t.a.post_write({t.rtoken.rkey, t.rtoken.virtual_address + 1000}, beyond);
  const auto at_b = t.drain(t.b);
  ASSERT_EQ(at_b.size(), 1u);
  EXPECT_EQ(at_b[0].violation->rule->id, "rfc7609-4.4.1-write-inside-rmbe");
  // Below the RMB's address too.
  Fabric u;
  u.a.post_write({u.rtoken.rkey, u.rtoken.virtual_address - 1}, fits);
  EXPECT_EQ(u.drain(u.b).at(0).violation->rule->id, "rfc7609-4.4.1-write-inside-rmbe");
}

TEST(SmcrTransport, AnRkeyIsOnlyGoodOnItsQueuePairAndUntilDeregistered) {
  Fabric t;
  const std::vector<std::uint8_t> data = {7};
  // The same RMB registered on a second queue pair has another rkey (§3.5.5.2).
  MemoryQueuePair& a2 = t.f.create_qp(0);
  MemoryQueuePair& b2 = t.f.create_qp(1);
  MemoryFabric::connect(a2, b2);
  const RToken second = *t.f.host(1).register_rmb(t.rmb, b2);
  EXPECT_NE(second.rkey, t.rtoken.rkey);
  EXPECT_EQ(second.virtual_address, t.rtoken.virtual_address);
  a2.post_write(t.rtoken, data);  // the first link's rkey on the second link
  EXPECT_EQ(t.drain(b2).at(0).kind, QpEvent::Kind::kError);
  t.f.host(1).deregister_rmb(t.rmb, t.b);
  t.a.post_write(t.rtoken, data);
  const auto e = t.drain(t.b);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].violation->rule->id, "rfc7609-3.5.5.2-write-through-announced-rkey");
  EXPECT_EQ(e[0].violation->seen, t.rtoken.rkey);
}

TEST(SmcrTransport, ABrokenPathFlushesWhatWasNotTaken) {
  Fabric t;
  const std::vector<std::uint8_t> msg(44, 1);
  t.a.post_send(msg);
  t.a.post_send(msg);
  MemoryFabric::break_link(t.a);
  const auto at_a = t.drain(t.a);
  ASSERT_EQ(at_a.size(), 3u);
  EXPECT_EQ(at_a[0].status, WorkStatus::kFlushed);
  EXPECT_EQ(at_a[2].kind, QpEvent::Kind::kError);
  EXPECT_EQ(at_a[2].status, WorkStatus::kRetryExceeded);
  const auto at_b = t.drain(t.b);
  ASSERT_EQ(at_b.size(), 1u);
  EXPECT_EQ(at_b[0].kind, QpEvent::Kind::kError);
  // Posting on a broken queue pair completes at once, flushed.
  t.a.post_send(msg);
  EXPECT_EQ(t.drain(t.a).at(0).status, WorkStatus::kFlushed);
}

TEST(SmcrTransport, DestroyingAQueuePairDeliversWhatItPostedFirst) {
  Fabric t;
  const std::vector<std::uint8_t> reply(44, 0x84);
  t.b.post_send(reply);
  t.f.host(1).destroy_qp(t.b);
  const auto at_a = t.drain(t.a);
  ASSERT_EQ(at_a.size(), 2u);
  EXPECT_EQ(at_a[0].octets, reply);
  EXPECT_EQ(at_a[1].kind, QpEvent::Kind::kError);
}

TEST(SmcrTransport, HostsConnectByQpNumber) {
  MemoryFabric f;
  QueuePair* a = f.host(0).create_qp({});
  QueuePair* b = f.host(1).create_qp({});
  EXPECT_NE(a->qp_number(), b->qp_number());
  EXPECT_TRUE(f.host(0).connect(*a, b->qp_number()));
  EXPECT_FALSE(f.host(0).connect(*a, 0xabcdef));           // no such queue pair
  EXPECT_FALSE(f.host(0).connect(*a, a->qp_number()));     // not one of the peer's
  const std::vector<std::uint8_t> m(44, 2);
  a->post_send(m);
  EXPECT_EQ(b->poll()->octets, m);
  // A local bound on memory, not a peer's number.
  EXPECT_FALSE(f.host(0).allocate_rmb(MemoryHost::kMaxMemory + 1));
  EXPECT_FALSE(f.host(0).allocate_rmb(0));
}

}  // namespace
}  // namespace rdmaconf::smcr
