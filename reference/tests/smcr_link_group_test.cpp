// The SMC-R link group (smcr/link_group.hpp), reference against reference
// over the in-memory transport (smcr/transport.hpp): the first link's
// CONFIRM LINK (RFC 7609 §3.5.1.5), an RMB's RTokens (§3.5.5.2.1), a second
// link with ADD LINK (§3.5.1.6; v1's continuation, v2's extension), TEST
// LINK liveness and its timer (A.3.8), orderly DELETE LINK (§3.5.5.1.3),
// failover (§4.6), DELETE RKEY (§3.5.5.2.2), and bad input: each typed,
// with the rule of check/smcr.hpp that judged it and the reaction.
#include "smcr/link_group.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace rdmaconf::smcr {
namespace {

using namespace std::chrono_literals;

Gid gid_v4(std::uint8_t d) { return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, d}; }

const LinkAddress kServerPort{0x020000000001, gid_v4(1)}, kServerPort2{0x020000000011, gid_v4(11)};
const LinkAddress kClientPort{0x020000000002, gid_v4(2)}, kClientPort2{0x020000000012, gid_v4(12)};

LinkGroupConfig config(Role role, std::uint8_t version, bool alternate) {
  LinkGroupConfig c;
  c.role = role;
  c.version = version;
  if (alternate) c.alternate = role == Role::kServer ? kServerPort2 : kClientPort2;
  return c;
}

// A server (host 0) and a client (host 1) with their first link and first
// RMB as CLC set them up; the time is the test's.
struct Pair {
  explicit Pair(std::uint8_t version = 1, bool alternates = false, bool add_second_link = true)
      : server(with_second(config(Role::kServer, version, alternates), add_second_link), fabric.host(0)),
        client(config(Role::kClient, version, alternates), fabric.host(1)),
        sq(fabric.create_qp(0)),
        cq(fabric.create_qp(1)) {
    fabric.record_sends = true;
    MemoryFabric::connect(sq, cq);
    server_rmb = *fabric.host(0).allocate_rmb(65536);
    client_rmb = *fabric.host(1).allocate_rmb(65536);
    server_rtoken = *fabric.host(0).register_rmb(server_rmb, sq);
    client_rtoken = *fabric.host(1).register_rmb(client_rmb, cq);
  }
  static LinkGroupConfig with_second(LinkGroupConfig c, bool add) {
    c.add_second_link = add;
    return c;
  }
  void start() {
    server.start({&sq, kServerPort, {kClientPort.mac, kClientPort.gid, cq.qp_number()}, server_rmb, client_rtoken},
                 now);
    client.start({&cq, kClientPort, {kServerPort.mac, kServerPort.gid, sq.qp_number()}, client_rmb, server_rtoken},
                 now);
    settle();
  }
  // Both sides poll until nothing moves; their events are collected.
  void settle(bool client_deaf = false) {
    for (int i = 0; i < 10000; ++i) {
      const bool a = server.poll(now);
      const bool b = !client_deaf && client.poll(now);
      drain();
      if (!a && !b) return;
    }
    ADD_FAILURE() << "the link group never settled";
  }
  void advance(Time dt, bool client_deaf = false) {
    const Time until = now + dt;
    // Step through every deadline on the way, as a driver's timer would; a
    // deadline that firing does not move is a lost timer.
    for (int steps = 0;; ++steps) {
      if (steps == 1000) {
        ADD_FAILURE() << "a deadline does not move when it fires";
        break;
      }
      std::optional<Time> next = server.next_deadline();
      if (!client_deaf) {
        const std::optional<Time> c = client.next_deadline();
        if (c && (!next || *c < *next)) next = c;
      }
      if (!next || *next > until) break;
      now = std::max(now, *next);
      server.on_time(now);
      if (!client_deaf) client.on_time(now);
      settle(client_deaf);
    }
    now = until;
    server.on_time(now);
    if (!client_deaf) client.on_time(now);
    settle(client_deaf);
  }
  void drain() {
    while (auto e = server.next_event()) server_events.push_back(*e);
    while (auto e = client.next_event()) client_events.push_back(*e);
  }
  // The LLC messages delivered so far, decoded, in order.
  std::vector<Llc> llc_sent(std::uint32_t from_qp) const {
    std::vector<Llc> out;
    for (const auto& d : fabric.sends) {
      if (d.from_qp != from_qp) continue;
      auto m = decode_llc(d.octets);
      if (m) out.push_back(fields_of(*m));
    }
    return out;
  }

