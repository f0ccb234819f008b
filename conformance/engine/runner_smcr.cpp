// The smcr suite's SMC-R phase (runner_smcr.hpp): the tester's link group
// and connection over the case's RoceSide, the LLC and CDC messages a script
// sends and expects, and the data it moves.
#include "engine/runner_smcr.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "engine/smcr_transport.hpp"
#include "smcr/connection.hpp"
#include "smcr/encode.hpp"
#include "smcr/link_group.hpp"
#include "smcr/messages.hpp"

namespace rdmaconf::conformance::runner {

namespace {

using smcr::Time;
constexpr std::uint32_t kTesterAlertToken = 0x2001;
constexpr std::size_t kMaxLogged = 65536;  // IUT messages kept for expectations

// The LLC units a script names, by RFC 7609 type (App. A.3).
struct LlcUnit {
  std::string_view unit;
  std::uint8_t type;
};
constexpr LlcUnit kLlcUnits[] = {
    {"llc.confirm_link", 1}, {"llc.add_link", 2},  {"llc.add_link_cont", 3}, {"llc.delete_link", 4},
    {"llc.confirm_rkey", 6}, {"llc.confirm_rkey_cont", 8}, {"llc.delete_rkey", 9}, {"llc.test_link", 7},
};
std::optional<std::uint8_t> llc_type_of(std::string_view unit) {
  for (const LlcUnit& u : kLlcUnits)
    if (u.unit == unit) return u.type;
  return std::nullopt;
}

constexpr std::string_view kControlUnits[] = {"smcr.manual",         "smcr.close",          "smcr.abort",
                                              "smcr.shutdown",       "smcr.stop_reading",   "smcr.resume_reading",
                                              "smcr.break_link",     "smcr.hold",           "data.write",
                                              "smcr.iut.add_rmb",    "smcr.iut.delete_link", "smcr.iut.close",
                                              "smcr.iut.add_link",
                                              "smcr.one_port",       "smcr.delete_link",    "smcr.tamper",
                                              "smcr.eyecatcher",     "smcr.overlay_eyecatcher", "smcr.stall_link"};
constexpr std::string_view kEventUnits[] = {"smcr.link_up", "smcr.link_deleted", "smcr.terminated", "data"};

// " (rfc7609-...)": the registry row a broken rule names, if any.
std::string row_of(const std::optional<check::Violation>& v) {
  return v && v->rule ? " (" + std::string(v->rule->id) + ")" : "";
}

// The octet of the tester's stream at `i`: what the echo must bring back.
std::uint8_t stream_octet(std::uint64_t i) { return static_cast<std::uint8_t>(i ^ (i >> 8) ^ (i >> 16) ^ 0x5A); }

// The blocks of one LLC or CDC message's octets: header, the type's flag
// overlay, body (units.hpp).
std::vector<Block> message_blocks(std::vector<std::uint8_t>& m) {
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

}  // namespace

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
  std::optional<smcr::Connection> conn;
  std::uint32_t peer_token = 0;
  Time now{0};  // the link groups' clock: the case's against an IUT in process, real time otherwise
  Clock::time_point born = Clock::now();
  // What the IUT sent, in order, not yet matched by an expectation, and
  // the tester's queue pair it arrived on.
  struct Logged {
    std::vector<std::uint8_t> octets;
    std::uint32_t qp = 0;
  };
  std::deque<Logged> llc, cdc;
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
  bool reading = true;
  std::uint64_t to_send = 0, offered = 0, read = 0;
  bool urgent = false;  // the last octet of what to_send holds is urgent
  std::vector<std::uint8_t> buf;

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
    if (!group || !side || side->in_process() || group->state() != smcr::LinkGroup::State::kActive) return;
    const auto pump_until = [this](auto done, Clock::time_point until) {
      while (Clock::now() < until && !done()) {
        pump();
        tap->poll_held();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    };
    tap->hold_destroyed();
    if (group->request_termination(smcr::delete_reason::kProgramInitiated, now))
      pump_until([this] { return group->state() == smcr::LinkGroup::State::kTerminated; }, Clock::now() + kLeaveWait);
    group->terminate(smcr::delete_reason::kProgramInitiated, now);
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
    log.push_back({m, qp.qp_number()});
    const bool llc_message = m.size() >= 4 && m[0] != 0xFE;
    const bool reply = llc_message && (m[3] & smcr::kFlagReply) != 0;
    const auto type = static_cast<std::uint8_t>(llc_message ? m[0] & 0x0F : 0);
    // §4.5.3: TEST LINK is the keepalive of a quiet link, the IUT's (which
    // the tester's link group answers) or the tester's own (which the IUT
    // answers); no reaction to the script, it breaks no `< silence`, unless
    // the script holds TEST LINK or sent one itself.
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

  void emit(const smcr::Output& o) {
    if (!group) return;
    for (const smcr::RdmaWrite& w : o.writes) group->write(kTesterAlertToken, w.rmbe_offset, w.octets);
    if (o.cdc) group->send_cdc(kTesterAlertToken, o.cdc->header.bytes());
  }

  void on_event(const smcr::Event& e) {
    using K = smcr::Event::Kind;
    if (e.kind == K::kCdc) {
      auto m = smcr::decode_cdc(e.octets);
      if (!m) return problem("an undecodable CDC message");
      smcr::CdcOutcome r = conn->on_cdc(*m);
      for (const smcr::Finding& f : r.findings)
        problem(std::string(smcr::name(f.error)) + row_of(f.violation));
      emit(r.out);
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
    if (e.kind == K::kConnectionMoved && conn) {
      group->send_cdc(kTesterAlertToken, conn->failover_validation(group->sequence_sent(kTesterAlertToken)).header.bytes());
      group->replay(kTesterAlertToken);
    }
    if (events.size() < kMaxLogged) events.push_back(e);
  }

  bool data() {
    if (!conn) return false;
    bool any = false;
    // The tester writes once its first link is confirmed (§3.5.1.5): the
    // data a script writes at once goes as early as the IUT must take it.
    const bool may_write = group && group->state() == smcr::LinkGroup::State::kActive;
    while (to_send > 0 && may_write) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(to_send, 16384));
      buf.resize(n);
      for (std::size_t i = 0; i < n; ++i) buf[i] = stream_octet(offered + i);
      const bool last = n == to_send;
      smcr::SendResult r = urgent && last ? conn->send_urgent(buf) : conn->send(buf);
      if (r.status == smcr::SendStatus::kUrgentWait) break;
      offered += r.accepted;
      to_send -= r.accepted;
      if (last && r.accepted == n) urgent = false;
      emit(r.out);
      if (r.accepted == 0) break;
      any = true;
    }
    while (reading) {
      buf.resize(65536);
      smcr::ReceiveResult r = conn->receive(buf);
      emit(r.out);
      if (r.octets == 0) break;
      for (std::size_t i = 0; i < r.octets; ++i)
        if (buf[i] != stream_octet(read + i)) {
          problem("octet " + std::to_string(read + i) + " echoed back differs from the one written");
          break;
        }
      read += r.octets;
      any = true;
    }
    return any;
  }

