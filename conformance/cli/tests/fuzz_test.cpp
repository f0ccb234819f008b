// `rdmaconf fuzz` as a user meets it (docs/fuzzing.md, "Wire fuzzing"):
// a fault of the reference is found, written as a folder with its script
// and capture and listed in the JSON summary, and the script then runs
// alone with `rdmaconf run --case-file`, failing with the fault and passing
// without it; a finding that takes several inputs is written as their
// scripts, numbered, and the exact line they name runs them alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <thread>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "tests/support/scratch_folder.hpp"
#include "wirefuzz/tests/listener_loss_relay.hpp"

namespace rdmaconf::cli::testing {
namespace {

namespace fs = std::filesystem;

TEST(Fuzz, AFindingIsWrittenAndItsScriptRunsAlone) {
  const test_support::ScratchFolder dir("fuzz");
  const Ran r = rdmaconf("fuzz --reference --fault terminate-le-bitfield --case 'rdmap-echo-*' --iterations 30 --out " +
                         dir / "out" + " --json " + dir / "fuzz.json");
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("finding: breaks rfc5040-4.8-terminate-format"), std::string::npos) << r.out;
  const auto summary = nlohmann::json::parse(slurp(dir / "fuzz.json"));
  EXPECT_EQ(summary["iterations"], 30);
  ASSERT_EQ(summary["findings"].size(), 1u);
  const auto& f = summary["findings"][0];
  EXPECT_EQ(f["kind"], "rule-broken");
  EXPECT_EQ(f["reproduced"], true);
  std::string script;
  int captures = 0;
  for (const auto& e : fs::directory_iterator(f["folder"].get<std::string>())) {
    if (e.path().extension() == ".case") script = e.path().string();
    if (e.path().extension() == ".pcapng") ++captures;
  }
  ASSERT_FALSE(script.empty());
  EXPECT_EQ(captures, 2);  // the case's connection and the liveness check's
  const Ran broken = rdmaconf("run --reference --fault terminate-le-bitfield --case-file " + script);
  EXPECT_EQ(broken.code, 1) << broken.out << broken.err;
  EXPECT_NE(broken.out.find("rfc5040-4.8-terminate-format"), std::string::npos) << broken.out;
  const Ran clean = rdmaconf("run --reference --case-file " + script);
  EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
}

TEST(Fuzz, TheSameSeedRunsTheSameInputs) {
  const test_support::ScratchFolder dir("fuzz");
  auto findings = [&](const std::string& seed) {
    const std::string json = dir / ("fuzz-" + seed + ".json");
    const Ran r = rdmaconf("fuzz --reference --fault terminate-le-bitfield --case 'rdmap-echo-*' --iterations 10 "
                           "--seed " + seed + " --json " + json);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    return nlohmann::json::parse(slurp(json))["findings"][0]["script"].get<std::string>();
  };
  EXPECT_EQ(findings("5"), findings("5"));
}

TEST(Fuzz, UsageErrors) {
  EXPECT_EQ(rdmaconf("fuzz").code, 2);
  EXPECT_EQ(rdmaconf("fuzz --reference --target 127.0.0.1:1").code, 2);
  EXPECT_EQ(rdmaconf("fuzz --reference --fault no-such-fault --iterations 1").code, 2);
  // --agent: one target only, its options only with it, a token, an agent that answers.
  EXPECT_EQ(rdmaconf("fuzz --reference --agent http://127.0.0.1:1 --token t").code, 2);
  EXPECT_EQ(rdmaconf("fuzz --target 127.0.0.1:1 --token t").code, 2);
  EXPECT_EQ(rdmaconf("fuzz --agent http://127.0.0.1:1 --iterations 1").code, 2);
  const Ran gone = rdmaconf("fuzz --agent http://127.0.0.1:1 --token t --iterations 1");
  EXPECT_EQ(gone.code, 2);
  EXPECT_NE(gone.err.find("cannot reach the agent"), std::string::npos) << gone.err;
  // An initiator-role case that sends nothing is no seed of either MPA target.
  const Ran none = rdmaconf("fuzz --reference --case mpa-initiator-request-first --iterations 1");
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.out.find("no seed"), std::string::npos) << none.out;
  // One side per run; the wire fuzzer's suites only, clc alone.
  EXPECT_EQ(rdmaconf("fuzz --target 127.0.0.1:1 --listen 127.0.0.1:0 --iterations 1").code, 2);
  EXPECT_EQ(rdmaconf("fuzz --reference --suite clc --suite mpa --iterations 1").code, 2);
  EXPECT_EQ(rdmaconf("fuzz --reference --suite smcr --iterations 1").code, 2);
  EXPECT_EQ(rdmaconf("fuzz --reference --listen 127.0.0.1:0 --suite clc --iterations 1").code, 2);
}

