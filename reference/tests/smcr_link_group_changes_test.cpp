// The SMC-R link group's configuration changes (smcr/link_group.hpp), and
// the faults that break each rule: a new RMB announced on every link
// (RFC 7609 §3.5.5.2.1), CONFIRM RKEY run anew after a negative reply with
// C and only then (App. A.3.5), one exchange at a time (§3.5.5.3), a link
// kept until the client answered its DELETE LINK (§3.5.5.1.3), a client's
// ADD LINK that needs no answer (§3.5.5.1.2), and a group that goes on with
// a single or an asymmetric link (§2.2.1), an ADD LINK with an undefined
// MTU rejected with reason 2 (A.3.2), a DELETE LINK of an unknown link
// answered (A.3.4), and RMBEs that keep the
// eyecatcher unless both sides' CONFIRM LINK said otherwise (§4.4.1, A.4).
#include <gtest/gtest.h>

#include <algorithm>

#include "smcr/link_group.hpp"

namespace rdmaconf::smcr {
namespace {

Gid gid_v4(std::uint8_t d) { return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, d}; }
const LinkAddress kServerPort{0x020000000001, gid_v4(1)}, kServerPort2{0x020000000011, gid_v4(11)};
const LinkAddress kClientPort{0x020000000002, gid_v4(2)}, kClientPort2{0x020000000012, gid_v4(12)};

LinkGroupConfig config(Role role, GroupFaults faults = {}, bool alternate = true, bool eyecatcher = false,
                       std::uint8_t mtu = 3, Time idle = Time{0}) {
  LinkGroupConfig c;
  c.idle_time = idle;
  c.mtu = mtu;
  c.rmbe_eyecatcher = eyecatcher;
  c.role = role;
  if (alternate) c.alternate = role == Role::kServer ? kServerPort2 : kClientPort2;
  c.test_link_time = Time{0};
  c.faults = faults;
  return c;
}

// A version 1 server (host 0) and client (host 1) over the in-memory
// fabric; the client can be made deaf, so that the test answers for it.
struct Pair {
  explicit Pair(GroupFaults server_faults = {}, bool client_alternate = true, bool server_alternate = true,
                GroupFaults client_faults = {}, bool client_eyecatcher = false, std::uint8_t server_mtu = 3,
                Time server_idle = Time{0}, Time client_idle = Time{0})
      : server(config(Role::kServer, server_faults, server_alternate, false, server_mtu, server_idle), fabric.host(0)),
        client(config(Role::kClient, client_faults, client_alternate, client_eyecatcher, 3, client_idle), fabric.host(1)),
        sq(fabric.create_qp(0)),
        cq(fabric.create_qp(1)) {
    fabric.record_sends = true;
    MemoryFabric::connect(sq, cq);
    const std::uint32_t srmb = *fabric.host(0).allocate_rmb(65536), crmb = *fabric.host(1).allocate_rmb(65536);
    server_rtoken = *fabric.host(0).register_rmb(srmb, sq);
    client_rtoken = *fabric.host(1).register_rmb(crmb, cq);
    server.start({&sq, kServerPort, {kClientPort.mac, kClientPort.gid, cq.qp_number()}, srmb, client_rtoken}, now);
    client.start({&cq, kClientPort, {kServerPort.mac, kServerPort.gid, sq.qp_number()}, crmb, server_rtoken}, now);
  }
  void settle(bool client_deaf = false) {
    for (int i = 0; i < 10000; ++i) {
      const bool a = server.poll(now);
      const bool b = !client_deaf && client.poll(now);
      for (const auto& l : server.links())
        if (l.qp) server_qps.push_back(l.qp->qp_number());
      while (auto e = server.next_event()) server_events.push_back(*e);
      while (auto e = client.next_event()) client_events.push_back(*e);
      if (!a && !b) return;
    }
  }
  // Time passes; only the server's timers fire (the client is deaf).
  void advance_server(Time dt) {
    now += dt;
    server.on_time(now);
    settle(true);
  }
  // Time passes for both sides.
  void advance(Time dt) {
    now += dt;
    server.on_time(now);
    client.on_time(now);
    settle();
  }
  // The server's LLC messages of `type` delivered so far, decoded.
  std::vector<Llc> from_server(std::uint8_t type) const {
    std::vector<Llc> out;
    for (const auto& d : fabric.sends) {
      if (d.octets.empty() || d.octets[0] == 0xFE || (d.octets[0] & 0x0F) != type) continue;
      if (std::find(server_qps.begin(), server_qps.end(), d.from_qp) == server_qps.end()) continue;
      if (auto m = decode_llc(d.octets)) out.push_back(fields_of(*m));
    }
    return out;
  }
  std::size_t count(Event::Kind k) const {
    return static_cast<std::size_t>(
        std::count_if(server_events.begin(), server_events.end(), [k](const Event& e) { return e.kind == k; }));
  }

