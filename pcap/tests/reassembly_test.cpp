// TCP reassembly (RFC 9293 §3.4 sequence space, §3.10.7.4 segment text) as a
// passive observer: every hazard of a real capture, and the bounds.
#include "capture/reassembly.hpp"

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "fixtures.hpp"

namespace rdmaconf::capture {
namespace {

using testing::Conn;
using testing::kC2S;
using testing::kS2C;
using testing::Recorder;

TEST(Reassembly, OneConnectionKeyForBothDirections) {
  const Endpoint client{ipv4(192, 0, 2, 1), 40000};
  const Endpoint server{ipv4(192, 0, 2, 2), 20000};
  const StreamKey there{client, server}, back{server, client};
  EXPECT_EQ(ConnectionKey::of(there), ConnectionKey::of(back));
  EXPECT_EQ(ConnectionKey::Hash{}(ConnectionKey::of(there)), ConnectionKey::Hash{}(ConnectionKey::of(back)));
  EXPECT_NE(ConnectionKey::forward(there), ConnectionKey::forward(back));
  // Either endpoint's port or address, or the address family, makes another connection.
  const Endpoint other_port{ipv4(192, 0, 2, 1), 40001};
  EXPECT_NE(ConnectionKey::of(there), ConnectionKey::of(StreamKey{other_port, server}));
  const Endpoint v6{ipv6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}), 40000};
  EXPECT_NE(ConnectionKey::of(there), ConnectionKey::of(StreamKey{v6, server}));
  EXPECT_EQ(ConnectionKey::of(StreamKey{v6, server}), ConnectionKey::of(StreamKey{server, v6}));
}

TEST(Reassembly, HandshakeDataFinInOrder) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  ra.add_segment(c.syn(1));
  ra.add_segment(c.seg(0, 0, "hello "));
  ra.add_segment(c.seg(0, 6, "world"));
  ra.add_segment(c.seg(1, 0, "reply", {.ack = true}, 11));
  ra.add_segment(c.seg(0, 11, "", {.ack = true, .fin = true}));
  ra.finish();
  EXPECT_EQ(rec.text(kC2S), "hello world");
  EXPECT_EQ(rec.text(kS2C), "reply");
  const auto& s = rec.streams[kC2S];
  EXPECT_EQ(s.start, StreamStart::kSyn);
  EXPECT_TRUE(s.ended);
  EXPECT_EQ(s.end, StreamEnd::kFin);
  EXPECT_EQ(rec.streams[kS2C].end, StreamEnd::kEndOfCapture);
  EXPECT_EQ(s.frames, (std::vector<FrameNumber>{{3}, {4}}));
  EXPECT_TRUE(rec.reports.empty()) << rec.reports[0].to_string();
  EXPECT_EQ(ra.stats().copied_octets, 0u) << "in-order data is never copied";
}

TEST(Reassembly, InOrderDataIsAViewIntoTheFrame) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  TcpSegment s = c.seg(0, 0, "zero-copy");
  ra.add_segment(s);
  ASSERT_EQ(rec.streams[kC2S].views.size(), 1u);
  EXPECT_EQ(rec.streams[kC2S].views[0], s.payload.data());
}

TEST(Reassembly, ReorderedSegmentsAreDeliveredInOrder) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  auto a = c.seg(0, 0, "aaaa"), b = c.seg(0, 4, "bbbb"), d = c.seg(0, 8, "cccc");
  ra.add_segment(d);
  ra.add_segment(b);
  EXPECT_EQ(rec.text(kC2S), "");
  ra.add_segment(a);
  EXPECT_EQ(rec.text(kC2S), "aaaabbbbcccc");
  EXPECT_EQ(rec.streams[kC2S].frames, (std::vector<FrameNumber>{a.frame, b.frame, d.frame}));
  EXPECT_EQ(ra.stats().copied_octets, 8u);
  EXPECT_EQ(ra.stats().held_octets, 0u);
}

