// What the observer publishes with each FPDU beside its headers
// (SegmentInfo: the expected MSN, Read Request numbers and the Read Request a
// Read Response answers), and the link-group routing of link_groups.hpp: the
// results the Wireshark plugin and decode show instead of deriving them.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "analysis/link_groups.hpp"
#include "analysis/observer.hpp"
#include "analysis_fixtures.hpp"

namespace rdmaconf::analysis::testing {
namespace {

struct Published {
  Side side;
  FrameNo frame;
  int opcode;
  std::optional<std::uint32_t> expected_msn;
  std::uint64_t read_request_number;
  std::optional<ReadMatch> read;
};

struct Publications : ObserverSink {
  void on_message(const Message& m) override {
    if (m.segment && m.segment->has_header)
      seen.push_back({m.side, m.frame, m.segment->rdmap.opcode, m.segment->expected_msn,
                      m.segment->read_request_number, m.segment->read});
  }
  void on_violation(const Violation&) override {}
  std::vector<Published> seen;
};

Session reads_session() {
  Session s;
  s.start();
  s.fpdu(0, send_msg(1, filler(100)));                                 // Send, QN 0 MSN 1
  s.fpdu(0, read_request(1, 0x2000, 0x100, 200, 0x5000, 0x9000));       // Read Request 1, QN 1 MSN 1
  s.fpdu(0, read_request(2, 0x2100, 0x0, 16, 0x5100, 0x40));            // Read Request 2, QN 1 MSN 2
  s.fpdu(1, tagged(0x2, 0x2000, 0x100, false, filler(128)));            // Response to 1, 2 segments
  s.fpdu(1, tagged(0x2, 0x2000, 0x180, true, filler(72)));
  s.fpdu(1, tagged(0x2, 0x2100, 0x8, true, filler(16)));                // Response to 2, 8 octets into the sink
  s.fpdu(0, untagged(0x3, 0, 2, 0, false, filler(40)));                 // Send in two segments, MSN 2
  s.fpdu(0, untagged(0x3, 0, 2, 40, true, filler(3)));
  return s;
}

// RFC 5041 §5.2: each queue's messages are numbered from 1; every segment of
// one message carries its number. RFC 5040 §5.2.2: Read Responses answer the
// Read Requests in the order they were sent.
TEST(SegmentInfo, ExpectedMsnAndReadMatches) {
  const Session s = reads_session();
  Publications out;
  ConnectionObserver obs(out);
  feed_session(obs, s);
  // Each side's FPDUs in the order it sent them.
  std::vector<Published> p, r;
  for (const Published& x : out.seen) (x.side == Side::kInitiator ? p : r).push_back(x);
  ASSERT_EQ(p.size(), 5u);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(p[0].expected_msn, 1u);  // first Send on QN 0
  EXPECT_EQ(p[1].expected_msn, 1u);  // first Read Request on QN 1
  EXPECT_EQ(p[2].expected_msn, 2u);
  EXPECT_EQ(p[3].expected_msn, 2u);  // the second Send, both segments
  EXPECT_EQ(p[4].expected_msn, 2u);
  EXPECT_FALSE(r[0].expected_msn);   // tagged: no queue
  EXPECT_EQ(p[1].read_request_number, 1u);
  EXPECT_EQ(p[2].read_request_number, 2u);
  EXPECT_EQ(p[0].read_request_number, 0u);

  ASSERT_TRUE(r[0].read && r[1].read && r[2].read);
  EXPECT_EQ(r[0].read->request, 1u);
  EXPECT_EQ(r[0].read->request_frame, p[1].frame);
  EXPECT_EQ(r[0].read->source_stag, 0x5000u);
  EXPECT_EQ(r[0].read->source_to, 0x9000u);
  EXPECT_EQ(r[0].read->offset, 0u);
  EXPECT_EQ(r[1].read->request, 1u);
  EXPECT_EQ(r[1].read->offset, 0x80u);  // the second segment's TO from the Sink TO
  EXPECT_EQ(r[2].read->request, 2u);
  EXPECT_EQ(r[2].read->request_frame, p[2].frame);
  EXPECT_EQ(r[2].read->source_stag, 0x5100u);
  EXPECT_EQ(r[2].read->offset, 0x8u);  // where it lands, not what was answered before (nothing)
  EXPECT_FALSE(p[0].read);
}

// A stream the capture joined late: no queue's place is known until a
// segment shows it, and requests sent before cannot be matched.
TEST(SegmentInfo, NothingClaimedOnAMidConnectionStart) {
  Session s;
  s.start();
  s.fpdu(0, read_request(5, 0x2000, 0x0, 16));
  s.fpdu(1, tagged(0x2, 0x2000, 0x0, true, filler(16)));
  s.fpdu(0, send_msg(7, filler(20)));
  s.fpdu(0, send_msg(8, filler(20)));
  Publications out;
  ConnectionObserver obs(out);
  obs.on_mid_stream(Side::kInitiator);
  obs.on_mid_stream(Side::kResponder);
  // The FPDUs only, as a capture that starts after MPA startup holds them.
  FrameNo frame = 1;
  for (int side : {0, 1}) {
    const std::size_t from = s.boundaries[side].front();
    obs.on_data(static_cast<Side>(side), frame++, wire::Bytes(s.stream[side]).subspan(from));
  }
  obs.on_end(Side::kInitiator);
  obs.on_end(Side::kResponder);
  std::optional<std::uint32_t> last_send_expected;
  for (const Published& x : out.seen) {
    EXPECT_EQ(x.read_request_number, 0u);
    EXPECT_FALSE(x.read);
    if (x.opcode == 0x3 && x.side == Side::kInitiator) last_send_expected = x.expected_msn;
  }
  // Whatever the hunt found first carries no expectation; the last Send's is learnt.
  if (last_send_expected) {
    EXPECT_EQ(*last_send_expected, 8u);
  }
  for (const Published& x : out.seen) {
    if (x.opcode == 0x1) {
      EXPECT_FALSE(x.expected_msn);
    }
  }
}

// RFC 7609 §3.5.1.6.1: an accepted ADD LINK routes the new link's addresses
// to the group; the group's own pair, a missing GID and pairs past the bound
// are not routed.
TEST(LinkGroupRoutes, RoutesAddedLinksBoundedPerGroup) {
  struct Group {};
  using Gid = std::array<std::uint8_t, 16>;
  using Routes = LinkGroupRoutes<Group, Gid>;
  auto gid = [](std::uint8_t n) {
    Gid g{};
    g.back() = n;
    return g;
  };
  auto address_of = [](const Gid& g) -> std::optional<Gid> {
    if (g == Gid{}) return std::nullopt;
    return g;
  };
  Routes routes;
  Group a, b;
  const Routes::Pair own_a = Routes::ordered(gid(1), gid(2));
  std::vector<RoceObserver::AddedLink> added = {{{gid(1), gid(2)}}, {{Gid{}, gid(9)}}, {{gid(4), gid(3)}}};
  EXPECT_TRUE(routes.add(a, own_a, added, address_of));
  EXPECT_EQ(routes.find(own_a), nullptr);                              // its own pair
  EXPECT_EQ(routes.find(Routes::ordered(Gid{}, gid(9))), nullptr);     // no GID
  const Routes::Route* r = routes.find(Routes::ordered(gid(3), gid(4)));
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->group, &a);
  EXPECT_EQ(r->initiator, gid(4));  // the GID of the group's initiator side
  EXPECT_FALSE(routes.add(a, own_a, {{{gid(3), gid(4)}}}, address_of));  // already the group's

  std::vector<RoceObserver::AddedLink> many;
  for (std::uint8_t n = 10; n < 40; n += 2) many.push_back({{gid(n), gid(static_cast<std::uint8_t>(n + 1))}});
  routes.add(a, own_a, many, address_of);
  std::size_t routed = 0;
  for (std::uint8_t n = 10; n < 40; n += 2) routed += routes.find(Routes::ordered(gid(n), gid(n + 1))) != nullptr;
  EXPECT_EQ(routed + 1, Routes::kMaxAliases);  // the bound counts the first route too
  // Another group is not locked out by the first one's bound.
  EXPECT_TRUE(routes.add(b, Routes::ordered(gid(50), gid(51)), {{{gid(60), gid(61)}}}, address_of));
  EXPECT_EQ(routes.find(Routes::ordered(gid(60), gid(61)))->group, &b);
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
