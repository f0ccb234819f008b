// Internal to the runner's smcr suite (runner_smcr.hpp): the SMC-R phase a
// case's session holds (the tester's link group and connection over its
// RoceSide, what the IUT sent, what the tester's machines saw) and the
// helpers the steps that send (runner_smcr.cpp) and those that expect
// (runner_smcr_expect.cpp) share.
#pragma once

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/runner_session.hpp"
#include "engine/smcr_transport.hpp"
#include "smcr/connection.hpp"
#include "smcr/encode.hpp"
#include "smcr/link_group.hpp"
#include "smcr/messages.hpp"

namespace rdmaconf::conformance::runner {

using smcr::Time;

inline constexpr std::uint32_t kTesterAlertToken = 0x2001;  // the first RMBE's; element i + 1's is this plus i
// RMBEs in the tester's RMB (§4.1): connections of one link group a case opens.
inline constexpr std::size_t kTesterRmbes = 4;
inline constexpr std::size_t kMaxLogged = 65536;  // IUT messages kept for expectations
inline constexpr std::uint8_t kFlagDeleteAll = 0x40;  // DELETE LINK's A: the whole link group (App. A.3.4)

// The LLC units a script names, by RFC 7609 type (App. A.3).
struct LlcUnit {
  std::string_view unit;
  std::uint8_t type;
};
inline constexpr LlcUnit kLlcUnits[] = {
    {"llc.confirm_link", 1}, {"llc.add_link", 2},  {"llc.add_link_cont", 3}, {"llc.delete_link", 4},
    {"llc.confirm_rkey", 6}, {"llc.confirm_rkey_cont", 8}, {"llc.delete_rkey", 9}, {"llc.test_link", 7},
};
inline std::optional<std::uint8_t> llc_type_of(std::string_view unit) {
  for (const LlcUnit& u : kLlcUnits)
    if (u.unit == unit) return u.type;
  return std::nullopt;
}


// " (rfc7609-...)": the registry row a broken rule names, if any.
inline std::string row_of(const std::optional<check::Violation>& v) {
  return v && v->rule ? " (" + std::string(v->rule->id) + ")" : "";
}

// The octet of the tester's stream at `i`: what the echo must bring back.
inline std::uint8_t stream_octet(std::uint64_t i) { return static_cast<std::uint8_t>(i ^ (i >> 8) ^ (i >> 16) ^ 0x5A); }

// The stream's octets from `from` on, as many as `out` holds. Within a run
// of 256 (i's octet 0 from 0 to 255) only i's own octet changes, so a run is
// the count 0..255 XOR one octet: made eight octets at a time and copied.
// Octet by octet (stream_octet), writing and checking the stream had been
// 12-14 % of the mutation proof's samples under perf; now about 1 %.
inline void stream_octets(std::uint64_t from, std::span<std::uint8_t> out) {
  static constexpr std::array<std::uint8_t, 256> kCount = [] {
    std::array<std::uint8_t, 256> a{};
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i);
    return a;
  }();
  std::array<std::uint8_t, 256> run;
  for (std::size_t i = 0; i < out.size();) {
    const std::uint64_t at = from + i;
    const std::uint64_t each = stream_octet(at & ~std::uint64_t{0xFF}) * std::uint64_t{0x0101010101010101};
    for (std::size_t w = 0; w < run.size(); w += 8) {
      std::uint64_t x;
      std::memcpy(&x, kCount.data() + w, 8);
      x ^= each;
      std::memcpy(run.data() + w, &x, 8);
    }
    const std::size_t first = at & 0xFF;
    const std::size_t n = std::min(out.size() - i, run.size() - first);
    std::memcpy(out.data() + i, run.data() + first, n);
    i += n;
  }
}

