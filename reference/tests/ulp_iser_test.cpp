// iSER (RFC 7145): known answers from a capture of Linux's LIO target and the
// open-iscsi initiator over siw (the Send payloads of frames 8, 12, 16 and
// 571, checked by hand against §9.2's figure), the Hello messages (§9.3,
// §9.4) and every decode error.
#include "ulp/iser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "test_hex.hpp"

namespace rdmaconf::ulp::iser {
namespace {

using test::hex;

const std::string kNoStags(48, '0');  // Write STag, Write Base Offset, Read STag, Read Base Offset: zero

// Frame 12: a SCSI Read Command; RSV set, the Read STag names the buffer the
// target fills by RDMA Write.
TEST(UlpIser, ReadCommandAdvertisesTheReadStag) {
  auto m = decode(hex("14000000" "00000000" "0000000000000000" "eaa07601" "ff2c1f0542823e00"
                      "01c10000000000000000000000000000" "01000000" "00002400" "00000000c98ac819"
                      "12000000240000000000000000000000"));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->opcode, 1);
  EXPECT_FALSE(m->wsv);
  EXPECT_TRUE(m->rsv);
  EXPECT_EQ(m->read_stag, 0xeaa07601u);
  EXPECT_EQ(m->read_base_offset, 0xff2c1f0542823e00u);
  EXPECT_EQ(m->write_stag, 0u);
  EXPECT_EQ(m->iscsi_opcode, 0x01);
  EXPECT_EQ(iscsi_opcode_name(m->iscsi_opcode), "SCSI Command");
  EXPECT_TRUE(m->final);
  EXPECT_EQ(m->data_segment_length, 0u);
  EXPECT_EQ(m->itt, 0x01000000u);
  EXPECT_EQ(m->reserved, 0u);
  auto dirty = decode(hex("15000001" "00000000" "0000000000000000" "eaa07601" "ff2c1f0542823e00"
                          "01c10000000000000000000000000000" "01000000" "00002400" "00000000c98ac819"
                          "12000000240000000000000000000000"));
  ASSERT_TRUE(dirty.ok());  // reserved bits are ignored on receipt (§9.2), and reported
  EXPECT_EQ(dirty->reserved, 0x1000001u);
}

// Frame 16: its SCSI Response, sent with Invalidate of that Read STag.
TEST(UlpIser, ScsiResponse) {
  auto m = decode(hex("10000000" + kNoStags + "21800000000000000000000000000000" "01000000"
                      "00000000c98ac819" "00000001" "00000040" "000000000000000000000000"));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_FALSE(m->wsv || m->rsv);
  EXPECT_EQ(m->iscsi_opcode, 0x21);
  EXPECT_EQ(m->itt, 0x01000000u);
}

// Frame 571: a SCSI Write Command with immediate data; WSV set, the Write
// STag names the buffer the target reads the rest from.
TEST(UlpIser, WriteCommandAdvertisesTheWriteStag) {
  auto m = decode(hex("18000000" "68c88c02" "ff2c1f054f7f3000" "00000000" "0000000000000000"
                      "01a10000000000000000000000000000" "20000000" "00000000" "0000380000000008"
                      "000000000037c98ac8502a000000000000040000000000000000"));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_TRUE(m->wsv);
  EXPECT_FALSE(m->rsv);
  EXPECT_EQ(m->write_stag, 0x68c88c02u);
  EXPECT_EQ(m->write_base_offset, 0xff2c1f054f7f3000u);
  EXPECT_EQ(m->iscsi_opcode, 0x01);
}

// Frame 8: the Login Request (I bit set).
TEST(UlpIser, LoginRequest) {
  auto m = decode(hex("10000000" + kNoStags + "43870000000001e800023d0000010000" + std::string(64, '0')));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->iscsi_opcode, 0x03);
  EXPECT_TRUE(m->immediate);
  EXPECT_EQ(m->data_segment_length, 0x1e8u);
}

TEST(UlpIser, HelloAndHelloReply) {
  auto hello = decode(hex("20aa0010" + std::string(48, '0')));
  ASSERT_TRUE(hello.ok()) << hello.error().to_string();
  EXPECT_EQ(hello->opcode, 2);
  EXPECT_EQ(hello->max_ver, 10);
  EXPECT_EQ(hello->min_or_cur_ver, 10);
  EXPECT_EQ(hello->ird_or_ord, 16);
  auto reply = decode(hex("31aa0004" + std::string(48, '0')));
  ASSERT_TRUE(reply.ok()) << reply.error().to_string();
  EXPECT_EQ(reply->opcode, 3);
  EXPECT_TRUE(reply->rej);
  EXPECT_EQ(reply->ird_or_ord, 4);
}

