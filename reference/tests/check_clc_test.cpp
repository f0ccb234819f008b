// The CLC rules of the rule layer (check/clc.hpp): on the messages of a
// clean v2 exchange (made by the handshake machines) no function says
// anything; each broken field is named by its rule. The machines' Decline
// codes for the same rules are clc_handshake_test's.
#include "check/clc.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "clc/handshake.hpp"

namespace rdmaconf::check {
namespace {

using RF = clc::SmcrAcceptConfirmSpec::Field;
using PF = clc::ProposalBodySpec::Field;

struct Exchange {
  clc::Proposal proposal;
  clc::AcceptConfirm accept;
  clc::AcceptConfirm confirm;
};

Exchange clean_exchange(bool offer_v2 = true) {
  clc::ClientConfig cc;
  cc.link.peer_id = 0x0a0b001122334455;
  cc.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
  cc.link.mac = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55};
  cc.link.qp_number = 0x456;
  cc.ipv4 = {0xc0a80100, 24};
  cc.offer_v2 = offer_v2;
  cc.v2.user_eids = {clc::make_eid("SMC-TEST-EID")};
  clc::ServerConfig sc;
  sc.link.peer_id = 0x0c0d66778899aabb;
  sc.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x66, 0x77, 0xff, 0xfe, 0x99, 0xaa, 0xbb};
  sc.link.mac = {0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb};
  sc.link.qp_number = 0x123;
  sc.ipv4 = cc.ipv4;
  sc.v2.user_eids = cc.v2.user_eids;
  clc::ClientHandshake client(cc);
  clc::ServerHandshake server(sc);
  (void)server.start(true);
  const clc::Step p = client.start(true);
  const clc::Step a = server.on_message(p.send);
  const clc::Step c = client.on_message(a.send);
  Exchange e;
  e.proposal = std::get<clc::Proposal>(*clc::decode(p.send));
  e.accept = std::get<clc::AcceptConfirm>(*clc::decode(a.send));
  e.confirm = std::get<clc::AcceptConfirm>(*clc::decode(c.send));
  return e;
}

// Every rule of the file on one exchange; the rules it broke.
std::vector<const Rule*> broken(const Exchange& e) {
  std::vector<const Rule*> out;
  auto add = [&](const Outcome& o) {
    if (o) out.push_back(o->rule);
  };
  add(proposal_peer_id(e.proposal));
  add(proposal_gid_mac(e.proposal));
  add(accept_version_offered(e.proposal, e.accept));
  add(accept_path_offered(e.proposal, e.accept));
  add(accept_peer_valid(*e.accept.smcr));
  add(accept_qp_number(*e.accept.smcr));
  add(accept_rmb_valid(*e.accept.smcr));
  add(accept_eid_offered(e.proposal, e.accept));
  add(accept_release(e.proposal, e.accept));
  add(accept_max_conns(e.accept));
  add(accept_max_links(e.accept));
  add(confirm_version(e.accept, e.confirm));
  add(confirm_path(e.accept, e.confirm));
  add(confirm_first_contact(e.accept, e.confirm));
  add(confirm_peer_id(e.proposal, *e.confirm.smcr));
  add(confirm_peer_valid(*e.confirm.smcr));
  add(confirm_qp_number(*e.confirm.smcr));
  add(confirm_rmb_valid(*e.confirm.smcr));
  add(confirm_mtu(e.accept, e.confirm));
  add(confirm_eid(e.accept, e.confirm));
  add(confirm_release(e.accept, e.confirm));
  add(confirm_max_conns(e.accept, e.confirm));
  add(confirm_max_links(e.accept, e.confirm));
  return out;
}

TEST(CheckClc, CleanExchangesKeepEveryRule) {
  EXPECT_TRUE(broken(clean_exchange(true)).empty());
  EXPECT_TRUE(broken(clean_exchange(false)).empty());
}

