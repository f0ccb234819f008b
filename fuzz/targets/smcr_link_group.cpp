// The SMC-R link group machine (reference/smcr/link_group.hpp), both roles,
// reference against reference over the in-memory transport, with arbitrary
// LLC (and CDC) octets injected into either side's links, time passing,
// paths failing and local requests in between.
//
// Input: one configuration octet (bit 0: SMC v2; bit 1: both sides have a
// second RoCE port; bit 2: the server adds a second link at once; bit 3:
// TEST LINK every 30 s, else off), then commands until the input ends, one
// octet each (its low 3 bits the command) and its operands:
//  - 0: inject: side octet (bit 0: into the server, else the client; bits
//    1-2: which link), 2-octet length (at most 600), that many octets,
//    posted as a Send by the peer's end of that link;
//  - 1: inject a well-formed LLC message: side octet, a type octet, its
//    fields from the input (encode.hpp), the version of the group or not;
//  - 2: time passes: 2-octet count of 16 ms steps;
//  - 3: a local request on one side: side octet, what (add link, delete
//    link n, add or delete an RMB, add a connection, send a CDC message,
//    write, terminate) and its operand octet;
//  - 4: a link's path fails: side octet;
//  - 5, 6, 7: both sides poll.
// Properties:
//  - every Send either machine posts decodes with our own decoder (a
//    message we build is never malformed);
//  - a side's links have distinct numbers, at most three, and an active
//    link a queue pair; a terminated side has no link left;
//  - no timer is lost: a running exchange, or a link under TEST LINK, has
//    a deadline, and after on_time(now) none lies before now;
//  - a CDC message handed over is 44 octets.
#include <array>
#include <cstdint>
#include <set>
#include <vector>

#include "common/input.hpp"
#include "smcr/link_group.hpp"

using namespace rdmaconf;
using smcr::LinkGroup;

namespace {

using Time = smcr::Time;

smcr::Gid gid(std::uint8_t d) { return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, d}; }

struct Harness {
  explicit Harness(std::uint8_t bits)
      : server(config(smcr::Role::kServer, bits), fabric.host(0)),
        client(config(smcr::Role::kClient, bits), fabric.host(1)),
        sq(fabric.create_qp(0)),
        cq(fabric.create_qp(1)) {
    fabric.record_sends = true;
    test_link = (bits & 8) != 0;
    smcr::MemoryFabric::connect(sq, cq);
    server_rmb = *fabric.host(0).allocate_rmb(4096);
    client_rmb = *fabric.host(1).allocate_rmb(4096);
    const smcr::RToken srt = *fabric.host(0).register_rmb(server_rmb, sq);
    const smcr::RToken crt = *fabric.host(1).register_rmb(client_rmb, cq);
    server.start({&sq, {1, gid(1)}, {2, gid(2), cq.qp_number()}, server_rmb, crt}, now);
    client.start({&cq, {2, gid(2)}, {1, gid(1), sq.qp_number()}, client_rmb, srt}, now);
  }
  static smcr::LinkGroupConfig config(smcr::Role role, std::uint8_t bits) {
    smcr::LinkGroupConfig c;
    c.role = role;
    c.version = (bits & 1) ? 2 : 1;
    if (bits & 2) c.alternate = smcr::LinkAddress{role == smcr::Role::kServer ? 11u : 12u, gid(role == smcr::Role::kServer ? 11 : 12)};
    c.add_second_link = (bits & 4) != 0;
    c.test_link_time = (bits & 8) ? smcr::kTestLinkTime : Time{0};
    return c;
  }
  LinkGroup& side(std::uint8_t s) { return (s & 1) ? server : client; }

  // The peer's end of a side's link, to inject through.
  smcr::MemoryQueuePair* peer_end(std::uint8_t s) {
    const auto& l = side(s).links()[((s >> 1) & 3) % smcr::kMaxLinks];
    // The peer's end is the queue pair the link's peer announced.
    return l.qp == nullptr ? nullptr : fabric.find_qp(l.peer.qp);
  }

