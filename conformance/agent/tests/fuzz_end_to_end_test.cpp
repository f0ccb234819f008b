// `rdmaconf fuzz --agent` against rdmaconf-agent as a user runs them: two
// processes on one host, the reference backend behind the agent. A clean
// run finds nothing; a crash the host's kernel log shows (a file given as
// --kernel-log, written by the test as a kernel would) is a finding with
// the kernel's stack as its signature and its splat beside the script; an
// agent that goes away is a finding too, and both end the run when the host
// does not come back; given a restore command that starts the agent again,
// the run goes on.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "child_process.hpp"

namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

using rdmaconf::agent::testing::AgentProcess;
using rdmaconf::agent::testing::kToken;
using rdmaconf::agent::testing::load;
using rdmaconf::agent::testing::slurp;

struct Scratch {
  fs::path dir = fs::temp_directory_path() / ("rdmaconf-fuzz-agent-test-" + std::to_string(::getpid()) + "-" +
                                              ::testing::UnitTest::GetInstance()->current_test_info()->name());
  Scratch() {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() { fs::remove_all(dir); }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

int fuzz(const std::string& args, const std::string& log) { return rdmaconf::agent::testing::rdmaconf_command("fuzz", args, log); }

TEST(FuzzThroughTheAgent, TheCleanReferenceFindsNothing) {
  Scratch s;
  AgentProcess agent;
  const int code = fuzz("--agent " + agent.url() + " --token " + kToken +
                            " --case 'ddp-echo-*' --iterations 30 --time-scale 0.25 --json " + s / "fuzz.json",
                        s / "log");
  EXPECT_EQ(code, 0) << slurp(s / "log");
  const std::string log = slurp(s / "log");
  EXPECT_NE(log.find("through the agent at"), std::string::npos) << log;
  EXPECT_NE(log.find("no kernel log from the agent"), std::string::npos) << log;
  const json j = load(s / "fuzz.json");
  EXPECT_EQ(j["iterations"], 30);
  EXPECT_EQ(j["findings_count"], 0);
}

TEST(FuzzThroughTheAgent, ACrashInTheKernelLogIsAFindingWithItsSplat) {
  Scratch s;
  const std::string kmsg = s / "kmsg";
  std::ofstream(kmsg) << "[   0.1] booted\n";
  AgentProcess agent("127.0.0.1:0", {"--kernel-log", kmsg});
  int code = -1;
  std::thread run([&] {
    code = fuzz("--agent " + agent.url() + " --token " + kToken +
                    " --case ddp-echo-msn-increment --seconds 60 --revive 2 --time-scale 0.25 --out " + s / "out" +
                    " --json " + s / "fuzz.json",
                s / "log");
  });
  std::this_thread::sleep_for(2s);
  std::ofstream(kmsg, std::ios::app) << "[  10.0] BUG: kernel NULL pointer dereference, address: 0000000000000004\n"
                                        "[  10.1] RIP: 0010:memcpy_erms+0x6/0x10\n"
                                        "[  10.2] Call Trace:\n"
                                        "[  10.3]  <TASK>\n"
                                        "[  10.4]  kmemdup+0x32/0x40\n"
                                        "[  10.5]  cm_event_handler+0x1c6/0x240 [iw_cm]\n"
                                        "[  10.6] ---[ end trace 0000000000000000 ]---\n";
  run.join();
  const std::string log = slurp(s / "log");
  EXPECT_EQ(code, 1) << log;
  EXPECT_NE(log.find("reading the host's kernel log through the agent"), std::string::npos) << log;
  const json j = load(s / "fuzz.json");
  ASSERT_EQ(j["findings"].size(), 1u) << j.dump(2);
  const json& f = j["findings"][0];
  EXPECT_EQ(f["kind"], "host-unhealthy");
  EXPECT_EQ(f["signature"], "kernel: BUG: kernel NULL pointer dereference in memcpy_erms <- kmemdup <- cm_event_handler");
  EXPECT_EQ(j["host_unhealthy"], 1);
  EXPECT_NE(j["stopped"].get<std::string>().find("host did not recover"), std::string::npos) << j["stopped"];
  const std::string splat = slurp(f["folder"].get<std::string>() + "/kernel.txt");
  EXPECT_NE(splat.find("kmemdup+0x32/0x40"), std::string::npos) << splat;
}

TEST(FuzzThroughTheAgent, AnAgentThatGoesAwayIsAFinding) {
  Scratch s;
  auto agent = std::make_unique<AgentProcess>();
  int code = -1;
  std::thread run([&] {
    code = fuzz("--agent " + agent->url() + " --token " + kToken +
                    " --case 'ddp-echo-*' --seconds 60 --revive 1 --time-scale 0.25 --json " + s / "fuzz.json",
                s / "log");
  });
  std::this_thread::sleep_for(2s);
  agent->stop();
  run.join();
  EXPECT_EQ(code, 1) << slurp(s / "log");
  const json j = load(s / "fuzz.json");
  ASSERT_EQ(j["findings"].size(), 1u) << j.dump(2);
  EXPECT_EQ(j["findings"][0]["signature"], "agent gone");
  EXPECT_EQ(j["findings"][0]["kind"], "host-unhealthy");
}

// An agent that goes away, and a restore command that starts it again (on
// the same control address, a new process without listeners), as a lab's
// driver reload or the harness's reboot does: the fuzzer waits for the new
// agent, has it listen again and fuzzes on to the end of its time. The
// agent is the test's and the restorer's both, one at a time: on a loaded
// machine the fuzzer may ask for a restore before the test stops the agent.
TEST(FuzzThroughTheAgent, ARestoreCommandBringsTheAgentBackAndTheRunGoesOn) {
  Scratch s;
  std::mutex agent_mutex;
  auto agent = std::make_unique<AgentProcess>();
  const std::string control = agent->address();
  const std::string request = s / "restore.request", done = s / "restore.done";
  std::atomic<bool> stop{false};
  std::atomic<int> restores{0};
  std::thread restorer([&] {
    while (!stop) {
      if (fs::exists(request)) {
        fs::remove(request);
        const std::lock_guard<std::mutex> lock(agent_mutex);
        agent.reset();
        agent = std::make_unique<AgentProcess>(control);
        ++restores;
        std::ofstream(done).put('\n');
      }
      std::this_thread::sleep_for(5ms);
    }
  });
  const std::string command = "'touch " + request + "; while [ ! -e " + done + " ]; do sleep 0.05; done; rm " + done + "'";
  int code = -1;
  std::thread run([&] {
    code = fuzz("--agent http://" + control + " --token " + kToken +
                    " --case 'ddp-echo-*' --seconds 20 --revive 10 --time-scale 0.25 --minimize-runs 2 --restore-command " +
                    command + " --out " + s / "out" + " --json " + s / "fuzz.json",
                s / "log");
  });
  std::this_thread::sleep_for(3s);
  {
    const std::lock_guard<std::mutex> lock(agent_mutex);
    agent->stop();  // gone, as a crashed host's agent is
  }
  run.join();
  stop = true;
  restorer.join();
  EXPECT_EQ(code, 1) << slurp(s / "log");
  EXPECT_GE(restores.load(), 1);
  const json j = load(s / "fuzz.json");
  // Restored, listening again: the run went on to its end.
  EXPECT_EQ(j["stopped"], "time") << j.dump(2) << slurp(s / "log");
  ASSERT_GE(j["findings"].size(), 1u) << j.dump(2);
  const json& findings = j["findings"];
  EXPECT_TRUE(std::any_of(findings.begin(), findings.end(), [](const json& f) { return f["signature"] == "agent gone"; }))
      << j.dump(2);
  EXPECT_NE(slurp(s / "log").find("fuzz: restore 1 took "), std::string::npos) << slurp(s / "log");
  EXPECT_NE(slurp(s / "out/restore.log").find("== restore 1: exit status 0"), std::string::npos);
}

}  // namespace
