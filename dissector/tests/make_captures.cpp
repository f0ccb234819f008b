// Writes the captures the plugin tests read, and what the reference codecs
// say each one holds.
//
//   make_captures DIR                 the test captures + DIR/expected.json
//   make_captures --bench FILE MIB    one large marker-free iWARP capture
//   make_captures --fuzz DIR [CORPUS] captures built from a fuzz corpus (or,
//                                     without one, from seeded random mutations)
//
// Every connection is recorded with capture::TcpRecorder (Ethernet/IPv4/TCP,
// checksums, handshake, FIN). The octets each side sends are built with the
// reference stack (mpa::encode_req_rep, mpa::Framer, the DDP/RDMAP/CLC
// declarations); segment boundaries are chosen on purpose (an FPDU whose
// first octet ends a segment, several FPDUs per segment, Markers at every
// placement). The expectations are computed from the octets, not from the
// way they were built: each direction's full-operation stream is run through
// mpa::Deframer and the DDP/RDMAP headers are read from the ULPDUs, so the
// test compares tshark's view with the reference codecs' view of the same
// octets. A crafted capture also names the one rule id it violates.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "clc/decline_codes.hpp"
#include "clc/messages.hpp"
#include "ddp/headers.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/terminate.hpp"

namespace fs = std::filesystem;
using namespace rdmaconf;
using Bytes = std::vector<std::uint8_t>;
using Side = capture::TcpRecorder::Side;

