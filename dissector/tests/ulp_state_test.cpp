// The plugin's ULP tracker (dissector/ulp_state.hpp) on crafted RPC-over-RDMA
// sessions: the RPC message rebuilt from a Reply chunk, from an NFSv3 write
// chunk, from Read chunks, and not handed on where it cannot be rebuilt. The
// real captures are dissector.ulp's (tshark); these pin each path on its own,
// including the ones the captures do not take. On the real NFS/RDMA and
// iSER captures, the tracker shows the analyzer's ULP tie on every transfer
// and Send with Invalidate the analyzer tied, and on no other, and links
// each Reply (SCSI Response) with the Call (SCSI Command) the analyzer
// matched it with, and no other pair.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "ulp/iser.hpp"
#include "ulp/onc_rpc.hpp"
#include "ulp/rpcrdma.hpp"
#include "ulp_state.hpp"

namespace rdmaconf::dissector {
namespace {

using analysis::testing::Bytes;
using Region = analysis::UlpTie::Region;
using analysis::testing::put_be;
using analysis::testing::Session;

// A sink that hands the tracker each FPDU with what the observer said of it
// (SegmentInfo: its ULP tie among the rest), as the plugin's connection.cpp
// does, and keeps what the tracker said per frame.
struct Sink : analysis::ObserverSink {
  UlpTracker tracker;
  std::vector<std::pair<analysis::FrameNo, UlpFindings>> said;
  void on_message(const analysis::Message& m) override {
    if (m.kind != analysis::MessageKind::kFpdu || !m.segment || !m.segment->has_header) return;
    said.emplace_back(m.frame, tracker.on_segment(m, *m.segment));
  }
  void on_violation(const analysis::Violation&) override {}
  const UlpFindings& at(analysis::FrameNo f) const {
    for (const auto& [frame, findings] : said)
      if (frame == f) return findings;
    static const UlpFindings none;
    return none;
  }
};

// One connection: the MPA exchange, then each FPDU in its own frame in the
// order the test writes them (frame numbers from 3).
struct Connection {
  Session session;
  std::vector<std::pair<int, std::pair<std::size_t, std::size_t>>> order;  // side, octet range
  Connection() { session.start(); }
  analysis::FrameNo fpdu(int side, const Bytes& ulpdu) {
    const std::size_t at = session.fpdu(side, ulpdu);
    order.push_back({side, {at, session.stream[side].size()}});
    return order.size() + 2;
  }
  void run(Sink& sink, analysis::Ulp ulp = analysis::Ulp::kRpcRdma) {
    analysis::ObserverConfig config;
    config.ulp = ulp;
    analysis::ConnectionObserver obs(sink, config);
    obs.on_syn(analysis::Side::kInitiator, false);
    obs.on_syn(analysis::Side::kResponder, false);
    const std::size_t start[2] = {session.boundaries[0].empty() ? session.stream[0].size() : session.boundaries[0][0],
                                  session.boundaries[1].empty() ? session.stream[1].size() : session.boundaries[1][0]};
    obs.on_data(analysis::Side::kInitiator, 1, wire::Bytes(session.stream[0].data(), start[0]));
    obs.on_data(analysis::Side::kResponder, 2, wire::Bytes(session.stream[1].data(), start[1]));
    analysis::FrameNo frame = 3;
    for (const auto& [side, range] : order)
      obs.on_data(side ? analysis::Side::kResponder : analysis::Side::kInitiator, frame++,
                  wire::Bytes(session.stream[side].data() + range.first, range.second - range.first));
  }
};

Bytes send(std::uint32_t msn, const Bytes& payload) { return analysis::testing::send_msg(msn, payload); }
Bytes write(std::uint32_t stag, std::uint64_t to, const Bytes& payload) {
  return analysis::testing::tagged(0x0, stag, to, true, payload);
}

// RFC 8166 §4.2-§4.3: the transport header (version 1, 32 credits), through
// rpcrdma::encode.
using ulp::rpcrdma::Proc;
using ulp::rpcrdma::ReadSegment;
using ulp::rpcrdma::WriteChunk;
Bytes header(std::uint32_t xid, Proc proc, std::vector<ReadSegment> reads, std::vector<WriteChunk> writes,
             std::optional<WriteChunk> reply = std::nullopt) {
  ulp::rpcrdma::Message m;
  m.xid = xid;
  m.vers = ulp::rpcrdma::kVersion1;
  m.credits = 32;
  m.proc = static_cast<std::uint32_t>(proc);
  m.read_list = std::move(reads);
  m.write_list = std::move(writes);
  m.reply_chunk = std::move(reply);
  return ulp::rpcrdma::encode(m);
}
WriteChunk chunk(std::uint32_t handle, std::uint32_t length, std::uint64_t offset) {
  return WriteChunk{{ulp::rpcrdma::Segment{handle, length, offset, 0}}};
}
// RFC 5531 §9: a Call of program/version/procedure with AUTH_NULL.
Bytes call(std::uint32_t xid, std::uint32_t prog, std::uint32_t vers, std::uint32_t proc) {
  Bytes b;
  wire::ByteWriter w(b);
  ulp::onc_rpc::encode_call({xid, prog, vers, proc}, w);
  w.put_zeros(16);  // credential and verifier: AUTH_NULL, no body
  return b;
}
Bytes cat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

constexpr std::uint32_t kXid = 0x11223344;

// RFC 8166 §3.5.3: the Reply written into the Reply chunk, then RDMA_NOMSG
// repeating the chunk with the length written.
TEST(UlpState, ReplyRebuiltFromTheReplyChunk) {
  Connection c;
  const Bytes hdr = header(kXid, Proc::kMsg, {}, {}, chunk(0xabc, 256, 0x1000));
  const auto call_frame = c.fpdu(0, send(1, cat(hdr, call(kXid, 100003, 3, 17))));
  Bytes reply;
  for (std::uint32_t w : {kXid, 1u, 0u, 0u, 0u, 0u, 0u, 7u}) put_be(reply, w, 4);
  const auto write_frame = c.fpdu(1, write(0xabc, 0x1000, reply));
  const Bytes nomsg =
      header(kXid, Proc::kNoMsg, {}, {}, chunk(0xabc, static_cast<std::uint32_t>(reply.size()), 0x1000));
  const auto reply_frame = c.fpdu(1, send(1, nomsg));
  Sink sink;
  c.run(sink);

  const UlpFindings& w = sink.at(write_frame);
  ASSERT_NE(w.tie, nullptr);
  EXPECT_EQ(w.tie->advert->named.kind, Region::kReplyChunk);
  EXPECT_EQ(w.tie->advert->advertised_in, call_frame);
  EXPECT_EQ(w.tie->offset, 0u);
  const UlpFindings& r = sink.at(reply_frame);
  ASSERT_NE(r.send, nullptr);
  EXPECT_TRUE(r.send->rpc_here && r.send->rpc_rebuilt) << r.send->note;
  EXPECT_EQ(r.send->rpc, reply);
  EXPECT_EQ(r.send->call_frame, call_frame);
  EXPECT_EQ(sink.at(call_frame).send->reply_frame, reply_frame);
}

// RFC 8166 §3.4.6: the Responder writes inside the chunk; a Write that
// starts in it but runs past its end is not tied to it (analyze reports it,
// rfc8166 write-within-chunk), one that fits is.
TEST(UlpState, WriteRunningPastItsChunkIsNotTied) {
  Connection c;
  const Bytes hdr = header(kXid, Proc::kMsg, {}, {chunk(0xabc, 16, 0x1000)});
  c.fpdu(0, send(1, cat(hdr, call(kXid, 100003, 3, 6))));
  const auto past = c.fpdu(1, write(0xabc, 0x1008, Bytes(16, 0x5a)));   // octets 8-23 of a 16-octet chunk
  const auto inside = c.fpdu(1, write(0xabc, 0x1000, Bytes(16, 0x5a)));  // octets 0-15
  Sink sink;
  c.run(sink);
  EXPECT_EQ(sink.at(past).tie, nullptr);
  ASSERT_NE(sink.at(inside).tie, nullptr);
  EXPECT_EQ(sink.at(inside).tie->advert->named.kind, Region::kWriteChunk);
}

// Write chunk data of an NFSv3 READ Reply ends the Reply (RFC 8267 §4), its
// length word kept inline (RFC 8166 §3.4.4.1), XDR roundup restored; for
// NFSv4 the position is the COMPOUND's, so nothing is handed on.
Bytes read_reply_session(Connection& c, std::uint32_t vers, analysis::FrameNo& reply_frame, Bytes& data) {
  const Bytes hdr = header(kXid, Proc::kMsg, {}, {chunk(0xdef, 4096, 0x2000)});  // a Write list of one chunk
  c.fpdu(0, send(1, cat(hdr, call(kXid, 100003, vers, 6))));
  data = {'h', 'e', 'l', 'l', 'o', ' ', 'o', 'v', 'e', 'r', ' ', 'r', 'd', 'm', 'a', '!', '\n'};
  c.fpdu(1, write(0xdef, 0x2000, data));
  const Bytes rhdr =
      header(kXid, Proc::kMsg, {}, {chunk(0xdef, static_cast<std::uint32_t>(data.size()), 0x2000)});
  Bytes inline_reply;
  for (std::uint32_t w : {kXid, 1u, 0u, 0u, 0u, 0u, 0u, static_cast<std::uint32_t>(data.size()), 1u,
                          static_cast<std::uint32_t>(data.size())})
    put_be(inline_reply, w, 4);
  reply_frame = c.fpdu(1, send(1, cat(rhdr, inline_reply)));
  return inline_reply;
}

TEST(UlpState, Nfsv3ReadReplyGetsItsWriteChunkData) {
  Connection c;
  analysis::FrameNo reply_frame = 0;
  Bytes data;
  Bytes expected = read_reply_session(c, 3, reply_frame, data);
  Sink sink;
  c.run(sink);
  expected.insert(expected.end(), data.begin(), data.end());
  expected.resize((expected.size() + 3) / 4 * 4, 0);
  const UlpFindings& r = sink.at(reply_frame);
  ASSERT_NE(r.send, nullptr);
  EXPECT_TRUE(r.send->rpc_here && r.send->rpc_rebuilt) << r.send->note;
  EXPECT_EQ(r.send->rpc, expected);
}

TEST(UlpState, Nfsv4WriteChunkIsNotGuessed) {
  Connection c;
  analysis::FrameNo reply_frame = 0;
  Bytes data;
  read_reply_session(c, 4, reply_frame, data);
  Sink sink;
  c.run(sink);
  const UlpFindings& r = sink.at(reply_frame);
  ASSERT_NE(r.send, nullptr);
  EXPECT_FALSE(r.send->rpc_here);
  EXPECT_NE(r.send->note.find("RFC 8267"), std::string::npos) << r.send->note;
}

// RFC 8166 §3.4.5: the Responder pulls the Read chunk; the Call is whole at
// the Read Response, the chunk at its Position with its roundup.
TEST(UlpState, CallRebuiltFromItsReadChunk) {
  Connection c;
  const Bytes head = call(kXid, 100003, 3, 7);  // 40 octets: the chunk goes at Position 40
  const Bytes tail = {0, 0, 0, 9};
  // A read segment at XDR position 40.
  const Bytes hdr = header(kXid, Proc::kMsg, {ReadSegment{40, ulp::rpcrdma::Segment{0x777, 10, 0x3000, 0}}}, {});
  const auto call_frame = c.fpdu(0, send(1, cat(cat(hdr, head), tail)));
  const auto request_frame = c.fpdu(1, analysis::testing::read_request(1, 0x999, 0x5000, 10, 0x777, 0x3000));
  const Bytes chunk = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const auto response_frame = c.fpdu(0, analysis::testing::tagged(0x2, 0x999, 0x5000, true, chunk));
  Sink sink;
  c.run(sink);

  ASSERT_NE(sink.at(request_frame).tie, nullptr);
  EXPECT_EQ(sink.at(request_frame).tie->advert->advertised_in, call_frame);
  const UlpFindings& r = sink.at(response_frame);
  ASSERT_NE(r.tie, nullptr);
  EXPECT_EQ(r.tie->advert->named.kind, Region::kReadSegment);
  ASSERT_NE(r.completes, nullptr);
  Bytes expected = cat(head, chunk);
  expected.resize(expected.size() + 2, 0);  // roundup to 52
  expected = cat(expected, tail);
  EXPECT_EQ(r.completes->rpc, expected);
  EXPECT_EQ(r.completes->call_frame, call_frame);
  EXPECT_EQ(sink.at(call_frame).send->rpc_completed_in, response_frame);
  EXPECT_FALSE(sink.at(call_frame).send->rpc_here);
}

// RFC 5040 §5.2.2: a Read Response carrying more than its request asked
// for runs past the read segment: the request is tied, the response is not
// (the observer reports its size), and the Call is not rebuilt from it.
TEST(UlpState, ReadResponsePastItsRegionIsNotTied) {
  Connection c;
  const Bytes hdr = header(kXid, Proc::kMsg, {ReadSegment{40, ulp::rpcrdma::Segment{0x777, 10, 0x3000, 0}}}, {});
  c.fpdu(0, send(1, cat(hdr, call(kXid, 100003, 3, 7))));
  const auto request_frame = c.fpdu(1, analysis::testing::read_request(1, 0x999, 0x5000, 10, 0x777, 0x3000));
  const auto response_frame = c.fpdu(0, analysis::testing::tagged(0x2, 0x999, 0x5000, true, Bytes(12, 0x5a)));
  Sink sink;
  c.run(sink);
  ASSERT_NE(sink.at(request_frame).tie, nullptr);
  EXPECT_EQ(sink.at(response_frame).tie, nullptr);
  EXPECT_EQ(sink.at(response_frame).completes, nullptr);
}

// The Reply chunk's data was not captured: nothing is handed on, and the
// note says why.
TEST(UlpState, MissingChunkDataIsSaid) {
  Connection c;
  const Bytes hdr = header(kXid, Proc::kMsg, {}, {}, chunk(0xabc, 256, 0x1000));
  c.fpdu(0, send(1, cat(hdr, call(kXid, 100003, 3, 17))));
  const Bytes nomsg = header(kXid, Proc::kNoMsg, {}, {}, chunk(0xabc, 32, 0x1000));
  const auto reply_frame = c.fpdu(1, send(1, nomsg));
  Sink sink;
  c.run(sink);
  const UlpFindings& r = sink.at(reply_frame);
  ASSERT_NE(r.send, nullptr);
  EXPECT_FALSE(r.send->rpc_here);
  EXPECT_FALSE(r.send->note.empty());
}

// RFC 8166 §4.2.1, §4.5: a Reply and an RDMA_ERROR answer the Call with
// their XID, each linked with it both ways as the analyzer matched them; a
// Reply of an XID no Call made is linked with nothing, and an answered
// Call's chunks are no longer tied.
TEST(UlpState, RepliesLinkedWithTheirCalls) {
  Connection c;
  constexpr std::uint32_t kOther = 0x55667788;
  const auto call1 = c.fpdu(0, send(1, cat(header(kXid, Proc::kMsg, {}, {chunk(0xabc, 64, 0x1000)}),
                                             call(kXid, 100003, 3, 6))));
  const auto call2 = c.fpdu(0, send(2, cat(header(kOther, Proc::kMsg, {}, {}), call(kOther, 100003, 3, 1))));
  Bytes reply;
  for (std::uint32_t w : {kOther, 1u, 0u, 0u, 0u, 0u, 0u}) put_be(reply, w, 4);
  const auto reply2 = c.fpdu(1, send(1, cat(header(kOther, Proc::kMsg, {}, {}), reply)));
  ulp::rpcrdma::Message err;
  err.xid = kXid;
  err.vers = ulp::rpcrdma::kVersion1;
  err.credits = 32;
  err.proc = static_cast<std::uint32_t>(Proc::kError);
  err.err = static_cast<std::uint32_t>(ulp::rpcrdma::ErrCode::kChunk);
  const auto error1 = c.fpdu(1, send(2, ulp::rpcrdma::encode(err)));
  const auto late = c.fpdu(1, write(0xabc, 0x1000, Bytes(16, 0x5a)));  // into the answered Call's chunk
  Bytes stray;
  for (std::uint32_t w : {0x01020304u, 1u, 0u, 0u, 0u, 0u, 0u}) put_be(stray, w, 4);
  const auto stray_reply = c.fpdu(1, send(3, cat(header(0x01020304, Proc::kMsg, {}, {}), stray)));
  Sink sink;
  c.run(sink);

  ASSERT_NE(sink.at(reply2).send, nullptr);
  EXPECT_EQ(sink.at(reply2).send->call_frame, call2);
  EXPECT_EQ(sink.at(call2).send->reply_frame, reply2);
  ASSERT_NE(sink.at(error1).send, nullptr);
  EXPECT_EQ(sink.at(error1).send->call_frame, call1);
  EXPECT_EQ(sink.at(call1).send->reply_frame, error1);
  EXPECT_EQ(sink.at(late).tie, nullptr);
  ASSERT_NE(sink.at(stray_reply).send, nullptr);
  EXPECT_EQ(sink.at(stray_reply).send->call_frame, 0u);
  EXPECT_TRUE(sink.at(stray_reply).send->rpc_here) << "shown as it carries its RPC message";
}

// The analyzer's view of a real capture, connection by connection, handed
// to one tracker per connection as the plugin does; per frame, the tie the
// analyzer published and the one the tracker shows.
struct TieCompare : analysis::AnalysisListener {
  std::map<std::uint64_t, UlpTracker> trackers;
  std::uint64_t observer_ties = 0, plugin_ties = 0, invalidations = 0;
  std::map<std::uint8_t, std::uint64_t> by_opcode;  // ties the plugin shows, per RDMAP opcode
  std::vector<std::string> disagreements;
  void on_message(const analysis::ConnectionInfo& c, const analysis::Message& m) override {
    if (m.kind != analysis::MessageKind::kFpdu || !m.segment || !m.segment->has_header) return;
    const analysis::SegmentInfo& s = *m.segment;
    const UlpFindings f = trackers[c.id].on_segment(m, s);
    observer_ties += s.ulp_tie.has_value();
    plugin_ties += f.tie != nullptr;
    if (f.tie) ++by_opcode[s.rdmap.opcode];
    const std::string at = "frame " + std::to_string(m.frame) + ": ";
    if (s.ulp) {  // a Send's first segment: the region its Invalidate STag names
      invalidations += f.invalidates != nullptr;
      if (s.ulp->invalidates.has_value() != (f.invalidates != nullptr) ||
          (f.invalidates && (f.invalidates->named.region.stag != s.ulp->invalidates->region.stag ||
                             f.invalidates->named.tag != s.ulp->invalidates->tag)))
        disagreements.push_back(at + "the Send with Invalidate is tied differently");
    }
    if (s.ulp_tie.has_value() != (f.tie != nullptr)) {
      disagreements.push_back(at + (f.tie ? "the plugin shows a tie the analyzer did not make"
                                          : "the analyzer's tie (" + analysis::describe(*s.ulp_tie) +
                                                ") is not shown"));
      return;
    }
    if (!f.tie) return;
    const analysis::UlpTie& t = *s.ulp_tie;
    const Advert& a = *f.tie->advert;
    if (a.named.region.stag != t.region.stag || a.named.region.offset != t.region.offset || a.named.tag != t.tag ||
        f.tie->offset != t.offset)
      disagreements.push_back(at + "the plugin shows " + std::string(name(a.named.kind)) + " " +
                              std::to_string(a.named.region.stag) + " of tag " + std::to_string(a.named.tag) + " at " +
                              std::to_string(f.tie->offset) +
                              ", the analyzer " + analysis::describe(t) + " at " + std::to_string(t.offset));
  }
};

TieCompare compare_ties(const std::string& file, analysis::AnalysisResult& result) {
  TieCompare ties;
  std::string error;
  auto r = analysis::analyze_file(std::string(RDMACONF_REAL_CAPTURES) + "/" + file, {}, &ties, error);
  EXPECT_TRUE(r.has_value()) << error;
  if (r) result = std::move(*r);
  return ties;
}

// 276 Read Response segments bring the two WRITE calls' read chunks; every
// RDMA Write segment (300) and both Read Requests are tied (pcap/tests'
// UlpCaptures.NfsOverRpcRdma counts them by message); 5 replies are Sends
// with Invalidate naming a region of their call.
TEST(UlpState, NfsCaptureShowsTheAnalyzersTies) {
  analysis::AnalysisResult r;
  const TieCompare ties = compare_ties("ulp-nfsv3-rdma.pcap", r);
  EXPECT_TRUE(ties.disagreements.empty()) << ties.disagreements.size() << " frames, first: " << ties.disagreements[0];
  EXPECT_EQ(ties.plugin_ties, 578u);
  const analysis::UlpTransfers& x = r.summary.ulps.at("rpc-over-rdma").transfers;
  EXPECT_EQ(ties.by_opcode.at(1), x.reads_tied);
  EXPECT_EQ(ties.by_opcode, (std::map<std::uint8_t, std::uint64_t>{{0, 300}, {1, 2}, {2, 276}}));
  EXPECT_EQ(ties.invalidations, x.invalidations_tied);
  EXPECT_EQ(ties.invalidations, 5u);
}

// The target's 278 RDMA Write segments into Read STags, its 2 Read Requests
// of Write STags and their 18 Read Response segments; 53 SCSI Responses
// invalidate their command's STag.
TEST(UlpState, IserCaptureShowsTheAnalyzersTies) {
  analysis::AnalysisResult r;
  const TieCompare ties = compare_ties("ulp-iser-head.pcap", r);
  EXPECT_TRUE(ties.disagreements.empty()) << ties.disagreements.size() << " frames, first: " << ties.disagreements[0];
  const analysis::UlpTransfers& x = r.summary.ulps.at("iser").transfers;
  EXPECT_EQ(ties.by_opcode.at(1), x.reads_tied);
  EXPECT_EQ(ties.by_opcode, (std::map<std::uint8_t, std::uint64_t>{{0, 278}, {1, 2}, {2, 18}}));
  EXPECT_EQ(ties.invalidations, x.invalidations_tied);
  EXPECT_EQ(ties.invalidations, 53u);
}

// The analyzer's view of a real capture handed to one tracker per
// connection, as the plugin does, and per connection the links both make:
// the analyzer's from the calls it opens and answers (UlpMessage::opens,
// ::answers, on a Send's first segment), placed at the frame of the Send's
// last segment as the plugin shows a Send; the plugin's from the Sends it
// shows (UlpSend::call_frame, ::reply_frame).
struct LinkCompare : analysis::AnalysisListener {
  struct Connection {
    UlpTracker tracker;
    std::map<std::pair<int, std::uint32_t>, std::pair<std::uint64_t, std::uint64_t>> open;  // (side, MSN) -> numbers
    std::map<std::uint64_t, analysis::FrameNo> call_at;  // the analyzer's call number -> its Send's frame
    std::vector<std::pair<analysis::FrameNo, std::uint64_t>> answers;  // an answer's frame, its call's number
    std::map<analysis::FrameNo, const UlpSend*> sends;                 // what the plugin shows, by frame
  };
  std::map<std::uint64_t, Connection> connections;
  void on_message(const analysis::ConnectionInfo& c, const analysis::Message& m) override {
    if (m.kind != analysis::MessageKind::kFpdu || !m.segment || !m.segment->has_header) return;
    const analysis::SegmentInfo& s = *m.segment;
    Connection& k = connections[c.id];
    const UlpFindings f = k.tracker.on_segment(m, s);
    if (f.send) k.sends[m.frame] = f.send;
    if (s.ddp.tagged || s.qn != 0) return;
    const std::pair<int, std::uint32_t> send{static_cast<int>(m.side), s.msn};
    if (s.mo == 0 && s.ulp)
      k.open[send] = {s.ulp->opens ? s.ulp->opens->number : 0, s.ulp->answers ? s.ulp->answers->number : 0};
    const auto it = k.open.find(send);
    if (!s.ddp.last || it == k.open.end()) return;
    if (it->second.first) k.call_at[it->second.first] = m.frame;
    if (it->second.second) k.answers.emplace_back(m.frame, it->second.second);
    k.open.erase(it);
  }
};

using Links = std::set<std::pair<analysis::FrameNo, analysis::FrameNo>>;  // (answer, call), per connection

// The tag both Sends of a link carry: the XID (RFC 8166 §4.2.1), the ITT
// (RFC 7145 §7.3.1, §7.3.2); nullopt when the Send does not decode.
std::optional<std::uint32_t> tag_of(const UlpSend& u) {
  const wire::Bytes p(u.payload.data(), u.payload.size());
  if (u.ulp == analysis::Ulp::kRpcRdma) {
    const auto m = ulp::rpcrdma::decode(p);
    return m ? std::optional(m->xid) : std::nullopt;
  }
  const auto m = ulp::iser::decode(p);
  return m ? std::optional(m->itt) : std::nullopt;
}

// Every connection's links, the plugin's and the analyzer's, and the pairs
// whose two Sends carry different tags.
struct LinksSeen {
  std::size_t plugin = 0, analyzer = 0;
  std::vector<std::string> disagreements;
};
LinksSeen compare_links(const std::string& file, analysis::AnalysisResult& result) {
  LinkCompare links;
  std::string error;
  auto r = analysis::analyze_file(std::string(RDMACONF_REAL_CAPTURES) + "/" + file, {}, &links, error);
  EXPECT_TRUE(r.has_value()) << error;
  if (r) result = std::move(*r);
  LinksSeen seen;
  for (const auto& [id, k] : links.connections) {
    Links analyzer, plugin, back;
    for (const auto& [answer, number] : k.answers)
      if (const auto call = k.call_at.find(number); call != k.call_at.end()) analyzer.emplace(answer, call->second);
    for (const auto& [frame, u] : k.sends) {
      if (u->call_frame) plugin.emplace(frame, u->call_frame);
      if (u->reply_frame) back.emplace(u->reply_frame, frame);
    }
    const std::string at = "connection " + std::to_string(id) + ": ";
    if (plugin != analyzer) seen.disagreements.push_back(at + "the plugin links other Sends than the analyzer");
    if (back != plugin) seen.disagreements.push_back(at + "a call's Send does not link back to its answer");
    for (const auto& [answer, call] : plugin) {
      const auto a = k.sends.find(answer), c = k.sends.find(call);
      if (a == k.sends.end() || c == k.sends.end() || !tag_of(*a->second) || tag_of(*a->second) != tag_of(*c->second))
        seen.disagreements.push_back(at + "frame " + std::to_string(answer) + " is linked with frame " +
                                     std::to_string(call) + ", which carries another tag");
    }
    seen.plugin += plugin.size();
    seen.analyzer += analyzer.size();
  }
  return seen;
}

// Every RPC Call has its Reply in the NFS capture: the plugin links the
// replies the analyzer matched (RFC 8166 §4.2.1), each to its Call.
TEST(UlpState, NfsCaptureLinksRepliesAsTheAnalyzer) {
  analysis::AnalysisResult r;
  const LinksSeen links = compare_links("ulp-nfsv3-rdma.pcap", r);
  EXPECT_TRUE(links.disagreements.empty()) << links.disagreements.size() << ", first: " << links.disagreements[0];
  EXPECT_EQ(links.plugin, links.analyzer);
  EXPECT_EQ(links.plugin, r.summary.ulps.at("rpc-over-rdma").transfers.replies_matched);
  EXPECT_GT(links.plugin, 0u);
}

// The iSER capture's SCSI Responses end their tasks (RFC 7145 §7.3.2):
// linked to their Commands as the analyzer matched them.
TEST(UlpState, IserCaptureLinksResponsesAsTheAnalyzer) {
  analysis::AnalysisResult r;
  const LinksSeen links = compare_links("ulp-iser-head.pcap", r);
  EXPECT_TRUE(links.disagreements.empty()) << links.disagreements.size() << ", first: " << links.disagreements[0];
  EXPECT_EQ(links.plugin, links.analyzer);
  EXPECT_EQ(links.plugin, r.summary.ulps.at("iser").transfers.replies_matched);
  EXPECT_GT(links.plugin, 0u);
}

}  // namespace
}  // namespace rdmaconf::dissector
