// Captures of real Linux traffic (captures/real/, see its README): siw
// (soft-iWARP) with rping, perftest and librdmacm, raw MPA Requests answered
// by siw, SMC-Rv2 over soft-RoCE, SMC-Dv2 over loopback-ism, SMC Declines and
// fallbacks. For each file:
// the message counts per RDMAP opcode and per CLC type that `analyze` and
// `decode` report equal the counts read by hand from the octets (and agreed
// by tshark's own dissectors), and the violations are exactly the real
// deviations (docs/interop.md), pinned by rule, frame and count.
#include <nlohmann/json.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analyzer.hpp"
#include "run_command.hpp"

namespace rdmaconf::analysis::testing {
namespace {

using rdmaconf::testing::run_command;

struct Expected {
  std::string file;
  std::uint64_t frames, mpa_connections, clc_connections, fpdus;
  std::map<std::string, std::uint64_t> messages;   // analyze: complete messages per RDMAP opcode / CLC type
  std::map<std::string, std::uint64_t> segments;   // decode --json: units per type (an FPDU each)
  std::vector<std::pair<std::string, std::uint64_t>> violations;  // (rule id, frame), in order
};

// RDMAP opcode names as RFC 5040 §4.3 gives them (rdmap/opcodes.hpp).
const std::vector<Expected>& expected() {
  static const std::vector<Expected> k = {
      // 3 rping iterations: Send, Read Request, Read Response, Send, Send, Write, Send; no CRC.
      {"siw-rping-mpav2.pcap", 35, 1, 0, 21,
       {{"RDMA Write", 3}, {"RDMA Read Request", 3}, {"RDMA Read Response", 3}, {"Send", 12}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 3}, {"RDMA Read Request", 3},
        {"RDMA Read Response", 3}, {"Send", 12}},
       {}},
      // The same with CRC: all 21 CRC32c values check.
      {"siw-rping-mpav2-crc.pcap", 34, 1, 0, 21,
       {{"RDMA Write", 3}, {"RDMA Read Request", 3}, {"RDMA Read Response", 3}, {"Send", 12}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 3}, {"RDMA Read Request", 3},
        {"RDMA Read Response", 3}, {"Send", 12}},
       {}},
      // Peer-to-peer: a zero-length RDMA Write as RTR first (RFC 6581 §9.2).
      {"siw-rping-mpav2-p2p.pcap", 38, 1, 0, 22,
       {{"RDMA Write", 4}, {"RDMA Read Request", 3}, {"RDMA Read Response", 3}, {"Send", 12}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 4}, {"RDMA Read Request", 3},
        {"RDMA Read Response", 3}, {"Send", 12}},
       {}},
      {"siw-rping-mpav1.pcap", 11, 1, 0, 1, {{"Send", 1}}, {{"MPA Request", 1}, {"MPA Reply", 1}, {"Send", 1}}, {}},
      {"siw-rdma-server-client.pcap", 12, 1, 0, 2, {{"Send", 2}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"Send", 2}}, {}},
      // A Request with M set, rejected by siw (R set in the Reply): no FPDU.
      {"siw-mpa-reject-markers.pcap", 11, 1, 0, 0, {}, {{"MPA Request", 1}, {"MPA Reply (reject)", 1}}, {}},
      // The raw test client's key "MPA ID Bad Frame" (RFC 5044 §7.1.1); siw closes.
      {"siw-mpa-bad-key.pcap", 9, 1, 0, 0, {}, {}, {{"rfc5044-7.1.1-key-reply", 4}}},
      // ib_read_bw: 50 Read Requests, each answered by 3 Read Response
      // segments; 32 Sends. siw's 2-octet Sends carry PAD 00 40 (RFC 5044 §4.1).
      {"siw-perftest-read-bw.pcap", 341, 2, 0, 232,
       {{"RDMA Read Request", 50}, {"RDMA Read Response", 50}, {"Send", 32}},
       {{"MPA Request", 2}, {"MPA Reply", 2}, {"RDMA Read Request", 50}, {"RDMA Read Response", 150}, {"Send", 32}},
       {{"rfc5044-4.1-pad-zero", 14}, {"rfc5044-4.1-pad-zero", 15}}},
      // SMC-Rv2 Proposals offering no v1 path: their v1 Peer ID, GID and MAC
      // are zero and unused, which is no violation.
      // decode also prints each of its 302 RoCEv2 packets: the LLC v2 and CDC
      // messages the RC Sends carry (first payload octet, read by hand; a
      // retransmitted request counts again here), RDMA Writes and ACKs.
      {"smc-r-v2.pcap", 327, 0, 2, 0, {{"Proposal", 2}, {"Accept", 2}, {"Confirm", 2}},
       {{"CLC Proposal", 2}, {"CLC Accept", 2}, {"CLC Confirm", 2}, {"CONFIRM LINK v2 request", 1},
        {"CONFIRM LINK v2 reply", 1}, {"ADD LINK v2 request", 1}, {"ADD LINK v2 reply", 1},
        {"CONFIRM RKEY v2 request", 3}, {"CONFIRM RKEY v2 reply", 2}, {"DELETE RKEY v2 request", 4},
        {"DELETE RKEY v2 reply", 4}, {"TEST LINK v2 request", 3}, {"TEST LINK v2 reply", 3}, {"CDC", 40},
        {"RC RDMA Write First", 34}, {"RC RDMA Write Middle", 68}, {"RC RDMA Write Last", 34},
        {"RC Acknowledge", 103}},
       // Each client shuts down writing: D, its FIN, then C, which keeps
       // RFC 7609 §4.8.1 (smc_fin_captures_test.cpp).
       {}},
      {"smc-client-decline-no-pnet.pcap", 30, 0, 1, 0, {{"Decline", 1}}, {{"CLC Decline", 1}}, {}},
      // SMC-Dv2 over loopback-ism (Linux 6.12, smc.ko with CONFIG_SMC_LO): two
      // connections of one kernel, the first a first contact (224-octet
      // Proposal offering SMC-Dv2 only, with two ISM GID/CHID entries: the
      // emulated device's GID and its GID extension, CHID 0xffff; 130-octet
      // Accept and Confirm with the first-contact extension), the second in
      // the same link group (78 octets each). The data moves through
      // loopback-ism's memory, not the wire. Max Conns / Max Links are
      // SMC-R's; SMC-D's zeros there are no violation.
      {"smcd-loopback-ism.pcap", 25, 0, 2, 0, {{"Proposal", 2}, {"Accept", 2}, {"Confirm", 2}},
       {{"CLC Proposal", 2}, {"CLC Accept", 2}, {"CLC Confirm", 2}}, {}},
      // The server's SYN-ACK lacks the SMC option: no CLC message at all.
      // ... and frames 36-39 are a TEST LINK v2 exchange of the link group
      // left from smc-r-v2, with their two RC ACKs.
      {"smc-fallback-tcp-server.pcap", 39, 0, 0, 0, {},
       {{"TEST LINK v2 request", 1}, {"TEST LINK v2 reply", 1}, {"RC Acknowledge", 2}}, {}},
      // NFSv3 over RPC-over-RDMA (Linux client and server on siw): reads
      // come back as RDMA Writes into write chunks, replies into reply
      // chunks, WRITE data is pulled by RDMA Read (ulp_captures_test.cpp has
      // what the ULP said). The segments agree with tshark's iwarp_rdma.opcode.
      {"ulp-nfsv3-rdma.pcap", 1043, 1, 0, 664,
       {{"RDMA Write", 32}, {"RDMA Read Request", 2}, {"RDMA Read Response", 2}, {"Send", 81},
        {"Send with Invalidate", 5}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 300}, {"RDMA Read Request", 2},
        {"RDMA Read Response", 276}, {"Send", 81}, {"Send with Invalidate", 5}},
       {}},
      // iSER (LIO target, open-iscsi initiator on siw), the first 620 frames:
      // the cut falls inside the second RDMA Read Response, so no Read
      // Response is complete. Frame 606 holds only the 16-octet header of a
      // 1448-octet Read Response FPDU (ULPDU_Length 0x05a2 and the tagged DDP
      // header, checked by hand); its payload and CRC follow in frames 609
      // and 610 (RFC 5044 §5.1: docs/interop.md).
      {"ulp-iser-head.pcap", 620, 1, 0, 422,
       {{"RDMA Write", 59}, {"RDMA Read Request", 2}, {"Send", 61}, {"Send with Invalidate", 53}},
       {{"MPA Request", 1}, {"MPA Reply", 1}, {"RDMA Write", 278}, {"RDMA Read Request", 2},
        {"RDMA Read Response", 18}, {"Send", 71}, {"Send with Invalidate", 53}},
       {{"rfc5044-5.1-no-splitting-small", 606}}},
  };
  return k;
}

