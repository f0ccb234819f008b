// Shared helpers of the capture tests: a consumer that records everything
// the reassembler says, and builders for hand-made segments and frames.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "capture/decode.hpp"
#include "capture/reassembly.hpp"
#include "capture/synth.hpp"

namespace rdmaconf::capture::testing {

// Records every callback. Each direction's octets are rebuilt with gaps
// filled by '?' so tests can compare a whole stream at once.
class Recorder : public StreamConsumer {
 public:
  struct PerStream {
    std::vector<std::uint8_t> bytes;
    std::vector<StreamGap> gaps;
    std::vector<FrameNumber> frames;  // frame of each on_data call
    std::vector<const std::uint8_t*> views;  // where each on_data view pointed
    std::vector<bool> whole;                 // each on_data call's StreamData::whole_segment
    std::vector<StreamConflict> conflicts;
    StreamStart start = StreamStart::kSyn;
    bool started = false;
    bool ended = false;
    StreamEnd end = StreamEnd::kFin;
    bool smc = false;
    std::uint64_t connection = 0;
  };

  void on_stream_start(Stream& s) override {
    PerStream& p = streams[s.key().to_string()];
    p.started = true;
    p.start = s.start();
    p.smc = s.syn_options().smc;
    p.connection = s.connection_id();
  }
  void on_data(Stream& s, const StreamData& d) override {
    PerStream& p = streams[s.key().to_string()];
    EXPECT_EQ(d.offset, p.bytes.size()) << "data out of order";
    p.bytes.insert(p.bytes.end(), d.bytes.begin(), d.bytes.end());
    p.frames.push_back(d.frame);
    p.views.push_back(d.bytes.data());
    p.whole.push_back(d.whole_segment);
  }
  void on_conflict(Stream& s, const StreamConflict& c) override { streams[s.key().to_string()].conflicts.push_back(c); }
  void on_gap(Stream& s, const StreamGap& g) override {
    PerStream& p = streams[s.key().to_string()];
    EXPECT_EQ(g.offset, p.bytes.size()) << "gap out of order";
    p.bytes.insert(p.bytes.end(), g.length, '?');
    p.gaps.push_back(g);
  }
  void on_stream_end(Stream& s, StreamEnd why) override {
    PerStream& p = streams[s.key().to_string()];
    EXPECT_FALSE(p.ended) << "stream ended twice";
    p.ended = true;
    p.end = why;
  }
  void on_report(const Report& r) override { reports.push_back(r); }

  std::size_t count(ReportKind k) const {
    std::size_t n = 0;
    for (const Report& r : reports) n += r.kind == k;
    return n;
  }
  const Report* first(ReportKind k) const {
    for (const Report& r : reports)
      if (r.kind == k) return &r;
    return nullptr;
  }
  std::string text(const std::string& key) const {
    auto it = streams.find(key);
    if (it == streams.end()) return "<no stream>";
    return std::string(it->second.bytes.begin(), it->second.bytes.end());
  }

  std::map<std::string, PerStream> streams;
  std::vector<Report> reports;
};

inline wire::Bytes bytes_of(const std::string& s) {
  return wire::Bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size());
}
inline std::vector<std::uint8_t> vec(const std::string& s) { return std::vector<std::uint8_t>(s.begin(), s.end()); }

inline const Endpoint kClient{ipv4(192, 0, 2, 1), 40000};
inline const Endpoint kServer{ipv4(192, 0, 2, 2), 5000};
inline const std::string kC2S = "192.0.2.1:40000 -> 192.0.2.2:5000";
inline const std::string kS2C = "192.0.2.2:5000 -> 192.0.2.1:40000";

// Builds TcpSegments of one connection by hand: sequence numbers relative
// to each side's ISN, frame numbers counting up. The payload strings are
// kept alive by the builder so segments can point into them.
class Conn {
 public:
  Conn(std::uint32_t client_isn = 1000, std::uint32_t server_isn = 5000)
      : isn_{client_isn, server_isn} {}

  // side 0: client -> server, side 1: server -> client. `rel` counts from
  // the first data octet (ISN + 1).
  TcpSegment seg(int side, std::uint32_t rel, const std::string& payload, TcpFlags flags = {.ack = true},
                 std::uint32_t ack_rel = 0) {
    payloads_.push_back(std::make_unique<std::string>(payload));
    TcpSegment s;
    s.frame = FrameNumber{++frame_};
    s.key = side == 0 ? StreamKey{kClient, kServer} : StreamKey{kServer, kClient};
    s.seq = SeqNum{isn_[side] + 1 + rel};
    s.ack = SeqNum{isn_[1 - side] + 1 + ack_rel};
    s.flags = flags;
    s.payload = bytes_of(*payloads_.back());
    s.payload_length = static_cast<std::uint32_t>(payload.size());
    return s;
  }
  TcpSegment syn(int side) {
    TcpSegment s = seg(side, 0, "", side == 0 ? TcpFlags{.syn = true} : TcpFlags{.ack = true, .syn = true});
    s.seq = SeqNum{isn_[side]};
    return s;
  }
  std::uint64_t frames() const { return frame_; }

 private:
  std::uint32_t isn_[2];
  std::uint64_t frame_ = 0;
  std::vector<std::unique_ptr<std::string>> payloads_;
};

}  // namespace rdmaconf::capture::testing
