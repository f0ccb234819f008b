// The MPA header declarations (RFC 5044 §4.1, §4.3, §4.4, §7.1.1; RFC 6581):
// every field at its RFC position, round trips through Header<Spec>, value
// names, and the pad/marker arithmetic the framer and deframer share.
#include "mpa/headers.hpp"
#include "mpa/marker_layout.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "mpa/errors.hpp"

namespace rdmaconf::mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;
Bytes to_vec(wire::Bytes b) { return Bytes(b.begin(), b.end()); }

TEST(MpaHeaders, DeclarationsTileTheirHeaders) {
  static_assert(wire::tiles_exactly(ReqRepSpec::decl));
  static_assert(wire::tiles_exactly(EnhancedDataSpec::decl));
  static_assert(wire::tiles_exactly(FpduHeaderSpec::decl));
  static_assert(wire::tiles_exactly(MarkerSpec::decl));
  static_assert(wire::tiles_exactly(CrcTrailerSpec::decl));
  EXPECT_EQ(ReqRepHeader::kSize, 20u);
  EXPECT_EQ(MarkerHeader::kSize, 4u);
}

// RFC 5044 §7.1.1: octet 16 is M C R Res (RFC 6581 takes the top Res bit as
// S, 0x10 of octet 16 as Linux siw's MPA_RR_FLAG_ENHANCED), octet 17 Rev,
// octets 18-19 PD_Length.
TEST(MpaHeaders, ReqRepFlagsSitWhereTheRfcPutsThem) {
  using F = ReqRepSpec::Field;
  const std::pair<F, std::uint8_t> flags[] = {{F::M, 0x80}, {F::C, 0x40}, {F::R, 0x20}, {F::S, 0x10}};
  for (auto [field, bit] : flags) {
    ReqRepHeader h;
    h.set(field, 1);
    EXPECT_EQ(h.bytes()[16], bit) << ReqRepHeader::field_decl(field).name;
  }
  ReqRepHeader h;
  h.set(F::Res, 0xf).set(F::Rev, 2).set(F::PD_Length, 0x0123);
  EXPECT_EQ(h.bytes()[16], 0x0f);
  EXPECT_EQ(h.bytes()[17], 2);
  EXPECT_EQ(h.bytes()[18], 0x01);
  EXPECT_EQ(h.bytes()[19], 0x23);
}

TEST(MpaHeaders, ReqRepRoundTrip) {
  using F = ReqRepSpec::Field;
  ReqRepHeader h;
  h.set_octets(F::Key, kReplyKey);
  h.set(F::M, 1).set(F::C, 1).set(F::R, 1).set(F::S, 1).set(F::Res, 0x5).set(F::Rev, 2);
  h.set(F::PD_Length, 512);
  const Bytes expect = {0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x70,  // "MPA ID Rep"
                        0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,                          // " Frame"
                        0xf5,        // M C R S, Res=5
                        0x02,        // Rev 2
                        0x02, 0x00};  // PD_Length 512
  EXPECT_EQ(to_vec(h.bytes()), expect);
  wire::ByteReader r(expect);
  auto back = ReqRepHeader::decode(r);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, h);
  EXPECT_EQ(back->get(F::Res), 5u);
}

// RFC 6581: A B IRD(14) C D ORD(14); Linux siw: 0x8000 peer-to-peer and
// 0x4000 zero-length (Send) RTR in the IRD word, 0x8000 Write RTR and 0x4000
// Read RTR in the ORD word.
TEST(MpaHeaders, EnhancedDataRoundTrip) {
  using E = EnhancedDataSpec::Field;
  EnhancedDataHeader h;
  h.set(E::A, 1).set(E::B, 1).set(E::IRD, 0x3fff).set(E::C, 0).set(E::D, 1).set(E::ORD, 0x10);
  EXPECT_EQ(to_vec(h.bytes()), (Bytes{0xff, 0xff, 0x40, 0x10}));
  wire::ByteReader r(h.bytes());
  auto back = EnhancedDataHeader::decode(r);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->get(E::IRD), 0x3fffu);
  EXPECT_EQ(back->get(E::ORD), 0x10u);
  EXPECT_TRUE(back->flag(E::D));
  EXPECT_FALSE(back->flag(E::C));
}