  void settle() {
    for (int i = 0; i < 64; ++i) {
      const bool a = server.poll(now);
      const bool b = client.poll(now);
      drain();
      if (!a && !b) break;
    }
    check();
  }
  void drain() {
    for (LinkGroup* g : {&server, &client})
      while (auto e = g->next_event())
        if (e->kind == smcr::Event::Kind::kCdc) FUZZ_CHECK(e->octets.size() == smcr::kCdcMessageSize);
  }
  void check() {
    for (const LinkGroup* g : {&server, &client}) {
      std::set<std::uint8_t> numbers;
      std::size_t used = 0;
      for (const auto& l : g->links()) {
        if (l.state == LinkGroup::LinkState::kUnused) continue;
        ++used;
        FUZZ_CHECK(numbers.insert(l.number).second || l.state == LinkGroup::LinkState::kActivating);
        FUZZ_CHECK(l.qp != nullptr);
      }
      FUZZ_CHECK(used <= smcr::kMaxLinks);
      if (g->state() == LinkGroup::State::kTerminated) FUZZ_CHECK(used == 0 && !g->flow_running());
      // No timer is lost: what waits has a deadline, and none lies behind us.
      const std::optional<Time> next = g->next_deadline();
      if (g->flow_running()) FUZZ_CHECK(next.has_value());
      if (test_link && g->active_links() > 0) FUZZ_CHECK(next.has_value());
      if (next) FUZZ_CHECK(*next >= now || fired_until < now);
    }
    // Our own messages decode; injected ones are whatever the input made.
    for (; checked < fabric.sends.size(); ++checked) {
      const auto& d = fabric.sends[checked];
      if (injected.count(d.octets)) continue;
      auto m = smcr::decode_send(d.octets);
      FUZZ_CHECK(m.ok());
    }
  }
  void advance(Time dt) {
    const Time until = now + dt;
    for (int i = 0; i < 32; ++i) {
      std::optional<Time> next = server.next_deadline();
      if (const auto c = client.next_deadline(); c && (!next || *c < *next)) next = c;
      if (!next || *next > until) break;
      now = std::max(now, *next);
      server.on_time(now);
      client.on_time(now);
      settle();
    }
    now = until;
    server.on_time(now);
    client.on_time(now);
    fired_until = now;
    settle();
  }

  smcr::MemoryFabric fabric;
  LinkGroup server, client;
  smcr::MemoryQueuePair& sq;
  smcr::MemoryQueuePair& cq;
  std::uint32_t server_rmb = 0, client_rmb = 0;
  std::vector<std::uint32_t> rmbs[2];
  Time now{0};
  Time fired_until{0};  // on_time ran for this instant
  bool test_link = false;
  std::set<std::vector<std::uint8_t>> injected;
  std::size_t checked = 0;
};

smcr::Llc built(fuzz::FuzzInput& in) {
  const std::uint8_t t = in.u8();
  const bool reply = (t & 0x80) != 0;
  switch (t % 9) {
    case 0: return smcr::ConfirmLink{reply, smcr::kNoRmbeEyecatcher, in.u8(), gid(in.u8()), in.u16(), in.u8(), in.u32(), in.u8()};
    case 1: {
      smcr::AddLink a;
      a.reply = reply;
      a.reject = in.flag();
      a.gid = gid(in.u8());
      a.mac = in.u8();
      a.qp_number = in.u16();
      a.link_number = in.u8() % 4;
      a.mtu = in.u8() & 0xF;
      if (in.flag()) a.v2_extension = smcr::AddLink::V2Extension{true, gid(1), {{in.u16(), {in.u16(), in.u64()}}}, {}};
      return a;
    }
    case 2: return smcr::AddLinkContinuation{reply, static_cast<std::uint8_t>(in.u8() % 4), {{in.u16(), {in.u16(), in.u64()}}}, in.u8()};
    case 3: return smcr::DeleteLink{reply, in.flag(), in.flag(), static_cast<std::uint8_t>(in.u8() % 4), in.u32()};
    case 4: return smcr::ConfirmRkey{reply, in.flag(), in.flag(), {in.u16(), in.u64()}, {{static_cast<std::uint8_t>(in.u8() % 4), {in.u16(), in.u64()}}}, in.u8() % 5};
    case 5: return smcr::ConfirmRkeyContinuation{reply, false, in.u8(), {}};
    case 6: return smcr::DeleteRkey{reply, in.flag(), 0, {in.u16(), in.u16()}, std::nullopt};
    case 7: {
      smcr::TestLink tl{reply, {}};
      tl.user_data[0] = in.u8();
      return tl;
    }
    default: return smcr::RequestAddLink{reply, {gid(in.u8())}, std::nullopt};
  }
}

