// Seed corpora for every fuzz target, made by the reference codecs and the
// capture writer (nothing hand-typed that a codec can build):
//
//   fuzz_make_corpus DIR      writes DIR/<target>/<seed>
//
// Each seed is a valid input in the target's layout (see the target's
// header comment): real MPA frames and FPDU streams, DDP/RDMAP segments from
// two RDMAP streams running every operation, Terminates for every registry
// row, CLC exchanges recorded from the handshake machines, TCP headers with
// the SMC option, and pcap/pcapng captures of those exchanges written by
// pcap/capture's TcpRecorder. fuzz/make-corpus.sh refreshes fuzz/corpus/.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "clc/tcp_option.hpp"
#include "corpus_gen/seeds.hpp"
#include "common/clc_configs.hpp"
#include "common/negotiation_input.hpp"
#include "common/rdmap_side.hpp"
#include "mpa/framer.hpp"
#include "mpa/negotiation.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/error_codes.hpp"
#include "rdmap/rtr.hpp"
#include "rdmap/stream.hpp"
#include "rdmap/terminate.hpp"

using namespace rdmaconf;
using corpus_gen::Octets;

namespace {
std::filesystem::path g_root;
std::size_t g_written = 0;
}  // namespace

namespace rdmaconf::corpus_gen {

void put(const std::string& target, const std::string& name, const Octets& bytes) {
  const auto dir = g_root / target;
  std::filesystem::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s/%s\n", target.c_str(), name.c_str());
    std::exit(1);
  }
  ++g_written;
}

