// SMB Direct (MS-SMBD): known answers whose octets were written out by hand
// from the layouts of §2.2.1, §2.2.2, §2.2.3 and §2.2.3.1 (every integer
// little-endian: least significant octet first), not taken from a capture
// (none exists here: Debian's kernel is built without SMB Direct). The
// negotiate values are those of MS-SMBD §4.1's example exchange. Then the
// round trip through the encoder and every decode error.
#include "ulp/smbd.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_hex.hpp"

namespace rdmaconf::ulp::smbd {
namespace {

using test::hex;

std::vector<std::uint8_t> bytes(wire::Bytes b) { return {b.begin(), b.end()}; }

// MS-SMBD §4.1: versions 1.0-1.0, 10 credits, 1 KiB sends and receives,
// 128 KiB reassembled.
const std::string kRequest = "0001" "0001" "0000" "0a00" "00040000" "00040000" "00000200";
// MS-SMBD §4.1's answer: 1.0 chosen, 10 credits asked and granted, status
// 0, 1 MiB RDMA transfers.
const std::string kResponse =
    "0001" "0001" "0001" "0000" "0a00" "0a00" "00000000" "00001000" "00040000" "00040000" "00000200";

TEST(UlpSmbd, NegotiateRequestKnownAnswer) {
  const auto octets = hex(kRequest);
  ASSERT_EQ(octets.size(), kNegotiateRequestSize);
  auto m = decode(octets, Kind::kNegotiateRequest);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->min_version, 0x0100);
  EXPECT_EQ(m->max_version, 0x0100);
  EXPECT_EQ(m->credits_requested, 10);
  EXPECT_EQ(m->preferred_send_size, 1024u);
  EXPECT_EQ(m->max_receive_size, 1024u);
  EXPECT_EQ(m->max_fragmented_size, 128u * 1024);
  EXPECT_EQ(bytes(encode(*m)), octets);
  EXPECT_EQ(wire::summarize(NegotiateRequestSpec::decl, octets),
            "MinVersion=0x0100 (SMB Direct 1.0) MaxVersion=0x0100 (SMB Direct 1.0) CreditsRequested=10 "
            "PreferredSendSize=1024 MaxReceiveSize=1024 MaxFragmentedSize=131072");
}

TEST(UlpSmbd, NegotiateResponseKnownAnswer) {
  const auto octets = hex(kResponse);
  ASSERT_EQ(octets.size(), kNegotiateResponseSize);
  auto m = decode(octets, Kind::kNegotiateResponse);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->negotiated_version, 0x0100);
  EXPECT_EQ(m->credits_requested, 10);
  EXPECT_EQ(m->credits_granted, 10);
  EXPECT_EQ(m->status, 0u);
  EXPECT_EQ(m->max_read_write_size, 1024u * 1024);
  EXPECT_EQ(m->preferred_send_size, 1024u);
  EXPECT_EQ(m->max_receive_size, 1024u);
  EXPECT_EQ(m->max_fragmented_size, 128u * 1024);
  EXPECT_EQ(bytes(encode(*m)), octets);
}

// A Data Transfer with 8 octets of data at offset 24 (4 octets of Padding),
// credits 255 asked and 1 granted, the keep-alive flag, 0x1234 octets still
// to come in later fragments.
TEST(UlpSmbd, DataTransferKnownAnswer) {
  const auto octets = hex("ff00" "0100" "0100" "0000" "34120000" "18000000" "08000000" "00000000"
                          "fe534d4240000100");
  auto m = decode(octets, Kind::kDataTransfer);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->credits_requested, 255);
  EXPECT_EQ(m->credits_granted, 1);
  EXPECT_TRUE(m->response_requested());
  EXPECT_EQ(m->remaining_data_length, 0x1234u);
  EXPECT_EQ(m->data_offset, 24u);
  EXPECT_EQ(m->data_length, 8u);
  EXPECT_EQ(bytes(m->data), hex("fe534d4240000100"));
  EXPECT_TRUE(m->data_complete);
  EXPECT_EQ(bytes(encode(*m)), octets);
}

TEST(UlpSmbd, DataTransferWithoutDataIsTwentyOctets) {
  // A credit grant alone (MS-SMBD §2.2.3: DataOffset and DataLength 0).
  const auto octets = hex("0a00" "0500" "0000" "0000" "00000000" "00000000" "00000000");
  auto m = decode(octets, Kind::kDataTransfer);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->credits_granted, 5);
  EXPECT_FALSE(m->response_requested());
  EXPECT_TRUE(m->data.empty());
  EXPECT_EQ(bytes(encode(*m)), octets);
}

