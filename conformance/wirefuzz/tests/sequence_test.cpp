// Findings that take several inputs (docs/fuzzing.md, "Findings that take
// several inputs"): delta debugging over a sequence keeps the inputs that
// matter, in order; a planted target that loses its listener after three
// connections closed before their MPA Request (as siw does: docs/interop.md)
// is found, its reproducer is the few inputs that lose it, which lose it
// again when run alone in order on a restored target while each of them
// alone does not; a target the fuzzer cannot restore gets the inputs run
// since it started, written in order, which lose it again on a fresh one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/engine.hpp"
#include "fuzz_test_support.hpp"
#include "listener_loss_relay.hpp"
#include "tests/support/scratch_folder.hpp"
#include "wirefuzz/case_text.hpp"
#include "wirefuzz/fuzzer.hpp"
#include "wirefuzz/sequence.hpp"

namespace rdmaconf::conformance::wirefuzz {
namespace {

using test_support::ListenerLossRelay;

// A finding that needs inputs `needed` (in this order) and shows at the
// input after the last of them (as a lost listener shows at the next
// connection): how many inputs a candidate took, 0 if it did not.
std::size_t needs(const std::vector<std::size_t>& needed, const std::vector<std::size_t>& cand) {
  std::size_t next = 0;
  for (std::size_t i = 0; i < cand.size(); ++i) {
    if (next == needed.size()) return i + 1;
    if (cand[i] == needed[next]) ++next;
  }
  return 0;
}

TEST(FewestInputs, KeepsTheInputsThatMatterInTheirOrder) {
  const std::vector<std::size_t> needed{3, 17, 40};
  int budget = 200, runs = 0;
  const auto kept = fewest_inputs(
      60,
      [&](const std::vector<std::size_t>& c) {
        ++runs;
        EXPECT_TRUE(std::is_sorted(c.begin(), c.end()));
        return needs(needed, c);
      },
      budget);
  // The three, and one input after them that shows it.
  ASSERT_EQ(kept.size(), 4u);
  EXPECT_EQ(std::vector<std::size_t>(kept.begin(), kept.begin() + 3), needed);
  EXPECT_GT(kept.back(), 40u);
  EXPECT_EQ(runs, 200 - budget);
  RecordProperty("runs", runs);
  EXPECT_LE(runs, 60) << "within the default budget";
}

TEST(FewestInputs, AnInputThatMakesItAloneIsAllThatStays) {
  int budget = 50;
  const auto kept = fewest_inputs(
      9, [](const std::vector<std::size_t>& c) -> std::size_t {
        const auto at = std::find(c.begin(), c.end(), 5u);
        return at == c.end() ? 0 : static_cast<std::size_t>(at - c.begin()) + 1;
      },
      budget);
  EXPECT_EQ(kept, std::vector<std::size_t>{5});
}

TEST(FewestInputs, TheBudgetBoundsTheRunsAndKeepsTheBestSoFar) {
  int budget = 3, runs = 0;
  const auto kept = fewest_inputs(
      30,
      [&](const std::vector<std::size_t>& c) {
        ++runs;
        return needs({1, 28}, c);
      },
      budget);
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(budget, 0);
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end()));
  EXPECT_EQ(kept.size(), 30u);
}

std::vector<const Case*> seeds(std::initializer_list<std::string_view> ids) {
  std::vector<const Case*> out;
  for (const Case& c : catalogue().cases)
    for (std::string_view id : ids)
      if (c.id == id) out.push_back(&c);
  EXPECT_EQ(out.size(), ids.size());
  return out;
}

FuzzOptions options_for(std::uint16_t port) {
  FuzzOptions o;
  o.connect = tcp_connector("127.0.0.1", port, std::chrono::milliseconds(2000));
  // An MPA Request the mutations drop, cut short or leave whole.
  o.seeds = seeds({"mpa-reply-key"});
  o.time_scale = 0.25;
  o.revive = std::chrono::milliseconds(3000);
  o.iterations = 300;
  return o;
}