TEST(Fuzz, TheInitiatorAndTheClcServerOfTheReference) {
  // clc cases alone fuzz the CLC server; --listen the initiator, which
  // connects to the tester.
  const Ran clc = rdmaconf("fuzz --reference --case 'clc-*' --iterations 3 --time-scale 0.25");
  EXPECT_EQ(clc.code, 0) << clc.out << clc.err;
  EXPECT_NE(clc.out.find("(clc-server)"), std::string::npos) << clc.out;
  EXPECT_NE(clc.out.find("3 iterations"), std::string::npos) << clc.out;
  const Ran initiator = rdmaconf("fuzz --reference --listen 127.0.0.1:0 --iterations 3 --time-scale 0.25");
  EXPECT_EQ(initiator.code, 0) << initiator.out << initiator.err;
  EXPECT_NE(initiator.out.find("the reference initiator connecting to 127.0.0.1:"), std::string::npos) << initiator.out;
  EXPECT_NE(initiator.out.find("3 iterations"), std::string::npos) << initiator.out;
}

// The CLC identity options are run's (clc_options.hpp): the same parsing,
// the same messages with the command's name, for the CLC server target only.
TEST(Fuzz, TheClcIdentityOptions) {
  const Ran bad = rdmaconf("fuzz --reference --suite clc --clc-gid not-a-gid --iterations 1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("rdmaconf fuzz: --clc-gid expects auto, fixed, an IPv6 address or 32 hex digits, got 'not-a-gid'"),
            std::string::npos)
      << bad.err;
  const Ran prefix = rdmaconf("fuzz --reference --suite clc --clc-prefix 10.0.0.0 --iterations 1");
  EXPECT_EQ(prefix.code, 2);
  EXPECT_NE(prefix.err.find("rdmaconf fuzz: --clc-prefix expects auto or A.B.C.D/N"), std::string::npos) << prefix.err;
  const Ran mpa = rdmaconf("fuzz --reference --suite mpa --clc-eid SOME-EID --clc-mac auto --iterations 1");
  EXPECT_EQ(mpa.code, 2);
  EXPECT_NE(mpa.err.find("--clc-eid, --clc-mac shape the CLC messages of the CLC server target"), std::string::npos)
      << mpa.err;
  // Given, they are the run's and its reproducers' (the EID is the
  // reference's own, so Proposals that offer v2 are accepted).
  const Ran ok = rdmaconf("fuzz --reference --suite clc --clc-eid RDMACONF-TEST-EID --clc-prefix 127.0.0.0/8 --clc-gid auto "
                          "--clc-mac 02:00:00:00:00:01 --iterations 3 --time-scale 0.25");
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("the tester's CLC peer: EID RDMACONF-TEST-EID, prefix 127.0.0.0/8, GID auto, MAC 02:00:00:00:00:01"),
            std::string::npos)
      << ok.out;
  const test_support::ScratchFolder dir("fuzz");
  // A reference server that answers with an Accept of a version the Proposal did not offer: the
  // liveness check cannot read it.
  const Ran found = rdmaconf("fuzz --reference --fault clc-inconsistent-accept --suite clc --clc-prefix 127.0.0.0/8 "
                             "--iterations 1 --time-scale 0.25 --out " + dir / "out" + " --json " + dir / "fuzz.json");
  ASSERT_EQ(found.code, 1) << found.out << found.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "fuzz.json"));
  ASSERT_FALSE(summary["findings"].empty());
  std::string script;
  for (const auto& e : fs::directory_iterator(summary["findings"][0]["folder"].get<std::string>()))
    if (e.path().extension() == ".case") script = e.path().string();
  ASSERT_FALSE(script.empty());
  const std::string text = slurp(script);
  EXPECT_NE(text.find(".case --clc-target HOST:PORT --clc-prefix 127.0.0.0/8\n"), std::string::npos) << text;
  // The script alone, with the options its reproduce line names.
  const Ran alone = rdmaconf("run --reference --fault clc-inconsistent-accept --clc-prefix 127.0.0.0/8 --case-file " + script);
  EXPECT_EQ(alone.code, 1) << alone.out << alone.err;
  const Ran clean = rdmaconf("run --reference --clc-prefix 127.0.0.0/8 --case-file " + script);
  EXPECT_EQ(clean.code, 0) << clean.out << clean.err;
  // `run` keeps its own name in the same message.
  const Ran run = rdmaconf("run --reference --suite clc --clc-mac 1:2:3 --case clc-accept-v1");
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("rdmaconf run: --clc-mac expects auto, fixed or aa:bb:cc:dd:ee:ff, got '1:2:3'"), std::string::npos)
      << run.err;
}

