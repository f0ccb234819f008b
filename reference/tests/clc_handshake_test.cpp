// The socket-free CLC handshake: both roles against each other in memory,
// every Decline path with its code, timeouts, fallback, and each named
// consistency check. Sections: RFC 7609 §3.5, App. C; Linux net/smc af_smc.c
// and smc_clc.c for v2.
#include "clc/handshake.hpp"

#include <gtest/gtest.h>

namespace rdmaconf::clc {
namespace {

using HF = ClcHeaderSpec::Field;

ClientConfig client_config() {
  ClientConfig c;
  c.link.peer_id = 0x0a0b001122334455;
  c.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
  c.link.mac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
  c.link.qp_number = 0x456;
  c.link.rmb_rkey = 0x1234;
  c.link.rmbe_alert_token = 9;
  c.link.rmbe_size = 32768;
  c.link.qp_mtu = 5;
  c.link.rmb_virtual_address = 0x7f0056780000;
  c.link.initial_psn = 0x654321;
  c.ipv4 = {0xc0a80100, 24};
  c.v2.user_eids = {make_eid("SMC-TEST-EID")};
  c.v2.rocev2_gid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xc0, 0xa8, 0x01, 0x0a};
  c.v2.hostname = "client.example";
  c.v2.max_conns = 200;
  return c;
}

ServerConfig server_config() {
  ServerConfig s;
  s.link.peer_id = 0x0c0d66778899aabb;
  s.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x66, 0x77, 0xff, 0xfe, 0x99, 0xaa, 0xbb};
  s.link.mac = {0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};
  s.link.qp_number = 0x123;
  s.link.rmb_rkey = 0xabcd;
  s.link.rmbe_alert_token = 5;
  s.link.qp_mtu = 3;
  s.link.rmb_virtual_address = 0x7f0012340000;
  s.link.initial_psn = 0x123456;
  s.ipv4 = {0xc0a80100, 24};
  s.v2.user_eids = {make_eid("OTHER-EID"), make_eid("SMC-TEST-EID")};
  s.v2.hostname = "server.example";
  return s;
}

struct Result2 {
  Outcome client;
  Outcome server;
  std::vector<std::vector<std::uint8_t>> wire;  // every message in order
};

// Runs both machines to completion, passing each message to the other side.
Result2 run(ClientHandshake& c, ServerHandshake& s, bool smc_capable = true) {
  Result2 r;
  std::optional<Outcome> co, so;
  Step ss = s.start(smc_capable);
  if (ss.outcome) so = ss.outcome;
  Step cs = c.start(smc_capable);
  if (cs.outcome) co = cs.outcome;
  std::vector<std::uint8_t> to_server = cs.send, to_client;
  while (!to_server.empty() || !to_client.empty()) {
    if (!to_server.empty()) {
      r.wire.push_back(to_server);
      Step st = s.on_message(to_server);
      to_server.clear();
      to_client = st.send;
      if (st.outcome) so = st.outcome;
    }
    if (!to_client.empty()) {
      r.wire.push_back(to_client);
      Step st = c.on_message(to_client);
      to_client.clear();
      to_server = st.send;
      if (st.outcome) co = st.outcome;
    }
  }
  EXPECT_TRUE(co.has_value());
  if (co) r.client = *co;
  if (so) r.server = *so;
  else r.server = s.on_timeout().outcome.value_or(Outcome{});  // server still waiting
  return r;
}

TEST(ClcHandshake, V1FirstContactCompletes) {
  auto cc = client_config();
  cc.offer_v2 = false;
  ClientHandshake c(cc);
  ServerHandshake s(server_config());
  auto r = run(c, s);
  ASSERT_EQ(r.wire.size(), 3u);  // Proposal, Accept, Confirm
  EXPECT_EQ(r.wire[0].size(), 52u);
  EXPECT_EQ(r.wire[1].size(), 68u);
  EXPECT_EQ(r.wire[2].size(), 68u);
  ASSERT_EQ(r.client.kind, OutcomeKind::kSmc);
  ASSERT_EQ(r.server.kind, OutcomeKind::kSmc);
  EXPECT_EQ(r.client.version, 1);
  EXPECT_TRUE(r.client.first_contact && r.server.first_contact);
  EXPECT_EQ(r.client.peer->qp_number, 0x123u);
  EXPECT_EQ(r.server.peer->qp_number, 0x456u);
  EXPECT_EQ(r.server.peer->rmbe_size, 32768u);
  EXPECT_EQ(r.server.peer->initial_psn, 0x654321u);
  EXPECT_EQ(r.client.qp_mtu, 3) << "client takes the smaller MTU";
  EXPECT_EQ(r.server.qp_mtu, 3);
}

