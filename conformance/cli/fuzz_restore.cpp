// The restore command of `rdmaconf fuzz` (fuzz_restore.hpp).
#include "cli/fuzz_restore.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <thread>
#include <vector>

extern char** environ;

namespace rdmaconf::cli {
namespace {

std::string restore_started_at() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The last `lines` lines of a command's output, on one line, for a message.
std::string restore_said(const std::string& out, std::size_t lines) {
  std::vector<std::string> all;
  std::string cur;
  for (char c : out) {
    if (c != '\n' && c != '\r') {
      cur += c;
    } else if (!cur.empty()) {
      all.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) all.push_back(cur);
  std::string s;
  for (std::size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i)
    s += (s.empty() ? "" : " | ") + all[i];
  return s;
}

// Ends a command's process group: SIGTERM, a few seconds, then SIGKILL.
void end_restore_group(pid_t pid, int& status) {
  ::kill(-pid, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      ::kill(-pid, SIGKILL);  // what it left behind in its group
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(-pid, SIGKILL);
  ::waitpid(pid, &status, 0);
}

}  // namespace

RestoreCommand::RestoreCommand(std::string command, std::chrono::milliseconds bound, std::string log_path,
                               const std::atomic<bool>* cancel)
    : command_(std::move(command)), bound_(bound), log_path_(std::move(log_path)), cancel_(cancel) {}

bool RestoreCommand::run(std::string& why) {
  ++runs_;
  const auto t0 = std::chrono::steady_clock::now();
  std::ofstream log;
  if (!log_path_.empty()) log.open(log_path_, std::ios::app);
  if (log) log << "== restore " << runs_ << " at " << restore_started_at() << ": " << command_ << "\n" << std::flush;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    why = std::string("cannot make a pipe for the restore command: ") + std::strerror(errno);
    return false;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own, so that a command that overruns its bound is ended
  // with what it started; signals as a shell expects them.
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, s);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  std::vector<char> cmd(command_.begin(), command_.end());
  cmd.push_back('\0');
  char sh[] = "sh", dash_c[] = "-c";
  char* argv[] = {sh, dash_c, cmd.data(), nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, "/bin/sh", &fa, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (spawned != 0) {
    ::close(fds[0]);
    why = std::string("cannot start /bin/sh for the restore command: ") + std::strerror(spawned);
    return false;
  }
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  std::string tail;
  bool eof = false;
  auto drain = [&] {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n == 0) eof = true;
      if (n <= 0) return;
      if (log) log.write(buf, n).flush();
      tail.append(buf, static_cast<std::size_t>(n));
      if (tail.size() > 16384) tail.erase(0, tail.size() - 8192);
    }
  };
  const auto deadline = t0 + bound_;
  int status = 0;
  std::string failed;
  for (;;) {
    // What it left running (a restarted daemon) may hold the pipe open: the
    // command's end is its own exit, not the pipe's.
    if (eof) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } else {
      pollfd p{fds[0], POLLIN, 0};
      ::poll(&p, 1, 100);
    }
    drain();
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      drain();
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      failed = "no end within " + std::to_string(bound_.count() / 1000) + " s (its process group ended)";
      end_restore_group(pid, status);
      drain();
      break;
    }
    if (cancel_ && cancel_->load()) {
      failed = "cancelled";
      end_restore_group(pid, status);
      drain();
      break;
    }
  }
  ::close(fds[0]);
  last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failed.empty()) {
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) failed = "exit status " + std::to_string(WEXITSTATUS(status));
    else if (WIFSIGNALED(status)) failed = "killed by signal " + std::to_string(WTERMSIG(status));
  }
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.1f", last_seconds_);
  if (log) log << "== restore " << runs_ << ": " << (failed.empty() ? "exit status 0" : failed) << " after " << seconds
               << " s\n" << std::flush;
  if (failed.empty()) return true;
  why = "the restore command (" + command_ + "): " + failed + " after " + seconds + " s";
  if (const std::string said = restore_said(tail, 3); !said.empty()) why += "; it said: " + said;
  return false;
}

}  // namespace rdmaconf::cli
