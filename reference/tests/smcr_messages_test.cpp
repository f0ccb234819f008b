// LLC and CDC messages: known answers per message and version. The v2 LLC
// messages and the CDC messages are octets of the real SMC-Rv2 capture
// (smc-r-v2.pcap, frame numbers given), read by hand against Linux
// net/smc/smc_llc.c and RFC 7609 App. A.4; the v1 LLC messages are built by
// hand from the figures of RFC 7609 App. A.3.1-A.3.8. Every way a message can
// fail to decode has a typed error naming its field.
#include "smcr/messages.hpp"

#include <gtest/gtest.h>

#include "clc_test_util.hpp"

namespace rdmaconf::smcr {
namespace {

using clc::test::hex;

template <typename Spec>
std::uint64_t body(const LlcMessage& m, typename Spec::Field f) {
  return m.get(Spec::fields[static_cast<std::size_t>(f)]);
}

// The message holds views into `v`, which the caller keeps.
LlcMessage llc(const std::vector<std::uint8_t>& v) {
  auto m = decode_llc(v);
  EXPECT_TRUE(m.ok()) << m.error().to_string();
  return m.ok() ? *m : LlcMessage{};
}

// ------------------------------------------------------- v2, the capture

// Frame 10 (server -> client): CONFIRM LINK v2 request.
const char* kConfirmLinkV2 = R"(
  21 2c 00 03                 # type 0x21; length 44 little-endian; flags: R 0, no RMBE eyecatcher 0b11
  52 54 00 77 00 0a           # sender MAC (VM a)
  00 00 00 00 00 00 00 00 00 00 ff ff 0a 4d 00 01  # GID ::ffff:10.77.0.1
  00 00 11  01                # QP 0x000011, link number 1
  00 00 01 01  02             # link user ID 0x00000101, max links 2
  00 00 00 00 00 00 00 00 00  # reserved
)";

TEST(LlcTest, ConfirmLinkV2Request) {
  const auto m_octets = hex(kConfirmLinkV2);
  LlcMessage m = llc(m_octets);
  ASSERT_NE(m.info, nullptr);
  EXPECT_EQ(m.type(), 0x21);
  EXPECT_EQ(m.version, 2);
  EXPECT_EQ(m.base_type(), llc_type::kConfirmLink);
  EXPECT_EQ(m.length, 44);
  EXPECT_FALSE(m.reply());
  EXPECT_EQ(m.flag(kConfirmLinkFlags[2]), 3u);
  using F = ConfirmLinkSpec::Field;
  EXPECT_EQ(body<ConfirmLinkSpec>(m, F::Mac), 0x52540077000aull);
  EXPECT_EQ(body<ConfirmLinkSpec>(m, F::QpNumber), 0x11u);
  EXPECT_EQ(body<ConfirmLinkSpec>(m, F::LinkNumber), 1u);
  EXPECT_EQ(body<ConfirmLinkSpec>(m, F::LinkUserId), 0x101u);
  EXPECT_EQ(body<ConfirmLinkSpec>(m, F::MaxLinks), 2u);
  EXPECT_EQ(message_name(SmcrMessage(m)), "CONFIRM LINK v2 request");
}

TEST(LlcTest, ConfirmLinkV2Reply) {
  // Frame 12 (client): flags 0x83, MAC 52:54:00:77:00:0b, GID ::ffff:10.77.0.2.
  auto v = hex(kConfirmLinkV2);
  v[3] = 0x83;
  v[9] = 0x0b;
  v[25] = 0x02;
  LlcMessage m = llc(v);
  EXPECT_TRUE(m.reply());
  EXPECT_EQ(message_name(SmcrMessage(m)), "CONFIRM LINK v2 reply");
}

// Frame 14 (server): ADD LINK v2 request, 88 octets with one RToken pair.
const char* kAddLinkV2 = R"(
  22 58 00 00                 # type 0x22; length 88 little-endian; flags 0
  52 54 00 77 00 0a  00 00    # sender MAC, reserved
  00 00 00 00 00 00 00 00 00 00 ff ff 0a 4d 00 01  # GID ::ffff:10.77.0.1
  00 00 12  02  03            # QP 0x000012, link number 2, MTU 3 (1024)
  d7 75 d7                    # initial PSN
  00 00 00 00 00 00 00 00     # reserved
  80 00                       # v2 extension: V2 Direct, reserved
  00 00 00 00 00 00 00 00 00 00 ff ff 0a 4d 00 01  # client target GID
  00 00 00 00 00 00 00 00     # reserved
  01 00                       # one RToken pair (little-endian)
  00 00 03 12  00 00 05 f9  ff 39 bb 55 c6 03 00 00  # reference RKey, new RKey, new VA
)";

