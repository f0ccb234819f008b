// Test support: a TCP listener on 127.0.0.1, on a given port or (0) one the
// kernel picks. The loopback peer and the wire fuzzer tests' relays, which
// "crash" by closing their listener and come back on the same port, listen
// through it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <gtest/gtest.h>

#include <cstdint>

namespace rdmaconf::test_support {

struct LoopbackListener {
  int fd = -1;
  std::uint16_t port = 0;  // the port it listens on (the kernel's choice for 0)
};

// SO_REUSEADDR: listening again on the port of a listener just closed must
// not wait for its connections' TIME_WAIT.
inline LoopbackListener listen_loopback(std::uint16_t port = 0) {
  LoopbackListener l;
  l.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  EXPECT_GE(l.fd, 0);
  int one = 1;
  ::setsockopt(l.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  EXPECT_EQ(::bind(l.fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << "127.0.0.1:" << port;
  EXPECT_EQ(::listen(l.fd, 16), 0);
  socklen_t len = sizeof a;
  ::getsockname(l.fd, reinterpret_cast<sockaddr*>(&a), &len);
  l.port = ntohs(a.sin_port);
  return l;
}

}  // namespace rdmaconf::test_support