TEST(Reassembly, RetransmissionIsDeliveredOnceAndReported) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  ra.add_segment(c.seg(0, 0, "abcdef"));
  ra.add_segment(c.seg(0, 0, "abcdef"));     // full duplicate
  ra.add_segment(c.seg(0, 3, "defghi"));     // half old, half new
  EXPECT_EQ(rec.text(kC2S), "abcdefghi");
  EXPECT_EQ(rec.count(ReportKind::kRetransmission), 2u);
  EXPECT_EQ(rec.count(ReportKind::kConflictingOverlap), 0u);
  EXPECT_EQ(ra.stats().retransmitted_octets, 9u);
  EXPECT_EQ(ra.stats().unverified_retransmitted_octets, 0u) << "the history covered them";
}

TEST(Reassembly, ConflictWithDeliveredDataNamesBothFrames) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  auto first = c.seg(0, 0, "abcdef");
  ra.add_segment(first);
  auto second = c.seg(0, 2, "cXefgh");
  ra.add_segment(second);
  EXPECT_EQ(rec.text(kC2S), "abcdefgh") << "the first copy wins";
  const Report* r = rec.first(ReportKind::kConflictingOverlap);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->frame, second.frame);
  EXPECT_EQ(r->other_frame, first.frame);
  EXPECT_EQ(r->offset, 3u);
  EXPECT_EQ(r->stream.to_string(), kC2S);
}

TEST(Reassembly, ConflictBetweenHeldSegments) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  auto held = c.seg(0, 10, "0123456789");
  ra.add_segment(held);
  auto overlapping = c.seg(0, 15, "5Z789abcde");
  ra.add_segment(overlapping);
  ra.add_segment(c.seg(0, 0, "----------"));
  EXPECT_EQ(rec.text(kC2S), "----------0123456789abcde");
  const Report* r = rec.first(ReportKind::kConflictingOverlap);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->offset, 16u);
  EXPECT_EQ(r->frame, overlapping.frame);
  EXPECT_EQ(r->other_frame, held.frame);
}

TEST(Reassembly, ConflictBetweenInOrderSegmentAndHeldData) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  auto held = c.seg(0, 4, "EFGH");
  ra.add_segment(held);
  ra.add_segment(c.seg(0, 0, "abcdefgh"));
  EXPECT_EQ(rec.text(kC2S), "abcdefgh");
  const Report* r = rec.first(ReportKind::kConflictingOverlap);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->offset, 4u);
  EXPECT_EQ(r->other_frame, held.frame);
}

// What the consumer learns beside the report: the first octet that differs,
// its sequence number, both values and both frames.
TEST(Reassembly, ConflictNamesTheOctetsThatDiffer) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  auto first = c.seg(0, 0, "abcdef");
  ra.add_segment(first);
  auto second = c.seg(0, 2, "cXeYgh");
  ra.add_segment(second);
  auto held = c.seg(0, 20, "0123");
  ra.add_segment(held);
  auto over = c.seg(0, 21, "1Z");
  ra.add_segment(over);
  const auto& conflicts = rec.streams[kC2S].conflicts;
  ASSERT_EQ(conflicts.size(), 2u) << "one per copy: the first octet that differs";
  EXPECT_EQ(conflicts[0].offset, 3u);
  EXPECT_EQ(conflicts[0].sequence.value, 1000u + 1 + 3);  // Conn's client ISN is 1000
  EXPECT_EQ(conflicts[0].first, 'd');
  EXPECT_EQ(conflicts[0].again, 'X');
  EXPECT_EQ(conflicts[0].frame, second.frame);
  EXPECT_EQ(conflicts[0].first_frame, first.frame);
  EXPECT_EQ(conflicts[1].offset, 22u);
  EXPECT_EQ(conflicts[1].first, '2');
  EXPECT_EQ(conflicts[1].again, 'Z');
  EXPECT_EQ(conflicts[1].first_frame, held.frame);
  EXPECT_EQ(rec.count(ReportKind::kConflictingOverlap), 2u);
}