  MemoryFabric fabric;
  LinkGroup server, client;
  MemoryQueuePair& sq;
  MemoryQueuePair& cq;
  std::uint32_t server_rmb = 0, client_rmb = 0;
  RToken server_rtoken, client_rtoken;
  Time now{0};
  std::vector<Event> server_events, client_events;
};

std::size_t count(const std::vector<Event>& es, Event::Kind k, std::function<bool(const Event&)> also = nullptr) {
  return static_cast<std::size_t>(
      std::count_if(es.begin(), es.end(), [&](const Event& e) { return e.kind == k && (!also || also(e)); }));
}

const Event* find(const std::vector<Event>& es, Event::Kind k) {
  for (const Event& e : es)
    if (e.kind == k) return &e;
  return nullptr;
}

// ------------------------------------------------------------ bring-up

class Versions : public ::testing::TestWithParam<std::uint8_t> {};
INSTANTIATE_TEST_SUITE_P(SmcrLinkGroup, Versions, ::testing::Values(1, 2));

TEST_P(Versions, FirstLinkComesUpAndTheAsymmetricSecondIsRejected) {
  Pair p(GetParam());
  p.start();
  EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
  EXPECT_EQ(p.client.state(), LinkGroup::State::kActive);
  ASSERT_TRUE(find(p.server_events, Event::Kind::kLinkUp));
  EXPECT_EQ(find(p.client_events, Event::Kind::kLinkUp)->link, 1);
  // §3.5.1.5: the server's CONFIRM LINK names its own end; the reply the client's.
  const auto from_server = p.llc_sent(p.sq.qp_number());
  ASSERT_GE(from_server.size(), 2u);
  const auto& cl = std::get<ConfirmLink>(from_server[0]);
  EXPECT_FALSE(cl.reply);
  EXPECT_EQ(cl.qp_number, p.sq.qp_number());
  EXPECT_EQ(cl.gid, kServerPort.gid);
  EXPECT_EQ(cl.link_number, 1);
  const auto from_client = p.llc_sent(p.cq.qp_number());
  const auto& reply = std::get<ConfirmLink>(from_client.at(0));
  EXPECT_TRUE(reply.reply);
  EXPECT_EQ(reply.qp_number, p.cq.qp_number());
  EXPECT_EQ(reply.mac, kClientPort.mac);
  // §3.5.1.6: the server then offers a second link on the same port; the
  // client has no second RNIC, so it rejects (as in smc-r-v2.pcap).
  EXPECT_TRUE(std::holds_alternative<AddLink>(from_server[1]));
  const auto& rej = std::get<AddLink>(from_client.at(1));
  EXPECT_TRUE(rej.reply && rej.reject);
  const Event* r = find(p.server_events, Event::Kind::kLinkAddRejected);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason, GetParam() == 1 ? 1u : 0u);  // v2 carries no reason code
  EXPECT_EQ(p.server.active_links(), 1u);
  EXPECT_FALSE(p.server.flow_running());
}