std::string path_of(const std::string& file) { return std::string(RDMACONF_REAL_CAPTURES) + "/" + file; }

const char* const kOpcodeNames[16] = {"RDMA Write", "RDMA Read Request", "RDMA Read Response", "Send",
                                      "Send with Invalidate", "Send with Solicited Event",
                                      "Send with Solicited Event and Invalidate", "Terminate", "Immediate Data",
                                      "Immediate Data with Solicited Event", "Atomic Request", "Atomic Response"};
const char* const kClcNames[5] = {nullptr, "Proposal", "Accept", "Confirm", "Decline"};

class RealCapture : public ::testing::TestWithParam<Expected> {};

TEST_P(RealCapture, AnalyzeCountsAndViolations) {
  const Expected& e = GetParam();
  std::string error;
  const auto r = analyze_file(path_of(e.file), AnalysisOptions{}, nullptr, error);
  ASSERT_TRUE(r.has_value()) << error;
  const AnalysisSummary& s = r->summary;
  EXPECT_EQ(s.frames, e.frames);
  EXPECT_EQ(s.mpa_connections, e.mpa_connections);
  EXPECT_EQ(s.clc_connections, e.clc_connections);
  EXPECT_EQ(s.mpa_fpdus, e.fpdus);
  EXPECT_TRUE(r->clean_end);
  std::map<std::string, std::uint64_t> messages;
  for (std::size_t op = 0; op < 16; ++op)
    if (s.rdmap_messages[op]) messages[op < 12 ? kOpcodeNames[op] : "reserved"] += s.rdmap_messages[op];
  for (std::size_t t = 1; t < 5; ++t)
    if (s.clc_types[t]) messages[kClcNames[t]] = s.clc_types[t];
  EXPECT_EQ(messages, e.messages);
  std::vector<std::pair<std::string, std::uint64_t>> seen;
  for (const ViolationRecord& v : r->violations) seen.emplace_back(std::string(v.rule->id), v.frame);
  EXPECT_EQ(seen, e.violations);
  EXPECT_EQ(s.violations, e.violations.size());
}

