// The observer and TCP (observer_tcp.cpp): how a sender cut its FPDUs into
// segments (RFC 5044 §4.5, §5.1) and retransmissions that differ, judged on
// what the caller tells it (the MSS in each SYN, the segments it saw whole,
// the octets that differ), and nothing judged where the caller cannot tell.
#include <gtest/gtest.h>

#include "analysis_fixtures.hpp"
#include "check/mpa_tcp.hpp"

namespace rdmaconf::analysis::testing {
namespace {

// A Send whose FPDU is `octets` long on the wire (CRC on, no PAD: a multiple
// of four): ULPDU_Length, the untagged DDP header, the payload, the CRC.
Bytes send_of(std::uint32_t msn, std::size_t octets) {
  return send_msg(msn, filler(octets - mpa::kUlpduLengthSize - ddp::kUntaggedHeaderSize - mpa::kCrcSize));
}

// An MPA connection whose initiator sends Sends of the given sizes.
Session session_of(std::initializer_list<std::size_t> fpdus, bool markers = false) {
  SessionConfig c;
  c.responder_markers = markers;  // the responder's M: the initiator inserts Markers
  Session s(c);
  s.start();
  std::uint32_t msn = 1;
  for (std::size_t n : fpdus) s.fpdu(0, send_of(msn++, n));
  return s;
}

// One piece of the initiator's stream after its Request: a segment the
// caller saw whole, octets it did not (on_data), or octets lost.
struct Piece {
  enum Kind : std::uint8_t { kSegment, kUnannounced, kLost } kind;
  std::size_t octets;
};
Piece seg(std::size_t n) { return {Piece::kSegment, n}; }

// Both SYNs (with `mss`), the Request and the Reply one segment each, then
// the initiator's FPDUs in `pieces` (the last one takes the rest); frames
// count 1, 2, 3, ... in that order.
Collect judge(const Session& s, std::vector<Piece> pieces, std::optional<std::uint16_t> mss = 1460) {
  Collect out;
  ConnectionObserver obs(out);
  obs.on_syn(Side::kInitiator, false, mss);
  obs.on_syn(Side::kResponder, false, mss);
  const wire::Bytes ini(s.stream[0]);
  const std::size_t req = s.boundaries[0].front();
  obs.on_segment(Side::kInitiator, 1, ini.first(req));
  obs.on_segment(Side::kResponder, 2, wire::Bytes(s.stream[1]));
  FrameNo frame = 3;
  std::size_t at = req;
  for (std::size_t i = 0; i < pieces.size() && at < ini.size(); ++i) {
    const std::size_t n = i + 1 == pieces.size() ? ini.size() - at : std::min(pieces[i].octets, ini.size() - at);
    switch (pieces[i].kind) {
      case Piece::kSegment: obs.on_segment(Side::kInitiator, frame, ini.subspan(at, n)); break;
      case Piece::kUnannounced: obs.on_data(Side::kInitiator, frame, ini.subspan(at, n)); break;
      case Piece::kLost: obs.on_gap(Side::kInitiator, n, frame); break;
    }
    ++frame;
    at += n;
  }
  obs.on_end(Side::kInitiator);
  obs.on_end(Side::kResponder);
  return out;
}

std::map<std::string, std::size_t> rules_of(const Collect& c) {
  std::map<std::string, std::size_t> m;
  for (const Violation& v : c.violations) ++m[std::string(v.rule->id)];
  return m;
}

TEST(ObserverTcp, AlignedSegmentsKeepEveryRule) {
  // One FPDU per segment, and two small ones packed whole into one.
  const Session s = session_of({1448, 1000, 400, 200, 1448});
  const Collect out = judge(s, {seg(1448), seg(1000), seg(600), seg(1448)});
  EXPECT_TRUE(out.violations.empty()) << out.dump();
  EXPECT_EQ(out.fpdus(), 5u);
}

TEST(ObserverTcp, AnFpduLongerThanTheMss) {
  const Session s = session_of({1448, 2000});
  const Collect out = judge(s, {seg(1448), seg(1448), seg(552)});
  EXPECT_EQ(rules_of(out), (std::map<std::string, std::size_t>{{"rfc5044-4.5-fpdu-fits-segment", 1}})) << out.dump();
  const Violation* v = out.first(check::kFpduFitsSegment);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->frame, 4u);  // where the FPDU begins
  EXPECT_EQ(v->stream_offset, s.boundaries[0][1]);
  EXPECT_NE(v->text.find("FPDU of 2000 octets, longer than the 1460-octet MSS"), std::string::npos) << v->text;
  // Without the receiver's MSS nothing says how long a segment may be.
  EXPECT_TRUE(judge(s, {seg(1448), seg(1448), seg(552)}, std::nullopt).violations.empty());
}

TEST(ObserverTcp, AFittingFpduThatOpensASegmentIsNotContinued) {
  const Session s = session_of({1448, 1000});
  const Collect out = judge(s, {seg(1448), seg(600), seg(400)});
  EXPECT_EQ(rules_of(out), (std::map<std::string, std::size_t>{{"rfc5044-5.1-no-splitting-small", 1}})) << out.dump();
  const Violation* v = out.first(check::kNoSplittingSmall);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->frame, 4u) << "charged to the segment the FPDU began in";
  EXPECT_EQ(v->side, Side::kInitiator);
  EXPECT_EQ(v->stream_offset, s.boundaries[0][1]);
  EXPECT_NE(v->text.find("the 1000-octet FPDU that opens this 600-octet segment ends in a later one"),
            std::string::npos)
      << v->text;
  // In three pieces: still one FPDU split, charged once.
  EXPECT_EQ(rules_of(judge(s, {seg(1448), seg(400), seg(300), seg(300)})),
            (std::map<std::string, std::size_t>{{"rfc5044-5.1-no-splitting-small", 1}}));
}