TEST(ClcHandshake, V2FirstContactNegotiatesEidReleaseAndLimits) {
  ClientHandshake c(client_config());
  ServerHandshake s(server_config());
  auto r = run(c, s);
  ASSERT_EQ(r.wire.size(), 3u);
  EXPECT_EQ(r.wire[1].size(), 160u) << "SMC-Rv2 Accept with first-contact extension";
  EXPECT_EQ(r.wire[2].size(), 180u) << "SMC-Rv2 Confirm with a one-GID list";
  ASSERT_EQ(r.client.kind, OutcomeKind::kSmc);
  ASSERT_EQ(r.server.kind, OutcomeKind::kSmc);
  EXPECT_EQ(r.client.version, 2);
  EXPECT_EQ(*r.client.negotiated_eid, make_eid("SMC-TEST-EID"));
  EXPECT_EQ(*r.server.negotiated_eid, make_eid("SMC-TEST-EID"));
  EXPECT_EQ(r.client.release, 1);
  auto accept = std::get<AcceptConfirm>(*decode(r.wire[1]));
  EXPECT_EQ(accept.fce_v2x->get(FirstContactExtV2xSpec::Field::MaxConns), 200u) << "min(255, 200)";
}

TEST(ClcHandshake, V2OnlyProposalLeavesV1IdentityZero) {
  // Linux smc_clc_send_proposal fills Peer ID, GID and MAC only for a v1
  // SMC-R offer: a v2-only Proposal carries zeros there, and the Confirm's
  // Peer ID has nothing to be compared with.
  auto cc = client_config();
  cc.offer_v1 = false;
  ClientHandshake c(cc);
  ServerHandshake s(server_config());
  Step cs = c.start(true);
  auto p = std::get<Proposal>(*decode(cs.send));
  ASSERT_FALSE(p.v1_smcr_identity());
  p.body.set(ProposalBodySpec::Field::PeerId, 0)
      .set_octets(ProposalBodySpec::Field::Gid, Gid{})
      .set_octets(ProposalBodySpec::Field::Mac, Mac{});
  finalize(p);
  s.start(true);
  Step accept = s.on_message(encode(Message{p}));
  ASSERT_FALSE(accept.outcome.has_value()) << "declined: " << accept.outcome->diagnosis;
  Step confirm = c.on_message(accept.send);
  ASSERT_FALSE(confirm.send.empty());
  Step done = s.on_message(confirm.send);
  ASSERT_TRUE(done.outcome.has_value());
  EXPECT_EQ(done.outcome->kind, OutcomeKind::kSmc);
  EXPECT_EQ(done.outcome->version, 2);
}

TEST(ClcHandshake, V2ClientFallsBackToV1WhenServerIsV1Only) {
  auto sc = server_config();
  sc.accept_v2 = false;
  ClientHandshake c(client_config());
  ServerHandshake s(sc);
  auto r = run(c, s);
  ASSERT_EQ(r.client.kind, OutcomeKind::kSmc);
  EXPECT_EQ(r.client.version, 1);
  EXPECT_EQ(r.server.version, 1);
}

TEST(ClcHandshake, SubsequentContactReusesLinkGroup) {
  auto cc = client_config();
  auto sc = server_config();
  cc.link_group = LinkGroupPeer{sc.link.peer_id, sc.link.gid, sc.link.mac, sc.link.qp_number};
  sc.link_groups = {LinkGroupPeer{cc.link.peer_id, cc.link.gid, cc.link.mac, cc.link.qp_number}};
  ClientHandshake c(cc);
  ServerHandshake s(sc);
  auto r = run(c, s);
  ASSERT_EQ(r.client.kind, OutcomeKind::kSmc);
  ASSERT_EQ(r.server.kind, OutcomeKind::kSmc);
  EXPECT_FALSE(r.client.first_contact);
  EXPECT_EQ(r.wire[1].size(), 108u) << "no first-contact extension on a reused link group";
}

