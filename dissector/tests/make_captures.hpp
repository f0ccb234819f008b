// What the capture-writing programs share (make_captures*.cpp): the ULPDU
// builders, one recorded TCP connection and one MPA connection over it, the
// expectations computed from the octets, and the pcapng writer. The programs
// are one test-data tool in three files: make_captures.cpp (main, the clean
// and MPA/CLC captures, loss, diagnosis, expectations), make_captures_violations.cpp
// (one crafted capture per rule id) and make_captures_bench.cpp (the benchmark
// capture and captures built from a fuzz corpus).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "clc/decline_codes.hpp"
#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "ddp/headers.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/terminate.hpp"
#include "wire/crc32c.hpp"

namespace fs = std::filesystem;
using namespace rdmaconf;
using Bytes = std::vector<std::uint8_t>;
using Side = capture::TcpRecorder::Side;

namespace rdmaconf::make_captures {

namespace fs = std::filesystem;
using Bytes = std::vector<std::uint8_t>;
using Side = capture::TcpRecorder::Side;

// ------------------------------------------------------- ULPDU builders

struct Untagged {
  rdmap::Opcode op = rdmap::Opcode::kSend;
  std::uint32_t qn = 0, msn = 1, mo = 0;
  bool last = true;
  std::uint32_t inval_stag = 0;
  std::uint8_t dv = ddp::kDdpVersion, rv = rdmap::kRdmapVersion;
  std::optional<std::uint8_t> raw_opcode;  // a reserved opcode value
};

Untagged u(rdmap::Opcode op, std::uint32_t qn, std::uint32_t msn, std::uint32_t mo, bool last,
           std::uint32_t inval_stag = 0) {
  Untagged x;
  x.op = op;
  x.qn = qn;
  x.msn = msn;
  x.mo = mo;
  x.last = last;
  x.inval_stag = inval_stag;
  return x;
}

inline Bytes untagged(const Untagged& u, const Bytes& payload) {
  using F = ddp::UntaggedSpec::Field;
  ddp::UntaggedHeader h;
  const std::uint8_t op = u.raw_opcode ? *u.raw_opcode : static_cast<std::uint8_t>(u.op);
  h.set(F::T, 0).set(F::L, u.last).set(F::DV, u.dv).set(F::RsvdULP, static_cast<std::uint8_t>(u.rv << 6 | op));
  h.set(F::RsvdULP32, u.inval_stag).set(F::QN, u.qn).set(F::MSN, u.msn).set(F::MO, u.mo);
  Bytes out(h.bytes().begin(), h.bytes().end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

inline Bytes tagged(rdmap::Opcode op, std::uint32_t stag, std::uint64_t to, bool last, const Bytes& payload,
             std::uint8_t dv = ddp::kDdpVersion) {
  using F = ddp::TaggedSpec::Field;
  ddp::TaggedHeader h;
  h.set(F::T, 1).set(F::L, last).set(F::DV, dv).set(F::RsvdULP, rdmap::Control::octet(op));
  h.set(F::STag, stag).set(F::TO, to);
  Bytes out(h.bytes().begin(), h.bytes().end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

template <typename H>
inline Bytes bytes_of(const H& h) {
  return Bytes(h.bytes().begin(), h.bytes().end());
}

inline Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

inline Bytes read_request(std::uint32_t sink_stag, std::uint64_t sink_to, std::uint32_t size, std::uint32_t src_stag,
                   std::uint64_t src_to) {
  using F = rdmap::ReadRequestSpec::Field;
  rdmap::ReadRequestHeader h;
  h.set(F::SinkSTag, sink_stag).set(F::SinkTO, sink_to).set(F::ReadSize, size);
  h.set(F::SourceSTag, src_stag).set(F::SourceTO, src_to);
  return bytes_of(h);
}

// ------------------------------------------------------- expectations

struct Expect {
  std::string name;
  std::map<std::string, int> counts;  // "mpa_request", "fpdus", "opcode.0x3", "clc.1"...
  std::vector<std::string> keys;      // "op=0x3 msn=1", "op=0x0 stag=0x1234" ...
  std::vector<std::string> violations;
  std::vector<std::string> mistakes = {};  // diagnosis captures: the hint analyze must give (wire::Hint::mistake)
};

// Decodes a direction's full-operation stream the way a receiver would.
inline void expect_fpdus(Expect& e, const Bytes& stream, bool markers, bool crc) {
  mpa::DeframerConfig cfg;
  cfg.markers = markers;
  cfg.crc = crc;
  cfg.fail_on_error = false;
  mpa::Deframer d(cfg);
  std::size_t at = 0;
  while (at < stream.size()) {
    auto r = d.next(wire::Bytes(stream).subspan(at));
    const auto* f = std::get_if<mpa::Fpdu>(&r);
    if (!f) break;
    at += f->consumed;
    ++e.counts["fpdus"];
    std::array<std::uint8_t, ddp::kUntaggedHeaderSize> h{};
    const std::size_t have = std::min(f->ulpdu().size(), h.size());
    if (have < 2) continue;
    f->ulpdu().copy_prefix(wire::MutableBytes(h).first(have));
    const auto c = ddp::Control::read(h);
    if (have < c.header_size()) continue;
    const std::uint8_t op = rdmap::Control::from_octet(c.rsvd_ulp).opcode;
    char key[96];
    if (c.tagged) {
      std::snprintf(key, sizeof key, "op=%u stag=%u", op,
                    static_cast<unsigned>(ddp::TaggedHeader::read(h, ddp::TaggedSpec::Field::STag)));
    } else {
      std::snprintf(key, sizeof key, "op=%u msn=%u", op,
                    static_cast<unsigned>(ddp::UntaggedHeader::read(h, ddp::UntaggedSpec::Field::MSN)));
    }
    ++e.counts["opcode." + std::to_string(op)];
    e.keys.push_back(key);
  }
}

// ------------------------------------------------------- one connection

class Connection {
 public:
  // open: write the handshake; without it the capture starts mid-connection.
  Connection(capture::CaptureWriter& w, std::uint16_t client_port, bool smc_option = false, bool open = true)
      : rec_(w, endpoint(1, client_port), endpoint(2, 4791), capture::Timestamp{1'700'000'000'000'000'000}, 1460) {
    capture::TcpOptions o;
    o.smc = smc_option;
    // No MSS option: these captures cut FPDUs on purpose, to exercise the
    // plugin's reassembly, and without the receiver's MSS neither analyze
    // nor the plugin judges how a sender segmented (RFC 5044 §5.1).
    if (open) rec_.open(o, o, false);
  }
  // A handshake with each SYN's options as given.
  Connection(capture::CaptureWriter& w, std::uint16_t client_port, const capture::TcpOptions& client,
             const capture::TcpOptions& server)
      : rec_(w, endpoint(1, client_port), endpoint(2, 4791), capture::Timestamp{1'700'000'000'000'000'000}, 1460) {
    rec_.open(client, server, false);
  }
  ~Connection() { rec_.close(); }
  void lose(Side s, std::size_t octets) { rec_.lose(s, octets); }

  // Sends octets cut at the given sizes (cycled), each piece one segment.
  void send(Side s, const Bytes& octets, std::vector<std::size_t> cuts = {1460}) {
    std::size_t at = 0, k = 0;
    while (at < octets.size()) {
      std::size_t n = std::min(cuts[k++ % cuts.size()], octets.size() - at);
      if (n == 0) n = 1;
      rec_.send(s, wire::Bytes(octets).subspan(at, n));
      at += n;
    }
  }

 private:
  static capture::RecordedEndpoint endpoint(std::uint8_t host, std::uint16_t port) {
    capture::RecordedEndpoint e;
    e.mac = {0x02, 0, 0, 0, 0, host};
    e.address = capture::ipv4(192, 0, 2, host);
    e.port = port;
    e.isn = capture::SeqNum{0x10000000u * host + 12345};
    return e;
  }
  capture::TcpRecorder rec_;
};

// An MPA connection: startup, then FPDUs queued per side and flushed with
// chosen segment cuts; the expectations follow the octets.
class MpaConnection {
 public:
  struct Options {
    bool markers_to_responder = false;  // the responder's M... set in the Reply
    bool markers_to_initiator = false;  // set in the Request
    bool crc = true;
    std::uint8_t revision = 2;
    std::optional<mpa::EnhancedData> request_enhanced = mpa::EnhancedData{false, false, false, false, 4, 4};
    std::optional<mpa::EnhancedData> reply_enhanced = mpa::EnhancedData{false, false, false, false, 4, 4};
    bool reject = false;
  };

  MpaConnection(capture::CaptureWriter& w, Expect& e, std::uint16_t port, Options o)
      : conn_(w, port), e_(e), o_(o) {
    framer_[0] = mpa::Framer({o.markers_to_responder, o.crc, 0});
    framer_[1] = mpa::Framer({o.markers_to_initiator, o.crc, 0});
  }

  void request(const std::function<void(mpa::ReqRepFields&)>& tweak = {}) {
    mpa::ReqRepFields f;
    f.kind = mpa::FrameKind::kRequest;
    f.markers = o_.markers_to_initiator;
    f.crc = o_.crc;
    f.revision = o_.revision;
    f.enhanced = o_.revision == 2 ? o_.request_enhanced : std::nullopt;
    if (tweak) tweak(f);
    conn_.send(Side::kClient, mpa::encode_req_rep(f));
    ++e_.counts["mpa_request"];
  }
  void reply(const std::function<void(mpa::ReqRepFields&)>& tweak = {}) {
    mpa::ReqRepFields f;
    f.kind = mpa::FrameKind::kReply;
    f.markers = o_.markers_to_responder;
    f.crc = o_.crc;
    f.reject = o_.reject;
    f.revision = o_.revision;
    f.enhanced = o_.revision == 2 ? o_.reply_enhanced : std::nullopt;
    if (tweak) tweak(f);
    conn_.send(Side::kServer, mpa::encode_req_rep(f));
    ++e_.counts[f.key == mpa::kRequestKey ? "mpa_request" : "mpa_reply"];
  }
  void startup() {
    request();
    reply();
  }

  void fpdu(Side s, const Bytes& ulpdu, const mpa::FramerOverrides& ov = {}) {
    const int i = s == Side::kClient ? 0 : 1;
    framer_[i].frame(wire::Bytes(ulpdu), pending_[i], ov);
  }
  void flush(Side s, std::vector<std::size_t> cuts = {1460}) {
    const int i = s == Side::kClient ? 0 : 1;
    conn_.send(s, pending_[i], cuts);
    stream_[i].insert(stream_[i].end(), pending_[i].begin(), pending_[i].end());
    pending_[i].clear();
  }
  void raw(Side s, const Bytes& octets, std::vector<std::size_t> cuts = {1460}) { conn_.send(s, octets, cuts); }
  // Flushes like flush(), but the capture misses `n` octets from `at` on.
  void flush_losing(Side s, std::size_t at, std::size_t n) {
    const int i = s == Side::kClient ? 0 : 1;
    const Bytes& p = pending_[i];
    conn_.send(s, Bytes(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(at)));
    conn_.lose(s, n);
    conn_.send(s, Bytes(p.begin() + static_cast<std::ptrdiff_t>(at + n), p.end()));
    stream_[i].insert(stream_[i].end(), p.begin(), p.end());
    pending_[i].clear();
  }
  // An FPDU a receiver must not take as one (sent where none may be sent):
  // on the wire, but not in the expected FPDUs.
  void stray_fpdu(Side s, const Bytes& ulpdu) {
    mpa::Framer f({false, o_.crc, 0});
    Bytes out;
    f.frame(wire::Bytes(ulpdu), out);
    conn_.send(s, out);
  }

  ~MpaConnection() {
    expect_fpdus(e_, stream_[0], o_.markers_to_responder, o_.crc);
    expect_fpdus(e_, stream_[1], o_.markers_to_initiator, o_.crc);
  }

 private:
  Connection conn_;
  Expect& e_;
  Options o_;
  mpa::Framer framer_[2];
  Bytes pending_[2];
  Bytes stream_[2];
};


struct Writer {
  explicit Writer(const fs::path& p) : out(p, std::ios::binary), w(out, capture::FileFormat::kPcapng) {}
  std::ofstream out;
  capture::CaptureWriter w;
};

// The capture families, one function each; every one appends what it wrote
// to `all`.
void basic(const fs::path& dir, std::vector<Expect>& all);
void markers(const fs::path& dir, std::vector<Expect>& all);
void clc_captures(const fs::path& dir, std::vector<Expect>& all);
void violations(const fs::path& dir, std::vector<Expect>& all);
void gaps(const fs::path& dir, std::vector<Expect>& all);
void diagnosis(const fs::path& dir, std::vector<Expect>& all);
void mid_connection(const fs::path& dir, std::vector<Expect>& all);
void write_expectations(const fs::path& file, const std::vector<Expect>& all);
int bench(const fs::path& file, std::size_t mib);
int fuzz(const fs::path& dir, const std::optional<fs::path>& corpus);

}  // namespace rdmaconf::make_captures
