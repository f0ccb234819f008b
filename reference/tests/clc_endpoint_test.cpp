// The CLC roles of the reference endpoint over real TCP sockets on
// loopback: a v1 and a v2 handshake complete, each Decline path carries its
// code, plain TCP continues after a fallback, and the CLC wait timer fires.
#include "endpoint/clc_endpoint.hpp"

#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace rdmaconf::endpoint {
namespace {

using namespace std::chrono_literals;

clc::ClientConfig client_config() {
  clc::ClientConfig c;
  c.link.peer_id = 0x0a0b001122334455;
  c.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
  c.link.mac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
  c.link.qp_number = 0x456;
  c.link.rmb_rkey = 0x1234;
  c.link.rmbe_alert_token = 9;
  c.link.initial_psn = 0x654321;
  c.ipv4 = {0x7f000000, 8};
  c.v2.user_eids = {clc::make_eid("SMC-TEST-EID")};
  return c;
}

clc::ServerConfig server_config() {
  clc::ServerConfig s;
  s.link.peer_id = 0x0c0d66778899aabb;
  s.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x66, 0x77, 0xff, 0xfe, 0x99, 0xaa, 0xbb};
  s.link.mac = {0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};
  s.link.qp_number = 0x123;
  s.link.rmb_rkey = 0xabcd;
  s.link.rmbe_alert_token = 5;
  s.link.initial_psn = 0x123456;
  s.ipv4 = {0x7f000000, 8};
  s.v2.user_eids = {clc::make_eid("SMC-TEST-EID")};
  return s;
}

const tcp::endpoint kLoopback{asio::ip::address_v4::loopback(), 0};

struct Pair {
  ClcResult client;
  ClcResult server;
  bool client_done = false;
  bool server_done = false;
};

// One exchange over loopback; `after` runs with both sockets once both
// roles are done (the plain-TCP-after-fallback checks).
template <typename After>
Pair exchange(clc::ClientConfig cc, clc::ServerConfig sc, ClcOptions co, ClcOptions so, After after) {
  asio::io_context io;
  ClcServer server(io, kLoopback, std::move(sc), so);
  Pair p;
  tcp::socket* server_socket = nullptr;
  server.start(
      [&](ClcResult r, tcp::socket& s) {
        p.server = std::move(r);
        p.server_done = true;
        server_socket = &s;
      },
      1);
  tcp::socket client(io);
  client.async_connect(tcp::endpoint(kLoopback.address(), server.port()), [&](boost::system::error_code ec) {
    ASSERT_FALSE(ec) << ec.message();
    async_clc_client(client, std::move(cc), co, [&](ClcResult r) {
      p.client = std::move(r);
      p.client_done = true;
    });
  });
  io.run_for(10s);
  EXPECT_TRUE(p.client_done && p.server_done);
  if (p.client_done && p.server_done && server_socket) after(client, *server_socket);
  return p;
}

Pair exchange(clc::ClientConfig cc, clc::ServerConfig sc, ClcOptions o = {}) {
  return exchange(std::move(cc), std::move(sc), o, o, [](tcp::socket&, tcp::socket&) {});
}

TEST(ClcEndpoint, V1HandshakeOverLoopback) {
  auto cc = client_config();
  cc.offer_v2 = false;
  auto p = exchange(cc, server_config());
  ASSERT_EQ(p.client.outcome.kind, clc::OutcomeKind::kSmc) << p.client.transport_error;
  ASSERT_EQ(p.server.outcome.kind, clc::OutcomeKind::kSmc) << p.server.transport_error;
  EXPECT_EQ(p.client.outcome.version, 1);
  EXPECT_EQ(p.server.outcome.peer->qp_number, 0x456u);
  ASSERT_EQ(p.client.transcript.size(), 3u);  // Proposal sent, Accept received, Confirm sent
  EXPECT_TRUE(p.client.transcript[0].sent);
  EXPECT_FALSE(p.client.transcript[1].sent);
  EXPECT_EQ(p.server.transcript[0].octets, p.client.transcript[0].octets);
}

TEST(ClcEndpoint, V2HandshakeOverLoopback) {
  auto p = exchange(client_config(), server_config());
  ASSERT_EQ(p.client.outcome.kind, clc::OutcomeKind::kSmc) << p.client.transport_error;
  ASSERT_EQ(p.server.outcome.kind, clc::OutcomeKind::kSmc) << p.server.transport_error;
  EXPECT_EQ(p.client.outcome.version, 2);
  EXPECT_EQ(*p.server.outcome.negotiated_eid, clc::make_eid("SMC-TEST-EID"));
  EXPECT_EQ(p.server.transcript[2].octets.size(), 180u);
}

void expect_fallback_with(const Pair& p, bool server_declines, std::uint32_t code) {
  const ClcResult& sender = server_declines ? p.server : p.client;
  const ClcResult& receiver = server_declines ? p.client : p.server;
  EXPECT_EQ(sender.outcome.kind, clc::OutcomeKind::kFallback);
  EXPECT_TRUE(sender.outcome.decline_sent);
  EXPECT_EQ(sender.outcome.diagnosis, code);
  EXPECT_EQ(receiver.outcome.kind, clc::OutcomeKind::kFallback) << receiver.transport_error;
  EXPECT_TRUE(receiver.outcome.decline_received);
  EXPECT_EQ(receiver.outcome.diagnosis, code);
}