  MemoryFabric fabric;
  LinkGroup server, client;
  MemoryQueuePair& sq;
  MemoryQueuePair& cq;
  Time now{0};
  std::vector<Event> server_events, client_events;
  std::vector<std::uint32_t> server_qps;  // every QP the server's links had
  RToken server_rtoken, client_rtoken;    // each side's first RMB on link 1
};

// The client's end answers the server's CONFIRM RKEY itself, negatively.
void refuse_rkey(Pair& p, bool retry) {
  const auto asked = p.from_server(6);
  ASSERT_FALSE(asked.empty());
  ConfirmRkey r = std::get<ConfirmRkey>(asked.back());
  r.reply = r.negative = true;
  r.retry = retry;
  p.cq.post_send(encode(Llc{r}));
  p.settle(true);
}

TEST(SmcrLinkGroupChanges, ANewRmbIsAnnouncedOnEveryLink) {
  Pair p;
  p.settle();
  ASSERT_EQ(p.server.active_links(), 2u);
  const std::uint32_t rmb = *p.fabric.host(0).allocate_rmb(65536);
  ASSERT_TRUE(p.server.add_rmb(rmb, p.now));
  p.settle();
  const ConfirmRkey c = std::get<ConfirmRkey>(p.from_server(6).at(0));
  ASSERT_EQ(c.other_links.size(), 1u);
  EXPECT_EQ(c.other_links[0].link_number, 2);
  EXPECT_EQ(c.other_links[0].rtoken, p.server.local_rtoken(rmb, 2));
  EXPECT_EQ(p.count(Event::Kind::kRmbConfirmed), 1u);
}

TEST(SmcrLinkGroupChanges, FaultAnnouncesTheNewRmbOnOneLinkOnly) {
  Pair p(GroupFaults{}.set(GroupFault::kRkeyOneLink));
  p.settle();
  ASSERT_TRUE(p.server.add_rmb(*p.fabric.host(0).allocate_rmb(65536), p.now));
  p.settle();
  EXPECT_TRUE(std::get<ConfirmRkey>(p.from_server(6).at(0)).other_links.empty());
}

TEST(SmcrLinkGroupChanges, NegativeReplyWithRetryRunsTheExchangeAnew) {
  Pair p;
  p.settle();
  ASSERT_TRUE(p.server.add_rmb(*p.fabric.host(0).allocate_rmb(65536), p.now));
  p.settle(true);
  ASSERT_EQ(p.from_server(6).size(), 1u);
  refuse_rkey(p, true);
  // A.3.5: the RToken set again, a new exchange from its beginning.
  ASSERT_EQ(p.from_server(6).size(), 2u);
  EXPECT_EQ(std::get<ConfirmRkey>(p.from_server(6)[1]).other_links.size(), 1u);
  // A peer that always says "retry" gets a bounded number of attempts.
  for (std::size_t i = 0; i < kMaxRkeyRetries + 2; ++i) refuse_rkey(p, true);
  EXPECT_EQ(p.from_server(6).size(), 1 + kMaxRkeyRetries);
  EXPECT_FALSE(p.server.flow_running());
}

TEST(SmcrLinkGroupChanges, NegativeReplyWithoutRetryWaitsForTheNextNeed) {
  Pair p;
  p.settle();
  ASSERT_TRUE(p.server.add_rmb(*p.fabric.host(0).allocate_rmb(65536), p.now));
  p.settle(true);
  refuse_rkey(p, false);
  EXPECT_EQ(p.from_server(6).size(), 1u);
  EXPECT_EQ(p.count(Event::Kind::kRmbRejected), 1u);
}

TEST(SmcrLinkGroupChanges, FaultsTurnTheRetryRuleAround) {
  for (const bool retry : {true, false}) {
    Pair p(GroupFaults{}.set(retry ? GroupFault::kRkeyNoRetry : GroupFault::kRkeyRetryUnasked));
    p.settle();
    ASSERT_TRUE(p.server.add_rmb(*p.fabric.host(0).allocate_rmb(65536), p.now));
    p.settle(true);
    refuse_rkey(p, retry);
    EXPECT_EQ(p.from_server(6).size(), retry ? 1u : 2u) << (retry ? "with C" : "without C");
  }
}

TEST(SmcrLinkGroupChanges, ARequestWaitsForTheRunningExchange) {
  for (const bool overlap : {false, true}) {
    Pair p(overlap ? GroupFaults{}.set(GroupFault::kOverlapExchanges) : GroupFaults{});
    // The first link comes up; the server's ADD LINK then goes unanswered.
    p.settle();
    p.fabric.sends.clear();
    ASSERT_TRUE(p.server.delete_link(2, true, p.now));
    p.settle();
    ASSERT_TRUE(p.server.add_link(p.now));
    p.settle(true);
    ASSERT_TRUE(p.server.flow_running());
    ASSERT_TRUE(p.server.add_rmb(*p.fabric.host(0).allocate_rmb(65536), p.now));
    p.settle(true);
    // §3.5.5.3: no CONFIRM RKEY while the ADD LINK exchange runs.
    EXPECT_EQ(p.from_server(6).size(), overlap ? 1u : 0u);
    if (overlap) continue;
    p.advance_server(kLlcWaitTime);
    EXPECT_EQ(p.from_server(6).size(), 1u) << "the CONFIRM RKEY follows once the exchange ended";
  }
}

TEST(SmcrLinkGroupChanges, ADeletedLinkStaysUntilTheReply) {
  for (const bool early : {false, true}) {
    Pair p(early ? GroupFaults{}.set(GroupFault::kFreeLinkOnDelete) : GroupFaults{});
    p.settle();
    const auto slot = p.server.slot_of(2);
    ASSERT_TRUE(slot);
    const std::uint32_t qp = p.server.links()[*slot].qp->qp_number();
    ASSERT_TRUE(p.server.delete_link(2, true, p.now));
    p.settle(true);
    ASSERT_EQ(p.from_server(4).size(), 1u);
    // §3.5.5.1.3: the QP is kept until the client answers.
    EXPECT_EQ(p.server.slot_of(2).has_value(), !early);
    const MemoryQueuePair* q = p.fabric.find_qp(qp);
    EXPECT_EQ(!early, q != nullptr && !q->broken());
    p.settle();
    EXPECT_FALSE(p.server.slot_of(2));
  }
}

TEST(SmcrLinkGroupChanges, ARejectedSecondLinkLeavesASingleLink) {
  for (const bool ends : {false, true}) {
    // Neither side has a second RNIC: the client rejects the server's ADD
    // LINK on the same port (no alternate path).
    Pair p(ends ? GroupFaults{}.set(GroupFault::kSingleLinkEnds) : GroupFaults{}, false, false);
    p.settle();
    EXPECT_EQ(p.count(Event::Kind::kLinkAddRejected), 1u);
    EXPECT_EQ(p.server.state(), ends ? LinkGroup::State::kTerminated : LinkGroup::State::kActive);
    EXPECT_EQ(p.server.active_links(), ends ? 0u : 1u);
  }
}

TEST(SmcrLinkGroupChanges, AnAsymmetricLinkServesAndTheFaultGivesItUp) {
  for (const bool refused : {false, true}) {
    Pair p(refused ? GroupFaults{}.set(GroupFault::kAsymmetricRefused) : GroupFaults{}, false);
    p.settle();
    // The client's second link end is its first RNIC again.
    EXPECT_EQ(p.server.active_links(), refused ? 1u : 2u);
    EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
  }
}

TEST(SmcrLinkGroupChanges, AnAddLinkWithAnUndefinedMtuIsRejectedWithReasonTwo) {
  for (const std::uint8_t mtu : {0, 6, 15}) {
    for (const bool unchecked : {false, true}) {
      // The server's ADD LINK names an MTU App. A.2.3 does not enumerate.
      Pair p({}, true, true, unchecked ? GroupFaults{}.set(GroupFault::kMtuUnchecked) : GroupFaults{}, false, mtu);
      p.settle();
      EXPECT_EQ(p.client.active_links(), unchecked ? 2u : 1u) << int{mtu};
      if (unchecked) continue;
      const auto rejected = std::find_if(p.server_events.begin(), p.server_events.end(),
                                         [](const Event& e) { return e.kind == Event::Kind::kLinkAddRejected; });
      ASSERT_NE(rejected, p.server_events.end()) << int{mtu};
      EXPECT_EQ(rejected->reason, kAddLinkInvalidMtu);
      EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
    }
  }
  // A defined MTU and no second RNIC: the reason is the path's.
  Pair p({}, false, false);
  p.settle();
  const auto rejected = std::find_if(p.server_events.begin(), p.server_events.end(),
                                     [](const Event& e) { return e.kind == Event::Kind::kLinkAddRejected; });
  ASSERT_NE(rejected, p.server_events.end());
  EXPECT_EQ(rejected->reason, kAddLinkNoAlternatePath);
}

TEST(SmcrLinkGroupChanges, FaultLeavesADeleteLinkOfAnUnknownLinkUnanswered) {
  for (const bool ignored : {false, true}) {
    Pair p({}, true, true, ignored ? GroupFaults{}.set(GroupFault::kUnknownLinkIgnored) : GroupFaults{});
    p.settle();
    p.sq.post_send(encode(Llc{DeleteLink{false, false, true, 9, delete_reason::kOperatorInitiated}}));
    p.settle();
    std::size_t answers = 0;
    for (const auto& d : p.fabric.sends)
      if (d.from_qp == p.cq.qp_number() && !d.octets.empty() && d.octets[0] == 0x04) ++answers;
    EXPECT_EQ(answers, ignored ? 0u : 1u);
    EXPECT_EQ(p.client.active_links(), 2u);
  }
}

TEST(SmcrLinkGroupChanges, AClientsAddLinkNeedsNoAnswer) {
  for (const bool waits : {false, true}) {
    Pair p({}, true, true, waits ? GroupFaults{}.set(GroupFault::kClientAddWaits) : GroupFaults{});
    p.settle();
    ASSERT_EQ(p.client.active_links(), 2u);
    // The server, at its maximum of links, ignores the client's ADD LINK.
    ASSERT_TRUE(p.client.add_link(p.now));
    p.settle();
    p.now += kLlcWaitTime;
    p.client.on_time(p.now);
    p.settle();
    EXPECT_EQ(p.client.state(), waits ? LinkGroup::State::kTerminated : LinkGroup::State::kActive);
  }
}

TEST(SmcrLinkGroupChanges, RmbesKeepTheEyecatcherUnlessBothSidesSayOtherwise) {
  Pair linux_pair;  // both announce Linux's flag
  linux_pair.settle();
  EXPECT_FALSE(linux_pair.server.rmbe_eyecatcher());
  EXPECT_FALSE(linux_pair.client.rmbe_eyecatcher());
  // The client's CONFIRM LINK reply keeps the reserved bits 0 (an RFC 7609
  // peer): the server's RMBEs take the eyecatcher too.
  Pair rfc_client({}, true, true, {}, true);
  rfc_client.settle();
  EXPECT_TRUE(rfc_client.server.rmbe_eyecatcher());
  EXPECT_TRUE(rfc_client.client.rmbe_eyecatcher());
  const auto replies = rfc_client.from_server(1);
  ASSERT_FALSE(replies.empty());
  EXPECT_EQ(std::get<ConfirmLink>(replies.front()).no_rmbe_eyecatcher, kNoRmbeEyecatcher);
  Pair ignored(GroupFaults{}.set(GroupFault::kEyecatcherIgnored), true, true, {}, true);
  ignored.settle();
  EXPECT_FALSE(ignored.server.rmbe_eyecatcher());
}

}  // namespace
}  // namespace rdmaconf::smcr

