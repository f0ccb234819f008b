// DDP segmentation at the Data Source (RFC 5041 §5.2): segments respect the
// MULPDU, TO or MO advance, MSN stays, L only on the last, payload by view.
#include "ddp/segmentation.hpp"

#include <numeric>
#include <vector>

#include <gtest/gtest.h>

namespace rdmaconf::ddp {
namespace {

std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> v(n);
  std::iota(v.begin(), v.end(), std::uint8_t{0});
  return v;
}

// The RFC 5041 §5.2 example: a 2048-octet untagged message over an MULPDU of
// 1500 gives a first segment of 1482 payload octets (MO 0) and a second of
// 566 (MO 1482).
TEST(DdpSegmentation, UntaggedExampleOfRfc5041Section5_2) {
  const auto msg = pattern(2048);
  UntaggedTarget t{0x43, 0, QueueNumber{0}, Msn{5}};
  auto segs = segment_untagged(t, {}, wire::Chunks(msg), 1500);
  ASSERT_TRUE(segs.ok());
  ASSERT_EQ(segs->size(), 2u);
  wire::ByteReader r0((*segs)[0].header());
  auto h0 = UntaggedHeader::decode(r0);
  wire::ByteReader r1((*segs)[1].header());
  auto h1 = UntaggedHeader::decode(r1);
  using F = UntaggedSpec::Field;
  EXPECT_EQ(h0->get(F::MO), 0u);
  EXPECT_EQ(h0->get(F::L), 0u);
  EXPECT_EQ(h0->get(F::MSN), 5u);
  EXPECT_EQ((*segs)[0].payload.size(), 1482u);
  EXPECT_EQ((*segs)[0].size(), 1500u);
  EXPECT_EQ(h1->get(F::MO), 1482u);
  EXPECT_EQ(h1->get(F::L), 1u);
  EXPECT_EQ(h1->get(F::MSN), 5u);
  EXPECT_EQ((*segs)[1].payload.size(), 566u);
  // Payload is a view of the message, not a copy.
  EXPECT_EQ((*segs)[1].payload.piece(0).data(), msg.data() + 1482);
}

TEST(DdpSegmentation, TaggedToAdvancesAndEveryMulpduIsRespected) {
  const auto msg = pattern(1000);
  for (std::size_t mulpdu = kTaggedHeaderSize + 1; mulpdu < 300; mulpdu += 7) {
    TaggedTarget t{0x40, Stag{0x1234}, 0xfffffffffffffe00ull};
    auto segs = segment_tagged(t, {}, wire::Chunks(msg), mulpdu);
    ASSERT_TRUE(segs.ok());
    std::vector<std::uint8_t> joined;
    for (std::size_t i = 0; i < segs->size(); ++i) {
      const Segment& s = (*segs)[i];
      ASSERT_LE(s.size(), mulpdu);
      wire::ByteReader r(s.header());
      auto h = TaggedHeader::decode(r);
      ASSERT_TRUE(h.ok());
      EXPECT_EQ(h->get(TaggedSpec::Field::TO), t.to + joined.size());
      EXPECT_EQ(h->get(TaggedSpec::Field::L), i + 1 == segs->size() ? 1u : 0u);
      EXPECT_EQ(h->get(TaggedSpec::Field::STag), 0x1234u);
      auto p = s.payload.to_vector();
      joined.insert(joined.end(), p.begin(), p.end());
    }
    EXPECT_EQ(joined, msg) << mulpdu;
  }
}

// An RDMAP header opening the message is copied into the first segment and
// counts toward MO.
TEST(DdpSegmentation, UlpHeaderOpensTheFirstSegment) {
  const std::vector<std::uint8_t> ulp = {1, 2, 3, 4, 5, 6, 7, 8};
  const auto msg = pattern(30);
  auto segs = segment_untagged(UntaggedTarget{0x48, 0, QueueNumber{0}, Msn{1}}, ulp,
                               wire::Chunks(msg), kUntaggedHeaderSize + 20);
  ASSERT_TRUE(segs.ok());
  ASSERT_EQ(segs->size(), 2u);
  EXPECT_EQ((*segs)[0].header_size, kUntaggedHeaderSize + 8);
  EXPECT_EQ((*segs)[0].payload.size(), 12u);
  wire::ByteReader r((*segs)[1].header());
  EXPECT_EQ(UntaggedHeader::decode(r)->get(UntaggedSpec::Field::MO), 20u);
  EXPECT_EQ((*segs)[1].payload.to_vector(), std::vector<std::uint8_t>(msg.begin() + 12, msg.end()));
}

TEST(DdpSegmentation, ZeroLengthMessageIsOneLastSegment) {
  auto segs = segment_tagged(TaggedTarget{0x40, Stag{1}, 0}, {}, wire::Chunks{}, 64);
  ASSERT_TRUE(segs.ok());
  ASSERT_EQ(segs->size(), 1u);
  EXPECT_EQ((*segs)[0].size(), kTaggedHeaderSize);
  EXPECT_EQ((*segs)[0].header()[0], 0xc1);  // T=1 L=1 DV=1
}

TEST(DdpSegmentation, ImpossibleSegmentationsAreTypedErrors) {
  const auto msg = pattern(10);
  auto too_small = segment_tagged(TaggedTarget{}, {}, wire::Chunks(msg), kTaggedHeaderSize);
  ASSERT_FALSE(too_small.ok());
  EXPECT_EQ(too_small.error().field, "MULPDU");
  const std::vector<std::uint8_t> big_ulp(40, 0);
  auto no_fit = segment_untagged(UntaggedTarget{}, big_ulp, wire::Chunks{}, 50);
  ASSERT_FALSE(no_fit.ok());
  EXPECT_EQ(no_fit.error().rfc_section, "RFC 5041 §5.2");
}

}  // namespace
}  // namespace rdmaconf::ddp