// The scripts run alone, in order, as `rdmaconf run -j 1` runs them: did
// the relay lose its listener again, and did the last script fail?
struct Alone {
  bool lost = false;
  Verdict last = Verdict::kPass;
};
Alone run_alone(ListenerLossRelay& relay, const std::vector<std::string>& scripts) {
  EXPECT_TRUE(relay.restore());
  RunOptions ro;
  ro.connect_responder = tcp_connector("127.0.0.1", relay.port(), std::chrono::milliseconds(2000));
  ro.time_scale = 0.25;
  ro.jobs = 1;
  std::vector<Case> cases;
  for (const std::string& s : scripts) cases.push_back(parse_one(s, "mpa"));
  std::vector<const Case*> list;
  for (const Case& c : cases) list.push_back(&c);
  const std::vector<CaseResult> results = run_cases(list, ro);
  // The relay counts a close as it sees it: give the last one a moment.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  Alone a;
  a.lost = relay.lost();
  if (!results.empty()) a.last = results.back().verdict;
  return a;
}

TEST(FuzzSequence, AListenerLostToSeveralEarlyClosesGetsTheFewInputsThatLoseIt) {
  ListenerLossRelay relay(3);
  FuzzOptions o = options_for(relay.port());
  o.restore = [&relay](std::string&) { return relay.restore(); };
  o.iterations = 60;
  const FuzzSummary s = run_fuzz(o);
  ASSERT_GE(relay.losses(), 1) << s.stopped << ", early closes " << relay.early_closes();
  ASSERT_FALSE(s.findings.empty()) << s.stopped;
  const Finding& f = s.findings.front();
  EXPECT_EQ(f.kind, Finding::Kind::kUnresponsive);
  EXPECT_TRUE(f.reproduced) << f.what << "; " << f.minimize_runs << " runs";
  // Three connections closed early and one that finds the listener gone:
  // at most four inputs of the many run before it.
  ASSERT_GE(f.scripts.size(), 3u) << f.signature;
  EXPECT_LE(f.scripts.size(), 4u) << f.signature;
  EXPECT_EQ(f.script, f.scripts.back());
  // Alone, in order, on a restored target: lost again, the last input failing.
  const Alone all = run_alone(relay, f.scripts);
  EXPECT_TRUE(all.lost);
  EXPECT_NE(all.last, Verdict::kPass);
  // Each input alone: the listener stays.
  for (const std::string& one : f.scripts) EXPECT_FALSE(run_alone(relay, {one}).lost) << one;
  const std::string json = summary_json(s);
  EXPECT_NE(json.find("\"inputs\": " + std::to_string(f.scripts.size())), std::string::npos) << json;
}

// Inputs whose handshake the IUT refuses while it goes on answering (siw
// closes on a Request it will not take) ran on in the run; they run on when
// the inputs are tried again in order, so that the sequence that lost the
// listener in the run loses it again.
TEST(FuzzSequence, AHandshakeRefusedOnTheWayDoesNotEndTheSequence) {
  ListenerLossRelay relay(3);
  relay.refuse_markers();
  FuzzOptions o = options_for(relay.port());
  o.seeds = seeds({"mpa-reply-key", "mpa-markers-to-tester-16"});
  o.restore = [&relay](std::string&) { return relay.restore(); };
  o.iterations = 60;
  const FuzzSummary s = run_fuzz(o);
  ASSERT_GE(relay.losses(), 1) << s.stopped << ", early closes " << relay.early_closes();
  ASSERT_FALSE(s.findings.empty()) << s.stopped;
  // Refused in the run, and again when its inputs ran in order.
  EXPECT_GE(relay.refused(), 2);
  const Finding& f = s.findings.front();
  EXPECT_EQ(f.kind, Finding::Kind::kUnresponsive);
  EXPECT_TRUE(f.reproduced) << f.what << "; " << f.minimize_runs << " runs, " << relay.refused() << " refused";
  EXPECT_LE(f.scripts.size(), 4u) << f.signature;
}

// siw's lost listener does not always come back when the same inputs run
// again (docs/interop.md, "Fuzzing siw"): here the restored relay never
// loses it again. The inputs are written as they ran, and their scripts say
// that they were tried on a restored IUT, not that it could not be restored.
TEST(FuzzSequence, InputsThatDoNotLoseItAgainOnARestoredTargetSaySo) {
  ListenerLossRelay relay(3);
  FuzzOptions o = options_for(relay.port());
  o.restore = [&relay](std::string&) {
    relay.set_needed(1 << 30);
    return relay.restore();
  };
  o.iterations = 60;
  const test_support::ScratchFolder dir("fuzz-sequence-tried");
  o.out_dir = dir / "out";
  const FuzzSummary s = run_fuzz(o);
  ASSERT_EQ(relay.losses(), 1) << s.stopped << ", early closes " << relay.early_closes();
  ASSERT_FALSE(s.findings.empty()) << s.stopped;
  const Finding& f = s.findings.front();
  EXPECT_EQ(f.kind, Finding::Kind::kUnresponsive);
  EXPECT_FALSE(f.reproduced);
  EXPECT_TRUE(f.sequence_tried);
  ASSERT_GE(f.scripts.size(), 3u) << f.signature;
  for (const auto& e : std::filesystem::directory_iterator(f.folder)) {
    if (e.path().extension() != ".case") continue;
    const std::string text = test_support::slurp(e.path().string());
    EXPECT_NE(text.find("did not make it again"), std::string::npos) << text;
    EXPECT_EQ(text.find("could not restore"), std::string::npos) << text;
  }
}

