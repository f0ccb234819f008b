// The LLC and CDC encoders (smcr/encode.hpp): known answers against octets
// of the real SMC-Rv2 capture (smc-r-v2.pcap, frames named; the same octets
// smcr_messages_test.cpp reads), every type in both versions encoded,
// decoded by decode_llc/decode_cdc and read back into equal values, the
// computed counts and Length, and the overrides that build malformed
// messages. The whole capture's messages are re-encoded by
// pcap/tests/smcr_encode_capture_test.cpp.
#include "smcr/encode.hpp"

#include <gtest/gtest.h>

#include "test_hex.hpp"

namespace rdmaconf::smcr {
namespace {

using test::hex;

const LlcEncoding kV2{2, std::nullopt};

Gid gid_v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d) {
  return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d};
}

// Encodes, decodes with decode_llc and reads the fields back.
Llc round_trip(const Llc& m, LlcEncoding e = {}) {
  const auto octets = encode(m, e);
  auto d = decode_llc(octets);
  EXPECT_TRUE(d.ok()) << d.error().to_string();
  if (!d.ok()) return m;
  EXPECT_EQ(d->version, base_type(m) == llc_type::kReqAddLink ? 2 : e.version);
  EXPECT_EQ(d->length, octets.size());
  return fields_of(*d);
}

// Frame 10 of smc-r-v2.pcap: CONFIRM LINK v2 request.
TEST(SmcrEncodeTest, ConfirmLinkV2AsLinuxSentIt) {
  ConfirmLink c;
  c.mac = 0x52540077000a;
  c.gid = gid_v4(10, 77, 0, 1);
  c.qp_number = 0x11;
  c.link_number = 1;
  c.link_user_id = 0x101;
  c.max_links = 2;
  EXPECT_EQ(encode(c, kV2), hex(R"(
    21 2c 00 03  52 54 00 77 00 0a  00 00 00 00 00 00 00 00 00 00 ff ff 0a 4d 00 01
    00 00 11  01  00 00 01 01  02  00 00 00 00 00 00 00 00 00)"));
}

// Frame 14: ADD LINK v2 request, 88 octets with one RToken pair.
TEST(SmcrEncodeTest, AddLinkV2WithItsRTokens) {
  AddLink a;
  a.mac = 0x52540077000a;
  a.gid = gid_v4(10, 77, 0, 1);
  a.qp_number = 0x12;
  a.link_number = 2;
  a.mtu = 3;
  a.initial_psn = 0xd775d7;
  a.v2_extension = AddLink::V2Extension{true, gid_v4(10, 77, 0, 1), {{0x312, {0x5f9, 0xff39bb55c6030000}}}, {}};
  const auto octets = hex(R"(
    22 58 00 00  52 54 00 77 00 0a 00 00  00 00 00 00 00 00 00 00 00 00 ff ff 0a 4d 00 01
    00 00 12 02 03 d7 75 d7  00 00 00 00 00 00 00 00
    80 00  00 00 00 00 00 00 00 00 00 00 ff ff 0a 4d 00 01  00 00 00 00 00 00 00 00  01 00
    00 00 03 12  00 00 05 f9  ff 39 bb 55 c6 03 00 00)");
  EXPECT_EQ(encode(a, kV2), octets);
  auto d = decode_llc(octets);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(std::get<AddLink>(fields_of(*d)), a);
  EXPECT_FALSE(encoding_of(*d).length);
}

// Frame 147: DELETE RKEY v2 naming RKey 0x355, padded to 44 octets.
TEST(SmcrEncodeTest, DeleteRkeyV2PadsTo44) {
  DeleteRkey d;
  d.rkeys = {0x355};
  auto want = hex("29 2c 00 00  01 00 00 00  00 00 03 55");
  want.resize(44, 0);
  EXPECT_EQ(encode(d, kV2), want);
}

TEST(SmcrEncodeTest, EveryTypeRoundTripsInBothVersions) {
  ConfirmLink cl{true, kNoRmbeEyecatcher, 0x020000000001, gid_v4(192, 0, 2, 1), 0x123456, 3, 0xdeadbeef, 2};
  AddLink al;
  al.reply = true;
  al.mac = 0x020000000002;
  al.gid = gid_v4(192, 0, 2, 2);
  al.qp_number = 0x77;
  al.link_number = 2;
  al.mtu = 5;
  al.initial_psn = 0xabcdef;
  AddLink rejected;
  rejected.reply = rejected.reject = true;
  rejected.reason_code = 1;
  AddLinkContinuation alc{true, 2, {{0x10, {0x20, 0x1000}}, {0x11, {0x21, 0x2000}}}, {}};
  DeleteLink dl{false, false, true, 2, delete_reason::kLostPath};
  ConfirmRkey cr{false, false, false, {0xaa, 0x10000}, {{2, {0xbb, 0x20000}}, {3, {0xcc, 0x30000}}}, {}};
  ConfirmRkey neg{true, true, true, {0xaa, 0x10000}, {}, {}};
  ConfirmRkeyContinuation crc{false, false, 1, {{4, {0xdd, 0x40000}}}};
  DeleteRkey dr{true, true, 0x40, {0x1, 0x2, 0x3}, {}};
  TestLink tl{false, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}};
  RequestAddLink ral{false, {gid_v4(10, 0, 0, 1), gid_v4(10, 0, 0, 2)}, {}};
  for (std::uint8_t version : {1, 2}) {
    SCOPED_TRACE(version);
    const LlcEncoding e{version, std::nullopt};
    EXPECT_EQ(std::get<ConfirmLink>(round_trip(cl, e)), cl);
    EXPECT_EQ(std::get<AddLink>(round_trip(al, e)), al);
    AddLink r = rejected;
    if (version == 2) r.reason_code = 0;  // octet 2 is Length's high octet in v2: no reason travels
    EXPECT_EQ(std::get<AddLink>(round_trip(rejected, e)), r);
    EXPECT_EQ(std::get<DeleteLink>(round_trip(dl, e)), dl);
    EXPECT_EQ(std::get<ConfirmRkey>(round_trip(cr, e)), cr);
    EXPECT_EQ(std::get<ConfirmRkey>(round_trip(neg, e)), neg);
    EXPECT_EQ(std::get<DeleteRkey>(round_trip(dr, e)), dr);
    EXPECT_EQ(std::get<TestLink>(round_trip(tl, e)), tl);
    EXPECT_EQ(std::get<RequestAddLink>(round_trip(ral, e)), ral);
  }
  // The continuations have no v2 type: Linux sends them as version 1.
  EXPECT_EQ(encode(alc, kV2)[0], llc_type::kAddLinkCont);
  EXPECT_EQ(std::get<AddLinkContinuation>(round_trip(alc)), alc);
  EXPECT_EQ(std::get<ConfirmRkeyContinuation>(round_trip(crc)), crc);
}

