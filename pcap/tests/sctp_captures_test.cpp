// DDP over SCTP in captures (RFC 5043; SCTP RFC 9260, its UDP encapsulation
// RFC 6951): the real capture of `rdmaconf loopback --transport sctp`
// (captures/real/usrsctp-loopback.pcapng) with its counts pinned, and
// crafted captures for what that traffic does not show: raw IPv4 and IPv6,
// bundled chunks, fragmented DATA, a bad checksum, a DDP segment before the
// Initiate, lying and never-ending fragment sequences.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "rdmap/headers.hpp"
#include "sctp/messages.hpp"
#include "sctp/packet.hpp"
#include "sctp_builders.hpp"

namespace rdmaconf::analysis::testing {
namespace {

std::uint64_t opcode(const AnalysisSummary& s, rdmap::Opcode op) { return s.rdmap_messages[static_cast<int>(op)]; }

// The loopback run, captured with dumpcap on lo (UDP, usrsctp's
// encapsulation on ephemeral ports 33861 and 43784, not 9899). Counted by
// hand from the octets, tshark agreeing (`tshark -d udp.port==43784,sctp
// -o sctp.checksum:CRC-32c`, checksum status good on all 33):
//   33 frames, 33 SCTP packets in 1 association, 41 chunks: INIT, INIT ACK,
//   COOKIE ECHO, COOKIE ACK, 15 SACK and 22 DATA (none retransmitted, none
//   fragmented: B and E set on each, U set on each); both INIT and INIT ACK
//   carry the Adaptation Layer Indication 0x00000001 (DDP).
//   PPID 17 (Session Control): frame 5 Initiate, 7 Accept, 32 and 33
//   Terminate; PPID 16: 18 DDP segments, 14 from the initiator, 4 back.
//   RDMAP messages (segments with L set, per opcode, from each segment's
//   DDP and RDMAP control octets): RDMA Write 2 (one of three segments, one
//   of one), Read Request 1, Read Response 1, Send 2, Send with Invalidate 1,
//   Send with Solicited Event 1, Send with SE and Invalidate 1, Terminate 1,
//   Atomic Request 2, Atomic Response 2, Immediate Data 1, Immediate Data
//   with SE 1: 16.
TEST(SctpCaptures, RealLoopbackOverUdpCountsPinned) {
  for (std::size_t jobs : {std::size_t{1}, std::size_t{2}}) {
    AnalysisOptions o;
    o.jobs = jobs;
    const AnalysisResult r = analyze(std::string(RDMACONF_REAL_CAPTURES) + "/usrsctp-loopback.pcapng", o);
    const AnalysisSummary& s = r.summary;
    EXPECT_EQ(s.frames, 33u);
    EXPECT_EQ(s.streams, 0u);
    EXPECT_EQ(s.capture_reports, 0u);  // every UDP datagram was taken as SCTP
    EXPECT_EQ(s.sctp_associations, 1u);
    EXPECT_EQ(s.sctp_ddp_associations, 1u);
    EXPECT_EQ(s.sctp_over_udp, 1u);
    EXPECT_EQ(s.sctp_packets, 33u);
    EXPECT_EQ(s.sctp_chunks, 41u);
    EXPECT_EQ(s.sctp_data_chunks, 22u);
    EXPECT_EQ(s.sctp_bad_checksums, 0u);
    EXPECT_EQ(s.sctp_malformed, 0u);
    EXPECT_EQ(s.sctp_retransmissions, 0u);
    EXPECT_EQ(s.sctp_fragmented_messages, 0u);
    EXPECT_EQ(s.ddp_sctp_session_control, 4u);
    EXPECT_EQ(s.ddp_sctp_segments, 18u);
    using rdmap::Opcode;
    EXPECT_EQ(opcode(s, Opcode::kRdmaWrite), 2u);
    EXPECT_EQ(opcode(s, Opcode::kRdmaReadRequest), 1u);
    EXPECT_EQ(opcode(s, Opcode::kRdmaReadResponse), 1u);
    EXPECT_EQ(opcode(s, Opcode::kSend), 2u);
    EXPECT_EQ(opcode(s, Opcode::kSendWithInvalidate), 1u);
    EXPECT_EQ(opcode(s, Opcode::kSendWithSe), 1u);
    EXPECT_EQ(opcode(s, Opcode::kSendWithSeAndInvalidate), 1u);
    EXPECT_EQ(opcode(s, Opcode::kTerminate), 1u);
    EXPECT_EQ(opcode(s, Opcode::kAtomicRequest), 2u);
    EXPECT_EQ(opcode(s, Opcode::kAtomicResponse), 2u);
    EXPECT_EQ(opcode(s, Opcode::kImmediateData), 1u);
    EXPECT_EQ(opcode(s, Opcode::kImmediateDataWithSe), 1u);
    std::uint64_t all = 0;
    for (std::uint64_t n : s.rdmap_messages) all += n;
    EXPECT_EQ(all, 16u);
    EXPECT_EQ(s.violations, 0u) << dump(r);
  }
}

// Linux 6.12's own SCTP on both sides (captures/real/README.md): the tester
// (10.80.0.2, SCTP port 48697) runs rdmap-atomic-fetchadd against `rdmaconf
// responder --sctp-stack kernel` (10.80.0.1, port 9899), on IP protocol 132,
// no UDP. Counted by hand from the octets, tshark agreeing on every CRC32c
// (`-o sctp.checksum:CRC-32c`: status good on all 14):
//   14 frames, 14 SCTP packets in 1 association, 17 chunks: INIT (frame 1:
//   16 outbound, 16 inbound streams, Adaptation Layer Indication 0x00000001),
//   INIT ACK (frame 2: 16 and 16, the same indication), COOKIE ECHO, COOKIE
//   ACK, 6 SACK (frames 6, 8, 10-13; three of them bundled before a DATA),
//   6 DATA, and the tester's ABORT (frame 14) when its case ends.
//   DATA, every one on stream 0 with U, B and E set (flags 0x07): PPID 17
//   (Session Control) frame 5 `00 00 00 01` (DDP-SSN 0, Initiate, no private
//   data), frame 7 `00 00 00 02` + 226 octets (Accept with the test ULP's
//   advertisement); PPID 16 (DDP Segment) frames 9 and 11 (DDP-SSN 1 and 2,
//   DDP control 0x41, RDMAP control 0x4a: Atomic Request, QN 1, MSN 1 and 2),
//   frames 10 and 12 (DDP-SSN 1 and 2, RDMAP control 0x4b: Atomic Response,
//   QN 3, original values 0 and 5).
TEST(SctpCaptures, RealKernelSctpCountsPinned) {
  for (std::size_t jobs : {std::size_t{1}, std::size_t{2}}) {
    AnalysisOptions o;
    o.jobs = jobs;
    const AnalysisResult r = analyze(std::string(RDMACONF_REAL_CAPTURES) + "/kernel-sctp-atomic-fetchadd.pcap", o);
    const AnalysisSummary& s = r.summary;
    EXPECT_EQ(s.frames, 14u);
    EXPECT_EQ(s.streams, 0u);
    EXPECT_EQ(s.capture_reports, 0u);
    EXPECT_EQ(s.sctp_associations, 1u);
    EXPECT_EQ(s.sctp_ddp_associations, 1u);
    EXPECT_EQ(s.sctp_over_udp, 0u);
    EXPECT_EQ(s.sctp_packets, 14u);
    EXPECT_EQ(s.sctp_chunks, 17u);
    EXPECT_EQ(s.sctp_data_chunks, 6u);
    EXPECT_EQ(s.sctp_bad_checksums, 0u);
    EXPECT_EQ(s.sctp_malformed, 0u);
    EXPECT_EQ(s.sctp_retransmissions, 0u);
    EXPECT_EQ(s.sctp_fragmented_messages, 0u);
    EXPECT_EQ(s.ddp_sctp_session_control, 2u);
    EXPECT_EQ(s.ddp_sctp_segments, 4u);
    EXPECT_EQ(opcode(s, rdmap::Opcode::kAtomicRequest), 2u);
    EXPECT_EQ(opcode(s, rdmap::Opcode::kAtomicResponse), 2u);
    std::uint64_t all = 0;
    for (std::uint64_t n : s.rdmap_messages) all += n;
    EXPECT_EQ(all, 4u);
    EXPECT_EQ(s.violations, 0u) << dump(r);
  }
}

// ---- crafted captures ----

using namespace capture::testing::sctp_build;

// The session of the real capture, shortened: Initiate, Accept, two Sends
// one way, one back.
void accepted_session(SctpCapture& c) {
  c.accepted();
  c.packet(0, data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))));
  c.packet(0, data(2, kDdp, segment_chunk(2, send_msg(2, filler(30)))));
  c.packet(1, data(1, kDdp, segment_chunk(1, send_msg(1, filler(10)))));
}