void local(Harness& h, fuzz::FuzzInput& in) {
  const std::uint8_t s = in.u8();
  LinkGroup& g = h.side(s);
  const int host = (s & 1) ? 0 : 1;
  const std::uint8_t what = in.u8(), arg = in.u8();
  switch (what % 8) {
    case 0: g.add_link(h.now); break;
    case 1: g.delete_link(arg % 4, (what & 0x80) != 0, h.now); break;
    case 2:
      if (h.rmbs[host].size() < 8)
        if (auto id = h.fabric.host(host).allocate_rmb(4096 + arg)) {
          h.rmbs[host].push_back(*id);
          g.add_rmb(*id, h.now);
        }
      break;
    case 3:
      if (!h.rmbs[host].empty()) g.delete_rmb(h.rmbs[host][arg % h.rmbs[host].size()], h.now);
      break;
    case 4: {
      // A connection through the peer's first RMB as CLC gave it.
      const LinkGroup& peer = h.side(s ^ 1);
      if (const auto t = peer.local_rtoken(host == 0 ? h.client_rmb : h.server_rmb, 1))
        g.add_connection({arg, *t, 0});
      break;
    }
    case 5: {
      smcr::CdcFields c;
      c.alert_token = arg;
      c.sequence_number = in.u16();
      g.send_cdc(arg, smcr::encode(c));
      break;
    }
    case 6: {
      const std::vector<std::uint8_t> data(arg, 0x5a);
      g.write(what, in.u16(), data);
      break;
    }
    default: g.terminate(smcr::delete_reason::kOperatorInitiated, h.now);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  Harness h(in.u8());
  h.settle();
  while (!in.empty()) {
    const std::uint8_t op = in.u8();
    switch (op % 8) {
      case 0: {
        const std::uint8_t s = in.u8();
        const fuzz::Bytes octets = in.take(in.u16() % 601);
        if (smcr::MemoryQueuePair* q = h.peer_end(s)) {
          h.injected.emplace(octets.begin(), octets.end());
          q->post_send(octets);
        }
        break;
      }
      case 1: {
        const std::uint8_t s = in.u8();
        const smcr::Llc m = built(in);
        const auto octets = smcr::encode(m, {static_cast<std::uint8_t>(in.flag() ? 2 : 1), std::nullopt});
        if (smcr::MemoryQueuePair* q = h.peer_end(s)) {
          h.injected.insert(octets);
          q->post_send(octets);
        }
        break;
      }
      case 2: h.advance(Time{16 * static_cast<std::int64_t>(in.u16())}); break;
      case 3: local(h, in); break;
      case 4:
        if (smcr::MemoryQueuePair* q = h.peer_end(in.u8())) smcr::MemoryFabric::break_link(*q);
        break;
      default: break;
    }
    h.settle();
  }
  // Time runs on: every wait ends in its reaction (check() after each step).
  h.advance(smcr::kLlcWaitFirstTime * 4);
  return 0;
}
