// A planted target whose failure takes several inputs (test only), as siw's
// lost listener (docs/interop.md, "siw stops accepting connections"): the
// reference behind a TCP relay that loses its listener once `needed` TCP
// connections were closed by the tester before their MPA Request was whole
// (fewer than its 20 octets of key, flags and length sent; RFC 5044
// §7.1.2). One such connection, or two, leaves it answering as before. Once
// lost, every connection is refused until restore() (a restart: the count
// starts over), as a reboot of siw's host would.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "engine/responder.hpp"
#include "tests/support/loopback_listener.hpp"

namespace rdmaconf::test_support {

class ListenerLossRelay {
 public:
  explicit ListenerLossRelay(int needed) : needed_(needed) {
    std::string error;
    EXPECT_TRUE(iut_.listen("127.0.0.1", 0, error)) << error;
    const LoopbackListener l = listen_loopback(0);
    fd_ = l.fd;
    port_ = l.port;
    thread_ = std::thread([this] { run(); });
  }
  ~ListenerLossRelay() {
    stop_ = true;
    thread_.join();
    std::lock_guard lock(mu_);
    for (auto& t : pumps_) t.join();
    if (fd_ >= 0) ::close(fd_);
    iut_.stop();
  }
  std::uint16_t port() const { return port_; }
  int losses() const { return losses_; }
  int early_closes() const { return early_; }
  bool lost() const { return lost_; }
  // The listener again on its port, the count of early closes from zero.
  bool restore() {
    restore_ = true;
    for (int i = 0; i < 2000 && restore_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ++restores_;
    return !restore_;
  }
  int restores() const { return restores_; }
  // How many early closes lose the listener from now on (a target whose
  // failure the same inputs do not always make).
  void set_needed(int needed) { needed_ = needed; }
  // Refuse every connection whose Request asks for Markers (M set): the
  // relay closes it once the flags arrive, as siw closes on a Request it
  // will not take, and goes on answering the others.
  void refuse_markers() { refuse_markers_ = true; }
  int refused() const { return refused_; }

 private:
  static constexpr std::size_t kRequestHeader = 20;  // key (16), flags and Rev (2), PD_Length (2)

  void run() {
    while (!stop_) {
      if (restore_) {
        if (fd_ < 0) fd_ = listen_loopback(port_).fd;
        early_ = 0;
        lost_ = false;
        restore_ = false;
      }
      if (lost_ && fd_ >= 0) {  // the listener goes: connections are refused from now on
        ::close(fd_);
        fd_ = -1;
        ++losses_;
      }
      if (fd_ < 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 5) <= 0) continue;
      const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      // A close the tester made before this connection is counted first
      // (its pump may not have read it yet): the loss must not depend on
      // which thread runs first.
      for (int i = 0; i < 500 && unread(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      if (lost_) {  // lost while this one waited to be accepted
        ::close(c);
        continue;
      }
      const int u = conformance::tcp_connector("127.0.0.1", iut_.port(), std::chrono::milliseconds(1000))(conformance::Case{}, error_);
      if (u < 0) {
        ::close(c);
        continue;
      }
      std::lock_guard lock(mu_);
      testers_.push_back(c);
      pumps_.emplace_back([this, c, u] { pump(c, u); });
    }
  }
  // Both directions until either side closes; a tester that closes first,
  // having sent less than a Request's header, counts.
  void pump(int tester, int iut) {
    pollfd p[2] = {{tester, POLLIN, 0}, {iut, POLLIN, 0}};
    std::uint8_t buf[16384];
    std::size_t from_tester = 0;
    while (!stop_) {
      const int n = ::poll(p, 2, 50);
      if (n < 0) break;
      if (n == 0) continue;
      const int from = (p[0].revents != 0) ? 0 : 1;
      const ssize_t got = ::recv(p[from].fd, buf, sizeof buf, 0);
      if (got <= 0) {
        if (from == 0 && from_tester < kRequestHeader && ++early_ >= needed_) lost_ = true;
        break;
      }
      if (from == 0) {
        // The Request's flags octet (after the 16-octet key): M is its top bit (RFC 5044 §7.1).
        if (refuse_markers_ && from_tester <= 16 && from_tester + static_cast<std::size_t>(got) > 16 &&
            (buf[16 - from_tester] & 0x80) != 0) {
          ++refused_;
          break;
        }
        from_tester += static_cast<std::size_t>(got);
      }
      if (::send(p[1 - from].fd, buf, static_cast<std::size_t>(got), MSG_NOSIGNAL) != got) break;
    }
    {
      std::lock_guard lock(mu_);
      std::erase(testers_, tester);
      ::close(tester);
    }
    ::close(iut);
  }
  // Has a tester's connection something its pump has not read (octets, or
  // its close)?
  bool unread() {
    std::lock_guard lock(mu_);
    std::vector<pollfd> p;
    for (int fd : testers_) p.push_back({fd, POLLIN, 0});
    return !p.empty() && ::poll(p.data(), p.size(), 0) > 0;
  }

  std::atomic<int> needed_;
  conformance::ReferenceIut iut_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> lost_{false}, restore_{false}, stop_{false}, refuse_markers_{false};
  std::atomic<int> early_{0}, losses_{0}, restores_{0}, refused_{0};
  std::string error_;
  std::mutex mu_;
  std::vector<std::thread> pumps_;
  std::vector<int> testers_;  // the tester's side of each connection relayed and still open
  std::thread thread_;
};

}  // namespace rdmaconf::test_support