TEST(UlpSmbd, BufferDescriptorsKnownAnswer) {
  // Two descriptors: Offset 0x0011223344556677 Token 0x8899aabb Length 4096,
  // then Offset 0x1000 Token 0x01020304 Length 512.
  const auto octets = hex("7766554433221100" "bbaa9988" "00100000" "0010000000000000" "04030201" "00020000");
  auto d = decode_buffer_descriptors(octets);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  ASSERT_EQ(d->size(), 2u);
  EXPECT_EQ((*d)[0], (BufferDescriptor{0x0011223344556677ull, 0x8899aabb, 4096}));
  EXPECT_EQ((*d)[1], (BufferDescriptor{0x1000, 0x01020304, 512}));
  std::vector<std::uint8_t> out;
  wire::ByteWriter w(out);
  for (const BufferDescriptor& b : *d) encode(b, w);
  EXPECT_EQ(out, octets);
  EXPECT_FALSE(decode_buffer_descriptors(wire::Bytes(octets).first(20)).ok());
  EXPECT_TRUE(decode_buffer_descriptors({}).ok());
}

TEST(UlpSmbd, DataReachingPastAPartialCopyIsCutNotRead) {
  // DataLength says 1000 octets; only the Send's first 32 octets are at hand.
  auto octets = hex("0100" "0100" "0000" "0000" "00000000" "18000000" "e8030000" "00000000" "0102030405060708");
  auto m = decode(octets, Kind::kDataTransfer, /*whole=*/false);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->data.size(), 8u);
  EXPECT_FALSE(m->data_complete);
  // The whole Send: the same octets are an error naming DataLength.
  auto whole = decode(octets, Kind::kDataTransfer);
  ASSERT_FALSE(whole.ok());
  EXPECT_EQ(whole.error().field, "DataLength");
  EXPECT_EQ(whole.error().rfc_section, "MS-SMBD §2.2.3");
  // An offset far past the copy hands out nothing.
  octets[12] = 0x00;
  octets[13] = 0x01;  // DataOffset 256
  auto far = decode(octets, Kind::kDataTransfer, false);
  ASSERT_TRUE(far.ok());
  EXPECT_TRUE(far->data.empty());
}

struct BadCase {
  const char* what;
  Kind kind;
  std::string octets;
  std::string field;
};

TEST(UlpSmbd, DecodeErrorsNameFieldRuleAndSection) {
  const BadCase cases[] = {
      {"request cut short", Kind::kNegotiateRequest, kRequest.substr(0, 38), "SMB Direct Negotiate Request"},
      {"response cut short", Kind::kNegotiateResponse, kResponse.substr(0, 62), "SMB Direct Negotiate Response"},
      {"data transfer cut short", Kind::kDataTransfer, std::string(38, '0'), "SMB Direct Data Transfer"},
      {"MaxVersion below MinVersion", Kind::kNegotiateRequest, "0001" "ff00" + kRequest.substr(8), "MaxVersion"},
      {"no 1.0 offered", Kind::kNegotiateRequest, "0002" "0002" + kRequest.substr(8), "MinVersion"},
      {"another version chosen", Kind::kNegotiateResponse, kResponse.substr(0, 8) + "0002" + kResponse.substr(12),
       "NegotiatedVersion"},
      {"offset without data", Kind::kDataTransfer, "0100" "0100" "0000" "0000" "00000000" "18000000" "00000000",
       "DataOffset"},
      {"offset not aligned", Kind::kDataTransfer,
       "0100" "0100" "0000" "0000" "00000000" "14000000" "04000000" "01020304", "DataOffset"},
      {"data in the header", Kind::kDataTransfer,
       "0100" "0100" "0000" "0000" "00000000" "10000000" "04000000" "01020304", "DataOffset"},
      {"data without offset", Kind::kDataTransfer, "0100" "0100" "0000" "0000" "00000000" "00000000" "04000000",
       "DataOffset"},
      {"data past the Send", Kind::kDataTransfer,
       "0100" "0100" "0000" "0000" "00000000" "18000000" "09000000" "00000000" "0102030405060708", "DataLength"},
  };
  for (const BadCase& c : cases) {
    auto m = decode(hex(c.octets), c.kind);
    ASSERT_FALSE(m.ok()) << c.what;
    EXPECT_EQ(m.error().field, c.field) << c.what;
    EXPECT_TRUE(m.error().rfc_section.starts_with("MS-SMBD §2.2.")) << c.what << ": " << m.error().rfc_section;
    EXPECT_FALSE(m.error().rule.empty()) << c.what;
  }
}

TEST(UlpSmbd, EncodeWritesForbiddenValuesAsGiven) {
  Message m;
  m.kind = Kind::kDataTransfer;
  m.data_offset = 20;  // not aligned: the scapy habit, the decoder refuses it
  const std::vector<std::uint8_t> data = {1, 2, 3, 4};
  m.data = data;
  m.data_length = 4;
  const auto out = encode(m);
  ASSERT_EQ(out.size(), 24u);
  EXPECT_EQ(out[12], 20);
  EXPECT_EQ(out[20], 1);
  EXPECT_FALSE(decode(out, Kind::kDataTransfer).ok());
}

}  // namespace
}  // namespace rdmaconf::ulp::smbd