TEST_P(Versions, SecondLinkWithAddLinkCarriesEveryRToken) {
  Pair p(GetParam(), true, false);
  p.start();
  // A second RMB each, so that two pairs travel (v1: one continuation each).
  const std::uint32_t srmb2 = *p.fabric.host(0).allocate_rmb(16384);
  const std::uint32_t crmb2 = *p.fabric.host(1).allocate_rmb(16384);
  ASSERT_TRUE(p.server.add_rmb(srmb2, p.now));
  ASSERT_TRUE(p.client.add_rmb(crmb2, p.now));
  p.settle();
  ASSERT_TRUE(p.server.add_link(p.now));
  p.settle();
  EXPECT_EQ(p.server.active_links(), 2u);
  EXPECT_EQ(p.client.active_links(), 2u);
  EXPECT_EQ(count(p.client_events, Event::Kind::kLinkUp), 2u);
  // Each side knows the other's RMBs on link 2: the RTokens its own host
  // registered there.
  for (std::uint32_t rmb : {p.server_rmb, srmb2}) {
    const auto on1 = p.server.local_rtoken(rmb, 1), on2 = p.server.local_rtoken(rmb, 2);
    ASSERT_TRUE(on1 && on2);
    EXPECT_NE(on1->rkey, on2->rkey);  // §3.5.5.2: an RToken per RMB per link
    EXPECT_EQ(p.client.peer_rtoken(*on1, 2), on2);
  }
  for (std::uint32_t rmb : {p.client_rmb, crmb2}) {
    const auto on1 = p.client.local_rtoken(rmb, 1), on2 = p.client.local_rtoken(rmb, 2);
    ASSERT_TRUE(on1 && on2);
    EXPECT_EQ(p.server.peer_rtoken(*on1, 2), on2);
  }
  // The messages: v1 continuations, v2 none; CONFIRM LINK on link 2's QPs.
  std::size_t continuations = 0;
  for (const Llc& m : p.llc_sent(p.sq.qp_number())) continuations += std::holds_alternative<AddLinkContinuation>(m);
  EXPECT_EQ(continuations, GetParam() == 1 ? 1u : 0u);
  const auto& s2 = p.server.links()[*p.server.slot_of(2)];
  EXPECT_EQ(s2.local, kServerPort2);
  EXPECT_EQ(s2.peer.gid, kClientPort2.gid);
  EXPECT_EQ(p.llc_sent(s2.qp->qp_number()).size(), 1u);  // its CONFIRM LINK
}

// A host over a real device connects a queue pair with the path the peer
// announced: ADD LINK's (or its reply's) MAC, GID, initial PSN and MTU, and
// the PSN this side announced for its own queue pair (A.3.2). A host that
// records what it is given, in front of the in-memory one.
struct PathRecordingHost final : Host {
  explicit PathRecordingHost(MemoryHost& inner) : inner(inner) {}
  QueuePair* create_qp(const Gid& local) override {
    created_on.push_back(local);
    return inner.create_qp(local);
  }
  bool connect(QueuePair& qp, std::uint32_t peer_qp_number) override { return inner.connect(qp, peer_qp_number); }
  bool connect_path(QueuePair& qp, std::uint32_t peer_qp_number, const PeerPath& path) override {
    paths.push_back(path);
    return inner.connect(qp, peer_qp_number);
  }
  void destroy_qp(QueuePair& qp) override { inner.destroy_qp(qp); }
  std::optional<std::uint32_t> allocate_rmb(std::uint64_t size) override { return inner.allocate_rmb(size); }
  wire::MutableBytes rmb(std::uint32_t id) override { return inner.rmb(id); }
  std::optional<RToken> register_rmb(std::uint32_t id, QueuePair& qp) override { return inner.register_rmb(id, qp); }
  void deregister_rmb(std::uint32_t id, QueuePair& qp) override { inner.deregister_rmb(id, qp); }
  MemoryHost& inner;
  std::vector<PeerPath> paths;
  std::vector<Gid> created_on;  // the GID each create_qp named
};