TEST(SctpCaptures, RawIpv4AndIpv6AndUdpOnAnyPortAreTheSameAnalysis) {
  for (auto [v6, udp] : {std::pair{false, false}, std::pair{true, false}, std::pair{false, true}, std::pair{true, true}}) {
    // Over UDP on the SCTP ports themselves: any port is read as SCTP.
    const std::uint16_t udp_a = udp ? SctpCapture::kInitiatorPort : 0, udp_b = udp ? SctpCapture::kResponderPort : 0;
    SctpCapture c(::testing::TempDir() + "sctp-plain.pcapng", {.v6 = v6, .udp_initiator = udp_a, .udp_responder = udp_b});
    accepted_session(c);
    const AnalysisResult r = analyze(c.finish());
    const AnalysisSummary& s = r.summary;
    SCOPED_TRACE(std::string(v6 ? "IPv6" : "IPv4") + (udp ? " over UDP" : ""));
    EXPECT_EQ(s.sctp_associations, 1u);
    EXPECT_EQ(s.sctp_over_udp, udp ? 1u : 0u);
    EXPECT_EQ(s.sctp_packets, 7u);
    EXPECT_EQ(s.ddp_sctp_segments, 3u);
    EXPECT_EQ(s.ddp_sctp_session_control, 2u);
    EXPECT_EQ(opcode(s, rdmap::Opcode::kSend), 3u);
    EXPECT_EQ(s.capture_reports, 0u);
    EXPECT_EQ(s.violations, 0u) << dump(r);
  }
}

