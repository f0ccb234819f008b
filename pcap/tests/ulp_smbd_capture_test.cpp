// SMB Direct (MS-SMBD) on a crafted iWARP capture: no real capture exists
// here (Debian's kernel is built without SMB Direct), so the peers' Sends are
// built through smbd::encode and the DDP/MPA builders, in the order a client
// and server would send them on port 5445 (MS-SMBD §2.1): the negotiate
// exchange (§2.2.1, §2.2.2), an SMB2 NEGOTIATE in a Data Transfer (§2.2.3),
// its response in two fragments (RemainingDataLength), a credit-only keep-
// alive, an SMB2 READ carrying a Buffer Descriptor V1 (§2.2.3.1) and the
// server's RDMA Write into that token. analyze must recognise the ULP from
// the first Send (or be told), count each message kind and SMB2 command;
// decode must show each message.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <tuple>

#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "ddp/segmentation.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "ulp/smbd.hpp"
#include "run_command.hpp"

namespace rdmaconf::analysis::testing {
namespace {

using rdmaconf::testing::run_command;

namespace smbd = ulp::smbd;

struct Conversation {
  Session s;
  std::vector<std::tuple<int, std::size_t, std::size_t>> order;
  std::uint32_t msn[2] = {1, 1};

  Conversation() { s.start(); }
  void fpdu(int side, const Bytes& ulpdu) {
    const std::size_t at = s.fpdu(side, ulpdu);
    order.emplace_back(side, at, s.stream[side].size());
  }
  void send(int side, const Bytes& payload) {
    ddp::UntaggedTarget t;
    t.rsvd_ulp = rdmap::Control::octet(rdmap::Opcode::kSend);
    t.qn = ddp::QueueNumber{static_cast<std::uint32_t>(rdmap::Queue::kSend)};
    t.msn = ddp::Msn{msn[side]++};
    auto segments = ddp::segment_untagged(t, {}, wire::Chunks(wire::Bytes(payload)), 1 << 16);
    ASSERT_TRUE(segments.ok() && segments->size() == 1);
    fpdu(side, segments->front().to_vector());
  }
  std::string save(const std::string& name) {
    CaptureBuilder cap(smbd::kIwarpPort, 40000);
    cap.handshake();
    cap.segment(0, s.stream[0], 0, s.boundaries[0].empty() ? s.stream[0].size() : s.boundaries[0].front());
    cap.segment(1, s.stream[1], 0, s.boundaries[1].empty() ? s.stream[1].size() : s.boundaries[1].front());
    for (const auto& [side, from, to] : order) cap.segments(side, s.stream[side], from, to);
    cap.fin(0, s.stream[0].size());
    cap.fin(1, s.stream[1].size());
    return cap.save(name);
  }
};

Bytes negotiate_request() {
  smbd::Message m;
  m.kind = smbd::Kind::kNegotiateRequest;
  m.min_version = m.max_version = smbd::kVersion1;
  m.credits_requested = 255;
  m.preferred_send_size = 1364;
  m.max_receive_size = 1364;
  m.max_fragmented_size = 1048576;
  return smbd::encode(m);
}
Bytes negotiate_response() {
  smbd::Message m;
  m.kind = smbd::Kind::kNegotiateResponse;
  m.min_version = m.max_version = m.negotiated_version = smbd::kVersion1;
  m.credits_requested = 255;
  m.credits_granted = 255;
  m.max_read_write_size = 1048576;
  m.preferred_send_size = 1364;
  m.max_receive_size = 1364;
  m.max_fragmented_size = 1048576;
  return smbd::encode(m);
}
// The start of an SMB2 header (MS-SMB2 §2.2.1: ProtocolId 0xFE 'S' 'M' 'B',
// StructureSize 64, Command at octet 12, little-endian) and filler.
Bytes smb2(std::uint16_t command, std::size_t length) {
  Bytes b = filler(length);
  const std::uint8_t head[] = {0xfe, 'S', 'M', 'B', 64, 0, 0, 0, 0, 0, 0, 0,
                               static_cast<std::uint8_t>(command), static_cast<std::uint8_t>(command >> 8)};
  std::copy(std::begin(head), std::end(head), b.begin());
  return b;
}
Bytes data_transfer(const Bytes& data, std::uint32_t remaining = 0, std::uint16_t flags = 0,
                    std::uint16_t granted = 1) {
  smbd::Message m;
  m.kind = smbd::Kind::kDataTransfer;
  m.credits_requested = 255;
  m.credits_granted = granted;
  m.flags = flags;
  m.remaining_data_length = remaining;
  m.data = data;
  m.data_length = static_cast<std::uint32_t>(data.size());
  m.data_offset = data.empty() ? 0 : 24;  // Linux's offset: the fixed 20 octets and 4 of Padding
  return smbd::encode(m);
}

constexpr std::uint16_t kSmb2Negotiate = 0x0000, kSmb2Read = 0x0008;
constexpr std::uint32_t kToken = 0x4a5b6c7d;
constexpr std::uint64_t kBufferOffset = 0x7f0012340000;

// The client's SMB2 READ (MS-SMB2 §2.2.19) on an RDMA channel: its
// ReadChannelInfo holds one Buffer Descriptor V1 naming the buffer the
// server writes the data into.
Bytes smb2_read_with_descriptor() {
  Bytes b = smb2(kSmb2Read, 64 + 48);
  std::vector<std::uint8_t> d;
  wire::ByteWriter w(d);
  smbd::encode(smbd::BufferDescriptor{kBufferOffset, kToken, 4096}, w);
  b.insert(b.end(), d.begin(), d.end());
  return b;
}

std::string build(const std::string& name, bool negotiate = true) {
  Conversation c;
  if (negotiate) {
    c.send(0, negotiate_request());
    c.send(1, negotiate_response());
  }
  c.send(0, data_transfer(smb2(kSmb2Negotiate, 100)));
  // The response in two fragments: 200 octets, 100 more to come.
  c.send(1, data_transfer(smb2(kSmb2Negotiate, 200), 100));
  c.send(1, data_transfer(filler(100, 3)));
  // A keep-alive: no data, SMB_DIRECT_RESPONSE_REQUESTED, no credit granted.
  c.send(0, data_transfer({}, 0, smbd::kResponseRequested, 0));
  c.send(1, data_transfer({}));
  c.send(0, data_transfer(smb2_read_with_descriptor()));
  c.fpdu(1, tagged(0x0, kToken, kBufferOffset, true, filler(4096)));
  c.send(1, data_transfer(smb2(kSmb2Read, 80)));
  return c.save(name);
}

TEST(UlpSmbdCapture, RecognisedFromTheNegotiateRequestAndCountedPerKind) {
  const AnalysisResult r = analyze(build("smbd-session.pcapng"));
  EXPECT_EQ(r.summary.violations, 0u);
  ASSERT_EQ(r.summary.ulps.size(), 1u);
  const auto it = r.summary.ulps.find("smb-direct");
  ASSERT_NE(it, r.summary.ulps.end());
  const UlpTotals& t = it->second;
  EXPECT_EQ(t.connections, 1u);
  EXPECT_EQ(t.by_source.at("first Send"), 1u);
  EXPECT_EQ(t.messages.at("Negotiate Request"), 1u);
  EXPECT_EQ(t.messages.at("Negotiate Response"), 1u);
  EXPECT_EQ(t.messages.at("Data Transfer"), 7u);
  EXPECT_EQ(t.messages.size(), 3u);
  EXPECT_EQ(t.undecoded, 0u);
  // SMB2 commands that start in a Data Transfer: the continued fragment of
  // the NEGOTIATE response is not counted again.
  EXPECT_EQ(t.operations.at("SMB2 NEGOTIATE"), 2u);
  EXPECT_EQ(t.operations.at("SMB2 READ"), 2u);
  EXPECT_EQ(t.operations.size(), 2u);
}

TEST(UlpSmbdCapture, TheUserNamesItWhenTheNegotiateIsNotCaptured) {
  // Without the negotiate exchange nothing recognises the connection...
  const std::string path = build("smbd-mid.pcapng", false);
  EXPECT_TRUE(analyze(path).summary.ulps.empty());
  // ...unless the user says what listens on 5445.
  AnalysisOptions told;
  told.ulps.push_back(*parse_ulp_choice("smb-direct:5445"));
  const AnalysisResult r = analyze(path, told);
  const auto it = r.summary.ulps.find("smb-direct");
  ASSERT_NE(it, r.summary.ulps.end());
  EXPECT_EQ(it->second.by_source.at("user"), 1u);
  // Each side's first Send is taken as its negotiate message (MS-SMBD
  // §3.1.5): here those are Data Transfers, which do not decode as one.
  EXPECT_EQ(it->second.undecoded, 2u);
  EXPECT_EQ(it->second.messages.at("Data Transfer"), 5u);
  EXPECT_TRUE(parse_ulp_choice("smbd"));
  EXPECT_EQ(parse_ulp_choice("smb-direct")->ulp, Ulp::kSmbDirect);
}

TEST(UlpSmbdCapture, DecodeShowsEachMessage) {
  const std::string path = build("smbd-decode.pcapng");
  const std::string out = run_command(std::string(RDMACONF_CLI) + " decode " + path);
  EXPECT_NE(out.find("ulp=smb-direct ulp_message=\"Negotiate Request versions 1.0-1.0 credits_requested=255 "
                     "preferred_send=1364 max_receive=1364 max_fragmented=1048576\""),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("ulp_message=\"Negotiate Response versions 1.0-1.0 negotiated 1.0 status=0x0 "
                     "credits_granted=255 max_read_write=1048576"),
            std::string::npos);
  EXPECT_NE(out.find("ulp_message=\"Data Transfer credits_requested=255 credits_granted=1 data=200 at 24 "
                     "remaining=100 SMB2 NEGOTIATE\""),
            std::string::npos);
  EXPECT_NE(out.find("ulp_message=\"Data Transfer credits_requested=255 credits_granted=1 data=100 at 24 "
                     "(continued fragment)\""),
            std::string::npos);
  EXPECT_NE(out.find("ulp_message=\"Data Transfer credits_requested=255 credits_granted=0 response requested\""),
            std::string::npos);
  const std::string json = run_command(std::string(RDMACONF_CLI) + " analyze -q --json - " + path);
  const auto smbd = nlohmann::json::parse(json)["ulps"]["smb-direct"];
  EXPECT_EQ(smbd["connections"], 1) << json;
  EXPECT_EQ(smbd["recognised_by"], nlohmann::json({{"first Send", 1}})) << json;
  EXPECT_EQ(smbd["messages"], nlohmann::json({{"Data Transfer", 7}, {"Negotiate Request", 1}, {"Negotiate Response", 1}}))
      << json;
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