namespace {

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

Bytes untagged(const Untagged& u, const Bytes& payload) {
  using F = ddp::UntaggedSpec::Field;
  ddp::UntaggedHeader h;
  const std::uint8_t op = u.raw_opcode ? *u.raw_opcode : static_cast<std::uint8_t>(u.op);
  h.set(F::T, 0).set(F::L, u.last).set(F::DV, u.dv).set(F::RsvdULP, static_cast<std::uint8_t>(u.rv << 6 | op));
  h.set(F::RsvdULP32, u.inval_stag).set(F::QN, u.qn).set(F::MSN, u.msn).set(F::MO, u.mo);
  Bytes out(h.bytes().begin(), h.bytes().end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

Bytes tagged(rdmap::Opcode op, std::uint32_t stag, std::uint64_t to, bool last, const Bytes& payload,
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
Bytes bytes_of(const H& h) {
  return Bytes(h.bytes().begin(), h.bytes().end());
}

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

Bytes read_request(std::uint32_t sink_stag, std::uint64_t sink_to, std::uint32_t size, std::uint32_t src_stag,
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
};

// Decodes a direction's full-operation stream the way a receiver would.
void expect_fpdus(Expect& e, const Bytes& stream, bool markers, bool crc) {
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
    const auto c = ddp::Control::from_octets(h[0], h[1]);
    if (have < c.header_size()) continue;
    const std::uint8_t op = rdmap::Control::from_octet(c.rsvd_ulp).opcode;
    char key[96];
    if (c.tagged) {
      std::snprintf(key, sizeof key, "op=%u stag=%u", op, static_cast<unsigned>(wire::load_be(wire::Bytes(h).subspan(2, 4))));
    } else {
      std::snprintf(key, sizeof key, "op=%u msn=%u", op, static_cast<unsigned>(wire::load_be(wire::Bytes(h).subspan(10, 4))));
    }
    ++e.counts["opcode." + std::to_string(op)];
    e.keys.push_back(key);
  }
}

// ------------------------------------------------------- one connection

class Connection {
 public:
  Connection(capture::CaptureWriter& w, std::uint16_t client_port, bool smc_option = false)
      : rec_(w, endpoint(1, client_port), endpoint(2, 4791), capture::Timestamp{1'700'000'000'000'000'000}, 1460) {
    capture::TcpOptions o;
    o.mss = 1460;
    o.smc = smc_option;
    rec_.open(o, o);
  }
  ~Connection() { rec_.close(); }

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

// ------------------------------------------------------- the captures

struct Writer {
  explicit Writer(const fs::path& p) : out(p, std::ios::binary), w(out, capture::FileFormat::kPcapng) {}
  std::ofstream out;
  capture::CaptureWriter w;
};

// A clean RFC 6581 connection with every RDMAP message kind, cut so that an
// FPDU's first octet ends a segment, FPDUs share segments and span several.
void basic(const fs::path& dir, std::vector<Expect>& all) {
  Expect e{"iwarp_basic", {}, {}, {}};
  Writer w(dir / "iwarp_basic.pcapng");
  {
    MpaConnection::Options o;
    o.request_enhanced = mpa::EnhancedData{true, true, true, true, 8, 4};  // peer-to-peer, offers every RTR
    o.reply_enhanced = mpa::EnhancedData{true, false, true, false, 4, 8};  // chooses zero-length Write
    MpaConnection c(w.w, e, 40001, o);
    c.startup();
    // RTR: a zero-length RDMA Write (RFC 6581 §9.2).
    c.fpdu(Side::kClient, tagged(rdmap::Opcode::kRdmaWrite, 0, 0, true, {}));
    c.flush(Side::kClient);
    std::uint32_t msn = 1;
    for (int k = 0; k < 4; ++k)
      c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, msn++, 0, true), pattern(100 + 37 * k, 1)));
    c.flush(Side::kClient, {1, 300, 5, 2000});  // the first FPDU's first octet ends a segment
    // A two-segment RDMA Write.
    c.fpdu(Side::kClient, tagged(rdmap::Opcode::kRdmaWrite, 0x1234, 0x1000, false, pattern(1000, 2)));
    c.fpdu(Side::kClient, tagged(rdmap::Opcode::kRdmaWrite, 0x1234, 0x1000 + 1000, true, pattern(900, 3)));
    c.flush(Side::kClient, {700, 700, 700});
    // Read Request on QN 1, answered by a two-segment Read Response.
    c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 1, 0, true),
                                   read_request(0xaaaa, 0x2000, 1500, 0xbbbb, 0x100)));
    c.flush(Side::kClient);
    c.fpdu(Side::kServer, tagged(rdmap::Opcode::kRdmaReadResponse, 0xaaaa, 0x2000, false, pattern(1000, 4)));
    c.fpdu(Side::kServer, tagged(rdmap::Opcode::kRdmaReadResponse, 0xaaaa, 0x2000 + 1000, true, pattern(500, 5)));
    c.flush(Side::kServer, {3, 1460});
    // RFC 7306: Immediate Data, an Atomic Request and its Response.
    rdmap::ImmediateDataHeader imm;
    imm.set(rdmap::ImmediateDataSpec::Field::ImmediateData, 0x0102030405060708ull);
    c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kImmediateData, 0, msn++, 0, true), bytes_of(imm)));
    using AF = rdmap::AtomicRequestSpec::Field;
    rdmap::AtomicRequestHeader ar;
    ar.set(AF::AtomicOpcode, 0).set(AF::RequestIdentifier, 7).set(AF::RemoteSTag, 0xcccc).set(AF::RemoteTO, 0x40);
    ar.set(AF::AddOrSwapData, 1);
    c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kAtomicRequest, 3, 1, 0, true), bytes_of(ar)));
    c.flush(Side::kClient, {50});
    rdmap::AtomicResponseHeader aresp;
    aresp.set(rdmap::AtomicResponseSpec::Field::OriginalRequestIdentifier, 7);
    c.fpdu(Side::kServer, untagged(u(rdmap::Opcode::kAtomicResponse, 3, 1, 0, true), bytes_of(aresp)));
    c.fpdu(Side::kServer, untagged(u(rdmap::Opcode::kSendWithInvalidate, 0, 1, 0, true, 0x5555), pattern(64, 6)));
    c.flush(Side::kServer);
  }
  all.push_back(e);
}

// Markers in both directions, FPDU sizes that put Markers in the header, the
// ULPDU, the PAD/CRC and exactly at an FPDU's end, cut at odd offsets.
void markers(const fs::path& dir, std::vector<Expect>& all) {
  Expect e{"iwarp_markers", {}, {}, {}};
  Writer w(dir / "iwarp_markers.pcapng");
  {
    MpaConnection::Options o;
    o.revision = 1;
    o.markers_to_responder = true;
    o.markers_to_initiator = true;
    MpaConnection c(w.w, e, 40002, o);
    c.startup();
    std::uint32_t msn = 1;
    const std::size_t sizes[] = {502, 10, 1200, 3, 498, 0, 2000, 77, 506, 1, 4000, 33};
    for (std::size_t s : sizes) c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, msn++, 0, true), pattern(s, 9)));
    c.flush(Side::kClient, {1, 511, 2, 700, 1460, 13});
    std::uint64_t to = 0;
    for (std::size_t s : sizes) {
      c.fpdu(Side::kServer, tagged(rdmap::Opcode::kRdmaWrite, 0x77, to, true, pattern(s, 11)));
      to += s;
    }
    c.flush(Side::kServer, {1460, 5, 1000});
  }
  all.push_back(e);
}