// RFC 7609 §3.5.2, §4.1: the Accept of a reused link group names that
// group's link and the RMBE and alert token the server gave this connection.
TEST(ClcHandshake, SubsequentContactNamesTheGroupsLinkAndANewRmbe) {
  auto cc = client_config();
  auto sc = server_config();
  cc.link_group = LinkGroupPeer{sc.link.peer_id, sc.link.gid, sc.link.mac, sc.link.qp_number};
  sc.link_groups = {LinkGroupPeer{cc.link.peer_id, cc.link.gid, cc.link.mac, cc.link.qp_number}};
  SmcrLink again = sc.link;
  again.rmbe_index = 2;
  again.rmbe_alert_token = sc.link.rmbe_alert_token + 1;
  sc.link_group_links = {again};
  sc.link.qp_number = 0x777;  // a first contact's new link: not what a reuse names
  ClientHandshake c(cc);
  ServerHandshake s(sc);
  auto r = run(c, s);
  ASSERT_EQ(r.client.kind, OutcomeKind::kSmc);
  ASSERT_TRUE(r.client.peer);
  EXPECT_EQ(r.client.peer->qp_number, again.qp_number);
  EXPECT_EQ(r.client.peer->rmbe_index, 2);
  EXPECT_EQ(r.client.peer->rmbe_alert_token, again.rmbe_alert_token);
}

void expect_declined(const Result2& r, bool server_declined, std::uint32_t code, std::string_view check) {
  const Outcome& sender = server_declined ? r.server : r.client;
  const Outcome& receiver = server_declined ? r.client : r.server;
  EXPECT_EQ(sender.kind, OutcomeKind::kFallback);
  EXPECT_TRUE(sender.decline_sent);
  EXPECT_EQ(sender.diagnosis, code);
  ASSERT_NE(sender.failed_rule, nullptr);
  EXPECT_EQ(sender.failed_rule->id, check);
  EXPECT_EQ(receiver.kind, OutcomeKind::kFallback);
  EXPECT_TRUE(receiver.decline_received);
  EXPECT_EQ(receiver.diagnosis, code);
  EXPECT_TRUE(receiver.peer_violations.empty());
  ASSERT_FALSE(r.wire.empty());
  auto d = decode(r.wire.back());
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(std::holds_alternative<Decline>(*d));
  EXPECT_EQ(std::get<Decline>(*d).out_of_sync(), code == kDeclSyncErr);
}

TEST(ClcHandshake, ServerDeclinesPrefixMismatch) {
  auto cc = client_config();
  cc.offer_v2 = false;
  cc.ipv4 = {0x0a000000, 8};
  ClientHandshake c(cc);
  ServerHandshake s(server_config());
  auto r = run(c, s);
  expect_declined(r, true, kDeclDiffPrefix, "rfc7609-3.5.1.2-prefix-match");
  EXPECT_EQ(r.wire.back().size(), 28u) << "a v1 exchange is declined with a v1 Decline";
}

TEST(ClcHandshake, ServerDeclinesNoCommonEid) {
  auto cc = client_config();
  cc.offer_v1 = false;
  cc.v2.user_eids = {make_eid("NOBODY-ELSE")};
  ClientHandshake c(cc);
  ServerHandshake s(server_config());
  auto r = run(c, s);
  expect_declined(r, true, kDeclNoUeid, "smcv2-proposal-eid-match");
  EXPECT_EQ(r.wire.back().size(), 44u) << "a v2 exchange is declined with a v2 Decline";
}

TEST(ClcHandshake, ServerDeclinesVersionMismatch) {
  auto cc = client_config();
  cc.offer_v2 = false;
  auto sc = server_config();
  sc.accept_v1 = false;
  ClientHandshake c(cc);
  ServerHandshake s(sc);
  expect_declined(run(c, s), true, kDeclVersMismat, "smcv2-proposal-version-choice");
}

TEST(ClcHandshake, ServerDeclinesSmcdOnlyProposal) {
  ServerHandshake s(server_config());
  (void)s.start(true);
  Proposal p = build_proposal(client_config());
  set_type_bits_field(p.header, kProposalTypeBits[0], static_cast<std::uint64_t>(SmcType::kNone));
  set_type_bits_field(p.header, kProposalTypeBits[1], static_cast<std::uint64_t>(SmcType::kD));
  p.v2_ext.reset();
  p.user_eids.clear();
  p.ip_prefix.emplace();
  finalize(p);
  Step st = s.on_message(encode(p));
  ASSERT_TRUE(st.outcome);
  EXPECT_EQ(st.outcome->diagnosis, kDeclNoSmcdDev);
  ASSERT_NE(st.outcome->failed_rule, nullptr);
  EXPECT_EQ(st.outcome->failed_rule->id, "smcv2-proposal-smcr-path");
}

