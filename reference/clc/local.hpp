// What one side of a CLC exchange knows of itself: its identity, its IP
// prefixes, its EIDs and the link groups it already has. A handshake machine
// is configured with these (handshake.hpp); the rules only a side can judge
// take them as their context (check/clc.hpp), and a capture, which knows
// none of them, skips those rules.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace rdmaconf::clc {

using PeerId = std::uint64_t;
using Gid = std::array<std::uint8_t, 16>;
using Mac = std::array<std::uint8_t, 6>;
using Eid = std::array<std::uint8_t, 32>;

struct Ipv4Prefix {
  std::uint32_t subnet = 0;
  std::uint8_t prefix_length = 0;
};
struct Ipv6PrefixEntry {
  std::array<std::uint8_t, 16> prefix{};
  std::uint8_t prefix_length = 0;
  friend bool operator==(const Ipv6PrefixEntry&, const Ipv6PrefixEntry&) = default;
};

// The peer's end of one link of a link group.
struct LinkGroupLinkEnd {
  Gid gid{};
  Mac mac{};
  std::uint32_t qp_number = 0;
};

// A link group this side already has with a peer: its peer's identity and
// the peer's end of the link (subsequent contact reuses it), and its ends of
// the group's other links: a subsequent contact may name any link of the
// group (§3.5.2.1: the server picks the link; §3.5.2.3: so does the client).
struct LinkGroupPeer {
  PeerId peer_id = 0;
  Gid gid{};
  Mac mac{};
  std::uint32_t qp_number = 0;
  std::vector<LinkGroupLinkEnd> other_links = {};
};

}  // namespace rdmaconf::clc
