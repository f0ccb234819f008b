// `rdmaconf fuzz --agent` against rdmaconf-agent as a user runs them: two
// processes on one host, the reference backend behind the agent. A clean
// run finds nothing; a crash the host's kernel log shows (a file given as
// --kernel-log, written by the test as a kernel would) is a finding with
// the kernel's stack as its signature and its splat beside the script; an
// agent that goes away is a finding too, and both end the run when the host
// does not come back.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

extern char** environ;

namespace {

using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kToken = "fuzz-e2e-token";

// rdmaconf-agent with the reference backend, stopped by SIGTERM to its PID.
class Agent {
 public:
  explicit Agent(const std::string& kernel_log) {
    std::vector<std::string> args{RDMACONF_AGENT_EXE, "--backend", "reference", "--control", "127.0.0.1:0",
                                  "--token",          kToken};
    if (!kernel_log.empty()) args.insert(args.end(), {"--kernel-log", kernel_log});
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    out_ = ::fdopen(out[0], "r");
    char line[512];
    while (out_ && std::fgets(line, sizeof line, out_)) {
      const std::string l(line);
      const auto at = l.find("control http://");
      if (at == std::string::npos) continue;
      url_ = l.substr(at + 8, l.find_first_of(" \n", at + 8) - at - 8);
      break;
    }
    EXPECT_FALSE(url_.empty());
  }
  ~Agent() { stop(); }
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (out_) std::fclose(out_);
    out_ = nullptr;
  }
  const std::string& url() const { return url_; }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  std::string url_;
};

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

int fuzz(const std::string& args, const std::string& log) {
  const std::string cmd = std::string(RDMACONF_EXE) + " fuzz " + args + " > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

json load(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f, nullptr, false);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

TEST(FuzzThroughTheAgent, TheCleanReferenceFindsNothing) {
  Scratch s;
  Agent agent("");
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
  Agent agent(kmsg);
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
  auto agent = std::make_unique<Agent>("");
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

}  // namespace