// A client with ISM devices offers SMC-D beside SMC-R (Linux
// smc_clc_send_proposal): version 1 names its native ISM GID in the SMC-D
// area, version 2 lists its devices in the SMC-Dv2 extension; the Proposal
// decodes with every block in place, and one offering SMC-D alone is sent,
// not declined at once for want of a path.
TEST(ClcHandshake, ProposalOfferingSmcdNamesItsDevices) {
  ClientConfig c = client_config();
  c.smcd.v1 = c.smcd.v2 = true;
  c.smcd.native = {0x1122334455667788ull, 0x0101};
  c.smcd.v2_devices = {c.smcd.native, {0x99aabbccddeeff00ull, 0xffff}};
  auto m = decode(encode(build_proposal(c)));
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  const auto& p = std::get<Proposal>(*m);
  EXPECT_EQ(p.smcv1_type(), SmcType::kBoth);
  EXPECT_EQ(p.smcv2_type(), SmcType::kBoth);
  ASSERT_TRUE(p.smcd && p.ip_prefix && p.v2_ext && p.smcd_v2_ext);
  EXPECT_EQ(p.smcd->get(ProposalSmcdSpec::Field::IsmGid), 0x1122334455667788ull);
  EXPECT_EQ(p.smcd->get(ProposalSmcdSpec::Field::IsmChid), 0x0101u);
  ASSERT_EQ(p.ism_gids.size(), 2u);
  EXPECT_EQ(p.v2_ext->get(V2ExtensionSpec::Field::IsmGidCount), 2u);
  EXPECT_EQ(p.ism_gids[1].get(IsmGidChidSpec::Field::Gid), 0x99aabbccddeeff00ull);
  EXPECT_EQ(p.ism_gids[1].get(IsmGidChidSpec::Field::Chid), 0xffffu);

  ClientConfig only_d = client_config();
  only_d.offer_v1 = only_d.offer_v2 = false;
  only_d.smcd.v1 = true;
  only_d.smcd.native = c.smcd.native;
  ClientHandshake client(only_d);
  const Step st = client.start(true);
  EXPECT_FALSE(st.outcome) << "declined at once";
  auto sent = decode(st.send);
  ASSERT_TRUE(sent.ok()) << sent.error().to_string();
  const auto& q = std::get<Proposal>(*sent);
  EXPECT_EQ(q.version(), kVersion1);
  EXPECT_EQ(q.smcv1_type(), SmcType::kD);
  // ... which a server without an ISM device declines naming the SMC-D device.
  ServerHandshake s(server_config());
  (void)s.start(true);
  const Step answer = s.on_message(st.send);
  ASSERT_TRUE(answer.outcome);
  EXPECT_EQ(answer.outcome->diagnosis, kDeclNoSmcdDev);
}

TEST(ClcHandshake, ClientDeclinesOutOfSyncLinkGroup) {
  // The server believes it shares a link group with the client; the client
  // has none: it must decline SYNCERR with Out of Sync (Linux smc_conn_create).
  auto cc = client_config();
  auto sc = server_config();
  sc.link_groups = {LinkGroupPeer{cc.link.peer_id, cc.link.gid, cc.link.mac, cc.link.qp_number}};
  ClientHandshake c(cc);
  ServerHandshake s(sc);
  auto r = run(c, s);
  expect_declined(r, false, kDeclSyncErr, "rfc7609-3.5.2-client-first-contact-mismatch");
  EXPECT_TRUE(r.server.peer_out_of_sync);
}

TEST(ClcHandshake, ClientWithNothingToOfferDeclinesFirst) {
  auto cc = client_config();
  cc.offer_v1 = cc.offer_v2 = false;
  ClientHandshake c(cc);
  ServerHandshake s(server_config());
  auto r = run(c, s);
  ASSERT_EQ(r.wire.size(), 1u);
  expect_declined(r, false, kDeclNoSmcDev, "rfc7609-c.1-decline-reason");
}