// What decode() reads of a message, to compare an encode/decode round trip.
auto fields(const Message& m) {
  return std::tuple(m.opcode, m.wsv, m.rsv, m.reserved, m.write_stag, m.read_stag, m.write_base_offset,
                    m.read_base_offset, m.iscsi_opcode, m.immediate, m.final, m.data_segment_length, m.itt,
                    m.scsi_read, m.scsi_write, m.expected_data_transfer_length, m.cdb_opcode, m.max_ver,
                    m.min_or_cur_ver, m.ird_or_ord, m.rej);
}

// Frame 12's READ(10) built field by field: the §9.2 header as captured, the
// SCSI Command BHS with what Message holds (ATTR, LUN, CmdSN, ExpStatSN and
// the rest of the CDB stay zero), and decode() reading back what was set.
TEST(UlpIser, EncodeKnownAnswerAndRoundTrip) {
  Message m;
  m.opcode = static_cast<std::uint8_t>(Opcode::kControl);
  m.rsv = true;
  m.read_stag = 0xeaa07601;
  m.read_base_offset = 0xff2c1f0542823e00;
  m.iscsi_opcode = kScsiCommand;
  m.final = true;
  m.scsi_read = true;
  m.itt = 0x01000000;
  m.expected_data_transfer_length = 0x2400;
  m.cdb_opcode = 0x28;
  const auto octets = encode(m);
  EXPECT_EQ(octets, hex("14000000" "00000000" "0000000000000000" "eaa07601" "ff2c1f0542823e00"
                        "01c00000000000000000000000000000" "01000000" "00002400" "0000000000000000"
                        "28000000000000000000000000000000"));
  auto back = decode(octets);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(fields(*back), fields(m));

  // A Response: the shared BHS fields only.
  Message r;
  r.opcode = static_cast<std::uint8_t>(Opcode::kControl);
  r.iscsi_opcode = kScsiResponse;
  r.final = true;
  r.itt = 0x01000000;
  EXPECT_EQ(encode(r), hex("10000000" + kNoStags + "21800000000000000000000000000000" "01000000" +
                           std::string(56, '0')));
}

// Every message of the capture and the Hello pair: decode, encode, decode
// gives the same fields.
TEST(UlpIser, EncodeRoundTripsTheCapturedMessages) {
  const std::vector<std::string> frames = {
      "14000000" "00000000" "0000000000000000" "eaa07601" "ff2c1f0542823e00"
      "01c10000000000000000000000000000" "01000000" "00002400" "00000000c98ac819"
      "12000000240000000000000000000000",
      "10000000" + kNoStags + "21800000000000000000000000000000" "01000000"
      "00000000c98ac819" "00000001" "00000040" "000000000000000000000000",
      "18000000" "68c88c02" "ff2c1f054f7f3000" "00000000" "0000000000000000"
      "01a10000000000000000000000000000" "20000000" "00000000" "0000380000000008"
      "000000000037c98ac8502a000000000000040000000000000000",
      "10000000" + kNoStags + "43870000000001e800023d0000010000" + std::string(64, '0'),
      "20aa0010" + std::string(48, '0'),
      "31aa0004" + std::string(48, '0'),
  };
  for (const std::string& frame : frames) {
    auto m = decode(hex(frame));
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    auto again = decode(encode(*m));
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    EXPECT_EQ(fields(*again), fields(*m)) << frame;
  }
  // The Hello pair carries nothing but what Message holds: the octets come back.
  EXPECT_EQ(encode(*decode(hex("20aa0010" + std::string(48, '0')))), hex("20aa0010" + std::string(48, '0')));
  EXPECT_EQ(encode(*decode(hex("31aa0004" + std::string(48, '0')))), hex("31aa0004" + std::string(48, '0')));
}

TEST(UlpIser, EveryMalformedMessageNamesItsField) {
  auto short_send = decode(hex("10000000"));
  ASSERT_FALSE(short_send.ok());
  EXPECT_EQ(short_send.error().field, "iSER header");
  auto no_bhs = decode(hex("10000000" + kNoStags + "0100"));
  ASSERT_FALSE(no_bhs.ok());
  EXPECT_EQ(no_bhs.error().field, "iSCSI Basic Header Segment");
  EXPECT_EQ(no_bhs.error().offset, 28u);
  for (const char* op : {"0", "4", "f"}) {
    auto m = decode(hex(std::string(op) + "0000000" + kNoStags));
    ASSERT_FALSE(m.ok()) << op;
    EXPECT_EQ(m.error().field, "Opcode");
    EXPECT_EQ(m.error().rfc_section, "RFC 7145 §9.1");
  }
}

}  // namespace
}  // namespace rdmaconf::ulp::iser