// A segment delivered as its sender cut it is marked whole: in order, new,
// not cut by the snaplen. What was held, trimmed or cut is not.
TEST(Reassembly, WholeSegmentsAreMarked) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  ra.add_segment(c.seg(0, 0, "aaaa"));    // in order
  ra.add_segment(c.seg(0, 8, "cccc"));    // held
  ra.add_segment(c.seg(0, 4, "bbbb"));    // in order, then the held one drains
  ra.add_segment(c.seg(0, 10, "ccdddd"));  // half old: its new part only
  TcpSegment cut = c.seg(0, 16, "eeee");
  cut.payload = cut.payload.first(2);      // the capture kept 2 of 4 octets
  ra.add_segment(cut);
  EXPECT_EQ(rec.text(kC2S), "aaaabbbbccccddddee??");
  EXPECT_EQ(rec.streams[kC2S].whole, (std::vector<bool>{true, true, false, false, false}));
}

TEST(Reassembly, LossBecomesAGapWhenThePeerAcknowledgesIt) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  ra.add_segment(c.syn(1));
  ra.add_segment(c.seg(0, 0, "aaaa"));
  // [4, 8) never captured.
  ra.add_segment(c.seg(0, 8, "cccc"));
  EXPECT_EQ(rec.text(kC2S), "aaaa");
  auto ack = c.seg(1, 0, "", {.ack = true}, 12);  // the server has everything up to 12
  ra.add_segment(ack);
  EXPECT_EQ(rec.text(kC2S), "aaaa????cccc");
  ASSERT_EQ(rec.streams[kC2S].gaps.size(), 1u);
  const StreamGap& g = rec.streams[kC2S].gaps[0];
  EXPECT_EQ(g.offset, 4u);
  EXPECT_EQ(g.length, 4u);
  EXPECT_EQ(g.cause, GapCause::kNotCaptured);
  EXPECT_EQ(g.frame, ack.frame);
  ra.add_segment(c.seg(0, 12, "dddd"));  // the stream carries on after the gap
  EXPECT_EQ(rec.text(kC2S), "aaaa????ccccdddd");
  EXPECT_EQ(rec.count(ReportKind::kGap), 1u);
}

TEST(Reassembly, LossAtEndOfCaptureIsAGap) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  ra.add_segment(c.seg(0, 0, "aa"));
  ra.add_segment(c.seg(0, 5, "bb"));
  ra.finish();
  EXPECT_EQ(rec.text(kC2S), "aa???bb");
  EXPECT_EQ(rec.streams[kC2S].end, StreamEnd::kEndOfCapture);
}

TEST(Reassembly, DataArrivingAfterItsGapIsReportedLate) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  ra.add_segment(c.syn(1));
  ra.add_segment(c.seg(1, 0, "", {.ack = true}, 6));  // the ACK overtook the data in the capture
  ra.add_segment(c.seg(0, 0, "abcdef"));
  EXPECT_EQ(rec.text(kC2S), "??????");
  const Report* r = rec.first(ReportKind::kLateData);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->length, 6u);
}

TEST(Reassembly, SequenceNumberWrap) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c(0xfffffff8u);  // ISN 8 before the wrap
  ra.add_segment(c.syn(0));
  std::string data;
  for (int i = 0; i < 64; ++i) data.push_back(static_cast<char>('A' + i % 26));
  // Out of order across the wrap: the second half first.
  ra.add_segment(c.seg(0, 32, data.substr(32)));
  ra.add_segment(c.seg(0, 0, data.substr(0, 32)));
  ra.add_segment(c.seg(0, 0, data.substr(0, 16)));  // a retransmission from before the wrap
  EXPECT_EQ(rec.text(kC2S), data);
  EXPECT_EQ(rec.count(ReportKind::kConflictingOverlap), 0u);
}