// Runs the client against a scripted server that answers with `accept`
// after letting it be changed.
template <typename Mutate>
Outcome client_against_accept(Mutate mutate, ClientConfig cc = client_config()) {
  ClientHandshake c(cc);
  ServerHandshake s(server_config());
  (void)s.start(true);
  Step p = c.start(true);
  Step a = s.on_message(p.send);
  auto acc = std::get<AcceptConfirm>(*decode(a.send));
  mutate(acc);
  Step r = c.on_message(encode(acc));
  EXPECT_TRUE(r.outcome);
  return r.outcome.value_or(Outcome{});
}

TEST(ClcHandshake, ClientChecksEachAcceptRule) {
  using RF = SmcrAcceptConfirmSpec::Field;
  struct Case {
    const char* what;
    void (*mutate)(AcceptConfirm&);
    std::string_view check;
    std::uint32_t code;
  };
  const Case cases[] = {
      {"zero peer ID", [](AcceptConfirm& a) { a.smcr->set(RF::PeerId, 0); }, "rfc7609-a.2.3-accept-peer-valid", kDeclCnfErr},
      {"multicast MAC", [](AcceptConfirm& a) { a.smcr->set_octets(RF::Mac, std::array<std::uint8_t, 6>{1, 0, 0x5e, 0, 0, 1}); },
       "rfc7609-a.2.3-accept-peer-valid", kDeclCnfErr},
      {"QP1", [](AcceptConfirm& a) { a.smcr->set(RF::QpNumber, 1); }, "rfc7609-a.2.3-accept-qp-number", kDeclCnfErr},
      {"RMBE index 0", [](AcceptConfirm& a) { a.smcr->set(RF::RmbeIndex, 0); }, "rfc7609-a.2.3-accept-rmb-valid", kDeclCnfErr},
      {"RMB wraps", [](AcceptConfirm& a) { a.smcr->set(RF::RmbVirtualAddress, ~0ull - 100); }, "rfc7609-a.2.3-accept-rmb-valid",
       kDeclCnfErr},
      {"foreign EID", [](AcceptConfirm& a) {
         a.smcr_v2->set_octets(SmcrV2AcceptConfirmSpec::Field::Eid, make_eid("OTHER-EID")); },
       "smcv2-accept-eid", kDeclNoUeid},
      {"release above client's", [](AcceptConfirm& a) { a.fce->set(FirstContactExtSpec::Field::Release, 2); },
       "smcv2-accept-release", kDeclReleaseErr},
      {"max conns 15", [](AcceptConfirm& a) { a.fce_v2x->set(FirstContactExtV2xSpec::Field::MaxConns, 15); },
       "smcv2-accept-max-conns", kDeclMaxConnErr},
      {"max links 3", [](AcceptConfirm& a) { a.fce_v2x->set(FirstContactExtV2xSpec::Field::MaxLinks, 3); },
       "smcv2-accept-max-links", kDeclMaxLinkErr},
  };
  for (const Case& k : cases) {
    Outcome o = client_against_accept(k.mutate);
    EXPECT_EQ(o.kind, OutcomeKind::kFallback) << k.what;
    ASSERT_NE(o.failed_rule, nullptr) << k.what;
    EXPECT_EQ(o.failed_rule->id, k.check) << k.what;
    EXPECT_EQ(o.diagnosis, k.code) << k.what;
  }
  // A v1 Accept to a client that offered SMC-R in version 2 only.
  auto v2_only = client_config();
  v2_only.offer_v1 = false;
  Outcome o = client_against_accept(
      [](AcceptConfirm& a) {
        a.header.set(HF::Version, 1);
        a.smcr_v2.reset();
        a.fce.reset();
        a.fce_v2x.reset();
        finalize(a);
      },
      v2_only);
  ASSERT_NE(o.failed_rule, nullptr);
  EXPECT_EQ(o.failed_rule->id, "smcv2-accept-version-offered");
  EXPECT_EQ(o.diagnosis, kDeclVersMismat);
  // SMC-D Accept to an SMC-R-only Proposal.
  auto cc = client_config();
  cc.offer_v2 = false;
  ClientHandshake c(cc);
  (void)c.start(true);
  AcceptConfirm d = std::get<AcceptConfirm>(*decode(std::vector<std::uint8_t>{
      0xe2, 0xd4, 0xc3, 0xc4, 0x02, 0x00, 0x30, 0x11, 0, 0, 0, 0, 0, 0, 0xab, 0xcd, 0, 0, 0, 0, 0xde, 0xad,
      0xbe, 0xef, 0, 0x10, 0, 0, 1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xe2, 0xd4, 0xc3, 0xc4}));
  Step st = c.on_message(encode(d));
  ASSERT_TRUE(st.outcome);
  EXPECT_EQ(st.outcome->failed_rule->id, "smcv2-accept-path-offered");
  EXPECT_EQ(st.outcome->diagnosis, kDeclModeUnsupp);
}