// A server (host 0) and a client (host 1) behind PathRecordingHosts, their
// first link and RMBs set up as CLC does, started and polled until quiet.
struct RecordedPair {
  RecordedPair(const LinkGroupConfig& sc, const LinkGroupConfig& cc)
      : server_host(fabric.host(0)), client_host(fabric.host(1)), server(sc, server_host), client(cc, client_host),
        sq(fabric.create_qp(0)), cq(fabric.create_qp(1)) {
    fabric.record_sends = true;
    MemoryFabric::connect(sq, cq);
    const std::uint32_t srmb = *fabric.host(0).allocate_rmb(65536), crmb = *fabric.host(1).allocate_rmb(65536);
    const RToken st = *fabric.host(0).register_rmb(srmb, sq), ct = *fabric.host(1).register_rmb(crmb, cq);
    const Time now{0};
    server.start({&sq, kServerPort, {kClientPort.mac, kClientPort.gid, cq.qp_number()}, srmb, ct}, now);
    client.start({&cq, kClientPort, {kServerPort.mac, kServerPort.gid, sq.qp_number()}, crmb, st}, now);
    for (int i = 0; i < 1000; ++i) {
      const bool a = server.poll(now);
      const bool b = client.poll(now);
      if (!a && !b) break;
    }
  }
  MemoryFabric fabric;
  PathRecordingHost server_host, client_host;
  LinkGroup server, client;
  MemoryQueuePair& sq;
  MemoryQueuePair& cq;
};

// An added link's queue pair is made on the port whose GID the link's ADD
// LINK (or its reply) names: each side's second port; a client without one
// takes the server's second port on its first (asymmetric, §2.2.1), and a
// host with two ports must put that queue pair on the first.
TEST_P(Versions, AnAddedLinksQueuePairIsOnThePortItsAddLinkNames) {
  for (const bool client_alternate : {true, false}) {
    RecordedPair p(config(Role::kServer, GetParam(), true), config(Role::kClient, GetParam(), client_alternate));
    ASSERT_EQ(p.client.active_links(), 2u) << client_alternate;
    EXPECT_EQ(p.server_host.created_on, std::vector<Gid>{kServerPort2.gid});
    EXPECT_EQ(p.client_host.created_on, std::vector<Gid>{client_alternate ? kClientPort2.gid : kClientPort.gid});
  }
}

TEST_P(Versions, AnAddedLinkIsConnectedWithThePathItsPeerAnnounced) {
  LinkGroupConfig sc = config(Role::kServer, GetParam(), true), cc = config(Role::kClient, GetParam(), true);
  sc.mtu = 5;  // the client's 3 is the smaller: the link's
  RecordedPair p(sc, cc);
  ASSERT_EQ(p.server.active_links(), 2u);
  ASSERT_EQ(p.client_host.paths.size(), 1u);
  ASSERT_EQ(p.server_host.paths.size(), 1u);
  const PeerPath& c = p.client_host.paths[0];
  const PeerPath& s = p.server_host.paths[0];
  const auto sent_by = [&](std::uint32_t qp) {
    for (const auto& d : p.fabric.sends) {
      auto m = decode_llc(d.octets);
      if (!m || d.from_qp != qp) continue;
      const Llc f = fields_of(*m);
      if (const auto* a = std::get_if<AddLink>(&f)) return *a;
    }
    return AddLink{};
  };
  const AddLink request = sent_by(p.sq.qp_number()), reply = sent_by(p.cq.qp_number());
  // The client reaches the server's second port with the PSN it announced,
  // and sends from the PSN its reply announced; the server the other way round.
  EXPECT_EQ(c.mac, kServerPort2.mac);
  EXPECT_EQ(c.gid, kServerPort2.gid);
  EXPECT_EQ(c.psn, request.initial_psn);
  EXPECT_EQ(c.local_psn, reply.initial_psn);
  EXPECT_EQ(c.mtu, 3);
  EXPECT_EQ(s.mac, kClientPort2.mac);
  EXPECT_EQ(s.gid, kClientPort2.gid);
  EXPECT_EQ(s.psn, reply.initial_psn);
  EXPECT_EQ(s.local_psn, request.initial_psn);
  EXPECT_EQ(s.mtu, 3);
  EXPECT_NE(request.initial_psn, reply.initial_psn);
}

// -------------------------------------------------------------- RKEYs