// The blocks of one LLC or CDC message's octets: header, the type's flag
// overlay, body (units.hpp).
inline std::vector<Block> message_blocks(std::vector<std::uint8_t>& m) {
  std::vector<Block> out;
  if (m.size() < smcr::kLlcMessageSize) return out;
  if (m[0] == 0xFE) {
    out.push_back(raw_block(smcr::CdcSpec::decl, m, 0));
    return out;
  }
  const bool v2 = (m[0] & 0xF0) == 0x20;
  out.push_back(raw_block(v2 ? smcr::LlcHeaderV2Spec::decl : smcr::LlcHeaderV1Spec::decl, m, 0));
  if (const smcr::LlcTypeInfo* info = smcr::find_llc_type(m[0])) {
    Block flags = raw_block(v2 ? smcr::LlcHeaderV2Spec::decl : smcr::LlcHeaderV1Spec::decl, m, 0);
    flags.fields = info->flags;
    out.push_back(std::move(flags));
    if (info->body && m.size() >= 4 + info->body->size_octets) out.push_back(raw_block(*info->body, m, 4));
  }
  return out;
}


// ------------------------------------------------------------------ phase

struct SmcrPhase {
  std::unique_ptr<RoceSide> side;
  std::unique_ptr<TapHost> tap;  // after side: destroyed first
  RoceFirstLink first;
  TapQueuePair* first_qp = nullptr;
  bool started = false, manual = false;
  bool connected = false;      // the first link's queue pair is connected
  std::uint32_t first_psn = 0;  // the initial PSN the tester's CLC message announced
  int start_line = 0;  // the step the phase began with
  std::optional<smcr::LinkGroup> group;
  // One connection of the tester's link group (§4.1): the case's
  // connection N is conns[N - 1] (`connection N` reusing the group,
  // §3.5.2), with its own RMBE of the tester's RMB and alert token, the
  // IUT's RMBE it writes into, and its data.
  struct Conn {
    std::optional<smcr::Connection> conn;
    std::uint32_t own_token = kTesterAlertToken;
    std::uint32_t peer_token = 0;
    check::RmbeName peer_rmbe;  // the IUT's RMBE its CLC named (§4.1)
    bool reading = true;
    std::uint64_t to_send = 0, offered = 0, read = 0;
    bool urgent = false;  // the last octet of what to_send holds is urgent
    // The script sent this connection's C or A itself (`> cdc
    // cdc.conn_closed=1`): App. A.4 lets the tester send nothing more on
    // it, so its queued data and its own CDC messages stop there.
    bool ended_by_script = false;
    // The tester's queue pair the IUT's latest CDC message for this
    // connection came on: the link the IUT writes it over (§2.3: each peer
    // picks its own), 0 before any came.
    std::uint32_t iut_qp = 0;
    // `> smcr.break_link`: whether the IUT was writing this connection
    // over the link that broke, the connections §4.6.1 has it move with F.
    bool on_broken_link = false;
  };
  std::deque<Conn> conns = std::deque<Conn>(1);  // a deque: a Connection does not move
  // What the tester's CLC announced for connection 1 (its link end, its RMB)
  // and the IUT's end of the link: what a later connection's CLC reuses.
  clc::SmcrLink clc_link;
  std::optional<clc::LinkGroupPeer> iut_end;
  Time now{0};  // the link groups' clock: the case's against an IUT in process, real time otherwise
  Clock::time_point born = Clock::now();
  // What the IUT sent, in order, not yet matched by an expectation, and
  // the tester's queue pair it arrived on.
  struct Logged {
    std::vector<std::uint8_t> octets;
    std::uint32_t qp = 0;
    std::uint64_t serial = 0;  // `received_serial` when it came
  };
  std::deque<Logged> llc, cdc;
  std::uint64_t received_serial = 0;  // messages logged, in total
  // `> smcr.break_link`: the link it broke and `received_serial` then, what
  // `< smcr.failover` judges the IUT's messages after (0: none broke).
  std::uint8_t broken_link = 0;
  std::uint64_t broken_at = 0;
  std::uint8_t llc_version = 1;  // the link group's SMC-R version (CLC), for the tester's own LLC messages
  bool iut_ended_group = false;  // the IUT sent DELETE LINK with A (§3.5.4)
  std::uint64_t received = 0;  // messages from the IUT, in total
  std::vector<std::uint8_t> last_received;  // the IUT's latest message: what broke a `< silence`
  std::uint64_t received_mark = 0;  // `received` when the last expectation passed: what `< silence` counts from
  std::multiset<std::uint8_t> raw_requests;  // types of the script's requests awaiting the IUT's reply
  std::set<std::uint8_t> held;               // `> smcr.hold`: the IUT's requests of these types are the script's
  // `> smcr.tamper`: the tester's link group's next request of `type` on
  // link `link` goes out with `args` set (the script's own sends are as
  // written); its next reply when the args set llc.flags.reply=1.
  struct Tamper {
    std::uint8_t type = 0;
    std::uint8_t link = 1;
    bool reply = false;
    std::vector<Arg> args;
    std::string unit;
  };
  std::optional<Tamper> tamper;
  bool script_sending = false;
  std::deque<smcr::Event> events;            // the tester's link group's, for smcr.* expectations
  std::set<std::uint8_t> links_seen;         // link numbers that came up: a step naming one gone is the IUT's doing
  std::vector<std::string> problems;         // rules the IUT broke, as the tester's machines saw them
  std::size_t problems_reported = 0;
  std::vector<std::uint8_t> buf, expected;  // octets sent or received; what the echo must bring back