// Several chunks in one packet (RFC 9260 §6.10): the Initiate bundled with
// the first segment would break §6.6 only if the segment could overtake it;
// here it follows in DDP-SSN order, and both are read from one packet.
TEST(SctpCaptures, BundledChunksAreEachRead) {
  SctpCapture c(::testing::TempDir() + "sctp-bundled.pcapng");
  c.accepted();
  c.packet(0, cat({data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))),
                   data(2, kDdp, segment_chunk(2, send_msg(2, filler(20)))),
                   data(3, kDdp, segment_chunk(3, send_msg(3, filler(20))))}));
  const AnalysisResult r = analyze(c.finish());
  EXPECT_EQ(r.summary.sctp_chunks, 7u);
  EXPECT_EQ(r.summary.ddp_sctp_segments, 3u);
  EXPECT_EQ(opcode(r.summary, rdmap::Opcode::kSend), 3u);
  EXPECT_EQ(r.summary.violations, 0u) << dump(r);
}

// A DDP segment SCTP fragmented into three DATA chunks (B, none, E) put back
// together; the DDP rules see the whole segment (its MSN follows).
TEST(SctpCaptures, FragmentedDataIsReassembled) {
  SctpCapture c(::testing::TempDir() + "sctp-fragments.pcapng");
  c.accepted();
  const Octets whole = segment_chunk(1, send_msg(1, filler(3000)));
  const Octets p1(whole.begin(), whole.begin() + 1000), p2(whole.begin() + 1000, whole.begin() + 2000),
      p3(whole.begin() + 2000, whole.end());
  c.packet(0, data(1, kDdp, p1, {.b = true, .e = false}));
  c.packet(0, data(2, kDdp, p2, {.b = false, .e = false}));
  c.packet(0, data(3, kDdp, p3, {.b = false, .e = true}));
  c.packet(0, data(4, kDdp, segment_chunk(2, send_msg(2, filler(8)))));
  const AnalysisResult r = analyze(c.finish());
  EXPECT_EQ(r.summary.sctp_fragmented_messages, 1u);
  EXPECT_EQ(r.summary.sctp_fragment_findings, 0u);
  EXPECT_EQ(r.summary.ddp_sctp_segments, 2u);
  EXPECT_EQ(opcode(r.summary, rdmap::Opcode::kSend), 2u);
  EXPECT_EQ(r.summary.violations, 0u) << dump(r);
}