Octets cat(std::initializer_list<Octets> parts) {
  Octets out;
  for (const Octets& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

Octets pattern(std::size_t n, std::uint8_t seed) {
  Octets v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(seed + i * 13);
  return v;
}

}  // namespace rdmaconf::corpus_gen

using corpus_gen::cat;
using corpus_gen::pattern;
using corpus_gen::put;

namespace {

// ------------------------------------------------------------------- MPA

Octets req_rep(mpa::FrameKind kind, std::uint8_t rev, bool m, bool c, bool r,
               std::optional<mpa::EnhancedData> e, std::size_t pd) {
  mpa::ReqRepFields f;
  f.kind = kind;
  f.revision = rev;
  f.markers = m;
  f.crc = c;
  f.reject = r;
  f.enhanced = e;
  const Octets data = pattern(pd, 0x41);
  f.private_data = data;
  return mpa::encode_req_rep(f);
}

void mpa_req_rep() {
  using K = mpa::FrameKind;
  mpa::EnhancedData p2p{true, true, true, true, 16, 8};
  mpa::EnhancedData plain{false, false, false, false, 4, 4};
  put("mpa_req_rep", "request_rev1_mc", cat({{1}, req_rep(K::kRequest, 1, true, true, false, {}, 0)}));
  put("mpa_req_rep", "request_rev2_p2p_all_rtr", cat({{1}, req_rep(K::kRequest, 2, false, true, false, p2p, 12)}));
  put("mpa_req_rep", "request_rev2_ird_ord", cat({{8}, req_rep(K::kRequest, 2, true, false, false, plain, 0)}));
  put("mpa_req_rep", "reply_rev2_write_rtr", cat({{2}, req_rep(K::kReply, 2, false, true, false,
                                                                mpa::EnhancedData{true, false, true, false, 8, 16}, 3)}));
  put("mpa_req_rep", "reply_reject_rev1", cat({{2}, req_rep(K::kReply, 1, false, false, true, {}, 20)}));
  put("mpa_req_rep", "reply_pd_512", cat({{0}, req_rep(K::kReply, 1, false, true, false, {}, 512)}));
  // A Linux siw Request with its 0x08 "GSO_EXP" bit in Res (checked off).
  mpa::ReqRepFields siw;
  siw.revision = 2;
  siw.enhanced = plain;
  siw.res = 0x8;
  put("mpa_req_rep", "request_siw_res_bit", cat({{4}, mpa::encode_req_rep(siw)}));
}

// The mpa_deframer layout: flags, offset, cuts, stream.
Octets deframer_input(bool markers, bool crc, int position_kind, std::uint16_t offset, const Octets& cuts,
                      const std::vector<std::size_t>& sizes, bool report = false) {
  std::uint64_t position = 0;
  switch (position_kind) {
    case 1: position = offset; break;
    case 2: position = 0xffffffffull - offset; break;
    case 3: position = (std::uint64_t{1} << 40) + offset; break;
    default: break;
  }
  Octets out{static_cast<std::uint8_t>((markers ? 1 : 0) | (crc ? 2 : 0) | (report ? 4 : 0) | position_kind << 3),
             static_cast<std::uint8_t>(offset >> 8), static_cast<std::uint8_t>(offset),
             static_cast<std::uint8_t>(cuts.size())};
  out.insert(out.end(), cuts.begin(), cuts.end());
  mpa::Framer f(mpa::FramerConfig{markers, crc, position});
  std::uint8_t seed = 1;
  for (std::size_t n : sizes) f.frame(wire::Bytes(pattern(n, seed++)), out);
  return out;
}

void mpa_deframer() {
  put("mpa_deframer", "plain_crc", deframer_input(false, true, 0, 0, {}, {18, 30, 1, 0}));
  put("mpa_deframer", "markers_crc", deframer_input(true, true, 0, 0, {5, 1, 200, 0xff}, {600, 18, 1000}));
  put("mpa_deframer", "markers_nocrc_offset", deframer_input(true, false, 1, 509, {1, 1, 1, 1}, {40, 500, 3}));
  put("mpa_deframer", "markers_wrap_32", deframer_input(true, true, 2, 700, {31, 63}, {800, 2}));
  put("mpa_deframer", "beyond_2_40", deframer_input(false, false, 3, 3, {}, {4, 5, 6}));
  put("mpa_deframer", "one_octet_reads", deframer_input(true, true, 1, 2,
                                                         Octets(15, 0), {22, 22}));
  // A corrupted CRC, in failing and in reporting mode.
  Octets bad = deframer_input(false, true, 0, 0, {}, {20, 20});
  bad[4 + 2 + 20 + 2] ^= 0xff;
  put("mpa_deframer", "bad_crc", bad);
  Octets report = deframer_input(true, true, 0, 0, {}, {700, 20}, true);
  report[report.size() - 1] ^= 0x01;
  put("mpa_deframer", "bad_crc_reported", report);
  // ULPDU_Length over a 64-octet MULPDU.
  Octets limited = deframer_input(false, true, 0, 0, {}, {100});
  limited[0] |= 0xe0;
  put("mpa_deframer", "over_mulpdu", limited);
}

// Runs the peer's Negotiation against ours and returns the peer's frame.
Octets peer_frame_for(const mpa::NegotiationConfig& ours, mpa::NegotiationConfig peer) {
  peer.role = ours.role == mpa::Role::kInitiator ? mpa::Role::kResponder : mpa::Role::kInitiator;
  mpa::Negotiation us(ours), them(peer);
  if (peer.role == mpa::Role::kInitiator) return Octets(them.pending_output().begin(), them.pending_output().end());
  const wire::Bytes request = us.pending_output();
  them.receive(request);
  if (them.state() == mpa::NegotiationState::kRequestReceived) them.accept();
  return Octets(them.pending_output().begin(), them.pending_output().end());
}

// The 8 setup octets of negotiation_input.hpp, from a setup and its config.
Octets setup_octets(std::uint8_t a, std::uint8_t b, std::uint16_t ird, std::uint16_t ord, std::uint8_t c,
                    std::uint8_t d) {
  return {a, b, static_cast<std::uint8_t>(ird >> 8), static_cast<std::uint8_t>(ird),
          static_cast<std::uint8_t>(ord >> 8), static_cast<std::uint8_t>(ord), c, d};
}

mpa::NegotiationConfig config_of(const Octets& setup) {
  fuzz::FuzzInput in(setup);
  return fuzz::parse_negotiation(in).config;
}

void mpa_negotiation() {
  struct Case {
    const char* name;
    Octets setup;
    bool peer_markers, peer_p2p;
    std::uint8_t peer_rev;
  };
  const Case cases[] = {
      {"initiator_rev2", setup_octets(0x00, 0x07, 4, 4, 0, 0), false, false, 2},
      {"initiator_rev1_markers", setup_octets(0x12, 0x00, 1, 1, 0, 0), true, false, 1},
      {"initiator_p2p", setup_octets(0x80, 0x07, 8, 2, 0, 2), false, true, 2},
      {"responder_rev2", setup_octets(0x01, 0x07, 4, 4, 0, 0), false, false, 2},
      {"responder_p2p_read_pref", setup_octets(0x81, 0x06, 2, 2, 1, 0), true, true, 2},
      {"responder_rev1", setup_octets(0x03, 0x20, 1, 1, 0, 3), false, false, 1},
      {"responder_reject", setup_octets(0x01, 0x00, 1, 1, 0x80, 0), false, false, 2},
      {"initiator_timeout", setup_octets(0x00, 0x00, 1, 1, 0, 1), false, false, 2},
  };
  for (const Case& c : cases) {
    const mpa::NegotiationConfig ours = config_of(c.setup);
    mpa::NegotiationConfig peer;
    peer.revision = c.peer_rev;
    peer.want_markers = c.peer_markers;
    peer.peer_to_peer = c.peer_p2p;
    Octets frame = peer_frame_for(ours, peer);
    if (std::string(c.name) == "initiator_timeout") frame.resize(10);
    put("mpa_negotiation", c.name, cat({c.setup, {3, 7, 0xff, 2}, frame, {0, 4, 1, 2, 3, 4}}));
  }
}

// -------------------------------------------------------------- DDP/RDMAP

// Every operation of RFC 5040 and RFC 7306 between two streams; returns
// every segment that crossed, in order.
std::vector<Octets> every_operation_segments(std::vector<bool>* from_a = nullptr) {
  fuzz::RdmapSide a(fuzz::stream_config(10, 0x1b, 0));
  fuzz::RdmapSide b(fuzz::stream_config(10, 0x1b, 0));
  for (int i = 0; i < 6; ++i) {
    a.post_receive(200);
    b.post_receive(200);
  }
  std::vector<Octets> crossed;
  auto pump = [&] {
    for (bool moved = true; moved;) {
      moved = false;
      while (auto s = a.take_outgoing()) {
        crossed.emplace_back(s->begin(), s->end());
        if (from_a) from_a->push_back(true);
        fuzz::hand_over(b.stream(), *s, 0);
        moved = true;
      }
      while (auto s = b.take_outgoing()) {
        crossed.emplace_back(s->begin(), s->end());
        if (from_a) from_a->push_back(false);
        fuzz::hand_over(a.stream(), *s, 0);
        moved = true;
      }
    }
  };
  const Octets payload = pattern(150, 3);
  rdmap::Stream& s = a.stream();
  (void)s.post_send(1, wire::Chunks(wire::Bytes(payload)));
  (void)s.post_send(2, wire::Chunks(wire::Bytes(payload).first(10)), rdmap::SendOptions{true, std::nullopt});
  (void)s.post_send(3, wire::Chunks(wire::Bytes(payload).first(5)), rdmap::SendOptions{false, b.stag(4)});
  (void)s.post_send(4, wire::Chunks(wire::Bytes(payload).first(5)), rdmap::SendOptions{true, b.stag(0)});
  (void)s.post_write(5, wire::Chunks(wire::Bytes(payload)), b.stag(0), b.base_to(0) + 8);
  (void)s.post_read(6, rdmap::ReadRequest{a.stag(1), a.base_to(1), 40, b.stag(3), b.base_to(3)});
  rdmap::AtomicRequest fa;
  fa.remote_stag = b.stag(0);
  fa.remote_to = b.base_to(0) + 8;
  fa.add_or_swap_data = 5;
  (void)s.post_atomic(7, fa);
  rdmap::AtomicRequest cs = fa;
  cs.op = rdmap::AtomicOpcode::kCompareSwap;
  cs.compare_data = 0xeeeeeeeeeeeeeeeeull;
  (void)s.post_atomic(8, cs);
  (void)s.post_immediate(9, 0x0102030405060708ull, true);
  pump();
  // A Read Request for a buffer that does not exist: the Terminate.
  (void)s.post_read(10, rdmap::ReadRequest{a.stag(1), a.base_to(1), 8, ddp::Stag{0x7777}, 0});
  pump();
  return crossed;
}

void ddp_rdmap_segment(const std::vector<Octets>& segments) {
  std::size_t i = 0;
  for (const Octets& s : segments) {
    char name[32];
    std::snprintf(name, sizeof name, "segment_%02zu", i);
    // Mode: decode only / re-segment at a small or the MULPDU-sized step.
    const std::uint8_t mode = static_cast<std::uint8_t>((i % 3 == 0) ? 0x02 : 0x01 | ((i * 37) & 0xfc));
    put("ddp_rdmap_segment", name, cat({{mode}, s}));
    ++i;
  }
}

void rdmap_terminate() {
  const std::vector<Octets> segments = every_operation_segments();
  std::vector<ddp::ErrorRow> rows;
  for (auto span : {rdmap::rdmap_error_rows(), rdmap::ddp_error_rows(), rdmap::llp_error_rows()})
    rows.insert(rows.end(), span.begin(), span.end());
  // One body per row, reporting a segment of the kind the row is about.
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const Octets& seg = segments[(r * 5) % segments.size()];
    const ddp::Control ctl = ddp::Control::from_octets(seg[0], seg[1]);
    rdmap::OffendingSegment off;
    off.ddp_header = wire::Bytes(seg).first(ctl.header_size());
    off.rdma_header = wire::Bytes(seg).subspan(ctl.header_size(),
                                               std::min(seg.size() - ctl.header_size(), rdmap::kAtomicRequestHeaderSize));
    off.segment_length = static_cast<std::uint32_t>(seg.size());
    const rdmap::TerminateMessage t = rdmap::make_terminate(rows[r].triple, &off);
    Octets body;
    wire::ByteWriter w(body);
    rdmap::encode(t, w);
    char name[32];
    std::snprintf(name, sizeof name, "row_%02zu", r);
    put("rdmap_terminate", name, cat({{static_cast<std::uint8_t>(r)}, body}));
  }
}

void rdmap_stream() {
  // Byte programs (see the target): A sends, writes, reads, atomics; B
  // answers; segments move; a built segment with a bad MSN; faults.
  const Octets config = {10, 0x1b, 0, 10, 0x1b, 0};
  put("rdmap_stream", "send_and_move", cat({config, {0, 20}, pattern(20, 1), {0, 6, 0x21, 6, 0x21}}));
  put("rdmap_stream", "write_read_move",
      cat({config, {1, 40}, pattern(40, 2), {0, 4, 2, 0, 0, 32, 0, 6, 1, 6, 2, 0x86, 3, 0x86, 4, 6, 5}}));
  put("rdmap_stream", "atomics",
      cat({config, {3, 0, 8}, pattern(24, 7), {6, 0, 0x86, 0, 6, 0, 3, 0x82, 8}, pattern(40, 9), {6, 0, 0x86, 0}}));
  put("rdmap_stream", "immediate_and_terminate",
      cat({config, {4}, pattern(9, 1), {6, 0, 0x86, 0, 9, 0x13, 0, 1, 4, 1, 2, 3, 4, 0x11, 0x86, 0, 6, 0}}));
  put("rdmap_stream", "faults_off", cat({{10, 0x1b, 0xff, 10, 0x5b, 0xaa}, {0x89, 0x20, 3, 0xff, 0, 40}, pattern(40, 5),
                                         {0x21, 0x86, 0, 6, 0, 0x8b, 0x01, 0x0c, 2}}));
  put("rdmap_stream", "raw_segment", cat({config, {8, 30, 0x41, 0x43}, pattern(28, 0), {0x11, 0x86, 0}}));
  put("rdmap_stream", "llp_error_then_ops", cat({config, {12, 1, 0, 4}, pattern(6, 0), {5, 64, 13, 0xc1}}));
}

// ------------------------------------------------------------------- CLC

struct ClcExchange {
  std::vector<Octets> client_sent, server_sent;
};

ClcExchange clc_exchange(std::uint8_t bits) {
  clc::ClientHandshake c(fuzz::clc_client_config(bits));
  clc::ServerHandshake s(fuzz::clc_server_config(bits));
  ClcExchange x;
  const bool capable = (bits & fuzz::kClcPeerNotCapable) == 0;
  s.start(capable);
  Octets to_server = c.start(capable).send, to_client;
  while (!to_server.empty() || !to_client.empty()) {
    if (!to_server.empty()) {
      x.client_sent.push_back(to_server);
      to_client = s.on_message(to_server).send;
      to_server.clear();
    }
    if (!to_client.empty()) {
      x.server_sent.push_back(to_client);
      to_server = c.on_message(to_client).send;
      to_client.clear();
    }
  }
  return x;
}

void clc_all() {
  static constexpr std::uint8_t kBits[] = {0x00, fuzz::kClcNoV2, fuzz::kClcNoV1, fuzz::kClcIpv6 | fuzz::kClcNoV2,
                                           fuzz::kClcKnownLinkGroup, fuzz::kClcKnownLinkGroup | fuzz::kClcNoV2,
                                           fuzz::kClcRelease0};
  std::size_t n = 0;
  for (std::uint8_t bits : kBits) {
    const ClcExchange x = clc_exchange(bits);
    char name[48];
    for (const auto* list : {&x.client_sent, &x.server_sent}) {
      for (const Octets& m : *list) {
        std::snprintf(name, sizeof name, "cfg%02x_%zu", bits, n++);
        put("clc_message", name, m);
      }
    }
    Octets stream;
    for (std::size_t i = 0; i < std::max(x.client_sent.size(), x.server_sent.size()); ++i) {
      if (i < x.client_sent.size()) stream = cat({stream, x.client_sent[i]});
      if (i < x.server_sent.size()) stream = cat({stream, x.server_sent[i]});
    }
    std::snprintf(name, sizeof name, "exchange_cfg%02x", bits);
    put("clc_stream", name, cat({{static_cast<std::uint8_t>(bits % 5)}, Octets(bits % 5, static_cast<std::uint8_t>(bits * 3 + 7)), stream}));
    // The handshake from each side: the other side's messages.
    Octets from_server, from_client;
    for (const Octets& m : x.server_sent) from_server = cat({from_server, m});
    for (const Octets& m : x.client_sent) from_client = cat({from_client, m});
    std::snprintf(name, sizeof name, "client_cfg%02x", bits);
    put("clc_handshake", name, cat({{bits, 0}, from_server}));
    std::snprintf(name, sizeof name, "server_cfg%02x", bits);
    put("clc_handshake", name, cat({{static_cast<std::uint8_t>(bits | fuzz::kClcServerRole), 2, 7, 0xff}, from_client}));
  }
  // Declines (v1 and v2), and a server without the SMC option.
  put("clc_message", "decline_v1", clc::encode(clc::build_decline(1, 0x1122, clc::kDeclPeerNoSmc, clc::kOsLinux)));
  put("clc_message", "decline_v2", clc::encode(clc::build_decline(2, 0x1122, clc::kDeclSyncErr, clc::kOsLinux)));
  put("clc_handshake", "client_timeout", {fuzz::kClcTimeoutAtEnd, 0});
  put("clc_handshake", "server_not_capable", {fuzz::kClcServerRole | fuzz::kClcPeerNotCapable, 0});
  // SMC-D Proposals (v1 with the SMC-D area, v2 with ISM GIDs).
  clc::Proposal p = clc::build_proposal(fuzz::clc_client_config(0));
  if (!p.smcd) p.smcd = clc::ProposalSmcd{};
  clc::set_type_bits_field(p.header, clc::kProposalTypeBits[0], static_cast<std::uint64_t>(clc::SmcType::kBoth));
  p.smcd_v2_ext = clc::SmcdV2Extension{};
  p.ism_gids.push_back(clc::IsmGidChid{});
  clc::finalize(p);
  put("clc_message", "proposal_v2_smcd", clc::encode(p));
}

// ------------------------------------------------------------- TCP / pcap

Octets tcp_header(const Octets& options, std::uint8_t flags) {
  Octets h(20, 0);
  h[0] = 0x9c; h[1] = 0x40; h[2] = 0x13; h[3] = 0x88;  // ports 40000 -> 5000
  h[12] = static_cast<std::uint8_t>(((20 + options.size()) / 4) << 4);
  h[13] = flags;
  h.insert(h.end(), options.begin(), options.end());
  return h;
}

void smc_tcp_option() {
  capture::TcpOptions o;
  o.mss = 1460;
  o.window_scale = 7;
  o.smc = true;
  put("smc_tcp_option", "syn_linux_options", cat({{0}, tcp_header(capture::encode_syn_options(o), 0x02)}));
  put("smc_tcp_option", "synack_smc_only", cat({{2}, tcp_header({1, 1, 254, 6, 0xe2, 0xd4, 0xc3, 0xd9}, 0x12)}));
  put("smc_tcp_option", "other_experiment", cat({{0}, tcp_header({254, 4, 0x12, 0x34}, 0x02)}));
  const auto opt = clc::build_smc_option();
  put("smc_tcp_option", "option_alone", cat({{1}, Octets(opt.begin(), opt.end())}));
}

// SMC-R over RoCEv2: packets of the real SMC-Rv2 capture (smc-r-v2.pcap,
// Linux rxe and net/smc; UDP payloads as sent), the Sends they carry, a
// version 1 LLC message, and an observer sequence with a retransmission.
Octets octets_of(const std::string& hex) {
  Octets out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

void smcr_link() {
  const std::string bth_send = "0480ffff0000001180962ad8";
  const std::string icrc = "ce71ba00";
  const std::string confirm_link = "212c000352540077000a00000000000000000000ffff0a4d0001000011010000010102000000000000000000";
  const std::string add_link =
      "2258000052540077000a000000000000000000000000ffff0a4d00010000120203d775d70000000000000000"
      "800000000000000000000000ffff0a4d00010000000000000000010000000312000005f9ff39bb55c6030000";
  const std::string cdc = "fe2c000100000001000000000000100000000000000000000000000000000000000000000000000000000000";
  const std::string delete_rkey = "292c000001000000000003550000000000000000000000000000000000000000000000000000000000000000";
  const std::string write_first = "0600ffff0000001100d94aeeff39bb55c603000000000312000010004142434445464748";
  const std::string ack = "1100ffff0000001100962ad81f000001";
  put("smcr_link", "send_only_confirm_link_v2", cat({{0}, octets_of(bth_send + confirm_link + icrc)}));
  put("smcr_link", "send_only_add_link_v2", cat({{0}, octets_of(bth_send + add_link + icrc)}));
  put("smcr_link", "write_first_reth", cat({{0}, octets_of(write_first + icrc)}));
  put("smcr_link", "ack_aeth", cat({{0}, octets_of(ack + icrc)}));
  put("smcr_link", "llc_confirm_link_v2", cat({{1}, octets_of(confirm_link)}));
  put("smcr_link", "llc_add_link_v2", cat({{1}, octets_of(add_link)}));
  put("smcr_link", "llc_delete_rkey_v2", cat({{1}, octets_of(delete_rkey)}));
  put("smcr_link", "cdc", cat({{1}, octets_of(cdc)}));
  Octets v1 = {0x09, 44, 0, 0x80, 2, 0x40, 0, 0, 0, 0, 0, 0x11, 0, 0, 0, 0x22};
  v1.resize(44, 0);
  put("smcr_link", "llc_v1_delete_rkey_reply", cat({{1}, v1}));
  // Observer: CONFIRM LINK, its ACK, a CDC, the same CDC again (retransmission).
  Octets seq{2};
  auto packet = [&seq](std::uint8_t side, const Octets& p) {
    seq.push_back(side);
    seq.push_back(static_cast<std::uint8_t>(p.size() >> 8));
    seq.push_back(static_cast<std::uint8_t>(p.size()));
    seq.insert(seq.end(), p.begin(), p.end());
  };
  packet(0, octets_of(bth_send + confirm_link + icrc));
  packet(1, octets_of(ack + icrc));
  packet(0, octets_of("0480ffff0000001180962ad9" + cdc + icrc));
  packet(0, octets_of("0480ffff0000001180962ad9" + cdc + icrc));
  put("smcr_link", "observer_sequence", seq);
  // Link group (mode 3): one connection tied from CLC (tokens 1 and 1, QPs
  // 0x11, rkeys 0x55 and 0x12, 16 KiB RMBEs), CONFIRM LINK (with a
  // retransmitted copy), the responder's 4 KiB Write into the initiator's
  // RMBE and the CDC message announcing it.
  Octets group{3, 1};
  for (const Octets& end : {Octets{1, 0x11, 0x55, 0x00, 0x00, 1, 0}, Octets{1, 0x11, 0x12, 0x01, 0x00, 1, 0}})
    group.insert(group.end(), end.begin(), end.end());
  seq.swap(group);
  packet(2, octets_of(bth_send + confirm_link + icrc));
  packet(1, octets_of("0600ffff0000001100d94aee0000000000000000000000550000100041424344" + icrc));
  packet(1, octets_of("0480ffff0000001100d94aef" + cdc + icrc));
  put("smcr_link", "observer_link_group", seq);
  // The link lifecycle (mode 3, the same CLC tie): CONFIRM LINK on link 1;
  // ADD LINK v2 offering link 2 (server QP 0x12, one RToken: the server's
  // CLC rkey 0x12 is 0x5f9 there), accepted (client QP 0x13); CONFIRM LINK
  // on link 2's QPs; a client Write through 0x5f9 on link 2; CONFIRM RKEY of
  // a new server RMB (0x777); DELETE RKEY of 0x12, answered; a Write through
  // 0x12 (deleted); TEST LINK answered with other User Data; DELETE LINK of
  // link 2, answered; a CDC message on link 2 after it.
  const auto roce = [](std::uint8_t op, std::uint32_t qp, std::uint32_t psn, const std::string& payload) {
    Octets b{op, 0x00, 0xff, 0xff, 0x00, static_cast<std::uint8_t>(qp >> 16), static_cast<std::uint8_t>(qp >> 8),
             static_cast<std::uint8_t>(qp), 0x80, static_cast<std::uint8_t>(psn >> 16),
             static_cast<std::uint8_t>(psn >> 8), static_cast<std::uint8_t>(psn)};
    const Octets p = octets_of(payload + "ce71ba00");
    b.insert(b.end(), p.begin(), p.end());
    return b;
  };
  const auto llc = [](const std::string& header, const std::string& body) {
    std::string m = header + body;
    m.resize(88, '0');  // 44 octets, zero-padded
    return m;
  };
  const std::string gid = "00000000000000000000ffff0a4d0001";
  const auto confirm = [&](const std::string& flags, const std::string& qp, const std::string& link) {
    return llc("212c00" + flags, "52540077000a" + gid + qp + link + "00000101" + "02");
  };
  const auto add = [&](const std::string& flags, const std::string& qp) {
    return "225800" + flags + "52540077000a0000" + gid + qp + "02" + "03d775d7" + "0000000000000000" +
           "8000" + gid + "0000000000000000" + "0100" + "00000012" + "000005f9" + "ff39bb55c6030000";
  };
  Octets life{3, 1};
  for (const Octets& end : {Octets{1, 0x11, 0x55, 0x00, 0x00, 1, 0}, Octets{1, 0x11, 0x12, 0x01, 0x00, 1, 0}})
    life.insert(life.end(), end.begin(), end.end());
  seq.swap(life);
  packet(1, roce(0x04, 0x11, 1, confirm("03", "000011", "01")));
  packet(0, roce(0x04, 0x11, 1, confirm("83", "000011", "01")));
  packet(1, roce(0x04, 0x11, 2, add("00", "000012")));
  packet(0, roce(0x04, 0x11, 2, llc("222c0080", add("80", "000013").substr(8, 80))));
  packet(1, roce(0x04, 0x13, 1, confirm("03", "000012", "02")));
  packet(0, roce(0x04, 0x12, 1, confirm("83", "000013", "02")));
  packet(0, roce(0x06, 0x12, 2, "ff39bb55c6030000000005f900000008" + std::string("4142434445464748")));
  packet(1, roce(0x04, 0x11, 3, llc("262c0000", "00" "00000777" "ff39bb55c6100000")));
  packet(0, roce(0x04, 0x11, 3, llc("262c0080", "00" "00000777" "ff39bb55c6100000")));
  packet(1, roce(0x04, 0x11, 4, llc("292c0000", "01000000" "00000012")));
  packet(0, roce(0x04, 0x11, 4, llc("292c0080", "01000000" "00000012")));
  packet(0, roce(0x06, 0x11, 5, "00000000001000000000001200000008" + std::string("4142434445464748")));
  packet(1, roce(0x04, 0x11, 5, llc("272c0000", "0102030405060708090a0b0c0d0e0f10")));
  packet(0, roce(0x04, 0x11, 6, llc("272c0080", "ffffffffffffffffffffffffffffffff")));
  packet(1, roce(0x04, 0x11, 6, llc("242c0000", "02" "00010000")));
  packet(0, roce(0x04, 0x11, 7, llc("242c0080", "02" "00010000")));
  packet(0, roce(0x04, 0x12, 3, cdc));
  put("smcr_link", "observer_link_lifecycle", seq);
}

// An iWARP connection and a CLC connection recorded as captures.
struct Recorded {
  Octets pcap, pcapng;
};

Recorded record(bool ipv6, bool smc) {
  std::ostringstream a, b;
  capture::CaptureWriter wa(a, capture::FileFormat::kPcap), wb(b, capture::FileFormat::kPcapng);
  for (auto* w : {&wa, &wb}) {
    capture::RecordedEndpoint client{{0x02, 0, 0, 0, 0, 1}, ipv6 ? capture::ipv6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
                                                               : capture::ipv4(192, 0, 2, 1), 40000, {1000}};
    capture::RecordedEndpoint server{{0x02, 0, 0, 0, 0, 2}, ipv6 ? capture::ipv6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2})
                                                               : capture::ipv4(192, 0, 2, 2), 5000, {0xfffffff0u}};
    capture::TcpRecorder rec(*w, client, server, capture::Timestamp{1'700'000'000'000'000'000}, 256);
    capture::TcpOptions syn;
    syn.mss = 256;
    syn.smc = smc;
    rec.open(syn, syn);
    if (smc) {
      const ClcExchange x = clc_exchange(0);
      for (std::size_t i = 0; i < x.client_sent.size(); ++i) {
        rec.send(capture::TcpRecorder::Side::kClient, x.client_sent[i], "CLC");
        if (i < x.server_sent.size()) rec.send(capture::TcpRecorder::Side::kServer, x.server_sent[i]);
      }
    } else {
      mpa::Negotiation i(mpa::NegotiationConfig{}), r([] {
        mpa::NegotiationConfig c;
        c.role = mpa::Role::kResponder;
        return c;
      }());
      rec.send(capture::TcpRecorder::Side::kClient, i.pending_output(), "MPA Request");
      r.receive(i.pending_output());
      r.accept();
      rec.send(capture::TcpRecorder::Side::kServer, r.pending_output(), "MPA Reply");
      mpa::Framer f(mpa::FramerConfig{false, true, 0});
      Octets fpdus;
      for (const Octets& s : every_operation_segments()) f.frame(wire::Bytes(s), fpdus);
      rec.send(capture::TcpRecorder::Side::kClient, fpdus, "FPDUs");
    }
    rec.close();
  }
  const std::string sa = a.str(), sb = b.str();
  return {Octets(sa.begin(), sa.end()), Octets(sb.begin(), sb.end())};
}

