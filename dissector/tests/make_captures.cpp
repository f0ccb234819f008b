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
//
// Longer than our ~800-line habit, on purpose: it is one test-data program,
// read one capture function at a time (basic, markers, clc_captures,
// violations, gaps, diagnosis, mid_connection, bench, fuzz), each
// independent of the others; what they share (the ULPDU builders, the
// connections, the expectations) is the first 300 lines.
#include <algorithm>
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
  std::vector<std::string> mistakes = {};  // diagnosis captures: the hint analyze must give (wire::Hint::mistake)
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
    c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kAtomicRequest, 1, 2, 0, true), bytes_of(ar)));  // RFC 7306 §5.2: QN 1, after the Read Request
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
      // The Accept carries the server's identity, the Confirm the client's
      // (the Proposal's peer ID, RFC 7609 App. A.2.4).
      const bool accept = t == clc::MessageType::kAccept;
      m.smcr->set(SF::PeerId, accept ? 0x0001020000000002ull : 0x0001020000000001ull).set_octets(SF::Gid, gid);
      m.smcr->set_octets(SF::Mac, Bytes{2, 0, 0, 0, 0, static_cast<std::uint8_t>(accept ? 2 : 1)});
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

// A clean SMC-R v1 exchange (Proposal, Accept, Confirm), first contact.
struct ClcExchange {
  clc::Proposal proposal;
  clc::AcceptConfirm accept, confirm;
};

ClcExchange clean_clc_v1() {
  using HF = clc::ClcHeaderSpec::Field;
  auto header = [](clc::MessageType t) {
    clc::ClcHeader h;
    h.set(HF::Eyecatcher, clc::kEyecatcherSmcr).set(HF::Type, static_cast<std::uint8_t>(t)).set(HF::Version, 1);
    return h;
  };
  const Bytes gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 1};
  ClcExchange x;
  x.proposal.header = header(clc::MessageType::kProposal);
  using PF = clc::ProposalBodySpec::Field;
  x.proposal.body.set(PF::PeerId, 0x0001020000000001ull).set_octets(PF::Gid, gid).set_octets(PF::Mac, Bytes{2, 0, 0, 0, 0, 1});
  x.proposal.ip_prefix.emplace();
  x.proposal.ip_prefix->set(clc::IpPrefixSpec::Field::OutgoingSubnet, 0xc0000200).set(clc::IpPrefixSpec::Field::PrefixLength, 24);
  for (clc::AcceptConfirm* m : {&x.accept, &x.confirm}) {
    const bool accept = m == &x.accept;
    m->header = header(accept ? clc::MessageType::kAccept : clc::MessageType::kConfirm);
    clc::set_type_bits_field(m->header, clc::kAcceptConfirmTypeBits[0], 1);  // first contact
    using SF = clc::SmcrAcceptConfirmSpec::Field;
    m->smcr.emplace();
    m->smcr->set(SF::PeerId, accept ? 0x0001020000000002ull : 0x0001020000000001ull).set_octets(SF::Gid, gid);
    m->smcr->set_octets(SF::Mac, Bytes{2, 0, 0, 0, 0, static_cast<std::uint8_t>(accept ? 2 : 1)});
    m->smcr->set(SF::QpNumber, accept ? 0x123 : 0x456).set(SF::RmbRkey, 0x99).set(SF::RmbeIndex, 1);
    m->smcr->set(SF::RmbeAlertToken, 5).set(SF::QpMtu, 3).set(SF::RmbVirtualAddress, 0x10000).set(SF::InitialPsn, 1);
  }
  return x;
}

// A clean SMC-Rv2 exchange (first contact, release 1), as the reference
// client and server negotiate it (clc/handshake.hpp).
ClcExchange clean_clc_v2() {
  clc::ClientConfig c;
  c.link.peer_id = 0x0001020000000001ull;
  c.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 1};
  c.link.mac = {2, 0, 0, 0, 0, 1};
  c.link.qp_number = 0x456;
  c.offer_v1 = false;
  c.v2.user_eids = {clc::make_eid("RDMACONF-TEST-EID")};
  c.v2.rocev2_gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1};
  clc::ServerConfig v;
  v.link.peer_id = 0x0001020000000002ull;
  v.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 2};
  v.link.mac = {2, 0, 0, 0, 0, 2};
  v.link.qp_number = 0x123;
  v.v2.user_eids = {clc::make_eid("RDMACONF-TEST-EID")};
  clc::ClientHandshake client(c);
  clc::ServerHandshake server(v);
  server.start(true);
  const Bytes proposal = client.start(true).send;
  const Bytes accept = server.on_message(proposal).send;
  const Bytes confirm = client.on_message(accept).send;
  ClcExchange x;
  x.proposal = std::get<clc::Proposal>(*clc::decode(proposal));
  x.accept = std::get<clc::AcceptConfirm>(*clc::decode(accept));
  x.confirm = std::get<clc::AcceptConfirm>(*clc::decode(confirm));
  return x;
}

