// The DDP/SCTP adaptation layer's messages (RFC 5043 §5): known-answer
// octets, every decode error (field and section asserted), and the encoders.
#include "sctp/messages.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "test_hex.hpp"

namespace rdmaconf::sctp {
namespace {

using test::hex;

TEST(SctpMessages, SegmentChunkCarriesDdpSsnAndSegment) {
  const auto octets = hex("00 07        # DDP-SSN 7\n"
                          "41 01 ...    # a DDP untagged header starts here\n"
                          "00 00 00 00");
  auto m = decode_message(kPpidDdpSegment, octets);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->kind, MessageKind::kSegment);
  EXPECT_EQ(m->ddp_ssn, 7);
  EXPECT_EQ(m->ddp_segment.size(), 6u);
  EXPECT_EQ(m->ddp_segment[0], 0x41);
}

TEST(SctpMessages, SessionControlCarriesFunctionAndPrivateData) {
  const auto octets = hex("00 00  # DDP-SSN 0\n"
                          "00 01  # Function Code: Initiate\n"
                          "68 69  # private data \"hi\"");
  auto m = decode_message(kPpidSessionControl, octets);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->kind, MessageKind::kControl);
  EXPECT_EQ(m->function, FunctionCode::kInitiate);
  ASSERT_EQ(m->private_data.size(), 2u);
  EXPECT_EQ(m->private_data[1], 'i');
}

TEST(SctpMessages, ZeroLengthPrivateDataIsLegal) {
  auto m = decode_message(kPpidSessionControl, hex("00 00 00 02"));  // Accept, no private data
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->function, FunctionCode::kAccept);
  EXPECT_TRUE(m->private_data.empty());
}

TEST(SctpMessages, Errors) {
  struct Case {
    std::uint32_t ppid;
    std::vector<std::uint8_t> octets;
    std::string_view field;
    std::string_view section;
    DecodeOptions options;
  };
  std::vector<std::uint8_t> big(4 + 513, 0);
  big[3] = 0x01;  // Initiate with 513 octets of private data
  std::vector<std::uint8_t> big_segment(2 + 600, 0x41);
  big_segment[0] = big_segment[1] = 0;
  const Case cases[] = {
      {51, hex("00 00 00 01"), "PPID", "RFC 5043 §5.2", {}},
      {kPpidDdpSegment, hex("00"), "DDP Segment Chunk header", "RFC 5043 §5.2.2", {}},
      {kPpidDdpSegment, hex("00 01"), "DDP Segment", "RFC 5043 §5.2.2", {}},
      {kPpidDdpSegment, big_segment, "DDP Segment", "RFC 5043 §9", {.max_segment_size = 516}},
      {kPpidSessionControl, hex("00 00 00"), "DDP Stream Session Control", "RFC 5043 §5.2.3", {}},
      {kPpidSessionControl, hex("00 00 00 00"), "Function Code", "RFC 5043 §5.2.3", {}},
      {kPpidSessionControl, hex("00 00 00 05"), "Function Code", "RFC 5043 §5.2.3", {}},
      {kPpidSessionControl, big, "Private Data", "RFC 5043 §5.2.3", {}},
      {kPpidSessionControl, hex("00 03 00 04 aa"), "Private Data", "RFC 5043 §5.2.3", {}},  // Terminate with data
  };
  for (const Case& c : cases) {
    auto m = decode_message(c.ppid, c.octets, c.options);
    ASSERT_FALSE(m.ok()) << c.field;
    EXPECT_EQ(m.error().field, c.field);
    EXPECT_EQ(m.error().rfc_section, c.section) << c.field;
  }
  // The same large segment passes when the receiver's limit allows it.
  EXPECT_TRUE(decode_message(kPpidDdpSegment, big_segment, {.max_segment_size = 1024}).ok());
}

TEST(SctpMessages, AdaptationLayerIndication) {
  const auto octets = hex("c0 06        # Type: Adaptation Layer Indication\n"
                          "00 08        # Length 8\n"
                          "00 00 00 01  # DDP");
  auto v = decode_adaptation_layer_indication(octets);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, kAdaptationIndicationDdp);
  EXPECT_EQ(encode_adaptation_layer_indication(), octets);
  EXPECT_EQ(decode_adaptation_layer_indication(hex("c0 07 00 08 00 00 00 01")).error().field, "Type");
  EXPECT_EQ(decode_adaptation_layer_indication(hex("c0 06 00 0c 00 00 00 01")).error().field, "Length");
  EXPECT_FALSE(decode_adaptation_layer_indication(hex("c0 06 00 08")).ok());
}

TEST(SctpMessages, EncodersRoundTripAndForce) {
  const auto seg = hex("41 01 02 03");
  std::vector<std::uint8_t> out;
  encode_segment_chunk({.ddp_ssn = 0x1234, .ddp_segment = wire::Chunks(seg)}, out);
  EXPECT_EQ(out, hex("12 34 41 01 02 03"));

  const auto pd = hex("aa bb");
  EXPECT_EQ(encode_session_control({.ddp_ssn = 1, .function = FunctionCode::kReject, .private_data = pd,
                                    .raw_function_code = std::nullopt}),
            hex("00 01 00 03 aa bb"));
  // A forced code RFC 5043 does not define goes out as asked and is refused.
  auto forced = encode_session_control({.ddp_ssn = 0, .function = FunctionCode::kInitiate, .private_data = {},
                                        .raw_function_code = 0x0009});
  EXPECT_EQ(forced, hex("00 00 00 09"));
  EXPECT_FALSE(decode_message(kPpidSessionControl, forced).ok());
}

TEST(SctpMessages, SsnDistanceIsSerialArithmetic) {
  EXPECT_EQ(ssn_distance(0, 0), 0);
  EXPECT_EQ(ssn_distance(0, 5), 5);
  EXPECT_EQ(ssn_distance(65535, 2), 3);
  EXPECT_EQ(ssn_distance(5, 4), -1);
  EXPECT_EQ(ssn_distance(0, 32767), 32767);
  EXPECT_LT(ssn_distance(0, 32768), 0);
}

}  // namespace
}  // namespace rdmaconf::sctp