// A finding's folder of several inputs: its scripts' file names, sorted (the
// order they run in), and the reproduce line the first carries with the
// target in place of HOST:PORT.
struct Reproducer {
  std::vector<std::string> files;
  std::string line;
};
Reproducer reproducer(const std::string& folder, const std::string& target) {
  Reproducer r;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().extension() == ".case") r.files.push_back(e.path().filename().string());
  std::sort(r.files.begin(), r.files.end());
  if (r.files.empty()) {
    ADD_FAILURE() << "no script in " << folder;
    return r;
  }
  const std::string first = slurp(folder + "/" + r.files.front());
  const std::size_t at = first.find("# Reproduce: ");
  if (at == std::string::npos) {
    ADD_FAILURE() << first;
    return r;
  }
  r.line = first.substr(at + 13, first.find('\n', at) - at - 13);
  EXPECT_TRUE(r.line.ends_with(" --target HOST:PORT")) << r.line;
  if (r.line.ends_with(" --target HOST:PORT")) r.line.replace(r.line.size() - 9, 9, target);
  return r;
}

// A target that loses its listener to three connections closed before
// their MPA Request (wirefuzz/tests/listener_loss_relay.hpp), which the
// fuzzer cannot restore (--target): the finding's folder holds the inputs
// run since it started, numbered in order, and the reproduce line they
// carry, run as written from that folder, loses the listener again on a
// fresh target, where its last script alone does not.
TEST(Fuzz, AFindingOfSeveralInputsRunsAloneByItsReproduceLine) {
  test_support::ListenerLossRelay relay(3);
  const test_support::ScratchFolder dir("fuzz");
  const std::string target = "127.0.0.1:" + std::to_string(relay.port());
  const Ran r = rdmaconf("fuzz --target " + target + " --case mpa-reply-key --iterations 100 --revive 1 --time-scale 0.5 "
                         "--out " + dir / "out" + " --json " + dir / "fuzz.json");
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(relay.losses(), 1);
  const auto summary = nlohmann::json::parse(slurp(dir / "fuzz.json"));
  ASSERT_EQ(summary["findings"].size(), 1u) << summary.dump(2);
  const auto& f = summary["findings"][0];
  EXPECT_EQ(f["reproduced"], false);
  ASSERT_GE(f["inputs"].get<int>(), 4);
  EXPECT_EQ(f["inputs"], summary["iterations"]);
  EXPECT_EQ(f["scripts"].size(), f["inputs"].get<std::size_t>());
  const auto [files, line] = reproducer(f["folder"].get<std::string>(), target);
  ASSERT_EQ(files.size(), f["scripts"].size());
  ASSERT_TRUE(line.starts_with("rdmaconf run -j 1 --case-file " + files.front() + " ")) << line;
  ASSERT_TRUE(line.ends_with(" --target " + target)) << line;
  // As written, from the folder, on a fresh target.
  ASSERT_TRUE(relay.restore());
  const Ran again = rdmaconf(line.substr(std::string("rdmaconf ").size()), "cd " + f["folder"].get<std::string>() + " &&");
  // The last input finds the listener gone, the others pass. Gone is an
  // error (the connection refused) or, when the tester's connect came
  // before the relay's thread had seen the previous input's close, a
  // failure (accepted, then closed instead of answered): the two race, as
  // with a real target.
  const std::string others = ": pass " + std::to_string(files.size() - 1);
  EXPECT_TRUE(again.code == 2 || again.code == 1) << again.out << again.err;
  EXPECT_NE(again.out.find(" cases against " + target), std::string::npos) << again.out;
  EXPECT_TRUE(again.out.find(others + " error 1") != std::string::npos ||
              again.out.find(others + " fail 1") != std::string::npos)
      << again.out;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(relay.lost()) << again.out;
  ASSERT_TRUE(relay.restore());
  const Ran last = rdmaconf("run --case-file " + f["folder"].get<std::string>() + "/" + files.back() + " --target " + target);
  EXPECT_EQ(last.code, 0) << last.out << last.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(relay.lost());
}