TEST(ObserverTcp, PackedFpdusEndInTheirSegment) {
  // 400 octets, then 600 of a 1000-octet FPDU in one segment.
  const Session s = session_of({1448, 400, 1000});
  const Collect out = judge(s, {seg(1448), seg(1000), seg(400)});
  EXPECT_EQ(rules_of(out), (std::map<std::string, std::size_t>{{"rfc5044-5.1-segment-alignment", 1}})) << out.dump();
  const Violation* v = out.first(check::kSegmentAlignment);
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->frame, 4u);
  EXPECT_EQ(v->stream_offset, s.boundaries[0][2]);
  EXPECT_NE(v->text.find("packed at octet 400 of this 1000-octet segment"), std::string::npos) << v->text;
  // A segment that begins with the tail of the previous FPDU packs too.
  const Session t = session_of({1448, 1000, 1000});
  EXPECT_EQ(rules_of(judge(t, {seg(1448), seg(600), seg(1000), seg(400)})),
            (std::map<std::string, std::size_t>{{"rfc5044-5.1-no-splitting-small", 1},
                                                {"rfc5044-5.1-segment-alignment", 1}}));
}

TEST(ObserverTcp, NothingIsJudgedBeyondWhatTheCaptureKnows) {
  const Session s = session_of({1448, 1000});
  // No MSS: the EMSS is unknown.
  EXPECT_TRUE(judge(s, {seg(1448), seg(600), seg(400)}, std::nullopt).violations.empty());
  // The sender sent no segment as long as the FPDU: it may not have fitted.
  const Session small = session_of({1000});
  EXPECT_TRUE(judge(small, {seg(600), seg(400)}).violations.empty());
  // RFC 5044 §4.5: with no segment of 128 octets or more, §5.1 does not bind.
  const Session tiny = session_of({100, 100});
  EXPECT_TRUE(judge(tiny, {seg(60), seg(40), seg(100)}).violations.empty());
  EXPECT_EQ(rules_of(judge(session_of({128, 100}), {seg(128), seg(60), seg(40)})),
            (std::map<std::string, std::size_t>{{"rfc5044-5.1-no-splitting-small", 1}}));
  // Markers (RFC 5044 §4.3) are not these rules' concern.
  const Session marked = session_of({1448, 1000}, true);
  const Collect m = judge(marked, {seg(1448), seg(600), seg(400)});
  EXPECT_EQ(m.fpdus(), 2u);
  EXPECT_TRUE(m.violations.empty()) << m.dump();
}

TEST(ObserverTcp, OnlyBoundariesBetweenAnnouncedSegmentsAreJudged) {
  const Session s = session_of({1448, 1000, 1000});
  // The 600 octets came in no segment the caller saw whole: where they
  // ended is unknown; the next split is judged again.
  const Collect out = judge(s, {seg(1448), {Piece::kUnannounced, 600}, seg(400), seg(600), seg(400)});
  EXPECT_EQ(rules_of(out), (std::map<std::string, std::size_t>{{"rfc5044-5.1-no-splitting-small", 1}})) << out.dump();
  EXPECT_EQ(out.first(check::kNoSplittingSmall)->stream_offset, s.boundaries[0][2]);
  // After a gap the observer hunts; the first FPDU it frames again is not
  // judged (the segment it began in began while hunting), the next one is.
  const Session g = session_of({1448, 1000, 1000, 1000});
  const Collect lost = judge(g, {seg(1448), {Piece::kLost, 1000}, seg(600), seg(400), seg(600), seg(400)});
  EXPECT_EQ(rules_of(lost), (std::map<std::string, std::size_t>{{"rfc5044-5.1-no-splitting-small", 1}}))
      << lost.dump();
  EXPECT_EQ(lost.first(check::kNoSplittingSmall)->stream_offset, g.boundaries[0][3]);
}

TEST(ObserverTcp, RetransmittedOctetsThatDiffer) {
  const Session s = session_of({1448});
  Collect out;
  ConnectionObserver obs(out);
  obs.on_syn(Side::kInitiator, false, 1460);
  obs.on_syn(Side::kResponder, false, 1460);
  // Not yet MPA: the rule is MPA's, the capture layer reports the rest.
  obs.on_conflicting_retransmission(Side::kInitiator, 1, {5, 0x10000005, 'M', 'X', 1});
  EXPECT_TRUE(out.violations.empty());
  obs.on_segment(Side::kInitiator, 1, wire::Bytes(s.stream[0]));
  obs.on_conflicting_retransmission(Side::kInitiator, 7, {30, 0x1000001f, 0x41, 0x42, 4});
  ASSERT_EQ(out.violations.size(), 1u);
  const Violation& v = out.violations[0];
  EXPECT_EQ(v.rule, &check::kRetransmitSame);
  EXPECT_EQ(v.frame, 7u);
  EXPECT_EQ(v.stream_offset, 30u);
  EXPECT_EQ(v.text, "octet at sequence number 268435487 (stream offset 30) sent again as 0x42, first sent as 0x41 in frame 4");
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