TEST(LlcTest, AddLinkV2RequestWithItsExtension) {
  const auto m_octets = hex(kAddLinkV2);
  LlcMessage m = llc(m_octets);
  EXPECT_EQ(m.length, 88);
  using F = AddLinkSpec::Field;
  EXPECT_EQ(body<AddLinkSpec>(m, F::QpNumber), 0x12u);
  EXPECT_EQ(body<AddLinkSpec>(m, F::LinkNumber), 2u);
  EXPECT_EQ(body<AddLinkSpec>(m, F::Mtu), 3u);
  EXPECT_EQ(body<AddLinkSpec>(m, F::InitialPsn), 0xd775d7u);
  ASSERT_TRUE(m.add_link_ext);
  EXPECT_EQ(m.add_link_ext->get(AddLinkV2ExtSpec::Field::V2Direct), 1u);
  ASSERT_EQ(m.entry_count, 1u);
  ASSERT_EQ(m.entry_octets.size(), 16u);
  EXPECT_EQ(wire::read_field(m.entry_octets, RkeyPairSpec::fields[1]), 0x5f9u);
  EXPECT_EQ(wire::read_field(m.entry_octets, RkeyPairSpec::fields[2]), 0xff39bb55c6030000ull);
}

TEST(LlcTest, AddLinkV2RejectReply) {
  // Frame 16 (client): the request's first 44 octets echoed, flags R + Z.
  auto v = hex(kAddLinkV2);
  v.resize(44);
  v[1] = 0x2c;
  v[3] = 0xc0;
  LlcMessage m = llc(v);
  EXPECT_TRUE(m.reply());
  EXPECT_EQ(m.flag(kAddLinkFlags[1]), 1u);
  EXPECT_FALSE(m.add_link_ext);
  EXPECT_EQ(m.entry_count, 0u);
}

TEST(LlcTest, ConfirmRkeyV2) {
  // Frame 162 (server) and its reply, frame 166.
  auto v = hex(R"(
  26 2c 00 00  00  00 00 03 12  ff 39 bb 55 c6 03 00 00  # NumTkns 0, RKey 0x312, VA
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00)");
  LlcMessage m = llc(v);
  EXPECT_EQ(body<ConfirmRkeySpec>(m, ConfirmRkeySpec::Field::RKey), 0x312u);
  EXPECT_EQ(body<ConfirmRkeySpec>(m, ConfirmRkeySpec::Field::VirtualAddress), 0xff39bb55c6030000ull);
  v[3] = 0x80;
  EXPECT_TRUE(llc(v).reply());
}

TEST(LlcTest, DeleteRkeyV2) {
  // Frame 147 (client): one RKey, 0x355, in a 44-octet message; frame 151 its reply.
  auto v = hex("29 2c 00 00  01 00 00 00  00 00 03 55");  // count 1, 0 invalid, RKey 0x355
  v.resize(44, 0);
  LlcMessage m = llc(v);
  EXPECT_EQ(m.version, 2);
  EXPECT_EQ(m.entry_count, 1u);
  EXPECT_EQ(wire::read_field(m.entry_octets, RkeySpec::fields[0]), 0x355u);
  auto r = hex("29 2c 00 80  01 00 00 00");
  r.resize(44, 0);
  LlcMessage reply = llc(r);
  EXPECT_TRUE(reply.reply());
  EXPECT_EQ(reply.entry_count, 1u);
}