// A fragment sequence that lies (a middle fragment with no beginning, a TSN
// out of sequence) or never ends (more than the reassembly limit) is a
// finding; nothing of it reaches DDP and memory stays bounded.
TEST(SctpCaptures, LyingAndEndlessFragmentsAreFindings) {
  SctpCapture c(::testing::TempDir() + "sctp-bad-fragments.pcapng");
  c.accepted();
  c.packet(0, data(1, kDdp, filler(100), {.b = false, .e = false}));  // no B before it
  c.packet(0, data(2, kDdp, filler(100), {.b = true, .e = false}));
  c.packet(0, data(4, kDdp, filler(100), {.b = false, .e = true}));  // TSN 3 skipped
  // Never ends: B, then 1000-octet middles past the 64 KiB limit.
  c.packet(0, data(5, kDdp, filler(1000), {.b = true, .e = false}));
  for (std::uint32_t tsn = 6; tsn < 6 + 80; ++tsn) c.packet(0, data(tsn, kDdp, filler(1000), {.b = false, .e = false}));
  const AnalysisResult r = analyze(c.finish());
  // 1 without B, 1 out of sequence, 1 over the limit, then every further
  // middle fragment has no beginning any more: 80 - 65 of them.
  EXPECT_GE(r.summary.sctp_fragment_findings, 3u);
  EXPECT_EQ(r.summary.sctp_fragmented_messages, 0u);
  EXPECT_EQ(r.summary.ddp_sctp_segments, 0u);
}

// The I-DATA chunk's octets (RFC 8260 §2.1), by hand: the PPID/FSN field is
// read by the B bit; short chunks and empty user data are typed errors.
TEST(SctpCaptures, IDataChunkDecodesPpidOrFsnByTheBBit) {
  const auto view = [](const Octets& chunk) {
    sctp::ChunkView v;
    v.type = chunk[0];
    v.flags = chunk[1];
    v.length = static_cast<std::uint16_t>(chunk[2] << 8 | chunk[3]);
    v.octets = chunk;
    return v;
  };
  const Octets first = {0x40, 0x06,              // I-DATA, U and B
                        0x00, 0x15,              // Length 21
                        0x00, 0x00, 0x00, 0x07,  // TSN 7
                        0x00, 0x02, 0x00, 0x00,  // stream 2, reserved
                        0x00, 0x00, 0x00, 0x09,  // MID 9
                        0x00, 0x00, 0x00, 0x10,  // B: PPID 16
                        0xAB};
  auto d = sctp::decode_idata_chunk(view(first));
  ASSERT_TRUE(d) << d.error().to_string();
  EXPECT_EQ(d->tsn, 7u);
  EXPECT_EQ(d->stream, 2u);
  EXPECT_EQ(d->mid, 9u);
  EXPECT_EQ(d->ppid, std::optional<std::uint32_t>(sctp::kPpidDdpSegment));
  EXPECT_EQ(d->fsn, 0u);
  EXPECT_TRUE(d->unordered && d->beginning && !d->ending);
  EXPECT_EQ(d->user_data.size(), 1u);
  Octets later = first;
  later[1] = 0x05;  // U and E: the field is the FSN
  d = sctp::decode_idata_chunk(view(later));
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->ppid.has_value());
  EXPECT_EQ(d->fsn, 16u);
  // Encoded the same way.
  Octets encoded;
  sctp::encode_idata_chunk({.tsn = 7, .stream = 2, .mid = 9, .ppid = 16, .fsn = 0, .unordered = true,
                            .beginning = true, .ending = false, .user_data = Octets{0xAB}, .length = {}},
                           encoded);
  EXPECT_EQ(Octets(encoded.begin(), encoded.begin() + 21), first);
  EXPECT_EQ(encoded.size(), 24u);  // padded to 4 octets
  const auto empty = sctp::decode_idata_chunk(view(Octets(first.begin(), first.begin() + 20)));
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().field, "Chunk Length");
  const auto shorter = sctp::decode_idata_chunk(view(Octets(first.begin(), first.begin() + 12)));
  EXPECT_FALSE(shorter);
  Octets data_chunk = first;
  data_chunk[0] = 0x00;
  const auto not_idata = sctp::decode_idata_chunk(view(data_chunk));
  ASSERT_FALSE(not_idata);
  EXPECT_EQ(not_idata.error().field, "Chunk Type");
}