// One capture per violation kind the observer detects: a clean startup (or
// CLC exchange), then the one fault. `rule` is the row of
// pcap/analysis/rules.hpp the fault breaks; the test checks that
// `rdmaconf analyze` reports it and that the plugin's expert infos are
// exactly analyze's violations (rule id and frame).
void violations(const fs::path& dir, std::vector<Expect>& all) {
  struct Case {
    std::string name;
    std::string rule;
    MpaConnection::Options options;
    std::function<void(MpaConnection&)> run;  // after startup unless it does its own
    bool own_startup = false;
  };
  const Bytes data = pattern(200, 21);
  auto send = [&](MpaConnection& c, Side s, const Bytes& ulpdu, const mpa::FramerOverrides& ov = {}) {
    c.fpdu(s, ulpdu, ov);
    c.flush(s);
  };
  // One forced value in the FPDU's framing (scapy style).
  auto crc = [](std::uint32_t v) { mpa::FramerOverrides o; o.crc = v; return o; };
  auto fpdu_ptr = [](std::uint16_t v) { mpa::FramerOverrides o; o.fpdu_ptr = v; return o; };
  auto marker_res = [](std::uint16_t v) { mpa::FramerOverrides o; o.marker_reserved = v; return o; };
  auto pad_octet = [](std::uint8_t v) { mpa::FramerOverrides o; o.pad_octet = v; return o; };
  using TF = rdmap::TerminateControlSpec::Field;
  std::vector<Case> cases = {
      // ---- MPA startup (RFC 5044 §7.1, RFC 6581)
      {"v_key", "rfc5044-7.1.1-key-reply", {}, [&](MpaConnection& c) {
         c.request();
         c.reply([](mpa::ReqRepFields& f) { f.key = mpa::kRequestKey; });
       }, true},
      {"v_res", "rfc5044-7.1.1-res-zero", {}, [&](MpaConnection& c) {
         c.request([](mpa::ReqRepFields& f) { f.res = 0x4; });
         c.reply();
       }, true},
      {"v_rev", "rfc5044-7.1.1-rev-1", {.revision = 1}, [&](MpaConnection& c) {
         c.request([](mpa::ReqRepFields& f) { f.revision = 3; });
         c.reply();
       }, true},
      {"v_r_in_request", "rfc5044-7.1.1-r-request-zero", {}, [&](MpaConnection& c) {
         c.request([](mpa::ReqRepFields& f) { f.reject = true; });
         c.reply();
       }, true},
      {"v_pd_length", "rfc5044-7.1.1-pd-length-max", {}, [&](MpaConnection& c) {
         c.request([](mpa::ReqRepFields& f) { f.pd_length = 600; });
       }, true},
      {"v_enhanced_short", "rfc6581-6-enhanced-data-present", {}, [&](MpaConnection& c) {
         // S set, but only 2 octets of private data: no room for IRD/ORD.
         c.request([](mpa::ReqRepFields& f) { f.raw_private_data = Bytes{0, 4}; });
         c.reply();
       }, true},
      {"v_reply_rev", "rfc6581-10-reply-rev-not-above", {.revision = 1}, [&](MpaConnection& c) {
         c.request();
         c.reply([](mpa::ReqRepFields& f) {
           f.revision = 2;
           f.enhanced = mpa::EnhancedData{false, false, false, false, 4, 4};
         });
       }, true},
      {"v_before_reply", "rfc5044-7.1.2-initiator-no-early-fpdu", {}, [&](MpaConnection& c) {
         c.request();
         c.stray_fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data));
         c.reply();
       }, true},
      {"v_after_reject", "rfc5044-7.1.2-no-data-after-reject", {.reject = true}, [&](MpaConnection& c) {
         c.stray_fpdu(Side::kServer, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data));
       }},
      {"v_p2p", "rfc6581-9.2-reply-rtr-at-least-one",
       {.request_enhanced = mpa::EnhancedData{true, true, false, false, 4, 4},
        .reply_enhanced = mpa::EnhancedData{true, false, false, false, 4, 4}},
       [&](MpaConnection&) {}},
      {"v_rtr_first", "rfc6581-9.2-rtr-first-fpdu",
       {.request_enhanced = mpa::EnhancedData{true, false, true, false, 4, 4},
        .reply_enhanced = mpa::EnhancedData{true, false, true, false, 4, 4}},
       [&](MpaConnection& c) {  // chose a zero-length Write, sends a Send first
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data));
       }},
      // ---- MPA full operation (RFC 5044 §4)
      {"v_crc", "rfc5044-4.4-crc32c", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data), crc(0xdeadbeef));
       }},
      {"v_marker", "rfc5044-4.2-fpduptr", {.markers_to_responder = true}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), pattern(1000, 1)), fpdu_ptr(3));
       }},
      {"v_marker_res", "rfc5044-4.2-marker-res-zero", {.markers_to_responder = true}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), pattern(1000, 1)), marker_res(0x8000));
       }},
      {"v_pad", "rfc5044-4.1-pad-zero", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), pattern(201, 1)), pad_octet(0xff));
       }},
      {"v_short_ulpdu", "rfc5041-4.4-segment-header", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, Bytes{0x41, 0x43, 0, 0, 0});
       }},
      // ---- DDP (RFC 5041)
      {"v_dv", "rfc5041-4.1-dv-1", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged([] { Untagged x; x.dv = 2; return x; }(), data));
       }},
      {"v_msn", "rfc5041-4.3-msn-increment", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data));
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 3, 0, true), data));
       }},
      {"v_mo", "rfc5041-5.2-untagged-mo-advance", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, false), data));
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 999, true), data));
       }},
      {"v_to", "rfc5041-5.2-tagged-to-advance", {}, [&](MpaConnection& c) {
         c.fpdu(Side::kClient, tagged(rdmap::Opcode::kRdmaWrite, 0x77, 0, false, data));
         send(c, Side::kClient, tagged(rdmap::Opcode::kRdmaWrite, 0x77, 500, true, data));
       }},
      {"v_qn", "rfc5040-4.1-qn-opcode-match", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 2, 1, 0, true), data));
       }},
      // ---- RDMAP (RFC 5040, RFC 7306)
      {"v_rv", "rfc5040-4.1-rv-1", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged([] { Untagged x; x.rv = 0; return x; }(), data));
       }},
      {"v_opcode", "rfc5040-4.1-opcodes", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged([] { Untagged x; x.raw_opcode = 0xd; return x; }(), data));
       }},
      {"v_t_bit", "rfc5040-4.1-tagged-kinds", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, tagged(rdmap::Opcode::kSend, 1, 0, true, data));
       }},
      {"v_single_segment", "rfc5040-5.2.1-single-segment", {}, [&](MpaConnection& c) {
         send(c, Side::kClient,
              untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 1, 0, false), read_request(1, 0, 10, 2, 0)));
       }},
      {"v_payload_size", "rfc5040-4.2-payload-size", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kImmediateData, 0, 1, 0, true), pattern(12, 1)));
       }},
      {"v_unsolicited_read", "rfc5040-5.2-read-response-solicited", {}, [&](MpaConnection& c) {
         send(c, Side::kServer, tagged(rdmap::Opcode::kRdmaReadResponse, 9, 0, true, data));
       }},
      {"v_read_sink", "rfc5040-5.2.2-read-response-sink", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 1, 0, true), read_request(5, 0, 200, 6, 0)));
         send(c, Side::kServer, tagged(rdmap::Opcode::kRdmaReadResponse, 7, 0, true, data));
       }},
      {"v_read_size", "rfc5040-5.2-read-response-size", {}, [&](MpaConnection& c) {
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 1, 0, true), read_request(5, 0, 300, 6, 0)));
         send(c, Side::kServer, tagged(rdmap::Opcode::kRdmaReadResponse, 5, 0, true, data));
       }},
      {"v_ord", "rfc5040-6.1-ord-limit",
       {.request_enhanced = mpa::EnhancedData{false, false, false, false, 1, 1},
        .reply_enhanced = mpa::EnhancedData{false, false, false, false, 1, 1}},
       [&](MpaConnection& c) {  // two Read Requests outstanding against an IRD of 1
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 1, 0, true), read_request(5, 0, 100, 6, 0)));
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 2, 0, true), read_request(5, 100, 100, 6, 0)));
       }},
      {"v_atomic", "rfc7306-5.2.1-response-order", {}, [&](MpaConnection& c) {
         rdmap::AtomicResponseHeader r;
         r.set(rdmap::AtomicResponseSpec::Field::OriginalRequestIdentifier, 7);
         send(c, Side::kServer, untagged(u(rdmap::Opcode::kAtomicResponse, 3, 1, 0, true), bytes_of(r)));
       }},
      {"v_terminate", "rfc5040-4.8-terminate-format", {}, [&](MpaConnection& c) {
         // R set without D: inconsistent header control bits.
         rdmap::TerminateControlHeader t;
         t.set(TF::Layer, 0).set(TF::EType, 1).set(TF::ErrorCode, 0).set(TF::R, 1);
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kTerminate, 2, 1, 0, true), bytes_of(t)));
       }},
      {"v_after_terminate", "rfc5040-5.4-terminate-last", {}, [&](MpaConnection& c) {
         rdmap::TerminateControlHeader t;
         t.set(TF::Layer, 0).set(TF::EType, 1).set(TF::ErrorCode, 0);
         c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kTerminate, 2, 1, 0, true), bytes_of(t)));
         send(c, Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), data));
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

  // ---- SMC CLC (RFC 7609 App. A and C, SMC v2): a clean v1 exchange with
  // one field changed, or sent out of order, or without the SMC option.
  struct ClcCase {
    std::string name;
    std::string rule;
    std::function<void(ClcExchange&)> tweak;
    bool smc_option = true;
    bool confirm_first = false;
    bool v2 = false;  // tweak a clean SMC-Rv2 exchange instead of a v1 one
  };
  const std::vector<ClcCase> clc_cases = {
      {"v_clc_no_option", "rfc7609-3.1-no-clc-without-option", {}, false},
      {"v_clc_order", "rfc7609-c.6-clc-order", {}, true, true},
      {"v_clc_peer_id", "rfc7609-a.2.1-proposal-peer-id-set",
       [](ClcExchange& x) { x.proposal.body.set(clc::ProposalBodySpec::Field::PeerId, 0); }},
      {"v_clc_gid_mac", "rfc7609-a.2.2-proposal-gid-mac-valid",
       [](ClcExchange& x) { x.proposal.body.set_octets(clc::ProposalBodySpec::Field::Mac, Bytes{1, 0, 0x5e, 0, 0, 1}); }},
      {"v_clc_accept_peer", "rfc7609-a.2.3-accept-peer-valid",
       [](ClcExchange& x) { x.accept.smcr->set(clc::SmcrAcceptConfirmSpec::Field::PeerId, 0); }},
      {"v_clc_accept_qp", "rfc7609-a.2.3-accept-qp-number",
       [](ClcExchange& x) { x.accept.smcr->set(clc::SmcrAcceptConfirmSpec::Field::QpNumber, 1); }},
      {"v_clc_accept_rmb", "rfc7609-a.2.3-accept-rmb-valid",
       [](ClcExchange& x) { x.accept.smcr->set(clc::SmcrAcceptConfirmSpec::Field::RmbeIndex, 0); }},
      {"v_clc_confirm_peer_id", "rfc7609-a.2.4-confirm-peer-id",
       [](ClcExchange& x) { x.confirm.smcr->set(clc::SmcrAcceptConfirmSpec::Field::PeerId, 0x0001020000000009ull); }},
      {"v_clc_confirm_qp", "rfc7609-a.2.4-confirm-qp-number",
       [](ClcExchange& x) { x.confirm.smcr->set(clc::SmcrAcceptConfirmSpec::Field::QpNumber, 0); }},
      {"v_clc_confirm_mtu", "rfc7609-a.2.4-confirm-mtu-not-above-accept",
       [](ClcExchange& x) { x.confirm.smcr->set(clc::SmcrAcceptConfirmSpec::Field::QpMtu, 5); }},
      {"v_clc_confirm_first_contact", "rfc7609-c.4-confirm-first-contact-echo",
       [](ClcExchange& x) { clc::set_type_bits_field(x.confirm.header, clc::kAcceptConfirmTypeBits[0], 0); }},
      // SMC v2 consistency (Linux net/smc smc_clc.c), on a v2-only Proposal
      // whose v1 identity fields are zero (as Linux sends them).
      {"v_clc_v2_clean_v1_fields_zero", "",
       [](ClcExchange& x) {
         using PF = clc::ProposalBodySpec::Field;
         x.proposal.body.set(PF::PeerId, 0).set_octets(PF::Gid, Bytes(16, 0)).set_octets(PF::Mac, Bytes(6, 0));
       }, true, false, true},
      {"v_clc_v2_accept_eid", "smcv2-accept-eid",
       [](ClcExchange& x) { x.accept.smcr_v2->set_octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid, clc::make_eid("NOT-OFFERED")); },
       true, false, true},
      {"v_clc_v2_confirm_eid", "smcv2-confirm-eid",
       [](ClcExchange& x) { x.confirm.smcr_v2->set_octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid, clc::make_eid("OTHER")); },
       true, false, true},
      {"v_clc_v2_accept_release", "smcv2-accept-release",
       [](ClcExchange& x) {
         x.accept.fce->set(clc::FirstContactExtSpec::Field::Release, 2);
         x.confirm.fce->set(clc::FirstContactExtSpec::Field::Release, 2);
       }, true, false, true},
      {"v_clc_v2_accept_max_conns", "smcv2-accept-max-conns",
       [](ClcExchange& x) {
         x.accept.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, 8);
         x.confirm.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, 8);
       }, true, false, true},
      {"v_clc_v2_accept_max_links", "smcv2-accept-max-links",
       [](ClcExchange& x) {
         x.accept.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxLinks, 3);
         x.confirm.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxLinks, 3);
       }, true, false, true},
      {"v_clc_v2_confirm_release", "smcv2-confirm-release",
       [](ClcExchange& x) { x.confirm.fce->set(clc::FirstContactExtSpec::Field::Release, 0); }, true, false, true},
      {"v_clc_v2_confirm_max_conns", "smcv2-confirm-max-conns",
       [](ClcExchange& x) { x.confirm.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, 17); }, true, false,
       true},
      // The Accept's version is not one the Proposal offered: a version 1
      // SMC-R Proposal answered by a version 2 Accept (whose EID then has no
      // offer to be checked against).
      {"v_clc_v2_accept_version", "smcv2-accept-version-offered",
       [](ClcExchange& x) { x.proposal = clean_clc_v1().proposal; }, true, false, true},
      {"v_clc_v2_confirm_max_links", "smcv2-confirm-max-links",
       [](ClcExchange& x) { x.confirm.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxLinks, 1); }, true, false,
       true},
  };
  for (const ClcCase& k : clc_cases) {
    Expect e{k.name, {}, {}, k.rule.empty() ? std::vector<std::string>{} : std::vector<std::string>{k.rule}};
    {
      Writer w(dir / (k.name + ".pcapng"));
      Connection c(w.w, port++, k.smc_option);
      ClcExchange x = k.v2 ? clean_clc_v2() : clean_clc_v1();
      if (k.tweak) k.tweak(x);
      clc::finalize(x.proposal);
      clc::finalize(x.accept);
      clc::finalize(x.confirm);
      c.send(Side::kClient, clc::encode(x.proposal));
      if (k.confirm_first) c.send(Side::kClient, clc::encode(x.confirm));
      c.send(Side::kServer, clc::encode(x.accept));
      if (!k.confirm_first) c.send(Side::kClient, clc::encode(x.confirm));
    }
    all.push_back(e);
  }

  // The SMC option in a wrong form (RFC 7609 App. A.1): the client's SYN
  // carries the SMC ExID in an 8-octet option, which a Linux receiver still
  // takes; the plugin shows the verdict under the option, analyze at the SYN.
  {
    Expect e{"v_clc_option_length_8", {}, {}, {"rfc7609-a.1-option-kind"}};
    {
      Writer w(dir / (e.name + ".pcapng"));
      capture::TcpOptions client, server;
      client.experimental.add({clc::kTcpOptionKindExperimental, 8, clc::kTcpOptionSmcExId});
      server.smc = true;
      Connection c(w.w, port++, client, server);
      ClcExchange x = clean_clc_v1();
      clc::finalize(x.proposal);
      clc::finalize(x.accept);
      clc::finalize(x.confirm);
      c.send(Side::kClient, clc::encode(x.proposal));
      c.send(Side::kServer, clc::encode(x.accept));
      c.send(Side::kClient, clc::encode(x.confirm));
    }
    all.push_back(e);
  }

  // Declines: a trailer that does not repeat the eyecatcher, Out of Sync
  // disagreeing with the diagnosis, a local-only diagnosis on the wire.
  using HF = clc::ClcHeaderSpec::Field;
  const struct {
    const char* name;
    const char* rule;
    std::uint32_t code;
  } declines[] = {{"v_clc_trailer", "rfc7609-a.2-clc-format", clc::kDeclNoSmcDev},
                  {"v_clc_out_of_sync", "rfc7609-c.4-decline-out-of-sync", clc::kDeclNoSmcDev},
                  {"v_clc_decline_code", "smcv2-decline-code-on-wire", clc::kDeclPeerNoSmc}};
  for (const auto& k : declines) {
    Expect e{k.name, {}, {}, {k.rule}};
    {
      Writer w(dir / (e.name + ".pcapng"));
      Connection c(w.w, port++, true);
      clc::Decline d;
      d.header.set(HF::Eyecatcher, clc::kEyecatcherSmcr).set(HF::Type, 4).set(HF::Version, 1);
      d.body.set(clc::DeclineSpec::Field::PeerDiagnosis, k.code);
      clc::finalize(d);
      if (e.name == "v_clc_out_of_sync") clc::set_type_bits_field(d.header, clc::kDeclineTypeBits[0], 1);
      Bytes octets = clc::encode(d);
      if (e.name == "v_clc_trailer") octets[octets.size() - 1] ^= 0xff;
      c.send(Side::kServer, octets);
    }
    all.push_back(e);
  }
}