TEST(LlcTest, TestLinkV2) {
  // Frames 316/318: an all-zero user data request and its reply.
  auto v = hex("27 2c 00 00");
  v.resize(44, 0);
  EXPECT_EQ(message_name(SmcrMessage(llc(v))), "TEST LINK v2 request");
  v[3] = 0x80;
  EXPECT_EQ(message_name(SmcrMessage(llc(v))), "TEST LINK v2 reply");
}

TEST(LlcTest, ReqAddLinkV2WithGids) {
  auto v = hex("25 2c 00 00");
  v.resize(24, 0);
  v.push_back(1);  // GID count
  v.resize(28, 0);
  auto gid = hex("00 00 00 00 00 00 00 00 00 00 ff ff 0a 4d 00 02");
  v.insert(v.end(), gid.begin(), gid.end());
  LlcMessage m = llc(v);
  EXPECT_EQ(m.entry_count, 1u);
  EXPECT_EQ(m.entry_octets[15], 0x02);
}

// ------------------------------------------------------- v1, the RFC figures

std::vector<std::uint8_t> v1(std::uint8_t type, std::uint8_t flags, std::string_view body_hex) {
  std::vector<std::uint8_t> v = {type, 44, 0, flags};
  auto b = hex(body_hex);
  v.insert(v.end(), b.begin(), b.end());
  v.resize(44, 0);
  return v;
}