  // Runs both sides until nothing moves (in process) or once (a device).
  void pump() {
    if (!side->in_process()) now = std::max(now, std::chrono::duration_cast<Time>(Clock::now() - born));
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

namespace {

bool reached_smcr(const Session& s) {
  return s.clc_outcome && s.clc_outcome->kind == clc::OutcomeKind::kSmc && s.clc_outcome->peer;
}

// RFC 7609 §3.5.1.5: the first link's queue pair from what CLC agreed.
bool connect_first_link(Session& s, std::string& error) {
  SmcrPhase& p = *s.smcr;
  if (p.connected) return true;
  const clc::SmcrLink& peer = *s.clc_outcome->peer;
  smcr::Mac mac = 0;
  for (std::uint8_t o : peer.mac) mac = (mac << 8) | o;
  const smcr::PeerPath path{mac, peer.gid, peer.initial_psn, s.clc_outcome->qp_mtu, p.first_psn};
  if (!p.side->connect_first(*p.first.qp, peer.qp_number, path, error)) return false;
  p.connected = true;
  return true;
}

bool started(Session& s, const Step& st, std::string& error) {
  SmcrPhase& p = *s.smcr;
  if (p.started) return true;
  // The tester as SMC server (role initiator): its server takes the IUT's
  // Confirm, the last CLC message that came.
  const bool server = s.clc_server && !s.clc_client;
  if (server && !s.clc_outcome && !s.last_clc_received.empty())
    s.clc_outcome = s.clc_server->on_message(s.last_clc_received).outcome;
  if (!reached_smcr(s))
    return error = "the SMC-R phase follows a CLC handshake that reached SMC-R: clc.proposal, clc.accept, clc.confirm first",
           false;
  const clc::SmcrLink& peer = *s.clc_outcome->peer;
  if (!connect_first_link(s, error)) return false;
  p.started = true;
  p.start_line = st.line;
  p.manual = st.kind == StepKind::kSend && st.unit == "smcr.manual";
  p.peer_token = peer.rmbe_alert_token;
  smcr::Mac mac = 0;
  for (std::uint8_t o : peer.mac) mac = (mac << 8) | o;
  const smcr::RToken peer_rmb{peer.rmb_rkey, peer.rmb_virtual_address};
  if (p.manual) return true;
  smcr::LinkGroupConfig cfg;
  // The tester's side plays the CLC role it had: client against an IUT in
  // role responder, server against one in role initiator.
  cfg.role = server ? smcr::Role::kServer : smcr::Role::kClient;
  cfg.version = s.clc_outcome->version;
  // `> smcr.one_port` first: the tester offers no second RoCE port, so a
  // second link shares its first one (asymmetric, §2.2.1).
  if (!(st.kind == StepKind::kSend && st.unit == "smcr.one_port")) cfg.alternate = p.side->alternate();
  // `> smcr.eyecatcher` first: the tester's CONFIRM LINK keeps A.3.1's
  // reserved flag bits 0, as RFC 7609 has it, and its RMBEs begin with the
  // eyecatcher (§4.4.1, A.4): the IUT's cursors must skip it.
  const bool eyecatcher = st.kind == StepKind::kSend && st.unit == "smcr.eyecatcher";
  cfg.rmbe_eyecatcher = eyecatcher;
  cfg.test_link_time = Time{0};  // the IUT's TEST LINKs are what cases watch
  p.group.emplace(cfg, *p.tap);
  p.group->start({p.first_qp, p.first.address, {mac, peer.gid, peer.qp_number}, p.first.rmb, peer_rmb}, p.now);
  smcr::ConnectionConfig c;
  c.own = {static_cast<std::uint32_t>(p.first.rmb_size), eyecatcher};
  c.peer = {static_cast<std::uint32_t>(peer.rmbe_size), eyecatcher};
  c.own_alert_token = kTesterAlertToken;
  c.peer_alert_token = peer.rmbe_alert_token;
  p.conn.emplace(c, p.tap->rmb(p.first.rmb).first(static_cast<std::size_t>(p.first.rmb_size)));
  p.group->add_connection({kTesterAlertToken, peer_rmb, 0});
  return true;
}

// The link's queue pair the script names (`link=N`; the first link by default).
TapQueuePair* link_qp(SmcrPhase& p, std::uint8_t number) {
  if (!p.group) return number <= 1 ? p.first_qp : nullptr;
  const auto slot = p.group->slot_of(number);
  if (!slot) return nullptr;
  return p.tap->find(p.group->links()[*slot].qp->qp_number());
}

std::optional<std::uint8_t> link_arg(Session& s, const Step& st, std::string& error) {
  const Arg* a = find_arg(st.args, "link");
  if (!a) return 1;
  auto n = number_arg(s, *a);
  if (auto* e = std::get_if<std::string>(&n)) return error = *e, std::nullopt;
  return static_cast<std::uint8_t>(std::get<std::uint64_t>(n));
}

// Every field `args` names set in `m` (the LLC or CDC message of `unit`),
// in the order written; the type last, so that the type's own fields were
// reachable first. An error, or empty.
std::string apply_fields(Session& s, std::vector<std::uint8_t>& m, const std::vector<Arg>& all, std::string_view unit) {
  std::vector<const Arg*> args;
  for (const Arg& a : all)
    if (a.name != "link") args.push_back(&a);
  std::stable_partition(args.begin(), args.end(), [](const Arg* a) { return a->name != "llc.type" && a->name != "cdc.type"; });
  for (const Arg* a : args) {
    std::vector<Block> blocks = message_blocks(m);
    auto hit = find_field(blocks, a->name);
    if (!hit) return "expected a field of " + std::string(unit) + ", got '" + a->name + "'";
    auto v = resolve(a->value, hit->field, s.vars, &s.captures);
    if (auto* e = std::get_if<std::string>(&v)) return *e;
    store(*hit, std::get<Resolved>(v));
  }
  return {};
}

// A message the script sends: the reference encoder's, the tester's own
// values filled in, then every field the step names (units.hpp).
std::variant<std::vector<std::uint8_t>, std::string> build_message(Session& s, const Step& st, std::uint8_t link) {
  SmcrPhase& p = *s.smcr;
  std::vector<std::uint8_t> m;
  const std::uint8_t version = s.clc_outcome ? s.clc_outcome->version : 1;
  if (st.unit == "cdc") {
    smcr::CdcFields c;
    c.alert_token = p.peer_token;
    if (p.conn) {
      c.sequence_number = static_cast<std::uint16_t>(p.conn->last_sequence_sent() + 1);
      c.producer = p.conn->producer();
      c.consumer = p.conn->consumer();
    } else {
      c.sequence_number = 1;
    }
    m = smcr::encode(c);
  } else {
    const auto type = llc_type_of(st.unit);
    if (!type) return "expected an LLC unit, got '" + st.unit + "'";
    TapQueuePair* qp = link_qp(p, link);
    smcr::Llc llc;
    switch (*type) {
      case 1: {
        smcr::ConfirmLink c;
        c.mac = p.first.address.mac;
        c.gid = p.first.address.gid;
        c.qp_number = qp ? qp->qp_number() : 0;
        c.link_number = link;
        c.link_user_id = 0x00020000u + link;
        c.max_links = 2;
        llc = c;
        break;
      }
      case 2: llc = smcr::AddLink{}; break;
      case 3: llc = smcr::AddLinkContinuation{}; break;
      case 4: {
        smcr::DeleteLink d;
        d.link_number = link;
        llc = d;
        break;
      }
      case 6: llc = smcr::ConfirmRkey{}; break;
      case 8: llc = smcr::ConfirmRkeyContinuation{}; break;
      case 9: llc = smcr::DeleteRkey{}; break;
      default: llc = smcr::TestLink{}; break;
    }
    m = smcr::encode(llc, {version, std::nullopt});
  }
  if (std::string e = apply_fields(s, m, st.args, st.unit); !e.empty()) return e;
  return m;
}

StepOutcome error(std::string why) { return {StepOutcome::Kind::kError, std::move(why)}; }

StepOutcome send(Session& s, const Step& st) {
  SmcrPhase& p = *s.smcr;
  const std::string& u = st.unit;
  std::string err;
  if (u == "smcr.manual" || u == "smcr.one_port" || u == "smcr.eyecatcher") {
    // What the tester's side is made of: said before it starts.
    if (st.line != p.start_line) return error("line " + std::to_string(st.line) + ": " + u + " is the first step of the SMC-R phase");
    return {};
  }
  if (u == "smcr.hold") {
    for (const Arg& a : st.args)
      if (const auto type = llc_type_of(a.name)) p.held.insert(*type);
    s.record(true, u, "");
    return {};
  }
  if (u == "smcr.stop_reading" || u == "smcr.resume_reading") {
    p.reading = u == "smcr.resume_reading";
  } else if (u == "smcr.close" || u == "smcr.abort" || u == "smcr.shutdown") {
    if (!p.conn) return error("line " + std::to_string(st.line) + ": " + u + " needs the tester's connection (not smcr.manual)");
    p.emit(u == "smcr.close" ? p.conn->close() : u == "smcr.abort" ? p.conn->abort() : p.conn->shutdown_write());
  } else if (u == "data.write") {
    const Arg* n = find_arg(st.args, "octets");
    if (!n || !p.conn) return error("data.write needs octets=N and the tester's connection");
    auto v = number_arg(s, *n);
    if (auto* e = std::get_if<std::string>(&v)) return error(*e);
    p.to_send += std::get<std::uint64_t>(v);
    p.urgent = find_arg(st.args, "urgent") != nullptr;
  } else if (u == "smcr.tamper") {
    const auto link = link_arg(s, st, err);
    if (!link) return error(err);
    SmcrPhase::Tamper t;
    t.link = *link;
    for (const Arg& a : st.args)
      if (const auto type = llc_type_of(a.name)) t.type = *type, t.unit = a.name;
      else if (a.name != "link") t.args.push_back(a);
    for (const Arg& a : t.args)
      if (a.name == "llc.flags.reply") {
        auto v = number_arg(s, a);
        t.reply = std::holds_alternative<std::uint64_t>(v) && std::get<std::uint64_t>(v) != 0;
      }
    if (!t.type) return error("line " + std::to_string(st.line) + ": smcr.tamper names the LLC unit to change (llc.confirm_link ...)");
    // Every field must be one of that unit's: tried on a message of its type.
    std::vector<std::uint8_t> probe(smcr::kLlcMessageSize);
    probe[0] = t.type;
    if (std::string e = apply_fields(s, probe, t.args, t.unit); !e.empty()) return error("line " + std::to_string(st.line) + ": " + e);
    p.tamper = std::move(t);
  } else if (u == "smcr.overlay_eyecatcher") {
    // §4.4.1: a Write of the tester's lands on the first 4 octets of the
    // IUT's RMBE, its eyecatcher, which no Write may touch (A.4).
    if (!p.group || !p.group->rmbe_eyecatcher())
      return error("line " + std::to_string(st.line) + ": smcr.overlay_eyecatcher needs RMBEs with an eyecatcher (> smcr.eyecatcher first)");
    const std::array<std::uint8_t, smcr::RmbeGeometry::kEyecatcherSize> zeros{};
    if (!p.group->write(kTesterAlertToken, 0, zeros))
      return error("line " + std::to_string(st.line) + ": the tester's link group has no link to write on");
  } else if (u == "smcr.delete_link") {
    // The tester's link group deletes link N (orderly): as server it runs
    // the DELETE LINK exchange, as client it asks (§3.5.5.1.3-4).
    const auto link = link_arg(s, st, err);
    if (!link) return error(err);
    if (!p.group || !p.group->slot_of(*link) || !p.group->delete_link(*link, true, p.now))
      return error("line " + std::to_string(st.line) + ": the tester's link group has no link " + std::to_string(*link) + " to delete");
  } else if (u.starts_with("smcr.iut.")) {
    IutAction a;
    a.kind = u == "smcr.iut.add_rmb"       ? IutAction::Kind::kAddRmb
             : u == "smcr.iut.add_link"    ? IutAction::Kind::kAddLink
             : u == "smcr.iut.delete_link" ? IutAction::Kind::kDeleteLink
                                           : IutAction::Kind::kClose;
    if (a.kind == IutAction::Kind::kDeleteLink) {
      const auto link = link_arg(s, st, err);
      if (!link) return error(err);
      a.link = *link;
    }
    if (!p.side->iut_act(a, err)) return error("line " + std::to_string(st.line) + ": " + err);
  } else if (u == "smcr.break_link" || u == "smcr.stall_link") {
    const auto link = link_arg(s, st, err);
    if (!link) return error(err);
    TapQueuePair* qp = link_qp(p, *link);
    if (!qp) return error("no link " + std::to_string(*link) + " to " + (u == "smcr.stall_link" ? "stall" : "break"));
    if (u == "smcr.stall_link" && !p.side->stall_link(qp->inner()))
      return error("line " + std::to_string(st.line) + ": this RoCE side cannot stall a link (needs: smcr-fabric)");
    if (u == "smcr.break_link" && !p.side->break_link(qp->inner())) return error("no link " + std::to_string(*link) + " to break");
  } else {
    auto link = link_arg(s, st, err);
    if (!link) return error(err);
    // A CDC message goes on the link its connection uses (§4.4), unless the step names one.
    if (u == "cdc" && !find_arg(st.args, "link") && p.group) link = p.group->link_of(kTesterAlertToken).value_or(1);
    auto built = build_message(s, st, *link);
    if (auto* e = std::get_if<std::string>(&built)) return error("line " + std::to_string(st.line) + ": " + *e);
    auto& m = std::get<std::vector<std::uint8_t>>(built);
    TapQueuePair* qp = link_qp(p, *link);
    // A link that was up and is gone now: the IUT ended it before the step.
    if (!qp && p.links_seen.contains(*link))
      return mismatch(Failure::Kind::kNothing, "link " + std::to_string(*link) + " is down before " + u + " could be sent on it",
                      "link " + std::to_string(*link) + " down");
    if (!qp) return error("no link " + std::to_string(*link) + " to send on");
    if (p.group && m.size() >= 4 && m[0] != 0xFE && !(m[3] & smcr::kFlagReply)) p.raw_requests.insert(m[0] & 0x0F);
    s.record(true, u + (m[0] == 0xFE ? "" : " (link " + std::to_string(*link) + ")"), hex(m, 44));
    p.script_sending = true;
    qp->post_send(m);
    p.script_sending = false;
    // The script's CDC message took a sequence number of the tester's
    // connection: its own next message follows it (A.4), or the IUT
    // discards that one (an A included) as old.
    if (m[0] == 0xFE && p.conn)
      if (auto sent = smcr::decode_cdc(m)) p.conn->sequence_taken(sent->sequence_number());
  }
  s.record(true, u, "");
  p.pump();
  return {};
}

// The number of the link whose tester queue pair is `qp` (0: none now).
std::uint64_t link_number_of(const SmcrPhase& p, std::uint32_t qp) {
  if (!p.group) return p.first_qp && p.first_qp->qp_number() == qp ? 1 : 0;
  for (const auto& l : p.group->links())
    if (l.qp && l.qp->qp_number() == qp) return l.number;
  return 0;
}

// Whether `logged` is what the alternative names, with every matcher
// holding; `link=N`: it arrived on link N's queue pair (§3.3).
// A word that says what a match means for the case, not a field to match.
bool ends_case_word(const Arg& a) { return !a.has_value && a.name == "ends_case"; }

bool matches(Session& s, const Alternative& alt, SmcrPhase::Logged& logged, std::string& why) {
  std::vector<std::uint8_t>& m = logged.octets;
  if (m.empty()) return false;
  if (alt.unit == "cdc") {
    if (m[0] != 0xFE) return false;
  } else {
    const auto type = llc_type_of(alt.unit);
    if (!type || m[0] == 0xFE || (m[0] & 0x0F) != *type) return false;
  }
  std::vector<Block> blocks = message_blocks(m);
  // `field=@name` binds what the IUT sent the first time, when the whole
  // alternative matches (as the other suites' expectations do).
  Captures captures = s.captures;
  for (const Arg& a : alt.args) {
    if (ends_case_word(a)) continue;
    if (a.value.kind == Value::Kind::kCapture && !captures.contains(a.value.text) && a.name != "link") {
      auto hit = find_field(blocks, a.name);
      if (!hit) return why = "no field " + a.name + " in " + alt.unit, false;
      captures[a.value.text] = capture(*hit);
      continue;
    }
    if (a.name == "link") {
      auto n = number_arg(s, a);
      const std::uint64_t have = link_number_of(*s.smcr, logged.qp);
      if (std::holds_alternative<std::string>(n) || have != std::get<std::uint64_t>(n))
        return why = alt.unit + " came on link " + std::to_string(have), false;
      continue;
    }
    auto hit = find_field(blocks, a.name);
    if (!hit) return why = "no field " + a.name + " in " + alt.unit, false;
    auto v = resolve(a.value, hit->field, s.vars, &captures);
    if (auto* e = std::get_if<std::string>(&v)) return why = *e, false;
    const Resolved& want = std::get<Resolved>(v);
    bool ok;
    if (a.op == Op::kEq || a.op == Op::kNone || a.op == Op::kNe) {
      ok = holds(*hit, want) != a.negate();
    } else {
      const auto have = numeric_value(*hit);
      ok = have && want.number && compare(*have, a.op, *want.number);
    }
    if (!ok) return why = alt.unit + " " + a.name + " is " + show(*hit) + " (" + hex(m, 44) + ")", false;
  }
  s.captures = std::move(captures);
  return true;
}

bool event_matches(Session& s, const Alternative& alt, const smcr::Event& e) {
  using K = smcr::Event::Kind;
  const K want = alt.unit == "smcr.link_up" ? K::kLinkUp : alt.unit == "smcr.link_deleted" ? K::kLinkDeleted : K::kTerminated;
  if (e.kind != want) return false;
  for (const Arg& a : alt.args) {
    if (ends_case_word(a)) continue;
    auto n = number_arg(s, a);
    if (std::holds_alternative<std::string>(n)) return false;
    const std::uint64_t v = std::get<std::uint64_t>(n);
    if (a.name == "link" && e.link != v) return false;
    if (a.name == "reason" && e.reason != v) return false;
  }
  return true;
}

// One alternative against what arrived; consumes what it skipped.
bool take(Session& s, const Alternative& alt, std::string& why) {
  SmcrPhase& p = *s.smcr;
  // Asked only once the step is over: in process a quiet fabric is final;
  // a device had the step's whole time bound to send something.
  if (alt.unit == "silence") {
    if (p.received != p.received_mark) why = "the IUT sent " + hex(p.last_received, 44);
    return p.received == p.received_mark;
  }
  if (alt.unit == "data") {
    const Arg* n = find_arg(alt.args, "octets");
    auto v = n ? number_arg(s, *n) : std::variant<std::uint64_t, std::string>(std::uint64_t{0});
    return std::holds_alternative<std::uint64_t>(v) && p.read >= std::get<std::uint64_t>(v);
  }
  if (alt.unit.starts_with("smcr.")) {
    for (auto it = p.events.begin(); it != p.events.end(); ++it)
      if (event_matches(s, alt, *it)) {
        p.events.erase(p.events.begin(), it + 1);
        return true;
      }
    return false;
  }
  auto& log = alt.unit == "cdc" ? p.cdc : p.llc;
  for (auto it = log.begin(); it != log.end(); ++it)
    if (matches(s, alt, *it, why)) {
      s.record(false, alt.unit + " (link " + std::to_string(link_number_of(p, it->qp)) + ")", hex(it->octets, 44));
      log.erase(log.begin(), it + 1);
      return true;
    }
  return false;
}

// Whether an LLC message of `unit` in SMC-R `version` has the field (a
// script written for version 1 names llc.length, which version 2's header
// splits in two).
bool field_in_version(std::string_view unit, std::string_view field, std::uint8_t version) {
  const auto type = llc_type_of(unit);
  if (field == "link" || !type) return true;
  std::vector<std::uint8_t> m(smcr::kLlcMessageSize);
  m[0] = static_cast<std::uint8_t>((version >= 2 ? 0x20 : 0x00) | *type);
  return find_field(message_blocks(m), field).has_value();
}

}  // namespace

std::string smcr_field_missing_in(const Case& c, std::uint8_t version) {
  auto missing = [version](const std::string& unit, const std::vector<Arg>& args) -> std::string {
    for (const Arg& a : args)
      if (!field_in_version(unit, a.name, version)) return unit + " " + a.name;
    return {};
  };
  for (const Step& st : c.steps) {
    if (st.kind == StepKind::kSend)
      if (auto m = missing(st.unit, st.args); !m.empty()) return m;
    for (const Alternative& alt : st.alternatives)
      if (auto m = missing(alt.unit, alt.args); !m.empty()) return m;
  }
  return {};
}

namespace {

// What the tester's own transport noticed on the way (a device's refused
// work or failed completions): a case that waited in vain says whether the
// tester's side was in the way, not only that nothing came.
std::string transport_notes(SmcrPhase& p) {
  const std::vector<std::string> notes = p.side->take_notes();
  if (notes.empty()) return {};
  std::string out = "; the tester's RoCE side noted: ";
  constexpr std::size_t kShown = 8;
  for (std::size_t i = 0; i < notes.size() && i < kShown; ++i) out += (i ? "; " : "") + notes[i];
  if (notes.size() > kShown) out += " (and " + std::to_string(notes.size() - kShown) + " more)";
  return out;
}

StepOutcome expect(Session& s, const Step& st) {
  SmcrPhase& p = *s.smcr;
  // A matcher no message of the link's version can hold is the script's
  // trouble, not the IUT's (a run's --smcr-version other than the script's).
  const std::uint8_t version = s.clc_outcome ? s.clc_outcome->version : 1;
  for (const Alternative& alt : st.alternatives)
    for (const Arg& a : alt.args)
      if (!field_in_version(alt.unit, a.name, version))
        return error("line " + std::to_string(st.line) + ": " + alt.unit + " of SMC-R version " +
                     std::to_string(version) + " has no field " + a.name +
                     " (the script is written for another version than the run's --smcr-version)");
  const auto deadline = Clock::now() + s.scaled(st.within.value_or(Duration(2000)));
  std::string why;
  // `ends_case`: the IUT took a path the RFC allows that settles the case.
  const auto passed = [&p](const Alternative& alt) -> StepOutcome {
    p.received_mark = p.received;
    return {StepOutcome::Kind::kOk, {}, find_arg(alt.args, "ends_case") != nullptr};
  };
  for (;;) {
    p.pump();
    if (p.problems.size() > p.problems_reported) {
      p.problems_reported = p.problems.size();
      return mismatch(Failure::Kind::kField, "the IUT broke a rule the tester's SMC-R peer checks: " + p.problems.back(),
                      p.problems.back());
    }
    for (const Alternative& alt : st.alternatives)
      if (alt.unit != "silence" && take(s, alt, why)) return passed(alt);
    const bool over = p.side->in_process() || Clock::now() > deadline;
    if (over) {
      for (const Alternative& alt : st.alternatives)
        if (alt.unit == "silence" && take(s, alt, why)) return passed(alt);
      return mismatch(why.empty() ? Failure::Kind::kNothing : Failure::Kind::kField,
                      "expected " + expected_text(st) + (why.empty() ? "; nothing such came" : "; " + why) +
                          transport_notes(p),
                      why.empty() ? "nothing" : why);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

bool smcr_unit_known(std::string_view unit, bool sending) {
  if (llc_type_of(unit) || unit == "cdc") return true;
  if (sending) return std::find(std::begin(kControlUnits), std::end(kControlUnits), unit) != std::end(kControlUnits);
  return std::find(std::begin(kEventUnits), std::end(kEventUnits), unit) != std::end(kEventUnits);
}

bool smcr_field_known(std::string_view unit, std::string_view field) {
  if (unit == "data.write") return field == "octets" || field == "urgent";
  if (unit == "data") return field == "octets";
  if (unit == "smcr.hold") return llc_type_of(field).has_value();  // the LLC units the script answers itself
  if (unit == "smcr.tamper")  // the LLC unit to change and fields of some LLC unit (send() checks them against it)
    return field == "link" || llc_type_of(field) ||
           std::any_of(std::begin(kLlcUnits), std::end(kLlcUnits), [&](const LlcUnit& u) { return smcr_field_known(u.unit, field); });
  if (unit.starts_with("smcr.")) return field == "link" || field == "reason";
  if (field == "link") return true;
  std::vector<std::uint8_t> m(smcr::kLlcMessageSize);
  m[0] = unit == "cdc" ? 0xFE : llc_type_of(unit).value_or(0);
  return find_field(message_blocks(m), field).has_value();
}

bool is_smcr_step(const Session& s, const Step& st) {
  const auto ours = [](std::string_view u) {
    return u.starts_with("llc.") || u == "cdc" || u == "data" || u.starts_with("data.") || u.starts_with("smcr.");
  };
  if (st.kind == StepKind::kSend) return ours(st.unit);
  if (st.kind == StepKind::kWait) return s.smcr && s.smcr->started;
  if (st.kind != StepKind::kExpect || st.alternatives.empty()) return false;
  const bool any = std::any_of(st.alternatives.begin(), st.alternatives.end(), [&](const Alternative& a) { return ours(a.unit); });
  // `< silence` belongs to the phase once it began.
  return any || (s.smcr && s.smcr->started && st.alternatives.front().unit == "silence");
}

bool smcr_prepare_clc(Session& s, clc::SmcrLink& link, std::string& error) {
  if (!s.o.roce) return error = "no RoCE transport for the smcr suite", false;
  auto p = std::make_shared<SmcrPhase>();
  p->side = s.o.roce({s.result.exchange.tester_address, s.result.exchange.iut_address}, error);
  if (!p->side) return false;
  auto first = p->side->first_link(kTesterRmbeSize, error);
  if (!first) return false;
  p->first = *first;
  p->tap = std::make_unique<TapHost>(p->side->host());
  p->first_qp = p->tap->adopt(*first->qp);
  SmcrPhase* raw = p.get();
  p->tap->incoming = [raw](smcr::QueuePair& qp, std::vector<std::uint8_t>& m) { return raw->on_receive(qp, m); };
  p->first_psn = link.initial_psn;
  if (!p->side->in_process()) {
    // A device's IUT keeps its link group with the tester until it finds
    // the peer gone; a Peer ID of each case's own (App. A.2.2: a 2-octet
    // instance, then the RoCE MAC) keeps every case a first contact
    // rather than a connection on an earlier case's link group, of this
    // run or of one before it (the instances start where chance puts them).
    static std::atomic<std::uint16_t> instance{static_cast<std::uint16_t>(std::random_device{}())};
    link.peer_id = std::uint64_t{++instance} << 48 | (first->address.mac & 0xFFFFFFFFFFFFull);
  }
  // The session owns the phase: it outlives this tap.
  p->tap->outgoing = [raw, &s](smcr::QueuePair& qp, std::vector<std::uint8_t>& m) {
    if (!raw->tamper || raw->script_sending || m.size() < smcr::kLlcMessageSize || m[0] == 0xFE) return true;
    const SmcrPhase::Tamper& t = *raw->tamper;
    const bool reply = (m[3] & smcr::kFlagReply) != 0;
    if ((m[0] & 0x0F) != t.type || reply != t.reply || link_number_of(*raw, qp.qp_number()) != t.link) return true;
    (void)apply_fields(s, m, t.args, t.unit);  // send() tried them on a message of this type
    raw->tamper.reset();
    return true;
  };
  link.qp_number = first->qp->qp_number();
  link.rmb_rkey = first->rtoken.rkey;
  link.rmb_virtual_address = first->rtoken.virtual_address;
  link.rmbe_size = first->rmb_size;
  link.rmbe_alert_token = kTesterAlertToken;
  std::copy(first->address.gid.begin(), first->address.gid.end(), link.gid.begin());
  for (int i = 0; i < 6; ++i) link.mac[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(first->address.mac >> (40 - 8 * i));
  s.smcr = std::move(p);
  return true;
}

bool smcr_before_confirm(Session& s, std::string& error) {
  // In process the IUT's side exists only once it took the Confirm.
  if (!s.smcr || s.smcr->side->in_process() || !reached_smcr(s)) return true;
  return connect_first_link(s, error);
}

StepOutcome run_smcr_step(Session& s, const Step& st) {
  if (!s.smcr) return error("line " + std::to_string(st.line) + ": SMC-R steps need a case of the smcr suite");
  std::string err;
  if (!started(s, st, err)) return error("line " + std::to_string(st.line) + ": " + err);
  switch (st.kind) {
    case StepKind::kSend: return send(s, st);
    case StepKind::kExpect: return expect(s, st);
    case StepKind::kWait: s.smcr->advance(s.smcr->side->in_process() ? st.duration : s.scaled(st.duration)); return {};
    default: return {};
  }
}

}  // namespace rdmaconf::conformance::runner
