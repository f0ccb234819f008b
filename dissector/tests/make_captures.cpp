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
// The capture families live in make_captures.cpp (this file: clean, Markers,
// CLC, loss, diagnosis, mid-connection), make_captures_violations.cpp and
// make_captures_bench.cpp; make_captures.hpp holds what they share.
#include "make_captures.hpp"

#include <cstdio>

namespace rdmaconf::make_captures {

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

namespace {

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o.push_back('\\');
    o.push_back(c);
  }
  return o + "\"";
}

}  // namespace

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

}  // namespace rdmaconf::make_captures

using namespace rdmaconf::make_captures;

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
