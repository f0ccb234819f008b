// The usrsctp glue (endpoint/usrsctp_link.hpp) on loopback: a passive link
// serves several associations at once, each peer answered at its own UDP
// address (RFC 6951 §5.1); messages keep their stream, PPID and U flag; a
// datagram from an unknown address that is no INIT is not taken.
#ifdef RDMACONF_HAVE_USRSCTP

#include "endpoint/usrsctp_link.hpp"

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

namespace rdmaconf::endpoint {
namespace {

using namespace std::chrono_literals;

// What one link saw, waited on by the test.
struct Seen {
  std::mutex mu;
  std::condition_variable cv;
  std::map<AssociationId, SctpUp> up;
  std::vector<std::pair<AssociationId, SctpMessage>> messages;

  template <typename P>
  bool wait(P done) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 5s, [&] { return done(); });
  }
};

SctpEvents events(Seen& seen, UsrsctpLink** echo_on = nullptr) {
  SctpEvents e;
  e.up = [&seen](AssociationId id, const SctpUp& up) {
    std::lock_guard lock(seen.mu);
    seen.up[id] = up;
    seen.cv.notify_all();
  };
  e.message = [&seen, echo_on](AssociationId id, SctpMessage m) {
    if (echo_on && *echo_on) {
      std::string why;
      (*echo_on)->send(id, m, why);
    }
    std::lock_guard lock(seen.mu);
    seen.messages.emplace_back(id, std::move(m));
    seen.cv.notify_all();
  };
  return e;
}

TEST(UsrsctpLink, APassiveLinkServesTwoAssociationsEachAtItsPeersAddress) {
  Seen server_seen, a_seen, b_seen;
  UsrsctpLink* echo = nullptr;
  SctpLinkConfig sc;
  sc.indication = 1;
  sc.outbound_streams = sc.inbound_streams = 4;
  sc.max_associations = 2;
  UsrsctpLink server(sc, events(server_seen, &echo));
  echo = &server;
  std::string why;
  ASSERT_TRUE(server.listen(why)) << why;

  SctpLinkConfig cc;
  cc.outbound_streams = cc.inbound_streams = 4;
  UsrsctpLink a(cc, events(a_seen)), b(cc, events(b_seen));
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

// A third association beyond max_associations is shut down, never served.
TEST(UsrsctpLink, AnAssociationBeyondTheLimitIsNotServed) {
  Seen server_seen, seen[2];
  SctpLinkConfig sc;
  sc.max_associations = 1;
  UsrsctpLink server(sc, events(server_seen));
  std::string why;
  ASSERT_TRUE(server.listen(why)) << why;
  UsrsctpLink first({}, events(seen[0])), second({}, events(seen[1]));
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
