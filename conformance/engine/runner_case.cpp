// One case from connecting to its verdict (docs/conformance.md): run_case
// opens the case's connection, runs its steps in order (runner.cpp runs
// each) until one does not pass, one ends the case or its timeout passes,
// then grades the outcome, records what a failure needs for findings and
// judges the exchange for rules broken in passing.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "engine/engine.hpp"
#include "engine/in_passing.hpp"
#include "engine/needs.hpp"
#include "engine/runner_session.hpp"

namespace rdmaconf::conformance {
namespace runner {
namespace {

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

// The case's steps in order until one does not pass, one ends the case or
// the case's timeout passes: the outcome, and the step it came from.
struct StepsRun {
  StepOutcome outcome;
  int line = 0;
  const Step* last = nullptr;
};
StepsRun run_steps(Session& s, const Case& c) {
  StepsRun run;
  const auto case_deadline = Clock::now() + s.scaled(c.timeout);
  for (const Step& st : c.steps) {
    run.line = st.line;
    run.last = &st;
    if (Clock::now() > case_deadline) {
      run.outcome = mismatch(Failure::Kind::kNothing, "the case did not finish within its timeout", "nothing");
      break;
    }
    run.outcome = run_step(s, st);
    if (run.outcome.kind != StepOutcome::Kind::kOk || run.outcome.ends_case) break;
  }
  return run;
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
void add_in_passing(CaseResult& result, const Case& c, bool strict) {
  result.in_passing = judge_in_passing(result.exchange, c.role);
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
  if (const std::string* need = lacked_need(c, o.iut_lacks)) {
    result.verdict = Verdict::kUnimplemented;
    result.reason = "the IUT lacks '" + *need + "' (--iut-lacks or the agent's capabilities)";
    return result;
  }
  Session s(c, o, result);
  if (c.protocol == "clc") s.phase = Phase::kClc;
  std::string error;
  const Connector& conn = c.role == Role::kInitiator ? o.accept_initiator
                          : (c.protocol == "clc" && o.connect_clc) ? o.connect_clc
                                                                   : o.connect_responder;
  if (!conn) {
    result.verdict = Verdict::kError;
    result.reason = "no connection for role " + std::string(to_string(c.role));
    return result;
  }
  s.fd = conn(c, error);
  if (s.fd < 0) {
    result.verdict = Verdict::kError;
    result.reason = error;
    return result;
  }
  s.start = Clock::now();
  note_connection(s, result);
  if (c.protocol == "clc") {
    // The identity the tester's messages carry; scripts compare the IUT's
    // prefix with the tester's ($clc.ipv4_subnet): peers on one LAN share it.
    s.identity = resolve_identity(o.clc_identity, s.fd);
    s.vars["clc.ipv4_subnet"] = s.identity.ipv4.subnet;
    s.vars["clc.ipv4_prefix_len"] = s.identity.ipv4.prefix_length;
  }
  result.configuration = o.configuration;
  const double agent_t0 = o.agent ? o.agent->now_ms() : 0;
  const std::uint64_t agent_epoch = o.agent ? o.agent->epoch() : 0;
  if (o.agent) o.agent->begin_case(result.exchange.tester_address, result.exchange.iut_address);

  StepsRun run = run_steps(s, c);
  if (s.fd >= 0) ::close(s.fd);
  if (o.agent) collect_agent_view(*o.agent, result, agent_t0, s.scaled(o.agent_settle));
  result.duration_ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
  result.verdict = script_verdict(run.outcome.kind, c, o.strict);
  if (run.outcome.kind != StepOutcome::Kind::kOk) {
    result.reason = run.outcome.reason;
    result.failed_line = run.line;
  }
  if (run.outcome.kind == StepOutcome::Kind::kMismatch) record_failure(result, run, s);
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
