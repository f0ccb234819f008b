// Test support: a peer on loopback TCP that plays what a test needs of a
// target that is not an implementation under test (an HTTP server, a TLS
// server, one that stays silent or closes). The engine's probe tests and the
// command line's run tests share it.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>

#include "loopback_listener.hpp"

namespace rdmaconf::test_support {

class LoopbackPeer {
 public:
  enum class Then { kHold, kClose };       // after answering: read until the tester closes, or close
  enum class Read { kExactly, kWhatCame };  // before answering: `read_first` octets, or the first that came
  struct Play {
    std::string answer;  // sent once the first octets are read; empty: nothing
    Then then = Then::kClose;
    std::size_t read_first = 20;  // an MPA Request's fixed part; 0: answer at once
    Read read = Read::kExactly;
    bool every_connection = false;  // answer every connection the same, not the first only
  };

  explicit LoopbackPeer(Play play) {
    const LoopbackListener l = listen_loopback();
    fd_ = l.fd;
    port_ = l.port;
    thread_ = std::thread([this, play = std::move(play)] {
      do {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        serve(c, play);
      } while (play.every_connection);
    });
  }
  ~LoopbackPeer() {
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    if (thread_.joinable()) thread_.join();
  }
  LoopbackPeer(const LoopbackPeer&) = delete;
  LoopbackPeer& operator=(const LoopbackPeer&) = delete;

  std::uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

 private:
  static void serve(int c, const Play& play) {
    std::uint8_t buf[1024];
    if (play.read_first != 0)
      (void)::recv(c, buf, std::min(play.read_first, sizeof buf), play.read == Read::kExactly ? MSG_WAITALL : 0);
    if (!play.answer.empty()) (void)::send(c, play.answer.data(), play.answer.size(), MSG_NOSIGNAL);
    if (play.then == Then::kHold)
      while (::recv(c, buf, sizeof buf, 0) > 0) {
      }
    ::close(c);
  }

  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace rdmaconf::test_support