TEST(CheckClc, EachBrokenFieldNamesItsRule) {
  struct Case {
    const char* what;
    void (*mutate)(Exchange&);
    const Rule* rule;
  };
  const Case cases[] = {
      {"Proposal peer ID 0", [](Exchange& e) { e.proposal.body.set(PF::PeerId, 0); }, &kProposalPeerId},
      {"Proposal multicast MAC", [](Exchange& e) { e.proposal.body.set_octets(PF::Mac, std::array<std::uint8_t, 6>{1, 0, 0x5e, 0, 0, 1}); },
       &kProposalGidMac},
      {"Accept version 3", [](Exchange& e) { e.accept.header.set(clc::ClcHeaderSpec::Field::Version, 3); },
       &kAcceptVersion},
      {"Accept path SMC-D", [](Exchange& e) { clc::set_type_bits_field(e.accept.header, clc::kAcceptConfirmTypeBits[2], 1); },
       &kAcceptPath},
      {"Accept GID 0", [](Exchange& e) { e.accept.smcr->set_octets(RF::Gid, std::array<std::uint8_t, 16>{}); }, &kAcceptPeer},
      {"Accept QP1", [](Exchange& e) { e.accept.smcr->set(RF::QpNumber, 1); }, &kAcceptQp},
      {"Accept RMBE index 0", [](Exchange& e) { e.accept.smcr->set(RF::RmbeIndex, 0); }, &kAcceptRmb},
      {"Accept EID not offered", [](Exchange& e) {
         e.accept.smcr_v2->set_octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid, clc::make_eid("OTHER")); },
       &kAcceptEid},
      {"Accept release 2", [](Exchange& e) { e.accept.fce->set(clc::FirstContactExtSpec::Field::Release, 2); },
       &kAcceptRelease},
      {"Accept Max Conns 15", [](Exchange& e) { e.accept.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, 15); },
       &kAcceptMaxConns},
      {"Accept Max Links 3", [](Exchange& e) { e.accept.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxLinks, 3); },
       &kAcceptMaxLinks},
      {"Confirm version 1", [](Exchange& e) { e.confirm.header.set(clc::ClcHeaderSpec::Field::Version, 1); },
       &kConfirmVersion},
      {"Confirm path SMC-D", [](Exchange& e) { clc::set_type_bits_field(e.confirm.header, clc::kAcceptConfirmTypeBits[2], 1); },
       &kConfirmPath},
      {"Confirm First Contact cleared",
       [](Exchange& e) { clc::set_type_bits_field(e.confirm.header, clc::kAcceptConfirmTypeBits[0], 0); },
       &kConfirmFirstContact},
      {"Confirm peer ID changed", [](Exchange& e) { e.confirm.smcr->set(RF::PeerId, 42); }, &kConfirmPeerId},
      {"Confirm multicast MAC", [](Exchange& e) { e.confirm.smcr->set_octets(RF::Mac, std::array<std::uint8_t, 6>{1, 2, 3, 4, 5, 6}); },
       &kConfirmPeer},
      {"Confirm QP0", [](Exchange& e) { e.confirm.smcr->set(RF::QpNumber, 0); }, &kConfirmQp},
      {"Confirm RMB wraps", [](Exchange& e) { e.confirm.smcr->set(RF::RmbVirtualAddress, ~0ull - 100); }, &kConfirmRmb},
      {"Confirm MTU above", [](Exchange& e) { e.confirm.smcr->set(RF::QpMtu, 5); }, &kConfirmMtu},
      {"Confirm EID changed", [](Exchange& e) {
         e.confirm.smcr_v2->set_octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid, clc::make_eid("OTHER")); },
       &kConfirmEid},
      {"Confirm release changed", [](Exchange& e) { e.confirm.fce->set(clc::FirstContactExtSpec::Field::Release, 0); },
       &kConfirmRelease},
      {"Confirm Max Conns changed", [](Exchange& e) { e.confirm.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, 100); },
       &kConfirmMaxConns},
      {"Confirm Max Links changed", [](Exchange& e) { e.confirm.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxLinks, 1); },
       &kConfirmMaxLinks},
  };
  for (const Case& k : cases) {
    Exchange e = clean_exchange();
    k.mutate(e);
    const auto rules = broken(e);
    EXPECT_NE(std::find(rules.begin(), rules.end(), k.rule), rules.end()) << k.what;
  }
}