TEST_P(RealCapture, DecodeCountsPerType) {
  const Expected& e = GetParam();
  int status = 0;
  const std::string json = run_command(std::string(RDMACONF_CLI) + " decode " + path_of(e.file) + " --json -", &status);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  std::map<std::string, std::uint64_t> seen;
  for (const auto& m : nlohmann::json::parse(json)) seen[m.at("type").get<std::string>()]++;
  EXPECT_EQ(seen, e.segments) << json.substr(0, 2000);
}

INSTANTIATE_TEST_SUITE_P(Linux, RealCapture, ::testing::ValuesIn(expected()),
                         [](const ::testing::TestParamInfo<Expected>& i) {
                           std::string n = i.param.file.substr(0, i.param.file.find('.'));
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

// SMC-R past the handshake (smc-r-v2.pcap; captures/real/README.md): every
// RoCEv2 packet decodes, the RC retransmissions the server's rxe sent (the
// same PSN again: two Write + CDC sequences, frames 30-31 and 36-38, 188-189
// and 194-196, and the CONFIRM RKEY request of frame 163) are told from new
// messages, and the counts of new messages equal those read by hand: 22 LLC
// v2 messages, 38 CDC messages, 32 RDMA Writes (2 connections x 32 KiB x 2
// directions in 4 KiB Writes).
TEST(RealCaptureMessages, SmcrLinkLayerCounts) {
  std::string error;
  const auto r = analyze_file(path_of("smc-r-v2.pcap"), AnalysisOptions{}, nullptr, error);
  ASSERT_TRUE(r.has_value()) << error;
  const AnalysisSummary& s = r->summary;
  EXPECT_EQ(s.roce_links, 1u);
  EXPECT_EQ(s.roce_packets, 302u);
  EXPECT_EQ(s.roce_retransmissions, 11u);
  EXPECT_EQ(s.roce_undecoded, 0u);
  EXPECT_EQ(s.roce_psn_gaps, 0u);  // every request PSN follows its predecessor or repeats it
  EXPECT_EQ(s.cdc_messages, 38u);
  EXPECT_EQ(s.rdma_writes, 32u);
  EXPECT_EQ(s.roce_opcodes[0x04], 63u);  // RC Send Only: 23 LLC + 40 CDC frames
  EXPECT_EQ(s.roce_opcodes[0x11], 103u);
  const std::map<std::string, std::uint64_t> llc = {
      {"CONFIRM LINK v2 request", 1}, {"CONFIRM LINK v2 reply", 1}, {"ADD LINK v2 request", 1},
      {"ADD LINK v2 reply", 1},       {"CONFIRM RKEY v2 request", 2}, {"CONFIRM RKEY v2 reply", 2},
      {"DELETE RKEY v2 request", 4},  {"DELETE RKEY v2 reply", 4},  {"TEST LINK v2 request", 3},
      {"TEST LINK v2 reply", 3}};
  EXPECT_EQ(s.llc_messages, llc);
  // The link lifecycle, read from the octets (tshark -x): CONFIRM LINK
  // 10/12 brings link 1 up; ADD LINK v2 (14) offers link 2 (QP 0x12) with
  // one RToken (reference rkey 0x312 -> 0x5f9), the reply (16) rejects it
  // (Z); DELETE RKEY v2 147 (client, rkey 0x355) and 148 (server, 0x312)
  // are answered by 153 and 151; CONFIRM RKEY v2 162 (server, 0x312) and
  // 170 (client, 0x355) announce them again, answered by 166 and 172; 306
  // and 308 delete them again (312, 309); three TEST LINK pairs. Rkeys
  // announced: 0x355 and 0x312 from CLC, 0x5f9 for link 2, the two CONFIRM
  // RKEYs (the second CLC exchange names rkeys already announced); deleted:
  // two per DELETE RKEY round (0x5f9 went with its rejected link).
  EXPECT_EQ(s.links_confirmed, 1u);
  EXPECT_EQ(s.links_added, 0u);
  EXPECT_EQ(s.links_rejected, 1u);
  EXPECT_EQ(s.links_deleted, 0u);
  EXPECT_EQ(s.rkeys_announced, 5u);
  EXPECT_EQ(s.rkeys_confirmed, 2u);
  EXPECT_EQ(s.rkeys_deleted, 4u);
  EXPECT_EQ(s.llc_pairs, 11u);
  EXPECT_EQ(s.test_link_pairs, 3u);
  // Each client's FIN follows its PeerDoneWriting (frames 140/141,
  // 298/299; RFC 7609 §4.8.1, smc_fin_captures_test.cpp).
  EXPECT_EQ(s.violations, 0u);
  EXPECT_EQ(s.capture_reports, 0u);  // no UDP frame is left as "not TCP"
}

// The link-group rules on captures crafted from the real one: one octet of
// a message changed, everything else as Linux sent it. Classic pcap: 24
// octets of file header, 16 per record; the LLC or CDC message of an RC Send
// starts 54 octets into the frame (Ethernet 14, IPv4 20, UDP 8, BTH 12). The
// ICRC is not verified, so it need not be recomputed.
struct OctetEdit {
  std::uint64_t frame;
  std::size_t message_octet;  // from the start of the LLC or CDC message, or of the RETH
  std::uint8_t value;
};
std::vector<std::pair<std::string, std::uint64_t>> violations_with(const std::string& file,
                                                                   const std::vector<OctetEdit>& edits) {
  std::ifstream in(path_of(file), std::ios::binary);
  std::string octets((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string name;
  for (const OctetEdit& e : edits) {
    std::size_t at = 24;
    for (std::uint64_t n = 1; n < e.frame; ++n)
      at += 16 + (static_cast<std::uint8_t>(octets[at + 8]) | static_cast<std::uint8_t>(octets[at + 9]) << 8);
    octets[at + 16 + 54 + e.message_octet] = static_cast<char>(e.value);
    name += std::to_string(e.frame) + "-" + std::to_string(e.message_octet) + "-";
  }
  const std::string crafted = ::testing::TempDir() + "crafted-" + name + file;
  std::ofstream(crafted, std::ios::binary) << octets;
  std::string error;
  const auto r = analyze_file(crafted, AnalysisOptions{}, nullptr, error);
  std::vector<std::pair<std::string, std::uint64_t>> seen;
  if (!r) return {{"error: " + error, 0}};
  for (const ViolationRecord& v : r->violations) seen.emplace_back(std::string(v.rule->id), v.frame);
  return seen;
}
std::vector<std::pair<std::string, std::uint64_t>> violations_with(const std::string& file, std::uint64_t frame,
                                                                   std::size_t message_octet, std::uint8_t value) {
  return violations_with(file, {{frame, message_octet, value}});
}

TEST(RealCaptureMessages, SmcrLlcReplyWithoutRequest) {
  // Frame 316, the first TEST LINK v2 request, turned into a reply (flags
  // 0x80): it answers nothing, and neither does the client's reply (318).
  using V = std::vector<std::pair<std::string, std::uint64_t>>;
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 316, 3, 0x80),
            (V{{"rfc7609-3.3-reply-answers-request", 316}, {"rfc7609-3.3-reply-answers-request", 318}}));
  // The same in smc-fallback-tcp-server.pcap (frame 36), which starts in the
  // middle of the link: the request may lie before the capture, so nothing is said.
  EXPECT_EQ(violations_with("smc-fallback-tcp-server.pcap", 36, 3, 0x80), V{});
}

TEST(RealCaptureMessages, SmcrCdcConsumerAheadOfProducer) {
  // Frame 29, the server's first CDC (alert token 1, the client's token from
  // its Confirm): consumer cursor 0x1000 -> 0x2000, beyond the 4096 octets
  // the client announced in frame 22. Its retransmission (38) is not judged again.
  using V = std::vector<std::pair<std::string, std::uint64_t>>;
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 29, 22, 0x20), (V{{"rfc7609-a.4-consumer-not-ahead", 29}}));
  // The client's CDC of frame 22 with a consumer cursor of 0x100 before the
  // server announced any producer cursor: nothing to compare with yet.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 22, 22, 0x01), V{});
}

