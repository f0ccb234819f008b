// The upper-layer protocols in real captures (captures/real/ulp-*): which
// ULP each RDMAP connection carries and how it was recognised, the messages
// per RPC-over-RDMA procedure and per iSCSI opcode, and the chunks and STags
// advertised, as `analyze` reports them. Every count was read by hand from
// the octets and agrees with tshark's rpcordma fields (NFS) and with a walk
// of the iSER headers in the Send payloads (iSER: Wireshark 4.0 has no iSER
// over iWARP).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/ulp_observer.hpp"

namespace rdmaconf::analysis::testing {
namespace {

std::string path_of(const std::string& file) { return std::string(RDMACONF_REAL_CAPTURES) + "/" + file; }

AnalysisResult analyzed(const std::string& file, const AnalysisOptions& options = {}) {
  std::string error;
  auto r = analyze_file(path_of(file), options, nullptr, error);
  EXPECT_TRUE(r.has_value()) << error;
  return r ? std::move(*r) : AnalysisResult{};
}

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
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
  EXPECT_EQ(r.summary.violations, 0u);
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
TEST(UlpCaptures, DecodeShowsTheUlpMessage) {
  const std::string out = run(std::string(RDMACONF_CLI) + " decode " + path_of("ulp-nfsv3-rdma.pcap"));
  EXPECT_NE(out.find("ulp=rpc-over-rdma ulp_message=\"RDMA_MSG xid=0x950ad9c7 credits=128 read 0xd408f501+"
                     "0x950ad9c70cd31000 131072 octets at position 128\""),
            std::string::npos);
  const std::string iser = run(std::string(RDMACONF_CLI) + " decode " + path_of("ulp-iser-head.pcap"));
  EXPECT_NE(iser.find("ulp_message=\"SCSI Command itt=0x1000000 read_stag=0xeaa07601+0xff2c1f0542823e00\""),
            std::string::npos);
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