// capture_frames' layout from a classic pcap written big-endian by
// CaptureWriter: per record, length, cut, frame.
Octets frames_of(const Octets& pcap, std::uint8_t mode) {
  Octets out{mode};
  std::size_t at = 24;
  while (at + 16 <= pcap.size()) {
    const std::size_t incl = static_cast<std::size_t>(wire::load_be(wire::Bytes(pcap).subspan(at + 8, 4)));
    if (at + 16 + incl > pcap.size()) break;
    out.push_back(static_cast<std::uint8_t>(incl >> 8));
    out.push_back(static_cast<std::uint8_t>(incl));
    out.push_back(0);
    out.push_back(0);
    out.insert(out.end(), pcap.begin() + static_cast<std::ptrdiff_t>(at + 16),
               pcap.begin() + static_cast<std::ptrdiff_t>(at + 16 + incl));
    at += 16 + incl;
  }
  return out;
}

void captures() {
  const Recorded iwarp4 = record(false, false), iwarp6 = record(true, false), smc = record(false, true);
  put("capture_file", "iwarp_ipv4.pcap", iwarp4.pcap);
  put("capture_file", "iwarp_ipv4.pcapng", iwarp4.pcapng);
  put("capture_file", "iwarp_ipv6.pcapng", iwarp6.pcapng);
  put("capture_file", "smc_clc.pcap", smc.pcap);
  put("capture_frames", "iwarp_ipv4", frames_of(iwarp4.pcap, 0x00));
  put("capture_frames", "iwarp_ipv6_tight", frames_of(iwarp6.pcap, 0x08));
  put("capture_frames", "smc_clc_no_ack_gaps", frames_of(smc.pcap, 0x10));
}

