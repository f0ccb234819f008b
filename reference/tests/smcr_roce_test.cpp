// RoCEv2 packet decoding: known answers from the real SMC-Rv2 capture
// (Linux rxe, smc-r-v2.pcap; each vector is a frame's UDP payload, read by
// hand against IBTA vol. 1 §9.2/§9.3) and a typed error for every way the
// headers can fail to fit.
#include "smcr/roce.hpp"

#include <gtest/gtest.h>

#include "clc_test_util.hpp"

namespace rdmaconf::smcr {
namespace {

using clc::test::hex;
using BF = BthSpec::Field;

// Frame 10: RC Send Only carrying the CONFIRM LINK v2 request.
std::vector<std::uint8_t> send_only() {
  return hex(R"(
  04 80 ff ff        # OpCode 0x04 RC Send Only; SE 1, M 0, PadCnt 0, TVer 0; P_Key 0xffff
  00 00 00 11        # FECN/BECN/Resv6 0; DestQP 0x000011
  80 96 2a d8        # A 1; PSN 0x962ad8 = 9841368
  21 2c 00 03 52 54 00 77 00 0a 00 00 00 00 00 00 00 00 00 00 ff ff 0a 4d 00 01 00 00 11 01 00 00 01 01 02
  00 00 00 00 00 00 00 00 00   # the 44-octet LLC message
  ce 71 ba 00        # ICRC
)");
}

TEST(RoceTest, SendOnlyFromTheCapture) {
  auto v = send_only();
  auto p = decode_roce(v);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->opcode(), opcode::kSendOnly);
  ASSERT_NE(p->info, nullptr);
  EXPECT_EQ(p->info->name, "RC Send Only");
  EXPECT_EQ(p->bth.get(BF::Se), 1u);
  EXPECT_EQ(p->bth.get(BF::PKey), 0xffffu);
  EXPECT_EQ(p->dest_qp(), 0x11u);
  EXPECT_EQ(p->bth.get(BF::AckReq), 1u);
  EXPECT_EQ(p->psn(), 9841368u);
  EXPECT_FALSE(p->reth);
  EXPECT_FALSE(p->aeth);
  ASSERT_EQ(p->payload.size(), 44u);
  EXPECT_EQ(p->payload[0], 0x21);
  EXPECT_EQ(p->icrc, 0xce71ba00u);
}

// Frame 18: RC RDMA Write First with its RETH (the client writing 4 KiB of
// echo data into the server's RMB) and the first octets of the data.
TEST(RoceTest, RdmaWriteFirstCarriesReth) {
  auto v = hex(R"(
  06 00 ff ff  00 00 00 11  00 d9 4a ee   # Write First, QP 0x11, A 0, PSN 14240494
  ff 39 bb 55 c6 03 00 00                 # RETH VA
  00 00 03 12                             # R_Key 0x312
  00 00 10 00                             # DMA Length 4096
  41 42 43 44                             # data "ABCD"
  d2 3e 45 b9                             # ICRC
)");
  auto p = decode_roce(v);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->opcode(), opcode::kRdmaWriteFirst);
  EXPECT_TRUE(p->info->rdma_write);
  ASSERT_TRUE(p->reth);
  EXPECT_EQ(p->reth->get(RethSpec::Field::VirtualAddress), 0xff39bb55c6030000ull);
  EXPECT_EQ(p->reth->get(RethSpec::Field::RKey), 0x312u);
  EXPECT_EQ(p->reth->get(RethSpec::Field::DmaLength), 4096u);
  EXPECT_EQ(p->psn(), 14240494u);
  EXPECT_EQ(p->payload.size(), 4u);
}

// Frame 11: RC Acknowledge with its AETH and no payload.
TEST(RoceTest, AcknowledgeCarriesAeth) {
  auto v = hex("11 00 ff ff 00 00 00 11 00 96 2a d8  1f 00 00 01  77 9a a5 c6");
  auto p = decode_roce(v);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->info->name, "RC Acknowledge");
  ASSERT_TRUE(p->aeth);
  EXPECT_EQ(p->aeth->get(AethSpec::Field::Syndrome), 0x1fu);
  EXPECT_EQ(p->aeth->get(AethSpec::Field::Msn), 1u);
  EXPECT_TRUE(p->payload.empty());
}

TEST(RoceTest, PadCountIsNotPayload) {
  // Send Only with PadCnt 2: 4 octets after the BTH, the last 2 are pad.
  auto v = hex("04 a0 ff ff 00 00 00 11 80 00 00 01  aa bb 00 00  01 02 03 04");
  auto p = decode_roce(v);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  ASSERT_EQ(p->payload.size(), 2u);
  EXPECT_EQ(p->payload[1], 0xbb);
}

TEST(RoceTest, ErrorsNameTheField) {
  // Shorter than a BTH.
  auto e1 = decode_roce(hex("04 80 ff ff 00 00 00 11"));
  ASSERT_FALSE(e1.ok());
  EXPECT_EQ(e1.error().field, BthSpec::decl.name);
  // A BTH and no ICRC.
  auto e2 = decode_roce(hex("04 80 ff ff 00 00 00 11 80 00 00 01 00 00"));
  ASSERT_FALSE(e2.ok());
  EXPECT_EQ(e2.error().field, "ICRC");
  // Write First whose RETH does not fit before the ICRC.
  auto e3 = decode_roce(hex("06 00 ff ff 00 00 00 11 00 00 00 01  ff 39 bb 55  d2 3e 45 b9"));
  ASSERT_FALSE(e3.ok());
  EXPECT_EQ(e3.error().field, RethSpec::decl.name);
  // PadCnt 3 with one payload octet.
  auto e4 = decode_roce(hex("04 b0 ff ff 00 00 00 11 80 00 00 01  aa  01 02 03 04"));
  ASSERT_FALSE(e4.ok());
  EXPECT_EQ(e4.error().field, "PadCnt");
  // Compare Swap whose AtomicETH does not fit.
  auto e5 = decode_roce(hex("13 00 ff ff 00 00 00 11 80 00 00 01  00 00 00 00  01 02 03 04"));
  ASSERT_FALSE(e5.ok());
  EXPECT_EQ(e5.error().field, "OpCode");
}

TEST(RoceTest, UnknownTransportDecodesItsBthOnly) {
  // UD Send Only (0x64): no RC row; the rest is payload as far as we know.
  auto p = decode_roce(hex("64 00 ff ff 00 00 00 01 00 00 00 01  aa bb cc dd  01 02 03 04"));
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->info, nullptr);
  EXPECT_EQ(opcode_name(0x64), "opcode 0x64");
  EXPECT_EQ(p->payload.size(), 4u);
}

}  // namespace
}  // namespace rdmaconf::smcr
