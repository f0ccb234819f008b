// CLC handshake configurations for the clc_handshake target and its seed
// generator: one client and one server that agree (first contact, SMC-Rv1
// and v2), varied by one configuration octet, so that recorded exchanges
// replay consistently and mutations reach every consistency check.
#pragma once

#include <cstdint>

#include "clc/handshake.hpp"

namespace rdmaconf::fuzz {

// Bits of the configuration octet.
inline constexpr std::uint8_t kClcServerRole = 0x01;
inline constexpr std::uint8_t kClcPeerNotCapable = 0x02;
inline constexpr std::uint8_t kClcNoV1 = 0x04;
inline constexpr std::uint8_t kClcNoV2 = 0x08;
inline constexpr std::uint8_t kClcIpv6 = 0x10;
inline constexpr std::uint8_t kClcKnownLinkGroup = 0x20;
inline constexpr std::uint8_t kClcTimeoutAtEnd = 0x40;
inline constexpr std::uint8_t kClcRelease0 = 0x80;

inline clc::SmcrLink client_link() {
  clc::SmcrLink l;
  l.peer_id = 0x0a0b001122334455;
  l.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
  l.mac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
  l.qp_number = 0x456;
  l.rmb_rkey = 0x1234;
  l.rmbe_alert_token = 9;
  l.rmbe_size = 32768;
  l.qp_mtu = 5;
  l.rmb_virtual_address = 0x7f0056780000;
  l.initial_psn = 0x654321;
  return l;
}

inline clc::SmcrLink server_link() {
  clc::SmcrLink l;
  l.peer_id = 0x0c0d66778899aabb;
  l.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x66, 0x77, 0xff, 0xfe, 0x99, 0xaa, 0xbb};
  l.mac = {0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};
  l.qp_number = 0x123;
  l.rmb_rkey = 0xabcd;
  l.rmbe_alert_token = 5;
  l.qp_mtu = 3;
  l.rmb_virtual_address = 0x7f0012340000;
  l.initial_psn = 0x123456;
  return l;
}

inline clc::ClientConfig clc_client_config(std::uint8_t bits) {
  clc::ClientConfig c;
  c.link = client_link();
  c.offer_v1 = (bits & kClcNoV1) == 0;
  c.offer_v2 = (bits & kClcNoV2) == 0;
  c.ipv4 = {0xc0a80100, 24};
  if (bits & kClcIpv6) c.ipv6 = {{{0x20, 0x01, 0x0d, 0xb8}, 64}};
  c.v2.user_eids = {clc::make_eid("SMC-TEST-EID")};
  c.v2.rocev2_gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xc0, 0xa8, 0x01, 0x0a};
  c.v2.hostname = "client.example";
  c.v2.max_conns = 200;
  if (bits & kClcRelease0) c.v2.release = clc::kRelease0;
  if (bits & kClcKnownLinkGroup) {
    const clc::SmcrLink s = server_link();
    c.link_group = clc::LinkGroupPeer{s.peer_id, s.gid, s.mac, s.qp_number};
  }
  return c;
}

inline clc::ServerConfig clc_server_config(std::uint8_t bits) {
  clc::ServerConfig s;
  s.link = server_link();
  s.accept_v1 = (bits & kClcNoV1) == 0;
  s.accept_v2 = (bits & kClcNoV2) == 0;
  s.ipv4 = {0xc0a80100, 24};
  if (bits & kClcIpv6) s.ipv6 = {{{0x20, 0x01, 0x0d, 0xb8}, 64}};
  s.v2.user_eids = {clc::make_eid("OTHER-EID"), clc::make_eid("SMC-TEST-EID")};
  s.v2.hostname = "server.example";
  if (bits & kClcRelease0) s.v2.release = clc::kRelease0;
  if (bits & kClcKnownLinkGroup) {
    const clc::SmcrLink c = client_link();
    s.link_groups = {clc::LinkGroupPeer{c.peer_id, c.gid, c.mac, c.qp_number}};
  }
  return s;
}

}  // namespace rdmaconf::fuzz
