// Socket address helpers shared by the verbs and the AF_SMC sides.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace rdmaconf::agent::rdma_core {

// A numeric IPv4/IPv6 address and port (no name lookups: the agent is told
// addresses, it never resolves names). false with `error` otherwise.
bool resolve_numeric(const std::string& host, std::uint16_t port, sockaddr_storage& out, socklen_t& len,
                     std::string& error);
// "10.0.0.2:7001", "[fd00::2]:7001"; "" for a null or unknown family.
std::string format_sockaddr(const sockaddr* sa);
std::string local_address(int fd);
std::string peer_address(int fd);

}  // namespace rdmaconf::agent::rdma_core
