// The kernel's SCTP link (endpoint/kernel_sctp_link.hpp). What it reads from
// the socket API (notifications, SCTP_RCVINFO) is checked from octets laid
// out as the kernel's header declares them, so it is tested on any host;
// the link itself needs a kernel with SCTP and skips, saying why, without one.
#ifdef RDMACONF_HAVE_USRSCTP

#include "endpoint/kernel_sctp_link.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
// clang-format off
#include <linux/sctp.h>
// clang-format on

#include <cstring>
#include <mutex>

#include <gtest/gtest.h>

#include "sctp_link_seen.hpp"

namespace rdmaconf::endpoint {
namespace {

using kernel_sctp::Notification;
using sctp_link_testing::LinkSeen;
using sctp_link_testing::seen_events;

template <typename T>
std::vector<std::uint8_t> octets_of(const T& t, std::size_t size = sizeof(T)) {
  std::vector<std::uint8_t> v(size);
  std::memcpy(v.data(), &t, std::min(size, sizeof(T)));
  return v;
}

sctp_assoc_change assoc_change(std::uint16_t state, std::uint16_t out, std::uint16_t in) {
  sctp_assoc_change c{};
  c.sac_type = SCTP_ASSOC_CHANGE;
  c.sac_length = sizeof c;
  c.sac_state = state;
  c.sac_outbound_streams = out;
  c.sac_inbound_streams = in;
  return c;
}

TEST(KernelSctpNotification, CommUpGivesTheNegotiatedStreamCounts) {
  auto n = kernel_sctp::decode_notification(octets_of(assoc_change(SCTP_COMM_UP, 10, 16)));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->kind, Notification::Kind::kCommUp);
  EXPECT_EQ(n->outbound_streams, 10);
  EXPECT_EQ(n->inbound_streams, 16);
}

TEST(KernelSctpNotification, EveryOtherAssociationChangeButRestartEndsIt) {
  for (std::uint16_t state : {std::uint16_t{SCTP_COMM_LOST}, std::uint16_t{SCTP_SHUTDOWN_COMP},
                              std::uint16_t{SCTP_CANT_STR_ASSOC}}) {
    auto n = kernel_sctp::decode_notification(octets_of(assoc_change(state, 0, 0)));
    ASSERT_TRUE(n);
    EXPECT_EQ(n->kind, Notification::Kind::kEnded) << state;
    EXPECT_EQ(n->state, state);
  }
  EXPECT_EQ(kernel_sctp::decode_notification(octets_of(assoc_change(SCTP_RESTART, 1, 1)))->kind,
            Notification::Kind::kRestart);
}

TEST(KernelSctpNotification, TheAdaptationIndicationIsInHostOrder) {
  sctp_adaptation_event a{};
  a.sai_type = SCTP_ADAPTATION_INDICATION;
  a.sai_length = sizeof a;
  a.sai_adaptation_ind = 0x00000001;  // RFC 5043 §5.1: DDP's indication
  auto n = kernel_sctp::decode_notification(octets_of(a));
  ASSERT_TRUE(n);
  EXPECT_EQ(n->kind, Notification::Kind::kAdaptation);
  EXPECT_EQ(n->indication, 1u);
}

TEST(KernelSctpNotification, SenderDryAndOthers) {
  sctp_sender_dry_event d{};
  d.sender_dry_type = SCTP_SENDER_DRY_EVENT;
  d.sender_dry_length = sizeof d;
  EXPECT_EQ(kernel_sctp::decode_notification(octets_of(d))->kind, Notification::Kind::kSenderDry);
  sctp_shutdown_event s{};
  s.sse_type = SCTP_SHUTDOWN_EVENT;
  s.sse_length = sizeof s;
  EXPECT_EQ(kernel_sctp::decode_notification(octets_of(s))->kind, Notification::Kind::kOther);
}

TEST(KernelSctpNotification, TooShortForItsTypeIsNotRead) {
  // The state and the stream counts are cut off: nothing is made up.
  const auto cut = octets_of(assoc_change(SCTP_COMM_UP, 10, 16), offsetof(sctp_assoc_change, sac_outbound_streams));
  EXPECT_FALSE(kernel_sctp::decode_notification(cut));
  EXPECT_FALSE(kernel_sctp::decode_notification(std::vector<std::uint8_t>{0x01}));
  sctp_adaptation_event a{};
  a.sai_type = SCTP_ADAPTATION_INDICATION;
  EXPECT_FALSE(kernel_sctp::decode_notification(octets_of(a, offsetof(sctp_adaptation_event, sai_adaptation_ind))));
}

// Control octets as recvmsg lays them out: one cmsghdr with its data.
std::vector<std::uint8_t> control_with(int level, int type, const void* data, std::size_t size,
                                       std::size_t cmsg_len = 0) {
  std::vector<std::uint8_t> v(CMSG_SPACE(size), 0);
  cmsghdr h{};
  h.cmsg_level = level;
  h.cmsg_type = type;
  h.cmsg_len = cmsg_len ? cmsg_len : CMSG_LEN(size);
  std::memcpy(v.data(), &h, sizeof h);
  std::memcpy(v.data() + CMSG_LEN(0), data, size);
  return v;
}

TEST(KernelSctpReceiveInfo, StreamPpidAndUnorderedFlag) {
  sctp_rcvinfo info{};
  info.rcv_sid = 3;
  info.rcv_ppid = htonl(16);  // as on the wire: RFC 5043 §5.2.2's DDP Segment PPID
  info.rcv_flags = SCTP_UNORDERED;
  auto got = kernel_sctp::receive_info(control_with(IPPROTO_SCTP, SCTP_RCVINFO, &info, sizeof info));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->stream, 3);
  EXPECT_EQ(got->ppid, 16u);
  EXPECT_TRUE(got->unordered);
  info.rcv_flags = 0;
  EXPECT_FALSE(kernel_sctp::receive_info(control_with(IPPROTO_SCTP, SCTP_RCVINFO, &info, sizeof info))->unordered);
}