TEST(CheckClc, IdentityRulesOnlyOnAV1SmcrOffer) {
  // A v2-only Proposal leaves Peer ID, GID and MAC zero: no rule reads them.
  clc::Proposal p = clean_exchange(true).proposal;
  EXPECT_TRUE(p.v1_smcr_identity());
  clc::set_type_bits_field(p.header, clc::kProposalTypeBits[1], static_cast<std::uint64_t>(clc::SmcType::kNone));
  p.body.set(PF::PeerId, 0);
  EXPECT_FALSE(proposal_peer_id(p));
  EXPECT_FALSE(proposal_gid_mac(p));
}

TEST(CheckClc, DeclineRules) {
  clc::Decline d = clc::build_decline(clc::kVersion2, 1, clc::kDeclSyncErr, clc::kOsLinux);
  EXPECT_FALSE(decline_out_of_sync(d));  // build_decline sets Out of Sync with SYNCERR
  clc::set_type_bits_field(d.header, clc::kDeclineTypeBits[0], 0);
  auto v = decline_out_of_sync(d);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->rule, &kDeclineOutOfSync);
  EXPECT_EQ(v->expected, 1u);
  EXPECT_FALSE(decline_code_on_wire(d));
  clc::Decline local = clc::build_decline(clc::kVersion2, 1, clc::kDeclPeerDecl, clc::kOsLinux);
  auto w = decline_code_on_wire(local);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->rule, &kDeclineCodeOnWire);
  EXPECT_EQ(w->field, "Peer Diagnosis Information");
}

// A rule that rests on what a side has is judged only when the caller has
// it: a handshake machine passes its configuration, the observer passes
// nothing, and the one list skips the rule there. The diagnosis is the
// row's.
TEST(CheckClc, LocalRulesAreJudgedOnlyWithTheSidesKnowledge) {
  Exchange e = clean_exchange(false);
  // An Accept that reuses a link group (First Contact clear).
  clc::set_type_bits_field(e.accept.header, clc::kAcceptConfirmTypeBits[0], 0);
  EXPECT_TRUE(accept_rules(e.proposal, e.accept, nullptr).empty());
  const std::optional<clc::LinkGroupPeer> none;
  const Verdict without_group = accept_rules(e.proposal, e.accept, &none);
  ASSERT_EQ(without_group.size(), 1u);
  EXPECT_EQ(without_group[0].rule, &kAcceptLinkGroup);
  EXPECT_EQ(decline_code(*without_group[0].rule), clc::kDeclSyncErr);
  clc::LinkGroupPeer g;
  g.peer_id = e.accept.smcr->get(RF::PeerId);
  std::copy_n(e.accept.smcr->octets(RF::Gid).begin(), g.gid.size(), g.gid.begin());
  std::copy_n(e.accept.smcr->octets(RF::Mac).begin(), g.mac.size(), g.mac.begin());
  g.qp_number = static_cast<std::uint32_t>(e.accept.smcr->get(RF::QpNumber));
  const std::optional<clc::LinkGroupPeer> have = g;
  EXPECT_TRUE(accept_rules(e.proposal, e.accept, &have).empty());
  // §3.5.2.1: the server picks the group's link; an Accept naming the
  // group's other link is a subsequent contact too, one naming no link of
  // the group is not.
  clc::LinkGroupPeer two = g;
  two.qp_number = g.qp_number + 1;
  const std::optional<clc::LinkGroupPeer> other_only = two;
  EXPECT_EQ(accept_rules(e.proposal, e.accept, &other_only).size(), 1u);
  two.other_links.push_back({g.gid, g.mac, g.qp_number});
  const std::optional<clc::LinkGroupPeer> both = two;
  EXPECT_TRUE(accept_rules(e.proposal, e.accept, &both).empty());

  // A v1 Proposal from a subnet the server does not have.
  ServerSide side;
  side.smcr_v2 = false;
  side.ipv4 = {0x0a000000, 8};
  EXPECT_TRUE(proposal_rules(e.proposal, nullptr).broken.empty());
  ProposalVerdict v = proposal_rules(e.proposal, &side);
  ASSERT_EQ(v.broken.size(), 1u);
  EXPECT_EQ(v.broken[0].rule, &kPrefixMatch);
  EXPECT_EQ(decline_code(kPrefixMatch), clc::kDeclDiffPrefix);
  side.ipv4 = {0xc0a80100, 24};
  v = proposal_rules(e.proposal, &side);
  EXPECT_TRUE(v.broken.empty());
  EXPECT_EQ(v.version, clc::kVersion1);
  // The server takes SMC-R in neither version: no common version.
  side.smcr_v1 = false;
  v = proposal_rules(e.proposal, &side);
  ASSERT_EQ(v.broken.size(), 1u);
  EXPECT_EQ(v.broken[0].rule, &kVersionChoice);
  EXPECT_EQ(decline_code(kVersionChoice), clc::kDeclVersMismat);
}

