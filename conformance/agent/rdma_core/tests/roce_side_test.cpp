// roce_side.hpp: what the device RoceFactory decides before it opens a
// device: the tester's GID follows the CLC connection's local IPv4 address
// (RFC 7609 §3.5.1.5), and a factory without a device says why. The device
// itself is exercised live (ci/interop/guest/smcr-suite.sh).
#include "agent/rdma_core/roce_side.hpp"

#include <gtest/gtest.h>

namespace rdmaconf::agent::rdma_core {
namespace {

TEST(RoceSide, TheGidFollowsTheConnectionsLocalAddress) {
  EXPECT_EQ(endpoint_ipv4("10.79.0.2:40312"), 0x0A4F0002u);
  EXPECT_EQ(endpoint_ipv4("127.0.0.1:1"), 0x7F000001u);
  EXPECT_FALSE(endpoint_ipv4("?"));             // socket_address()'s answer for a non-IPv4 socket
  EXPECT_FALSE(endpoint_ipv4("10.79.0.2"));     // no port: not an endpoint
  EXPECT_FALSE(endpoint_ipv4("fe80::1:7700"));  // IPv6
}

RoceSideConfig on(const char* device) {
  RoceSideConfig c;
  c.device = device;
  return c;
}

TEST(RoceSide, AConnectionWithoutIpv4NeedsAGidIndex) {
  const conformance::RoceFactory f = device_roce_factory(on("rxe0"));
  std::string error;
  EXPECT_EQ(f({"?", "10.79.0.1:7710"}, error), nullptr);
  EXPECT_NE(error.find("--roce-gid-index"), std::string::npos) << error;
}

TEST(RoceSide, ADeviceThatIsNotThereIsAnError) {
  const conformance::RoceFactory f = device_roce_factory(on("no-such-device9"));
  std::string error;
  EXPECT_EQ(f({"10.79.0.2:1", "10.79.0.1:7710"}, error), nullptr);
  EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace rdmaconf::agent::rdma_core