// The planted target's restore from a shell command, as a lab's driver
// reload or the harness's reboot is one: the command asks (a request file)
// and waits until the relay was restored (a done file).
class RestoreByFile {
 public:
  RestoreByFile(test_support::ListenerLossRelay& relay, std::string dir)
      : relay_(relay), request_(dir + "/restore.request"), done_(dir + "/restore.done") {
    thread_ = std::thread([this] {
      while (!stop_) {
        if (fs::exists(request_)) {
          fs::remove(request_);
          if (relay_.restore()) ++restores_;
          std::ofstream(done_).put('\n');
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
  }
  ~RestoreByFile() {
    stop_ = true;
    thread_.join();
  }
  std::string command() const {
    return "'echo restoring the target; touch " + request_ + "; while [ ! -e " + done_ + " ]; do sleep 0.01; done; rm " +
           done_ + "; echo restored'";
  }
  int restores() const { return restores_; }

 private:
  test_support::ListenerLossRelay& relay_;
  std::string request_, done_;
  std::atomic<bool> stop_{false};
  std::atomic<int> restores_{0};
  std::thread thread_;
};

// The same target given a restore command (--restore-command): the fuzzer
// restores it before each try, keeps the few inputs that lose its listener
// (three connections closed early and the one that finds it gone),
// reproduces them, and logs the command's output; the scripts, run in order
// on a fresh target by their reproduce line, lose it again, and none does
// alone.
TEST(Fuzz, ARestoreCommandGetsAFindingOfSeveralInputsMinimized) {
  test_support::ListenerLossRelay relay(3);
  const test_support::ScratchFolder dir("fuzz");
  RestoreByFile restore(relay, dir / "");
  const std::string target = "127.0.0.1:" + std::to_string(relay.port());
  const Ran r = rdmaconf("fuzz --target " + target + " --case mpa-reply-key --iterations 60 --revive 3 --time-scale 0.5 "
                         "--restore-command " + restore.command() + " --out " + dir / "out" + " --json " + dir / "fuzz.json");
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_GE(relay.losses(), 2);  // found, then lost again by the sequences tried
  EXPECT_GE(restore.restores(), 2);
  EXPECT_NE(r.err.find("fuzz: restore 1 took "), std::string::npos) << r.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "fuzz.json"));
  EXPECT_EQ(summary["stopped"], "iterations") << summary.dump(2);
  ASSERT_GE(summary["findings"].size(), 1u) << summary.dump(2);
  const auto& f = summary["findings"][0];
  EXPECT_EQ(f["kind"], "unresponsive");
  EXPECT_EQ(f["reproduced"], true) << f.dump(2);
  EXPECT_GE(f["inputs"].get<int>(), 3) << f.dump(2);
  EXPECT_LE(f["inputs"].get<int>(), 4) << f.dump(2);
  const std::string log = slurp(dir / "out/restore.log");
  EXPECT_NE(log.find("restoring the target\nrestored\n== restore 1: exit status 0 after "), std::string::npos) << log;
  const auto [files, line] = reproducer(f["folder"].get<std::string>(), target);
  ASSERT_EQ(files.size(), f["scripts"].size());
  ASSERT_TRUE(line.ends_with(" --target " + target)) << line;
  ASSERT_TRUE(relay.restore());
  const Ran again = rdmaconf(line.substr(std::string("rdmaconf ").size()), "cd " + f["folder"].get<std::string>() + " &&");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_TRUE(relay.lost()) << again.out << again.err;
  for (const std::string& one : files) {
    ASSERT_TRUE(relay.restore());
    rdmaconf("run --case-file " + f["folder"].get<std::string>() + "/" + one + " --target " + target);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(relay.lost()) << one;
  }
}

// A restore command that fails ends the run with what it said: a target in
// an unknown state is not fuzzed on.
TEST(Fuzz, ARestoreCommandThatFailsEndsTheRunWithItsReason) {
  test_support::ListenerLossRelay relay(3);
  const test_support::ScratchFolder dir("fuzz");
  const std::string target = "127.0.0.1:" + std::to_string(relay.port());
  const Ran r = rdmaconf("fuzz --target " + target + " --case mpa-reply-key --iterations 60 --revive 1 --time-scale 0.5 "
                         "--restore-command 'echo rmmod: ERROR: Module siw is in use >&2; exit 4' --json " +
                         dir / "fuzz.json");
  ASSERT_EQ(r.code, 1) << r.out << r.err;
  const auto summary = nlohmann::json::parse(slurp(dir / "fuzz.json"));
  const std::string stopped = summary["stopped"].get<std::string>();
  EXPECT_NE(stopped.find("the IUT could not be restored: the restore command"), std::string::npos) << stopped;
  EXPECT_NE(stopped.find("exit status 4"), std::string::npos) << stopped;
  EXPECT_NE(stopped.find("it said: rmmod: ERROR: Module siw is in use"), std::string::npos) << stopped;
  EXPECT_LT(summary["iterations"].get<int>(), 60);
  // The reference restores itself.
  const Ran ref = rdmaconf("fuzz --reference --iterations 1 --restore-command true");
  EXPECT_EQ(ref.code, 2);
  EXPECT_NE(ref.err.find("--reference restores itself"), std::string::npos) << ref.err;
}

}  // namespace
}  // namespace rdmaconf::cli::testing