// The CDC and RDMA Write rules on the real capture changed in one or two
// octets (frames and values read with captures/real/README.md's layout: CLC
// announced 64 KiB RMBEs, RMB rkeys 0x312 (server) and 0x355 (client); each
// side writes 4 KiB at a time from RMBE offset 0, then sends a CDC message
// whose producer cursor is where the Write ended).
using V = std::vector<std::pair<std::string, std::uint64_t>>;

TEST(RealCaptureMessages, SmcrCdcCursorBeyondTheRmbe) {
  // Frame 22, the client's first CDC: consumer cursor 0 -> 0x10000, one past
  // the end of its own 64 KiB RMBE (the server has announced no producer
  // cursor yet, so nothing else is compared).
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 22, 21, 0x01), (V{{"rfc7609-a.4-cursor-within-rmbe", 22}}));
}

TEST(RealCaptureMessages, SmcrCdcSequenceNumbers) {
  // Frame 46, the client's second CDC on the first connection: 2 -> 5; its
  // next one (60, number 3) then does not follow either; 74 (4) does again.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 46, 3, 0x05),
            (V{{"rfc7609-a.4-sequence-number", 46}, {"rfc7609-a.4-sequence-number", 60}}));
}

TEST(RealCaptureMessages, SmcrWriteOutsideTheRmb) {
  // Frame 42, the client's second Write First: virtual address 0x...c6031000
  // -> 0x...c6041000, 64 KiB past the server's RMBE; the CDC behind it (46)
  // then announces data the RMBE never received.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 42, 5, 0x04),
            (V{{"rfc7609-4.4.1-write-inside-rmbe", 42}, {"rfc7609-a.4-producer-tracks-writes", 46}}));
}