// SMC-R over CLC: the SMC option in both SYNs, a v1 Proposal/Accept/Confirm,
// then a second connection with a v2 Proposal answered by a v2 Decline.
void clc_captures(const fs::path& dir, std::vector<Expect>& all) {
  using HF = clc::ClcHeaderSpec::Field;
  Expect e{"clc", {}, {}, {}};
  Writer w(dir / "clc.pcapng");
  auto header = [](clc::MessageType t, std::uint8_t version) {
    clc::ClcHeader h;
    h.set(HF::Eyecatcher, clc::kEyecatcherSmcr).set(HF::Type, static_cast<std::uint8_t>(t)).set(HF::Version, version);
    return h;
  };
  const Bytes gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 1};
  {
    Connection c(w.w, 40010, true);
    clc::Proposal p;
    p.header = header(clc::MessageType::kProposal, 1);
    using PF = clc::ProposalBodySpec::Field;
    p.body.set(PF::PeerId, 0x0001020000000001ull).set_octets(PF::Gid, gid).set_octets(PF::Mac, Bytes{2, 0, 0, 0, 0, 1});
    p.ip_prefix.emplace();
    p.ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0xc0000200).set(clc::IpPrefixSpec::Field::PrefixLength, 24);
    clc::finalize(p);
    c.send(Side::kClient, clc::encode(p), {10, 1460});  // split inside the header
    ++e.counts["clc.1"];
    for (clc::MessageType t : {clc::MessageType::kAccept, clc::MessageType::kConfirm}) {
      clc::AcceptConfirm m;
      m.header = header(t, 1);
      clc::set_type_bits_field(m.header, clc::kAcceptConfirmTypeBits[0], 1);  // first contact
      using SF = clc::SmcrAcceptConfirmSpec::Field;
      m.smcr.emplace();
      m.smcr->set(SF::PeerId, 0x0001020000000002ull).set_octets(SF::Gid, gid).set_octets(SF::Mac, Bytes{2, 0, 0, 0, 0, 2});
      m.smcr->set(SF::QpNumber, 0x123).set(SF::RmbRkey, 0x99).set(SF::RmbeIndex, 1).set(SF::RmbeAlertToken, 5);
      m.smcr->set(SF::QpMtu, 3).set(SF::RmbVirtualAddress, 0x10000).set(SF::InitialPsn, 1);
      clc::finalize(m);
      c.send(t == clc::MessageType::kAccept ? Side::kServer : Side::kClient, clc::encode(m), {30, 1460});
      ++e.counts["clc." + std::to_string(static_cast<int>(t))];
    }
  }
  {
    Connection c(w.w, 40011, true);
    clc::Proposal p;
    p.header = header(clc::MessageType::kProposal, 2);
    clc::set_type_bits_field(p.header, clc::kProposalTypeBits[0], static_cast<std::uint8_t>(clc::SmcType::kR));
    clc::set_type_bits_field(p.header, clc::kProposalTypeBits[1], static_cast<std::uint8_t>(clc::SmcType::kNone));
    using PF = clc::ProposalBodySpec::Field;
    p.body.set(PF::PeerId, 0x0001020000000001ull).set_octets(PF::Gid, gid).set_octets(PF::Mac, Bytes{2, 0, 0, 0, 0, 1});
    p.smcd.emplace();
    p.v2_ext.emplace();
    p.v2_ext->set(clc::V2ExtensionSpec::Field::Release, 1).set_octets(clc::V2ExtensionSpec::Field::RoceV2Gid, gid);
    clc::EidEntry eid;
    const std::string text = "RDMACONF-TEST-EID               ";
    eid.set_octets(clc::EidSpec::Field::Eid, wire::Bytes(reinterpret_cast<const std::uint8_t*>(text.data()), 32));
    p.user_eids.push_back(eid);
    clc::finalize(p);
    c.send(Side::kClient, clc::encode(p));
    ++e.counts["clc.1"];
    clc::Decline d;
    d.header = header(clc::MessageType::kDecline, 2);
    d.body.set(clc::DeclineSpec::Field::PeerId, 0x0001020000000002ull).set(clc::DeclineSpec::Field::PeerDiagnosis, 0x03030008);
    d.body.set(clc::DeclineSpec::Field::OsType, clc::kOsLinux);
    d.v2_diagnosis.emplace();
    clc::finalize(d);
    c.send(Side::kServer, clc::encode(d));
    ++e.counts["clc.4"];
  }
  all.push_back(e);
}