TEST(ClcHandshake, ServerChecksEachConfirmRule) {
  using RF = SmcrAcceptConfirmSpec::Field;
  struct Case {
    const char* what;
    void (*mutate)(AcceptConfirm&);
    std::string_view check;
  };
  const Case cases[] = {
      {"first contact flipped", [](AcceptConfirm& c) { set_type_bits_field(c.header, kAcceptConfirmTypeBits[0], 0);
                                                       c.fce.reset(); c.fce_v2x.reset(); c.gid_list.reset();
                                                       c.gids.clear(); finalize(c); },
       "rfc7609-c.4-confirm-first-contact-echo"},
      {"peer ID changed", [](AcceptConfirm& c) { c.smcr->set(RF::PeerId, 42); }, "rfc7609-a.2.4-confirm-peer-id"},
      {"zero GID", [](AcceptConfirm& c) { c.smcr->set_octets(RF::Gid, std::array<std::uint8_t, 16>{}); },
       "rfc7609-a.2.4-confirm-peer-valid"},
      {"QP0", [](AcceptConfirm& c) { c.smcr->set(RF::QpNumber, 0); }, "rfc7609-a.2.4-confirm-qp-number"},
      {"RMBE index 0", [](AcceptConfirm& c) { c.smcr->set(RF::RmbeIndex, 0); }, "rfc7609-a.2.4-confirm-rmb-valid"},
      {"MTU above Accept", [](AcceptConfirm& c) { c.smcr->set(RF::QpMtu, 5); }, "rfc7609-a.2.4-confirm-mtu-not-above-accept"},
      {"EID changed", [](AcceptConfirm& c) {
         c.smcr_v2->set_octets(SmcrV2AcceptConfirmSpec::Field::Eid, make_eid("OTHER-EID")); }, "smcv2-confirm-eid"},
      {"release changed", [](AcceptConfirm& c) { c.fce->set(FirstContactExtSpec::Field::Release, 0); },
       "smcv2-confirm-release"},
      {"max conns changed", [](AcceptConfirm& c) { c.fce_v2x->set(FirstContactExtV2xSpec::Field::MaxConns, 100); },
       "smcv2-confirm-max-conns"},
      {"max links changed", [](AcceptConfirm& c) { c.fce_v2x->set(FirstContactExtV2xSpec::Field::MaxLinks, 1); },
       "smcv2-confirm-max-links"},
  };
  for (const Case& k : cases) {
    ClientHandshake c(client_config());
    ServerHandshake s(server_config());
    (void)s.start(true);
    Step a = s.on_message(c.start(true).send);
    Step cf = c.on_message(a.send);
    auto confirm = std::get<AcceptConfirm>(*decode(cf.send));
    k.mutate(confirm);
    Step r = s.on_message(encode(confirm));
    ASSERT_TRUE(r.outcome) << k.what;
    EXPECT_EQ(r.outcome->kind, OutcomeKind::kFallback) << k.what;
    ASSERT_NE(r.outcome->failed_rule, nullptr) << k.what;
    EXPECT_EQ(r.outcome->failed_rule->id, k.check) << k.what;
    EXPECT_EQ(r.outcome->diagnosis, check::decline_code(*r.outcome->failed_rule)) << k.what;
    EXPECT_NE(r.outcome->diagnosis, 0u) << k.what;
    ASSERT_FALSE(r.send.empty()) << k.what;
    EXPECT_EQ(message_type(*decode(r.send)), MessageType::kDecline) << k.what;
  }
}

TEST(ClcHandshake, NoSmcOptionMeansPlainTcpWithoutClc) {
  ClientHandshake c(client_config());
  ServerHandshake s(server_config());
  Step cs = c.start(false);
  Step ss = s.start(false);
  EXPECT_TRUE(cs.send.empty());
  ASSERT_TRUE(cs.outcome && ss.outcome);
  EXPECT_EQ(cs.outcome->kind, OutcomeKind::kFallback);
  EXPECT_EQ(cs.outcome->diagnosis, kDeclPeerNoSmc);
  EXPECT_FALSE(cs.outcome->decline_sent);
  EXPECT_EQ(ss.outcome->diagnosis, kDeclPeerNoSmc);
}