// Captures with loss: octets of one direction missing in the middle (the
// peer acknowledged them), once with CRC (the observer resynchronises on an
// FPDU whose CRC checks) and once with Markers (on the next Marker). The
// FPDUs after the resynchronisation are shown by the plugin as decode shows
// them; a capture with loss cannot have the codecs' counts.
void gaps(const fs::path& dir, std::vector<Expect>& all) {
  for (const bool markers : {false, true}) {
    const std::string name = markers ? "iwarp_gap_markers" : "iwarp_gap_crc";
    Expect e{name, {}, {}, {}};
    {
      Writer w(dir / (name + ".pcapng"));
      MpaConnection::Options o;
      o.markers_to_responder = markers;
      MpaConnection c(w.w, e, markers ? 42001 : 42000, o);
      c.startup();
      for (std::uint32_t msn = 1; msn <= 12; ++msn)
        c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, msn, 0, true), pattern(300 + msn, 2)));
      c.flush_losing(Side::kClient, 1000, 700);  // inside the 4th FPDU to the middle of the 5th
      c.fpdu(Side::kServer, untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), pattern(40, 4)));
      c.flush(Side::kServer);
    }
    e.counts.clear();
    e.keys.clear();
    all.push_back(e);
  }
}

// A capture that starts in the middle of full operation: no SYNs, no MPA
// startup, the tail of an FPDU first. The observer hunts for framing (an
// FPDU whose CRC checks) and the plugin shows the FPDUs found after it.
// Octets that break a rule the way a known encoding mistake would; analyze
// and the plugin must name the mistake (reference/*/diagnosis.hpp). The two
// Terminates carry the exact octets Linux siw sends (drivers/infiniband/sw/
// siw: struct iwarp_terminate's control word is a little-endian bitfield,
// siw_send_terminate copies the offending segment's MPA length field,
// adjusted to its payload length, as the DDP Segment Length, then its
// headers), for an RDMA Read Request and an RDMA Write naming an invalid
// STag; MPA v2 without CRC, siw's defaults.
void diagnosis(const fs::path& dir, std::vector<Expect>& all) {
  struct Case {
    std::string name;
    std::string rule;
    std::string mistake;
    MpaConnection::Options options;
    std::function<void(MpaConnection&)> run;
    bool own_startup = false;
  };
  auto swap16 = [](std::uint16_t v) { return static_cast<std::uint16_t>((v >> 8) | (v << 8)); };
  auto swap32 = [](std::uint32_t v) {
    return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
  };
  auto siw_terminate = [](const Bytes& control, std::uint16_t segment_length, const Bytes& headers) {
    Bytes body = control;
    body.push_back(static_cast<std::uint8_t>(segment_length >> 8));
    body.push_back(static_cast<std::uint8_t>(segment_length));
    body.insert(body.end(), headers.begin(), headers.end());
    return untagged(u(rdmap::Opcode::kTerminate, 2, 1, 0, true), body);
  };
  const MpaConnection::Options siw{.crc = false};
  const std::vector<Case> cases = {
      {"diag_siw_terminate_read", "rfc5040-4.8-terminate-format", "le-bitfield", siw, [&](MpaConnection& c) {
         // RDMAP / Remote Protection Error / Invalid STag, M D R: siw sends 10 00 07 00.
         const Bytes rreq = untagged(u(rdmap::Opcode::kRdmaReadRequest, 1, 1, 0, true),
                                     read_request(0x1234, 0x7f0000001000, 64, 0xdead00, 0x7f0000002000));
         c.fpdu(Side::kClient, rreq);
         c.flush(Side::kClient);
         c.fpdu(Side::kServer, siw_terminate({0x10, 0x00, 0x07, 0x00}, 0, rreq));
         c.flush(Side::kServer);
       }},
      {"diag_siw_terminate_write", "rfc5040-4.8-terminate-format", "le-bitfield", siw, [&](MpaConnection& c) {
         // DDP / Tagged Buffer Error / Invalid STag, M D: siw sends 11 00 03 00.
         const Bytes write = tagged(rdmap::Opcode::kRdmaWrite, 0xdead00, 0x7f0000001000, true, pattern(64, 3));
         c.fpdu(Side::kClient, write);
         c.flush(Side::kClient);
         c.fpdu(Side::kServer, siw_terminate({0x11, 0x00, 0x03, 0x00}, 64,
                                             Bytes(write.begin(), write.begin() + ddp::kTaggedHeaderSize)));
         c.flush(Side::kServer);
       }},
      {"diag_crc_swapped", "rfc5044-4.4-crc32c", "byte-swapped", {}, [&](MpaConnection& c) {
         const Bytes send = untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), pattern(40, 5));
         mpa::Framer plain({false, true, 0});
         Bytes framed;
         plain.frame(wire::Bytes(send), framed);
         const std::uint32_t right = wire::crc32c_from_wire(wire::Bytes(framed).last(4));
         mpa::FramerOverrides o;
         o.crc = swap32(right);
         c.fpdu(Side::kClient, send, o);
         c.flush(Side::kClient);
       }},
      {"diag_ulpdu_length_swapped", "rfc5044-4.4-crc32c", "byte-swapped", {}, [&](MpaConnection& c) {
         // The length sent little-endian (CRC over the octets as sent), then
         // enough further FPDUs for the swapped length to be read whole.
         const Bytes send = untagged(u(rdmap::Opcode::kSend, 0, 1, 0, true), pattern(16, 9));
         mpa::FramerOverrides o;
         o.ulpdu_length = swap16(static_cast<std::uint16_t>(send.size()));
         c.fpdu(Side::kClient, send, o);
         for (std::uint32_t msn = 2; msn < 12; ++msn)
           c.fpdu(Side::kClient, untagged(u(rdmap::Opcode::kSend, 0, msn, 0, true), pattern(1000, 1)));
         c.flush(Side::kClient);
       }},
      {"diag_pd_length_swapped", "rfc5044-7.1.1-pd-length-max", "byte-swapped", {}, [&](MpaConnection& c) {
         mpa::ReqRepFields f;
         f.kind = mpa::FrameKind::kRequest;
         f.crc = true;
         f.revision = 2;
         f.enhanced = mpa::EnhancedData{false, false, false, false, 4, 4};
         Bytes req = mpa::encode_req_rep(f);
         std::swap(req[18], req[19]);  // PD_Length 4 sent as 0x0400
         c.raw(Side::kClient, req);
       }, true},
      {"diag_ird_ord_swapped", "rfc6581-9.2-p2p-echo-a", "ird-ord-swapped",
       {.request_enhanced = mpa::EnhancedData{true, false, false, true, 4, 4},   // A, offers the Read RTR
        // The Reply meant A, IRD 8 and the Read RTR with ORD 2; its words went out exchanged.
        .reply_enhanced = mpa::EnhancedData{false, true, true, false, 2, 8}},
       [&](MpaConnection&) {}},
  };
  std::uint16_t port = 43000;
  for (const Case& k : cases) {
    Expect e{k.name, {}, {}, {k.rule}, {k.mistake}};
    {
      Writer w(dir / (k.name + ".pcapng"));
      MpaConnection c(w.w, e, port++, k.options);
      if (!k.own_startup) c.startup();
      k.run(c);
    }
    all.push_back(e);
  }
}