  // A device's IUT outlives the case: its link group with the tester ends
  // here, as a peer that goes away ends it (DELETE LINK with A,
  // program-initiated, §3.5.4; smcr-probe does the same), so that the next
  // case's Proposal starts a link group of its own (first contact) rather
  // than finding this one. As client the tester asks and waits for the
  // IUT's own DELETE LINK, which ends the group (§3.5.4), for at most
  // kLeaveWait; the queue pairs of the ended group live on for a second
  // more (TapHost::hold_destroyed), acknowledging what the IUT still sends
  // (Linux: its connections' CDC messages after its DELETE LINK). A Send
  // that finds no queue pair is never acknowledged, and Linux over rxe
  // retransmits it without end (docs/interop-6.12.md).
  static constexpr std::chrono::seconds kLeaveWait{10};
  ~SmcrPhase() {
    if (manual) {
      leave_manual();
      return;
    }
    if (!group || !side || side->in_process() || group->state() != smcr::LinkGroup::State::kActive) return;
    tap->hold_destroyed();
    if (group->request_termination(smcr::delete_reason::kProgramInitiated, now))
      pump_until([this] { return group->state() == smcr::LinkGroup::State::kTerminated; }, Clock::now() + kLeaveWait);
    group->terminate(smcr::delete_reason::kProgramInitiated, now);
    pump_until([] { return false; }, Clock::now() + std::chrono::seconds(1));
    tap->release_held();
  }