TEST(Reassembly, LongStreamWrapsSeveralTimes) {
  // 3 x 2^32 octets would take too long; instead move the sequence number
  // by whole segments of 60000 octets past the 32-bit limit many times,
  // checking offsets stay 64-bit and monotonic.
  ReassemblyLimits limits;
  limits.history_per_stream = 0;
  class Counter : public StreamConsumer {
   public:
    void on_data(Stream&, const StreamData& d) override {
      EXPECT_EQ(d.offset, next);
      next += d.bytes.size();
    }
    void on_gap(Stream&, const StreamGap& g) override {
      EXPECT_EQ(g.offset, next);
      next += g.length;
      ++gaps;
    }
    std::uint64_t next = 0;
    int gaps = 0;
  } counter;
  Reassembler rb(counter, limits);
  std::vector<std::uint8_t> chunk(60000, 0x5a);
  TcpSegment s;
  s.key = StreamKey{testing::kClient, testing::kServer};
  s.flags.ack = true;
  s.payload = chunk;
  s.payload_length = static_cast<std::uint32_t>(chunk.size());
  std::uint32_t seq = 0xfff00000u;
  const std::uint64_t segments = (std::uint64_t{1} << 32) * 2 / chunk.size() + 10;
  for (std::uint64_t i = 0; i < segments; i += 1) {
    s.frame = FrameNumber{i + 1};
    s.seq = SeqNum{seq};
    // Skip most segments' payload delivery cost by sending every 1000th for
    // real and declaring the rest lost via the snaplen (payload empty).
    s.payload = i % 1000 == 0 ? wire::Bytes(chunk) : wire::Bytes();
    rb.add_segment(s);
    seq += static_cast<std::uint32_t>(chunk.size());
  }
  rb.finish();
  EXPECT_EQ(counter.next, segments * chunk.size());
  EXPECT_GT(counter.next, std::uint64_t{1} << 33);
}

TEST(Reassembly, MidConnectionStart) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  // No SYN in the capture: the first segment starts the stream.
  auto first = c.seg(0, 100, "middle");
  ra.add_segment(first);
  ra.add_segment(c.seg(0, 106, "-end"));
  ra.add_segment(c.seg(0, 96, "xxxx"));  // reordered from before the capture's start
  EXPECT_EQ(rec.text(kC2S), "middle-end");
  EXPECT_EQ(rec.streams[kC2S].start, StreamStart::kMidStream);
  const Report* r = rec.first(ReportKind::kMidStreamStart);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->frame, first.frame);
  EXPECT_EQ(rec.count(ReportKind::kDataBeforeStreamStart), 1u);
}

TEST(Reassembly, FinBeforeLastDataStillDeliversEverything) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  ra.add_segment(c.seg(0, 4, "tail", {.ack = true, .fin = true}));
  EXPECT_FALSE(rec.streams[kC2S].ended);
  ra.add_segment(c.seg(0, 0, "head"));
  EXPECT_EQ(rec.text(kC2S), "headtail");
  EXPECT_TRUE(rec.streams[kC2S].ended);
  EXPECT_EQ(rec.streams[kC2S].end, StreamEnd::kFin);
  ra.add_segment(c.seg(0, 8, "more"));
  EXPECT_EQ(rec.count(ReportKind::kDataAfterFin), 1u);
  EXPECT_EQ(rec.text(kC2S), "headtail");
}

TEST(Reassembly, ResetEndsBothDirectionsAndFlushesHeldData) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  ra.add_segment(c.syn(1));
  ra.add_segment(c.seg(0, 0, "ab"));
  ra.add_segment(c.seg(0, 4, "ef"));
  ra.add_segment(c.seg(1, 0, "", {.ack = true, .rst = true}, 2));
  EXPECT_EQ(rec.text(kC2S), "ab??ef");
  EXPECT_EQ(rec.streams[kC2S].end, StreamEnd::kReset);
  EXPECT_EQ(rec.streams[kS2C].end, StreamEnd::kReset);
  EXPECT_EQ(rec.count(ReportKind::kReset), 1u);
  ra.add_segment(c.seg(0, 6, "late"));
  EXPECT_EQ(rec.count(ReportKind::kDataAfterFin), 1u);
  ra.finish();  // nothing ends twice (Recorder checks)
}

TEST(Reassembly, NewSynOnSamePortsReplacesTheConnection) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c(1000), d(777777);
  ra.add_segment(c.syn(0));
  ra.add_segment(c.seg(0, 0, "old"));
  ra.add_segment(c.syn(0));  // retransmitted SYN: same ISN, nothing happens
  EXPECT_FALSE(rec.streams[kC2S].ended);
  auto s = d.syn(0);
  ra.add_segment(s);
  EXPECT_EQ(ra.stats().connections, 2u);
  EXPECT_EQ(rec.streams[kC2S].connection, 2u);
}

TEST(Reassembly, SmcOptionOfTheSynIsOnTheStream) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  auto syn = c.syn(0);
  syn.options.smc = true;
  ra.add_segment(syn);
  EXPECT_TRUE(rec.streams[kC2S].smc);
}