TEST(ClcHandshake, TimeoutsFailTheConnection) {
  ClientHandshake c(client_config());
  (void)c.start(true);
  Step t = c.on_timeout();
  ASSERT_TRUE(t.outcome);
  EXPECT_EQ(t.outcome->kind, OutcomeKind::kFailed);
  EXPECT_EQ(t.outcome->fail, FailReason::kTimeout);
  EXPECT_TRUE(t.send.empty()) << "Linux resets the connection; no Decline";

  ServerHandshake s(server_config());
  (void)s.start(true);
  Step ts = s.on_timeout();
  ASSERT_TRUE(ts.outcome);
  EXPECT_EQ(ts.outcome->fail, FailReason::kTimeout);
  EXPECT_EQ(ts.outcome->error->field, "Proposal");
}

TEST(ClcHandshake, WrongMessageTypeIsAProtocolError) {
  ClientHandshake c(client_config());
  Step p = c.start(true);
  Step r = c.on_message(p.send);  // the client's own Proposal echoed back
  ASSERT_TRUE(r.outcome);
  EXPECT_EQ(r.outcome->kind, OutcomeKind::kFailed);
  EXPECT_EQ(r.outcome->fail, FailReason::kProtocolError);
  EXPECT_EQ(r.outcome->error->rfc_section, cite::kClcProtocolError);

  ServerHandshake s(server_config());
  (void)s.start(true);
  std::vector<std::uint8_t> garbage(28, 0);
  Step g = s.on_message(garbage);
  ASSERT_TRUE(g.outcome);
  EXPECT_EQ(g.outcome->fail, FailReason::kProtocolError);
  EXPECT_EQ(g.outcome->error->field, "Eyecatcher");
}

TEST(ClcHandshake, PeerDeclineBreakingTheDiagnosisRulesIsReported) {
  ServerHandshake s(server_config());
  (void)s.start(true);
  Decline d = build_decline(kVersion2, 1, kDeclPeerDecl, kOsLinux);  // a local-only code, on the wire
  set_type_bits_field(d.header, kDeclineTypeBits[0], 1);              // Out of Sync without SYNCERR
  Step st = s.on_message(encode(d));
  ASSERT_TRUE(st.outcome);
  EXPECT_EQ(st.outcome->kind, OutcomeKind::kFallback);
  ASSERT_EQ(st.outcome->peer_violations.size(), 2u);
  EXPECT_EQ(st.outcome->peer_violations[0].rule->id, "rfc7609-c.4-decline-out-of-sync");
  EXPECT_EQ(st.outcome->peer_violations[1].rule->id, "smcv2-decline-code-on-wire");
}

// Every rule a machine declines on names its diagnosis in its registry row
// (declined_with): a code of the Decline table that goes on the wire. Only
// the Decline rules (reported, never declined on) and the first-contact
// extension's absence (a receiver ignores the octets; captures judge it)
// name none.
TEST(ClcHandshake, EveryDeclinedRuleNamesItsCodeInItsRow) {
  std::vector<const check::Rule*> rules(check::clc_rules().begin(), check::clc_rules().end());
  rules.insert(rules.end(), check::clc_local_rules().begin(), check::clc_local_rules().end());
  EXPECT_EQ(rules.size(), 35u);
  for (const check::Rule* r : rules) {
    ASSERT_NE(r->row, nullptr) << r->id;
    const bool names_no_code =
        r == &check::kDeclineOutOfSync || r == &check::kDeclineCodeOnWire || r == &check::kFceAbsent;
    EXPECT_EQ(r->row->decline.empty(), names_no_code) << r->id;
    if (names_no_code) {
      EXPECT_EQ(check::decline_code(*r), 0u) << r->id;
      continue;
    }
    const DeclineCode* code = find_decline_code(check::decline_code(*r));
    ASSERT_NE(code, nullptr) << r->id << " declines with " << r->row->decline << ", no SMC_CLC_DECL_ name";
    EXPECT_EQ(code->linux_name, r->row->decline) << r->id;
    EXPECT_TRUE(code->on_wire) << r->id;
  }
}

}  // namespace
}  // namespace rdmaconf::clc
