// The reference endpoint over SCTP (usrsctp, UDP-encapsulated on loopback):
// the DDP Stream Session set up (RFC 5043 §6.2) or rejected (§6.3), RDMAP
// operations over it, and the session's end after an RDMAP Terminate.
#ifdef RDMACONF_HAVE_USRSCTP

#include "endpoint/sctp_endpoint.hpp"

#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rdmaconf::endpoint {
namespace {

using namespace std::chrono_literals;

SctpConfig config(std::string_view private_data) {
  SctpConfig c;
  c.private_data.assign(private_data.begin(), private_data.end());
  c.setup_timeout = 5s;
  return c;
}

TEST(SctpEndpoint, SessionCarriesRdmapOperations) {
  SctpEndpoint passive(config("passive")), active(config("active"));
  std::vector<std::uint8_t> rx(256, 0);
  passive.post_receive(7, rx);
  std::vector<std::uint8_t> region(4096, 0);
  const auto access = ddp::Access::kLocalRead | ddp::Access::kLocalWrite | ddp::Access::kRemoteRead |
                      ddp::Access::kRemoteWrite;
  const ddp::Stag stag = passive.register_memory(region, 0x1000, access);

  ASSERT_TRUE(passive.listen()) << passive.failure();
  auto accepted = std::async(std::launch::async, [&] { return passive.accept(); });
  ASSERT_TRUE(active.connect(passive.local_address(), passive.local_sctp_port())) << active.failure();
  ASSERT_TRUE(accepted.get()) << passive.failure();
  EXPECT_EQ(active.state(), SctpState::kOperational);
  // RFC 5043 §5.2.3: each side's private data reached the other.
  const auto from_passive = active.peer_private_data();
  EXPECT_EQ(std::string(from_passive.begin(), from_passive.end()), "passive");
  const auto from_active = passive.peer_private_data();
  EXPECT_EQ(std::string(from_active.begin(), from_active.end()), "active");

  const std::string hello = "hello over SCTP";
  ASSERT_TRUE(active.post_send(1, {reinterpret_cast<const std::uint8_t*>(hello.data()), hello.size()}).ok());
  auto c = passive.wait_completion(5s);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->type, rdmap::CompletionType::kReceive);
  EXPECT_EQ(std::string(rx.begin(), rx.begin() + c->byte_len), hello);

  // A Write of several segments at the 1024-octet maximum (RFC 5043 §9).
  std::vector<std::uint8_t> payload(3000);
  for (std::size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<std::uint8_t>(i * 7);
  ASSERT_TRUE(active.post_write(2, payload, stag, 0x1000).ok());
  std::vector<std::uint8_t> sink(3000, 0);
  const ddp::Stag sink_stag = active.register_memory(sink, 0, ddp::Access::kLocalRead | ddp::Access::kLocalWrite);
  ASSERT_TRUE(active.post_read(3, {.sink_stag = sink_stag, .sink_to = 0, .size = 3000, .source_stag = stag,
                                   .source_to = 0x1000}).ok());
  std::optional<rdmap::Completion> read;
  for (int i = 0; i < 4 && !read; ++i) {
    auto next = active.wait_completion(5s);
    ASSERT_TRUE(next);
    if (next->type == rdmap::CompletionType::kRdmaRead) read = next;
  }
  EXPECT_EQ(read->status, rdmap::CompletionStatus::kSuccess);
  EXPECT_EQ(sink, payload);
  EXPECT_GT(active.octets_sent(), 3000u);

  // A Write to an STag the passive side does not have: RDMAP Terminate, then
  // the DDP Stream Session ends on both sides (RFC 5043 §6.2).
  ASSERT_TRUE(active.post_write(4, {payload.data(), 16}, ddp::Stag{0x7700}, 0).ok());
  EXPECT_TRUE(passive.wait_closed(5s));
  EXPECT_TRUE(active.wait_closed(5s));
}

TEST(SctpEndpoint, RejectedSession) {
  SctpConfig refusing = config("not today");
  refusing.reject = true;
  SctpEndpoint passive(refusing), active(config("please"));
  ASSERT_TRUE(passive.listen()) << passive.failure();
  auto accepted = std::async(std::launch::async, [&] { return passive.accept(); });
  EXPECT_FALSE(active.connect(passive.local_address(), passive.local_sctp_port()));
  EXPECT_FALSE(accepted.get());
  EXPECT_NE(active.failure().find("rejected"), std::string::npos) << active.failure();
  const auto why = active.peer_private_data();
  EXPECT_EQ(std::string(why.begin(), why.end()), "not today");
}

}  // namespace
}  // namespace rdmaconf::endpoint

#endif  // RDMACONF_HAVE_USRSCTP