TEST(MpaHeaders, FpduMarkerAndCrcRoundTrip) {
  FpduHeader f;
  f.set(FpduHeaderSpec::Field::ULPDU_Length, 0xabcd);
  EXPECT_EQ(to_vec(f.bytes()), (Bytes{0xab, 0xcd}));

  MarkerHeader m;
  m.set(MarkerSpec::Field::FPDUPTR, 0x01fc);
  EXPECT_EQ(to_vec(m.bytes()), (Bytes{0x00, 0x00, 0x01, 0xfc}));
  wire::ByteReader r(m.bytes());
  auto back = MarkerHeader::decode(r);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->get(MarkerSpec::Field::FPDUPTR), 0x1fcu);

  // RFC 5044 §4.4 / RFC 3720 B.4: the CRC is carried least significant
  // octet first; the network-order reading is the swapped value.
  const Bytes wire_crc = {0xaa, 0x36, 0x91, 0x8a};
  CrcTrailer t{std::span<const std::uint8_t, 4>(wire_crc.data(), 4)};
  EXPECT_EQ(crc_value(t), 0x8a9136aau);
  EXPECT_EQ(t.get(CrcTrailerSpec::Field::CRC), 0xaa36918au);
}

TEST(MpaHeaders, DescribeNamesFieldsAndValues) {
  using F = ReqRepSpec::Field;
  ReqRepHeader h;
  h.set_octets(F::Key, kRequestKey);
  h.set(F::C, 1).set(F::Rev, 1).set(F::PD_Length, 3);
  const std::string text = wire::describe(ReqRepHeader::decl, h.bytes());
  EXPECT_NE(text.find("Key: \"MPA ID Req Frame\""), std::string::npos) << text;
  EXPECT_NE(text.find("C: 1 (CRC requested)"), std::string::npos) << text;
  EXPECT_NE(text.find("Rev: 1 (MPA revision 1 (RFC 5044))"), std::string::npos) << text;
  EXPECT_NE(text.find("RFC 5044 §7.1.1"), std::string::npos) << text;
}

TEST(MpaHeaders, LlpErrorCodeNames) {
  EXPECT_EQ(name(LlpErrorCode::kCrcError), "MPA CRC error");
  EXPECT_EQ(name(LlpErrorCode::kNoMatchingRtr), "no matching RTR option");
  EXPECT_EQ(static_cast<int>(LlpErrorCode::kInsufficientIrd), 0x06);
  EXPECT_EQ(defined_in(LlpErrorCode::kInvalidRequestOrReply), "RFC 5044 §8");
  EXPECT_EQ(defined_in(LlpErrorCode::kLocalCatastrophic), "RFC 6581 §9");
  EXPECT_EQ(name(static_cast<LlpErrorCode>(0x42)), "unknown LLP error code");
}

// RFC 5044 §4.1: PAD makes ULPDU_Length + ULPDU + PAD a multiple of 4.
TEST(MpaHeaders, PadLength) {
  EXPECT_EQ(pad_length(2), 0u);  // 2 + 2 = 4
  EXPECT_EQ(pad_length(3), 3u);
  EXPECT_EQ(pad_length(4), 2u);
  EXPECT_EQ(pad_length(5), 1u);
  for (std::size_t n = 0; n < 64; ++n) EXPECT_EQ((2 + n + pad_length(n)) % 4, 0u);
}

// RFC 5044 §4.3: Markers at every multiple of 512; one due exactly after the
// last octet belongs to the next FPDU.
TEST(MpaHeaders, MarkerLayoutCountsMarkersByBruteForce) {
  for (std::uint64_t pos = 0; pos < 1100; pos += 4) {
    for (std::size_t logical : {8u, 12u, 500u, 508u, 509u, 1016u, 1017u, 4100u}) {
      // Walk the stream octet by octet: a Marker occupies each multiple of 512.
      std::size_t placed = 0, markers = 0;
      std::uint64_t p = pos;
      while (placed < logical) {
        if (p % 512 == 0) {
          ++markers;
          p += 4;
          continue;
        }
        ++placed;
        ++p;
      }
      EXPECT_EQ(MarkerLayout(pos, true).markers_before(logical), markers) << pos << " " << logical;
    }
  }
}

}  // namespace
}  // namespace rdmaconf::mpa
