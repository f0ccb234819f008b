// The smcr suite's SMC-R phase (runner_smcr.hpp): its start after CLC, the
// LLC and CDC messages a script sends, the data it moves and the actions it
// asks of both sides. The phase's state is runner_smcr_phase.hpp; the
// expectations are runner_smcr_expect.cpp.
#include "engine/runner_smcr.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "engine/runner_smcr_phase.hpp"
#include "engine/smcr_transport.hpp"
#include "smcr/connection.hpp"
#include "smcr/encode.hpp"
#include "smcr/link_group.hpp"
#include "smcr/messages.hpp"

namespace rdmaconf::conformance::runner {

namespace {

constexpr std::string_view kControlUnits[] = {"smcr.manual",         "smcr.close",          "smcr.abort",
                                              "smcr.shutdown",       "smcr.stop_reading",   "smcr.resume_reading",
                                              "smcr.break_link",     "smcr.hold",           "data.write",
                                              "smcr.iut.add_rmb",    "smcr.iut.delete_link", "smcr.iut.close",
                                              "smcr.iut.add_link",
                                              "smcr.one_port",       "smcr.delete_link",    "smcr.tamper",
                                              "smcr.eyecatcher",     "smcr.overlay_eyecatcher", "smcr.stall_link"};
constexpr std::string_view kEventUnits[] = {"smcr.link_up", "smcr.link_deleted", "smcr.terminated", "smcr.failover", "data"};

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

// The tester's connection `k` of the group: its element of the tester's RMB
// and the IUT's RMBE the CLC handshake named (§4.1, App. A.2.3: element
// index i is at (i - 1) times the element size), routed by the link group.
bool open_connection(SmcrPhase& p, std::size_t k, const clc::SmcrLink& peer, bool eyecatcher) {
  SmcrPhase::Conn& conn = p.conns[k];
  conn.own_token = kTesterAlertToken + static_cast<std::uint32_t>(k);
  conn.peer_token = peer.rmbe_alert_token;
  conn.peer_rmbe = {peer.rmb_rkey, peer.rmb_virtual_address, peer.rmbe_index};
  smcr::ConnectionConfig c;
  c.own = {static_cast<std::uint32_t>(kTesterRmbeSize), eyecatcher};
  c.peer = {static_cast<std::uint32_t>(peer.rmbe_size), eyecatcher};
  c.own_alert_token = conn.own_token;
  c.peer_alert_token = peer.rmbe_alert_token;
  conn.conn.emplace(c, p.tap->rmb(p.first.rmb).subspan(k * kTesterRmbeSize, static_cast<std::size_t>(kTesterRmbeSize)));
  const std::uint64_t peer_offset = (std::max<std::uint8_t>(peer.rmbe_index, 1) - 1) * peer.rmbe_size;
  return p.group->add_connection({conn.own_token, {peer.rmb_rkey, peer.rmb_virtual_address}, peer_offset});
}

// rfc7609-4.4.2-rmbe-reuse-after-close: the RMBE the IUT's CLC names for
// connection `k` is none a connection of the group still holds: one the
// tester has not seen end on both sides (its machine's Closed). An IUT
// whose close timer gave up on the tester's close resets that TCP
// connection first (§4.8.1), which ends the case's connection.
void judge_rmbe(SmcrPhase& p, std::size_t k, const clc::SmcrLink& peer) {
  std::vector<check::RmbeHolder> held;
  std::vector<std::size_t> number;  // held[i] is connection number[i]
  for (std::size_t i = 0; i < p.conns.size(); ++i)
    if (i != k && p.conns[i].conn) {
      held.push_back({p.conns[i].peer_rmbe, p.conns[i].conn->state() == smcr::ConnectionState::kClosed});
      number.push_back(i + 1);
    }
  const check::RmbeName named{peer.rmb_rkey, peer.rmb_virtual_address, peer.rmbe_index};
  if (const auto v = check::rmbe_reuse_after_close(named, held))
    p.problem("the IUT's CLC names RMBE " + std::to_string(peer.rmbe_index) + " for connection " + std::to_string(k + 1) +
              " while connection " + std::to_string(number[*check::rmbe_holder(named, held)]) + " still holds it" +
              row_of(v));
}

// `connection N` (N > 1): the connection its CLC handshake set up on the
// group connection 1 has (§3.5.2), from the step that first acts on it.
bool started_later(Session& s, std::string& error) {
  SmcrPhase& p = *s.smcr;
  if (p.conns[s.smcr_connection].conn) return true;
  if (!reached_smcr(s))
    return error = "connection " + std::to_string(s.smcr_connection + 1) +
                   "'s SMC-R steps follow its CLC handshake: clc.proposal, clc.accept, clc.confirm first",
           false;
  if (!p.group || p.manual) return error = "a later connection needs the tester's link group (not smcr.manual)", false;
  if (s.clc_outcome->first_contact)
    return error = "connection " + std::to_string(s.smcr_connection + 1) +
                   ": the CLC handshake set first contact, a link group other than connection 1's",
           false;
  if (!p.side->await_connection(s.smcr_connection, error)) return false;
  judge_rmbe(p, s.smcr_connection, *s.clc_outcome->peer);
  if (!open_connection(p, s.smcr_connection, *s.clc_outcome->peer, p.group->rmbe_eyecatcher()))
    return error = "the IUT's Accept or Confirm names an RMB or alert token the tester's link group cannot route", false;
  return true;
}

bool started(Session& s, const Step& st, std::string& error) {
  if (s.smcr_connection > 0) return started_later(s, error);
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
  p.llc_version = s.clc_outcome->version;
  p.conns[0].peer_token = peer.rmbe_alert_token;
  p.iut_end = clc::LinkGroupPeer{peer.peer_id, peer.gid, peer.mac, peer.qp_number};
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
  // The group's first wait (the IUT's CONFIRM LINK, kLlcWaitTime) runs from
  // now, not from the phase's last pump: before the first smcr step nothing
  // pumped, and an IUT whose Accept came late (Linux's held ~2 s while the
  // previous case's ADD LINK waited for its answer) had the tester's group
  // give up on its first link before reading the CONFIRM LINK already there.
  p.tick();
  p.group.emplace(cfg, *p.tap);
  p.group->start({p.first_qp, p.first.address, {mac, peer.gid, peer.qp_number}, p.first.rmb, peer_rmb}, p.now);
  open_connection(p, 0, peer, eyecatcher);
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
    const SmcrPhase::Conn& k = smcr_conn(s);
    c.alert_token = k.peer_token;
    if (k.conn) {
      c.sequence_number = static_cast<std::uint16_t>(k.conn->last_sequence_sent() + 1);
      c.producer = k.conn->producer();
      c.consumer = k.conn->consumer();
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
  SmcrPhase::Conn& k = smcr_conn(s);
  if (u == "smcr.stop_reading" || u == "smcr.resume_reading") {
    k.reading = u == "smcr.resume_reading";
  } else if (u == "smcr.close" || u == "smcr.abort" || u == "smcr.shutdown") {
    if (!k.conn) return error("line " + std::to_string(st.line) + ": " + u + " needs the tester's connection (not smcr.manual)");
    p.emit(k, u == "smcr.close" ? k.conn->close() : u == "smcr.abort" ? k.conn->abort() : k.conn->shutdown_write());
  } else if (u == "data.write") {
    const Arg* n = find_arg(st.args, "octets");
    if (!n || !k.conn) return error("data.write needs octets=N and the tester's connection");
    auto v = number_arg(s, *n);
    if (auto* e = std::get_if<std::string>(&v)) return error(*e);
    k.to_send += std::get<std::uint64_t>(v);
    k.urgent = find_arg(st.args, "urgent") != nullptr;
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
    if (!p.group->write(k.own_token, 0, zeros))
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
    a.connection = s.smcr_connection;
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
    if (u == "smcr.break_link") {
      // Which connections the IUT was writing over this link, before its
      // queue pair goes (§4.6.1: those it must move with F).
      for (SmcrPhase::Conn& c : p.conns) c.on_broken_link = c.iut_qp != 0 && c.iut_qp == qp->qp_number();
      if (!p.side->break_link(qp->inner())) return error("no link " + std::to_string(*link) + " to break");
      p.broken_link = *link;
      p.broken_at = p.received_serial;
    }
  } else {
    auto link = link_arg(s, st, err);
    if (!link) return error(err);
    // A CDC message goes on the link its connection uses (§4.4), unless the step names one.
    if (u == "cdc" && !find_arg(st.args, "link") && p.group) link = p.group->link_of(k.own_token).value_or(1);
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
    if (m[0] == 0xFE && k.conn)
      if (auto sent = smcr::decode_cdc(m)) {
        k.conn->sequence_taken(sent->sequence_number());
        using F = smcr::CdcSpec::Field;
        if (sent->header.get(F::C) || sent->header.get(F::A)) k.ended_by_script = true, k.to_send = 0;
      }
  }
  s.record(true, u, "");
  p.pump();
  return {};
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

// `connection N` (N > 1) of a case whose connection 1 runs a link group:
// its CLC reuses that group (§3.5.2), naming the same Peer ID and link end
// as connection 1 and an RMBE and alert token of its own (§4.1).
bool prepare_reuse(Session& s, clc::SmcrLink& link, std::string& error) {
  SmcrPhase& p = *s.smcr_reuse;
  if (!p.group || !p.iut_end)
    return error = "connection " + std::to_string(s.smcr_connection + 1) +
                   " reuses connection 1's link group: connection 1's SMC-R phase runs first",
           false;
  if (p.conns.size() >= kTesterRmbes)
    return error = "the tester's RMB has " + std::to_string(kTesterRmbes) + " RMBEs: at most that many connections", false;
  s.smcr_connection = p.conns.size();
  p.conns.emplace_back();
  link = p.clc_link;
  link.rmbe_index = static_cast<std::uint8_t>(s.smcr_connection + 1);
  link.rmbe_alert_token = kTesterAlertToken + static_cast<std::uint32_t>(s.smcr_connection);
  s.smcr = s.smcr_reuse;
  return true;
}

bool smcr_prepare_clc(Session& s, clc::SmcrLink& link, std::string& error) {
  if (s.smcr_reuse) return prepare_reuse(s, link, error);
  if (!s.o.roce) return error = "no RoCE transport for the smcr suite", false;
  auto p = std::make_shared<SmcrPhase>();
  p->side = s.o.roce({s.result.exchange.tester_address, s.result.exchange.iut_address}, error);
  if (!p->side) return false;
  auto first = p->side->first_link(kTesterRmbeSize * kTesterRmbes, error);
  if (!first) return false;
  p->first = *first;
  p->tap = std::make_unique<TapHost>(p->side->host());
  p->first_qp = p->tap->adopt(*first->qp);
  SmcrPhase* raw = p.get();
  p->tap->incoming = [raw](smcr::QueuePair& qp, std::vector<std::uint8_t>& m) { return raw->on_receive(qp, m); };
  p->first_psn = link.initial_psn;
  {
    // A device's IUT keeps its link group with the tester until it finds
    // the peer gone, and the reference IUT keeps its own while the case
    // runs, beside the cases running at the same time; a Peer ID of each
    // case's own (App. A.2.2: a 2-octet instance, then the RoCE MAC) keeps
    // every case a first contact rather than a connection on another
    // case's link group, of this run or of one before it (the instances
    // start where chance puts them). The case's `connection N` reuses it.
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
  link.rmbe_size = kTesterRmbeSize;
  link.rmbe_index = 1;
  link.rmbe_alert_token = kTesterAlertToken;
  std::copy(first->address.gid.begin(), first->address.gid.end(), link.gid.begin());
  for (int i = 0; i < 6; ++i) link.mac[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(first->address.mac >> (40 - 8 * i));
  p->clc_link = link;
  s.smcr = std::move(p);
  return true;
}

std::optional<clc::LinkGroupPeer> smcr_reused_group(const Session& s) {
  if (!s.smcr || s.smcr_connection == 0 || !s.smcr->iut_end) return std::nullopt;
  // The IUT as server may put the connection on any link of the group
  // (§3.5.2.1): its ends of the links added since connection 1's CLC too.
  clc::LinkGroupPeer g = *s.smcr->iut_end;
  g.other_links.clear();
  if (s.smcr->group)
    for (const auto& l : s.smcr->group->links()) {
      if (l.state != smcr::LinkGroup::LinkState::kActive || l.peer.qp == g.qp_number) continue;
      clc::LinkGroupLinkEnd e;
      e.gid = l.peer.gid;
      for (std::size_t i = 0; i < e.mac.size(); ++i)
        e.mac[i] = static_cast<std::uint8_t>(l.peer.mac >> (8 * (e.mac.size() - 1 - i)));
      e.qp_number = l.peer.qp;
      g.other_links.push_back(e);
    }
  return g;
}

std::optional<clc::SmcrLink> smcr_own_end(const smcr::LinkGroup& g, std::uint32_t rmb, const clc::SmcrLink& iut) {
  for (const auto& l : g.links()) {
    if (l.state != smcr::LinkGroup::LinkState::kActive || !l.qp || l.peer.qp != iut.qp_number || l.peer.gid != iut.gid)
      continue;
    const std::optional<smcr::RToken> rt = g.local_rtoken(rmb, l.number);
    if (!rt) return std::nullopt;  // the RMB is not registered on that link (yet)
    clc::SmcrLink own;
    own.gid = l.local.gid;
    for (std::size_t i = 0; i < own.mac.size(); ++i)
      own.mac[i] = static_cast<std::uint8_t>(l.local.mac >> (8 * (own.mac.size() - 1 - i)));
    own.qp_number = l.qp->qp_number();
    own.rmb_rkey = rt->rkey;
    own.rmb_virtual_address = rt->virtual_address;
    return own;
  }
  return std::nullopt;
}

void smcr_confirm_link(const Session& s, clc::AcceptConfirm& confirm) {
  if (!s.smcr || s.smcr_connection == 0 || !s.smcr->group || !confirm.smcr || !s.clc_outcome || !s.clc_outcome->peer)
    return;
  const std::optional<clc::SmcrLink> own = smcr_own_end(*s.smcr->group, s.smcr->first.rmb, *s.clc_outcome->peer);
  if (!own) return;
  using F = clc::SmcrAcceptConfirmSpec::Field;
  confirm.smcr->set_octets(F::Gid, own->gid);
  confirm.smcr->set_octets(F::Mac, own->mac);
  confirm.smcr->set(F::QpNumber, own->qp_number);
  confirm.smcr->set(F::RmbRkey, own->rmb_rkey);
  confirm.smcr->set(F::RmbVirtualAddress, own->rmb_virtual_address);
}

bool smcr_before_confirm(Session& s, std::string& error) {
  // In process the IUT's side exists only once it took the Confirm.
  if (!s.smcr || s.smcr->side->in_process() || !reached_smcr(s)) return true;
  return connect_first_link(s, error);
}

bool smcr_tend(Session& s) {
  if (!s.smcr || !s.smcr->group || !s.smcr->side || s.smcr->side->in_process()) return false;
  s.smcr->pump();
  return true;
}

void smcr_close_before_fin(Session& s) {
  if (!s.smcr || !s.smcr->group || s.smcr->manual || s.fd < 0) return;
  SmcrPhase& p = *s.smcr;
  if (s.smcr_connection >= p.conns.size() || p.group->state() != smcr::LinkGroup::State::kActive) return;
  SmcrPhase::Conn& k = p.conns[s.smcr_connection];
  if (!k.conn || k.ended_by_script) return;
  k.to_send = 0;  // the case is over: the script's data still queued stays unsent
  p.emit(k, k.conn->close());  // nothing when this side's C or A came before
  // The C follows the data the connection still holds (3A); the FIN waits
  // for the Send of the connection's last CDC message (this C, or a C or A
  // the connection made before, which the link group may still hold) to
  // complete, as rxe and a NIC send from a queue of their own: a posted
  // Send may leave after a FIN written now.
  const auto sent = [&] {
    return k.conn->queued() == 0 && p.group->sequence_sent(k.own_token) == k.conn->last_sequence_sent();
  };
  if (p.side->in_process()) return p.pump();
  const auto until = Clock::now() + s.scaled(kSmcrCloseWait);
  while (!sent() && Clock::now() < until && p.group->state() == smcr::LinkGroup::State::kActive) {
    p.pump();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

StepOutcome run_smcr_step(Session& s, const Step& st) {
  if (!s.smcr) return error("line " + std::to_string(st.line) + ": SMC-R steps need a case of the smcr suite");
  std::string err;
  if (!started(s, st, err)) return error("line " + std::to_string(st.line) + ": " + err);
  switch (st.kind) {
    case StepKind::kSend: return send(s, st);
    case StepKind::kExpect: return smcr_expect(s, st);
    case StepKind::kWait: s.smcr->advance(s.smcr->side->in_process() ? st.duration : s.waited(st)); return {};
    default: return {};
  }
}

}  // namespace rdmaconf::conformance::runner
