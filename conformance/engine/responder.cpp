// The reference implementation as the implementation under test
// (responder.hpp): listening, accepting and connecting, one thread per
// connection. Serving a connection is responder_mpa.cpp's (iWARP) or
// responder_clc.cpp's (CLC); responder_internal.hpp says who does what.
#include "engine/responder.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/responder_internal.hpp"

namespace rdmaconf::conformance {
namespace {

using iut::Socket;

std::string socket_address(int fd, bool peer) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if ((peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len)
            : ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len)) != 0)
    return "?";
  char host[INET6_ADDRSTRLEN] = {};
  if (a.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
    ::inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(in6->sin6_port));
  }
  const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
  ::inet_ntop(AF_INET, &in->sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(in->sin_port));
}

int open_listener(const std::string& host, std::uint16_t port, std::uint16_t& bound, std::string& error) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) {
    error = "cannot resolve " + host;
    return -1;
  }
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, res->ai_addr, res->ai_addrlen) < 0 || ::listen(fd, 128) < 0) {
    error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    ::freeaddrinfo(res);
    ::close(fd);
    return -1;
  }
  ::freeaddrinfo(res);
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  bound = a.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&a)->sin6_port)
                                  : ntohs(reinterpret_cast<sockaddr_in*>(&a)->sin_port);
  return fd;
}

}  // namespace

ReferenceIut::ReferenceIut(FaultSet faults) : faults_(faults) {}
ReferenceIut::~ReferenceIut() { stop(); }

bool ReferenceIut::listen(const std::string& host, std::uint16_t port, std::string& error) {
  listen_fd_ = open_listener(host, port, port_, error);
  if (listen_fd_ < 0) return false;
  std::lock_guard lock(mu_);
  threads_.emplace_back([this] { accept_loop(listen_fd_, false); });
  return true;
}

bool ReferenceIut::listen_clc(const std::string& host, std::uint16_t port, std::string& error) {
  clc_listen_fd_ = open_listener(host, port, clc_port_, error);
  if (clc_listen_fd_ < 0) return false;
  std::lock_guard lock(mu_);
  threads_.emplace_back([this] { accept_loop(clc_listen_fd_, true); });
  return true;
}

void ReferenceIut::accept_loop(int lfd, bool clc) {
  while (!stopping_) {
    pollfd p{lfd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    spawn(fd, clc, false, {});
  }
}

void ReferenceIut::spawn(int fd, bool clc, bool initiator, InitiatorProfile profile) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::lock_guard lock(mu_);
  if (stopping_) {
    ::close(fd);
    return;
  }
  const std::uint8_t stag_key = next_stag_key_;
  next_stag_key_ = static_cast<std::uint8_t>(next_stag_key_ + iut::kStagKeysPerConnection);
  threads_.emplace_back([this, fd, clc, initiator, profile, stag_key] {
    Socket s{fd, stopping_};
    s.stag_key = stag_key;
    s.observer = &observer_;
    s.mpa = initiator ? profile.mpa : mpa_;
    if (observer_) {
      s.local = socket_address(fd, false);
      s.peer = socket_address(fd, true);
    }
    if (clc) iut::serve_clc(s, faults_, initiator);
    else iut::serve_iwarp(s, faults_, initiator, profile);
    s.emit(IutEvent::Kind::kConnection, "closed");
    ::close(fd);
  });
}

bool ReferenceIut::connect(const std::string& host, std::uint16_t port, bool clc, InitiatorProfile profile) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res) != 0 || !res) return false;
  const int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool ok = ::connect(fd, res->ai_addr, res->ai_addrlen) == 0;
  ::freeaddrinfo(res);
  if (!ok) {
    ::close(fd);
    return false;
  }
  spawn(fd, clc, true, profile);
  return true;
}

void ReferenceIut::stop() {
  stopping_ = true;
  std::vector<std::thread> ts;
  {
    std::lock_guard lock(mu_);
    ts.swap(threads_);
  }
  for (auto& t : ts)
    if (t.joinable()) t.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (clc_listen_fd_ >= 0) ::close(clc_listen_fd_);
  listen_fd_ = clc_listen_fd_ = -1;
}

}  // namespace rdmaconf::conformance
