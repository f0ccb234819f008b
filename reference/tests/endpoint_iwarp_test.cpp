// Two reference endpoints over real loopback TCP: every operation type, both
// MPA revisions, Markers on and off, CRC on and off, the RFC 6581 peer-to-peer
// RTR kinds; and the endpoint's reaction to a peer that breaks the rules on
// the wire (a Terminate with the exact code, then the connection closes).
#include "endpoint/iwarp_endpoint.hpp"

#include <future>
#include <numeric>
#include <thread>
#include <tuple>

#include <gtest/gtest.h>

#include "mpa/framer.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/terminate.hpp"

namespace rdmaconf::endpoint {
namespace {

using namespace std::chrono_literals;

wire::Bytes text(std::string_view s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

struct Listener {
  asio::io_context io;
  tcp::acceptor acceptor{io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)};
  tcp::endpoint where() const { return acceptor.local_endpoint(); }
};

struct Pair {
  std::unique_ptr<IwarpEndpoint> initiator;
  std::unique_ptr<IwarpEndpoint> responder;
};

// `before` runs on both endpoints before they connect (registrations,
// posted receives).
Pair connect_pair(IwarpConfig initiator_config, IwarpConfig responder_config,
                  const std::function<void(Pair&)>& before = {}) {
  Listener l;
  Pair p;
  p.initiator = std::make_unique<IwarpEndpoint>(initiator_config);
  p.responder = std::make_unique<IwarpEndpoint>(responder_config);
  if (before) before(p);
  auto fut = std::async(std::launch::async, [&] { return p.responder->accept(l.acceptor); });
  p.initiator->connect(l.where());
  fut.get();
  return p;
}

rdmap::Completion expect_completion(IwarpEndpoint& ep, rdmap::CompletionType type, rdmap::WorkRequestId id) {
  auto c = ep.wait_completion(5s);
  EXPECT_TRUE(c.has_value()) << "no completion for wr " << id;
  if (!c) return {};
  EXPECT_EQ(c->type, type) << "wr " << id;
  EXPECT_EQ(c->wr_id, id);
  EXPECT_EQ(c->status, rdmap::CompletionStatus::kSuccess) << "wr " << id;
  return *c;
}

// (MPA revision, Markers, CRC)
class EveryOperation : public ::testing::TestWithParam<std::tuple<int, bool, bool>> {};

TEST_P(EveryOperation, OverLoopbackTcp) {
  const auto [revision, markers, crc] = GetParam();
  IwarpConfig cfg;
  cfg.mpa.revision = static_cast<std::uint8_t>(revision);
  cfg.mpa.want_markers = markers;
  cfg.mpa.want_crc = crc;
  cfg.fpdu_budget = 700;  // several segments per message, Markers inside FPDUs
  cfg.negotiation_timeout = 5s;
  Pair p = connect_pair(cfg, cfg);
  ASSERT_EQ(p.initiator->state(), ConnectionState::kOperational) << p.initiator->failure();
  ASSERT_EQ(p.responder->state(), ConnectionState::kOperational) << p.responder->failure();
  const auto neg = *p.initiator->negotiated();
  EXPECT_EQ(neg.revision, revision);
  EXPECT_EQ(neg.crc, crc);
  EXPECT_EQ(neg.markers_send, markers);
  EXPECT_EQ(neg.markers_receive, markers);

  std::vector<std::uint8_t> region(8192, 0);
  const auto rights = ddp::Access::kLocalRead | ddp::Access::kLocalWrite | ddp::Access::kRemoteRead |
                      ddp::Access::kRemoteWrite | ddp::Access::kRemoteAtomic;
  const ddp::Stag stag = p.responder->register_memory(region, 0x4000, rights);
  std::vector<std::vector<std::uint8_t>> rx(6, std::vector<std::uint8_t>(4096));
  for (std::size_t i = 0; i < rx.size(); ++i) p.responder->post_receive(10 + i, rx[i]);
  std::vector<std::uint8_t> sink(4096);
  const ddp::Stag sink_stag = p.initiator->register_memory(sink, 0, ddp::Access::kLocalWrite);

  // A Send longer than one segment.
  std::vector<std::uint8_t> big(3000);
  std::iota(big.begin(), big.end(), std::uint8_t{7});
  ASSERT_TRUE(p.initiator->post_send(1, big).ok());
  expect_completion(*p.initiator, rdmap::CompletionType::kSend, 1);
  auto r = expect_completion(*p.responder, rdmap::CompletionType::kReceive, 10);
  EXPECT_EQ(r.byte_len, big.size());
  EXPECT_TRUE(std::equal(big.begin(), big.end(), rx[0].begin()));

  ASSERT_TRUE(p.initiator->post_send(2, text("se"), {.solicited_event = true, .invalidate = std::nullopt}).ok());
  expect_completion(*p.initiator, rdmap::CompletionType::kSend, 2);
  EXPECT_TRUE(expect_completion(*p.responder, rdmap::CompletionType::kReceive, 11).solicited_event);

  // RDMA Write, then RDMA Read of the same octets back.
  ASSERT_TRUE(p.initiator->post_write(3, big, stag, 0x4000 + 100).ok());
  expect_completion(*p.initiator, rdmap::CompletionType::kRdmaWrite, 3);
  ASSERT_TRUE(p.initiator->post_read(4, {.sink_stag = sink_stag, .sink_to = 0, .size = 3000, .source_stag = stag,
                                         .source_to = 0x4000 + 100})
                  .ok());
  expect_completion(*p.initiator, rdmap::CompletionType::kRdmaRead, 4);
  EXPECT_TRUE(std::equal(big.begin(), big.end(), sink.begin()));
  EXPECT_TRUE(std::equal(big.begin(), big.end(), region.begin() + 100));

  // Atomics (RFC 7306 §5).
  ASSERT_TRUE(p.initiator->post_atomic(5, {.op = rdmap::AtomicOpcode::kFetchAdd, .remote_stag = stag,
                                           .remote_to = 0x4000, .add_or_swap_data = 3}).ok());
  EXPECT_EQ(expect_completion(*p.initiator, rdmap::CompletionType::kAtomic, 5).atomic_original, 0u);
  ASSERT_TRUE(p.initiator->post_atomic(6, {.op = rdmap::AtomicOpcode::kCompareSwap, .remote_stag = stag,
                                           .remote_to = 0x4000, .add_or_swap_data = 9,
                                           .add_or_swap_mask = ~0ull, .compare_data = 3}).ok());
  EXPECT_EQ(expect_completion(*p.initiator, rdmap::CompletionType::kAtomic, 6).atomic_original, 3u);
  std::uint64_t now = 0;
  for (int i = 0; i < 8; ++i) now = (now << 8) | region[i];
  EXPECT_EQ(now, 9u) << "the target is big-endian on the wire and in memory (RFC 7306 §5)";

  // Immediate Data with and without SE (RFC 7306 §6).
  ASSERT_TRUE(p.initiator->post_immediate(7, 0x1122334455667788ull).ok());
  expect_completion(*p.initiator, rdmap::CompletionType::kImmediateData, 7);
  EXPECT_EQ(expect_completion(*p.responder, rdmap::CompletionType::kReceiveImmediate, 12).immediate_data,
            0x1122334455667788ull);
  ASSERT_TRUE(p.initiator->post_immediate(8, 1, true).ok());
  expect_completion(*p.initiator, rdmap::CompletionType::kImmediateData, 8);
  EXPECT_TRUE(expect_completion(*p.responder, rdmap::CompletionType::kReceiveImmediate, 13).solicited_event);

  // Send with Invalidate and Send with SE and Invalidate (RFC 5040 §5.3).
  ASSERT_TRUE(p.initiator->post_send(9, text("inv"), {.solicited_event = false, .invalidate = stag}).ok());
  expect_completion(*p.initiator, rdmap::CompletionType::kSend, 9);
  EXPECT_EQ(expect_completion(*p.responder, rdmap::CompletionType::kReceive, 14).invalidated_stag, stag);
  const ddp::Stag stag2 = p.responder->register_memory(region, 0, rights);
  ASSERT_TRUE(p.initiator->post_send(10, text("inv2"), {.solicited_event = true, .invalidate = stag2}).ok());
  expect_completion(*p.initiator, rdmap::CompletionType::kSend, 10);
  auto inv2 = expect_completion(*p.responder, rdmap::CompletionType::kReceive, 15);
  EXPECT_EQ(inv2.invalidated_stag, stag2);
  EXPECT_TRUE(inv2.solicited_event);

  // The invalidated STag is no longer usable: RDMA Write to it is answered
  // with a Terminate (RFC 5041 §7.2: DDP, tagged buffer error, invalid STag).
  ASSERT_TRUE(p.initiator->post_write(11, text("late"), stag, 0x4000).ok());
  std::optional<rdmap::Completion> term;
  for (int i = 0; i < 3 && !term; ++i) {
    auto c = p.initiator->wait_completion(5s);
    ASSERT_TRUE(c);
    if (c->type == rdmap::CompletionType::kTerminateReceived) term = c;
  }
  ASSERT_TRUE(term && term->terminate);
  EXPECT_EQ(term->terminate->code, (ddp::TerminateCode{ddp::Layer::kDdp, 0x1, 0x00}));
  EXPECT_TRUE(term->terminate->d) << "the offending DDP header is copied (RFC 5040 §4.8)";
  EXPECT_TRUE(p.initiator->wait_closed(5s));
  EXPECT_TRUE(p.responder->wait_closed(5s));
}

INSTANTIATE_TEST_SUITE_P(RevisionsMarkersCrc, EveryOperation,
                         ::testing::Combine(::testing::Values(1, 2), ::testing::Bool(), ::testing::Bool()),
                         [](const auto& info) {
                           return "Rev" + std::to_string(std::get<0>(info.param)) +
                                  (std::get<1>(info.param) ? "_Markers" : "_NoMarkers") +
                                  (std::get<2>(info.param) ? "_Crc" : "_NoCrc");
                         });

// RFC 6581: in the peer-to-peer model the initiator's first message is the
// RTR of the agreed kind, and the responder sends nothing before it.
class PeerToPeer : public ::testing::TestWithParam<mpa::RtrKind> {};

TEST_P(PeerToPeer, RtrThenTraffic) {
  IwarpConfig i;
  i.mpa.revision = 2;
  i.mpa.peer_to_peer = true;
  i.mpa.rtr = {GetParam() == mpa::RtrKind::kZeroLengthSend, GetParam() == mpa::RtrKind::kZeroLengthWrite,
               GetParam() == mpa::RtrKind::kZeroLengthRead};
  IwarpConfig r = i;
  r.mpa.rtr = {true, true, true};
  // A zero-length Send RTR consumes a receive buffer at the responder, so
  // both sides post theirs before connecting.
  std::vector<std::uint8_t> rx(64);
  std::vector<std::uint8_t> irx(64);
  Pair p = connect_pair(i, r, [&](Pair& q) {
    q.responder->post_receive(1, rx);
    q.initiator->post_receive(3, irx);
  });
  ASSERT_TRUE(p.initiator->negotiated());
  EXPECT_EQ(p.initiator->negotiated()->rtr_to_send, GetParam());
  EXPECT_EQ(p.responder->negotiated()->rtr_to_expect, i.mpa.rtr);  // the offered kind, and only it
  // Once the RTR arrived the responder may send.
  for (int i = 0; i < 100 && p.responder->state() == ConnectionState::kAwaitingRtr; ++i)
    std::this_thread::sleep_for(10ms);
  ASSERT_EQ(p.responder->state(), ConnectionState::kOperational) << p.responder->failure();
  ASSERT_TRUE(p.responder->post_send(4, text("after RTR")).ok());
  EXPECT_EQ(expect_completion(*p.initiator, rdmap::CompletionType::kReceive, 3).byte_len, 9u);
}

INSTANTIATE_TEST_SUITE_P(RtrKinds, PeerToPeer,
                         ::testing::Values(mpa::RtrKind::kZeroLengthSend, mpa::RtrKind::kZeroLengthWrite,
                                           mpa::RtrKind::kZeroLengthRead),
                         [](const auto& info) { return std::string(mpa::name(info.param)).substr(0, 0) +
                                                       std::to_string(static_cast<int>(info.param)); });

TEST(IwarpEndpoint, RevisionMismatchFailsBothSides) {
  IwarpConfig i;
  i.mpa.revision = 2;
  i.mpa.accept_rev1 = false;
  IwarpConfig r;
  r.mpa.accept_rev2 = false;  // an RFC 5044-only responder
  Pair p = connect_pair(i, r);
  EXPECT_EQ(p.initiator->state(), ConnectionState::kClosed);
  EXPECT_NE(p.initiator->failure().find("MPA negotiation failed"), std::string::npos) << p.initiator->failure();
  EXPECT_EQ(p.responder->state(), ConnectionState::kClosed);
}

TEST(IwarpEndpoint, ReplyTimeout) {
  // A TCP peer that accepts and then says nothing: the initiator gives up
  // after its negotiation timer (RFC 5044 §7.1.2).
  Listener l;
  std::thread silent([&] {
    tcp::socket s(l.io);
    l.acceptor.accept(s);
    std::this_thread::sleep_for(1500ms);
  });
  IwarpConfig i;
  i.negotiation_timeout = 300ms;
  auto start = std::chrono::steady_clock::now();
  auto ep = std::make_unique<IwarpEndpoint>(i);
  EXPECT_FALSE(ep->connect(l.where()));
  EXPECT_EQ(ep->state(), ConnectionState::kClosed);
  EXPECT_NE(ep->failure().find("timeout"), std::string::npos) << ep->failure();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1400ms);
  silent.join();
}

TEST(IwarpEndpoint, UnreachableTargetIsAClearFailure) {
  Listener l;
  const auto where = l.where();
  l.acceptor.close();  // nobody listens there any more
  auto ep = std::make_unique<IwarpEndpoint>(IwarpConfig{});
  EXPECT_FALSE(ep->connect(where));
  EXPECT_EQ(ep->state(), ConnectionState::kClosed);
  EXPECT_NE(ep->failure().find("connect"), std::string::npos) << ep->failure();
}

// A hand-driven initiator that negotiates properly and then sends an FPDU
// whose CRC is wrong: the reference responder must answer with a Terminate,
// layer LLP, MPA CRC error (RFC 5044 §8 / §6.1), and close.
TEST(IwarpEndpoint, BadCrcGetsAnLlpTerminate) {
  Listener l;
  IwarpConfig r;
  r.mpa.want_crc = true;
  auto responder = std::make_unique<IwarpEndpoint>(r);
  auto fut = std::async(std::launch::async, [&] { return responder->accept(l.acceptor); });

  asio::io_context io;
  tcp::socket s(io);
  s.connect(l.where());
  mpa::ReqRepFields req;
  req.kind = mpa::FrameKind::kRequest;
  req.revision = 1;
  req.crc = true;
  asio::write(s, asio::buffer(mpa::encode_req_rep(req)));
  std::array<std::uint8_t, 20> reply{};
  asio::read(s, asio::buffer(reply));
  ASSERT_TRUE(fut.get());
  ASSERT_EQ(responder->state(), ConnectionState::kOperational) << responder->failure();

  // An untagged Send (QN 0, MSN 1) framed with a forced, wrong CRC.
  const std::vector<std::uint8_t> ulpdu = {0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 'x', 'y'};
  mpa::Framer framer({.markers = false, .crc = true, .stream_position = 0});
  std::vector<std::uint8_t> fpdu;
  mpa::FramerOverrides bad;
  bad.crc = 0xdeadbeef;
  framer.frame(wire::Bytes(ulpdu), fpdu, bad);
  asio::write(s, asio::buffer(fpdu));

  // Read until the responder closes; the octets are one FPDU: a Terminate.
  std::vector<std::uint8_t> got;
  boost::system::error_code ec;
  std::array<std::uint8_t, 256> buf{};
  for (;;) {
    std::size_t n = s.read_some(asio::buffer(buf), ec);
    got.insert(got.end(), buf.begin(), buf.begin() + n);
    if (ec) break;
  }
  ASSERT_GE(got.size(), 2u + 18u + 4u);
  // ULPDU: DDP untagged header, QN 2 (Terminate queue), opcode 7.
  EXPECT_EQ(got[2] & 0x80, 0) << "untagged";
  EXPECT_EQ(got[3] & 0x0f, 0x7) << "RDMAP opcode Terminate";
  EXPECT_EQ(got[2 + 9], 2) << "QN 2";
  // Terminate control: layer 2 (LLP), etype 0, code 0x02 (CRC error).
  EXPECT_EQ(got[2 + 18], 0x20);
  EXPECT_EQ(got[2 + 19], 0x02);
  // The responder half-closed after its Terminate; it closes for good even
  // while this peer keeps its side open (the endpoint's close grace timer).
  EXPECT_TRUE(responder->wait_closed(5s));
  s.close();
}

}  // namespace
}  // namespace rdmaconf::endpoint
