// The SMC-R link lifecycle in the RoCEv2 observer (observer_roce.hpp,
// observer_llc.cpp), fed packets built here: CONFIRM LINK, ADD LINK v2 with
// an RToken, CONFIRM LINK on the new link's QPs, Writes through rkeys learnt
// from CLC and LLC, LLC replies paired per link (RFC 7609 §3.3), DELETE RKEY
// and DELETE LINK. The real capture has one link only (its ADD LINK is
// rejected): what needs a second link is tested here.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/observer_roce.hpp"
#include "capture/decode.hpp"

namespace rdmaconf::analysis {
namespace {

using Octets = std::vector<std::uint8_t>;

Octets octets_of(const std::string& hex) {
  Octets out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// An RC packet (IBTA vol. 1 §9.2): BTH with the opcode, destination QP and
// PSN, the payload (hex), an ICRC that is not checked.
Octets roce(std::uint8_t op, std::uint32_t qp, std::uint32_t psn, const std::string& payload) {
  Octets b{op, 0x00, 0xff, 0xff, 0x00, static_cast<std::uint8_t>(qp >> 16), static_cast<std::uint8_t>(qp >> 8),
           static_cast<std::uint8_t>(qp), 0x80, static_cast<std::uint8_t>(psn >> 16), static_cast<std::uint8_t>(psn >> 8),
           static_cast<std::uint8_t>(psn)};
  const Octets p = octets_of(payload + "ce71ba00");
  b.insert(b.end(), p.begin(), p.end());
  return b;
}

// A 44-octet LLC message: header and body in hex, zero-padded.
std::string llc(const std::string& header, const std::string& body) {
  std::string m = header + body;
  m.resize(88, '0');
  return m;
}

// The server's and the client's RoCE MAC and GID (of the first devices).
const std::string kGid = "00000000000000000000ffff0a4d0001", kClientGid = "00000000000000000000ffff0a4d0002";
const std::string kMac = "52540077000a", kClientMac = "52540077000b";
// A CONFIRM LINK from the sender with `mac` and `gid` (the server's unless
// named) and its QP `qp` on link `link`.
std::string confirm_link(const std::string& flags, const std::string& qp, const std::string& link,
                         const std::string& mac = kMac, const std::string& gid = kGid) {
  return llc("212c00" + flags, mac + gid + qp + link + "0000010102");
}
// ADD LINK v2 from the server: QP 0x12, link 2, one RToken: the RMB whose
// rkey on link 1 is 0x12 has rkey 0x5f9 at 0x10000000 on link 2.
const std::string kAddLink = "22580000" "52540077000a0000" + kGid + "000012" "02" "03d775d7" "0000000000000000" "8000" +
                             kGid + "0000000000000000" "0100" "00000012" "000005f9" "0000000010000000";
// The client's accepting reply: its QP 0x13 for link 2.
const std::string kAddLinkReply = llc("222c0080", kClientMac + "0000" + kClientGid + "000013" "02" "03000001");
const std::string kCdc = "fe2c000100000001000000000000100000000000000000000000000000000000000000000000000000000000";

struct Sink : ObserverSink {
  void on_message(const Message& m) override {
    link_number = m.roce->link_number;
    link_state = m.roce->link_state;
  }
  void on_violation(const Violation& v) override { seen.emplace_back(std::string(v.rule->id), v.frame); }
  std::vector<std::pair<std::string, FrameNo>> seen;
  std::uint8_t link_number = 0;
  check::LinkState link_state = check::LinkState::kUnknown;
};

std::array<std::uint8_t, 16> gid(const std::string& hex) {
  std::array<std::uint8_t, 16> g{};
  const Octets o = octets_of(hex);
  std::copy(o.begin(), o.end(), g.begin());
  return g;
}

// One SMC-R connection from CLC: the client (initiator) and the server
// (responder) both on QP 0x11; the client's RMB rkey 0x55 at 0, the
// server's 0x12 at 0x100000; 16 KiB RMBEs, element 1.
struct Group {
  Sink sink;
  RoceObserver observer{sink};
  FrameNo frame = 0;
  std::uint32_t psn[2][256] = {};

  Group() {
    ClcRmbe client, server;
    client.alert_token = server.alert_token = 1;
    client.qp_number = server.qp_number = 0x11;
    client.mac = 0x52540077000b;
    server.mac = 0x52540077000a;
    client.gid = gid(kClientGid);
    server.gid = gid(kGid);
    client.rmb_rkey = 0x55;
    server.rmb_rkey = 0x12;
    server.rmb_virtual_address = 0x100000;
    client.rmbe_size = server.rmbe_size = 16384;
    observer.add_connection(client, server);
  }
  // `side` 0 is the client, 1 the server; `qp` the receiver's.
  void send(int side, std::uint8_t op, std::uint32_t qp, const std::string& payload) {
    observer.on_packet(side ? Side::kResponder : Side::kInitiator, ++frame, roce(op, qp, ++psn[side][qp & 0xFF], payload));
  }
  // Link 1 confirmed; link 2 added, accepted and confirmed on QPs 0x12 (server) and 0x13 (client).
  void two_links() {
    send(1, 0x04, 0x11, confirm_link("03", "000011", "01"));
    send(0, 0x04, 0x11, confirm_link("83", "000011", "01", kClientMac, kClientGid));
    send(1, 0x04, 0x11, kAddLink);
    send(0, 0x04, 0x11, kAddLinkReply);
    send(1, 0x04, 0x13, confirm_link("03", "000012", "02"));
    send(0, 0x04, 0x12, confirm_link("83", "000013", "02", kClientMac, kClientGid));
  }
};

// A client RDMA Write First of 8 octets at `va` through `rkey`.
std::string write(const std::string& va, const std::string& rkey) { return va + rkey + "00000008" "4142434445464748"; }

TEST(ObserverLlc, SecondLinkCarriesWritesThroughItsRTokens) {
  Group g;
  g.two_links();
  EXPECT_EQ(g.sink.link_number, 2u);
  EXPECT_EQ(g.sink.link_state, check::LinkState::kConfirming);  // before the reply (frame 6)
  // The client writes into the server's RMBE over link 2, through the rkey
  // the ADD LINK's RToken gave for it (the RMB at 0x10000000 there).
  g.send(0, 0x06, 0x12, write("0000000010000000", "000005f9"));
  EXPECT_EQ(g.sink.link_state, check::LinkState::kUp);
  EXPECT_TRUE(g.observer.notes().rkey_announced);
  EXPECT_EQ(g.observer.notes().rkey_announced_by, "ADD LINK RTokens");
  EXPECT_EQ(g.observer.notes().rkey_announced_in, 3u);
  // ... and a CDC message announcing it, on link 1.
  g.send(0, 0x04, 0x11, "fe2c000100000001000000000000000800000000000000000000000000000000000000000000000000000000");
  EXPECT_TRUE(g.sink.seen.empty());
  const RoceStats& s = g.observer.stats();
  EXPECT_EQ(s.links_confirmed, 2u);
  EXPECT_EQ(s.links_added, 1u);
  EXPECT_EQ(s.rkeys_announced, 3u);  // two from CLC, one RToken
  EXPECT_EQ(s.llc_pairs, 3u);
}

// RFC 7609 §2.2.1 over two server RNICs: QP numbers are each RNIC's own
// (rxe numbers every device's from 0x11), so the server's second RNIC gives
// the asymmetric link 2 the QP number 0x11 its first gave link 1. The
// receiver's GID tells the links apart: the client's ADD LINK reply and its
// Write on link 1 (to 0x11 on the server's first GID) stay on link 1, its
// CONFIRM LINK reply on link 2 (to 0x11 on the second GID) is link 2's.
TEST(ObserverLlc, TheReceiversGidTellsLinksOfTheSameQpNumberApart) {
  Group g;
  const std::string gid3 = "00000000000000000000ffff0a4d0003", mac3 = "52540077000c";
  std::uint32_t psn[2][2] = {};  // per side and link
  const auto send = [&](int side, int link, std::uint8_t op, std::uint32_t qp, const std::string& to,
                        const std::string& payload) {
    g.observer.on_packet(side ? Side::kResponder : Side::kInitiator, ++g.frame,
                         roce(op, qp, ++psn[side][link - 1], payload), gid(to));
  };
  send(1, 1, 0x04, 0x11, kClientGid, confirm_link("03", "000011", "01"));
  send(0, 1, 0x04, 0x11, kGid, confirm_link("83", "000011", "01", kClientMac, kClientGid));
  // ADD LINK v2: the server's second RNIC (gid3), its QP 0x11, link 2; the
  // client (one port) accepts with its first GID and QP 0x13.
  const std::string add_link = "22580000" + mac3 + "0000" + gid3 + "000011" "02" "03d775d7" "0000000000000000" "8000" +
                               kGid + "0000000000000000" "0100" "00000012" "000005f9" "0000000010000000";
  send(1, 1, 0x04, 0x11, kClientGid, add_link);
  send(0, 1, 0x04, 0x11, kGid, kAddLinkReply);
  EXPECT_EQ(g.observer.notes().request_in, 3u);
  EXPECT_EQ(g.sink.link_number, 1u);
  send(1, 2, 0x04, 0x13, kClientGid, confirm_link("03", "000011", "02", mac3, gid3));
  send(0, 2, 0x04, 0x11, gid3, confirm_link("83", "000013", "02", kClientMac, kClientGid));
  EXPECT_EQ(g.sink.link_number, 2u);
  EXPECT_EQ(g.observer.notes().request_in, 5u);
  // The client's Write into the server's RMB through link 1's rkey (CLC).
  send(0, 1, 0x06, 0x11, kGid, write("0000000000100000", "00000012"));
  EXPECT_EQ(g.sink.link_number, 1u);
  EXPECT_EQ(g.sink.link_state, check::LinkState::kUp);
  EXPECT_TRUE(g.observer.notes().rkey_announced);
  EXPECT_TRUE(g.sink.seen.empty()) << g.sink.seen.front().first << " at frame " << g.sink.seen.front().second;
  EXPECT_EQ(g.observer.stats().links_confirmed, 2u);
  EXPECT_EQ(g.observer.stats().psn_gaps, 0u);
  EXPECT_EQ(g.observer.stats().retransmissions, 0u);
}

TEST(ObserverLlc, RepliesArePairedPerLink) {
  Group g;
  g.two_links();
  // The server's TEST LINK on link 1 (to the client's QP 0x11); the client
  // replies on link 2 (to the server's QP 0x12): no answer (§3.3).
  g.send(1, 0x04, 0x11, llc("272c0000", "0102030405060708090a0b0c0d0e0f10"));
  g.send(0, 0x04, 0x12, llc("272c0080", "0102030405060708090a0b0c0d0e0f10"));
  EXPECT_EQ(g.sink.seen, (std::vector<std::pair<std::string, FrameNo>>{{"rfc7609-3.3-reply-answers-request", 8}}));
  // The reply on link 1 answers it; a second one answers nothing.
  g.send(0, 0x04, 0x11, llc("272c0080", "0102030405060708090a0b0c0d0e0f10"));
  EXPECT_EQ(g.observer.notes().request_in, 7u);
  g.send(0, 0x04, 0x11, llc("272c0080", "0102030405060708090a0b0c0d0e0f10"));
  EXPECT_EQ(g.sink.seen.size(), 2u);
  EXPECT_EQ(g.sink.seen.back(), (std::pair<std::string, FrameNo>{"rfc7609-3.3-reply-answers-request", 10}));
  EXPECT_EQ(g.observer.stats().test_link_pairs, 1u);
}

TEST(ObserverLlc, DeletedRkeysAndLinksCarryNoData) {
  Group g;
  g.two_links();
  // DELETE RKEY v2 of the server's RMB (0x12 on link 1), answered: gone on
  // both links, so a Write through 0x5f9 on link 2 breaks the rule (once).
  g.send(1, 0x04, 0x11, llc("292c0000", "01000000" "00000012"));
  g.send(0, 0x04, 0x11, llc("292c0080", "01000000" "00000012"));
  EXPECT_EQ(g.observer.stats().rkeys_deleted, 2u);
  g.send(0, 0x06, 0x12, write("0000000010000000", "000005f9"));
  g.send(0, 0x06, 0x12, write("0000000010000008", "000005f9"));
  // DELETE LINK v2 of link 2 from the server, answered; then a CDC message on it.
  g.send(1, 0x04, 0x11, llc("242c0000", "02" "00010000"));
  g.send(0, 0x04, 0x11, llc("242c0080", "02" "00010000"));
  EXPECT_EQ(g.observer.stats().links_deleted, 1u);
  g.send(0, 0x04, 0x12, kCdc);
  EXPECT_EQ(g.sink.link_state, check::LinkState::kDeleted);
  EXPECT_EQ(g.sink.seen, (std::vector<std::pair<std::string, FrameNo>>{
                             {"rfc7609-3.5.5.2-write-through-announced-rkey", 9},
                             {"rfc7609-3.5.1.5-data-on-confirmed-link", 13}}));
}

TEST(ObserverLlc, ConfirmLinkNamesTheEndItsSenderAnnounced) {
  Group g;
  // The server's CONFIRM LINK names QP 0x12, its Accept gave 0x11: reported
  // once. The link stays the one CLC named: the client's reply (to QP 0x11)
  // answers it and the client's Write then flows on a confirmed link.
  g.send(1, 0x04, 0x11, confirm_link("03", "000012", "01"));
  g.send(0, 0x04, 0x11, confirm_link("83", "000011", "01", kClientMac, kClientGid));
  EXPECT_EQ(g.observer.notes().request_in, 1u);
  g.send(0, 0x06, 0x11, write("0000000000100000", "00000012"));
  EXPECT_EQ(g.sink.seen, (std::vector<std::pair<std::string, FrameNo>>{{"rfc7609-3.5.1.5-confirm-link-roce-info", 1}}));
  EXPECT_EQ(g.observer.stats().links_confirmed, 1u);
}

TEST(ObserverLlc, ConfirmLinkOnAnAddedLinkNamesTheAddLinksEnd) {
  Group g;
  g.send(1, 0x04, 0x11, confirm_link("03", "000011", "01"));
  g.send(0, 0x04, 0x11, confirm_link("83", "000011", "01", kClientMac, kClientGid));
  g.send(1, 0x04, 0x11, kAddLink);
  g.send(0, 0x04, 0x11, kAddLinkReply);
  // On link 2 the client names the server's MAC (its ADD LINK reply, frame
  // 4, gave its own); the server's request is right.
  g.send(1, 0x04, 0x13, confirm_link("03", "000012", "02"));
  g.send(0, 0x04, 0x12, confirm_link("83", "000013", "02", kMac, kClientGid));
  EXPECT_EQ(g.sink.seen, (std::vector<std::pair<std::string, FrameNo>>{{"rfc7609-3.5.1.5-confirm-link-roce-info", 6}}));
  EXPECT_EQ(g.observer.stats().links_confirmed, 2u);
}

// A link group through the analyzer: link 1 between 10.77.0.1 (server) and
// 10.77.0.2 (client), the GIDs its CONFIRM LINKs name; the ADD LINK exchange on it offers link 2 between
// their second devices, 10.77.1.2 and 10.77.1.1 (the GIDs it names,
// RFC 7609 §3.5.1.6.1), whose packets the group's observer then follows.
struct TwoDeviceGroup {
  AnalysisOptions options;
  Analyzer analyzer{options};
  std::uint64_t frame = 0;
  std::uint32_t psn[2][256] = {};
  static capture::IpAddress address(int device, int host) {
    return capture::ipv4(10, 77, static_cast<std::uint8_t>(device), static_cast<std::uint8_t>(host));
  }
  // From `side` (0 the client, 1 the server) on `device` (0 or 1) to the receiver's `qp`.
  void send(int side, int device, std::uint8_t op, std::uint32_t qp, const std::string& payload) {
    const Octets packet = roce(op, qp, ++psn[side][qp & 0xFF], payload);
    capture::UdpDatagram d;
    d.frame.value = ++frame;
    // RoCEv2: a GID is its port's address (the receiver's tells links apart).
    const int server = device == 0 ? 1 : 2, client = 3 - server;
    d.key = {{address(device, side ? server : client), 49152}, {address(device, side ? client : server), smcr::kRoceV2UdpPort}};
    d.payload = wire::Bytes(packet.data(), packet.size());
    EXPECT_TRUE(analyzer.on_udp(d));
  }
  // Link 1 confirmed on the first devices; link 2 offered with the second
  // devices' GIDs (server QP 0x12, RToken 0x5f9 at 0x10000000; client QP
  // 0x13), accepted and confirmed between the second devices.
  void two_links() {
    const std::string server2 = "00000000000000000000ffff0a4d0102", client2 = "00000000000000000000ffff0a4d0101";
    send(1, 0, 0x04, 0x11, confirm_link("03", "000011", "01"));
    send(0, 0, 0x04, 0x11, confirm_link("83", "000011", "01", kClientMac, kClientGid));
    std::string add = kAddLink;
    add.replace(24, 32, server2);
    send(1, 0, 0x04, 0x11, add);
    send(0, 0, 0x04, 0x11, llc("222c0080", kClientMac + "0000" + client2 + "000013" "02" "03000001"));
    send(1, 1, 0x04, 0x13, confirm_link("03", "000012", "02", kMac, server2));
    send(0, 1, 0x04, 0x12, confirm_link("83", "000013", "02", kClientMac, client2));
  }
  std::vector<std::pair<std::string, FrameNo>> seen(const AnalysisResult& r) const {
    std::vector<std::pair<std::string, FrameNo>> out;
    for (const ViolationRecord& v : r.violations) out.emplace_back(std::string(v.rule->id), v.frame);
    return out;
  }
};

TEST(ObserverLlc, SecondDevicesLinkJoinsItsGroupClean) {
  TwoDeviceGroup g;
  g.two_links();
  // A Write through the RToken ADD LINK gave for link 2, on link 2's addresses.
  g.send(0, 1, 0x06, 0x12, write("0000000010000000", "000005f9"));
  // DELETE LINK of link 2 on link 1, answered; nothing on link 2 after it.
  g.send(1, 0, 0x04, 0x11, llc("242c0000", "02" "00010000"));
  g.send(0, 0, 0x04, 0x11, llc("242c0080", "02" "00010000"));
  const AnalysisResult r = g.analyzer.take_result(g.frame);
  EXPECT_TRUE(r.violations.empty());
  EXPECT_EQ(r.summary.roce_links, 1u);  // one link group, one observer
  EXPECT_EQ(r.summary.roce_packets, 9u);
  EXPECT_EQ(r.summary.links_confirmed, 2u);
  EXPECT_EQ(r.summary.links_added, 1u);
  EXPECT_EQ(r.summary.links_deleted, 1u);
}

TEST(ObserverLlc, SecondDevicesLinkIsJudged) {
  TwoDeviceGroup g;
  g.two_links();
  // The server deletes its RMB's rkey on link 2 (DELETE RKEY on link 2,
  // answered there); two Writes through it on link 2: reported once.
  g.send(1, 1, 0x04, 0x13, llc("292c0000", "01000000" "000005f9"));
  g.send(0, 1, 0x04, 0x12, llc("292c0080", "01000000" "000005f9"));
  g.send(0, 1, 0x06, 0x12, write("0000000010000000", "000005f9"));
  g.send(0, 1, 0x06, 0x12, write("0000000010000008", "000005f9"));
  // DELETE LINK of link 2 on link 1, answered; then a CDC message on link 2.
  g.send(1, 0, 0x04, 0x11, llc("242c0000", "02" "00010000"));
  g.send(0, 0, 0x04, 0x11, llc("242c0080", "02" "00010000"));
  g.send(0, 1, 0x04, 0x12, kCdc);
  const AnalysisResult r = g.analyzer.take_result(g.frame);
  EXPECT_EQ(g.seen(r), (std::vector<std::pair<std::string, FrameNo>>{
                           {"rfc7609-3.5.5.2-write-through-announced-rkey", 9},
                           {"rfc7609-3.5.1.5-data-on-confirmed-link", 13}}));
  EXPECT_EQ(r.summary.roce_links, 1u);
  // Reported under the addresses they flowed between (the second devices'),
  // in the group's connection.
  ASSERT_EQ(r.violations.size(), 2u);
  for (const ViolationRecord& v : r.violations) {
    EXPECT_EQ(v.stream, "10.77.1.1:49152 -> 10.77.1.2:4791") << v.rule->id;
    EXPECT_EQ(v.connection, r.violations[0].connection);
  }
}

TEST(ObserverLlc, PacketsBeforeTheAddLinkKeepTheirOwnObserver) {
  TwoDeviceGroup g;
  // A TEST LINK on the second devices' addresses before any ADD LINK names
  // them: their own observer (joined mid-life, judging nothing).
  g.send(1, 1, 0x04, 0x13, llc("272c0000", "0102030405060708090a0b0c0d0e0f10"));
  g.two_links();
  g.send(0, 1, 0x06, 0x12, write("0000000010000000", "000005f9"));
  const AnalysisResult r = g.analyzer.take_result(g.frame);
  EXPECT_TRUE(r.violations.empty());
  EXPECT_EQ(r.summary.roce_links, 2u);
  EXPECT_EQ(r.summary.links_confirmed, 2u);  // link 2's CONFIRM LINK went to the group
}

// A CDC message from the server closing connection `token` (C, octet 25):
// sequence number 1, cursors 0.
std::string closing_cdc(const std::string& token) { return "fe2c0001" + token + std::string(32, '0') + "0040" + std::string(36, '0'); }

// rfc7609-4.4.2-rmbe-reuse-after-close (check::rmbe_reuse_after_close): an
// RMBE a side names for a new connection while a connection of the group
// that neither side closed still has it is reported on the naming side, at
// its Accept's frame; once its connections closed it may be named again.
TEST(ObserverLlc, AnRmbeNamedAgainWhileItsConnectionIsOpenIsReported) {
  Group g;
  g.send(1, 0x04, 0x11, confirm_link("03", "000011", "01"));
  g.send(0, 0x04, 0x11, confirm_link("83", "000011", "01", kClientMac, kClientGid));
  ClcRmbe client, server;
  client.qp_number = server.qp_number = 0x11;
  client.mac = 0x52540077000b;
  server.mac = 0x52540077000a;
  client.gid = gid(kClientGid);
  server.gid = gid(kGid);
  client.rmb_rkey = 0x55;
  server.rmb_rkey = 0x12;
  server.rmb_virtual_address = 0x100000;
  client.rmbe_size = server.rmbe_size = 16384;
  // Connection 2: the client names element 2, the server element 1 again.
  client.alert_token = server.alert_token = 2;
  client.rmbe_index = 2;
  server.frame = 30;
  g.observer.add_connection(client, server);
  const std::vector<std::pair<std::string, FrameNo>> once{{"rfc7609-4.4.2-rmbe-reuse-after-close", 30}};
  EXPECT_EQ(g.sink.seen, once);
  // The same connection told again is no new one.
  g.observer.add_connection(client, server);
  EXPECT_EQ(g.sink.seen, once);
  // Both close (the server's C to each); connection 3 may have element 1.
  g.send(1, 0x04, 0x11, closing_cdc("00000001"));
  g.send(1, 0x04, 0x11, closing_cdc("00000002"));
  client.alert_token = server.alert_token = 3;
  client.rmbe_index = 3;
  server.frame = 40;
  g.observer.add_connection(client, server);
  EXPECT_EQ(g.sink.seen, once);
}

}  // namespace
}  // namespace rdmaconf::analysis