TEST(SmcrEncodeTest, CountsAreComputedUnlessForced) {
  ConfirmRkey cr{false, false, false, {0xaa, 1}, {{2, {0xbb, 2}}}, {}};
  auto octets = encode(cr);
  EXPECT_EQ(octets[4], 1);  // NumTkns: the one other link
  cr.num_tkns = 5;          // a count the slots do not hold
  octets = encode(cr);
  EXPECT_EQ(octets[4], 5);
  auto d = decode_llc(octets);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(std::get<ConfirmRkey>(fields_of(*d)), cr);

  DeleteRkey dr;
  dr.rkeys = {7, 8};
  EXPECT_EQ(encode(dr)[4], 2);
  dr.count = 9;  // more than A.3.7 allows in one message
  auto bad = decode_llc(encode(dr));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "Count");

  AddLink a;
  a.v2_extension = AddLink::V2Extension{};
  a.v2_extension->rtokens.resize(3);
  octets = encode(a, kV2);
  EXPECT_EQ(octets.size(), 44u + 28u + 3u * 16u);
  a.v2_extension->num_rkeys = 4;  // one more than the message holds
  auto over = decode_llc(encode(a, kV2));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().field, "Num RKeys (low octet)");
}

TEST(SmcrEncodeTest, LengthOverrideBuildsAMalformedMessage) {
  TestLink t;
  auto v1 = encode(t, LlcEncoding{1, 40});
  EXPECT_EQ(v1.size(), 44u);  // the octets sent stay 44
  auto d = decode_llc(v1);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().field, "Length");
  auto v2 = encode(t, LlcEncoding{2, 300});
  EXPECT_EQ(v2[1], 0x2c);  // 300 little-endian: 2c 01
  EXPECT_EQ(v2[2], 0x01);
  EXPECT_FALSE(decode_llc(v2).ok());  // Length beyond the Send
  // A decoded message remembers a Length that is not the computed one.
  auto long_v2 = encode(t, kV2);
  long_v2.resize(60, 0);
  long_v2[1] = 60;
  auto m = decode_llc(long_v2);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(encoding_of(*m).length, 60);
}

TEST(SmcrEncodeTest, FlagsLandOnTheirBits) {
  // A.3.4: R A O are the three high bits of octet 3.
  EXPECT_EQ(encode(DeleteLink{true, true, true, 0, 0})[3], 0xe0);
  // A.3.5: R, reserved, Z, C.
  EXPECT_EQ(encode(ConfirmRkey{true, true, true, {}, {}, {}})[3], 0xb0);
  // A.3.2: R, Z; RsnCode in octet 2's low nibble.
  AddLink rej;
  rej.reply = rej.reject = true;
  rej.reason_code = 2;
  const auto a = encode(rej);
  EXPECT_EQ(a[2], 0x02);
  EXPECT_EQ(a[3], 0xc0);
  // Linux's CONFIRM LINK: R and the two no-eyecatcher bits.
  EXPECT_EQ(encode(ConfirmLink{true, kNoRmbeEyecatcher, 0, {}, 0, 0, 0, 0})[3], 0x83);
}

TEST(SmcrEncodeTest, CdcRoundTripsEveryField) {
  CdcFields c;
  c.sequence_number = 0xfffe;
  c.alert_token = 0x01020304;
  c.producer = {7, 0x1000};
  c.consumer = {6, 0xffc};
  c.writer_blocked = c.urgent_data_pending = c.urgent_data_present = c.consumer_update_requested = true;
  c.failover_validation = c.sending_done = c.peer_connection_closed = c.abnormal_close = true;
  const auto octets = encode(c);
  ASSERT_EQ(octets.size(), kCdcMessageSize);
  EXPECT_EQ(octets[24], 0xf8);  // B P U R F
  EXPECT_EQ(octets[25], 0xe0);  // D C A
  auto d = decode_cdc(octets);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(fields_of(*d), c);
  EXPECT_EQ(encode(CdcFields{}), hex("fe 2c" + std::string(84, '0')));
}

}  // namespace
}  // namespace rdmaconf::smcr