  void pump_until(const std::function<bool()>& done, Clock::time_point until) {
    while (Clock::now() < until && !done()) {
      pump();
      tap->poll_held();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  // After `> smcr.manual` the script ran the first link itself and the
  // tester has no link group to leave with; the IUT may still use the link
  // (its ADD LINK awaiting an answer, its connection's CDC message after the
  // TCP close). The tester leaves the same way (§3.5.4): DELETE LINK with A
  // over the first link, then the IUT's DELETE LINK awaited, the queue pairs
  // kept a second more. A first link the IUT never used, or a group it
  // already ended, needs no leave.
  void leave_manual() {
    if (!side || side->in_process() || !tap || !first_qp || !connected || received == 0 || iut_ended_group) return;
    tap->hold_destroyed();
    const smcr::DeleteLink ask{false, true, false, 0, smcr::delete_reason::kProgramInitiated};
    const std::vector<std::uint8_t> m = smcr::encode(ask, {llc_version, std::nullopt});
    first_qp->post_send(m);
    pump_until([this] { return iut_ended_group; }, Clock::now() + kLeaveWait);
    pump_until([] { return false; }, Clock::now() + std::chrono::seconds(1));
    tap->release_held();
  }

  void problem(std::string p) {
    if (problems.size() < 64) problems.push_back(std::move(p));
  }

  // A Send from the IUT: logged; a reply to a request the script sent
  // itself never reaches the tester's link group (which did not ask).
  bool on_receive(const smcr::QueuePair& qp, std::vector<std::uint8_t>& m) {
    auto& log = !m.empty() && m[0] == 0xFE ? cdc : llc;
    if (log.size() >= kMaxLogged) log.pop_front();
    log.push_back({m, qp.qp_number(), received_serial++});
    if (m.size() >= smcr::kLlcMessageSize && m[0] == 0xFE)
      if (Conn* k = conn_of(static_cast<std::uint32_t>(wire::Header<smcr::CdcSpec>::read(m, smcr::CdcSpec::Field::AlertToken))))
        k->iut_qp = qp.qp_number();
    const bool llc_message = m.size() >= 4 && m[0] != 0xFE;
    const bool reply = llc_message && (m[3] & smcr::kFlagReply) != 0;
    const auto type = static_cast<std::uint8_t>(llc_message ? m[0] & 0x0F : 0);
    // §4.5.3: TEST LINK is the keepalive of a quiet link, the IUT's (which
    // the tester's link group answers) or the tester's own (which the IUT
    // answers); no reaction to the script, it breaks no `< silence`, unless
    // the script holds TEST LINK or sent one itself.
    // §3.5.4: the IUT's DELETE LINK for the whole group (request or reply).
    if (llc_message && type == smcr::llc_type::kDeleteLink && (m[3] & kFlagDeleteAll)) iut_ended_group = true;
    const bool keepalive = llc_message && type == smcr::llc_type::kTestLink && !held.contains(type) &&
                           !(reply && raw_requests.contains(type));
    if (!keepalive) {
      ++received;
      last_received = m;
    }
    if (!llc_message) return true;
    if (auto it = raw_requests.find(type); reply && it != raw_requests.end()) {
      raw_requests.erase(it);
      return false;
    }
    // A request the script answers itself never reaches the tester's link group.
    return reply || !held.contains(type);
  }

  // The connection whose RMBE has the alert token (nullptr: none open).
  Conn* conn_of(std::uint32_t token) {
    for (Conn& k : conns)
      if (k.conn && k.own_token == token) return &k;
    return nullptr;
  }

  void emit(Conn& k, const smcr::Output& o) {
    if (!group || k.ended_by_script) return;
    for (const smcr::RdmaWrite& w : o.writes) group->write(k.own_token, w.rmbe_offset, w.octets);
    if (o.cdc) group->send_cdc(k.own_token, o.cdc->header.bytes());
  }

  void on_event(const smcr::Event& e) {
    using K = smcr::Event::Kind;
    if (e.kind == K::kCdc) {
      auto m = smcr::decode_cdc(e.octets);
      if (!m) return problem("an undecodable CDC message");
      Conn* k = conn_of(e.token);
      if (!k) return;
      smcr::CdcOutcome r = k->conn->on_cdc(*m);
      for (const smcr::Finding& f : r.findings)
        problem(std::string(smcr::name(f.error)) + row_of(f.violation));
      emit(*k, r.out);
      return;
    }
    // A drop with a rule broken, or of what no SMC-R peer may send; the
    // others follow from the tester's own state (a DELETE LINK of a link
    // this side already took down after a failure, §4.6).
    using D = smcr::Event::Drop;
    if (e.kind == K::kDropped && (e.violation || e.drop == D::kUndecodable || e.drop == D::kUnknownType)) {
      std::string why = "the tester's link group dropped an LLC message of type " + hex(wire::Bytes(&e.llc_type, 1)) +
                        ": " + std::string(smcr::name(e.drop));
      problem(why + row_of(e.violation));
    }
    if (e.kind == K::kLinkUp) links_seen.insert(e.link);
    if (Conn* k = e.kind == K::kConnectionMoved ? conn_of(e.token) : nullptr) {
      group->send_cdc(k->own_token, k->conn->failover_validation(group->sequence_sent(k->own_token)).header.bytes());
      group->replay(k->own_token);
    }
    if (events.size() < kMaxLogged) events.push_back(e);
  }

  bool data() {
    bool any = false;
    for (Conn& k : conns)
      if (k.conn) any |= data(k);
    return any;
  }

  bool data(Conn& k) {
    smcr::Connection& conn = *k.conn;
    bool any = false;
    // The tester writes once its first link is confirmed (§3.5.1.5): the
    // data a script writes at once goes as early as the IUT must take it.
    const bool may_write = group && group->state() == smcr::LinkGroup::State::kActive;
    while (k.to_send > 0 && may_write) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(k.to_send, 16384));
      buf.resize(n);
      stream_octets(k.offered, buf);
      const bool last = n == k.to_send;
      smcr::SendResult r = k.urgent && last ? conn.send_urgent(buf) : conn.send(buf);
      if (r.status == smcr::SendStatus::kUrgentWait) break;
      k.offered += r.accepted;
      k.to_send -= r.accepted;
      if (last && r.accepted == n) k.urgent = false;
      emit(k, r.out);
      if (r.accepted == 0) break;
      any = true;
    }
    while (k.reading) {
      buf.resize(65536);
      smcr::ReceiveResult r = conn.receive(buf);
      emit(k, r.out);
      if (r.octets == 0) break;
      expected.resize(r.octets);
      stream_octets(k.read, expected);
      const auto got_end = buf.begin() + static_cast<std::ptrdiff_t>(r.octets);
      if (!std::equal(buf.begin(), got_end, expected.begin())) {
        const auto at = std::mismatch(buf.begin(), got_end, expected.begin()).first - buf.begin();
        problem("octet " + std::to_string(k.read + static_cast<std::uint64_t>(at)) + " echoed back differs from the one written");
      }
      k.read += r.octets;
      any = true;
    }
    return any;
  }