TEST(Reassembly, SnaplenCutInOrderIsASnaplenGap) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  auto s = c.seg(0, 0, "abc");
  s.payload_length = 8;  // 5 octets were not stored
  ra.add_segment(s);
  ra.add_segment(c.seg(0, 8, "ijk"));
  EXPECT_EQ(rec.text(kC2S), "abc?????ijk");
  ASSERT_EQ(rec.streams[kC2S].gaps.size(), 1u);
  EXPECT_EQ(rec.streams[kC2S].gaps[0].cause, GapCause::kSnaplen);
}

TEST(Reassembly, FullRetransmissionFillsASnaplenHole) {
  Recorder rec;
  Reassembler ra(rec);
  Conn c;
  ra.add_segment(c.syn(0));
  auto cut = c.seg(0, 4, "ef");
  cut.payload_length = 6;  // "efgh.." stored only partly, held out of order
  ra.add_segment(cut);
  ra.add_segment(c.seg(0, 4, "efghij"));  // a full copy arrives later
  ra.add_segment(c.seg(0, 0, "abcd"));
  EXPECT_EQ(rec.text(kC2S), "abcdefghij");
  EXPECT_TRUE(rec.streams[kC2S].gaps.empty());
}

TEST(Reassembly, PerStreamBoundFlushesOldestAsGap) {
  Recorder rec;
  ReassemblyLimits limits;
  limits.max_held_per_stream = 1000;
  Reassembler ra(rec, limits);
  Conn c;
  ra.add_segment(c.syn(0));
  // Segment 0 is lost; 20 segments of 100 octets are held behind it.
  std::string expect(100, '?');
  for (int i = 1; i <= 20; ++i) {
    std::string p(100, static_cast<char>('a' + i));
    ra.add_segment(c.seg(0, static_cast<std::uint32_t>(i * 100), p));
    expect += p;
    EXPECT_LE(ra.stats().held_octets, limits.max_held_per_stream);
  }
  ra.finish();
  EXPECT_EQ(rec.text(kC2S), expect);
  EXPECT_GE(rec.count(ReportKind::kBufferLimit), 1u);
  ASSERT_FALSE(rec.streams[kC2S].gaps.empty());
  EXPECT_EQ(rec.streams[kC2S].gaps[0].cause, GapCause::kBufferLimit);
  EXPECT_LE(ra.stats().peak_held_octets, limits.max_held_per_stream + 100 + 64);
  EXPECT_EQ(ra.stats().held_total_hits, 0u) << "the stream's own bound, not the total";
}

TEST(Reassembly, TotalBoundAcrossStreams) {
  Recorder rec;
  ReassemblyLimits limits;
  limits.max_held_total = 3000;
  Reassembler ra(rec, limits);
  for (std::uint16_t port = 1; port <= 10; ++port) {
    TcpSegment s;
    std::string p(500, 'x');
    s.key = StreamKey{Endpoint{ipv4(10, 0, 0, 1), port}, testing::kServer};
    s.flags.ack = true;
    s.seq = SeqNum{100};
    s.frame = FrameNumber{port * 2u - 1};
    static std::string keep = "y";
    s.payload = testing::bytes_of(keep);
    s.payload_length = 1;
    ra.add_segment(s);  // starts the stream mid-connection at 100
    s.seq = SeqNum{200};
    s.frame = FrameNumber{port * 2u};
    s.payload = testing::bytes_of(p);
    s.payload_length = 500;
    ra.add_segment(s);  // held: [1, 100) is missing
    EXPECT_LE(ra.stats().held_octets, limits.max_held_total);
  }
  EXPECT_GE(rec.count(ReportKind::kBufferLimit), 1u);
  EXPECT_GE(ra.stats().held_total_hits, 1u);
}