TEST_P(Versions, ASecondRmbIsConfirmedThenWrittenThenDeleted) {
  Pair p(GetParam());
  p.start();
  const std::uint32_t rmb2 = *p.fabric.host(0).allocate_rmb(8192);
  ASSERT_TRUE(p.server.add_rmb(rmb2, p.now));
  p.settle();
  ASSERT_TRUE(find(p.server_events, Event::Kind::kRmbConfirmed));
  const Event* added = find(p.client_events, Event::Kind::kPeerRmbAdded);
  ASSERT_TRUE(added);
  EXPECT_EQ(added->rtoken, p.server.local_rtoken(rmb2, 1));
  // A connection of the client writes into it through the announced RToken.
  ASSERT_TRUE(p.client.add_connection({0x77, added->rtoken, 4096}));
  const std::vector<std::uint8_t> data = {1, 2, 3, 4};
  ASSERT_TRUE(p.client.write(0x77, 10, data));
  p.settle();
  const auto memory = p.fabric.host(0).rmb(rmb2);
  EXPECT_TRUE(std::equal(data.begin(), data.end(), memory.begin() + 4096 + 10));
  // §3.5.5.2.2: DELETE RKEY; the peer forgets the RMB.
  ASSERT_TRUE(p.server.delete_rmb(rmb2, p.now));
  p.settle();
  const Event* del = find(p.server_events, Event::Kind::kRmbDeleted);
  ASSERT_TRUE(del);
  EXPECT_EQ(del->reason, 0u);
  ASSERT_TRUE(find(p.client_events, Event::Kind::kPeerRmbDeleted));
  EXPECT_FALSE(p.client.write(0x77, 0, data));
  // The old RToken is dead at the target too: a Write through it breaks the link.
  p.cq.post_write(added->rtoken, data);
  p.settle();
  const Event* gone = find(p.server_events, Event::Kind::kTerminated);
  ASSERT_TRUE(gone);
}

TEST(SmcrLinkGroup, DeleteRkeyOfAnUnknownKeyIsNegative) {
  Pair p(1);
  p.start();
  DeleteRkey d;
  d.rkeys = {p.server_rtoken.rkey, 0xdead};
  p.sq.post_send(encode(d));
  p.settle();
  // A.3.7: the second RKey is not the client's to delete: bit 6 of the mask.
  const auto replies = p.llc_sent(p.cq.qp_number());
  const auto& r = std::get<DeleteRkey>(replies.back());
  EXPECT_TRUE(r.reply && r.negative);
  EXPECT_EQ(r.error_mask, 0x40);
}

// ----------------------------------------------------------- TEST LINK

TEST(SmcrLinkGroup, TestLinkAfterQuietTimeIsAnswered) {
  Pair p(2);
  p.start();
  p.advance(kTestLinkTime);
  EXPECT_GE(count(p.server_events, Event::Kind::kTestLinkAnswered), 1u);
  EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
  // The request's User Data comes back (A.3.8).
  const auto from_server = p.llc_sent(p.sq.qp_number());
  const auto& probe = std::get<TestLink>(from_server.back());
  bool echoed = false;
  for (const Llc& m : p.llc_sent(p.cq.qp_number()))
    if (const auto* t = std::get_if<TestLink>(&m)) echoed |= t->reply && t->user_data == probe.user_data;
  EXPECT_TRUE(echoed);
}

TEST(SmcrLinkGroup, TestLinkWithoutReplyTakesTheLinkDown) {
  Pair p(1);
  p.start();
  // The client stops answering: after 30 s of quiet the server tests the
  // link, 2 s later it is down, and with no other link the group ends.
  p.advance(kTestLinkTime + kLlcWaitTime, true);
  const Event* t = find(p.server_events, Event::Kind::kTerminated);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->reason, delete_reason::kLostPath);
  EXPECT_EQ(p.server.state(), LinkGroup::State::kTerminated);
}

// --------------------------------------------------- DELETE LINK, failover

