// One case from connecting to its verdict (docs/conformance.md): run_case
// opens the case's connection (and the others its `connection N` steps
// name), runs its steps in order (runner.cpp runs each) until one does not
// pass, one ends the case or its timeout passes, then grades the outcome,
// records what a failure needs for findings and judges every connection's
// exchange for rules broken in passing.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "engine/engine.hpp"
#include "engine/in_passing.hpp"
#include "engine/needs.hpp"
#include "engine/runner_session.hpp"
#include "engine/runner_sctp.hpp"
#include "engine/runner_smcr.hpp"

namespace rdmaconf::conformance {
namespace runner {
namespace {

// RunOptions::llp: the ddp and rdmap suites' cases over SCTP.
bool carried_by_sctp(const Case& c, const RunOptions& o) {
  return o.llp == RunOptions::Llp::kSctp && (c.protocol == "ddp" || c.protocol == "rdmap");
}

// "192.0.2.1:4000" for an IPv4 socket address, "?" otherwise.
std::string address_text(const sockaddr_storage& sa) {
  if (sa.ss_family != AF_INET) return "?";
  char host[INET6_ADDRSTRLEN] = {};
  const auto* in = reinterpret_cast<const sockaddr_in*>(&sa);
  ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
}

// The connection the case runs on: both ends' addresses for the exchange,
// Nagle off so each step's frames leave when sent.
void note_connection(Session& s, CaseResult& result) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(s.fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) result.exchange.tester_address = address_text(a);
  len = sizeof a;
  if (::getpeername(s.fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) result.exchange.iut_address = address_text(a);
  int one = 1;
  ::setsockopt(s.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Opens a connection of the case: the TCP connection, its addresses, the
// CLC identity the tester's messages carry on it, and the agent told of it.
bool open_connection(Session& s, CaseResult& result, std::string& error) {
  const Case& c = s.c;
  const RunOptions& o = s.o;
  // The ddp and rdmap suites over SCTP: an association instead of a TCP connection.
  if (carried_by_sctp(c, o)) return sctp_ddp_open(s, error);
  if (uses_clc(c.protocol)) s.phase = Phase::kClc;
  const Connector& conn = c.role == Role::kInitiator ? o.accept_initiator
                          : (uses_clc(c.protocol) && o.connect_clc) ? o.connect_clc
                                                                   : o.connect_responder;
  if (!conn) {
    error = "no connection for role " + std::string(to_string(c.role));
    return false;
  }
  s.fd = conn(c, error);
  if (s.fd < 0) return false;
  s.start = Clock::now();
  note_connection(s, result);
  if (uses_clc(c.protocol)) {
    // The identity the tester's messages carry; scripts compare the IUT's
    // prefix with the tester's ($clc.ipv4_subnet): peers on one LAN share it.
    s.identity = resolve_identity(o.clc_identity, s.fd);
    s.vars["clc.ipv4_subnet"] = s.identity.ipv4.subnet;
    s.vars["clc.ipv4_prefix_len"] = s.identity.ipv4.prefix_length;
  }
  if (o.agent) o.agent->begin_case(result.exchange.tester_address, result.exchange.iut_address);
  return true;
}

// The case's connections to the IUT (docs/conformance.md, "More than one
// connection"). The first is the case's own: its exchange is the result's.
// `connection N` opens the Nth when first named; each keeps its own
// exchange, frames and MPA or CLC state until run_case joins them to the
// result. What the IUT advertised on connection K is named $K.NAME on
// every connection (`$1.rw.stag`); captures (`@name`) hold across them.
struct Connections {
  struct Other {
    CaseResult result;
    std::unique_ptr<Session> session;
  };
  Session& first;
  std::vector<std::unique_ptr<Other>> others;  // connection N is others[N - 2]
  Session* current = &first;

  explicit Connections(Session& s) : first(s) {}
  Session& number(std::size_t n) { return n == 1 ? first : *others[n - 2]->session; }
  std::size_t count() const { return 1 + others.size(); }

  StepOutcome go_to(const Step& st) {
    const auto n = static_cast<std::size_t>(st.connection);
    if (n > count() + 1) return {StepOutcome::Kind::kError, "line " + std::to_string(st.line) + ": connection " +
                                                                std::to_string(count() + 1) + " is not open yet"};
    if (n == count() + 1) {
      auto other = std::make_unique<Other>();
      other->result.c = first.result.c;
      other->session = std::make_unique<Session>(first.c, first.o, other->result);
      other->session->smcr_reuse = first.smcr;  // the smcr suite: connection 1's link group (§3.5.2)
      std::string error;
      if (!open_connection(*other->session, other->result, error))
        return {StepOutcome::Kind::kError, "connection " + std::to_string(n) + ": " + error};
      other->session->start = first.start;  // its frames on the case's clock
      others.push_back(std::move(other));
    }
    Session& to = number(n);
    for (std::size_t k = 1; k <= count(); ++k)
      for (const auto& [name, value] : number(k).vars)
        if (!std::isdigit(static_cast<unsigned char>(name.front()))) to.vars[std::to_string(k) + "." + name] = value;
    for (const auto& [name, value] : current->captures) to.captures.insert_or_assign(name, value);
    current = &to;
    return {};
  }
};

// The case's steps in order until one does not pass, one ends the case or
// the case's timeout passes: the outcome, and the step it came from (on the
// connection it ran on).
struct StepsRun {
  StepOutcome outcome;
  int line = 0;
  const Step* last = nullptr;
  const Session* on = nullptr;
};
StepsRun run_steps(Connections& conns, const Case& c) {
  StepsRun run;
  // The case's time scales as its steps do: a `wait ... unscaled` (the
  // IUT's own timer) adds its time as written, the rest scales.
  Duration unscaled{0};
  for (const Step& st : c.steps)
    if (st.kind == StepKind::kWait && st.unscaled) unscaled += st.duration;
  const auto case_deadline = Clock::now() + conns.first.scaled(c.timeout - std::min(unscaled, c.timeout)) + unscaled;
  // The last `connection` step: what follows it is the case's last
  // question, which `after_close: skip` does not skip (Session).
  const auto last_connection = std::find_if(c.steps.rbegin(), c.steps.rend(),
                                            [](const Step& st) { return st.kind == StepKind::kConnection; });
  for (const Step& st : c.steps) {
    run.line = st.line;
    run.last = &st;
    run.on = conns.current;
    if (Clock::now() > case_deadline) {
      run.outcome = mismatch(Failure::Kind::kNothing, "the case did not finish within its timeout", "nothing");
      break;
    }
    run.outcome = st.kind == StepKind::kConnection ? conns.go_to(st) : run_step(*conns.current, st);
    if (run.outcome.kind != StepOutcome::Kind::kOk || run.outcome.ends_case) break;
    if (last_connection != c.steps.rend() && &st == &*last_connection) {
      // A connection the IUT closed earlier fails here rather than skip.
      conns.current->last_connection = true;
      conns.current->skipping = false;
    }
  }
  return run;
}

// A case of several connections: each frame names its connection ("[2]
// --> ..."), all in the order they crossed the wire; the others' exchanges
// and what the IUT reported of them join the first's.
void join_connections(CaseResult& result, Connections& conns) {
  if (conns.others.empty()) return;
  auto numbered = [](std::vector<FrameRecord>& frames, std::size_t n) {
    for (FrameRecord& f : frames) f.headline = "[" + std::to_string(n) + "] " + f.headline;
  };
  numbered(result.frames, 1);
  for (std::size_t k = 0; k < conns.others.size(); ++k) {
    CaseResult& other = conns.others[k]->result;
    numbered(other.frames, k + 2);
    result.frames.insert(result.frames.end(), other.frames.begin(), other.frames.end());
    result.agent.insert(result.agent.end(), other.agent.begin(), other.agent.end());
    result.other_connections.push_back(std::move(other.exchange));
  }
  std::stable_sort(result.frames.begin(), result.frames.end(),
                   [](const FrameRecord& a, const FrameRecord& b) { return a.at_ms < b.at_ms; });
  std::stable_sort(result.agent.begin(), result.agent.end(),
                   [](const AgentEvent& a, const AgentEvent& b) { return a.at_ms < b.at_ms; });
}

// The script's verdict: a mismatch fails a MUST case, a SHOULD case only
// under --strict (non-strict otherwise), and informs for a MAY case.
Verdict script_verdict(StepOutcome::Kind kind, const Case& c, bool strict) {
  switch (kind) {
    case StepOutcome::Kind::kOk: return Verdict::kPass;
    case StepOutcome::Kind::kUnimplemented: return Verdict::kUnimplemented;
    case StepOutcome::Kind::kError: return Verdict::kError;
    case StepOutcome::Kind::kMismatch: break;
  }
  return is_mandatory(c.level)    ? Verdict::kFail
         : is_recommended(c.level) ? (strict ? Verdict::kFail : Verdict::kNonStrict)
                                   : Verdict::kInformational;
}

// A mismatch as findings read it (engine.hpp, Failure): the step, what it
// expected, and the tester's last stimulus.
void record_failure(CaseResult& result, StepsRun& run, const Session& s) {
  Failure& f = result.failure.emplace(std::move(run.outcome.failure));
  f.line = run.line;
  if (const Step* st = run.last) {
    f.step = st->text;
    if (st->kind == StepKind::kExpect) {
      f.expected = expected_text(*st);
      f.expected_class = expected_text(*st, true);
    } else if (st->kind == StepKind::kHandshake) {
      f.expected = f.expected_class = "mpa.reply r=0";
    }
  }
  f.stimulus = s.last_sent.unit;
  f.stimulus_fields = s.last_sent.fields;
  f.stimulus_octets = s.last_sent.octets;
}

// Rules the IUT broke on the wire whatever the case was written for
// (in_passing.hpp): the worst of them makes the verdict when it is worse
// than the script's.
// Over SCTP (the sctp suite, --transport sctp) each connection's record
// holds its association.
void add_in_passing(CaseResult& result, const Case& c, bool strict) {
  const auto judge = [&](const ExchangeRecord& ex) {
    return ex.sctp ? judge_in_passing(*ex.sctp, c.role) : judge_in_passing(ex, c.role);
  };
  result.in_passing = judge(result.exchange);
  // The other connections' rules, each rule once (its first connection's
  // example and offsets, every connection's count).
  const auto merge = [&](std::vector<InPassing> broken) {
    for (InPassing& p : broken) {
      auto same = std::find_if(result.in_passing.begin(), result.in_passing.end(),
                               [&](const InPassing& q) { return q.rule == p.rule; });
      if (same == result.in_passing.end()) result.in_passing.push_back(std::move(p));
      else same->count += p.count;
    }
  };
  for (const ExchangeRecord& ex : result.other_connections) merge(judge(ex));
  const Verdict v = in_passing_verdict(result.in_passing, strict);
  if (severity(v) <= severity(result.verdict)) return;
  const InPassing& worst = *std::find_if(result.in_passing.begin(), result.in_passing.end(), [&](const InPassing& p) {
    return in_passing_verdict({p}, strict) == v;
  });
  std::string why = "in passing: " + worst.rule + " (" + worst.level + ", " + worst.section + "): " + worst.text;
  if (!worst.hint.empty()) why += " (hint: " + worst.hint + ")";
  if (!result.reason.empty()) why += "; the case itself: " + result.reason;
  result.reason = std::move(why);
  result.verdict = v;
}

}  // namespace
}  // namespace runner

CaseResult run_case(const Case& c, const RunOptions& o) {
  using namespace runner;
  CaseResult result;
  result.c = &c;
  const auto started = Clock::now();
  if (const std::string* need = lacked_need(c, o.iut_lacks, o.smcr_version)) {
    result.verdict = Verdict::kUnimplemented;
    result.reason = "the IUT lacks '" + *need + "' (--iut-lacks or the agent's capabilities)";
    return result;
  }
  if (c.protocol == "smcr" && o.smcr_version != 0)
    if (const std::string field = smcr_field_missing_in(c, o.smcr_version); !field.empty()) {
      result.verdict = Verdict::kUnimplemented;
      result.reason = "the script names " + field + ", which SMC-R version " + std::to_string(o.smcr_version) +
                      " (the run's --smcr-version) has not";
      return result;
    }
  if (carried_by_sctp(c, o)) {
    // What only MPA over TCP can show, said from the script (needs.hpp).
    if (const std::string why = mpa_bound(c); !why.empty()) {
      result.verdict = Verdict::kUnimplemented;
      result.reason = "not over SCTP (RFC 5043): " + why;
      return result;
    }
  }
  Session s(c, o, result);
  std::string error;
  // The sctp suite runs on an SCTP association, not a TCP connection.
  if (c.protocol == "sctp" ? !sctp_open(s, error) : !open_connection(s, result, error)) {
    result.verdict = Verdict::kError;
    result.reason = error;
    return result;
  }
  result.configuration = o.configuration;
  const double agent_t0 = o.agent ? o.agent->now_ms() : 0;
  const std::uint64_t agent_epoch = o.agent ? o.agent->epoch() : 0;

  Connections conns(s);
  StepsRun run = run_steps(conns, c);
  // RFC 7609 §4.8.1: a connection's SMC-R close before its TCP FIN.
  smcr_close_before_fin(s);
  if (s.fd >= 0) ::close(s.fd);
  for (auto& other : conns.others) {
    smcr_close_before_fin(*other->session);
    if (other->session->fd >= 0) ::close(other->session->fd);
  }
  // The IUT's own view is tied to TCP connections; an sctp case has none.
  if (o.agent && !s.sctp) {
    collect_agent_view(*o.agent, result, agent_t0, s.scaled(o.agent_settle));
    for (auto& other : conns.others) collect_agent_view(*o.agent, other->result, agent_t0, s.scaled(o.agent_settle));
  }
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  result.verdict = script_verdict(run.outcome.kind, c, o.strict);
  if (run.outcome.kind != StepOutcome::Kind::kOk) {
    result.reason = run.outcome.reason;
    result.failed_line = run.line;
  }
  if (run.outcome.kind == StepOutcome::Kind::kMismatch) record_failure(result, run, *run.on);
  keep_sctp_record(s);
  for (auto& other : conns.others) keep_sctp_record(*other->session);
  join_connections(result, conns);
  result.script_verdict = result.verdict;
  // A case the tester could not run says nothing of rules broken in passing.
  if (o.judge_in_passing && result.verdict != Verdict::kError) add_in_passing(result, c, o.strict);
  // The agent went away during the case: the IUT's side was torn down
  // under it, so no verdict about the IUT stands.
  if (o.agent && o.agent->epoch() != agent_epoch && result.verdict != Verdict::kUnimplemented) {
    result.reason = "lost the agent during the case (it stopped or restarted)" +
                    (result.reason.empty() ? std::string() : "; " + result.reason);
    result.verdict = Verdict::kError;
  }
  return result;
}

}  // namespace rdmaconf::conformance