// The Accept's list stops after an Accept outside the offer: the rest
// compares it with an offer it is not in.
TEST(CheckClc, AnAcceptOutsideTheOfferIsJudgedNoFurther) {
  Exchange e = clean_exchange(true);
  e.accept.header.set(clc::ClcHeaderSpec::Field::Version, 3);
  e.accept.smcr->set(RF::QpNumber, 1);
  const Verdict v = accept_rules(e.proposal, e.accept, nullptr);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rule, &kAcceptVersion);
}

// Linux 6.12's first-contact Accept and Confirm on the SMC-D path over
// loopback-ism (pcap/tests/captures/real/smcd-loopback-ism.pcap, frames 6 and
// 8): release 1, and the two octets SMC-R uses for Max Conns and Max Links
// are zero, reserved on SMC-D. No v2.1 limit rule reads them.
std::vector<std::uint8_t> octets(std::string_view hex) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}
constexpr std::string_view kSmcdAccept =
    "e2d4c3c402008229434d35eb9628fb1ed19e34230f7d706600200000001b0000ffff52444d41434f4e462d494e5445524f502020202020"
    "2020202020202020202020b4aba49fb18f35bd0021000072646d61636f6e662d677565737420202020202020202020202020202020202000"
    "000001000000000000000000000000e2d4c3c4";
constexpr std::string_view kSmcdConfirm =
    "e2d4c3c403008229434d35eb9628fb1e3d7aaf5f5200c17400200000001c0000ffff52444d41434f4e462d494e5445524f502020202020"
    "2020202020202020202020b4aba49fb18f35bd0021000072646d61636f6e662d677565737420202020202020202020202020202020202000"
    "000001000000000000000000000000e2d4c3c4";

TEST(CheckClc, SmcdStatesNoV21Limits) {
  const auto a = clc::decode(octets(kSmcdAccept));
  const auto c = clc::decode(octets(kSmcdConfirm));
  ASSERT_TRUE(a && c);
  const auto& accept = std::get<clc::AcceptConfirm>(*a);
  const auto& confirm = std::get<clc::AcceptConfirm>(*c);
  ASSERT_TRUE(accept.smcd && accept.smcd_v2 && accept.fce && accept.fce_v2x);
  EXPECT_EQ(accept.smcd->get(clc::SmcdAcceptConfirmSpec::Field::DmbToken), 0xd19e34230f7d7066u);
  EXPECT_EQ(accept.smcd_v2->get(clc::SmcdV2AcceptConfirmSpec::Field::Chid), 0xffffu);
  EXPECT_EQ(accept.smcd_v2->get(clc::SmcdV2AcceptConfirmSpec::Field::GidExtension), 0xb4aba49fb18f35bdu);
  EXPECT_EQ(accept.fce->get(clc::FirstContactExtSpec::Field::Release), 1u);
  EXPECT_EQ(accept.fce_v2x->get(clc::FirstContactExtV2xSpec::Field::MaxConns), 0u);
  EXPECT_EQ(confirm.smcd->get(clc::SmcdAcceptConfirmSpec::Field::DmbToken), 0x3d7aaf5f5200c174u);
  EXPECT_FALSE(accept_max_conns(accept));
  EXPECT_FALSE(accept_max_links(accept));
  EXPECT_FALSE(confirm_max_conns(accept, confirm));
  EXPECT_FALSE(confirm_max_links(accept, confirm));
  EXPECT_FALSE(confirm_release(accept, confirm));
}

}  // namespace
}  // namespace rdmaconf::check
