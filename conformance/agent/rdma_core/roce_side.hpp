// The smcr suite's RoCE side on a real RoCEv2 device (`rdmaconf run
// --roce-device`): the engine's RoceFactory (engine/smcr_transport.hpp)
// over the rdma-core transport (roce_transport.hpp). Each case connection
// opens the device anew and gets a RoceHost of its own: the tester's first
// link's queue pair and RMB, connected by hand from the values CLC agreed
// (RFC 7609 §3.5.1.5), the way smcr-probe connects its link.
//
// The IUT runs on its own host: the side drives nothing, and a quiet link
// is never a final answer (the runner waits out each expectation). With
// one device the tester has no alternate address for a second link
// (§3.5.1.6), so the IUT's ADD LINK is answered the way a peer with one
// RoCE port answers it; with an alternate device (a second RoCE port on
// another address pair) the added links' queue pairs live there, and the
// link group is symmetric (§2.2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/smcr_transport.hpp"

namespace rdmaconf::agent::rdma_core {

struct RoceSideConfig {
  std::string device;                     // "rxe0", "mlx5_0"
  std::uint8_t port = 1;
  // The GID table entry the tester's link uses; none: the RoCEv2 GID of
  // the case's CLC connection's local IPv4 address (::ffff:a.b.c.d).
  std::optional<std::uint8_t> gid_index;
  // A second device for added links (`--roce-alternate-device`); empty: none.
  std::string alternate_device;
  std::optional<std::uint8_t> alternate_gid_index;  // none: its first RoCEv2 IPv4 GID
};

conformance::RoceFactory device_roce_factory(const RoceSideConfig& config);

// The IPv4 address of "a.b.c.d:port" in host order; none when it is not one.
std::optional<std::uint32_t> endpoint_ipv4(const std::string& endpoint);

}  // namespace rdmaconf::agent::rdma_core
