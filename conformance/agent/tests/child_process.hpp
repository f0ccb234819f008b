// Test support for the end-to-end tests, which run the programs as a user
// does: a program the test starts as a child process (rdmaconf-agent,
// `rdmaconf responder`), as a user would in a second terminal, whose
// standard output is read until a line names the address it listens on,
// "127.0.0.1:PORT", after `marker`, and which is stopped with SIGTERM to its
// PID and reaped; an `rdmaconf` command run to its end, its output in a log
// file; and the files it writes read back.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

extern char** environ;

namespace rdmaconf::agent::testing {

class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> args, const std::string& marker) {
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
      const auto m = l.find(marker);
      if (m == std::string::npos) continue;
      const auto at = l.find("127.0.0.1:", m);
      if (at == std::string::npos) continue;
      address_ = l.substr(at, l.find_first_not_of("0123456789.:", at) - at);
      break;
    }
    EXPECT_FALSE(address_.empty()) << "the process printed no address after '" << marker << "'";
  }
  ~ChildProcess() { stop(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // SIGTERM, then 10 s for it to end: a program that does not end on it
  // fails the test (and is killed) rather than hanging it.
  void stop() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      bool ended = false;
      for (int i = 0; i < 1000 && !ended; ++i) {
        ended = ::waitpid(pid_, &status, WNOHANG) == pid_;
        if (!ended) ::usleep(10'000);
      }
      if (!ended) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
      }
      EXPECT_TRUE(ended) << "process " << pid_ << " did not end within 10 s of SIGTERM";
      pid_ = -1;
    }
    if (out_) std::fclose(out_);
    out_ = nullptr;
  }
  // "127.0.0.1:PORT"
  const std::string& address() const { return address_; }
  std::string port() const { return address_.substr(address_.rfind(':') + 1); }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  std::string address_;
};

// The token the agents these tests start take.
inline constexpr const char* kToken = "e2e-token";

// rdmaconf-agent with the reference backend, its control channel on
// `control` (port 0: one the kernel picks), `more` arguments after.
struct AgentProcess : ChildProcess {
  explicit AgentProcess(const std::string& control = "127.0.0.1:0", const std::vector<std::string>& more = {})
      : ChildProcess(arguments(control, more), "control http://") {}
  std::string url() const { return "http://" + address(); }

 private:
  static std::vector<std::string> arguments(const std::string& control, const std::vector<std::string>& more) {
    std::vector<std::string> a{RDMACONF_AGENT_EXE, "--backend", "reference", "--control", control, "--token", kToken};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  }
};

// `rdmaconf SUBCOMMAND ARGS > LOG 2>&1` (ARGS as a shell reads them); its
// exit code, -1 when it did not exit.
inline int rdmaconf_command(const std::string& subcommand, const std::string& args, const std::string& log) {
  const std::string cmd = std::string(RDMACONF_EXE) + " " + subcommand + " " + args + " > " + log + " 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A JSON file (a discarded value when it is missing or not JSON).
inline nlohmann::json load(const std::string& path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f, nullptr, false);
}

inline std::string slurp(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace rdmaconf::agent::testing
