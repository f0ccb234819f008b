// How FPDUs go into TCP segments (check/mpa_tcp.hpp): each function names
// its rule and says nothing where the capture cannot tell (the EMSS between
// the bounds it knows, an EMSS under 128 octets, RFC 5044 §4.5).
#include "check/mpa_tcp.hpp"

#include <gtest/gtest.h>

namespace rdmaconf::check {
namespace {

// A Linux sender over Ethernet: MSS 1460, segments of 1448 with timestamps.
constexpr EmssBounds kLinux{1460, 1448};

TEST(CheckMpaTcp, AnFpduFitsTheMss) {
  EXPECT_FALSE(fpdu_fits_segment(1460, kLinux));
  EXPECT_FALSE(fpdu_fits_segment(1448, kLinux));
  auto v = fpdu_fits_segment(1461, kLinux);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kFpduFitsSegment);
  EXPECT_EQ(v->field, "FPDU");
  EXPECT_EQ(v->seen, 1461u);
  EXPECT_EQ(v->expected, 1460u);
  // Unknown MSS: nothing to judge by.
  EXPECT_FALSE(fpdu_fits_segment(60000, EmssBounds{}));
  // RFC 5044 §4.5: a 128-octet MULPDU is allowed however small the EMSS.
  EXPECT_EQ(kSmallestMulpduFpdu, 134u);
  EXPECT_FALSE(fpdu_fits_segment(134, EmssBounds{100, 100}));
  EXPECT_TRUE(fpdu_fits_segment(135, EmssBounds{100, 100}));
}

TEST(CheckMpaTcp, AnFpduThatOpensASegmentAndFitsIsNotContinued) {
  // 1000 octets, 600 of them in the segment it opens.
  const SplitFpdu split{1000, 0, 600};
  auto v = no_splitting_small(split, kLinux);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kNoSplittingSmall);
  EXPECT_EQ(v->octet, 0u);
  EXPECT_EQ(v->seen, 600u);
  EXPECT_EQ(v->expected, 1000u);
  // Not packed: alignment's rule is not the one broken.
  EXPECT_FALSE(segment_alignment(split, kLinux));
  // Whole in its segment.
  EXPECT_FALSE(no_splitting_small(SplitFpdu{600, 0, 600}, kLinux));
  // Longer than any segment the sender sent: perhaps it did not fit.
  EXPECT_FALSE(no_splitting_small(SplitFpdu{1449, 0, 1000}, kLinux));
  EXPECT_TRUE(no_splitting_small(SplitFpdu{1448, 0, 1000}, kLinux));
  // §4.5: with an EMSS the capture knows only below 128 octets, §5.1 does not bind.
  EXPECT_FALSE(no_splitting_small(SplitFpdu{100, 0, 60}, EmssBounds{1460, 127}));
  EXPECT_TRUE(no_splitting_small(SplitFpdu{100, 0, 60}, EmssBounds{1460, 128}));
}

TEST(CheckMpaTcp, PackedFpdusAreWholeInTheirSegment) {
  // Behind 300 octets of others in a 1448-octet segment: 1148 of 1200 there.
  const SplitFpdu split{1200, 300, 1448};
  auto v = segment_alignment(split, kLinux);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kSegmentAlignment);
  EXPECT_EQ(v->octet, 300u);
  EXPECT_EQ(v->seen, 1148u);
  EXPECT_EQ(v->expected, 1200u);
  EXPECT_FALSE(no_splitting_small(split, kLinux));
  // Packed whole: the permission of §5.1.
  EXPECT_FALSE(segment_alignment(SplitFpdu{1148, 300, 1448}, kLinux));
  // Too long to be sure it fitted.
  EXPECT_FALSE(segment_alignment(SplitFpdu{1449, 300, 1448}, kLinux));
}

TEST(CheckMpaTcp, RetransmittedOctetsAreTheFirstOnes) {
  EXPECT_FALSE(retransmit_same(0x41, 0x41));
  auto v = retransmit_same(0x41, 0x42);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kRetransmitSame);
  EXPECT_EQ(v->seen, 0x42u);
  EXPECT_EQ(v->expected, 0x41u);
}

TEST(CheckMpaTcp, TheTableNamesEveryRule) {
  EXPECT_EQ(mpa_tcp_implementations().size(), mpa_tcp_rules().size());
  EXPECT_EQ(kRetransmitSame.id, "rfc5044-5.1-retransmit-same");
  EXPECT_EQ(kFpduFitsSegment.section, "RFC 5044 §4.5");
}

}  // namespace
}  // namespace rdmaconf::check