TEST(LlcTest, EveryVersion1Type) {
  // A.3.1 CONFIRM LINK reply.
  const auto cl_octets = v1(0x01, 0x80, "02 00 00 00 00 01  fe 80 00 00 00 00 00 00 00 00 00 00 00 00 00 01  00 00 07  01");
  LlcMessage cl = llc(cl_octets);
  EXPECT_EQ(cl.version, 1);
  EXPECT_EQ(body<ConfirmLinkSpec>(cl, ConfirmLinkSpec::Field::QpNumber), 7u);
  // A.3.2 ADD LINK reply rejected, RsnCode 1 (no alternate path) in octet 2.
  auto al = v1(0x02, 0xc0, "");
  al[2] = 0x01;
  LlcMessage addl = llc(al);
  EXPECT_EQ(addl.flag(kAddLinkFlags[1]), 1u);
  EXPECT_EQ(wire::read_field(addl.octets, LlcHeaderV1Spec::fields[3]), 1u);
  // A.3.3 ADD LINK CONTINUATION: link 2, 1 RToken pair.
  const auto alc_octets = v1(0x03, 0x00, "02 01 00 00  00 00 00 10  00 00 00 20  00 00 00 00 00 00 10 00");
  LlcMessage alc = llc(alc_octets);
  EXPECT_EQ(body<AddLinkContSpec>(alc, AddLinkContSpec::Field::NumRTokens), 1u);
  EXPECT_EQ(body<AddLinkContSpec>(alc, AddLinkContSpec::Field::NewRKey1), 0x20u);
  EXPECT_EQ(body<AddLinkContSpec>(alc, AddLinkContSpec::Field::NewVa1), 0x1000u);
  // A.3.4 DELETE LINK, A and O set, reason lost path.
  const auto dl_octets = v1(0x04, 0x60, "00  00 01 00 00");
  LlcMessage dl = llc(dl_octets);
  EXPECT_EQ(dl.flag(kDeleteLinkFlags[1]), 1u);
  EXPECT_EQ(dl.flag(kDeleteLinkFlags[2]), 1u);
  EXPECT_EQ(body<DeleteLinkSpec>(dl, DeleteLinkSpec::Field::ReasonCode), 0x00010000u);
  // A.3.5 CONFIRM RKEY negative reply with C: one other link.
  const auto cr_octets = v1(0x06, 0xb0, "01  00 00 00 aa  00 00 00 00 00 01 00 00  02  00 00 00 bb  00 00 00 00 00 02 00 00");
  LlcMessage cr = llc(cr_octets);
  EXPECT_EQ(cr.flag(kConfirmRkeyFlags[2]), 1u);
  EXPECT_EQ(cr.flag(kConfirmRkeyFlags[3]), 1u);
  EXPECT_EQ(body<ConfirmRkeySpec>(cr, ConfirmRkeySpec::Field::Link1), 2u);
  EXPECT_EQ(body<ConfirmRkeySpec>(cr, ConfirmRkeySpec::Field::RKey1), 0xbbu);
  EXPECT_EQ(body<ConfirmRkeySpec>(cr, ConfirmRkeySpec::Field::Va1), 0x20000u);
  // A.3.6 CONFIRM RKEY CONTINUATION.
  const auto crc_octets = v1(0x08, 0x00, "01  03  00 00 00 cc  00 00 00 00 00 03 00 00");
  LlcMessage crc = llc(crc_octets);
  EXPECT_EQ(body<ConfirmRkeyContSpec>(crc, ConfirmRkeyContSpec::Field::Link1), 3u);
  EXPECT_EQ(body<ConfirmRkeyContSpec>(crc, ConfirmRkeyContSpec::Field::RKey1), 0xccu);
  // A.3.7 DELETE RKEY negative reply: 2 RKeys, the second not deleted.
  const auto dr_octets = v1(0x09, 0xa0, "02 40 00 00  00 00 00 11  00 00 00 22");
  LlcMessage dr = llc(dr_octets);
  EXPECT_EQ(body<DeleteRkeySpec>(dr, DeleteRkeySpec::Field::ErrorMask), 0x40u);
  EXPECT_EQ(body<DeleteRkeySpec>(dr, DeleteRkeySpec::Field::RKey2), 0x22u);
  EXPECT_EQ(dr.flag(kRkeyReplyFlags[2]), 1u);
  // A.3.8 TEST LINK with user data.
  const auto tl_octets = v1(0x07, 0x00, "01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10");
  LlcMessage tl = llc(tl_octets);
  EXPECT_EQ(tl.body[15], 0x10);
  EXPECT_EQ(describe(SmcrMessage(tl)).find("User Data: 0102030405060708090a0b0c0d0e0f10") != std::string::npos, true);
}

// ------------------------------------------------------- errors

TEST(LlcTest, ErrorsNameTheField) {
  auto err = [](const std::vector<std::uint8_t>& v) {
    auto m = decode_llc(v);
    EXPECT_FALSE(m.ok());
    return m.ok() ? wire::DecodeError{} : m.error();
  };
  EXPECT_EQ(err(hex("01 2c")).field, LlcHeaderV1Spec::decl.name);
  auto bad_len = v1(0x01, 0, "");
  bad_len[1] = 40;
  EXPECT_EQ(err(bad_len).rule, "must be 44");
  auto short_v2 = hex("27 20 00 00");
  short_v2.resize(44, 0);
  EXPECT_EQ(err(short_v2).field, "Length (low octet)");
  auto long_v2 = hex("27 40 00 00");  // Length 64, only 44 carried
  long_v2.resize(44, 0);
  EXPECT_EQ(err(long_v2).field, "Length");
  auto huge_v2 = hex("27 01 21 00");  // Length 8449
  huge_v2.resize(44, 0);
  EXPECT_EQ(err(huge_v2).field, "Length (low octet)");
  auto must = v1(0x0a, 0, "");
  EXPECT_EQ(err(must).field, "Type");
  EXPECT_NE(err(must).rule.find("protocol error"), std::string_view::npos);
  auto optional = v1(0x8a, 0, "");
  EXPECT_NE(err(optional).rule.find("silently discarded"), std::string_view::npos);
  auto cdc = v1(0xfe, 0, "");
  EXPECT_NE(err(cdc).rule.find("CDC"), std::string_view::npos);
  // DELETE RKEY v2 announcing 20 RKeys in 44 octets.
  auto many = hex("29 2c 00 00 14");
  many.resize(44, 0);
  EXPECT_EQ(err(many).field, "Count");
  // DELETE RKEY v1 with Count 9.
  EXPECT_EQ(err(v1(0x09, 0, "09")).field, "Count");
  // ADD LINK v2 whose extension announces 2 pairs but holds 1.
  auto al = hex(kAddLinkV2);
  al[44 + 26] = 2;
  EXPECT_EQ(err(al).field, "Num RKeys (low octet)");
  // ADD LINK v2 cut inside its extension.
  auto cut = hex(kAddLinkV2);
  cut.resize(60);
  cut[1] = 60;
  EXPECT_EQ(err(cut).field, AddLinkV2ExtSpec::decl.name);
}

