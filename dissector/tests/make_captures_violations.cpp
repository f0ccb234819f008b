// make_captures: one crafted capture per rule id the plugin reports, each a
// clean exchange with one field or one step changed (make_captures.hpp).
#include "make_captures.hpp"

namespace rdmaconf::make_captures {

namespace {

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

}  // namespace

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

}  // namespace rdmaconf::make_captures