// A hundred inputs and more (siw lost its listener after 186 in a live
// run) make a reproduce line longer than a script's line may be: the line
// lets the shell list the numbered scripts, and every script still parses.
TEST(FuzzSequence, ManyInputsKeepTheirScriptsWithinTheLineBound) {
  ListenerLossRelay relay(40);
  FuzzOptions o = options_for(relay.port());
  o.revive = std::chrono::milliseconds(800);
  o.iterations = 1000;
  const test_support::ScratchFolder dir("fuzz-sequence-many");
  o.out_dir = dir / "out";
  const FuzzSummary s = run_fuzz(o);
  ASSERT_EQ(relay.losses(), 1) << s.stopped << ", early closes " << relay.early_closes();
  ASSERT_EQ(s.findings.size(), 1u);
  const Finding& f = s.findings.front();
  ASSERT_GE(f.scripts.size(), 100u);
  std::vector<std::string> files, written;
  for (const auto& e : std::filesystem::directory_iterator(f.folder))
    if (e.path().extension() == ".case") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), f.scripts.size());
  for (const std::string& file : files) {
    const std::string text = test_support::slurp(file);
    EXPECT_NE(text.find("# Reproduce: rdmaconf run -j 1 $(printf -- '--case-file %s ' [0-9]*-*.case) --target HOST:PORT\n"),
              std::string::npos) << text.substr(0, 600);
    written.push_back(text);
  }
  // Every script parses, and in order they lose the listener again.
  EXPECT_TRUE(run_alone(relay, written).lost);
}

TEST(FuzzSequence, ATargetThatCannotBeRestoredGetsTheInputsSinceItStartedInOrder) {
  ListenerLossRelay relay(3);
  const test_support::ScratchFolder dir("fuzz-sequence");
  FuzzOptions o = options_for(relay.port());
  o.revive = std::chrono::milliseconds(800);
  o.out_dir = dir / "out";
  const FuzzSummary s = run_fuzz(o);
  EXPECT_EQ(relay.losses(), 1);
  EXPECT_NE(s.stopped.find("did not answer again"), std::string::npos) << s.stopped;
  ASSERT_EQ(s.findings.size(), 1u);
  const Finding& f = s.findings.front();
  EXPECT_FALSE(f.reproduced);
  EXPECT_FALSE(f.sequence_tried);
  EXPECT_EQ(f.minimize_runs, 0);
  // Every input since the run began, the one that found it gone last.
  EXPECT_EQ(f.scripts.size(), s.progress.iterations);
  EXPECT_GE(f.scripts.size(), 4u);
  // The folder: one numbered script per input, each naming the same exact
  // command, which lists them in order.
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(f.folder))
    if (e.path().extension() == ".case") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), f.scripts.size());
  std::string reproduce = "# Reproduce: rdmaconf run -j 1";
  for (const std::string& file : files) reproduce += " --case-file " + file;
  reproduce += " --target HOST:PORT\n";
  std::vector<std::string> written;
  for (const std::string& file : files) {
    const std::string text = test_support::slurp((std::filesystem::path(f.folder) / file).string());
    EXPECT_NE(text.find(reproduce), std::string::npos) << text;
    EXPECT_NE(text.find("not reproduced by the fuzzer"), std::string::npos) << text;
    written.push_back(text);
  }
  // Run as written, on a fresh target: the listener is lost again.
  const Alone all = run_alone(relay, written);
  EXPECT_TRUE(all.lost);
  EXPECT_NE(all.last, Verdict::kPass);
  EXPECT_FALSE(run_alone(relay, {written.back()}).lost);
}

}  // namespace
}  // namespace rdmaconf::conformance::wirefuzz
