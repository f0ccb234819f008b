// `rdmaconf fuzz --restore-command CMD` (docs/fuzzing.md, "Restoring a
// device"): the command that brings a target the fuzzer cannot restore by
// itself back to a fresh state (a driver reloaded and its agent started
// again, a guest or a host rebooted), so that a finding that takes several
// inputs is minimized on a device as on the reference.
//
// The command runs under /bin/sh, in a process group of its own, with its
// standard output and error appended to a log; it has a bound (a command
// that hangs is ended, its group sent SIGTERM and then SIGKILL) and a
// failure (its exit status, its bound, a cancel) is said, with the end of
// what it printed. What it leaves running (a restarted agent or target) is
// its own: only a command that overran its bound has its group ended.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace rdmaconf::cli {

class RestoreCommand {
 public:
  // `log_path` empty: the output is kept only for a failure's message.
  RestoreCommand(std::string command, std::chrono::milliseconds bound, std::string log_path,
                 const std::atomic<bool>* cancel = nullptr);

  // Runs the command once and waits for it (at most the bound). False with
  // `why`: "exit status 3", "killed by signal 9", "no end within 600 s",
  // "cancelled", "cannot start /bin/sh: ...", each with the last lines of
  // its output.
  bool run(std::string& why);

  int runs() const { return runs_; }
  double last_seconds() const { return last_seconds_; }
  const std::string& command() const { return command_; }

 private:
  std::string command_;
  std::chrono::milliseconds bound_;
  std::string log_path_;
  const std::atomic<bool>* cancel_;
  int runs_ = 0;
  double last_seconds_ = 0;
};

}  // namespace rdmaconf::cli