// One capture per violation kind: a clean startup, then the one fault.
void violations(const fs::path& dir, std::vector<Expect>& all) {
  struct Case {
    std::string name;
    std::string rule;
    MpaConnection::Options options;
    std::function<void(MpaConnection&)> run;  // after startup unless it does its own
    bool own_startup = false;
  };
  const Bytes data = pattern(200, 21);
  std::vector<Case> cases = {
      {"v_crc", "rfc5044-4.4-crc", {}, [&](MpaConnection& c) {
         mpa::FramerOverrides ov;
         ov.crc = 0xdeadbeef;
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data), ov);
         c.flush(Side::kClient);
       }},
      {"v_marker", "rfc5044-4.3-marker-fpduptr", {.markers_to_responder = true}, [&](MpaConnection& c) {
         mpa::FramerOverrides ov;
         ov.fpdu_ptr = 3;
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), pattern(1000, 1)), ov);
         c.flush(Side::kClient);
       }},
      {"v_pad", "rfc5044-4.1-pad-zero", {}, [&](MpaConnection& c) {
         mpa::FramerOverrides ov;
         ov.pad_octet = 0xff;
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), pattern(201, 1)), ov);
         c.flush(Side::kClient);
       }},
      {"v_key", "rfc5044-7.1.1-key", {}, [&](MpaConnection& c) {
         c.request();
         c.reply([](mpa::ReqRepFields& f) { f.key = mpa::kRequestKey; });
       }, true},
      {"v_pd_length", "rfc5044-7.1.1-pd-length-max", {}, [&](MpaConnection& c) {
         c.request([](mpa::ReqRepFields& f) { f.pd_length = 600; });
       }, true},
      {"v_res", "rfc5044-7.1.1-res-zero", {}, [&](MpaConnection& c) {
         c.request([](mpa::ReqRepFields& f) { f.res = 0x4; });
         c.reply();
       }, true},
      {"v_before_reply", "rfc5044-7.1.2-no-fpdu-before-reply", {}, [&](MpaConnection& c) {
         c.request();
         c.stray_fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data));
       }, true},
      {"v_after_reject", "rfc5044-7.1.2-no-fpdu-after-reject", {.reject = true}, [&](MpaConnection& c) {
         c.stray_fpdu(Side::kServer, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data));
       }},
      {"v_p2p", "rfc6581-9.2-p2p-echo",
       {.request_enhanced = mpa::EnhancedData{true, true, false, false, 4, 4},
        .reply_enhanced = mpa::EnhancedData{true, false, false, true, 4, 4}},
       [&](MpaConnection&) {}},
      {"v_dv", "rfc5041-4.1-dv", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged([] { Untagged x; x.dv = 2; return x; }(), data));
         c.flush(Side::kClient);
       }},
      {"v_rv", "rfc5040-4.2-rv", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged([] { Untagged x; x.rv = 0; return x; }(), data));
         c.flush(Side::kClient);
       }},
      {"v_opcode", "rfc5040-4.3-opcode-defined", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged([] { Untagged x; x.raw_opcode = 0xd; return x; }(), data));
         c.flush(Side::kClient);
       }},
      {"v_t_bit", "rfc5040-4.3-opcode-t-bit", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, tagged(rdmap::Opcode::kSend, 1, 0, true, data));
         c.flush(Side::kClient);
       }},
      {"v_qn", "rfc5041-4.3-qn-valid", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 2, 1, 0, true), data));
         c.flush(Side::kClient);
       }},
      {"v_single_segment", "rfc5040-4.3-single-segment", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 1, 0, false),
                                        read_request(1, 0, 10, 2, 0)));
         c.flush(Side::kClient);
       }},
      {"v_payload_size", "rfc5040-4.3-payload-size", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kImmediateData, 0, 1, 0, true), pattern(12, 1)));
         c.flush(Side::kClient);
       }},
      {"v_msn", "rfc5041-4.3-msn-sequence", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data));
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 3, 0, true), data));
         c.flush(Side::kClient);
       }},
      {"v_unsolicited_read", "rfc5040-5.2.2-read-response-solicited", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kServer, tagged(rdmap::Opcode::kRdmaReadResponse, 9, 0, true, data));
         c.flush(Side::kServer);
       }},
      {"v_read_sink", "rfc5040-5.2.2-read-response-sink", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 1, 0, true), read_request(5, 0, 200, 6, 0)));
         c.flush(Side::kClient);
         c.fpdu(Side::kServer, tagged(rdmap::Opcode::kRdmaReadResponse, 7, 0, true, data));
         c.flush(Side::kServer);
       }},
      {"v_short_ulpdu", "rfc5041-4-segment-header", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, Bytes{0x41, 0x43, 0, 0, 0});
         c.flush(Side::kClient);
       }},
      {"v_terminate", "rfc5040-4.8-terminate-format", {}, [&](MpaConnection& c) {
         // R set without D: inconsistent header control bits.
         using TF = rdmap::TerminateControlSpec::Field;
         rdmap::TerminateControlHeader t;
         t.set(TF::Layer, 0).set(TF::EType, 1).set(TF::ErrorCode, 0).set(TF::R, 1);
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kTerminate, 2, 1, 0, true), bytes_of(t)));
         c.flush(Side::kClient);
       }},
  };
  std::uint16_t port = 41000;
  for (Case& k : cases) {
    Expect e{k.name, {}, {}, {k.rule}};
    {
      Writer w(dir / (k.name + ".pcapng"));
      MpaConnection c(w.w, e, port++, k.options);
      if (!k.own_startup) c.startup();
      k.run(c);
    }
    all.push_back(e);
  }

  // CLC: a trailer that does not repeat the eyecatcher, and a Decline whose
  // Out of Sync bit disagrees with its diagnosis.
  using HF = clc::ClcHeaderSpec::Field;
  for (int k = 0; k < 2; ++k) {
    Expect e{k == 0 ? "v_clc_trailer" : "v_clc_out_of_sync", {}, {},
             {k == 0 ? "rfc7609-a.2-clc-format" : "rfc7609-c.4-decline-out-of-sync"}};
    {
      Writer w(dir / (e.name + ".pcapng"));
      Connection c(w.w, port++, true);
      clc::Decline d;
      d.header.set(HF::Eyecatcher, clc::kEyecatcherSmcr).set(HF::Type, 4).set(HF::Version, 1);
      d.body.set(clc::DeclineSpec::Field::PeerDiagnosis, clc::kDeclNoSmcDev);
      clc::finalize(d);
      if (k == 1) clc::set_type_bits_field(d.header, clc::kDeclineTypeBits[0], 1);
      Bytes octets = clc::encode(d);
      if (k == 0) octets[octets.size() - 1] ^= 0xff;
      c.send(Side::kServer, octets);
      ++e.counts["clc.4"];
    }
    all.push_back(e);
  }
}

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o.push_back('\\');
    o.push_back(c);
  }
  return o + "\"";
}

