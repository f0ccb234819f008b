// The Terminate body (RFC 5040 §4.8): known-answer bytes, round trips, the
// copy rules per error, and every consistency rule of the decoder.
#include "rdmap/terminate.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "rdmap/error_codes.hpp"

namespace rdmaconf::rdmap {
namespace {

std::vector<std::uint8_t> encoded(const TerminateMessage& t) {
  std::vector<std::uint8_t> v;
  wire::ByteWriter w(v);
  encode(t, w);
  return v;
}

// An RDMA Write segment (tagged) that hit a bounds violation: the Terminate
// copies its length and its 14-octet DDP header.
TEST(RdmapTerminate, TaggedDdpErrorKnownAnswer) {
  const std::vector<std::uint8_t> write_hdr = {0xc1, 0x40, 0x00, 0x00, 0x01, 0x05, 0x00,
                                               0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00};
  OffendingSegment off{write_hdr, {}, 14 + 100};
  TerminateMessage t = make_terminate(ddp::code_of(ddp::TaggedError::kBaseOrBoundsViolation), &off);
  const std::vector<std::uint8_t> expect = {
      0x11,                    // Layer=1 (DDP), EType=1 (Tagged Buffer Error)
      0x01,                    // Error Code 0x01: Base or bounds violation
      0xc0, 0x00,              // M=1 D=1 R=0, Reserved=0
      0x00, 0x72,              // DDP Segment Length 114
      0xc1, 0x40, 0x00, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x20, 0x00,
  };
  EXPECT_EQ(encoded(t), expect);
  auto back = decode_terminate(expect);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, t);
  EXPECT_EQ(back->ddp_header_size, 14u);
}

// An RDMA Read Request whose source STag was invalid: M, D and R; the
// untagged header (18) and the Read Request header (28) are copied.
TEST(RdmapTerminate, ReadRequestProtectionErrorCopiesTheRequest) {
  std::vector<std::uint8_t> rr_ddp = {0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0};
  std::vector<std::uint8_t> rr_hdr(28);
  for (std::size_t i = 0; i < rr_hdr.size(); ++i) rr_hdr[i] = static_cast<std::uint8_t>(0xa0 + i);
  OffendingSegment off{rr_ddp, rr_hdr, 18 + 28};
  TerminateMessage t = make_terminate(protection(ErrorCode::kInvalidStag), &off);
  EXPECT_TRUE(t.m && t.d && t.r);
  auto bytes = encoded(t);
  ASSERT_EQ(bytes.size(), 4u + 2 + 18 + 28);
  EXPECT_EQ(bytes[0], 0x01);  // Layer 0 RDMAP, EType 1 Remote Protection
  EXPECT_EQ(bytes[1], 0x00);  // Invalid STag
  EXPECT_EQ(bytes[2], 0xe0);  // M D R
  EXPECT_EQ(bytes[5], 46);    // segment length
  EXPECT_EQ(std::vector<std::uint8_t>(bytes.begin() + 24, bytes.end()), rr_hdr);
  auto back = decode_terminate(bytes);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, t);
}

// Found by the rdmap_terminate fuzz target (fuzz/regressions/rdmap_terminate):
// a tagged segment whose RDMAP opcode says RDMA Read Request (opcode 1 on a
// T=1 header, itself an opcode error) has no request header to copy. The
// Terminate copies the DDP header only, with R clear, and decodes back.
TEST(RdmapTerminate, TaggedHeaderWithARequestOpcodeCopiesNoRdmaHeader) {
  const std::vector<std::uint8_t> hdr = {0xc1, 0x41, 0x00, 0x00, 0x01, 0x00, 0x00,
                                         0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};  // T=1 L=1, opcode 1
  const std::vector<std::uint8_t> read_request(kReadRequestHeaderSize, 0x83);
  OffendingSegment off{hdr, read_request, 14 + 28};
  TerminateMessage t = make_terminate(protection(ErrorCode::kAccessRightsViolation), &off);
  EXPECT_TRUE(t.m && t.d);
  EXPECT_FALSE(t.r);
  EXPECT_EQ(t.rdma_header_size, 0u);
  auto back = decode_terminate(encoded(t));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, t);
}