// ------------------------------------------------------- CDC

TEST(CdcTest, FirstDataAnnouncementFromTheCapture) {
  // Frame 22 (client): seqno 1, token 1, producer 0:4096 after one 4 KiB Write.
  auto v = hex(R"(
  fe 2c  00 01  00 00 00 01   # CDC, length 44, seqno 1, alert token 1
  00 00  00 00  00 00 10 00   # producer: reserved, wrap 0, cursor 4096
  00 00  00 00  00 00 00 00   # consumer: reserved, wrap 0, cursor 0
  00  00  00 00               # producer flags, connection state flags, reserved
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00)");
  auto m = decode_send(v);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  const CdcMessage& c = std::get<CdcMessage>(*m);
  EXPECT_EQ(c.sequence_number(), 1);
  EXPECT_EQ(c.alert_token(), 1u);
  EXPECT_EQ(c.producer(), (Cursor{0, 4096}));
  EXPECT_EQ(c.consumer(), (Cursor{0, 0}));
  EXPECT_EQ(summarize(*m), "seqno=1 token=0x1 prod=0:4096 cons=0:0 flags=none");
}

TEST(CdcTest, CloseFlagsFromTheCapture) {
  // Frames 140, 143, 145: D (done writing), C (closed), then D and C.
  auto v = hex("fe 2c 00 09 00 00 00 01  00 00 00 00 00 00 80 00  00 00 00 00 00 00 80 00  00 80 00 00");
  v.resize(44, 0);
  auto d = decode_cdc(v);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->flag(CdcSpec::Field::D));
  EXPECT_FALSE(d->flag(CdcSpec::Field::C));
  EXPECT_EQ(d->producer(), (Cursor{0, 0x8000}));
  v[25] = 0x40;
  EXPECT_TRUE(decode_cdc(v)->flag(CdcSpec::Field::C));
  v[25] = 0xc0;
  EXPECT_NE(summarize(SmcrMessage(*decode_cdc(v))).find(" flags=DC"), std::string::npos);
  // Producer flags B P U R F are octet 24's high five bits.
  v[24] = 0xf8;
  auto all = decode_cdc(v);
  for (auto f : {CdcSpec::Field::B, CdcSpec::Field::P, CdcSpec::Field::U, CdcSpec::Field::R, CdcSpec::Field::F})
    EXPECT_TRUE(all->flag(f));
}

TEST(CdcTest, ErrorsNameTheField) {
  auto v = hex("fe 2c 00 01");
  EXPECT_EQ(decode_cdc(v).error().field, CdcSpec::decl.name);
  v.resize(44, 0);
  v[1] = 40;
  EXPECT_EQ(decode_cdc(v).error().field, "Length");
  v[1] = 44;
  v[0] = 0xfd;
  EXPECT_EQ(decode_cdc(v).error().field, "Type");
}

}  // namespace
}  // namespace rdmaconf::smcr
