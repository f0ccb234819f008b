// The backend's factory on a host without the device asked for: no crash,
// a message a vendor engineer can act on.
#include <gtest/gtest.h>
#include <rdma/rdma_cma.h>

#include "agent/backend.hpp"
#include "agent/rdma_core/smc.hpp"

namespace rdmaconf::agent {
namespace {

TEST(RdmaCoreBackend, AbsentDeviceIsAnErrorNotACrash) {
  std::string error;
  auto b = create_rdma_core_backend("no-such-device-0", error);
  EXPECT_EQ(b, nullptr);
  EXPECT_TRUE(error.find("no RDMA device") == 0) << error;
}

TEST(SmcSide, ListenWithoutTheSmcStackSaysSo) {
  if (rdma_core::SmcSide::available()) GTEST_SKIP() << "this host has AF_SMC";
  std::vector<Event> events;
  std::uint64_t next = 1;
  rdma_core::SmcSide smc([&] { return next++; }, [&](Event e) { events.push_back(std::move(e)); });
  const auto h = smc.listen({"127.0.0.1", 0}, "");
  EXPECT_FALSE(h);
  EXPECT_NE(h.error.message.find("AF_SMC socket"), std::string::npos) << h.error.message;
  const auto bad = smc.listen({"not-an-address", 0}, "");
  EXPECT_FALSE(bad);
  EXPECT_NE(bad.error.message.find("not a numeric IP address"), std::string::npos);
  EXPECT_FALSE(smc.close(77));
}

}  // namespace
}  // namespace rdmaconf::agent