TEST(RdmapTerminate, CatastrophicAndLlpErrorsCopyNothing) {
  std::vector<std::uint8_t> hdr(18, 0);
  hdr[0] = 0x41;
  OffendingSegment off{hdr, {}, 18};
  for (TerminateCode c : {kRdmapLocalCatastrophic, ddp::kDdpLocalCatastrophic,
                          code_of(LlpErrorCode::kCrcError)}) {
    TerminateMessage t = make_terminate(c, &off);
    EXPECT_FALSE(t.m || t.d || t.r);
    EXPECT_EQ(encoded(t).size(), 4u);
  }
  // LLP, MPA CRC error: 0x20 0x02 0x00 0x00.
  EXPECT_EQ(encoded(make_terminate(code_of(LlpErrorCode::kCrcError), nullptr)),
            (std::vector<std::uint8_t>{0x20, 0x02, 0x00, 0x00}));
}

TEST(RdmapTerminate, DecoderRejectsInconsistentBodies) {
  // Reserved bits set.
  auto r1 = decode_terminate(std::vector<std::uint8_t>{0x11, 0x00, 0x00, 0x01});
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.error().field, "Reserved");
  // R without D.
  auto r2 = decode_terminate(std::vector<std::uint8_t>{0x01, 0x00, 0x20, 0x00});
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.error().field, "R");
  // D set, copied header says T=0 (18 octets) but only 14 follow.
  std::vector<std::uint8_t> short_untagged = {0x12, 0x01, 0xc0, 0x00, 0x00, 0x20, 0x41, 0x43};
  short_untagged.resize(4 + 2 + 14, 0);
  auto r3 = decode_terminate(short_untagged);
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.error().field, "Terminated DDP Header");
  EXPECT_EQ(r3.error().rfc_section, "RFC 5040 §4.8");
  // The same 14 octets with T=1 are a complete tagged copy.
  short_untagged[6] = 0xc1;
  EXPECT_TRUE(decode_terminate(short_untagged).ok());
  // R for a copied Send header: no RDMAP header to copy.
  std::vector<std::uint8_t> r_send = {0x01, 0x00, 0xe0, 0x00, 0x00, 0x12, 0x41, 0x43};
  r_send.resize(4 + 2 + 18 + 28, 0);
  auto r4 = decode_terminate(r_send);
  ASSERT_FALSE(r4.ok());
  EXPECT_EQ(r4.error().field, "Terminated RDMA Header");
  // Octets beyond what the bits announce.
  auto r5 = decode_terminate(std::vector<std::uint8_t>{0x00, 0x00, 0x00, 0x00, 0xff});
  ASSERT_FALSE(r5.ok());
  EXPECT_EQ(r5.error().offset, 4u);
  // Too short for the Terminate Control.
  EXPECT_FALSE(decode_terminate(std::vector<std::uint8_t>{0x00, 0x00}).ok());
}

TEST(RdmapTerminate, DecodeNeverReadsPastTheBodyAtAnyLength) {
  std::vector<std::uint8_t> rr_ddp = {0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0};
  std::vector<std::uint8_t> rr_hdr(28, 0x5a);
  OffendingSegment off{rr_ddp, rr_hdr, 46};
  const auto full = encoded(make_terminate(protection(ErrorCode::kToWrap), &off));
  for (std::size_t n = 0; n < full.size(); ++n) {
    std::vector<std::uint8_t> part(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(decode_terminate(part).ok()) << n;
  }
  EXPECT_TRUE(decode_terminate(full).ok());
}

}  // namespace
}  // namespace rdmaconf::rdmap
