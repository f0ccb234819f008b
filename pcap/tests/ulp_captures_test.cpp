// The upper-layer protocols in real captures (captures/real/ulp-*): which
// ULP each RDMAP connection carries and how it was recognised, the messages
// per RPC-over-RDMA procedure and per iSCSI opcode, and the chunks and STags
// advertised, as `analyze` reports them. Every count was read by hand from
// the octets and agrees with tshark's rpcordma fields (NFS) and with a walk
// of the iSER headers in the Send payloads (iSER: Wireshark 4.0 has no iSER
// over iWARP).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/ulp_observer.hpp"
#include "run_command.hpp"

namespace rdmaconf::analysis::testing {
namespace {

using rdmaconf::testing::run_command;

std::string path_of(const std::string& file) { return std::string(RDMACONF_REAL_CAPTURES) + "/" + file; }

AnalysisResult analyzed(const std::string& file, const AnalysisOptions& options = {}) {
  std::string error;
  auto r = analyze_file(path_of(file), options, nullptr, error);
  EXPECT_TRUE(r.has_value()) << error;
  return r ? std::move(*r) : AnalysisResult{};
}

// tshark: 86 RPC-over-RDMA headers, RDMA_MSG 79, RDMA_NOMSG 7; a read list
// in 2, a write list in 6, a reply chunk in 14. Linux's client puts RFC
// 8797's private data in the MPA Request: recognised from it.
TEST(UlpCaptures, NfsOverRpcRdma) {
  const AnalysisResult r = analyzed("ulp-nfsv3-rdma.pcap");
  ASSERT_EQ(r.summary.ulps.size(), 1u);
  const UlpTotals& t = r.summary.ulps.at("rpc-over-rdma");
  EXPECT_EQ(t.connections, 1u);
  EXPECT_EQ(t.by_source, (std::map<std::string, std::uint64_t>{{"MPA private data", 1}}));
  EXPECT_EQ(t.messages, (std::map<std::string, std::uint64_t>{{"RDMA_MSG", 79}, {"RDMA_NOMSG", 7}}));
  EXPECT_EQ(t.read_segments, 2u);
  EXPECT_EQ(t.write_chunks, 6u);
  EXPECT_EQ(t.reply_chunks, 14u);
  EXPECT_EQ(t.undecoded, 0u);
  EXPECT_EQ(r.summary.violations, 0u);
  // The 43 calls by procedure (the Payload stream's RPC Call header, RFC
  // 5531 §9): NFS and NFSACL version 3 on the same connection (RFC 8267
  // §5.2); no Long Call. 43 calls and 43 replies make the 86 headers.
  EXPECT_EQ(t.operations, (std::map<std::string, std::uint64_t>{
                              {"NFSACLv3 GETACL", 5}, {"NFSACLv3 NULL", 1}, {"NFSv3 ACCESS", 5},
                              {"NFSv3 COMMIT", 1},    {"NFSv3 CREATE", 2},  {"NFSv3 FSINFO", 2},
                              {"NFSv3 FSSTAT", 1},    {"NFSv3 GETATTR", 6}, {"NFSv3 LOOKUP", 5},
                              {"NFSv3 MKDIR", 1},     {"NFSv3 NULL", 1},    {"NFSv3 PATHCONF", 1},
                              {"NFSv3 READ", 3},      {"NFSv3 READDIRPLUS", 2}, {"NFSv3 REMOVE", 2},
                              {"NFSv3 RENAME", 1},    {"NFSv3 RMDIR", 1},   {"NFSv3 WRITE", 3}}));
  // Every transfer tied to a chunk of a call awaiting its reply: the two
  // WRITE calls' read chunks (frames 70, 71) pulled by one Read Request each
  // (frames 73, 75: 131072 and 262144 octets, the segments' lengths); 32
  // RDMA Write messages (300 segments) into the 3 READ calls' Write chunks
  // and the 7 Reply chunks (frame 55: 136 octets into the first segment of
  // frame 54's Reply chunk, which frame 56 returns as 136 octets; the two
  // READDIRPLUS replies take three Writes each, frames 975, 976 and 978
  // writing 124 + 512 + 8 octets, the 644 that frame 979 returns); the 5
  // Sends with Invalidate name a read (frames 389, 492) or Write chunk
  // (frames 792, 938, 947) handle of their call. All 43 replies matched.
  const UlpTransfers& x = t.transfers;
  EXPECT_EQ(x.reads, 2u);
  EXPECT_EQ(x.reads_tied, 2u);
  EXPECT_EQ(x.read_octets, 131072u + 262144u);
  EXPECT_EQ(x.writes, 32u);
  EXPECT_EQ(x.writes_tied, 32u);
  EXPECT_EQ(x.writes_to_write_chunks + x.writes_to_reply_chunks, 32u);
  EXPECT_EQ(x.writes_to_reply_chunks, 11u);
  EXPECT_EQ(x.write_octets, 395363u);  // tshark: the 300 Write segments' DDP payloads
  EXPECT_EQ(x.invalidations, 5u);
  EXPECT_EQ(x.invalidations_tied, 5u);
  EXPECT_EQ(x.replies_matched, 43u);
}

// No private data of its own (Linux iSER sends 4 octets of its CM header):
// recognised from the first Send, the Login Request. Frames 1-620: Login,
// 57 SCSI Commands (53 Reads with RSV, 2 Writes with WSV, 2 without data
// buffers) and 55 SCSI Responses.
TEST(UlpCaptures, IscsiOverIser) {
  const AnalysisResult r = analyzed("ulp-iser-head.pcap");
  ASSERT_EQ(r.summary.ulps.size(), 1u);
  const UlpTotals& t = r.summary.ulps.at("iser");
  EXPECT_EQ(t.by_source, (std::map<std::string, std::uint64_t>{{"first Send", 1}}));
  EXPECT_EQ(t.messages, (std::map<std::string, std::uint64_t>{
                            {"Login Request", 1}, {"Login Response", 1}, {"SCSI Command", 57}, {"SCSI Response", 55}}));
  EXPECT_EQ(t.read_stags, 53u);
  EXPECT_EQ(t.write_stags, 2u);
  EXPECT_EQ(t.undecoded, 0u);
  // None of the ULP's rules; siw's one FPDU split in frame 606
  // (real_captures_test.cpp) is the only violation.
  EXPECT_EQ(r.summary.violations_per_rule,
            (std::map<std::string, std::uint64_t>{{"rfc5044-5.1-no-splitting-small", 1}}));
}

// Frames 1-620 of the iSER capture: the 57 SCSI Commands by CDB operation
// code, and every RDMA transfer of the target tied to the STag its command
// advertised. Both WRITE(10)s (frames 571, 580) move 524288 octets, 8192 of
// them as immediate data; the target reads the other 516096 with one Read
// Request each from the Write STag at its Base Offset (frame 581: STag
// 0x68c88c02, TO 0xff2c1f054f7f3000, as frame 571 advertised). 59 RDMA
// Write messages (361272 octets, as tshark counts them) go into Read STags
// (frame 115's READ(10) of 4096 octets: frames 116-119 write 1428 + 1428 +
// 1240 octets from its Base Offset). 53 SCSI Responses come by Send with
// Invalidate, each naming its command's Read STag (frame 120 invalidates
// 0x82f34711); the 2 TEST UNIT READYs advertised no STag and are answered by
// plain Sends; the WRITE(10)s' Responses come after frame 620. The whole
// capture (not in the project, 5.4 MB) gives 108 commands, 4 Read Requests,
// 198 Writes and 105 Sends with Invalidate, all tied, and no violation.
TEST(UlpCaptures, IscsiOverIserTransfers) {
  const AnalysisResult r = analyzed("ulp-iser-head.pcap");
  const UlpTotals& t = r.summary.ulps.at("iser");
  EXPECT_EQ(t.operations, (std::map<std::string, std::uint64_t>{
                              {"INQUIRY", 6}, {"MAINTENANCE IN", 1}, {"MODE SENSE(6)", 6}, {"READ(10)", 37},
                              {"REPORT LUNS", 1}, {"SERVICE ACTION IN(16)", 2}, {"TEST UNIT READY", 2},
                              {"WRITE(10)", 2}}));
  const UlpTransfers& x = t.transfers;
  EXPECT_EQ(x.reads, 2u);
  EXPECT_EQ(x.reads_tied, 2u);
  EXPECT_EQ(x.read_octets, 2u * 516096u);
  EXPECT_EQ(x.writes, 59u);
  EXPECT_EQ(x.writes_tied, 59u);
  EXPECT_EQ(x.write_octets, 361272u);
  EXPECT_EQ(x.invalidations, 53u);
  EXPECT_EQ(x.invalidations_tied, 53u);
  EXPECT_EQ(x.replies_matched, 55u);
}

// The rping and perftest captures carry no ULP either recogniser takes.
TEST(UlpCaptures, NoUlpWhereThereIsNone) {
  for (const char* f : {"siw-rping-mpav2.pcap", "siw-rping-mpav2-p2p.pcap", "siw-perftest-read-bw.pcap",
                        "siw-rdma-server-client.pcap"})
    EXPECT_TRUE(analyzed(f).summary.ulps.empty()) << f;
}

// `--ulp` (Decode As): the user's word wins, by port or for every connection;
// a wrong choice shows as Sends that do not decode.
TEST(UlpCaptures, TheUsersChoiceWins) {
  AnalysisOptions by_port;
  by_port.ulps.push_back(*parse_ulp_choice("rpc-over-rdma:3260"));
  const AnalysisResult wrong = analyzed("ulp-iser-head.pcap", by_port);
  const UlpTotals& t = wrong.summary.ulps.at("rpc-over-rdma");
  EXPECT_EQ(t.by_source, (std::map<std::string, std::uint64_t>{{"user", 1}}));
  EXPECT_EQ(t.undecoded, 1u + 1u + 57u + 55u);
  AnalysisOptions other_port;
  other_port.ulps.push_back(*parse_ulp_choice("rpc-over-rdma:2049"));
  EXPECT_TRUE(analyzed("ulp-iser-head.pcap", other_port).summary.ulps.count("iser"));
  EXPECT_FALSE(parse_ulp_choice("nfs:0"));
  EXPECT_FALSE(parse_ulp_choice("iser:65536"));
  EXPECT_FALSE(parse_ulp_choice("smb"));
}

// Recognition looks at the first 16 Sends only: a connection whose first
// Sends are something else stays unknown and costs nothing more.
TEST(UlpCaptures, RecognitionGivesUpAfterTheFirstSends) {
  std::vector<std::uint8_t> login(28 + 48, 0);
  login[0] = 0x10;  // iSER control-type PDU
  login[28] = 0x43;  // Login Request, immediate
  const std::vector<std::uint8_t> other(64, 0xab);
  UlpObserver early;
  EXPECT_NE(early.on_send(login), nullptr);
  EXPECT_EQ(early.stats().ulp, Ulp::kIser);
  UlpObserver late;
  for (int i = 0; i < 16; ++i) EXPECT_EQ(late.on_send(other), nullptr);
  EXPECT_FALSE(late.wants_sends());
  EXPECT_EQ(late.on_send(login), nullptr);
  EXPECT_EQ(late.stats().ulp, Ulp::kUnknown);
  UlpObserver told;
  told.set_user(Ulp::kIser);
  for (int i = 0; i < 20; ++i) told.on_send(other);
  EXPECT_TRUE(told.wants_sends());
  EXPECT_EQ(told.stats().undecoded, 20u);
}

// decode shows the ULP's view beside each Send.
// `--ulp NAME` before the capture names one ULP (repeated for several), and
// the capture after it is read as the capture; `nfs-rdma` is RPC-over-RDMA.
TEST(UlpCaptures, UlpOptionBeforeTheCapture) {
  const std::string capture = path_of("ulp-nfsv3-rdma.pcap");
  const std::string json =
      run_command(std::string(RDMACONF_CLI) + " analyze -q --json - --ulp iser:3260 --ulp nfs-rdma " + capture + " 2>&1");
  ASSERT_EQ(json.find("--ulp: expected"), std::string::npos) << json.substr(0, 500);
  EXPECT_TRUE(nlohmann::json::parse(json)["ulps"]["rpc-over-rdma"]["recognised_by"].contains("user")) << json;
  const std::string decoded = run_command(std::string(RDMACONF_CLI) + " decode --ulp nfs-rdma " + capture + " 2>&1");
  EXPECT_NE(decoded.find("ulp=rpc-over-rdma ulp_message="), std::string::npos) << decoded.substr(0, 500);
  EXPECT_EQ(run_command(std::string(RDMACONF_CLI) + " analyze -q --ulp bogus " + path_of("ulp-nfsv3-rdma.pcap") +
                " 2>&1 >/dev/null")
                .find("--ulp: expected"),
            0u);
}

TEST(UlpCaptures, DecodeShowsTheUlpMessage) {
  const std::string out = run_command(std::string(RDMACONF_CLI) + " decode " + path_of("ulp-nfsv3-rdma.pcap"));
  EXPECT_NE(out.find("ulp=rpc-over-rdma ulp_message=\"RDMA_MSG xid=0x950ad9c7 credits=128 read 0xd408f501+"
                     "0x950ad9c70cd31000 131072 octets at position 128 call NFSv3 WRITE\""),
            std::string::npos);
  const std::string iser = run_command(std::string(RDMACONF_CLI) + " decode " + path_of("ulp-iser-head.pcap"));
  EXPECT_NE(iser.find("ulp_message=\"SCSI Command itt=0x1000000 read_stag=0xeaa07601+0xff2c1f0542823e00 INQUIRY edtl=36\""),
            std::string::npos);
  // Every RDMA transfer of the Responder names what it was tied to: frame 73's
  // Read Request the read segment of frame 70's WRITE call, frame 946's
  // Write the Write chunk of frame 945's READ call, frame 55's Write the
  // Reply chunk of frame 54's GETACL call.
  EXPECT_NE(out.find("ulp_tie=\"read segment 1 of call xid 0x950ad9c7\""), std::string::npos);
  EXPECT_NE(out.find("ulp_tie=\"Write chunk 1 segment 1 of call xid 0x9e0ad9c7\""), std::string::npos);
  EXPECT_NE(out.find("ulp_tie=\"Reply chunk segment 1 of call xid 0x8f0ad9c7\""), std::string::npos);
  // iSER: frame 116's Write into frame 115's Read STag; frame 581's Read
  // Request from frame 571's Write STag.
  EXPECT_NE(iser.find("ulp_tie=\"Read STag of itt 0x17000000\""), std::string::npos);
  EXPECT_NE(iser.find("ulp_tie=\"Write STag of itt 0x38000000\""), std::string::npos);
  // The reply that a Send with Invalidate carries names the STag it invalidates.
  EXPECT_NE(out.find("ulp_message=\"RDMA_MSG xid=0x9e0ad9c7 credits=64 write chunk 1 segment (19 octets) reply "
                     "invalidate 0xa7c24305\""),
            std::string::npos);
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