// The history budget shared by all streams: a stream past it goes without
// (and says so in the stats: analyze -j gives each worker a share of it).
TEST(Reassembly, HistoryBudgetAcrossStreamsIsCounted) {
  for (std::uint16_t streams : {2, 3}) {
    Recorder rec;
    ReassemblyLimits limits;
    limits.max_history_total = 2 * limits.history_per_stream;
    Reassembler ra(rec, limits);
    static std::string data = "abc";
    for (std::uint16_t port = 1; port <= streams; ++port) {
      TcpSegment s;
      s.key = StreamKey{Endpoint{ipv4(10, 0, 0, 1), port}, testing::kServer};
      s.flags.ack = true;
      s.seq = SeqNum{100};
      s.frame = FrameNumber{port};
      s.payload = testing::bytes_of(data);
      s.payload_length = 3;
      ra.add_segment(s);
    }
    EXPECT_EQ(ra.stats().history_denied, streams == 3 ? 1u : 0u);
    EXPECT_EQ(ra.stats().history_octets, limits.max_history_total);
  }
}

// A stream past the history budget gets a ring when another stream's is
// given back. The octets it delivered before were never kept: a copy of them
// is an unverified retransmission, not a conflict with octets never seen.
TEST(Reassembly, HistoryGrantedLateComparesOnlyWhatItKept) {
  Recorder rec;
  ReassemblyLimits limits;
  limits.history_per_stream = 64;
  limits.max_history_total = 64;  // one stream's ring
  Reassembler ra(rec, limits);
  Conn a, b;
  const auto on_b = [](TcpSegment s) {
    s.key.source.port = 40001;  // b's client stream: another connection
    return s;
  };
  ra.add_segment(a.syn(0));
  ra.add_segment(a.syn(1));
  ra.add_segment(a.seg(0, 0, "wxyz"));  // a takes the ring
  ra.add_segment(on_b(b.syn(0)));
  ra.add_segment(on_b(b.seg(0, 0, "abc")));  // b goes without
  EXPECT_EQ(ra.stats().history_denied, 1u);
  ra.add_segment(a.seg(1, 0, "", {.ack = true, .rst = true}, 4));  // a ends: its ring is given back
  ra.add_segment(on_b(b.seg(0, 3, "def")));                        // b takes it
  EXPECT_EQ(ra.stats().history_octets, 64u);
  ra.add_segment(on_b(b.seg(0, 0, "abc")));  // a copy of octets b never kept
  EXPECT_EQ(rec.count(ReportKind::kConflictingOverlap), 0u);
  EXPECT_EQ(ra.stats().unverified_retransmitted_octets, 3u);
  ra.add_segment(on_b(b.seg(0, 3, "dXf")));  // what it kept is still compared
  EXPECT_EQ(rec.count(ReportKind::kConflictingOverlap), 1u);
}

// The ring grows as a stream delivers and then wraps: what it holds is the
// last history_per_stream octets, each compared where it was delivered.
TEST(Reassembly, HistoryRingGrowsThenWrapsAndComparesTheLastOctets) {
  Recorder rec;
  ReassemblyLimits limits;
  limits.history_per_stream = 1024;
  Reassembler ra(rec, limits);
  Conn c;
  ra.add_segment(c.syn(0));
  std::string data;
  for (int i = 0; i < 3700; ++i) data.push_back(static_cast<char>('a' + i % 23));
  for (std::size_t at = 0; at < data.size(); at += 37)
    ra.add_segment(c.seg(0, static_cast<std::uint32_t>(at), data.substr(at, 37)));
  ASSERT_EQ(rec.text(kC2S), data);
  ra.add_segment(c.seg(0, 3700 - 1024, data.substr(3700 - 1024)));  // the whole ring, the same
  EXPECT_EQ(rec.count(ReportKind::kConflictingOverlap), 0u);
  EXPECT_EQ(ra.stats().unverified_retransmitted_octets, 0u);
  std::string older = data.substr(2000, 10);
  older[3] = '#';  // older than the ring: not compared
  ra.add_segment(c.seg(0, 2000, older));
  EXPECT_EQ(rec.count(ReportKind::kConflictingOverlap), 0u);
  EXPECT_EQ(ra.stats().unverified_retransmitted_octets, 10u);
  std::string recent = data.substr(3000, 10);
  recent[4] = '#';
  ra.add_segment(c.seg(0, 3000, recent));
  const Report* r = rec.first(ReportKind::kConflictingOverlap);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->offset, 3004u);
}