TEST_P(Versions, OrderlyDeleteLinkMovesConnections) {
  Pair p(GetParam(), true);
  p.start();
  ASSERT_EQ(p.server.active_links(), 2u);
  const RToken on2 = *p.client.peer_rtoken(p.server_rtoken, 2);
  ASSERT_TRUE(p.client.add_connection({0x11, on2, 0}));
  EXPECT_EQ(p.client.link_of(0x11), 2);
  ASSERT_TRUE(p.server.delete_link(2, true, p.now));
  p.settle();
  EXPECT_EQ(p.server.active_links(), 1u);
  EXPECT_EQ(p.client.active_links(), 1u);
  EXPECT_EQ(count(p.client_events, Event::Kind::kLinkDeleted, [](const Event& e) { return e.link == 2; }), 1u);
  EXPECT_EQ(count(p.client_events, Event::Kind::kConnectionMoved, [](const Event& e) { return e.token == 0x11; }), 1u);
  EXPECT_EQ(p.client.link_of(0x11), 1);
  // Nothing either side sent went unanswered or unasked.
  EXPECT_EQ(count(p.server_events, Event::Kind::kDropped), 0u);
  EXPECT_EQ(count(p.client_events, Event::Kind::kDropped), 0u);
  // The DELETE LINK exchange (A.3.4): the server's request, the client's reply.
  const auto from_client = p.llc_sent(p.cq.qp_number());
  const auto& reply = std::get<DeleteLink>(from_client.back());
  EXPECT_TRUE(reply.reply && reply.orderly);
  EXPECT_EQ(reply.link_number, 2);
}

TEST_P(Versions, FailoverMovesConnectionsAndDeletesTheLink) {
  Pair p(GetParam(), true);
  p.start();
  ASSERT_EQ(p.server.active_links(), 2u);
  ASSERT_TRUE(p.client.add_connection({0x21, p.server_rtoken, 0}));
  ASSERT_TRUE(p.server.add_connection({0x12, p.client_rtoken, 0}));
  ASSERT_EQ(p.client.link_of(0x21), 1);
  // Link 1's path fails: both queue pairs enter the error state.
  MemoryFabric::break_link(p.sq);
  p.settle();
  EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
  EXPECT_EQ(p.server.active_links(), 1u);
  EXPECT_EQ(p.client.active_links(), 1u);
  EXPECT_FALSE(p.server.slot_of(1));
  EXPECT_FALSE(p.client.slot_of(1));
  EXPECT_EQ(p.client.link_of(0x21), 2);
  EXPECT_EQ(p.server.link_of(0x12), 2);
  EXPECT_EQ(count(p.client_events, Event::Kind::kConnectionMoved), 1u);
  // Data flows on link 2 with link 2's RToken.
  const std::vector<std::uint8_t> data(100, 0x5a);
  ASSERT_TRUE(p.client.write(0x21, 0, data));
  p.settle();
  EXPECT_EQ(p.fabric.host(0).rmb(p.server_rmb)[99], 0x5a);
  EXPECT_FALSE(p.server.flow_running());
}

// ------------------------------------------------------------ bad input

TEST(SmcrLinkGroup, UnknownTypeIsAProtocolErrorAndOptionalOnesAreDiscarded) {
  Pair p(1);
  p.start();
  std::vector<std::uint8_t> m(44, 0);
  m[0] = 0x8a;  // A.3: high bits 10: discarded silently
  m[1] = 44;
  p.cq.post_send(m);
  p.settle();
  const Event* d = find(p.server_events, Event::Kind::kDropped);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->drop, Event::Drop::kOptionalType);
  EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
  m[0] = 0x0a;  // high bits 00: the receiver must support it, so it is a protocol error
  p.cq.post_send(m);
  p.settle();
  EXPECT_EQ(count(p.server_events, Event::Kind::kDropped, [](const Event& e) { return e.drop == Event::Drop::kUnknownType; }), 1u);
  const Event* t = find(p.server_events, Event::Kind::kTerminated);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->reason, delete_reason::kProtocolViolation);
  // It tells the peer: DELETE LINK with A and the reason (Linux smc_lgr_cleanup).
  const DeleteLink del = std::get<DeleteLink>(p.llc_sent(p.sq.qp_number()).back());
  EXPECT_TRUE(del.all);
  EXPECT_EQ(del.reason_code, delete_reason::kProtocolViolation);
  EXPECT_EQ(p.client.state(), LinkGroup::State::kTerminated);
}

