// The wire fuzzer's run: iterations, oracles, minimization, findings
// (fuzzer.hpp).
#include "wirefuzz/fuzzer.hpp"

#include <algorithm>
#include <climits>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/probe.hpp"
#include "wirefuzz/case_text.hpp"
#include "wirefuzz/minimize.hpp"
#include "wirefuzz/sequence.hpp"

namespace rdmaconf::conformance::wirefuzz {

std::string_view to_string(Finding::Kind k) {
  switch (k) {
    case Finding::Kind::kUnresponsive: return "unresponsive";
    case Finding::Kind::kRuleBroken: return "rule-broken";
    case Finding::Kind::kHostUnhealthy: return "host-unhealthy";
  }
  return "unresponsive";
}

std::optional<Input> make_input(const std::vector<Case>& fuzz_seeds, std::uint64_t seed, std::uint64_t n) {
  if (fuzz_seeds.empty()) return std::nullopt;
  Rng rng = iteration_rng(seed, n);
  const Case& from = fuzz_seeds[rng.below(fuzz_seeds.size())];
  Input in{from, from.id.substr(0, from.id.size() - std::string_view("-fuzz").size()), {}};
  // Mostly one mutation, so that what a finding needs stays small; now and
  // then two or three, for what only a combination reaches.
  const int count = rng.chance(25) ? 2 + static_cast<int>(rng.below(2)) : 1;
  in.mutations = mutate(in.c, rng, count);
  in.c.id += "-" + std::to_string(seed) + "-" + std::to_string(n);
  return in;
}

namespace {

using Clock = std::chrono::steady_clock;

// What one run of a fuzz case came to.
struct Ran {
  enum class Outcome : std::uint8_t {
    kNothing,      // the IUT took it and still answers
    kSkipped,      // the case could not run as written (unbuildable, unimplemented on this connection)
    kFinding,      // an oracle fired
    kDeadAtStart,  // the case's own first handshake got no answer: the IUT was gone before it began
  };
  Outcome outcome = Outcome::kNothing;
  Finding::Kind kind = Finding::Kind::kUnresponsive;
  std::string what, rule;
  std::vector<std::string> host_log;
  std::shared_ptr<Case> c;  // the case as parsed from its text (the result points into it)
  CaseResult result;
};

class Fuzzer {
 public:
  explicit Fuzzer(const FuzzOptions& o) : o_(o) {
    // One connector, whichever role the run's seeds have.
    ro_.connect_responder = ro_.connect_clc = ro_.accept_initiator = o.connect;
    ro_.jobs = 1;
    ro_.time_scale = o.time_scale;
    ro_.iut_lacks = o.iut_lacks;
    ro_.clc_identity = o.clc_identity;
    ro_.judge_in_passing = true;
  }

  FuzzSummary run();

 private:
  Ran run_case_text(const Case& c);
  bool answers();
  bool wait_for_iut();
  bool same(const Case& cand, const Ran& want, Ran& out, int& runs, bool& dead);
  bool makes(const Ran& out, const Ran& want);
  std::size_t run_sequence(const std::vector<Case>& inputs, const Ran& want, Ran& last, bool& dead);
  std::vector<Case> from_history(Finding& f, const Ran& want, const std::vector<Case>& inputs, Ran& last, bool& dead);
  void write(Finding& f, const Ran& last);
  bool handle(const Input& in, Ran found);
  bool delayed(const Input& previous, const Ran& previous_run, std::uint64_t n, const std::string& why);
  void progress(bool force);
  std::string gone(bool host = false) const;

