// The wire fuzzer (conformance/wirefuzz/): scripts printed back parse to the
// same case, a seed reproduces its inputs, the clean reference yields no
// finding, and faults planted in the reference are found, minimized and
// reproduced by the script written for them; a kernel crash on the IUT's host
// (the host oracle) likewise.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <set>

#include "engine/engine.hpp"
#include "engine/responder.hpp"
#include "crashing_iut.hpp"
#include "fuzz_test_support.hpp"
#include "wirefuzz/case_text.hpp"
#include "wirefuzz/fuzzer.hpp"
#include "wirefuzz/mutator.hpp"

namespace rdmaconf::conformance::wirefuzz {
namespace {

std::vector<const Case*> seeds(std::initializer_list<std::string_view> ids) {
  std::vector<const Case*> out;
  for (const Case& c : catalogue().cases)
    for (std::string_view id : ids)
      if (c.id == id) out.push_back(&c);
  for (std::string_view id : ids)
    EXPECT_TRUE(std::any_of(out.begin(), out.end(), [&](const Case* c) { return c->id == id; })) << id;
  return out;
}

TEST(CaseText, EveryCatalogueCaseReadsBackTheSame) {
  ASSERT_TRUE(catalogue().errors.empty());
  ASSERT_GT(catalogue().cases.size(), 400u);
  for (const Case& c : catalogue().cases) {
    const std::string text = case_text(c);
    const Case back = parse_one(text, c.protocol);
    ASSERT_EQ(back.steps.size(), c.steps.size()) << text;
    EXPECT_EQ(back.id, c.id);
    EXPECT_EQ(back.requirements, c.requirements);
    EXPECT_EQ(back.level, c.level);
    EXPECT_EQ(back.timeout, c.timeout);
    for (std::size_t i = 0; i < c.steps.size(); ++i) EXPECT_EQ(step_text(back.steps[i]), step_text(c.steps[i])) << c.id;
    EXPECT_EQ(case_text(back), text);
  }
}

TEST(FuzzCase, ExpectationsReadAndALivenessCheckEnds) {
  const auto s = seeds({"ddp-echo-msn-increment"});
  const std::optional<Case> f = fuzz_case(*s.front(), {});
  ASSERT_TRUE(f);
  // handshake, then each send followed by one read, then connection 2 and its handshake.
  const std::string text = case_text(*f);
  EXPECT_NE(text.find("after_close: skip"), std::string::npos);
  EXPECT_NE(text.find("< anything within 40ms\n> send payload=4\n"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("< anything within 40ms\nconnection 2\nhandshake\n")) << text;
  EXPECT_EQ(send_steps(*f).size(), 3u);
  EXPECT_TRUE(check_case(parse_one(text, "ddp")).empty());
  // Initiator-role and CLC cases are no seeds.
  for (const Case& c : catalogue().cases) {
    if (c.role == Role::kInitiator || c.protocol == "clc") {
      EXPECT_FALSE(fuzz_case(c, {})) << c.id;
    }
  }
}

TEST(Mutator, TheSameSeedMakesTheSameInputs) {
  std::vector<Case> fuzz_seeds;
  for (const Case& c : catalogue().cases)
    if (auto f = fuzz_case(c, {})) fuzz_seeds.push_back(std::move(*f));
  ASSERT_GT(fuzz_seeds.size(), 200u);
  std::set<std::string> distinct;
  int differ = 0;
  for (std::uint64_t n = 0; n < 300; ++n) {
    const auto a = make_input(fuzz_seeds, 7, n), b = make_input(fuzz_seeds, 7, n), other = make_input(fuzz_seeds, 8, n);
    ASSERT_TRUE(a && b && other);
    const std::string text = case_text(a->c);
    EXPECT_EQ(text, case_text(b->c));
    if (text != case_text(other->c)) ++differ;
    distinct.insert(text);
    ASSERT_FALSE(a->mutations.empty()) << text;
    // Every input is a script the engine takes.
    const Case back = parse_one(text, a->c.protocol);
    const auto problems = check_case(back);
    EXPECT_TRUE(problems.empty()) << text << (problems.empty() ? "" : problems.front());
  }
  EXPECT_GT(differ, 290);
  EXPECT_GT(distinct.size(), 290u);
}

// Findings as a failure message shows them: what made each, and the script.
std::string described(const std::vector<Finding>& findings) {
  std::string out;
  for (const Finding& f : findings)
    out += "\n-- " + f.signature + " (iteration " + std::to_string(f.iteration) + ", x" + std::to_string(f.count) +
           "): " + f.what + "\n" + f.found_script;
  return out;
}

FuzzOptions options_for(std::uint16_t port, std::vector<const Case*> s) {
  FuzzOptions o;
  o.connect = tcp_connector("127.0.0.1", port, std::chrono::milliseconds(2000));
  o.seeds = std::move(s);
  o.time_scale = 0.25;
  o.revive = std::chrono::milliseconds(5000);
  return o;
}

TEST(Fuzz, TheCleanReferenceYieldsNoFinding) {
  ReferenceIut iut;
  std::string error;
  ASSERT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
  FuzzOptions o = options_for(iut.port(), seeds({"ddp-echo-msn-increment", "rdmap-echo-send-msn", "rdmap-read-answered",
                                                  "rdmap-write-placed-read-back-7", "mpa-crc-checked-send-16",
                                                  "mpa-request-pd-length-512-accepted", "ddp-bounds-exact-fit",
                                                  "rdmap-atomic-fetchadd", "ddp-reassembly-three-segments"}));
  o.seed = 3;
  o.iterations = 300;
  const FuzzSummary s = run_fuzz(o);
  iut.stop();
  EXPECT_EQ(s.progress.iterations, 300u);
  EXPECT_EQ(s.stopped, "iterations");
  for (const Finding& f : s.findings) ADD_FAILURE() << f.signature << ": " << f.what << "\n" << f.found_script;
  // Most inputs run (a few ask for what the connection cannot carry).
  EXPECT_LT(s.progress.skipped, 60u);
}

TEST(Fuzz, AFaultyTerminateIsFoundMinimizedAndReproduced) {
  FaultSet faults;
  faults.set(FaultId::kTerminateLeBitfield);
  ReferenceIut iut(faults);
  std::string error;
  ASSERT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
  FuzzOptions o = options_for(iut.port(), seeds({"rdmap-echo-send-msn"}));
  o.iterations = 40;
  // A target the fuzzer could restore: a rule broken is minimized without
  // restoring it (each restore of a device may be a reboot).
  int restores = 0;
  o.restore = [&restores](std::string&) {
    ++restores;
    return true;
  };
  const FuzzSummary s = run_fuzz(o);
  EXPECT_EQ(restores, 0);
  ASSERT_EQ(s.findings.size(), 1u);
  const Finding& f = s.findings.front();
  EXPECT_EQ(f.kind, Finding::Kind::kRuleBroken);
  EXPECT_EQ(f.signature, "breaks " + f.rule);
  EXPECT_TRUE(f.reproduced);
  EXPECT_GT(f.count, 1u);  // merged by its signature
  // The script alone fails against the faulty reference, passes against the clean one.
  const Case min = parse_one(f.script, "rdmap");
  ASSERT_EQ(send_steps(min).size(), 1u) << f.script;
  RunOptions ro;
  ro.connect_responder = tcp_connector("127.0.0.1", iut.port(), std::chrono::milliseconds(2000));
  ro.time_scale = 0.25;
  const CaseResult bad = run_case(min, ro);
  EXPECT_EQ(bad.verdict, Verdict::kFail) << bad.reason;
  ASSERT_FALSE(bad.in_passing.empty());
  EXPECT_EQ(bad.in_passing.front().rule, f.rule);
  iut.stop();
  ReferenceIut clean;
  ASSERT_TRUE(clean.listen("127.0.0.1", 0, error)) << error;
  ro.connect_responder = tcp_connector("127.0.0.1", clean.port(), std::chrono::milliseconds(2000));
  EXPECT_EQ(run_case(min, ro).verdict, Verdict::kPass);
}

// The reference IUT with a planted crash, restarted by a supervisor
// (crashing_iut.hpp).
using test_support::CrashingIut;

TEST(Fuzz, APlantedCrashIsFoundMinimizedAndItsScriptReproducesIt) {
  CrashingIut iut(true);
  FuzzOptions o = options_for(iut.port(), seeds({"ddp-echo-msn-increment"}));
  o.iterations = 250;
  const FuzzSummary s = run_fuzz(o);
  ASSERT_EQ(s.findings.size(), 1u) << s.stopped << ", skipped " << s.progress.skipped << described(s.findings);
  const Finding& f = s.findings.front();
  EXPECT_EQ(f.kind, Finding::Kind::kUnresponsive);
  EXPECT_TRUE(f.reproduced) << s.stopped << "; crashes " << iut.crashes() << "; " << f.minimize_runs << " runs";
  // One message, one field changed: the MSN.
  const Case min = parse_one(f.script, "ddp");
  const auto sends = send_steps(min);
  ASSERT_EQ(sends.size(), 1u) << f.script;
  ASSERT_EQ(min.steps[sends.front()].args.size(), 1u) << f.script;
  EXPECT_EQ(min.steps[sends.front()].args.front().name, "msn") << f.script;
  EXPECT_EQ(f.signature, "stops answering after > send msn");
  RecordProperty("script", f.script);
  // Run alone, the script fails at its liveness check, the same way.
  RunOptions ro;
  ro.connect_responder = tcp_connector("127.0.0.1", iut.port(), std::chrono::milliseconds(2000));
  ro.time_scale = 0.25;
  const int before = iut.crashes();
  const CaseResult r = run_case(min, ro);
  EXPECT_NE(r.verdict, Verdict::kPass);
  EXPECT_GE(r.failed_line, min.steps[liveness_step(min)].line) << r.reason;
  EXPECT_EQ(iut.crashes(), before + 1);
  // Without the planted crash it passes.
  CrashingIut healthy(false);
  ro.connect_responder = tcp_connector("127.0.0.1", healthy.port(), std::chrono::milliseconds(2000));
  EXPECT_EQ(run_case(min, ro).verdict, Verdict::kPass);
}

TEST(Fuzz, AnIutThatDoesNotComeBackEndsTheRunWithWhatItFound) {
  CrashingIut iut(true, false);
  FuzzOptions o = options_for(iut.port(), seeds({"ddp-echo-msn-increment"}));
  o.iterations = 250;
  o.revive = std::chrono::milliseconds(1500);
  const FuzzSummary s = run_fuzz(o);
  EXPECT_EQ(iut.crashes(), 1);
  EXPECT_LT(s.progress.iterations, 250u);
  EXPECT_NE(s.stopped.find("did not answer again"), std::string::npos) << s.stopped;
  ASSERT_EQ(s.findings.size(), 1u);
  const Finding& f = s.findings.front();
  EXPECT_EQ(f.kind, Finding::Kind::kUnresponsive);
  EXPECT_EQ(f.minimize_runs, 0);
  EXPECT_FALSE(f.reproduced);
  EXPECT_EQ(f.script, f.found_script);  // as the iteration ran it, unminimized
  EXPECT_EQ(s.progress.unresponsive, 1u);
}

// An IUT that dies later than the planted crash above: once it has sent a
// Terminate for an MSN out of range, it still answers the next connection
// (the fuzz case's liveness check), and not the one after (the next case's),
// then comes back 300 ms later.
TEST(Fuzz, AnIutThatDiesAfterTheLivenessCheckIsCharged) {
  CrashingIut iut(true, true, 1);
  FuzzOptions o = options_for(iut.port(), seeds({"ddp-echo-msn-increment"}));
  o.iterations = 250;
  const FuzzSummary s = run_fuzz(o);
  EXPECT_GE(iut.crashes(), 1);
  ASSERT_FALSE(s.findings.empty()) << s.stopped << ", skipped " << s.progress.skipped << ", iterations " << s.progress.iterations;
  for (const Finding& f : s.findings) {
    EXPECT_EQ(f.kind, Finding::Kind::kUnresponsive);
    EXPECT_TRUE(f.signature.starts_with("stops answering some time after > send")) << f.signature;
    EXPECT_NE(f.script.find(" msn="), std::string::npos) << f.script;  // the iteration that made it die
    EXPECT_EQ(f.script, f.found_script);
  }
}

// The reference IUT on a host whose kernel crashes (test only): when the
// IUT has to send a Terminate for an MSN out of range, the host's "kernel"
// logs a NULL pointer dereference; the IUT itself keeps answering, as siw
// can after a crash in another kernel thread. The host stays broken until it
// "boots again" 300 ms after its health was first asked about since the
// crash, as the interop harness reboots its guest once it saw the crash (a
// boot timed from the crash itself could be over before a loaded machine
// got to ask).
class CrashingHost {
 public:
  CrashingHost() {
    iut_.set_observer([this](const IutEvent& e) {
      serving_.on_event(e);
      if (e.kind == IutEvent::Kind::kAsync && e.name == "terminate_sent" && e.detail.find("MSN") != std::string::npos) {
        std::lock_guard lock(mu_);
        if (!broken_) ++crashes_;
        broken_ = true;
        seen_.reset();
      }
    });
    std::string error;
    EXPECT_TRUE(iut_.listen("127.0.0.1", 0, error)) << error;
  }
  ~CrashingHost() { iut_.stop(); }
  std::uint16_t port() const { return iut_.port(); }
  int crashes() const {
    std::lock_guard lock(mu_);
    return crashes_;
  }
  // What the agent's kernel log and events come to (FuzzOptions::host_health).
  std::optional<HostProblem> health() {
    // The log as it stands once the IUT has acted on all it was sent.
    serving_.wait_idle(std::chrono::milliseconds(2000));
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (broken_ && seen_ && now - *seen_ > std::chrono::milliseconds(300)) broken_ = false;
    if (!broken_) return std::nullopt;
    if (!seen_) seen_ = now;
    return kernel_crash({"[  10.0] BUG: kernel NULL pointer dereference, address: 00000000000003e0",
                         "[  10.1] RIP: 0010:siw_rtr_data_ready+0x3a/0xb0 [siw]", "[  10.2] Call Trace:",
                         "[  10.3]  <IRQ>", "[  10.4]  tcp_data_queue+0x6b4/0xd90",
                         "[  10.5]  tcp_rcv_established+0x1fc/0x690", "[  10.6]  ? ip_local_deliver+0x70/0x70"});
  }

 private:
  ReferenceIut iut_;
  test_support::ServingThreads serving_;
  mutable std::mutex mu_;
  bool broken_ = false;
  int crashes_ = 0;
  std::optional<std::chrono::steady_clock::time_point> seen_;  // first reported since the crash
};

TEST(Fuzz, AKernelCrashOnTheHostIsFoundByItsStackMinimizedAndReproduced) {
  CrashingHost host;
  FuzzOptions o = options_for(host.port(), seeds({"ddp-echo-msn-increment"}));
  o.iterations = 250;
  o.host_health = [&host] { return host.health(); };
  const FuzzSummary s = run_fuzz(o);
  ASSERT_EQ(s.findings.size(), 1u) << s.stopped << ", skipped " << s.progress.skipped;
  const Finding& f = s.findings.front();
  EXPECT_EQ(f.kind, Finding::Kind::kHostUnhealthy);
  EXPECT_EQ(f.signature,
            "kernel: BUG: kernel NULL pointer dereference in siw_rtr_data_ready <- tcp_data_queue <- tcp_rcv_established");
  EXPECT_TRUE(f.reproduced) << s.stopped << "; " << f.minimize_runs << " runs";
  EXPECT_EQ(s.progress.host, 1u);
  EXPECT_EQ(s.progress.unresponsive, 0u);
  EXPECT_FALSE(f.host_log.empty());
  // Minimized to the one message and field that crash it.
  const Case min = parse_one(f.script, "ddp");
  const auto sends = send_steps(min);
  ASSERT_EQ(sends.size(), 1u) << f.script;
  ASSERT_EQ(min.steps[sends.front()].args.size(), 1u) << f.script;
  EXPECT_EQ(min.steps[sends.front()].args.front().name, "msn") << f.script;
  // Later crashes of the same stack were counted, not written again.
  EXPECT_GE(f.count, 1u);
  const std::string json = summary_json(s);
  EXPECT_NE(json.find("\"host_unhealthy\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\": \"host-unhealthy\""), std::string::npos) << json;
}

TEST(Fuzz, AHostThatDoesNotRecoverEndsTheRun) {
  // A kernel log that keeps its crash (nobody reboots the host).
  int calls = 0;
  CrashingHost host;
  FuzzOptions o = options_for(host.port(), seeds({"ddp-echo-msn-increment"}));
  o.iterations = 50;
  o.revive = std::chrono::milliseconds(800);
  o.host_health = [&]() -> std::optional<HostProblem> {
    ++calls;
    if (calls < 2) return std::nullopt;
    return HostProblem{"the agent does not answer", "agent gone", {}};
  };
  const FuzzSummary s = run_fuzz(o);
  ASSERT_EQ(s.findings.size(), 1u);
  EXPECT_EQ(s.findings.front().signature, "agent gone");
  EXPECT_EQ(s.findings.front().iteration, 1u);
  EXPECT_EQ(s.progress.iterations, 2u);
  EXPECT_NE(s.stopped.find("host did not recover"), std::string::npos) << s.stopped;
}

}  // namespace
}  // namespace rdmaconf::conformance::wirefuzz