TEST(SmcrLinkGroup, BadLengthIsDroppedWithItsField) {
  Pair p(1);
  p.start();
  auto m = encode(TestLink{}, {1, 40});
  p.cq.post_send(m);
  p.settle();
  const Event* d = find(p.server_events, Event::Kind::kDropped);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->drop, Event::Drop::kUndecodable);
  ASSERT_TRUE(d->error);
  EXPECT_EQ(d->error->field, "Length");
  EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
}

TEST(SmcrLinkGroup, DeleteLinkNamingAnUnknownLinkIsAnsweredSo) {
  Pair p(1);
  p.start();
  p.sq.post_send(encode(DeleteLink{false, false, true, 7, delete_reason::kOperatorInitiated}));
  p.settle();
  const Event* d = find(p.client_events, Event::Kind::kDropped);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->drop, Event::Drop::kUnknownLink);
  const DeleteLink r = std::get<DeleteLink>(p.llc_sent(p.cq.qp_number()).back());
  EXPECT_TRUE(r.reply);
  EXPECT_EQ(r.reason_code, delete_reason::kUnknownLink);
  EXPECT_EQ(p.client.active_links(), 1u);
}

// §3.5.4: the client asks, the server ends the group with its own DELETE
// LINK, and only that ends the client's end: its queue pair is still there
// to take the server's message.
TEST(SmcrLinkGroup, AClientAsksTheServerToEndTheGroupAndWaitsForIt) {
  Pair p(2);
  p.start();
  ASSERT_EQ(p.client.state(), LinkGroup::State::kActive);
  EXPECT_TRUE(p.client.request_termination(delete_reason::kProgramInitiated, p.now));
  EXPECT_EQ(p.client.state(), LinkGroup::State::kActive);
  EXPECT_GE(p.client.active_links(), 1u);
  p.settle();
  bool asked = false;
  for (const Llc& m : p.llc_sent(p.cq.qp_number()))
    if (const auto* d = std::get_if<DeleteLink>(&m)) asked |= d->all && !d->reply;
  EXPECT_TRUE(asked);
  EXPECT_EQ(p.server.state(), LinkGroup::State::kTerminated);
  EXPECT_EQ(p.client.state(), LinkGroup::State::kTerminated);
  // The server's DELETE LINK reached the client (its end was still there).
  bool server_deleted = false;
  for (const Llc& m : p.llc_sent(p.sq.qp_number()))
    if (const auto* d = std::get_if<DeleteLink>(&m)) server_deleted |= d->all;
  EXPECT_TRUE(server_deleted);
  EXPECT_EQ(count(p.client_events, Event::Kind::kTerminated), 1u);
  // A server ends the group at once.
  Pair q(2);
  q.start();
  EXPECT_FALSE(q.server.request_termination(delete_reason::kProgramInitiated, q.now));
  EXPECT_EQ(q.server.state(), LinkGroup::State::kTerminated);
}

TEST(SmcrLinkGroup, ConfirmLinkNamingAnotherQpEndsTheGroup) {
  Pair p(2);
  // The server's CONFIRM LINK names a QP that is not the one of its CLC Accept.
  p.client.start({&p.cq, kClientPort, {kServerPort.mac, kServerPort.gid, p.sq.qp_number()}, p.client_rmb,
                  p.server_rtoken},
                 p.now);
  ConfirmLink c{false, kNoRmbeEyecatcher, kServerPort.mac, kServerPort.gid, p.sq.qp_number() + 5, 1, 0x101, 2};
  p.sq.post_send(encode(c, {2, std::nullopt}));
  p.settle();
  const Event* d = find(p.client_events, Event::Kind::kDropped);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->drop, Event::Drop::kWrongLinkEnd);
  ASSERT_TRUE(d->violation);
  EXPECT_EQ(d->violation->rule->id, "rfc7609-3.5.1.5-confirm-link-roce-info");
  EXPECT_EQ(d->violation->field, "Sender's QP number");
  EXPECT_EQ(p.client.state(), LinkGroup::State::kTerminated);
}