// I-DATA (RFC 8260 §2.1): two DDP segments, each in two fragments,
// interleaved on one stream, are put back together by MID in FSN order; a
// third goes whole. The DDP rules see three Sends in MSN order.
TEST(SctpCaptures, IDataMessagesAreReassembledByMidAndFsn) {
  SctpCapture c(::testing::TempDir() + "sctp-idata.pcapng");
  c.accepted();
  const Octets one = segment_chunk(1, send_msg(1, filler(1500))), two = segment_chunk(2, send_msg(2, filler(1500, 9)));
  const auto half = [](const Octets& m, bool second) {
    return second ? Octets(m.begin() + 700, m.end()) : Octets(m.begin(), m.begin() + 700);
  };
  c.packet(0, idata(1, 1, kDdp, 0, half(one, false), {.b = true, .e = false}));
  c.packet(0, idata(2, 2, kDdp, 0, half(two, false), {.b = true, .e = false}));
  c.packet(0, idata(3, 1, 0, 1, half(one, true), {.b = false, .e = true}));
  c.packet(0, idata(4, 2, 0, 1, half(two, true), {.b = false, .e = true}));
  c.packet(0, idata(5, 3, kDdp, 0, segment_chunk(3, send_msg(3, filler(8)))));
  const AnalysisResult r = analyze(c.finish());
  EXPECT_EQ(r.summary.sctp_data_chunks, 7u);
  EXPECT_EQ(r.summary.sctp_fragmented_messages, 2u);
  EXPECT_EQ(r.summary.sctp_fragment_findings, 0u);
  EXPECT_EQ(r.summary.ddp_sctp_segments, 3u);
  EXPECT_EQ(opcode(r.summary, rdmap::Opcode::kSend), 3u);
  EXPECT_EQ(r.summary.violations, 0u) << dump(r);
}

// I-DATA fragments that lie (an FSN skipped, a middle fragment of a message
// never begun) are findings and reach nothing; a whole I-DATA message
// without U breaks RFC 5043 §10 once, at its last fragment.
TEST(SctpCaptures, IDataFragmentsOutOfSequenceAreFindings) {
  SctpCapture c(::testing::TempDir() + "sctp-idata-bad.pcapng");
  c.accepted();
  c.packet(0, idata(1, 1, kDdp, 0, filler(100), {.b = true, .e = false}));
  c.packet(0, idata(2, 1, 0, 2, filler(100), {.b = false, .e = true}));  // FSN 1 skipped
  c.packet(0, idata(3, 5, 0, 1, filler(100), {.b = false, .e = true}));  // MID 5 never began
  const Octets one = segment_chunk(1, send_msg(1, filler(40)));
  c.packet(0, idata(4, 6, kDdp, 0, Octets(one.begin(), one.begin() + 20), {.b = true, .e = false, .u = false}));
  c.packet(0, idata(5, 6, 0, 1, Octets(one.begin() + 20, one.end()), {.b = false, .e = true, .u = false}));
  const AnalysisResult r = analyze(c.finish());
  EXPECT_EQ(r.summary.sctp_fragment_findings, 2u);
  EXPECT_EQ(r.summary.sctp_fragmented_messages, 1u);
  EXPECT_EQ(r.summary.ddp_sctp_segments, 1u);
  ASSERT_EQ(r.violations.size(), 1u) << dump(r);
  EXPECT_EQ(r.violations[0].rule->id, "rfc5043-10-unordered");
  EXPECT_EQ(r.violations[0].frame, 9u);
}

// RFC 9260 §6.8: a checksum that does not check is reported, as analyze
// reports MPA's CRC, and the chunks are still read (checksum offload).
TEST(SctpCaptures, BadChecksumIsReported) {
  SctpCapture c(::testing::TempDir() + "sctp-bad-checksum.pcapng");
  accepted_session(c);
  c.packet(0, data(3, kDdp, segment_chunk(3, send_msg(3, filler(5)))), 0x12345678);
  const AnalysisResult r = analyze(c.finish());
  EXPECT_EQ(r.summary.sctp_bad_checksums, 1u);
  EXPECT_EQ(r.summary.ddp_sctp_segments, 4u);
}

// Associations are bounded like TCP connections: past 1024 at once the one
// seen least recently is retired (its counts kept) and a capture report says so.
TEST(SctpCaptures, AssociationsAreBounded) {
  SctpCapture c(::testing::TempDir() + "sctp-many.pcapng");
  for (std::uint16_t port = 1000; port < 1000 + 1030; ++port) c.packet(0, init(false), std::nullopt, port);
  const AnalysisResult r = analyze(c.finish());
  EXPECT_EQ(r.summary.sctp_associations, 1030u);
  EXPECT_EQ(r.summary.sctp_packets, 1030u);
  EXPECT_EQ(r.summary.report_kinds.count("connection limit hit"), 1u) << r.summary.capture_reports;
  EXPECT_EQ(r.summary.capture_reports, 6u);
}