// ---------------------------------------------------------- iWARP session

// Records what a peer sends us: its Request or Reply, then the FPDUs of its
// RDMAP stream as it answers what we post and runs its own operations.
void iwarp_session() {
  struct Case {
    const char* name;
    Octets setup;  // 8 negotiation octets
    std::uint8_t posts;
    bool peer_markers;
  };
  const Case cases[] = {
      {"initiator_crc_all_posts", setup_octets(0x00, 0x00, 4, 4, 0, 0), 0x0f, false},
      {"responder_markers", setup_octets(0x11, 0x00, 4, 4, 0, 0), 0x03, true},
      {"initiator_rev1_no_crc", setup_octets(0x42, 0x00, 4, 4, 0, 0), 0x01, false},
      {"responder_peer_markers", setup_octets(0x01, 0x00, 4, 4, 0, 0), 0x0c, true},
      // Peer-to-peer (RFC 6581 §9.2), every RTR kind offered; the first
      // preference picks the kind: Write, Read, Send.
      {"initiator_p2p_rtr_write", setup_octets(0x80, 0x07, 4, 4, 0, 0), 0x03, false},
      {"initiator_p2p_rtr_read", setup_octets(0x80, 0x07, 4, 4, 1, 0), 0x09, false},
      {"responder_p2p_rtr_read", setup_octets(0x81, 0x07, 4, 4, 1, 0), 0x01, false},
      {"responder_p2p_rtr_send", setup_octets(0x81, 0x07, 4, 4, 2, 0), 0x05, true},
  };
  const std::uint8_t sa = 20, sb = 0x1b, sc = 0;
  for (const Case& c : cases) {
    const mpa::NegotiationConfig ours = config_of(c.setup);
    mpa::NegotiationConfig peer_cfg;
    peer_cfg.role = ours.role == mpa::Role::kInitiator ? mpa::Role::kResponder : mpa::Role::kInitiator;
    peer_cfg.revision = ours.revision;
    peer_cfg.want_markers = c.peer_markers;
    peer_cfg.want_crc = ours.want_crc;
    peer_cfg.peer_to_peer = ours.peer_to_peer;
    peer_cfg.rtr = ours.rtr;
    std::copy(std::begin(ours.rtr_preference), std::end(ours.rtr_preference), std::begin(peer_cfg.rtr_preference));
    mpa::Negotiation us(ours), them(peer_cfg);
    Octets wire_in;
    if (peer_cfg.role == mpa::Role::kInitiator) {
      wire_in.assign(them.pending_output().begin(), them.pending_output().end());
      us.receive(them.pending_output());
      us.accept();
      them.receive(us.pending_output());
    } else {
      them.receive(us.pending_output());
      them.accept();
      wire_in.assign(them.pending_output().begin(), them.pending_output().end());
      us.receive(them.pending_output());
    }
    if (!us.outcome() || !them.outcome()) {
      std::fprintf(stderr, "iwarp_session seed %s: negotiation did not complete\n", c.name);
      std::exit(1);
    }
    // Both RDMAP streams as the target builds ours.
    fuzz::RdmapSide me(fuzz::stream_config(sa, sb, sc)), peer(fuzz::stream_config(sa, sb, sc));
    for (int i = 0; i < 4; ++i) me.post_receive(128);
    for (int i = 0; i < 4; ++i) peer.post_receive(128);
    static constexpr std::uint8_t kHello[] = {'h', 'e', 'l', 'l', 'o'};
    rdmap::Stream& m = me.stream();
    // The initiator's RTR is its first message (RFC 6581 §5), on either side.
    (void)rdmap::post_rtr(m, us.outcome()->rtr_to_send, me.next_wr());
    (void)rdmap::post_rtr(peer.stream(), them.outcome()->rtr_to_send, 100);
    if (c.posts & 1) (void)m.post_send(me.next_wr(), wire::Chunks(wire::Bytes(kHello)));
    if (c.posts & 2)
      (void)m.post_read(me.next_wr(), rdmap::ReadRequest{me.stag(1), me.base_to(1), 32,
                                                         ddp::Stag{static_cast<std::uint32_t>(c.posts) << 8}, 0});
    if (c.posts & 4) (void)m.post_write(me.next_wr(), wire::Chunks(wire::Bytes(kHello)), ddp::Stag{0x100}, 0);
    if (c.posts & 8) {
      rdmap::AtomicRequest a;
      a.remote_stag = ddp::Stag{0x100};
      (void)m.post_atomic(me.next_wr(), a);
    }
    // The peer's own operations on our memory.
    const Octets payload = pattern(300, 9);
    rdmap::Stream& p = peer.stream();
    (void)p.post_send(1, wire::Chunks(wire::Bytes(payload).first(100)));
    (void)p.post_write(2, wire::Chunks(wire::Bytes(payload).first(200)), me.stag(0), me.base_to(0));
    (void)p.post_read(3, rdmap::ReadRequest{peer.stag(1), peer.base_to(1), 48, me.stag(3), me.base_to(3)});
    (void)p.post_immediate(4, 42);
    mpa::Framer to_us(mpa::FramerConfig{them.outcome()->markers_send, them.outcome()->crc, 0});
    // A responder sends nothing before the initiator's RTR arrived.
    if (them.outcome()->rtr_to_send != mpa::RtrKind::kNone) {
      if (auto s = peer.take_outgoing()) {
        to_us.frame(wire::Bytes(*s), wire_in);
        fuzz::hand_over(m, *s, 0);
      }
    }
    for (bool moved = true; moved;) {
      moved = false;
      while (auto s = me.take_outgoing()) { fuzz::hand_over(p, *s, 0); moved = true; }
      while (auto s = peer.take_outgoing()) {
        to_us.frame(wire::Bytes(*s), wire_in);
        fuzz::hand_over(m, *s, 0);
        moved = true;
      }
    }
    Octets input = cat({c.setup, {sa, sb, sc, c.posts, 2, 40, 0xff}, wire_in});
    put("iwarp_session", c.name, input);
  }
}

}  // namespace