TEST(SmcrLinkGroup, RepliesMustAnswerOpenRequests) {
  Pair p(1);
  p.start();
  // A TEST LINK reply nobody asked for (§3.3).
  p.cq.post_send(encode(TestLink{true, {}}));
  p.settle();
  const Event* d = find(p.server_events, Event::Kind::kDropped);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->drop, Event::Drop::kReplyWithoutRequest);
  ASSERT_TRUE(d->violation);
  EXPECT_EQ(d->violation->rule->id, "rfc7609-3.3-reply-answers-request");
  // One that answers a probe but does not echo it (A.3.8).
  p.server_events.clear();
  p.advance(kTestLinkTime, true);
  p.cq.post_send(encode(TestLink{true, {0xee}}));
  p.settle(true);
  const Event* e = find(p.server_events, Event::Kind::kDropped);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->drop, Event::Drop::kNoEcho);
  EXPECT_EQ(e->violation->rule->id, "rfc7609-a.3.8-test-link-echo");
  EXPECT_FALSE(find(p.server_events, Event::Kind::kTestLinkAnswered));
}

TEST(SmcrLinkGroup, CdcForNoConnectionIsDropped) {
  Pair p(1);
  p.start();
  CdcFields c;
  c.sequence_number = 1;
  c.alert_token = 0xabcdef;
  p.cq.post_send(encode(c));
  p.settle();
  const Event* d = find(p.server_events, Event::Kind::kDropped);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->drop, Event::Drop::kUnknownToken);
  EXPECT_EQ(d->token, 0xabcdefu);
  // For a connection it is handed over.
  ASSERT_TRUE(p.server.add_connection({0xabcdef, p.client_rtoken, 0}));
  p.cq.post_send(encode(c));
  p.settle();
  const Event* cdc = find(p.server_events, Event::Kind::kCdc);
  ASSERT_TRUE(cdc);
  EXPECT_EQ(cdc->octets, encode(c));
}

TEST(SmcrLinkGroup, AWriteOutsideTheRegistrationBreaksTheLink) {
  Pair p(1);
  p.start();
  // §4.4.1: 16 octets that end 8 past the RMB (transport: write_inside_rmbe).
  const std::vector<std::uint8_t> data(16, 1);
  p.cq.post_write({p.server_rtoken.rkey, p.server_rtoken.virtual_address + 65536 - 8}, data);
  std::optional<QpEvent> error;
  while (auto e = p.cq.poll())
    if (e->kind == QpEvent::Kind::kError) error = e;
  ASSERT_TRUE(error);
  EXPECT_EQ(error->status, WorkStatus::kRemoteAccessError);
  ASSERT_TRUE(error->violation);
  EXPECT_EQ(error->violation->rule->id, "rfc7609-4.4.1-write-inside-rmbe");
  p.client.link_down(0, p.now);  // what the client's poll would have done with that error
  p.settle();
  EXPECT_EQ(p.server.state(), LinkGroup::State::kTerminated);
  EXPECT_EQ(p.client.state(), LinkGroup::State::kTerminated);
  EXPECT_EQ(p.fabric.host(0).octets_written(), 0u);
}

TEST(SmcrLinkGroup, FirstLinkWithoutConfirmLinkTimesOut) {
  Pair p(1);
  p.client.start({&p.cq, kClientPort, {kServerPort.mac, kServerPort.gid, p.sq.qp_number()}, p.client_rmb,
                  p.server_rtoken},
                 p.now);
  // Linux waits SMC_LLC_WAIT_TIME on both sides of the first link.
  p.now += kLlcWaitTime - 1ms;
  p.client.on_time(p.now);
  EXPECT_EQ(p.client.state(), LinkGroup::State::kConfirmingFirstLink);
  p.now += 1ms;
  p.client.on_time(p.now);
  EXPECT_EQ(p.client.state(), LinkGroup::State::kTerminated);
}

}  // namespace
}  // namespace rdmaconf::smcr
