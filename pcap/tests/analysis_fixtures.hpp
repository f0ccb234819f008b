// Builders for the analysis tests: DDP/RDMAP segments through the reference's
// header declarations, an MPA session (Request, Reply, then FPDUs through mpa::Framer with
// its overrides), an observer sink that records everything, a capture
// builder that lays a session's octets into TCP segments exactly as a test
// wants them cut, reordered or lost, and a capture file analyzed whole.
#pragma once

#include <gtest/gtest.h>

#include <cstring>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/observer.hpp"
#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "mpa/framer.hpp"
#include "mpa/req_rep.hpp"
#include "ddp/headers.hpp"
#include "rdmap/headers.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::analysis::testing {

using Bytes = std::vector<std::uint8_t>;

inline void put_be(Bytes& b, std::uint64_t v, int octets) {
  for (int i = octets - 1; i >= 0; --i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// The DDP header of a segment (RFC 5041 §4.2, §4.3) with RDMAP's control
// field in its RsvdULP octet (RFC 5040 §4.2), written through the reference's
// declarations; values wider than a field are cut to its width (a test asks
// for DV 2 or RV 0 on purpose), then the payload.
inline std::uint8_t control_octet(std::uint8_t opcode, std::uint8_t rv) {
  rdmap::ControlHeader c;
  c.set(rdmap::ControlSpec::Field::RV, rv).set(rdmap::ControlSpec::Field::Opcode, opcode);
  return c.bytes()[0];
}
inline Bytes with_payload(wire::Bytes header, const Bytes& payload) {
  Bytes b(header.begin(), header.end());
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}
inline Bytes untagged(std::uint8_t opcode, std::uint32_t qn, std::uint32_t msn, std::uint32_t mo, bool last,
                      const Bytes& payload = {}, std::uint8_t dv = 1, std::uint8_t rv = 1) {
  using F = ddp::UntaggedSpec::Field;
  ddp::UntaggedHeader h;
  h.set(F::L, last).set(F::DV, dv).set(F::RsvdULP, control_octet(opcode, rv));
  h.set(F::QN, qn).set(F::MSN, msn).set(F::MO, mo);
  return with_payload(h.bytes(), payload);
}
inline Bytes tagged(std::uint8_t opcode, std::uint32_t stag, std::uint64_t to, bool last, const Bytes& payload = {},
                    std::uint8_t dv = 1) {
  using F = ddp::TaggedSpec::Field;
  ddp::TaggedHeader h;
  h.set(F::T, 1).set(F::L, last).set(F::DV, dv).set(F::RsvdULP, control_octet(opcode, 1));
  h.set(F::STag, stag).set(F::TO, to);
  return with_payload(h.bytes(), payload);
}
// RFC 5040 §4.4 RDMA Read Request on QN 1.
inline Bytes read_request(std::uint32_t msn, std::uint32_t sink_stag, std::uint64_t sink_to, std::uint32_t size,
                          std::uint32_t source_stag = 0x5000, std::uint64_t source_to = 0) {
  using F = rdmap::ReadRequestSpec::Field;
  rdmap::ReadRequestHeader h;
  h.set(F::SinkSTag, sink_stag).set(F::SinkTO, sink_to).set(F::ReadSize, size);
  h.set(F::SourceSTag, source_stag).set(F::SourceTO, source_to);
  return untagged(0x1, 1, msn, 0, true, with_payload(h.bytes(), {}));
}
inline Bytes send_msg(std::uint32_t msn, const Bytes& payload) { return untagged(0x3, 0, msn, 0, true, payload); }
inline Bytes filler(std::size_t n, std::uint8_t seed = 0) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

// FramerOverrides with one field forced.
inline mpa::FramerOverrides bad_crc(std::uint32_t crc) {
  mpa::FramerOverrides o;
  o.crc = crc;
  return o;
}
inline mpa::FramerOverrides pad_octet(std::uint8_t v) {
  mpa::FramerOverrides o;
  o.pad_octet = v;
  return o;
}
inline mpa::FramerOverrides fpdu_ptr(std::uint16_t p) {
  mpa::FramerOverrides o;
  o.fpdu_ptr = p;
  return o;
}
inline mpa::FramerOverrides marker_reserved(std::uint16_t r) {
  mpa::FramerOverrides o;
  o.marker_reserved = r;
  return o;
}

struct SessionConfig {
  std::uint8_t revision = mpa::kRevision2;
  bool enhanced = true;
  std::uint16_t ird = 4, ord = 4;
  bool initiator_markers = false;  // initiator's M: the responder inserts Markers
  bool responder_markers = false;  // responder's M: the initiator inserts Markers
  bool crc = true;
};

// An MPA connection's two streams, built message by message.
struct Session {
  using Config = SessionConfig;
  Session() : Session(SessionConfig{}) {}
  explicit Session(Config c) : config(c) {
    mpa::ReqRepFields req;
    req.kind = mpa::FrameKind::kRequest;
    req.revision = c.revision;
    req.markers = c.initiator_markers;
    req.crc = c.crc;
    mpa::ReqRepFields rep = req;
    rep.kind = mpa::FrameKind::kReply;
    rep.markers = c.responder_markers;
    if (c.enhanced) {
      req.enhanced = mpa::EnhancedData{false, false, false, false, c.ird, c.ord};
      rep.enhanced = mpa::EnhancedData{false, false, false, false, c.ird, c.ord};
    }
    request = req;
    reply = rep;
  }
  // Writes the Request and the Reply (as configured, possibly modified).
  void start() {
    mpa::encode_req_rep(request, stream[0]);
    mpa::encode_req_rep(reply, stream[1]);
    framer[0].emplace(mpa::FramerConfig{reply.markers, request.crc || reply.crc, 0});
    framer[1].emplace(mpa::FramerConfig{request.markers, request.crc || reply.crc, 0});
  }
  // Appends one FPDU; returns its stream offset.
  std::size_t fpdu(int side, const Bytes& ulpdu, const mpa::FramerOverrides& o = {}) {
    const std::size_t at = stream[side].size();
    framer[side]->frame(wire::Bytes(ulpdu), stream[side], o);
    boundaries[side].push_back(at);
    return at;
  }
  void raw(int side, const Bytes& octets) { stream[side].insert(stream[side].end(), octets.begin(), octets.end()); }

  Config config;
  mpa::ReqRepFields request, reply;
  Bytes stream[2];
  std::optional<mpa::Framer> framer[2];
  std::vector<std::size_t> boundaries[2];
};

// Records what an observer says.
struct Collect : ObserverSink {
  struct Seen {
    MessageKind kind;
    Side side;
    FrameNo frame;
    std::uint64_t offset;
    int opcode = -1;
    bool last = false;
    std::uint32_t msn = 0;
  };
  void on_message(const Message& m) override {
    Seen s{m.kind, m.side, m.frame, m.stream_offset};
    if (m.segment && m.segment->has_header) {
      s.opcode = m.segment->rdmap.opcode;
      s.last = m.segment->ddp.last;
      s.msn = m.segment->msn;
    }
    messages.push_back(s);
  }
  void on_violation(const Violation& v) override { violations.push_back(v); }
  void on_event(const Event& e) override { events.push_back(e); }

  std::size_t count(const Rule& r) const {
    std::size_t n = 0;
    for (const Violation& v : violations) n += v.rule == &r;
    return n;
  }
  const Violation* first(const Rule& r) const {
    for (const Violation& v : violations)
      if (v.rule == &r) return &v;
    return nullptr;
  }
  std::size_t fpdus() const {
    std::size_t n = 0;
    for (const Seen& s : messages) n += s.kind == MessageKind::kFpdu;
    return n;
  }
  std::size_t events_of(EventKind k) const {
    std::size_t n = 0;
    for (const Event& e : events) n += e.kind == k;
    return n;
  }
  std::string dump() const {
    std::string s;
    for (const Violation& v : violations)
      s += std::string(v.rule->id) + " frame " + std::to_string(v.frame) + ": " + v.text + "\n";
    return s;
  }
  std::vector<Seen> messages;
  std::vector<Violation> violations;
  std::vector<Event> events;
};

// Feeds a whole session to an observer: Request, Reply, then both streams'
// remaining octets, in pieces of `piece` octets (0: all at once).
inline void feed_session(ConnectionObserver& obs, const Session& s, std::size_t piece = 0) {
  obs.on_syn(Side::kInitiator, false);
  obs.on_syn(Side::kResponder, false);
  FrameNo frame = 1;
  auto feed = [&](int side, std::size_t from, std::size_t to) {
    const std::size_t step = piece == 0 ? to - from : piece;
    for (std::size_t at = from; at < to; at += step) {
      const std::size_t n = std::min(step, to - at);
      obs.on_data(static_cast<Side>(side), frame++, wire::Bytes(s.stream[side]).subspan(at, n));
    }
  };
  const std::size_t req = s.boundaries[0].empty() ? s.stream[0].size() : s.boundaries[0].front();
  const std::size_t rep = s.boundaries[1].empty() ? s.stream[1].size() : s.boundaries[1].front();
  feed(0, 0, req);
  feed(1, 0, rep);
  feed(0, req, s.stream[0].size());
  feed(1, rep, s.stream[1].size());
  obs.on_end(Side::kInitiator);
  obs.on_end(Side::kResponder);
}

// A capture laid out segment by segment (Ethernet/IPv4/TCP with checksums;
// IPv6 on request).
class CaptureBuilder {
 public:
  // How frames are wrapped below IPv4: Ethernet, Ethernet with two 802.1Q
  // tags, Linux cooked v2, or BSD loopback (address family, host order).
  enum class Framing : std::uint8_t { kEthernet, kVlan, kSll2, kNull };
  static capture::LinkType link_of(Framing f) {
    return f == Framing::kSll2 ? capture::LinkType::kLinuxSll2
           : f == Framing::kNull ? capture::LinkType::kNull
                                 : capture::LinkType::kEthernet;
  }
  enum class Ip : std::uint8_t { kV4, kV6 };
  explicit CaptureBuilder(std::uint16_t server_port = 20000, std::uint16_t client_port = 40000,
                          Framing framing = Framing::kEthernet, Ip ip = Ip::kV4)
      : writer_(out_, capture::FileFormat::kPcapng, link_of(framing)), framing_(framing), ip_(ip) {
    // RFC 5737 and RFC 3849 documentation addresses.
    const capture::IpAddress client = ip == Ip::kV4 ? capture::ipv4(192, 0, 2, 1)
                                                    : capture::ipv6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
    const capture::IpAddress server = ip == Ip::kV4 ? capture::ipv4(192, 0, 2, 2)
                                                    : capture::ipv6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2});
    key_[0] = capture::StreamKey{{client, client_port}, {server, server_port}};
    key_[1] = capture::StreamKey{key_[0].destination, key_[0].source};
  }
  // `mss`: the MSS option both SYNs carry (none by default).
  void handshake(bool smc_client = false, bool smc_server = false, std::optional<std::uint16_t> mss = std::nullopt) {
    capture::TcpOptions c, s;
    c.smc = smc_client;
    s.smc = smc_server;
    c.mss = s.mss = mss;
    auto co = capture::encode_syn_options(c), so = capture::encode_syn_options(s);
    emit(0, isn_[0], {}, capture::TcpFlags{.syn = true}, co, false);
    emit(1, isn_[1], {}, capture::TcpFlags{.ack = true, .syn = true}, so, false);
    emit(0, isn_[0] + 1, {}, capture::TcpFlags{.ack = true}, {}, true);
  }
  // The handshake with each SYN's option octets as given (a multiple of 4).
  void handshake_options(const Bytes& client_options, const Bytes& server_options) {
    emit(0, isn_[0], {}, capture::TcpFlags{.syn = true}, client_options, false);
    emit(1, isn_[1], {}, capture::TcpFlags{.ack = true, .syn = true}, server_options, false);
    emit(0, isn_[0] + 1, {}, capture::TcpFlags{.ack = true}, {}, true);
  }
  // One segment carrying stream[from, from + n) of `side`; returns its frame number.
  std::uint64_t segment(int side, const Bytes& stream, std::size_t from, std::size_t n) {
    return emit(side, isn_[side] + 1 + static_cast<std::uint32_t>(from),
                wire::Bytes(stream).subspan(from, n), capture::TcpFlags{.ack = true, .psh = true}, {}, true);
  }
  // Segments of at most `mss` octets covering stream[from, to).
  void segments(int side, const Bytes& stream, std::size_t from, std::size_t to, std::size_t mss = 1460) {
    for (std::size_t at = from; at < to; at += mss) segment(side, stream, at, std::min(mss, to - at));
  }
  void fin(int side, std::size_t stream_length) {
    emit(side, isn_[side] + 1 + static_cast<std::uint32_t>(stream_length), {},
         capture::TcpFlags{.ack = true, .fin = true}, {}, true);
  }
  std::uint64_t frames() const { return frames_; }
  std::string save(const std::string& name) {
    const std::string path = ::testing::TempDir() + name;
    std::ofstream f(path, std::ios::binary);
    f << out_.str();
    return path;
  }
  // The peer's acknowledgment number for a side (its next expected octet).
  std::uint32_t acked[2] = {0, 0};

 private:
  std::uint64_t emit(int side, std::uint32_t seq, wire::Bytes payload, capture::TcpFlags flags, wire::Bytes options,
                     bool ack) {
    capture::TcpSegmentSpec spec;
    spec.key = key_[side];
    spec.seq = capture::SeqNum{seq};
    spec.ack = capture::SeqNum{ack ? isn_[1 - side] + 1 : 0};
    spec.flags = flags;
    spec.options = options;
    spec.payload = payload;
    // Acknowledge nothing beyond the peer's SYN, so a gap is not certain
    // until the end of the capture (tests state their loss explicitly).
    const auto ip = capture::build_ip_tcp(spec);
    std::vector<std::uint8_t> frame;
    const capture::MacAddress dst{2, 0, 0, 0, 0, static_cast<std::uint8_t>(2 - side)};
    const capture::MacAddress src{2, 0, 0, 0, 0, static_cast<std::uint8_t>(1 + side)};
    static constexpr std::uint16_t kTags[] = {100, 200};
    const std::uint16_t ethertype = ip_ == Ip::kV4 ? 0x0800 : 0x86dd;
    switch (framing_) {
      case Framing::kEthernet: frame = capture::build_ethernet(dst, src, ethertype, ip); break;
      case Framing::kVlan: frame = capture::build_ethernet(dst, src, ethertype, ip, kTags); break;
      case Framing::kSll2:
        // Protocol, reserved, ifindex 1, ARPHRD_ETHER, outgoing, 6-octet address (padded to 8).
        frame = {static_cast<std::uint8_t>(ethertype >> 8), static_cast<std::uint8_t>(ethertype), 0, 0, 0, 0, 0, 1,
                 0x00, 0x01, 4, 6};
        frame.insert(frame.end(), src.begin(), src.end());
        frame.insert(frame.end(), {0, 0});
        frame.insert(frame.end(), ip.begin(), ip.end());
        break;
      case Framing::kNull: {
        // AF_INET, or BSD's AF_INET6 (24), in the capturing host's byte order.
        const std::uint32_t af_inet = ip_ == Ip::kV4 ? 2 : 24;
        frame.resize(4);
        std::memcpy(frame.data(), &af_inet, 4);
        frame.insert(frame.end(), ip.begin(), ip.end());
        break;
      }
    }
    writer_.write(capture::Timestamp{1'700'000'000'000'000'000 + static_cast<std::int64_t>(frames_) * 1000}, frame);
    return ++frames_;
  }
  std::ostringstream out_;
  capture::CaptureWriter writer_;
  capture::StreamKey key_[2];
  std::uint32_t isn_[2] = {0x10000000, 0x20000000};
  std::uint64_t frames_ = 0;
  Framing framing_;
  Ip ip_;
};

// A capture file analyzed as `rdmaconf analyze` analyzes it; a file it
// cannot read fails the test (and gives an empty result).
inline AnalysisResult analyze(const std::string& path, const AnalysisOptions& options = {},
                              AnalysisListener* listener = nullptr) {
  std::string error;
  auto r = analyze_file(path, options, listener, error);
  EXPECT_TRUE(r.has_value()) << error;
  return r ? std::move(*r) : AnalysisResult{};
}
inline AnalysisResult analyze(const std::string& path, AnalysisListener* listener) { return analyze(path, {}, listener); }

// A result's violations, one a line, for a failing assertion's message.
inline std::string dump(const AnalysisResult& r) {
  std::string s;
  for (const ViolationRecord& v : r.violations)
    s += "frame " + std::to_string(v.frame) + " " + std::string(v.rule->id) + ": " + v.text + "\n";
  return s;
}

}  // namespace rdmaconf::analysis::testing
