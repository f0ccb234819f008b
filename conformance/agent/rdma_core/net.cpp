#include "agent/rdma_core/net.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cstring>

namespace rdmaconf::agent::rdma_core {

bool resolve_numeric(const std::string& host, std::uint16_t port, sockaddr_storage& out, socklen_t& len,
                     std::string& error) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
  addrinfo* res = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res);
  if (rc != 0 || !res || res->ai_addrlen > sizeof out) {
    error = "not a numeric IP address: " + host + (rc != 0 ? std::string(" (") + ::gai_strerror(rc) + ")" : "");
    if (res) ::freeaddrinfo(res);
    return false;
  }
  std::memset(&out, 0, sizeof out);
  std::memcpy(&out, res->ai_addr, res->ai_addrlen);
  len = res->ai_addrlen;
  ::freeaddrinfo(res);
  return true;
}

std::string format_sockaddr(const sockaddr* sa) {
  if (!sa) return "";
  char ip[INET6_ADDRSTRLEN] = {};
  if (sa->sa_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(sa);
    ::inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
    return std::string(ip) + ":" + std::to_string(ntohs(a->sin_port));
  }
  if (sa->sa_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(sa);
    ::inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
    return "[" + std::string(ip) + "]:" + std::to_string(ntohs(a->sin6_port));
  }
  return "";
}

std::string local_address(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return "";
  return format_sockaddr(reinterpret_cast<sockaddr*>(&a));
}

std::string peer_address(int fd) {
  sockaddr_storage a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) return "";
  return format_sockaddr(reinterpret_cast<sockaddr*>(&a));
}

}  // namespace rdmaconf::agent::rdma_core