TEST(RealCaptureMessages, SmcrProducerCursorTracksWrites) {
  // Frame 46: producer cursor 0x2000 -> 0x3000 after Writes that end at
  // 0x2000; the next Write (56) then starts at 0x2000, not at 0x3000.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 46, 14, 0x30),
            (V{{"rfc7609-a.4-producer-tracks-writes", 46}, {"rfc7609-a.4-producer-tracks-writes", 56}}));
}

TEST(RealCaptureMessages, SmcrUrgentFlagsInconsistent) {
  // Frame 22: urgent data present (U) without urgent data pending (P).
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 22, 24, 0x20), (V{{"rfc7609-a.4-urgent-present-pending", 22}}));
  // Both: consistent.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 22, 24, 0x60), V{});
}

TEST(RealCaptureMessages, SmcrCloseSequence) {
  // Frame 116, the client's CDC of seqno 7, says done writing (D): its Write
  // of frame 126 and the producer cursor of 130 then break it.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 116, 25, 0x80),
            (V{{"rfc7609-a.4-no-writes-after-done", 126}, {"rfc7609-a.4-no-writes-after-done", 130}}));
  // Frame 140 says C (PeerConnectionClosed) instead of D: the client's CDC
  // of frame 145 comes after it.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 140, 25, 0x40), (V{{"rfc7609-a.4-nothing-after-closed", 145}}));
}