// capture_observer's events: data of one side in pieces of at most 256.
void rdmaconf::corpus_gen::observer_data(Octets& out, bool responder, const Octets& data) {
  for (std::size_t at = 0; at < data.size(); at += 256) {
    const std::size_t n = std::min<std::size_t>(256, data.size() - at);
    out.push_back(responder ? 0x80 : 0x00);
    out.push_back(static_cast<std::uint8_t>(n - 1));
    out.insert(out.end(), data.begin() + static_cast<std::ptrdiff_t>(at), data.begin() + static_cast<std::ptrdiff_t>(at + n));
  }
}

using corpus_gen::observer_data;

Octets rdmaconf::corpus_gen::iwarp_session_events(const std::vector<Octets>& segments,
                                                 const std::vector<bool>& from_initiator, bool markers) {
  mpa::NegotiationConfig ic;
  ic.want_markers = markers;
  mpa::NegotiationConfig rc;
  rc.role = mpa::Role::kResponder;
  rc.want_markers = markers;
  mpa::Negotiation i(ic), r(rc);
  Octets events{0x05};
  observer_data(events, false, Octets(i.pending_output().begin(), i.pending_output().end()));
  r.receive(i.pending_output());
  r.accept();
  observer_data(events, true, Octets(r.pending_output().begin(), r.pending_output().end()));
  i.receive(r.pending_output());
  mpa::Framer fi(mpa::FramerConfig{i.outcome()->markers_send, i.outcome()->crc, 0});
  mpa::Framer fr(mpa::FramerConfig{r.outcome()->markers_send, r.outcome()->crc, 0});
  for (std::size_t k = 0; k < segments.size(); ++k) {
    Octets fpdu;
    (from_initiator[k] ? fi : fr).frame(wire::Bytes(segments[k]), fpdu);
    observer_data(events, !from_initiator[k], fpdu);
  }
  return events;
}