void write_expectations(const fs::path& file, const std::vector<Expect>& all) {
  std::ofstream out(file);
  out << "[\n";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const Expect& e = all[i];
    out << "  {\"name\": " << json_string(e.name) << ", \"file\": " << json_string(e.name + ".pcapng")
        << ", \"counts\": {";
    bool first = true;
    for (const auto& [k, v] : e.counts) {
      out << (first ? "" : ", ") << json_string(k) << ": " << v;
      first = false;
    }
    out << "}, \"keys\": [";
    for (std::size_t k = 0; k < e.keys.size(); ++k) out << (k ? ", " : "") << json_string(e.keys[k]);
    out << "], \"violations\": [";
    for (std::size_t k = 0; k < e.violations.size(); ++k) out << (k ? ", " : "") << json_string(e.violations[k]);
    out << "]}" << (i + 1 < all.size() ? "," : "") << "\n";
  }
  out << "]\n";
}

// A marker-free CRC connection carrying `mib` MiB of RDMA Writes and Sends in
// MSS-sized segments, for the side-by-side benchmark.
int bench(const fs::path& file, std::size_t mib) {
  Expect e{"bench", {}, {}, {}};
  Writer w(file);
  const std::size_t target = mib << 20;
  std::size_t written = 0;
  std::uint16_t port = 50000;
  while (written < target) {
    MpaConnection c(w.w, e, port++, {});
    c.startup();
    std::uint32_t msn = 1;
    std::uint64_t to = 0;
    const Bytes payload = pattern(1400, 3);
    for (int k = 0; k < 20000 && written < target; ++k) {
      if (k % 8 == 7)
        c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, msn++, 0, true), Bytes(payload.begin(), payload.begin() + 200)));
      else {
        c.fpdu(Side::kClient, tagged(rdmap::Opcode::kRdmaWrite, 0x100, to, true, Bytes(payload.begin(), payload.begin() + 1390)));
        to += 1390;
      }
      c.flush(Side::kClient);
      written += 1460 + 54;
    }
  }
  return 0;
}