// The link lifecycle rules on the real capture changed in one or two octets.
TEST(RealCaptureMessages, SmcrTestLinkEcho) {
  // Frame 318, the client's TEST LINK reply to 316: User Data octet 0 -> 1.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 318, 4, 0x01), (V{{"rfc7609-a.3.8-test-link-echo", 318}}));
  // The request's User Data changed instead: the reply no longer echoes it.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 316, 19, 0x07), (V{{"rfc7609-a.3.8-test-link-echo", 318}}));
}

TEST(RealCaptureMessages, SmcrAddLinkReplyLinkNumber) {
  // Frame 16, the client's ADD LINK v2 reply, made accepting (flags 0x80,
  // Z clear): it echoes link 2 as offered, which is right...
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 16, 3, 0x80), V{});
  // ... but naming link 3 (octet 31) is not.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", {{16, 3, 0x80}, {16, 31, 0x03}}),
            (V{{"rfc7609-3.5.1.6.1-add-link-link-number", 16}}));
  // A rejecting reply carries only its reason: its link number is not judged.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 16, 31, 0x03), V{});
}

TEST(RealCaptureMessages, SmcrConfirmLinkRoceInfo) {
  // Frame 10, the server's CONFIRM LINK: QP 0x11 -> 0x12 (octet 28), where
  // its Accept (frame 6) named QP 0x11. Reported once: the link stays the
  // one CLC named, so the client's reply still answers the request.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 10, 28, 0x12), (V{{"rfc7609-3.5.1.5-confirm-link-roce-info", 10}}));
  // Frame 12, the client's reply: GID ::ffff:10.77.0.2 -> ::ffff:10.77.0.3
  // (octet 25), its Confirm (frame 8) named .2.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 12, 25, 0x03), (V{{"rfc7609-3.5.1.5-confirm-link-roce-info", 12}}));
}

TEST(RealCaptureMessages, SmcrDataBeforeConfirmLinkCompleted) {
  // Frame 12, the client's CONFIRM LINK reply, made a request (flags 0x03):
  // link 1 is never confirmed, so the client's first Write (18) and the
  // server's (25) flow on a link still confirming (once per side).
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 12, 3, 0x03),
            (V{{"rfc7609-3.5.1.5-data-on-confirmed-link", 18}, {"rfc7609-3.5.1.5-data-on-confirmed-link", 25}}));
}

TEST(RealCaptureMessages, SmcrDataAfterDeleteLink) {
  // Frames 147 (client, DELETE RKEY v2 request, Count 1) and 153 (its reply
  // from the server) made DELETE LINK v2 (type 0x24; body octet 0, the
  // Count, reads as link number 1): link 1 is deleted, and the second
  // connection's first Writes (client 175, server 183) flow on it.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", {{147, 0, 0x24}, {153, 0, 0x24}}),
            (V{{"rfc7609-3.5.1.5-data-on-confirmed-link", 175}, {"rfc7609-3.5.1.5-data-on-confirmed-link", 183}}));
}

TEST(RealCaptureMessages, SmcrWriteThroughAnnouncedRkey) {
  // Frame 175, the client's first Write of the second connection: rkey
  // 0x312 -> 0x313, which the server never announced (reported once).
  EXPECT_EQ(violations_with("smc-r-v2.pcap", 175, 11, 0x13),
            (V{{"rfc7609-3.5.5.2-write-through-announced-rkey", 175}}));
  // The server's CONFIRM RKEY (162) and its Accept (168, CLC octet 44)
  // announce its RMB as 0x313 instead of 0x312, which DELETE RKEY 148
  // deleted: the client's Writes through 0x312 (175 on) use a deleted rkey.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", {{162, 8, 0x13}, {168, 56, 0x13}}),
            (V{{"rfc7609-3.5.5.2-write-through-announced-rkey", 175}}));
}

