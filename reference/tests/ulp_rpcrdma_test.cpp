// RPC-over-RDMA version 1 (RFC 8166): known answers from a capture of Linux's
// NFSv3 client and server over siw (the Send payloads of frames 54, 56, 70,
// 503 and 947, checked by hand against §4.1.2's XDR and against tshark's
// rpcordma fields), and every decode error.
#include "ulp/rpcrdma.hpp"

#include <gtest/gtest.h>

#include <string_view>
#include <vector>

#include "test_hex.hpp"

namespace rdmaconf::ulp::rpcrdma {
namespace {

using test::hex;

// Frame 54: an NFS FSINFO-sized Call, RDMA_MSG, no Read or Write list, a
// Reply chunk of three segments (256 + 28672 + 4 octets), then the RPC Call.
constexpr std::string_view kCallWithReplyChunk =
    "8f0ad9c7" "00000001" "00000080" "00000000"  // XID, vers 1, 128 credits, RDMA_MSG
    "00000000"                                  // no Read list
    "00000000"                                  // no Write list
    "00000001" "00000003"                       // a Reply chunk of 3 segments
    "a7c24301" "00000100" "8f0ad9c707ed2800"
    "581d7f01" "00007000" "8f0ad9c7488da000"
    "3446dc01" "00000004" "8f0ad9c707ed2900"
    "8f0ad9c7" "00000000" "00000002";           // the RPC Call: XID, CALL, RPC version 2

TEST(UlpRpcRdma, CallWithAReplyChunk) {
  const auto octets = hex(kCallWithReplyChunk);
  auto m = decode(octets);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->xid, 0x8f0ad9c7u);
  EXPECT_EQ(m->vers, 1u);
  EXPECT_EQ(m->credits, 128u);
  EXPECT_TRUE(m->is(Proc::kMsg));
  EXPECT_TRUE(m->read_list.empty());
  EXPECT_TRUE(m->write_list.empty());
  ASSERT_TRUE(m->reply_chunk.has_value());
  ASSERT_EQ(m->reply_chunk->segments.size(), 3u);
  EXPECT_EQ(m->reply_chunk->segments[0], (Segment{0xa7c24301, 256, 0x8f0ad9c707ed2800, 32}));
  EXPECT_EQ(m->reply_chunk->segments[1], (Segment{0x581d7f01, 28672, 0x8f0ad9c7488da000, 48}));
  EXPECT_EQ(m->reply_chunk->segments[2], (Segment{0x3446dc01, 4, 0x8f0ad9c707ed2900, 64}));
  EXPECT_EQ(m->reply_chunk->length(), 256u + 28672u + 4u);
  // The RPC message starts right after the lists, with the same XID
  // (RFC 8166 §4.2.1).
  EXPECT_EQ(m->header_length, 80u);
  EXPECT_EQ(m->rpc_xid, 0x8f0ad9c7u);
}

// Frame 56: the Reply to it, RDMA_NOMSG: the RPC Reply went into the Reply
// chunk by RDMA Write; the segment lengths say how much each one got.
TEST(UlpRpcRdma, NoMsgReplyNamesWhatTheReplyChunkReceived) {
  const auto octets = hex(
      "8f0ad9c7" "00000001" "00000040" "00000001"
      "00000000" "00000000" "00000001" "00000003"
      "a7c24301" "00000088" "8f0ad9c707ed2800"
      "581d7f01" "00000000" "8f0ad9c7488da000"
      "3446dc01" "00000000" "8f0ad9c707ed2900");
  auto m = decode(octets);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_TRUE(m->is(Proc::kNoMsg));
  EXPECT_EQ(m->credits, 64u);
  ASSERT_TRUE(m->reply_chunk.has_value());
  EXPECT_EQ(m->reply_chunk->length(), 136u);
  EXPECT_EQ(m->header_length, octets.size());
  EXPECT_FALSE(m->rpc_xid.has_value());  // RDMA_NOMSG: no RPC message in the Send
}

// Frame 70: a WRITE Call whose data the server pulls: one read segment at
// XDR position 128, 131072 octets.
TEST(UlpRpcRdma, ReadListKnownAnswer) {
  const auto octets = hex(
      "950ad9c7" "00000001" "00000080" "00000000"
      "00000001" "00000080" "d408f501" "00020000" "950ad9c70cd31000"
      "00000000"                        // end of the Read list
      "00000000" "00000000"             // no Write list, no Reply chunk
      "950ad9c7");
  auto m = decode(octets);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_EQ(m->read_list.size(), 1u);
  EXPECT_EQ(m->read_list[0].position, 128u);
  EXPECT_EQ(m->read_list[0].target, (Segment{0xd408f501, 131072, 0x950ad9c70cd31000, 24}));
  EXPECT_EQ(m->header_length, 52u);
}

// Frame 503 (a READ Call: one write chunk the server fills) and frame 947
// (a READ Reply, sent with Invalidate: the write chunk's segment now says how
// many octets were written, 19).
TEST(UlpRpcRdma, WriteListKnownAnswers) {
  auto call = decode(hex("9a0ad9c7" "00000001" "00000080" "00000000"
                         "00000000" "00000001" "00000001" "a7c24303" "00040000" "9a0ad9c70cff9000"
                         "00000000" "00000000"));
  ASSERT_TRUE(call.ok()) << call.error().to_string();
  ASSERT_EQ(call->write_list.size(), 1u);
  EXPECT_EQ(call->write_list[0].segments, (std::vector<Segment>{{0xa7c24303, 262144, 0x9a0ad9c70cff9000, 28}}));
  EXPECT_FALSE(call->reply_chunk.has_value());

  auto reply = decode(hex("9e0ad9c7" "00000001" "00000040" "00000000"
                          "00000000" "00000001" "00000001" "a7c24305" "00000013" "9e0ad9c70c83d000"
                          "00000000" "00000000"));
  ASSERT_TRUE(reply.ok()) << reply.error().to_string();
  ASSERT_EQ(reply->write_list.size(), 1u);
  EXPECT_EQ(reply->write_list[0].length(), 19u);
}

TEST(UlpRpcRdma, ErrorBodies) {
  auto vers = decode(hex("00000007" "00000001" "00000001" "00000004" "00000001" "00000001" "00000001"));
  ASSERT_TRUE(vers.ok()) << vers.error().to_string();
  EXPECT_TRUE(vers->is(Proc::kError));
  EXPECT_EQ(vers->err, 1u);
  EXPECT_EQ(vers->vers_low, 1u);
  EXPECT_EQ(vers->vers_high, 1u);
  auto chunk = decode(hex("00000007" "00000001" "00000001" "00000004" "00000002"));
  ASSERT_TRUE(chunk.ok());
  EXPECT_EQ(chunk->err, 2u);
  auto bad = decode(hex("00000007" "00000001" "00000001" "00000004" "00000009"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "rdma_err");
}

// encode() is decode()'s inverse: every header of the capture above, read
// and written again, gives back the octets Linux sent (up to the RPC
// message, which is the caller's).
TEST(UlpRpcRdma, EncodeRebuildsEveryCapturedHeader) {
  const std::vector<std::vector<std::uint8_t>> frames = {
      hex(kCallWithReplyChunk),
      hex("8f0ad9c7" "00000001" "00000040" "00000001" "00000000" "00000000" "00000001" "00000003"
          "a7c24301" "00000088" "8f0ad9c707ed2800" "581d7f01" "00000000" "8f0ad9c7488da000"
          "3446dc01" "00000000" "8f0ad9c707ed2900"),
      hex("950ad9c7" "00000001" "00000080" "00000000" "00000001" "00000080" "d408f501" "00020000"
          "950ad9c70cd31000" "00000000" "00000000" "00000000" "950ad9c7"),
      hex("9a0ad9c7" "00000001" "00000080" "00000000" "00000000" "00000001" "00000001" "a7c24303"
          "00040000" "9a0ad9c70cff9000" "00000000" "00000000"),
      hex("00000007" "00000001" "00000001" "00000004" "00000001" "00000001" "00000001"),
      hex("00000007" "00000001" "00000001" "00000004" "00000002"),
  };
  for (const auto& octets : frames) {
    auto m = decode(octets);
    ASSERT_TRUE(m.ok()) << m.error().to_string();
    const std::vector<std::uint8_t> header(octets.begin(), octets.begin() + static_cast<long>(m->header_length));
    EXPECT_EQ(encode(*m), header);
  }
}

// A message built field by field: the known answer written out from RFC 8166
// §4.1.2's XDR, and decode() reading back what was set.
TEST(UlpRpcRdma, EncodeKnownAnswerAndRoundTrip) {
  Message m;
  m.xid = 0x30;
  m.vers = kVersion1;
  m.credits = 32;
  m.proc = static_cast<std::uint32_t>(Proc::kNoMsg);
  m.read_list = {ReadSegment{128, Segment{0x200, 2000, 0x8000}}};
  m.write_list = {WriteChunk{{Segment{0x100, 4096, 0x1000}, Segment{0x101, 8, 0x2000}}}};
  m.reply_chunk = WriteChunk{{Segment{0x300, 1024, 0}}};
  const auto octets = encode(m);
  EXPECT_EQ(octets, hex("00000030" "00000001" "00000020" "00000001"
                        "00000001" "00000080" "00000200" "000007d0" "0000000000008000" "00000000"
                        "00000001" "00000002" "00000100" "00001000" "0000000000001000"
                        "00000101" "00000008" "0000000000002000" "00000000"
                        "00000001" "00000001" "00000300" "00000400" "0000000000000000"));
  auto back = decode(octets);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->xid, m.xid);
  EXPECT_EQ(back->credits, m.credits);
  EXPECT_EQ(back->proc, m.proc);
  ASSERT_EQ(back->read_list.size(), 1u);
  EXPECT_EQ(back->read_list[0].position, 128u);
  EXPECT_EQ(back->read_list[0].target, (Segment{0x200, 2000, 0x8000, 24}));
  ASSERT_EQ(back->write_list.size(), 1u);
  EXPECT_EQ(back->write_list[0].segments,
            (std::vector<Segment>{{0x100, 4096, 0x1000, 52}, {0x101, 8, 0x2000, 68}}));
  ASSERT_TRUE(back->reply_chunk.has_value());
  EXPECT_EQ(back->reply_chunk->segments, (std::vector<Segment>{{0x300, 1024, 0, 96}}));
  EXPECT_EQ(back->header_length, octets.size());

  // The scapy habit: what decode() refuses is still written as asked.
  Message other;
  other.xid = 1;
  other.vers = 2;
  other.proc = static_cast<std::uint32_t>(Proc::kDone);
  EXPECT_EQ(encode(other), hex("00000001" "00000002" "00000000" "00000003" "00000000" "00000000" "00000000"));
}

struct Bad {
  const char* octets;
  std::string_view field;
  std::size_t offset;
};

TEST(UlpRpcRdma, EveryMalformedHeaderNamesItsField) {
  const Bad bad[] = {
      {"00000001000000010000", "RPC-over-RDMA fixed header", 0},                  // truncated fixed words
      {"00000001" "00000002" "00000001" "00000000", "Version", 4},              // version 2
      {"00000001" "00000001" "00000001" "00000002", "Procedure", 12},           // RDMA_MSGP
      {"00000001" "00000001" "00000001" "00000003", "Procedure", 12},           // RDMA_DONE
      {"00000001" "00000001" "00000001" "00000005", "Procedure", 12},           // unknown
      {"00000001" "00000001" "00000001" "00000000", "Read list", 16},           // no discriminator
      {"00000001" "00000001" "00000001" "00000000" "00000002", "Read list", 16},  // discriminator 2
      {"00000001" "00000001" "00000001" "00000000" "00000001" "0000", "Read segment", 20},
      {"00000001" "00000001" "00000001" "00000000" "00000000" "00000001" "ffffffff", "Write chunk", 24},
      {"00000001" "00000001" "00000001" "00000000" "00000000" "00000001" "00000002"
       "a7c24303" "00040000" "9a0ad9c70cff9000", "Write chunk", 24},            // 2 segments, 1 present
      {"00000001" "00000001" "00000001" "00000001" "00000000" "00000000", "Reply chunk", 24},
  };
  for (const Bad& b : bad) {
    auto m = decode(hex(b.octets));
    ASSERT_FALSE(m.ok()) << b.octets;
    EXPECT_EQ(m.error().field, b.field) << b.octets << ": " << m.error().to_string();
    EXPECT_EQ(m.error().offset, b.offset) << m.error().to_string();
    EXPECT_FALSE(m.error().rfc_section.empty());
  }
}

TEST(UlpRpcRdma, SegmentCapBoundsWorkNotJustOctets) {
  // 3 read segments against a cap of 2.
  std::string h = "00000001" "00000001" "00000001" "00000000";
  for (int i = 0; i < 3; ++i) h += "00000001" "00000000" "00000001" "00000010" "0000000000000000";
  h += "00000000" "00000000" "00000000";
  EXPECT_TRUE(decode(hex(h)).ok());
  auto capped = decode(hex(h), Limits{2});
  ASSERT_FALSE(capped.ok());
  EXPECT_EQ(capped.error().field, "Read list");
}

// The MPA private data of the same capture (frames 27 and 29), after RFC
// 6581's 4 octets of IRD/ORD: the client offers remote invalidation, the
// server does not; both send and receive 4096-octet inline messages.
TEST(UlpRpcRdma, PrivateDataKnownAnswers) {
  auto client = read_private_data(hex("f6ab0e1801010303"));
  ASSERT_TRUE(client.has_value());
  EXPECT_TRUE(client->remote_invalidation);
  EXPECT_EQ(client->max_send, 4096u);
  EXPECT_EQ(client->max_receive, 4096u);
  auto server = read_private_data(hex("f6ab0e1801000303"));
  ASSERT_TRUE(server.has_value());
  EXPECT_FALSE(server->remote_invalidation);
  EXPECT_FALSE(read_private_data(hex("f6ab0e18010003")).has_value());    // short
  EXPECT_FALSE(read_private_data(hex("f6ab0e1802000303")).has_value());  // version 2
  EXPECT_FALSE(read_private_data(hex("8000000000000000")).has_value());  // iSER's
}

}  // namespace
}  // namespace rdmaconf::ulp::rpcrdma