// Connections numbered by the frame that created them: the order of 1, 2,
// ..., numbers that reassemblers given different connections share.
TEST(Reassembly, ConnectionsNumberedByFrame) {
  Recorder rec;
  Reassembler ra(rec);
  ra.number_connections_by_frame();
  Conn a;
  auto syn = a.syn(0);
  syn.frame = FrameNumber{5};
  ra.add_segment(syn);
  syn.key.source.port = 40001;  // another connection
  syn.frame = FrameNumber{9};
  ra.add_segment(syn);
  auto more = a.seg(0, 0, "x");
  more.frame = FrameNumber{12};
  ra.add_segment(more);
  ASSERT_EQ(rec.streams.size(), 2u);
  EXPECT_EQ(rec.streams[kC2S].connection, 5u);
  EXPECT_EQ(rec.streams["192.0.2.1:40001 -> 192.0.2.2:5000"].connection, 9u);
}

TEST(Reassembly, ConnectionBoundEvictsLeastRecentlyActive) {
  Recorder rec;
  ReassemblyLimits limits;
  limits.max_connections = 2;
  Reassembler ra(rec, limits);
  for (std::uint16_t port = 1; port <= 3; ++port) {
    TcpSegment s;
    s.key = StreamKey{Endpoint{ipv4(10, 0, 0, 1), port}, testing::kServer};
    s.flags.ack = true;
    s.frame = FrameNumber{port};
    ra.add_segment(s);
  }
  EXPECT_EQ(rec.count(ReportKind::kConnectionLimit), 1u);
  EXPECT_EQ(rec.streams["10.0.0.1:1 -> 192.0.2.2:5000"].end, StreamEnd::kEvicted);
}

TEST(Reassembly, SplitAtEveryOffset) {
  // The Beast "parsegrind" habit: one stream, split into two segments at
  // every offset, delivered in both orders, always yields the same octets.
  std::string data;
  for (int i = 0; i < 97; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  for (std::size_t cut = 0; cut <= data.size(); ++cut) {
    for (bool reversed : {false, true}) {
      Recorder rec;
      Reassembler ra(rec);
      Conn c;
      ra.add_segment(c.syn(0));
      auto a = c.seg(0, 0, data.substr(0, cut));
      auto b = c.seg(0, static_cast<std::uint32_t>(cut), data.substr(cut));
      ra.add_segment(reversed ? b : a);
      ra.add_segment(reversed ? a : b);
      ASSERT_EQ(rec.text(kC2S), data) << cut << (reversed ? " reversed" : "");
      ASSERT_TRUE(rec.reports.empty());
    }
  }
}

TEST(Reassembly, RandomSegmentationReorderingAndDuplicates) {
  std::mt19937 rng(5044);
  std::string data;
  for (int i = 0; i < 20000; ++i) data.push_back(static_cast<char>(rng()));
  for (int round = 0; round < 50; ++round) {
    Conn c(static_cast<std::uint32_t>(rng()));
    std::vector<TcpSegment> segs;
    for (std::size_t at = 0; at < data.size();) {
      const std::size_t n = std::min<std::size_t>(data.size() - at, 1 + rng() % 1500);
      segs.push_back(c.seg(0, static_cast<std::uint32_t>(at), data.substr(at, n)));
      // A retransmission that re-cuts the data differently.
      if (rng() % 5 == 0) {
        const std::size_t back = rng() % (at + 1);
        segs.push_back(c.seg(0, static_cast<std::uint32_t>(at - back), data.substr(at - back, back + n / 2)));
      }
      at += n;
    }
    // Local reordering: swap neighbours within a small window.
    for (std::size_t i = 1; i < segs.size(); ++i)
      if (rng() % 3 == 0) std::swap(segs[i], segs[i - 1 - rng() % std::min<std::size_t>(i, 4)]);
    Recorder rec;
    Reassembler ra(rec);
    ra.add_segment(c.syn(0));
    for (const auto& s : segs) ra.add_segment(s);
    ra.finish();
    ASSERT_EQ(rec.text(kC2S), data) << "round " << round;
    ASSERT_EQ(rec.count(ReportKind::kConflictingOverlap), 0u);
    ASSERT_EQ(rec.count(ReportKind::kGap), 0u);
  }
}

}  // namespace
}  // namespace rdmaconf::capture