namespace {

void capture_observer() {
  // An iWARP connection: Request, Reply, then both streams' FPDUs.
  for (bool markers : {false, true}) {
    std::vector<bool> from_a;
    const std::vector<Octets> segments = every_operation_segments(&from_a);
    const Octets events = corpus_gen::iwarp_session_events(segments, from_a, markers);
    put("capture_observer", markers ? "iwarp_markers" : "iwarp_crc", events);
    // The same connection with a gap in the middle of the initiator's FPDUs.
    Octets gap = events;
    gap.insert(gap.begin() + static_cast<std::ptrdiff_t>(gap.size() / 2), {0x03, 40});
    put("capture_observer", markers ? "iwarp_markers_gap" : "iwarp_crc_gap", gap);
  }
  // A CLC exchange after SYNs with the SMC option.
  const ClcExchange x = clc_exchange(0);
  Octets events{0x0f};
  for (std::size_t k = 0; k < x.client_sent.size(); ++k) {
    observer_data(events, false, x.client_sent[k]);
    if (k < x.server_sent.size()) observer_data(events, true, x.server_sent[k]);
  }
  put("capture_observer", "clc_v2", events);
  const ClcExchange v1 = clc_exchange(fuzz::kClcNoV2);
  Octets mid{0x30};
  for (const Octets& m : v1.server_sent) observer_data(mid, true, m);
  put("capture_observer", "clc_v1_mid_stream", mid);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  g_root = argv[1];
  mpa_req_rep();
  mpa_deframer();
  mpa_negotiation();
  const std::vector<Octets> segments = every_operation_segments();
  ddp_rdmap_segment(segments);
  rdmap_terminate();
  rdmap_stream();
  clc_all();
  smc_tcp_option();
  captures();
  iwarp_session();
  capture_observer();
  corpus_gen::capture_observer_ulps();
  corpus_gen::ulp_message_smbd();
  smcr_link();
  corpus_gen::smcr_link_group();
  corpus_gen::smcr_connection();
  corpus_gen::sctp_all();
  std::printf("wrote %zu seeds under %s\n", g_written, g_root.c_str());
  return 0;
}