  const FuzzOptions& o_;
  RunOptions ro_;
  FuzzSummary summary_;
  // The inputs run since the IUT was last restored or came back, in order
  // (at most FuzzOptions::history): what a finding that takes several is
  // tried from.
  std::deque<Case> history_;
  // Why the last restore failed (FuzzOptions::restore): what ends the run.
  std::string restore_failed_;
  // Restored, and no input run since: a try needs no restore of its own
  // (a device's restore may be a reboot of minutes).
  bool fresh_ = false;
  Clock::time_point start_ = Clock::now(), last_progress_ = Clock::now();
};

// Prints the case, parses that text and runs it: what ran is exactly what a
// reproducer holds. Then the oracles.
Ran Fuzzer::run_case_text(const Case& c) {
  Ran r;
  fresh_ = false;
  auto parsed = parse_script(case_text(c), c.id + ".case");
  auto* cases = std::get_if<std::vector<Case>>(&parsed);
  if (!cases || cases->size() != 1) {
    r.outcome = Ran::Outcome::kSkipped;
    return r;
  }
  r.c = std::make_shared<Case>(std::move(cases->front()));
  r.c->protocol = c.protocol;
  if (!check_case(*r.c).empty()) {
    r.outcome = Ran::Outcome::kSkipped;
    return r;
  }
  r.result = run_case(*r.c, ro_);
  // The host first: a crashed kernel explains an IUT that stopped answering.
  if (o_.host_health) {
    if (std::optional<HostProblem> p = o_.host_health()) {
      r.outcome = Ran::Outcome::kFinding;
      r.kind = Finding::Kind::kHostUnhealthy;
      r.what = std::move(p->what);
      r.rule = std::move(p->signature);
      r.host_log = std::move(p->log);
      return r;
    }
  }
  const CaseResult& res = r.result;
  const std::size_t tail = liveness_step(*r.c);
  const int tail_line = tail < r.c->steps.size() ? r.c->steps[tail].line : INT_MAX;
  const bool failed = res.script_verdict == Verdict::kFail || res.script_verdict == Verdict::kError;
  const int first_line = r.c->steps.empty() ? 0 : r.c->steps.front().line;
  // The case's first step shows the IUT there at all: the responder's
  // handshake, the initiator's Request (fuzz_case reads it as one).
  auto shows_iut = [](const Step& st) {
    return st.kind == StepKind::kHandshake ||
           (st.kind == StepKind::kExpect && !st.alternatives.empty() && st.alternatives.front().unit == "mpa.request");
  };
  const bool first_shows_iut = !r.c->steps.empty() && shows_iut(r.c->steps.front());
  if (res.verdict == Verdict::kError && res.exchange.tester_address.empty()) {
    // No connection at all (refused, nobody connected in time): gone
    // before the case began.
    r.outcome = Ran::Outcome::kDeadAtStart;
    r.what = res.reason;
  } else if (failed && res.failed_line >= tail_line) {
    r.outcome = Ran::Outcome::kFinding;
    r.kind = Finding::Kind::kUnresponsive;
    r.what = "the IUT stopped answering: " + res.reason;
  } else if (failed && res.failed_line == first_line && first_shows_iut &&
             (res.script_verdict == Verdict::kError ||
              (res.failure && res.failure->kind != Failure::Kind::kField && res.failure->kind != Failure::Kind::kUnit))) {
    r.outcome = Ran::Outcome::kDeadAtStart;
    r.what = res.reason;
  } else if (res.script_verdict != Verdict::kPass) {
    r.outcome = Ran::Outcome::kSkipped;
  } else if (!res.in_passing.empty()) {
    const InPassing& p = res.in_passing.front();
    r.outcome = Ran::Outcome::kFinding;
    r.kind = Finding::Kind::kRuleBroken;
    r.rule = p.rule;
    r.what = p.rule + " (" + p.level + ", " + p.section + "): " + p.text;
  }
  return r;
}

// Does the IUT answer, as the run's liveness checks ask it (FuzzTarget)?
// The responder and the CLC server by the run's probe (probe.hpp); the
// initiator by connecting once more and sending its Request.
bool Fuzzer::answers() {
  switch (o_.shape.target) {
    case FuzzTarget::kMpaResponder:
      return probe_target(ProbeProtocol::kMpa, o_.connect, ro_).outcome == ProbeResult::Outcome::kSpeaks;
    case FuzzTarget::kClcServer:
      return probe_target(ProbeProtocol::kClc, o_.connect, ro_).outcome == ProbeResult::Outcome::kSpeaks;
    case FuzzTarget::kMpaInitiator: {
      Case probe;
      probe.id = "mpa-fuzz-initiator-probe";
      probe.protocol = "mpa";
      probe.role = Role::kInitiator;
      Step request;
      request.kind = StepKind::kExpect;
      request.alternatives.push_back({"mpa.request", {}});
      probe.steps.push_back(request);
      const CaseResult r = run_case(probe, ro_);
      return r.script_verdict == Verdict::kPass && !r.exchange.tester_address.empty();
    }
  }
  return false;
}

// After the IUT stopped answering: probe it until it answers again (a
// supervisor restarted it) or FuzzOptions::revive passes. With a view of
// its host, the host must be healthy again too (a crashed kernel: booted
// again), or what follows would be judged on a broken host.
bool Fuzzer::wait_for_iut() {
  // A target the fuzzer can restore is restored at once, and answers as it
  // did when the run began. A restore that failed ends the run: going on
  // would judge inputs on a target in an unknown state.
  if (o_.restore) {
    std::string why;
    if (!o_.restore(why)) {
      restore_failed_ = why.empty() ? "the IUT could not be restored" : "the IUT could not be restored: " + why;
      return false;
    }
    restore_failed_.clear();
  }
  const auto deadline = Clock::now() + o_.revive;
  for (;;) {
    const bool healthy = !o_.host_health || !o_.host_health();
    if (healthy && answers()) {
      history_.clear();
      fresh_ = static_cast<bool>(o_.restore);
      return true;
    }
    if (Clock::now() >= deadline || (o_.cancel && o_.cancel->load())) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

// Runs a candidate of the minimization: true when it makes the same finding
// (the same oracle, the same rule). Whatever silenced the IUT is waited out.
// For an IUT that stopped answering, a target the fuzzer can restore is
// restored first: what earlier candidates left in it must not make the
// finding for this one. A rule broken on the wire is judged on what the IUT
// sends on the candidate's own connection, and the IUT still answers: no
// restore (a device's may be a reboot of minutes, one per candidate).
bool Fuzzer::same(const Case& cand, const Ran& want, Ran& out, int& runs, bool& dead) {
  ++runs;
  if (o_.restore && !fresh_ && want.kind != Finding::Kind::kRuleBroken && !wait_for_iut()) {
    dead = true;
    return false;
  }
  out = run_case_text(cand);
  const bool silenced = out.outcome == Ran::Outcome::kDeadAtStart ||
                        (out.outcome == Ran::Outcome::kFinding && out.kind != Finding::Kind::kRuleBroken);
  if (silenced && !wait_for_iut()) dead = true;
  return out.outcome == Ran::Outcome::kFinding && out.kind == want.kind && out.rule == want.rule;
}

// Did this run make the finding `want`? The same oracle and rule; an IUT
// that stopped answering may show so at the next input's first step.
bool Fuzzer::makes(const Ran& out, const Ran& want) {
  if (out.outcome == Ran::Outcome::kFinding) return out.kind == want.kind && out.rule == want.rule;
  return want.kind == Finding::Kind::kUnresponsive && out.outcome == Ran::Outcome::kDeadAtStart && !answers();
}

// Runs `inputs` in order on a restored IUT: how many of them it took to make
// the finding `want` again (0: none did, or another finding came first).
std::size_t Fuzzer::run_sequence(const std::vector<Case>& inputs, const Ran& want, Ran& last, bool& dead) {
  if (!fresh_ && !wait_for_iut()) {
    dead = true;
    return 0;
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Ran out = run_case_text(inputs[i]);
    // As the run did (Fuzzer::run): a handshake refused by an IUT that
    // answers the probe at once refused only this handshake's settings (siw
    // closes on a Request with more private data than it takes), and the
    // inputs after it go on. Stopping there would leave them out, and a
    // sequence that made the finding in the run would not make it here.
    if (out.outcome == Ran::Outcome::kDeadAtStart) {
      if (answers()) continue;
      if (want.kind != Finding::Kind::kUnresponsive) return 0;
      last = std::move(out);
      return i + 1;
    }
    if (makes(out, want)) {
      last = std::move(out);
      return i + 1;
    }
    if (out.outcome == Ran::Outcome::kFinding && out.kind != Finding::Kind::kRuleBroken) return 0;
  }
  return 0;
}

// The last step the tester sends before the liveness check: its unit and
// the names of the fields it sets.
std::string last_exchange_step(const Case& c) {
  const auto sends = send_steps(c);
  if (sends.empty()) return "the handshake";
  const Step& st = c.steps[sends.back()];
  std::vector<std::string> names;
  for (const Arg& a : st.args) names.push_back(a.name);
  std::sort(names.begin(), names.end());
  std::string out = "> " + st.unit;
  for (const std::string& n : names) out += " " + n;
  return out;
}

// The id a printed case script names (its `id:` line).
std::string script_id(const std::string& script) {
  for (std::size_t at = 0; at < script.size();) {
    const std::size_t end = std::min(script.find('\n', at), script.size());
    if (script.compare(at, 3, "id:") == 0) {
      const std::size_t from = script.find_first_not_of(' ', at + 3);
      if (from < end) return script.substr(from, end - from);
    }
    at = end + 1;
  }
  return "finding";
}

void Fuzzer::write(Finding& f, const Ran& last) {
  if (f.scripts.empty()) f.scripts = {f.script};
  if (o_.out_dir.empty()) return;
  namespace fs = std::filesystem;
  const std::string id = last.c ? last.c->id : script_id(f.scripts.back());
  const fs::path folder = fs::path(o_.out_dir) / (std::to_string(summary_.findings.size() + 1) + "-" + id);
  std::error_code ec;
  fs::create_directories(folder, ec);
  // One script per input; several are numbered in the order they run
  // (01-..., 02-...: a listing of the folder sorts them so).
  const std::size_t n = f.scripts.size();
  const std::size_t width = std::to_string(n).size() < 2 ? 2 : std::to_string(n).size();
  std::vector<std::string> files;
  for (std::size_t k = 0; k < n; ++k) {
    std::string number = std::to_string(k + 1);
    files.push_back(n == 1 ? script_id(f.scripts[k]) + ".case"
                           : std::string(width - number.size(), '0') + number + "-" + script_id(f.scripts[k]) + ".case");
  }
  // Where `rdmaconf run` meets the IUT in this target's role, and the
  // options this run ran with that the script needs as well; several
  // scripts run one at a time, in the order given (-j 1).
  const char* where = o_.shape.target == FuzzTarget::kClcServer     ? " --clc-target HOST:PORT"
                      : o_.shape.target == FuzzTarget::kMpaInitiator ? " --listen ADDR:PORT"
                                                                     : " --target HOST:PORT";
  std::string reproduce = "rdmaconf run" + std::string(n > 1 ? " -j 1" : "");
  for (const std::string& file : files) reproduce += " --case-file " + file;
  reproduce += where + o_.run_options;
  // A script's line must fit the parser's bound (4,096 characters: script.cpp);
  // a hundred inputs do not. Then the shell lists them: the numbers are
  // zero-padded, so the names sort in the order they run.
  if (reproduce.size() + 16 > 4096)
    reproduce = "rdmaconf run -j 1 $(printf -- '--case-file %s ' [0-9]*-*.case)" + std::string(where) + o_.run_options;
  for (std::size_t k = 0; k < n; ++k) {
    std::ofstream out(folder / files[k]);
    out << "# Found by rdmaconf fuzz (seed " << summary_.seed << ", iteration " << f.iteration << ", from " << f.seed
        << "): " << f.what << "\n# Signature: " << f.signature;
    if (n > 1)
      out << "\n# Input " << (k + 1) << " of " << n
          << (f.reproduced ? ": the finding takes these inputs, in this order, on an IUT as it starts (each alone "
                             "does not make it)"
              : f.sequence_tried
                  ? ": the inputs the fuzzer ran since the IUT last started, in order, the last one finding it; not "
                    "reproduced by the fuzzer (run once more in this order on a restored IUT, they did not make it "
                    "again: it takes more than these inputs, such as their timing): run them in this order on an IUT "
                    "as it starts"
                  : ": the inputs the fuzzer ran since the IUT last started, in order, the last one finding it; not "
                    "reproduced by the fuzzer (it could not restore the IUT): run them in this order on an IUT as it "
                    "starts");
    if (n == 1) {
      out << "\n# Mutations:";
      for (const std::string& m : f.mutations) out << "\n#   " << m;
    }
    out << "\n# Reproduce: " << reproduce << "\n" << f.scripts[k];
  }
  f.folder = folder.string();
  // The kernel's own words about it, as the host logged them.
  if (!f.host_log.empty()) {
    std::ofstream log(folder / "kernel.txt");
    for (const std::string& line : f.host_log) log << line << "\n";
  }
  if (o_.pcap && last.c) (void)o_.pcap(folder.string(), last.result);
}

// A finding its one input does not make again: the inputs run since the IUT
// was last restored (`inputs`, ending with the one that found it), in order,
// on a restored IUT. When they make it, the fewest of them (sequence.hpp),
// then each minimized as one input is, within another `minimize_budget`
// runs; when the IUT cannot be restored, they are the reproducer as they ran.
std::vector<Case> Fuzzer::from_history(Finding& f, const Ran& want, const std::vector<Case>& inputs, Ran& last,
                                       bool& dead) {
  auto texts = [](const std::vector<Case>& cases) {
    std::vector<std::string> out;
    for (const Case& c : cases) out.push_back(case_text(c));
    return out;
  };
  if (!o_.restore || dead) {
    f.scripts = texts(inputs);
    return inputs;
  }
  int budget = o_.minimize_budget;
  Ran out;
  --budget;
  ++f.minimize_runs;
  const std::size_t took = run_sequence(inputs, want, out, dead);
  f.sequence_tried = !dead || took != 0;
  if (took == 0) {
    f.scripts = texts(inputs);
    return inputs;
  }
  last = std::move(out);
  std::vector<Case> seq(inputs.begin(), inputs.begin() + static_cast<std::ptrdiff_t>(took));
  const std::vector<std::size_t> keep = fewest_inputs(
      seq.size(),
      [&](const std::vector<std::size_t>& pick) -> std::size_t {
        if (dead) return 0;
        std::vector<Case> cand;
        for (std::size_t i : pick) cand.push_back(seq[i]);
        ++f.minimize_runs;
        Ran o;
        const std::size_t t = run_sequence(cand, want, o, dead);
        if (t != 0) last = std::move(o);
        return t;
      },
      budget);
  std::vector<Case> fewest;
  for (std::size_t i : keep) fewest.push_back(seq[i]);
  seq = std::move(fewest);
  // Each input as small as it stays, the others unchanged around it.
  for (std::size_t j = seq.size(); j-- > 0 && budget > 0 && !dead;) {
    seq[j] = minimize(
        seq[j],
        [&](const Case& cand) {
          std::vector<Case> s = seq;
          s[j] = cand;
          --budget;
          ++f.minimize_runs;
          Ran o;
          if (run_sequence(s, want, o, dead) == 0) return false;
          last = std::move(o);
          return true;
        },
        [&] { return budget > 0 && !dead; });
  }
  if (!dead) {
    Ran again;
    // Made at its last input, or (the IUT's timing) one earlier: either way
    // these inputs run in order make it.
    f.reproduced = run_sequence(seq, want, again, dead) != 0;
    if (f.reproduced) last = std::move(again);
  }
  f.scripts = texts(seq);
  f.script = f.scripts.back();
  // Leave the IUT as it starts for the inputs that follow.
  if (!dead && !wait_for_iut()) dead = true;
  return seq;
}

// A finding of iteration `in`: minimized (once the IUT answers again),
// merged by signature, written. False when the run cannot go on.
bool Fuzzer::handle(const Input& in, Ran found) {
  // What ran since the IUT was last restored, this input last.
  const std::vector<Case> inputs(history_.begin(), history_.end());
  Finding f;
  f.kind = found.kind;
  f.seed = in.seed_id;
  f.iteration = summary_.progress.iterations - 1;
  f.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  for (const Mutation& m : in.mutations) f.mutations.push_back(m.what);
  f.what = found.what;
  f.rule = found.rule;
  f.host_log = found.host_log;
  f.found_script = case_text(*found.c);
  auto merge = [&](const std::string& signature) {
    auto same_sig = std::find_if(summary_.findings.begin(), summary_.findings.end(),
                                 [&](const Finding& g) { return g.signature == signature; });
    if (same_sig == summary_.findings.end()) return false;
    ++same_sig->count;
    return true;
  };
  const bool host = found.kind == Finding::Kind::kHostUnhealthy;
  const bool silenced = found.kind != Finding::Kind::kRuleBroken;
  auto count_kind = [&] {
    if (host) ++summary_.progress.host;
    else if (silenced) ++summary_.progress.unresponsive;
  };
  if (silenced && !wait_for_iut()) {
    f.signature = host ? f.rule : "stops answering after " + last_exchange_step(*found.c);
    f.script = f.found_script;
    // Not minimized, not reproduced: what ran since the IUT last started,
    // for whoever starts it again (the harness, on a fresh boot).
    bool dead = true;
    if (inputs.size() > 1) from_history(f, found, inputs, found, dead);
    write(f, found);
    summary_.findings.push_back(f);
    count_kind();
    summary_.progress.findings = summary_.findings.size();
    if (o_.on_finding) o_.on_finding(f);
    summary_.stopped = gone(host);
    return false;
  }
  // A rule broken merges by the rule alone, a host problem by its signature
  // (the kernel's stack), before any minimizing.
  if (!silenced && merge("breaks " + f.rule)) return true;
  if (host && merge(f.rule)) return true;
  bool dead = false;
  Ran last = found;
  // On a target restored before every try, an IUT that stopped answering
  // is first asked whether its input alone, on a restored IUT, silences it
  // again (one run): when not, that input is not minimized alone, since
  // every candidate would cost a restore (a device's: a driver reload, a
  // reboot) and none could make it; the inputs before it may (below).
  bool alone = true;
  if (o_.restore && silenced && inputs.size() > 1) {
    Ran again;
    alone = same(*found.c, found, again, f.minimize_runs, dead);
    if (alone) last = std::move(again);
  }
  const Case minimal = !alone ? *found.c : minimize(
      *found.c,
      [&](const Case& cand) {
        Ran out;
        if (!same(cand, found, out, f.minimize_runs, dead)) return false;
        last = std::move(out);
        return true;
      },
      [&] { return f.minimize_runs < o_.minimize_budget && !dead; });
  f.signature = host       ? f.rule
                : silenced ? "stops answering after " + last_exchange_step(minimal)
                           : "breaks " + f.rule;
  f.script = case_text(minimal);
  if (!dead && merge(f.signature)) return true;
  // One input alone did not make a finding of this signature before, and a
  // sequence did: this is that finding again (its sequence is not tried anew).
  if (!dead && silenced) {
    auto known = std::find_if(summary_.findings.begin(), summary_.findings.end(),
                              [&](const Finding& g) { return g.alone_signature == f.signature; });
    if (known != summary_.findings.end()) {
      ++known->count;
      return !o_.restore || wait_for_iut();
    }
  }
  if (!dead && alone) {
    Ran again;
    int runs = 0;
    f.reproduced = same(minimal, found, again, runs, dead);
    if (f.reproduced) last = std::move(again);
  }
  // One input alone does not make it: the inputs before it may (a target
  // the fuzzer can restore; docs/fuzzing.md, "Findings that take several
  // inputs").
  if (!f.reproduced && !dead && o_.restore && inputs.size() > 1) {
    const std::vector<Case> seq = from_history(f, found, inputs, last, dead);
    if (seq.size() > 1 && f.reproduced && silenced && !host) {
      f.alone_signature = f.signature;
      f.signature = "stops answering after " + std::to_string(seq.size()) + " inputs:";
      for (const Case& c : seq) f.signature += (&c == &seq.front() ? " " : "; ") + last_exchange_step(c);
      if (merge(f.signature)) return true;
    }
  }
  // What the kernel said when the reproducer ran is its log.
  if (f.reproduced && host && !last.host_log.empty()) f.host_log = last.host_log;
  write(f, last);
  summary_.findings.push_back(f);
  count_kind();
  summary_.progress.findings = summary_.findings.size();
  if (o_.on_finding) o_.on_finding(f);
  if (dead) summary_.stopped = gone();
  return !dead;
}

// The IUT answered iteration n-1's liveness check but not iteration n's
// first handshake: it died after that check (a crash that takes its time,
// a timer), most likely of what iteration n-1 sent. A finding of its own,
// written as that iteration ran (a delay is not minimized: a shorter case
// may end before the IUT dies); on a target the fuzzer can restore, the
// inputs since it was last restored, iteration n's last, are tried as a
// sequence (from_history).
bool Fuzzer::delayed(const Input& previous, const Ran& previous_run, std::uint64_t n, const std::string& why) {
  const std::vector<Case> inputs(history_.begin(), history_.end());
  Finding f;
  f.kind = Finding::Kind::kUnresponsive;
  f.seed = previous.seed_id;
  f.iteration = n - 1;
  f.seconds = std::chrono::duration<double>(Clock::now() - start_).count();
  for (const Mutation& m : previous.mutations) f.mutations.push_back(m.what);
  // A case the engine could not run as written stopped at its first step
  // after opening its connection: it never reached its liveness check.
  f.what = previous_run.outcome == Ran::Outcome::kSkipped
               ? "the engine could not run this case past its first steps (it opened its connection and closed it), "
                 "and the next case's first handshake got no answer: " + why
               : "the IUT answered this case's liveness check, then not the next case's first handshake: " + why;
  f.found_script = f.script = previous_run.c ? case_text(*previous_run.c) : case_text(previous.c);
  f.signature = "stops answering some time after " + last_exchange_step(previous_run.c ? *previous_run.c : previous.c);
  auto same_sig = std::find_if(summary_.findings.begin(), summary_.findings.end(),
                               [&](const Finding& g) { return g.signature == f.signature; });
  if (same_sig != summary_.findings.end()) {
    ++same_sig->count;
    if (wait_for_iut()) return true;
    summary_.stopped = gone();
    return false;
  }
  bool dead = !wait_for_iut();
  Ran last = previous_run, want;
  want.outcome = Ran::Outcome::kFinding;
  want.kind = Finding::Kind::kUnresponsive;
  if (inputs.size() > 1 && (o_.restore || dead)) from_history(f, want, inputs, last, dead);
  write(f, f.scripts.size() > 1 ? last : previous_run);
  summary_.findings.push_back(f);
  ++summary_.progress.unresponsive;
  summary_.progress.findings = summary_.findings.size();
  if (o_.on_finding) o_.on_finding(f);
  if (!dead) return true;
  summary_.stopped = gone();
  return false;
}
// Why the run cannot go on with an IUT that is gone: its restore failed, or
// it did not answer (its host did not recover) within FuzzOptions::revive.
std::string Fuzzer::gone(bool host) const {
  if (!restore_failed_.empty()) return restore_failed_;
  return (host ? "the IUT's host did not recover within " : "the IUT did not answer again within ") +
         std::to_string(o_.revive.count()) + " ms" + (o_.restore ? " of being restored" : "");
}

void Fuzzer::progress(bool force) {
  const auto now = Clock::now();
  summary_.progress.seconds = std::chrono::duration<double>(now - start_).count();
  if (!o_.on_progress || (!force && now - last_progress_ < std::chrono::seconds(1))) return;
  last_progress_ = now;
  o_.on_progress(summary_.progress);
}

FuzzSummary Fuzzer::run() {
  summary_.seed = o_.seed;
  summary_.target = o_.shape.target;
  std::vector<Case> seeds;
  for (const Case* c : o_.seeds)
    if (auto f = fuzz_case(*c, o_.shape)) seeds.push_back(std::move(*f));
  summary_.seeds = seeds.size();
  if (seeds.empty()) {
    summary_.stopped = std::string("no seed: no case of the ") + std::string(to_string(o_.shape.target)) +
                       " target was selected";
    return summary_;
  }
  start_ = last_progress_ = Clock::now();
  std::optional<Input> previous;
  Ran previous_run;
  for (std::uint64_t n = 0;; ++n) {
    if (o_.cancel && o_.cancel->load()) { summary_.stopped = "cancelled"; break; }
    if (o_.iterations != 0 && n >= o_.iterations) { summary_.stopped = "iterations"; break; }
    if (o_.iterations == 0 && std::chrono::duration<double>(Clock::now() - start_).count() >= o_.seconds) {
      summary_.stopped = "time";
      break;
    }
    const std::optional<Input> in = make_input(seeds, o_.seed, n);
    Ran r = run_case_text(in->c);
    ++summary_.progress.iterations;
    history_.push_back(in->c);
    if (history_.size() > (o_.history == 0 ? FuzzOptions::kHistoryCap : o_.history)) history_.pop_front();
    bool go_on = true;
    switch (r.outcome) {
      case Ran::Outcome::kNothing: break;
      case Ran::Outcome::kSkipped: ++summary_.progress.skipped; break;
      case Ran::Outcome::kDeadAtStart:
        ++summary_.progress.skipped;
        // An IUT that answers at once only refused this handshake's settings.
        if (answers()) break;
        go_on = previous ? delayed(*previous, previous_run, n, r.what)
                         : (summary_.stopped = "the IUT did not answer the first handshake: " + r.what, false);
        break;
      case Ran::Outcome::kFinding: go_on = handle(*in, r); break;
    }
    previous = in;
    previous_run = std::move(r);
    progress(false);
    if (!go_on) break;
  }
  progress(true);
  summary_.progress.findings = summary_.findings.size();
  summary_.exchanges_per_second =
      summary_.progress.seconds > 0 ? static_cast<double>(summary_.progress.iterations) / summary_.progress.seconds : 0;
  return summary_;
}

}  // namespace

FuzzSummary run_fuzz(const FuzzOptions& o) { return Fuzzer(o).run(); }

namespace {

nlohmann::ordered_json finding_object(const Finding& f) {
  nlohmann::ordered_json e;
  e["kind"] = std::string(to_string(f.kind));
  e["signature"] = f.signature;
  e["rule"] = f.rule;
  e["what"] = f.what;
  e["seed_case"] = f.seed;
  e["iteration"] = f.iteration;
  e["seconds"] = f.seconds;
  e["mutations"] = f.mutations;
  e["count"] = f.count;
  e["minimize_runs"] = f.minimize_runs;
  e["reproduced"] = f.reproduced;
  e["folder"] = f.folder;
  e["script"] = f.script;
  // The reproducer's inputs in the order they run (one: `script`).
  e["inputs"] = f.scripts.empty() ? 1 : f.scripts.size();
  e["scripts"] = f.scripts.empty() ? std::vector<std::string>{f.script} : f.scripts;
  if (!f.host_log.empty()) e["host_log"] = f.host_log;
  return e;
}

}  // namespace

std::string finding_json(const Finding& f) { return finding_object(f).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace); }

std::string summary_json(const FuzzSummary& s) {
  nlohmann::ordered_json j;
  // docs/schema/fuzz.schema.json
  j["tool"] = "rdmaconf";
  j["kind"] = "fuzz";
  j["format"] = 1;
  j["target"] = std::string(to_string(s.target));
  j["seed"] = s.seed;
  j["seeds"] = s.seeds;
  j["iterations"] = s.progress.iterations;
  j["skipped"] = s.progress.skipped;
  j["seconds"] = s.progress.seconds;
  j["exchanges_per_second"] = s.exchanges_per_second;
  j["stopped"] = s.stopped;
  j["findings_count"] = s.findings.size();
  j["unresponsive"] = std::count_if(s.findings.begin(), s.findings.end(),
                                    [](const Finding& f) { return f.kind == Finding::Kind::kUnresponsive; });
  j["host_unhealthy"] = std::count_if(s.findings.begin(), s.findings.end(),
                                      [](const Finding& f) { return f.kind == Finding::Kind::kHostUnhealthy; });
  auto& list = j["findings"] = nlohmann::ordered_json::array();
  for (const Finding& f : s.findings) list.push_back(finding_object(f));
  return j.dump(2) + "\n";
}

}  // namespace rdmaconf::conformance::wirefuzz