TEST(ClcEndpoint, ServerDeclineThenPlainTcpContinues) {
  auto cc = client_config();
  cc.offer_v2 = false;
  cc.ipv4 = {0x0a000000, 8};  // not the server's subnet
  std::string got;
  auto p = exchange(cc, server_config(), {}, {}, [&](tcp::socket& client, tcp::socket& server) {
    // After the fallback both sides keep the TCP connection: data flows.
    asio::write(client, asio::buffer(std::string("hello")));
    std::string buf(5, '\0');
    asio::read(server, asio::buffer(buf));
    got = buf;
  });
  expect_fallback_with(p, true, clc::kDeclDiffPrefix);
  EXPECT_EQ(got, "hello");
}

TEST(ClcEndpoint, EachDeclinePathCarriesItsCode) {
  {  // v2 only, no common EID
    auto cc = client_config();
    cc.offer_v1 = false;
    cc.v2.user_eids = {clc::make_eid("NOBODY")};
    expect_fallback_with(exchange(cc, server_config()), true, clc::kDeclNoUeid);
  }
  {  // no common version
    auto cc = client_config();
    cc.offer_v2 = false;
    auto sc = server_config();
    sc.accept_v1 = false;
    expect_fallback_with(exchange(cc, sc), true, clc::kDeclVersMismat);
  }
  {  // server claims a link group the client does not have: SYNCERR, Out of Sync
    auto cc = client_config();
    auto sc = server_config();
    sc.link_groups = {clc::LinkGroupPeer{cc.link.peer_id, cc.link.gid, cc.link.mac, cc.link.qp_number}};
    auto p = exchange(cc, sc);
    expect_fallback_with(p, false, clc::kDeclSyncErr);
    EXPECT_TRUE(p.server.outcome.peer_out_of_sync);
  }
  {  // the client has nothing to offer: its first CLC message is a Decline
    auto cc = client_config();
    cc.offer_v1 = cc.offer_v2 = false;
    expect_fallback_with(exchange(cc, server_config()), false, clc::kDeclNoSmcDev);
  }
}

TEST(ClcEndpoint, NoSmcCapabilityMeansNoClc) {
  ClcOptions o;
  o.peer_smc_capable = false;
  std::string got;
  auto p = exchange(client_config(), server_config(), o, o, [&](tcp::socket& client, tcp::socket& server) {
    asio::write(server, asio::buffer(std::string("plain")));
    std::string buf(5, '\0');
    asio::read(client, asio::buffer(buf));
    got = buf;
  });
  EXPECT_EQ(p.client.outcome.kind, clc::OutcomeKind::kFallback);
  EXPECT_EQ(p.client.outcome.diagnosis, clc::kDeclPeerNoSmc);
  EXPECT_EQ(p.server.outcome.diagnosis, clc::kDeclPeerNoSmc);
  EXPECT_TRUE(p.client.transcript.empty() && p.server.transcript.empty());
  EXPECT_EQ(got, "plain");
}

TEST(ClcEndpoint, ClientTimesOutOnSilentServer) {
  asio::io_context io;
  tcp::acceptor acceptor(io, kLoopback);
  tcp::socket accepted(io);
  acceptor.async_accept(accepted, [](boost::system::error_code) {});  // accepts, never answers
  tcp::socket client(io);
  ClcResult r;
  bool done = false;
  const auto start = std::chrono::steady_clock::now();
  client.async_connect(acceptor.local_endpoint(), [&](boost::system::error_code ec) {
    ASSERT_FALSE(ec);
    ClcOptions o;
    o.wait_time = 150ms;
    async_clc_client(client, client_config(), o, [&](ClcResult res) {
      r = std::move(res);
      done = true;
    });
  });
  io.run_for(5s);
  ASSERT_TRUE(done);
  EXPECT_EQ(r.outcome.kind, clc::OutcomeKind::kFailed);
  EXPECT_EQ(r.outcome.fail, clc::FailReason::kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);
  ASSERT_EQ(r.transcript.size(), 1u) << "the Proposal went out, nothing came back";
}

TEST(ClcEndpoint, ServerTimesOutOnSilentClientAndRejectsGarbage) {
  for (bool send_garbage : {false, true}) {
    asio::io_context io;
    ClcOptions o;
    o.wait_time = 150ms;
    ClcServer server(io, kLoopback, server_config(), o);
    ClcResult r;
    bool done = false;
    server.start(
        [&](ClcResult res, tcp::socket&) {
          r = std::move(res);
          done = true;
        },
        1);
    tcp::socket client(io);
    const std::vector<std::uint8_t> garbage = {0xe2, 0xd4, 0xc3, 0x00, 0x01, 0x00, 0x34, 0x10};
    client.async_connect(tcp::endpoint(kLoopback.address(), server.port()), [&](boost::system::error_code ec) {
      ASSERT_FALSE(ec);
      if (send_garbage) asio::async_write(client, asio::buffer(garbage), [](boost::system::error_code, std::size_t) {});
    });
    io.run_for(5s);
    ASSERT_TRUE(done) << send_garbage;
    EXPECT_EQ(r.outcome.kind, clc::OutcomeKind::kFailed);
    if (send_garbage) {
      EXPECT_EQ(r.outcome.fail, clc::FailReason::kProtocolError);
      EXPECT_EQ(r.outcome.error->field, "Eyecatcher");
    } else {
      EXPECT_EQ(r.outcome.fail, clc::FailReason::kTimeout);
    }
  }
}

TEST(ClcEndpoint, BlockingClientAgainstListener) {
  asio::io_context io;
  ClcServer server(io, kLoopback, server_config());
  server.start([](ClcResult, tcp::socket&) {}, 1);
  std::thread t([&] { io.run_for(10s); });
  auto r = run_clc_client(tcp::endpoint(kLoopback.address(), server.port()), client_config());
  t.join();
  EXPECT_EQ(r.outcome.kind, clc::OutcomeKind::kSmc) << r.transport_error;
  EXPECT_EQ(r.outcome.version, 2);
}

}  // namespace
}  // namespace rdmaconf::endpoint