// Captures built from fuzz inputs: each input becomes (a) the initiator's
// full-operation stream after a clean startup, (b) the whole initiator
// stream (Request frame position), (c) a CLC stream. Without a corpus,
// seeded mutations of valid streams stand in.
int fuzz(const fs::path& dir, const std::optional<fs::path>& corpus) {
  fs::create_directories(dir);
  std::vector<Bytes> inputs;
  if (corpus && fs::exists(*corpus)) {
    for (const auto& entry : fs::recursive_directory_iterator(*corpus)) {
      if (!entry.is_regular_file() || entry.file_size() > (1u << 20)) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      inputs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
  }
  if (inputs.empty()) {
    std::mt19937 rng(20240601);
    for (int k = 0; k < 300; ++k) {
      mpa::Framer f({k % 2 == 0, true, 0});
      Bytes s;
      for (int n = 0; n < 4; ++n)
        f.frame(wire::Bytes(untagged(u(static_cast<rdmap::Opcode>(rng() % 12), static_cast<std::uint32_t>(rng() % 4), 1, 0, (rng() & 1) != 0),
                                     pattern(rng() % 700, static_cast<std::uint8_t>(k)))),
                s);
      const int flips = 1 + static_cast<int>(rng() % 8);
      for (int i = 0; i < flips && !s.empty(); ++i) s[rng() % s.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      if (rng() % 4 == 0 && !s.empty()) s.resize(rng() % s.size());
      inputs.push_back(s);
    }
  }
  std::size_t file_no = 0;
  for (std::size_t base = 0; base < inputs.size(); base += 50) {
    Writer w(dir / ("fuzz_" + std::to_string(file_no++) + ".pcapng"));
    Expect ignored{"fuzz", {}, {}, {}};
    std::uint16_t port = 20000;
    for (std::size_t i = base; i < std::min(inputs.size(), base + 50); ++i) {
      const Bytes& in = inputs[i];
      {
        MpaConnection::Options o;
        o.markers_to_responder = i % 2 == 1;
        MpaConnection c(w.w, ignored, port++, o);
        c.startup();
        c.raw(Side::kClient, in, {1 + i % 1460});
      }
      {
        MpaConnection c(w.w, ignored, port++, {});
        c.raw(Side::kClient, in);
      }
      {
        Connection c(w.w, port++, true);
        Bytes clc = {0xe2, 0xd4, 0xc3, 0xd9};
        clc.insert(clc.end(), in.begin(), in.end());
        c.send(Side::kClient, clc, {7, 1460});
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 4 && std::string(argv[1]) == "--bench") return bench(argv[2], std::stoul(argv[3]));
  if (argc >= 3 && std::string(argv[1]) == "--fuzz")
    return fuzz(argv[2], argc >= 4 ? std::optional<fs::path>(argv[3]) : std::nullopt);
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_captures DIR | --bench FILE MIB | --fuzz DIR [CORPUS]\n");
    return 2;
  }
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  std::vector<Expect> all;
  basic(dir, all);
  markers(dir, all);
  clc_captures(dir, all);
  violations(dir, all);
  write_expectations(dir / "expected.json", all);
  return 0;
}