  // A device keeps its own time: the link groups' clock is real time since
  // the phase began (in process, the case's own, moved by advance()).
  void tick() {
    if (!side->in_process()) now = std::max(now, std::chrono::duration_cast<Time>(Clock::now() - born));
  }

  // Runs both sides until nothing moves (in process) or once (a device).
  void pump() {
    tick();
    for (std::size_t i = 0; i < 50'000'000; ++i) {
      bool any = side->drive(now);
      if (group) {
        any |= group->poll(now);
        if (auto d = group->next_deadline(); d && *d <= now) group->on_time(now), any = true;
        while (auto e = group->next_event()) on_event(*e), any = true;
      } else {
        for (const auto& q : tap->queue_pairs())
          while (q->poll()) any = true;
      }
      any |= data();
      if (!any || !side->in_process()) return;
    }
  }

  // Time passes: every deadline on the way fires in order (the IUT's
  // through its own drive()). A device keeps its own time: the tester waits,
  // and its link group goes on answering meanwhile, as a peer does: an IUT
  // whose TEST LINK (§4.5.3) goes unanswered for a moment takes the link
  // down (Linux after 2 s), which would decide every case with a long wait.
  void advance(Duration d) {
    if (!side->in_process()) {
      const auto until = Clock::now() + d;
      while (Clock::now() < until) {
        pump();
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      return pump();
    }
    const Time until = now + d;
    while (now < until) {
      now = std::min(until, now + Time{100});
      pump();
    }
  }
};

// The number of the link whose tester queue pair is `qp` (0: none now).
inline std::uint64_t link_number_of(const SmcrPhase& p, std::uint32_t qp) {
  if (!p.group) return p.first_qp && p.first_qp->qp_number() == qp ? 1 : 0;
  for (const auto& l : p.group->links())
    if (l.qp && l.qp->qp_number() == qp) return l.number;
  return 0;
}

inline StepOutcome error(std::string why) { return {StepOutcome::Kind::kError, std::move(why)}; }

// The tester's connection a step of session `s` acts on (`connection N`).
inline SmcrPhase::Conn& smcr_conn(Session& s) { return s.smcr->conns[s.smcr_connection]; }

// An expectation step of the phase (runner_smcr_expect.cpp).
StepOutcome smcr_expect(Session& s, const Step& st);

}  // namespace rdmaconf::conformance::runner
