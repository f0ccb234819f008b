// The usrsctp glue (endpoint/usrsctp_link.hpp) on loopback: a passive link
// serves several associations at once, each peer answered at its own UDP
// address (RFC 6951 §5.1); messages keep their stream, PPID and U flag; a
// datagram from an unknown address that is no INIT is not taken; a link is
// the active or the passive side, not both.
#ifdef RDMACONF_HAVE_USRSCTP

#include "endpoint/usrsctp_link.hpp"

#include <thread>

#include <gtest/gtest.h>

#include "sctp_link_seen.hpp"

namespace rdmaconf::endpoint {
namespace {

using namespace std::chrono_literals;

using sctp_link_testing::LinkSeen;
using sctp_link_testing::seen_events;

TEST(UsrsctpLink, APassiveLinkServesTwoAssociationsEachAtItsPeersAddress) {
  LinkSeen server_seen, a_seen, b_seen;
  SctpLink* echo = nullptr;
  SctpLinkConfig sc;
  sc.indication = 1;
  sc.outbound_streams = sc.inbound_streams = 4;
  sc.max_associations = 2;
  UsrsctpLink server(sc, seen_events(server_seen, &echo));
  echo = &server;
  std::string why;
  ASSERT_TRUE(server.listen(why)) << why;

  SctpLinkConfig cc;
  cc.outbound_streams = cc.inbound_streams = 4;
  UsrsctpLink a(cc, seen_events(a_seen)), b(cc, seen_events(b_seen));
  ASSERT_TRUE(a.connect(server.local_address(), server.local_sctp_port(), why)) << why;
  ASSERT_TRUE(b.connect(server.local_address(), server.local_sctp_port(), why)) << why;
  ASSERT_TRUE(a_seen.wait([&] { return a_seen.up.count(0) == 1; }));
  ASSERT_TRUE(b_seen.wait([&] { return b_seen.up.count(0) == 1; }));
  // The server's INIT-ACK carried its indication; the clients' INITs none.
  EXPECT_EQ(a_seen.up[0].peer_indication, std::optional<std::uint32_t>(1));
  ASSERT_TRUE(server_seen.wait([&] { return server_seen.up.size() == 2; }));
  for (const auto& [id, up] : server_seen.up) EXPECT_FALSE(up.peer_indication.has_value());

  ASSERT_TRUE(a.send(0, SctpMessage{2, 16, true, {1, 2, 3}}, why)) << why;
  ASSERT_TRUE(b.send(0, SctpMessage{3, 17, false, {4, 5}}, why)) << why;
  // Each echo comes back to its own sender, as sent.
  ASSERT_TRUE(a_seen.wait([&] { return a_seen.messages.size() == 1; }));
  ASSERT_TRUE(b_seen.wait([&] { return b_seen.messages.size() == 1; }));
  const SctpMessage& ma = a_seen.messages[0].second;
  const SctpMessage& mb = b_seen.messages[0].second;
  EXPECT_EQ(ma.stream, 2);
  EXPECT_EQ(ma.ppid, 16u);
  EXPECT_TRUE(ma.unordered);
  EXPECT_EQ(ma.octets, (std::vector<std::uint8_t>{1, 2, 3}));
  EXPECT_EQ(mb.stream, 3);
  EXPECT_EQ(mb.ppid, 17u);
  EXPECT_FALSE(mb.unordered);
  EXPECT_EQ(mb.octets, (std::vector<std::uint8_t>{4, 5}));
  EXPECT_NE(server_seen.messages[0].first, server_seen.messages[1].first);
}

// A link is the active side of one association or the passive side of
// several, never both (sctp_link_impl.hpp, shared with the kernel's link).
TEST(UsrsctpLink, ALinkIsEitherTheActiveSideOrThePassiveSide) {
  LinkSeen server_seen, client_seen;
  UsrsctpLink server({}, seen_events(server_seen)), client({}, seen_events(client_seen));
  std::string why;
  ASSERT_TRUE(server.listen(why)) << why;
  EXPECT_TRUE(server.listen(why)) << why;  // listening already: nothing to do
  EXPECT_FALSE(server.connect(client.local_address(), client.local_sctp_port(), why));
  EXPECT_EQ(why, "the link already has an association");
  ASSERT_TRUE(client.connect(server.local_address(), server.local_sctp_port(), why)) << why;
  EXPECT_FALSE(client.connect(server.local_address(), server.local_sctp_port(), why));
  EXPECT_EQ(why, "the link already has an association");
  why.clear();
  EXPECT_FALSE(client.listen(why));
  EXPECT_EQ(why, "the link already has an association");
  EXPECT_TRUE(client_seen.wait([&] { return client_seen.up.count(0) == 1; }));
}

// A third association beyond max_associations is shut down, never served.
TEST(UsrsctpLink, AnAssociationBeyondTheLimitIsNotServed) {
  LinkSeen server_seen, seen[2];
  SctpLinkConfig sc;
  sc.max_associations = 1;
  UsrsctpLink server(sc, seen_events(server_seen));
  std::string why;
  ASSERT_TRUE(server.listen(why)) << why;
  UsrsctpLink first({}, seen_events(seen[0])), second({}, seen_events(seen[1]));
  ASSERT_TRUE(first.connect(server.local_address(), server.local_sctp_port(), why)) << why;
  ASSERT_TRUE(server_seen.wait([&] { return server_seen.up.size() == 1; }));
  ASSERT_TRUE(second.connect(server.local_address(), server.local_sctp_port(), why)) << why;
  std::this_thread::sleep_for(300ms);
  std::lock_guard lock(server_seen.mu);
  EXPECT_EQ(server_seen.up.size(), 1u);
}

}  // namespace
}  // namespace rdmaconf::endpoint

#endif