void mid_connection(const fs::path& dir, std::vector<Expect>& all) {
  Expect e{"iwarp_midstream", {}, {}, {}};
  {
    Writer w(dir / "iwarp_midstream.pcapng");
    Connection c(w.w, 40020, false, /*open=*/false);
    mpa::Framer f({false, true, 0});
    Bytes stream;
    for (std::uint32_t msn = 40; msn < 52; ++msn)
      f.frame(wire::Bytes(untagged(u(rdmap::Opcode::kSend, 0, msn, 0, true), pattern(300 + msn, 7))), stream);
    c.send(Side::kClient, Bytes(stream.begin() + 137, stream.end()), {700, 1460});
  }
  all.push_back(e);
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
    out << "], \"mistakes\": [";
    for (std::size_t k = 0; k < e.mistakes.size(); ++k) out << (k ? ", " : "") << json_string(e.mistakes[k]);
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

// Captures built from the fuzz corpora (fuzz/corpus/<target>/), or, without
// them, from seeded mutations of valid streams:
// - byte-stream targets (MPA, DDP/RDMAP, CLC, sessions): each input becomes
//   (a) the initiator's full-operation stream after a clean startup, cut at
//   an odd segment size, (b) the whole initiator stream (Request position),
//   (c) a CLC stream after SYNs with the SMC option;
// - capture_observer and every 16th ulp_tracker input (both
//   fuzz/common/observer_events.hpp): the event script as a TCP connection
//   (SYN flags from octet 0, each data event one segment of its side; gap
//   events dropped);
// - capture_frames: its frames as they are, one capture per link type.
// (capture_file inputs are whole files: check_plugin.py hands a sample of
// them to tshark directly. conformance_script, rfc_text and agent_control
// inputs are text and JSON that never reach a dissector: left out.)
std::vector<Bytes> read_inputs(const fs::path& dir) {
  std::vector<Bytes> inputs;
  if (!fs::is_directory(dir)) return inputs;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.file_size() <= (1u << 20)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    inputs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  return inputs;
}

void observer_script(capture::CaptureWriter& w, std::uint16_t port, const Bytes& in) {
  if (in.empty()) return;
  const std::uint8_t flags = in[0];
  Connection c(w, port, (flags & 0x0a) == 0x0a, (flags & 0x05) == 0x05);
  for (std::size_t at = 1; at + 1 < in.size();) {
    const bool responder = (in[at] & 0x80) != 0;
    const bool gap = (in[at] & 0x03) == 0x03;
    const std::size_t n = std::min<std::size_t>(in[at + 1] + 1u, in.size() - at - 2);
    at += 2;
    if (gap) continue;
    c.send(responder ? Side::kServer : Side::kClient, Bytes(in.begin() + static_cast<std::ptrdiff_t>(at),
                                                            in.begin() + static_cast<std::ptrdiff_t>(at + n)));
    at += n;
  }
}

int fuzz(const fs::path& dir, const std::optional<fs::path>& corpus) {
  fs::create_directories(dir);
  std::vector<Bytes> streams;
  std::vector<Bytes> scripts, frames;
  if (corpus && fs::is_directory(*corpus)) {
    for (const auto& entry : fs::directory_iterator(*corpus)) {
      const std::string target = entry.path().filename().string();
      if (target == "capture_file" || target == "conformance_script" || target == "rfc_text" ||
          target == "agent_control")
        continue;
      std::vector<Bytes> in = read_inputs(entry.path());
      if (target == "ulp_tracker") {
        // Whole RPC and iSER sessions of up to 256-octet events, one frame
        // each (about 80 frames per KiB under tshark -V): every 16th.
        std::vector<Bytes> sample;
        for (std::size_t i = 0; i < in.size(); i += 16) sample.push_back(std::move(in[i]));
        in = std::move(sample);
      }
      const bool script = target == "capture_observer" || target == "ulp_tracker";
      std::vector<Bytes>& to = script ? scripts : target == "capture_frames" ? frames : streams;
      to.insert(to.end(), std::make_move_iterator(in.begin()), std::make_move_iterator(in.end()));
    }
  }
  if (streams.empty()) {
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
      streams.push_back(s);
    }
  }
  // Many inputs per capture: tshark's start-up, not the dissection, is what
  // a capture costs.
  constexpr std::size_t kPerFile = 700;
  std::size_t file_no = 0;
  for (std::size_t base = 0; base < streams.size(); base += kPerFile) {
    Writer w(dir / ("fuzz_streams_" + std::to_string(file_no++) + ".pcapng"));
    Expect ignored{"fuzz", {}, {}, {}};
    std::uint16_t port = 20000;
    for (std::size_t i = base; i < std::min(streams.size(), base + kPerFile); ++i) {
      const Bytes& in = streams[i];
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
  // Scripts of about 256 KiB per capture, so that check_plugin.py's two
  // tshark workers share them (ulp_tracker's are whole RPC or iSER sessions).
  constexpr std::size_t kScriptOctetsPerFile = 256 << 10;
  for (std::size_t at = 0, file = 0; at < scripts.size(); ++file) {
    Writer w(dir / ("fuzz_observer_" + std::to_string(file) + ".pcapng"));
    std::uint16_t port = 20000;
    for (std::size_t octets = 0; at < scripts.size() && octets < kScriptOctetsPerFile; ++at) {
      observer_script(w.w, port++, scripts[at]);
      octets += scripts[at].size();
    }
  }
  // capture_frames: octet 0 picks the link type, then (length, octets beyond
  // the snapshot, frame) triples, as fuzz/targets/capture_frames.cpp reads them.
  static constexpr capture::LinkType kLinks[] = {
      capture::LinkType::kEthernet, capture::LinkType::kRaw,  capture::LinkType::kLinuxSll,
      capture::LinkType::kLinuxSll2, capture::LinkType::kNull, capture::LinkType::kLoop,
      capture::LinkType::kIpv4,     capture::LinkType::kIpv6};
  for (std::size_t l = 0; l < std::size(kLinks) && !frames.empty(); ++l) {
    std::ofstream out(dir / ("fuzz_frames_" + std::to_string(l) + ".pcapng"), std::ios::binary);
    capture::CaptureWriter w(out, capture::FileFormat::kPcapng, kLinks[l]);
    std::int64_t t = 1'700'000'000'000'000'000;
    for (const Bytes& in : frames) {
      if (in.empty() || (in[0] & 7) != l) continue;
      for (std::size_t at = 1; at + 4 <= in.size();) {
        const std::size_t length = std::size_t{in[at]} << 8 | in[at + 1];
        at += 4;
        const std::size_t n = std::min(length, in.size() - at);
        w.write(capture::Timestamp{t += 1000}, wire::Bytes(in).subspan(at, n));
        at += n;
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
  diagnosis(dir, all);
  gaps(dir, all);
  mid_connection(dir, all);
  write_expectations(dir / "expected.json", all);
  return 0;
}