TEST(KernelSctpReceiveInfo, NoneOrAShortOneIsNone) {
  sctp_rcvinfo info{};
  EXPECT_FALSE(kernel_sctp::receive_info({}));
  EXPECT_FALSE(kernel_sctp::receive_info(control_with(SOL_SOCKET, SCTP_RCVINFO, &info, sizeof info)));
  EXPECT_FALSE(kernel_sctp::receive_info(
      control_with(IPPROTO_SCTP, SCTP_RCVINFO, &info, sizeof info, CMSG_LEN(sizeof info - 4))));
}

TEST(SctpStack, NamesAsTheCommandLineTakesThem) {
  EXPECT_EQ(parse_sctp_stack("kernel"), SctpStack::kKernel);
  EXPECT_EQ(parse_sctp_stack("usrsctp"), SctpStack::kUsrsctp);
  EXPECT_FALSE(parse_sctp_stack("lksctp"));
  EXPECT_EQ(sctp_stack_name(SctpStack::kKernel), "kernel");
  EXPECT_EQ(sctp_stack_name(SctpStack::kUsrsctp), "usrsctp");
}

TEST(KernelSctpLink, WithoutKernelSctpOpeningSaysSo) {
  std::string why;
  if (kernel_sctp_available(why)) GTEST_SKIP() << "this kernel has SCTP";
  EXPECT_NE(why.find("offers no SCTP"), std::string::npos) << why;
  try {
    (void)open_sctp_link(SctpStack::kKernel, {}, {});
    ADD_FAILURE() << "a kernel link opened without kernel SCTP";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("offers no SCTP"), std::string::npos) << e.what();
  }
}

TEST(KernelSctpLink, AnAssociationOnLoopbackCarriesStreamPpidAndUnorderedFlag) {
  std::string why;
  if (!kernel_sctp_available(why)) GTEST_SKIP() << why;
  LinkSeen server_seen, client_seen;
  SctpLink* echo = nullptr;
  SctpLinkConfig sc;
  sc.indication = 1;
  sc.outbound_streams = sc.inbound_streams = 4;
  auto server = open_sctp_link(SctpStack::kKernel, sc, seen_events(server_seen, &echo));
  echo = server.get();
  ASSERT_TRUE(server->listen(why)) << why;
  ASSERT_NE(server->local_sctp_port(), 0);
  EXPECT_EQ(server->local_address().port(), server->local_sctp_port());
  SctpLinkConfig cc;
  cc.outbound_streams = cc.inbound_streams = 8;
  auto client = open_sctp_link(SctpStack::kKernel, cc, seen_events(client_seen));
  ASSERT_TRUE(client->connect(server->local_address(), server->local_sctp_port(), why)) << why;
  ASSERT_TRUE(client_seen.wait([&] { return client_seen.up.count(0) == 1; }));
  {
    std::lock_guard lock(client_seen.mu);
    // The server's INIT-ACK announced DDP's indication; the client's INIT none.
    EXPECT_EQ(client_seen.up[0].peer_indication, 1u);
    EXPECT_EQ(client_seen.up[0].outbound_streams, 4);
  }
  ASSERT_TRUE(client->send(0, SctpMessage{2, 16, true, {1, 2, 3}}, why)) << why;
  ASSERT_TRUE(client->send(0, SctpMessage{3, 17, false, {4, 5}}, why)) << why;
  ASSERT_TRUE(client_seen.wait([&] { return client_seen.messages.size() == 2; }));
  std::lock_guard lock(client_seen.mu);
  EXPECT_EQ(client_seen.messages[0].second.stream, 2);
  EXPECT_EQ(client_seen.messages[0].second.ppid, 16u);
  EXPECT_TRUE(client_seen.messages[0].second.unordered);
  EXPECT_EQ(client_seen.messages[0].second.octets, (std::vector<std::uint8_t>{1, 2, 3}));
  EXPECT_EQ(client_seen.messages[1].second.stream, 3);
  EXPECT_EQ(client_seen.messages[1].second.ppid, 17u);
  EXPECT_FALSE(client_seen.messages[1].second.unordered);
  EXPECT_EQ(client->octets_sent(), 5u);
  {
    std::lock_guard slock(server_seen.mu);
    EXPECT_FALSE(server_seen.up.begin()->second.peer_indication);
  }
}

}  // namespace
}  // namespace rdmaconf::endpoint

#endif
