// Who the tester's CLC peer says it is: the identity its Proposal (client)
// or Accept (server) carries. A real SMC-R peer judges it against its own
// network, so against a real IUT these values must be the tester's own:
//   - the IPv4 prefix (RFC 7609 App. A.2.2; §3.5.1.2: a server shares a
//     subnet with the client or declines) is, by default, the subnet of the
//     interface that holds the connection's local address, as Linux computes
//     its own (smc_clc_prfx_set);
//   - the RoCE GID and MAC (RFC 7609 App. A.2.1, A.2.2; SMC v2: the RoCEv2
//     GID of the v2 extension is an IPv4-mapped address a server routes to,
//     and Linux takes the Proposal's MAC as the next hop's) can be learned
//     from the connection too: the RoCEv2 GID an RDMA device on that
//     interface holds (::ffff:a.b.c.d) and the interface's MAC;
//   - the User Defined EID (SMC v2) must be one the IUT is configured with.
// Without options GID and MAC are fixed values, which the reference IUT and
// the loopback interface (whose MAC is zero) need.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "clc/handshake.hpp"

namespace rdmaconf::conformance {

struct ClcIdentity {
  std::string eid = "RDMACONF-TEST-EID";
  std::optional<clc::Ipv4Prefix> ipv4;  // unset: learned from the connection
  std::optional<clc::Gid> gid;          // unset: kFixedGid, or learned when gid_from_connection
  std::optional<clc::Mac> mac;          // unset: the fixed MAC, or learned when mac_from_connection
  bool gid_from_connection = false;
  bool mac_from_connection = false;
};

// What the tester says about itself on one connection.
struct ClcResolved {
  std::string eid;
  clc::Ipv4Prefix ipv4;
  clc::Gid gid{};
  clc::Mac mac{};
  bool fixed_mac = true;  // neither given nor learned: a server side picks its own fixed one
  std::string note;  // what could not be learned, and what was used instead
};

// What the interface holding `fd`'s local IPv4 address tells: the subnet
// (address AND netmask) and prefix length, and the interface's MAC (unset
// when it has none, or an all-zero one like loopback). Unset entirely when
// the local address is not IPv4 or no interface holds it.
struct LocalInterface {
  std::string name;
  std::uint32_t address = 0;
  clc::Ipv4Prefix prefix;
  std::optional<clc::Mac> mac;
};
std::optional<LocalInterface> local_interface(int fd);

// The RoCEv2 GID of an IPv4 address: the IPv4-mapped IPv6 address.
clc::Gid ipv4_mapped_gid(std::uint32_t address);

// The identity for one connection (`fd` may be -1: nothing learned).
ClcResolved resolve_identity(const ClcIdentity& id, int fd);

// The tester's CLC client and server for one connection: fixed link values
// and the resolved identity. The runner's clc.* units and the probe before
// a run (probe.hpp) build their messages with them.
clc::ClientConfig tester_client(const ClcResolved& id);
clc::ServerConfig tester_server(const ClcResolved& id);

// Option parsers for `rdmaconf run`: "A.B.C.D/N", an IPv6 address or 32 hex
// digits, "aa:bb:cc:dd:ee:ff". Unset on malformed text.
std::optional<clc::Ipv4Prefix> parse_ipv4_prefix(std::string_view text);
std::optional<clc::Gid> parse_gid(std::string_view text);
std::optional<clc::Mac> parse_mac(std::string_view text);

}  // namespace rdmaconf::conformance
