// The values SMC-R's link layer passes around, named once: a RoCE MAC and
// GID, and an RToken (RFC 7609 §2.1: an RMB's RKey and virtual address as
// one queue pair's peer must use them; §3.5.5.2: one RToken per RMB per
// link).
#pragma once

#include <array>
#include <cstdint>

namespace rdmaconf::smcr {

// A RoCE MAC address in its 48 low-order bits (as check::LinkEnd keeps it).
using Mac = std::uint64_t;
// A RoCE GID, octets in wire order.
using Gid = std::array<std::uint8_t, 16>;

// §2.1, A.2.3: what a peer needs to RDMA-write into an RMB over one link.
struct RToken {
  std::uint32_t rkey = 0;
  std::uint64_t virtual_address = 0;
  friend bool operator==(const RToken&, const RToken&) = default;
};

}  // namespace rdmaconf::smcr