namespace rdmaconf::smcr {
namespace {

// ------------------------------------------------ several connections (§2, §4.6)

// Two connections on link 1 of each side, each in an element of its own.
void two_connections(Pair& p) {
  ASSERT_TRUE(p.server.add_connection({0x11, p.client_rtoken, 0}));
  ASSERT_TRUE(p.server.add_connection({0x12, p.client_rtoken, 16384}));
  ASSERT_TRUE(p.client.add_connection({0x21, p.server_rtoken, 0}));
  ASSERT_TRUE(p.client.add_connection({0x22, p.server_rtoken, 16384}));
}

std::size_t moved(const std::vector<Event>& es, std::uint32_t token) {
  return static_cast<std::size_t>(std::count_if(es.begin(), es.end(), [token](const Event& e) {
    return e.kind == Event::Kind::kConnectionMoved && e.token == token && e.link == 2;
  }));
}

// rfc7609-2.3-failover-moves-connections: every connection the failed link
// carried moves, on both sides; the fault moves the first only.
TEST(SmcrLinkGroupChanges, AFailedLinksConnectionsAllMove) {
  Pair p;
  p.settle();
  ASSERT_EQ(p.server.active_links(), 2u);
  two_connections(p);
  MemoryFabric::break_link(p.sq);
  p.settle();
  for (std::uint32_t token : {0x11u, 0x12u}) {
    EXPECT_EQ(moved(p.server_events, token), 1u) << token;
    EXPECT_EQ(p.server.link_of(token), 2) << token;
  }
  for (std::uint32_t token : {0x21u, 0x22u}) {
    EXPECT_EQ(moved(p.client_events, token), 1u) << token;
    EXPECT_EQ(p.client.link_of(token), 2) << token;
  }

  GroupFaults f;
  f.set(GroupFault::kMoveFirstOnly);
  Pair q(f);
  q.settle();
  two_connections(q);
  MemoryFabric::break_link(q.sq);
  q.settle();
  EXPECT_EQ(moved(q.server_events, 0x11), 1u);
  EXPECT_EQ(moved(q.server_events, 0x12), 0u);
  EXPECT_FALSE(q.server.link_of(0x12));  // left on the link that is gone
}

// §2: a connection that leaves takes nothing of the group from the others;
// the fault ends the group with it.
TEST(SmcrLinkGroupChanges, AConnectionLeavesTheGroupToTheOthers) {
  Pair p;
  p.settle();
  two_connections(p);
  p.server.remove_connection(0x12, p.now);
  p.settle();
  EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
  EXPECT_EQ(p.server.connections(), 1u);
  EXPECT_EQ(p.server.active_links(), 2u);
  EXPECT_EQ(p.server.link_of(0x11), 1);
  EXPECT_FALSE(p.server.link_of(0x12));
  EXPECT_FALSE(p.server.next_deadline());  // a connection is left: no idle timer
  ASSERT_TRUE(p.server.send_cdc(0x11, std::vector<std::uint8_t>(44, 0)));

  GroupFaults f;
  f.set(GroupFault::kEndsWithAnyConnection);
  Pair q(f);
  q.settle();
  two_connections(q);
  q.server.remove_connection(0x12, q.now);
  q.settle();
  EXPECT_EQ(q.server.state(), LinkGroup::State::kTerminated);
  EXPECT_EQ(q.client.state(), LinkGroup::State::kTerminated);
}

// §2, §3.5.4: the last connection's leaving starts the idle timer; a new
// connection stops it; when it ends, the server ends the group (DELETE
// LINK with A), and a client's longer timer never fires first.
TEST(SmcrLinkGroupChanges, AGroupWithoutConnectionsIsEndedByTheServerAfterItsIdleTime) {
  Pair p({}, true, true, {}, false, 3, kIdleTimeServer, kIdleTimeClient);
  p.settle();
  two_connections(p);
  p.server.remove_connection(0x11, p.now);
  p.server.remove_connection(0x12, p.now);
  p.client.remove_connection(0x21, p.now);
  p.client.remove_connection(0x22, p.now);
  EXPECT_EQ(p.server.next_deadline(), p.now + kIdleTimeServer);
  EXPECT_EQ(p.client.next_deadline(), p.now + kIdleTimeClient);
  // A connection within the idle time stops it, its leaving starts it anew.
  p.advance(Time{300000});
  ASSERT_TRUE(p.server.add_connection({0x13, p.client_rtoken, 32768}));
  ASSERT_TRUE(p.client.add_connection({0x23, p.server_rtoken, 32768}));
  EXPECT_FALSE(p.server.next_deadline());
  p.server.remove_connection(0x13, p.now);
  p.client.remove_connection(0x23, p.now);
  p.advance(kIdleTimeServer - Time{1});
  EXPECT_EQ(p.server.state(), LinkGroup::State::kActive);
  p.advance(Time{1});
  EXPECT_EQ(p.server.state(), LinkGroup::State::kTerminated);
  EXPECT_EQ(p.client.state(), LinkGroup::State::kTerminated);
  const auto deleted = p.from_server(4);
  ASSERT_FALSE(deleted.empty());
  EXPECT_TRUE(std::get<DeleteLink>(deleted.back()).all);
  EXPECT_EQ(std::get<DeleteLink>(deleted.back()).reason_code, delete_reason::kProgramInitiated);
}

}  // namespace
}  // namespace rdmaconf::smcr
