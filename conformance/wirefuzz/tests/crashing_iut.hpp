// The reference IUT with a planted crash (test only): when it has sent a
// Terminate for an MSN out of range it dies (stops taking connections and
// drops every one it has), and a supervisor starts it again on the same
// port 300 ms later, as systemd or the interop harness would. A crash that
// takes its time (`late`) lets that many more connections through first,
// and dies at the next one.
//
// A crash of a real IUT is ordered with what the tester does: the message
// that kills it arrives before the tester's next connection, and that
// connection finds it dead. The reference serves each connection on its own
// thread, and on a loaded machine that thread may run only after the
// tester's next connection was answered, or the death, left to a polling
// supervisor, may come after it: the liveness check then passes and the
// death is charged to a later input. So the tester meets the IUT through a
// relay, one thread, which keeps the order:
//   - it forwards what every connection received before it looks at a new
//     connection, and answers a new one only once the IUT's threads serving
//     connections are idle (ServingThreads: they acted on all they were sent);
//   - the death happens in the crashing connection's own thread: the relay's
//     listener is shut and every connection shut down before that thread
//     goes on.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/responder.hpp"
#include "tests/support/loopback_listener.hpp"

namespace rdmaconf::test_support {

// The threads of a ReferenceIut that serve connections past their
// handshake, as its observer learns them (the thread that serves a
// connection reports its events), and whether they are idle: a thread
// asleep (in its poll) has read and acted on all it was sent, since data
// queued to its socket would have woken it. A planted fault that acts on
// what the IUT did waits for that before it answers (the crashing host of
// wirefuzz_test.cpp and the crashing initiator of targets_test.cpp too).
class ServingThreads {
 public:
  void on_event(const conformance::IutEvent& e) {
    if (e.kind != conformance::IutEvent::Kind::kConnection) return;
    std::lock_guard lock(mu_);
    if (e.name == "established") tids_.insert(::gettid());
    else if (e.name == "closed") tids_.erase(::gettid());
  }
  // Runs `start`, and counts the threads it started (what the process
  // gained meanwhile) from their first instruction, before they report
  // anything: the reference as MPA initiator (ReferenceIut::connect) reports
  // its connection only once it has taken the Reply, which is what a planted
  // fault may act on.
  template <typename Start>
  void started_by(Start&& start) {
    const std::set<pid_t> before = threads();
    start();
    std::lock_guard lock(mu_);
    for (pid_t tid : threads())
      if (!before.contains(tid)) tids_.insert(tid);
  }
  // Until every one is idle, or `bound` passes (false).
  bool wait_idle(std::chrono::milliseconds bound, const std::atomic<bool>* unless = nullptr) const {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    while (!idle()) {
      if ((unless && *unless) || std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
  }
 private:
  static std::set<pid_t> threads() {
    std::set<pid_t> out;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
      out.insert(static_cast<pid_t>(std::stol(task.path().filename().string())));
    return out;
  }
  bool idle() const {
    std::lock_guard lock(mu_);
    for (pid_t tid : tids_) {
      std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
      std::string line;
      if (!std::getline(stat, line)) continue;  // the thread is gone
      const std::size_t at = line.rfind(')');
      if (at != std::string::npos && at + 2 < line.size() && line[at + 2] == 'R') return false;
    }
    return true;
  }

  mutable std::mutex mu_;
  std::set<pid_t> tids_;
};

class CrashingIut {
 public:
  explicit CrashingIut(bool plant, bool restart = true, int late = 0) : plant_(plant), restart_(restart), late_(late) {
    start();
    const LoopbackListener l = listen_loopback(0);
    fd_ = l.fd;
    port_ = l.port;
    relay_ = std::thread([this] { run(); });
  }
  ~CrashingIut() {
    stop_ = true;
    relay_.join();
    for (const Pair& p : pairs_) {
      ::close(p.tester);
      ::close(p.iut);
    }
    iut_->stop();
    if (fd_ >= 0) ::close(fd_);
  }
  CrashingIut(const CrashingIut&) = delete;
  CrashingIut& operator=(const CrashingIut&) = delete;

  std::uint16_t port() const { return port_; }
  int crashes() const { return crashes_; }

 private:
  struct Pair {
    int tester, iut;
  };

  void start() {
    iut_ = std::make_unique<conformance::ReferenceIut>();
    iut_->set_observer([this](const conformance::IutEvent& e) {
      using K = conformance::IutEvent::Kind;
      serving_.on_event(e);
      if (plant_ && e.kind == K::kAsync && e.name == "terminate_sent" && e.detail.find("MSN") != std::string::npos)
        crashed();
    });
    std::string error;
    ASSERT_TRUE(iut_->listen("127.0.0.1", 0, error)) << error;
  }

  // From the crashing connection's thread: the death, at once, or once
  // `late_` more connections got through.
  void crashed() {
    std::lock_guard lock(mu_);
    if (dead_ || doom_ >= 0) return;
    doom_ = late_;
    if (doom_ == 0) die();
  }
  // Under mu_: refused from now on, every connection ended.
  void die() {
    dead_ = true;
    doom_ = -1;
    ++crashes_;
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
    for (const Pair& p : pairs_) ::shutdown(p.tester, SHUT_RDWR);
  }

  void close_pair(std::size_t i) {
    std::lock_guard lock(mu_);
    ::close(pairs_[i].tester);
    ::close(pairs_[i].iut);
    pairs_.erase(pairs_.begin() + static_cast<std::ptrdiff_t>(i));
  }

  // The supervisor, after a death: the old IUT stopped, every connection
  // closed, and (restart_) a new IUT and the listener again 300 ms later.
  void supervise() {
    iut_->stop();
    {
      std::lock_guard lock(mu_);
      if (fd_ >= 0) ::close(fd_);
      fd_ = -1;
      for (const Pair& p : pairs_) {
        ::close(p.tester);
        ::close(p.iut);
      }
      pairs_.clear();
    }
    if (!restart_) {
      while (!stop_) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    start();
    std::lock_guard lock(mu_);
    fd_ = listen_loopback(port_).fd;
    dead_ = false;
  }

  // The relay, one thread: every connection's octets first, both ways, then
  // a new connection once the IUT is idle.
  void run() {
    std::uint8_t buf[16384];
    while (!stop_) {
      if (dead_) {
        supervise();
        continue;
      }
      std::vector<pollfd> p;
      for (const Pair& pair : pairs_) {
        p.push_back({pair.tester, POLLIN, 0});
        p.push_back({pair.iut, POLLIN, 0});
      }
      p.push_back({fd_, POLLIN, 0});
      if (::poll(p.data(), p.size(), 5) <= 0) continue;
      bool moved = false;
      for (std::size_t i = pairs_.size(); i-- > 0;) {
        for (int side = 0; side < 2; ++side) {
          if (p[2 * i + static_cast<std::size_t>(side)].revents == 0) continue;
          const int from = side == 0 ? pairs_[i].tester : pairs_[i].iut;
          const int to = side == 0 ? pairs_[i].iut : pairs_[i].tester;
          const ssize_t n = ::recv(from, buf, sizeof buf, 0);
          if (n <= 0 || ::send(to, buf, static_cast<std::size_t>(n), MSG_NOSIGNAL) != n) {
            close_pair(i);
            break;
          }
          moved = true;
        }
      }
      // What came on the connections is forwarded before a new one is
      // looked at: the next poll reads what is left of it.
      if (moved || p.back().revents == 0) continue;
      serving_.wait_idle(std::chrono::milliseconds(2000), &dead_);
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      std::string error;
      const int u = conformance::tcp_connector("127.0.0.1", iut_->port(), std::chrono::milliseconds(1000))(
          conformance::Case{}, error);
      std::lock_guard lock(mu_);
      if (doom_ == 0) die();
      if (u < 0 || dead_) {  // died while this one waited, or dies of it
        ::close(c);
        if (u >= 0) ::close(u);
        continue;
      }
      if (doom_ > 0) --doom_;
      pairs_.push_back({c, u});
    }
  }

  const bool plant_, restart_;
  const int late_;
  std::unique_ptr<conformance::ReferenceIut> iut_;  // the relay thread's, after the constructor
  std::mutex mu_;  // fd_ and pairs_ (the relay's, shut down by die() from the IUT's threads), doom_
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::vector<Pair> pairs_;  // each connection relayed: the tester's side, the IUT's side
  ServingThreads serving_;
  std::atomic<bool> dead_{false};  // written under mu_
  int doom_ = -1;                  // under mu_: after the crash, connections still let through
  std::atomic<bool> stop_{false};
  std::atomic<int> crashes_{0};
  std::thread relay_;
};

}  // namespace rdmaconf::test_support
