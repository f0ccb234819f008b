#include "engine/clc_identity.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>

namespace rdmaconf::conformance {

namespace {
// The tester's fixed client identity: a link-local style GID and a locally
// administered unicast MAC (IEEE 802: I/G bit clear, U/L bit set).
constexpr clc::Gid kFixedGid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0x01};
constexpr clc::Mac kFixedMac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
// What the tester offers when it learns nothing: the loopback network.
constexpr clc::Ipv4Prefix kFixedPrefix{0x7f000000, 8};

std::optional<std::uint32_t> ipv4_of(const sockaddr* sa) {
  if (sa == nullptr || sa->sa_family != AF_INET) return std::nullopt;
  sockaddr_in in{};
  std::memcpy(&in, sa, sizeof in);
  return ntohl(in.sin_addr.s_addr);
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::optional<LocalInterface> local_interface(int fd) {
  sockaddr_storage local{};
  socklen_t len = sizeof local;
  if (fd < 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return std::nullopt;
  const auto address = ipv4_of(reinterpret_cast<const sockaddr*>(&local));
  if (!address) return std::nullopt;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return std::nullopt;
  std::optional<LocalInterface> out;
  for (const ifaddrs* i = list; i != nullptr && !out; i = i->ifa_next) {
    if (ipv4_of(i->ifa_addr) != address) continue;
    const std::uint32_t mask = ipv4_of(i->ifa_netmask).value_or(0xffffffffu);
    LocalInterface li;
    li.name = i->ifa_name != nullptr ? i->ifa_name : "";
    li.address = *address;
    li.prefix = {*address & mask, static_cast<std::uint8_t>(std::popcount(mask))};
    out = li;
  }
  // The interface's hardware address is its AF_PACKET entry.
  for (const ifaddrs* i = list; i != nullptr && out; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_PACKET || i->ifa_name == nullptr || out->name != i->ifa_name)
      continue;
    sockaddr_ll ll{};
    std::memcpy(&ll, i->ifa_addr, sizeof ll);
    if (ll.sll_halen != 6) continue;
    clc::Mac m{};
    std::copy_n(ll.sll_addr, 6, m.begin());
    if (std::any_of(m.begin(), m.end(), [](std::uint8_t b) { return b != 0; })) out->mac = m;
  }
  ::freeifaddrs(list);
  return out;
}

clc::Gid ipv4_mapped_gid(std::uint32_t address) {
  clc::Gid g{};
  g[10] = g[11] = 0xff;
  for (int i = 0; i < 4; ++i) g[12 + i] = static_cast<std::uint8_t>(address >> (24 - 8 * i));
  return g;
}

ClcResolved resolve_identity(const ClcIdentity& id, int fd) {
  ClcResolved r;
  r.eid = id.eid;
  r.ipv4 = id.ipv4.value_or(kFixedPrefix);
  r.gid = id.gid.value_or(kFixedGid);
  r.mac = id.mac.value_or(kFixedMac);
  r.fixed_mac = !id.mac;
  const bool learn = !id.ipv4 || (!id.gid && id.gid_from_connection) || (!id.mac && id.mac_from_connection);
  if (!learn) return r;
  const std::optional<LocalInterface> li = local_interface(fd);
  if (!li) {
    r.note = "the connection's local address is not an IPv4 address of an interface: fixed CLC identity used";
    return r;
  }
  if (!id.ipv4) r.ipv4 = li->prefix;
  if (!id.gid && id.gid_from_connection) r.gid = ipv4_mapped_gid(li->address);
  if (!id.mac && id.mac_from_connection) {
    if (li->mac) {
      r.mac = *li->mac;
      r.fixed_mac = false;
    } else {
      r.note = "interface " + li->name + " has no MAC: the fixed MAC used";
    }
  }
  return r;
}

std::optional<clc::Ipv4Prefix> parse_ipv4_prefix(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string address(text.substr(0, slash));
  in_addr a{};
  if (::inet_pton(AF_INET, address.c_str(), &a) != 1) return std::nullopt;
  unsigned bits = 0;
  const std::string_view n = text.substr(slash + 1);
  auto [end, ec] = std::from_chars(n.data(), n.data() + n.size(), bits);
  if (ec != std::errc() || end != n.data() + n.size() || n.empty() || bits > 32) return std::nullopt;
  const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  return clc::Ipv4Prefix{ntohl(a.s_addr) & mask, static_cast<std::uint8_t>(bits)};
}

std::optional<clc::Gid> parse_gid(std::string_view text) {
  clc::Gid g{};
  if (text.size() == 32 && std::all_of(text.begin(), text.end(), [](char c) { return hex_digit(c) >= 0; })) {
    for (std::size_t i = 0; i < 16; ++i)
      g[i] = static_cast<std::uint8_t>(hex_digit(text[2 * i]) * 16 + hex_digit(text[2 * i + 1]));
    return g;
  }
  in6_addr a{};
  if (::inet_pton(AF_INET6, std::string(text).c_str(), &a) != 1) return std::nullopt;
  std::memcpy(g.data(), &a, 16);
  return g;
}

std::optional<clc::Mac> parse_mac(std::string_view text) {
  clc::Mac m{};
  if (text.size() != 17) return std::nullopt;
  for (std::size_t i = 0; i < 6; ++i) {
    const int hi = hex_digit(text[3 * i]), lo = hex_digit(text[3 * i + 1]);
    if (hi < 0 || lo < 0 || (i < 5 && text[3 * i + 2] != ':')) return std::nullopt;
    m[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return m;
}

clc::ClientConfig tester_client(const ClcResolved& id) {
  clc::ClientConfig c;
  c.link.peer_id = 0x52434e4643000001ull;  // "RCNFC" + 1
  c.link.gid = id.gid;
  c.link.mac = id.mac;
  c.link.qp_number = 0x000200;
  c.link.rmb_rkey = 0x1234;
  c.link.rmb_virtual_address = 0x100000;
  c.link.initial_psn = 0x10;
  c.v2.user_eids = {clc::make_eid(id.eid)};
  c.v2.rocev2_gid = c.link.gid;
  c.ipv4 = id.ipv4;
  // The ISM device the tester names when a case offers SMC-D (`smcd=`): it
  // has none, so no server can talk to it; a server either has no SMC-D
  // device or finds this one unreachable (Linux smc_ism_cantalk).
  c.smcd.native = {0x52434e4649534d01ull, 0x0101};  // "RCNFISM" + 1, a CHID of our own
  c.smcd.v2_devices = {c.smcd.native};
  return c;
}

clc::ServerConfig tester_server(const ClcResolved& id) {
  clc::ServerConfig c;
  const clc::ClientConfig cc = tester_client(id);
  c.link = cc.link;
  c.link.peer_id = 0x52434e4653000001ull;
  if (id.fixed_mac) c.link.mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  c.link.qp_number = 0x000300;
  c.v2 = cc.v2;
  c.ipv4 = cc.ipv4;
  return c;
}

}  // namespace rdmaconf::conformance