// A capture without the listed frames.
std::string without_frames(const std::string& file, const std::set<std::uint64_t>& drop) {
  std::ifstream in(path_of(file), std::ios::binary);
  std::string octets((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string out = octets.substr(0, 24);
  std::size_t at = 24;
  for (std::uint64_t n = 1; at + 16 <= octets.size(); ++n) {
    const std::size_t len = static_cast<std::uint8_t>(octets[at + 8]) | static_cast<std::uint8_t>(octets[at + 9]) << 8;
    if (!drop.count(n)) out += octets.substr(at, 16 + len);
    at += 16 + len;
  }
  std::string name;
  for (std::uint64_t n : drop) name += std::to_string(n) + "-";
  const std::string crafted = ::testing::TempDir() + "without-" + name + file;
  std::ofstream(crafted, std::ios::binary) << out;
  return crafted;
}

TEST(RealCaptureMessages, SmcrConsumerNotAheadAcrossPsnGap) {
  // Without the client's CDC of frame 46 (producer cursor 0x2000) the
  // server's CDC of frame 53 says it consumed up to 0x2000 while the last
  // client producer cursor seen is 0x1000. The server's ACK of frame 48
  // acknowledges the missing PSN: a gap, so the client's cursors start
  // afresh and nothing is judged (frame numbers after 46 shift down by one).
  std::string error;
  const auto r = analyze_file(without_frames("smc-r-v2.pcap", {46}), AnalysisOptions{}, nullptr, error);
  ASSERT_TRUE(r.has_value()) << error;
  EXPECT_EQ(r->summary.roce_psn_gaps, 1u);
  EXPECT_EQ(r->summary.violations, 0u);
}

TEST(RealCaptureMessages, SmcrLinkGroupFoundByTheGids) {
  // The client's Confirm (frame 8) names GID ::ffff:10.77.0.9 instead of
  // 10.77.0.2 (CLC octet 31; TCP header 32 octets): the first connection
  // now belongs to a link between 10.77.0.1 and 10.77.0.9, which the capture
  // does not hold, so its CDC messages here are not judged against it, and
  // frame 46's sequence number 5 (see SmcrCdcSequenceNumbers) goes unseen.
  // The second connection (its own CLC exchange) is still judged.
  EXPECT_EQ(violations_with("smc-r-v2.pcap", {{8, 43, 0x09}, {46, 3, 0x05}}), V{});
  EXPECT_EQ(violations_with("smc-r-v2.pcap", {{8, 43, 0x09}, {204, 3, 0x05}}),
            (V{{"rfc7609-a.4-sequence-number", 204}, {"rfc7609-a.4-sequence-number", 218}}));
}

// decode names both peers' own UDP ports and the fields of each message.
TEST(RealCaptureMessages, SmcrDecodeLines) {
  int status = 0;
  const std::string text = run_command(std::string(RDMACONF_CLI) + " decode " + path_of("smc-r-v2.pcap"), &status);
  ASSERT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(text.find("frame 10  10.77.0.1:49441 -> 10.77.0.2:4791  CONFIRM LINK v2 request (60 octets) opcode=0x4 "
                      "dest_qp=0x11 psn=9841368"),
            std::string::npos)
      << text.substr(0, 3000);
  EXPECT_NE(text.find("frame 14  10.77.0.1:49441 -> 10.77.0.2:4791  ADD LINK v2 request"), std::string::npos);
  EXPECT_NE(text.find("add_link.qpn=0x12 add_link.link_num=2 add_link.mtu=3"), std::string::npos);
  EXPECT_NE(text.find("frame 22  10.77.0.2:49441 -> 10.77.0.1:4791  CDC (60 octets)"), std::string::npos);
  EXPECT_NE(text.find("cdc.seqno=1 cdc.token=0x1 cdc.prod_wrap=0 cdc.prod_cursor=4096"), std::string::npos);
  EXPECT_NE(text.find("frame 18  10.77.0.2:49441 -> 10.77.0.1:4791  RC RDMA Write First (1056 octets) opcode=0x6 "
                      "dest_qp=0x11 psn=14240494 reth.va=0xff39bb55c6030000 reth.rkey=0x312 reth.dma_length=4096"),
            std::string::npos);
  EXPECT_NE(text.find("frame 163  10.77.0.1:49441 -> 10.77.0.2:4791  CONFIRM RKEY v2 request (60 octets) opcode=0x4 "
                      "dest_qp=0x11 psn=9841413 retransmission=1"),
            std::string::npos);
  // The client's close: D (done writing) at frame 140, D and C at 145.
  EXPECT_NE(text.find("frame 145  10.77.0.2:49441 -> 10.77.0.1:4791  CDC"), std::string::npos);
  const std::size_t f145 = text.find("frame 145 ");
  EXPECT_NE(text.find("cdc.done_writing=1 cdc.conn_closed=1", f145), std::string::npos);
}

// The deviations carry what a vendor engineer needs: the octets and the rule.
TEST(RealCaptureMessages, SiwPadOctetsAreShown) {
  std::string error;
  const auto r = analyze_file(path_of("siw-perftest-read-bw.pcap"), AnalysisOptions{}, nullptr, error);
  ASSERT_TRUE(r.has_value()) << error;
  ASSERT_EQ(r->violations.size(), 2u);
  EXPECT_NE(r->violations[0].text.find("PAD 00:40 after a 20-octet ULPDU"), std::string::npos)
      << r->violations[0].text;
  EXPECT_EQ(r->violations[0].rule->level, Level::kMust);
}

TEST(RealCaptureMessages, AnalyzeExitCodeFollowsTheMustViolations) {
  int status = 0;
  run_command(std::string(RDMACONF_CLI) + " analyze -q " + path_of("smc-r-v2.pcap"), &status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
  run_command(std::string(RDMACONF_CLI) + " analyze -q " + path_of("siw-perftest-read-bw.pcap"), &status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
  const std::string json =
      run_command(std::string(RDMACONF_CLI) + " analyze -q --json - " + path_of("siw-perftest-read-bw.pcap"), &status);
  const auto analysis = nlohmann::json::parse(json);
  std::size_t pad = 0;
  for (const auto& v : analysis["violations"]) pad += v["rule"] == "rfc5044-4.1-pad-zero";
  EXPECT_EQ(pad, 2u) << json;
}

// A file cut inside a packet record: everything before the cut is reported,
// and the exit code is 2, as tshark's (docs/capture.md).
TEST(RealCaptureMessages, TruncatedFileIsReportedAndExitsTwo) {
  std::ifstream in(path_of("siw-perftest-read-bw.pcap"), std::ios::binary);
  std::string octets((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = ::testing::TempDir() + "real-truncated.pcap";
  std::ofstream(cut, std::ios::binary) << octets.substr(0, 3000);
  int status = 0;
  const std::string text = run_command(std::string(RDMACONF_CLI) + " analyze " + cut + " 2>&1", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2) << text;
  EXPECT_NE(text.find("did not end cleanly"), std::string::npos) << text;
  EXPECT_NE(text.find("frame 14 "), std::string::npos) << "violations before the cut are still reported:\n" << text;
  const std::string json = run_command(std::string(RDMACONF_CLI) + " analyze -q --json - " + cut + " 2>/dev/null", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_EQ(nlohmann::json::parse(json)["summary"]["clean_end"], false) << json;
  const std::string decoded = run_command(std::string(RDMACONF_CLI) + " decode " + cut + " 2>&1", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(decoded.find("MPA Request"), std::string::npos) << decoded;
  // The whole file is clean.
  run_command(std::string(RDMACONF_CLI) + " decode " + path_of("siw-perftest-read-bw.pcap") + " >/dev/null", &status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

// --annotate rewrites a file's frames: with -i it is refused at once, before
// any interface is opened (no privilege needed to see the message).
TEST(RealCaptureMessages, AnnotateWithLiveInputIsAClearError) {
  int status = 0;
  const std::string text =
      run_command(std::string(RDMACONF_CLI) + " analyze -i lo --duration 1 --annotate /dev/null 2>&1", &status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(text.find("--annotate needs a capture file"), std::string::npos) << text;
  EXPECT_EQ(text.find("capturing on"), std::string::npos) << text;
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