// RFC 5043 §6.6 (judged by the reference's session machine): the active
// side's first chunk is a DDP segment, not its Initiate.
TEST(SctpCaptures, SegmentBeforeInitiateIsAViolation) {
  SctpCapture c(::testing::TempDir() + "sctp-segment-first.pcapng");
  c.start();
  c.packet(0, data(0, kDdp, segment_chunk(0, send_msg(1, filler(20)))));
  c.packet(0, data(1, kControl, control(1, sctp::FunctionCode::kInitiate)));
  const AnalysisResult r = analyze(c.finish());
  ASSERT_EQ(r.violations.size(), 1u) << dump(r);
  EXPECT_EQ(r.violations[0].rule->id, "rfc5043-6.6-no-segment-before-initiate");
  EXPECT_EQ(r.violations[0].frame, 3u);
  EXPECT_EQ(r.summary.ddp_sctp_segments, 1u);
  EXPECT_EQ(opcode(r.summary, rdmap::Opcode::kSend), 0u);  // nothing of a broken session reaches DDP
}

// An association ABORTed and a new one on the same addresses and ports (a
// kernel reuses an ephemeral port): the new INIT's Initiate Tag is not the
// old association's, so it is a second association whose DDP Stream Session
// starts again at DDP-SSN 0 (RFC 5043 §6), not a repeated DDP-SSN. A
// retransmitted INIT repeats its tag (RFC 9260 §5.1) and stays in its own.
TEST(SctpCaptures, ANewInitOnTheSamePortsIsANewAssociation) {
  SctpCapture c(::testing::TempDir() + "sctp-port-reused.pcapng");
  c.accepted();
  c.packet(0, data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))));
  c.packet(0, {sctp::chunk_type::kAbort, 0x00, 0x00, 0x04});  // ABORT, no causes (RFC 9260 §3.3.7)
  c.packet(0, init(false, sctp::kAdaptationIndicationDdp, 9));
  c.packet(0, init(false, sctp::kAdaptationIndicationDdp, 9));  // retransmitted: the same association
  c.packet(1, init(true, sctp::kAdaptationIndicationDdp, 11));
  c.packet(0, data(0, kControl, control(0, sctp::FunctionCode::kInitiate)));
  c.packet(1, data(0, kControl, control(0, sctp::FunctionCode::kAccept)));
  c.packet(0, data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))));
  const AnalysisResult r = analyze(c.finish());
  EXPECT_TRUE(r.violations.empty()) << dump(r);
  EXPECT_EQ(r.summary.sctp_associations, 2u) << dump(r);
  EXPECT_EQ(r.summary.sctp_ddp_associations, 2u);
  EXPECT_EQ(r.summary.ddp_sctp_session_control, 4u);
  EXPECT_EQ(opcode(r.summary, rdmap::Opcode::kSend), 2u);
}

// RFC 5043 §6, §10, §5.1: a DDP-SSN gap, a chunk without U, and DDP on an
// association whose INIT announced no DDP.
TEST(SctpCaptures, AdaptationLayerRules) {
  SctpCapture c(::testing::TempDir() + "sctp-rules.pcapng");
  c.packet(0, init(false, std::nullopt));
  c.packet(1, init(true));
  c.packet(0, data(0, kControl, control(0, sctp::FunctionCode::kInitiate)));
  c.packet(1, data(0, kControl, control(0, sctp::FunctionCode::kAccept), {.u = false}));
  c.packet(0, data(1, kDdp, segment_chunk(1, send_msg(1, filler(20)))));
  c.packet(0, data(2, kDdp, segment_chunk(1, send_msg(2, filler(20)))));  // DDP-SSN 1 again
  const AnalysisResult r = analyze(c.finish());
  std::vector<std::pair<std::string, std::uint64_t>> seen;
  for (const ViolationRecord& v : r.violations) seen.emplace_back(std::string(v.rule->id), v.frame);
  const std::vector<std::pair<std::string, std::uint64_t>> want = {
      {"rfc5043-5.1-indication-in-init", 3},
      {"rfc5043-10-unordered", 4},
      {"rfc5043-6-no-ssn-gaps", 6},
  };
  EXPECT_EQ(seen, want) << dump(r);
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
