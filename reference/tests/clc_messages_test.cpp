// CLC message codecs: known-answer vectors for every message of each version
// and path (hand-built from the layouts in clc/headers.hpp, decoded meaning
// beside each octet group), round trips, and a typed error for every invalid
// field. Sections: RFC 7609 App. A.2.2-A.2.5 (v1); Linux net/smc/smc_clc.h
// for v2.
#include "clc/messages.hpp"

#include <string>

#include <gtest/gtest.h>

#include "clc_test_util.hpp"

namespace rdmaconf::clc {
namespace {

using test::hex;
using test::padded;
using HF = ClcHeaderSpec::Field;

// ------------------------------------------------------------ vectors

// RFC 7609 App. A.2.2: SMC-R v1 Proposal over IPv4, no IPv6 prefixes (52).
std::vector<std::uint8_t> proposal_v1() {
  return hex(R"(
  e2 d4 c3 d9  01  00 34  10  # SMCR, Proposal, length 52, version 1, SMCv1 type R
  0a 0b 00 11 22 33 44 55     # client peer ID: instance 0x0a0b, MAC 00:11:22:33:44:55
  fe 80 00 00 00 00 00 00 02 11 22 ff fe 33 44 55  # client preferred GID
  00 11 22 33 44 55           # client preferred MAC
  00 00                       # IP area offset 0: prefix area follows at once
  c0 a8 01 00  18  00 00  00  # subnet 192.168.1.0 /24, reserved, 0 IPv6 prefixes
  e2 d4 c3 d9                 # trailer SMCR
)");
}

// v2 Proposal offering SMCv1 SMC-R and SMCv2 SMC-R + SMC-D, one user EID,
// one ISMv2 GID (Linux smc_clc_send_proposal layout): 222 octets.
std::vector<std::uint8_t> proposal_v2() {
  std::vector<std::uint8_t> m = hex(R"(
  e2 d4 c3 d9  01  00 de  2c  # SMCR, Proposal, length 222, version 2, SMCv2 type B(3), SMCv1 type R(0)
  0a 0b 00 11 22 33 44 55     # client peer ID
  fe 80 00 00 00 00 00 00 02 11 22 ff fe 33 44 55  # client preferred GID
  00 11 22 33 44 55           # client preferred MAC
  00 28                       # IP area offset 40: past the SMC-D area
  11 22 33 44 55 66 77 88     # SMC-D area: ISM GID
  00 01                       #   ISM CHID
  00 24                       #   SMCv2 extension offset 36 = 28 + 8-octet prefix area
  00 00 00  00 00 00 00 00    #   vendor OUI, vendor options
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  # reserved (20)
  c0 a8 01 00  18  00 00  00  # IP prefix area: 192.168.1.0/24, 0 IPv6 prefixes
  01  01  00  11  00 00  00 40  # v2 ext: 1 EID, 1 ISM GID, rsvd, release 1 + SEID, rsvd, SMC-Dv2 offset 64
  00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 0a  # RoCEv2 GID ::ffff:192.168.1.10
  ff  02  00 00               # max conns 255, max links 2, feature mask 0
  00 00 00 00 00 00 00 00 00 00 00 00  # reserved (12)
)");
  auto eid = padded("SMC-TEST-EID");
  m.insert(m.end(), eid.begin(), eid.end());  // user EID 1
  auto seid = padded("IBM-SYSZ-0123456789ABCDEF");
  m.insert(m.end(), seid.begin(), seid.end());  // SMC-Dv2 ext: system EID
  auto tail = hex(R"(
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  # SMC-Dv2 ext reserved (16)
  00 00 00 00 00 00 ab cd  01 23  # ISMv2 GID 0xabcd, CHID 0x0123
  e2 d4 c3 d9                 # trailer
)");
  m.insert(m.end(), tail.begin(), tail.end());
  return m;
}

// RFC 7609 App. A.2.3: SMC-R v1 Accept, first contact (68).
std::vector<std::uint8_t> accept_v1() {
  return hex(R"(
  e2 d4 c3 d9  02  00 44  18  # SMCR, Accept, length 68, version 1, First Contact, path R
  0c 0d 66 77 88 99 aa bb     # server peer ID
  fe 80 00 00 00 00 00 00 02 66 77 ff fe 99 aa bb  # server GID
  66 77 88 99 aa bb           # server MAC
  00 01 23                    # QP number 0x000123
  00 00 ab cd                 # RMB rkey
  01                          # RMBE index 1
  00 00 00 05                 # RMBE alert token 5
  23                          # RMBE size 2 (64 KiB), QP MTU 3 (1024)
  00                          # reserved
  00 00 7f 00 12 34 00 00     # RMB virtual address
  00                          # reserved
  12 34 56                    # initial PSN
  e2 d4 c3 d9                 # trailer
)");
}

// RFC 7609 App. A.2.4: SMC-R v1 Confirm, no first contact (68).
std::vector<std::uint8_t> confirm_v1() {
  return hex(R"(
  e2 d4 c3 d9  03  00 44  10  # SMCR, Confirm, length 68, version 1, path R
  0a 0b 00 11 22 33 44 55     # client peer ID
  fe 80 00 00 00 00 00 00 02 11 22 ff fe 33 44 55  # client GID
  00 11 22 33 44 55           # client MAC
  00 04 56                    # QP number 0x000456
  00 00 12 34                 # RMB rkey
  01                          # RMBE index 1
  00 00 00 09                 # RMBE alert token 9
  13                          # RMBE size 1 (32 KiB), QP MTU 3
  00                          # reserved
  00 00 7f 00 56 78 00 00     # RMB virtual address
  00                          # reserved
  65 43 21                    # initial PSN
  e2 d4 c3 d9                 # trailer
)");
}

// SMC-Rv2 first-contact Accept: 108 + 52-octet first-contact extension = 160.
std::vector<std::uint8_t> accept_v2_first_contact() {
  std::vector<std::uint8_t> m = accept_v1();
  m.resize(64);  // up to the PSN
  m[6] = 160;    // length 0x00a0
  m[7] = 0x28;   // version 2, First Contact, path R
  auto eid = padded("SMC-TEST-EID");
  m.insert(m.end(), eid.begin(), eid.end());  // negotiated EID
  auto mid = hex(R"(
  00 00 00 00 00 00 00 00     # reserved (8)
  80  21  00 00               # FCE: V2 Direct, OS type Linux(2) + release 1, reserved
)");
  m.insert(m.end(), mid.begin(), mid.end());
  auto host = padded("server.example");
  m.insert(m.end(), host.begin(), host.end());  // host name
  auto tail = hex(R"(
  ff  02  00 00  00 00 00 00  # v2.1 part: max conns 255, max links 2, features 0, vendor options 0
  00 00 00 00 00 00 00 00     # reserved (8)
  e2 d4 c3 d9                 # trailer
)");
  m.insert(m.end(), tail.begin(), tail.end());
  return m;
}

// SMC-Rv2 first-contact Confirm with a one-entry GID list: 160 + 4 + 16.
std::vector<std::uint8_t> confirm_v2_first_contact() {
  std::vector<std::uint8_t> m = accept_v2_first_contact();
  m[4] = 3;      // Confirm
  m[6] = 180;    // length 0x00b4
  m.resize(m.size() - 4);
  auto tail = hex(R"(
  01  00 00 00                # GID list: 1 GID, reserved
  00 00 00 00 00 00 00 00 00 00 ff ff c0 a8 01 0a  # GID ::ffff:192.168.1.10
  e2 d4 c3 d9                 # trailer
)");
  m.insert(m.end(), tail.begin(), tail.end());
  return m;
}

// SMC-D v1 Accept (48), eyecatchers SMCD.
std::vector<std::uint8_t> smcd_accept_v1() {
  return hex(R"(
  e2 d4 c3 c4  02  00 30  11  # SMCD, Accept, length 48, version 1, path D
  00 00 00 00 00 00 ab cd     # sender ISM GID
  00 00 00 00 de ad be ef     # DMB token
  00  10  00 00               # DMBE index 0, DMBE size 1 + reserved, reserved
  01 02 03 04                 # link ID
  00 00 00 00 00 00 00 00 00 00 00 00  # reserved in v1 (12)
  e2 d4 c3 c4                 # trailer SMCD
)");
}

// SMC-Dv2 first-contact Accept, release 0: 78 + 36 = 114.
std::vector<std::uint8_t> smcd_accept_v2_first_contact() {
  std::vector<std::uint8_t> m = hex(R"(
  e2 d4 c3 c4  02  00 72  29  # SMCD, Accept, length 114, version 2, First Contact, path D
  00 00 00 00 00 00 ab cd     # sender ISM GID
  00 00 00 00 de ad be ef     # DMB token
  00  10  00 00               # DMBE index 0, DMBE size 1, reserved
  01 02 03 04                 # link ID
  01 23                       # ISM CHID
)");
  auto eid = padded("SMC-TEST-EID");
  m.insert(m.end(), eid.begin(), eid.end());
  auto mid = hex(R"(
  00 00 00 00 00 00 00 00     # GID extension
  00  20  00 00               # FCE: no V2 Direct, OS Linux, release 0, reserved
)");
  m.insert(m.end(), mid.begin(), mid.end());
  auto host = padded("server.example");
  m.insert(m.end(), host.begin(), host.end());
  auto tr = hex("e2 d4 c3 c4");
  m.insert(m.end(), tr.begin(), tr.end());
  return m;
}

// RFC 7609 App. A.2.5: v1 Decline, prefix mismatch (28).
std::vector<std::uint8_t> decline_v1() {
  return hex(R"(
  e2 d4 c3 d9  04  00 1c  10  # SMCR, Decline, length 28, version 1
  0c 0d 66 77 88 99 aa bb     # sender peer ID
  03 07 00 00                 # diagnosis DIFFPREFIX
  00 00 00 00                 # OS type (reserved in v1), reserved
  e2 d4 c3 d9                 # trailer
)");
}

// v2 Decline, synchronization error with Out of Sync (44).
std::vector<std::uint8_t> decline_v2() {
  return hex(R"(
  e2 d4 c3 d9  04  00 2c  28  # SMCR, Decline, length 44, version 2, Out of Sync
  0a 0b 00 11 22 33 44 55     # sender peer ID
  04 00 00 00                 # diagnosis SYNCERR
  20 00 00 00                 # OS type Linux, reserved
  00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  # four more diagnosis slots
  e2 d4 c3 d9                 # trailer
)");
}

template <typename T>
T decode_as(const std::vector<std::uint8_t>& b) {
  auto m = decode(b);
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().to_string());
  if (!m.ok()) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(*m));
  return std::get<T>(*m);
}

void expect_round_trip(const std::vector<std::uint8_t>& b) {
  auto m = decode(b);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(encode(*m), b);
}

// ------------------------------------------------------- known answers

TEST(ClcMessages, ProposalV1KnownAnswer) {
  auto v = proposal_v1();
  ASSERT_EQ(v.size(), 52u);
  auto p = decode_as<Proposal>(v);
  EXPECT_EQ(p.version(), 1);
  EXPECT_EQ(p.smcv1_type(), SmcType::kR);
  EXPECT_EQ(p.smcv2_type(), SmcType::kNone);
  EXPECT_EQ(p.body.get(ProposalBodySpec::Field::PeerId), 0x0a0b001122334455u);
  EXPECT_EQ(p.body.octets(ProposalBodySpec::Field::Mac)[5], 0x55);
  ASSERT_TRUE(p.ip_prefix);
  EXPECT_EQ(p.ip_prefix->get(IpPrefixSpec::Field::OutgoingSubnet), 0xc0a80100u);
  EXPECT_EQ(p.ip_prefix->get(IpPrefixSpec::Field::PrefixLength), 24u);
  EXPECT_FALSE(p.smcd);
  EXPECT_FALSE(p.v2_ext);
  expect_round_trip(v);
}

TEST(ClcMessages, ProposalV1WithIpv6Prefixes) {
  // Build it through the codec, then check the layout octet by octet.
  Proposal p;
  p.header.set(HF::Eyecatcher, kEyecatcherSmcr).set(HF::Version, 1);
  p.ip_prefix.emplace();
  for (std::uint8_t i = 0; i < 2; ++i) {
    Ipv6Prefix e;
    std::array<std::uint8_t, 16> pre{0x20, 0x01, 0x0d, 0xb8, 0, i};
    e.set_octets(Ipv6PrefixSpec::Field::Prefix, pre).set(Ipv6PrefixSpec::Field::PrefixLength, 64);
    p.ipv6_prefixes.push_back(e);
  }
  finalize(p);
  auto b = encode(p);
  ASSERT_EQ(b.size(), 86u);
  EXPECT_EQ(b[6], 86);  // Length
  EXPECT_EQ(b[47], 2);  // IPv6 Prefix Count, last octet of the prefix area
  EXPECT_EQ(b[48], 0x20);
  EXPECT_EQ(b[64], 64);  // first entry's prefix length, octet 16 of the 17
  EXPECT_EQ(b[48 + 17 + 5], 1);
  auto back = decode_as<Proposal>(b);
  EXPECT_EQ(back, p);
}

TEST(ClcMessages, ProposalV2KnownAnswer) {
  auto v = proposal_v2();
  ASSERT_EQ(v.size(), 222u);
  auto p = decode_as<Proposal>(v);
  EXPECT_EQ(p.version(), 2);
  EXPECT_EQ(p.smcv1_type(), SmcType::kR);
  EXPECT_EQ(p.smcv2_type(), SmcType::kBoth);
  ASSERT_TRUE(p.smcd && p.ip_prefix && p.v2_ext && p.smcd_v2_ext);
  EXPECT_EQ(p.smcd->get(ProposalSmcdSpec::Field::IsmGid), 0x1122334455667788u);
  EXPECT_EQ(p.v2_ext->get(V2ExtensionSpec::Field::Release), 1u);
  EXPECT_EQ(p.v2_ext->get(V2ExtensionSpec::Field::Seid), 1u);
  EXPECT_EQ(p.v2_ext->get(V2ExtensionSpec::Field::MaxConns), 255u);
  ASSERT_EQ(p.user_eids.size(), 1u);
  EXPECT_EQ(p.user_eids[0].octets(EidSpec::Field::Eid)[0], 'S');
  ASSERT_EQ(p.ism_gids.size(), 1u);
  EXPECT_EQ(p.ism_gids[0].get(IsmGidChidSpec::Field::Chid), 0x0123u);
  expect_round_trip(v);
}

TEST(ClcMessages, ProposalV2BuiltFromFieldsMatchesVector) {
  auto v = proposal_v2();
  auto p = decode_as<Proposal>(v);
  // Zero every derived value, then let finalize() compute them again.
  p.header.set(HF::Length, 0);
  p.body.set(ProposalBodySpec::Field::IpAreaOffset, 0);
  p.smcd->set(ProposalSmcdSpec::Field::V2ExtOffset, 0);
  p.v2_ext->set(V2ExtensionSpec::Field::EidCount, 0).set(V2ExtensionSpec::Field::IsmGidCount, 0);
  p.v2_ext->set(V2ExtensionSpec::Field::SmcdV2ExtOffset, 0);
  p.trailer.set(TrailerSpec::Field::Eyecatcher, 0);
  finalize(p);
  EXPECT_EQ(encode(p), v);
}

TEST(ClcMessages, AcceptV1KnownAnswer) {
  auto v = accept_v1();
  auto a = decode_as<AcceptConfirm>(v);
  EXPECT_EQ(a.type(), MessageType::kAccept);
  EXPECT_TRUE(a.first_contact());
  EXPECT_EQ(a.smc_type(), SmcType::kR);
  ASSERT_TRUE(a.smcr);
  using F = SmcrAcceptConfirmSpec::Field;
  EXPECT_EQ(a.smcr->get(F::QpNumber), 0x123u);
  EXPECT_EQ(a.smcr->get(F::RmbRkey), 0xabcdu);
  EXPECT_EQ(a.smcr->get(F::RmbeIndex), 1u);
  EXPECT_EQ(a.smcr->get(F::RmbeAlertToken), 5u);
  EXPECT_EQ(uncompress_buffer_size(static_cast<std::uint8_t>(a.smcr->get(F::RmbeSize))), 65536u);
  EXPECT_EQ(qp_mtu_octets(static_cast<std::uint8_t>(a.smcr->get(F::QpMtu))), 1024u);
  EXPECT_EQ(a.smcr->get(F::RmbVirtualAddress), 0x00007f0012340000u);
  EXPECT_EQ(a.smcr->get(F::InitialPsn), 0x123456u);
  EXPECT_FALSE(a.fce);
  expect_round_trip(v);
}

TEST(ClcMessages, ConfirmV1KnownAnswer) {
  auto v = confirm_v1();
  auto c = decode_as<AcceptConfirm>(v);
  EXPECT_EQ(c.type(), MessageType::kConfirm);
  EXPECT_FALSE(c.first_contact());
  EXPECT_EQ(c.smcr->get(SmcrAcceptConfirmSpec::Field::QpNumber), 0x456u);
  EXPECT_EQ(c.smcr->get(SmcrAcceptConfirmSpec::Field::InitialPsn), 0x654321u);
  expect_round_trip(v);
}

TEST(ClcMessages, AcceptV2FirstContactKnownAnswer) {
  auto v = accept_v2_first_contact();
  ASSERT_EQ(v.size(), 160u);
  auto a = decode_as<AcceptConfirm>(v);
  EXPECT_EQ(a.version(), 2);
  EXPECT_TRUE(a.first_contact());
  ASSERT_TRUE(a.smcr_v2 && a.fce && a.fce_v2x);
  EXPECT_EQ(a.fce->get(FirstContactExtSpec::Field::V2Direct), 1u);
  EXPECT_EQ(a.fce->get(FirstContactExtSpec::Field::OsType), kOsLinux);
  EXPECT_EQ(a.fce->get(FirstContactExtSpec::Field::Release), 1u);
  EXPECT_EQ(a.fce_v2x->get(FirstContactExtV2xSpec::Field::MaxLinks), 2u);
  EXPECT_FALSE(a.gid_list);
  expect_round_trip(v);
}

TEST(ClcMessages, ConfirmV2FirstContactKnownAnswer) {
  auto v = confirm_v2_first_contact();
  ASSERT_EQ(v.size(), 180u);
  auto c = decode_as<AcceptConfirm>(v);
  ASSERT_TRUE(c.gid_list);
  ASSERT_EQ(c.gids.size(), 1u);
  EXPECT_EQ(c.gids[0].octets(GidSpec::Field::Gid)[15], 0x0a);
  expect_round_trip(v);
  // Built from the blocks, finalize() gives the same octets.
  c.header.set(HF::Length, 0);
  c.gid_list->set(GidListSpec::Field::GidCount, 0);
  finalize(c);
  EXPECT_EQ(encode(c), v);
}

TEST(ClcMessages, SmcdAcceptV1KnownAnswer) {
  auto v = smcd_accept_v1();
  auto a = decode_as<AcceptConfirm>(v);
  EXPECT_EQ(a.smc_type(), SmcType::kD);
  ASSERT_TRUE(a.smcd && a.smcd_v1);
  EXPECT_EQ(a.smcd->get(SmcdAcceptConfirmSpec::Field::DmbToken), 0xdeadbeefu);
  EXPECT_EQ(a.smcd->get(SmcdAcceptConfirmSpec::Field::DmbeSize), 1u);
  EXPECT_EQ(a.smcd->get(SmcdAcceptConfirmSpec::Field::LinkId), 0x01020304u);
  EXPECT_EQ(a.trailer.get(TrailerSpec::Field::Eyecatcher), kEyecatcherSmcd);
  expect_round_trip(v);
}

TEST(ClcMessages, SmcdAcceptV2FirstContactRelease0HasShortExtension) {
  auto v = smcd_accept_v2_first_contact();
  ASSERT_EQ(v.size(), 114u);
  auto a = decode_as<AcceptConfirm>(v);
  ASSERT_TRUE(a.smcd_v2 && a.fce);
  EXPECT_FALSE(a.fce_v2x) << "SMC-D release 0 carries only the 36-octet extension";
  EXPECT_EQ(a.smcd_v2->get(SmcdV2AcceptConfirmSpec::Field::Chid), 0x0123u);
  expect_round_trip(v);
}

TEST(ClcMessages, DeclineV1KnownAnswer) {
  auto v = decline_v1();
  auto d = decode_as<Decline>(v);
  EXPECT_EQ(d.diagnosis(), 0x03070000u);
  EXPECT_FALSE(d.out_of_sync());
  EXPECT_FALSE(d.v2_diagnosis);
  expect_round_trip(v);
}

TEST(ClcMessages, DeclineV2KnownAnswer) {
  auto v = decline_v2();
  auto d = decode_as<Decline>(v);
  EXPECT_EQ(d.diagnosis(), 0x04000000u);
  EXPECT_TRUE(d.out_of_sync());
  EXPECT_EQ(d.body.get(DeclineSpec::Field::OsType), kOsLinux);
  ASSERT_TRUE(d.v2_diagnosis);
  expect_round_trip(v);
  Decline built;
  built.header.set(HF::Eyecatcher, kEyecatcherSmcr).set(HF::Version, 2);
  set_type_bits_field(built.header, kDeclineTypeBits[0], 1);
  built.body.set(DeclineSpec::Field::PeerId, 0x0a0b001122334455u)
      .set(DeclineSpec::Field::PeerDiagnosis, 0x04000000u)
      .set(DeclineSpec::Field::OsType, kOsLinux);
  built.v2_diagnosis.emplace();
  finalize(built);
  EXPECT_EQ(encode(built), v);
}

// SMC v2 (Linux follows RFC 7609): a Decline's reserved bits are sent as
// zero, which an analyzer judges (DecodeRules::kSender), but its receiver
// does not check them: a Decline always means fallback.
TEST(ClcMessages, DeclineReservedBitsAreTheSendersRuleNotTheReceivers) {
  for (auto v : {decline_v1(), decline_v2()}) {
    v[7] |= 0x04;  // header bit 61, reserved
    v[8 + 12] |= 0x0f;  // the body's Reserved1 (with OS Type, octet 20)
    v[8 + 13] = 0xff;   // Reserved2
    EXPECT_FALSE(decode(v).ok());
    auto r = decode(v, DecodeRules::kReceiver);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_TRUE(std::holds_alternative<Decline>(*r));
  }
  // Other messages keep their reserved rules for a receiver too.
  auto a = accept_v1();
  a[7] |= 0x04;
  EXPECT_FALSE(decode(a, DecodeRules::kReceiver).ok());
}

// SMC v2 (Linux smc_clc_msg_acc_conf_valid checks a minimum Length only): a
// v2 Accept that runs past its blocks is the sender's fault, but its receiver
// takes it and ignores the surplus. v1 keeps its exact length for both, and a
// v2 Accept below its minimum is refused by both.
TEST(ClcMessages, V2AcceptSurplusIsTheSendersRuleNotTheReceivers) {
  auto grow = [](std::vector<std::uint8_t> m, std::size_t n) {
    m.insert(m.end() - static_cast<std::ptrdiff_t>(kTrailerSize), n, 0);
    wire::store_be(wire::MutableBytes(m).subspan(5, 2), static_cast<std::uint16_t>(m.size()));
    return m;
  };
  const auto v2 = grow(accept_v2_first_contact(), 16);
  const auto sender = decode(v2);
  ASSERT_FALSE(sender.ok());
  EXPECT_EQ(sender.error().field, "Length");
  auto r = decode(v2, DecodeRules::kReceiver);
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  // The same blocks as the Accept without surplus; only Length differs.
  const auto& got = std::get<AcceptConfirm>(*r);
  const auto plain = decode(accept_v2_first_contact());
  ASSERT_TRUE(plain.ok());
  const auto& want = std::get<AcceptConfirm>(*plain);
  EXPECT_EQ(got.smcr, want.smcr);
  EXPECT_EQ(got.smcr_v2, want.smcr_v2);
  EXPECT_EQ(got.fce, want.fce);
  EXPECT_EQ(got.fce_v2x, want.fce_v2x);
  EXPECT_EQ(got.header.get(ClcHeaderSpec::Field::Length), v2.size());
  EXPECT_FALSE(decode(grow(accept_v1(), 4), DecodeRules::kReceiver).ok());
  auto short_v2 = accept_v2_first_contact();
  short_v2.erase(short_v2.end() - static_cast<std::ptrdiff_t>(kTrailerSize) - 60, short_v2.end() - static_cast<std::ptrdiff_t>(kTrailerSize));
  wire::store_be(wire::MutableBytes(short_v2).subspan(5, 2), static_cast<std::uint16_t>(short_v2.size()));
  EXPECT_FALSE(decode(short_v2, DecodeRules::kReceiver).ok());
}

TEST(ClcMessages, DescribeNamesEveryBlock) {
  auto m = decode(accept_v2_first_contact());
  ASSERT_TRUE(m.ok());
  std::string d = describe(*m);
  EXPECT_NE(d.find("Type: 2 (Accept)"), std::string::npos) << d;
  EXPECT_NE(d.find("First Contact: 1"), std::string::npos) << d;
  EXPECT_NE(d.find("QP MTU: 3 (1024)"), std::string::npos) << d;
  EXPECT_NE(d.find("Hostname: \"server.example"), std::string::npos) << d;
}

// ------------------------------------------------------ value encodings

TEST(ClcMessages, BufferSizeCompressedNotation) {
  // RFC 7609 App. A.2.3: 0 = 16 KiB, doubling per step up to 15 = 512 MiB.
  EXPECT_EQ(uncompress_buffer_size(0), 16384u);
  EXPECT_EQ(uncompress_buffer_size(15), 512u * 1024 * 1024);
  EXPECT_EQ(compress_buffer_size(16384), 0);
  EXPECT_EQ(compress_buffer_size(16385), 1) << "rounds up, as Linux smc_compress_bufsize";
  EXPECT_EQ(compress_buffer_size(65536), 2);
  EXPECT_EQ(compress_buffer_size(1), 0);
  EXPECT_EQ(compress_buffer_size(std::uint64_t{1} << 40), 15) << "clamped to the largest code";
  for (std::uint8_t n = 0; n < 16; ++n) EXPECT_EQ(compress_buffer_size(uncompress_buffer_size(n)), n);
}

TEST(ClcMessages, QpMtuEnumeration) {
  EXPECT_EQ(qp_mtu_octets(1), 256u);
  EXPECT_EQ(qp_mtu_octets(5), 4096u);
  EXPECT_EQ(qp_mtu_octets(0), 0u);
  EXPECT_EQ(qp_mtu_octets(6), 0u);
}

// ------------------------------------------------------ invalid fields

struct Invalid {
  const char* what;
  std::vector<std::uint8_t> (*vector)();
  void (*mutate)(std::vector<std::uint8_t>&);
  std::string_view field;
  std::string_view rule_part;
};

const Invalid kInvalid[] = {
    {"header eyecatcher", proposal_v1, [](auto& b) { b[3] = 0xd8; }, "Eyecatcher", "SMCR"},
    {"type 0", proposal_v1, [](auto& b) { b[4] = 0; }, "Type", "1 (Proposal) to 4"},
    {"type 5", decline_v1, [](auto& b) { b[4] = 5; }, "Type", "1 (Proposal) to 4"},
    {"version 0", decline_v1, [](auto& b) { b[7] = 0x00; }, "Version", "1 or 2"},
    {"version 3", accept_v1, [](auto& b) { b[7] = 0x38; }, "Version", "1 or 2"},
    {"length below 28", decline_v1, [](auto& b) { b[6] = 27; }, "Length", "smallest"},
    {"length above 652", proposal_v2, [](auto& b) { b[5] = 0x02; b[6] = 0x8d; }, "Length", "largest"},
    {"length beyond received", proposal_v1, [](auto& b) { b[6] = 53; }, "Length", "exceeds the octets received"},
    {"trailer eyecatcher", proposal_v1, [](auto& b) { b.back() = 0; }, "Trailer Eyecatcher", "SMCR"},
    {"v1 proposal: no path", proposal_v1, [](auto& b) { b[7] = 0x12; }, "SMCv1 Type", "must offer"},
    {"v1 proposal: SMCv2 bits", proposal_v1, [](auto& b) { b[7] = 0x14; }, "SMCv2 Type", "reserved"},
    {"v1 proposal: length not the parts' sum", proposal_v1,
     [](auto& b) { b.insert(b.end() - 4, 0); b[6] = 53; }, "Length", "must equal the Proposal's parts"},
    {"v1 proposal: IP area offset past Length", proposal_v1, [](auto& b) { b[39] = 200; }, "IP Area Offset",
     "points past"},
    {"v1 proposal: IPv6 count beyond Length", proposal_v1, [](auto& b) { b[47] = 1; }, "IPv6 Prefix Count",
     "more entries than"},
    {"v1 proposal: IPv6 count above 8", proposal_v1, [](auto& b) { b[47] = 9; }, "IPv6 Prefix Count", "at most 8"},
    {"v1 proposal: SMC-D offered, offset not 40", proposal_v1, [](auto& b) { b[7] = 0x13; }, "IP Area Offset",
     "must be 40"},
    {"v2 proposal: no path at all", proposal_v2, [](auto& b) { b[7] = 0x2a; }, "SMCv2 Type", "at least one path"},
    {"v2 proposal: IP area offset", proposal_v2, [](auto& b) { b[39] = 0x20; }, "IP Area Offset", "must be 40"},
    {"v2 proposal: v2 extension offset", proposal_v2, [](auto& b) { b[51] = 0x25; }, "SMCv2 Extension Offset",
     "just past the IP prefix area"},
    {"v2 proposal: SMC-Dv2 offset", proposal_v2, [](auto& b) { b[95] = 0x41; }, "SMC-Dv2 Extension Offset",
     "just past the user EID list"},
    {"v2 proposal: EID count above 8", proposal_v2, [](auto& b) { b[88] = 9; }, "EID Count", "at most 8"},
    {"v2 proposal: EID count beyond Length", proposal_v2, [](auto& b) { b[88] = 6; }, "EID Count", "more entries"},
    {"v2 proposal: ISM GID count above 8", proposal_v2, [](auto& b) { b[89] = 9; }, "ISM GID Count", "at most 8"},
    {"v2 proposal: ISM GID count beyond Length", proposal_v2, [](auto& b) { b[89] = 2; }, "ISM GID Count",
     "more entries"},
    {"v2 proposal: trailing octets", proposal_v2, [](auto& b) { b.insert(b.end() - 4, 0); b[6] = 223; },
     "Length", "sum of the Proposal's areas"},
    {"accept: path none", accept_v1, [](auto& b) { b[7] = 0x1a; }, "SMC Type", "one path"},
    {"accept: path both", accept_v1, [](auto& b) { b[7] = 0x1b; }, "SMC Type", "one path"},
    {"accept: reserved header bit", accept_v1, [](auto& b) { b[7] = 0x1c; }, "Reserved (header)", "must be zero"},
    {"accept: QP MTU 0", accept_v1, [](auto& b) { b[50] = 0x20; }, "QP MTU", "1 to 5"},
    {"accept: QP MTU 6", accept_v1, [](auto& b) { b[50] = 0x26; }, "QP MTU", "1 to 5"},
    {"accept: reserved after MTU", accept_v1, [](auto& b) { b[51] = 1; }, "Reserved1", "must be zero"},
    {"accept: reserved before PSN", accept_v1, [](auto& b) { b[60] = 1; }, "Reserved2", "must be zero"},
    {"accept v1: length 72", accept_v1, [](auto& b) { b.insert(b.end() - 4, 4, 0); b[6] = 72; }, "Length",
     "68 octets"},
    {"accept v2: shorter than 108", accept_v1, [](auto& b) { b[7] = 0x28; }, "Length", "at least 108"},
    {"accept v2: first contact without extension", accept_v2_first_contact,
     [](auto& b) { b.erase(b.begin() + 104, b.begin() + 156); b[6] = 108; }, "Length", "first-contact extension"},
    {"accept v2: octets after the extension", accept_v2_first_contact,
     [](auto& b) { b.insert(b.end() - 4, 0); b[6] = 161; }, "Length", "must end where"},
    {"confirm v2: GID count above 8", confirm_v2_first_contact, [](auto& b) { b[156] = 9; }, "GID Count",
     "at most 8"},
    {"confirm v2: GID count beyond Length", confirm_v2_first_contact, [](auto& b) { b[156] = 2; }, "GID Count",
     "more entries"},
    {"smcd accept v1: length 52", smcd_accept_v1, [](auto& b) { b.insert(b.end() - 4, 4, 0); b[6] = 52; },
     "Length", "48 octets"},
    {"decline: path none", decline_v1, [](auto& b) { b[7] = 0x12; }, "SMC Type", "SMC-R (0) or SMC-D (1)"},
    {"decline: reserved header bit", decline_v1, [](auto& b) { b[7] = 0x14; }, "Reserved (header)",
     "must be zero"},
    {"decline v1: OS type", decline_v1, [](auto& b) { b[20] = 0x20; }, "OS Type", "reserved in a version 1"},
    {"decline: reserved nibble", decline_v1, [](auto& b) { b[20] = 0x01; }, "Reserved1", "must be zero"},
    {"decline: reserved octets", decline_v1, [](auto& b) { b[22] = 0x01; }, "Reserved2", "must be zero"},
    {"decline v1: length 32", decline_v1, [](auto& b) { b.insert(b.end() - 4, 4, 0); b[6] = 32; }, "Length",
     "28 octets"},
    {"decline v2: length 28", decline_v1, [](auto& b) { b[7] = 0x20; }, "Length", "44 octets"},
};

TEST(ClcMessages, EveryInvalidFieldIsATypedError) {
  for (const Invalid& c : kInvalid) {
    auto b = c.vector();
    ASSERT_TRUE(decode(b).ok()) << c.what << ": the unmodified vector must decode";
    c.mutate(b);
    auto m = decode(b);
    ASSERT_FALSE(m.ok()) << c.what;
    EXPECT_EQ(m.error().field, c.field) << c.what << ": " << m.error().to_string();
    EXPECT_NE(m.error().rule.find(c.rule_part), std::string_view::npos) << c.what << ": " << m.error().to_string();
    EXPECT_FALSE(m.error().rfc_section.empty()) << c.what;
  }
}

TEST(ClcMessages, EveryTruncationIsATypedErrorNeverACrash) {
  for (auto make : {proposal_v1, proposal_v2, accept_v1, confirm_v2_first_contact, smcd_accept_v1,
                    smcd_accept_v2_first_contact, decline_v2}) {
    auto full = make();
    for (std::size_t n = 0; n < full.size(); ++n) {
      std::vector<std::uint8_t> part(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_FALSE(decode(part).ok()) << "prefix of " << n << " octets";
    }
  }
}

TEST(ClcMessages, EveryLengthValueIsHandled) {
  // The Length field is untrusted: any value gives a decoded message or a
  // typed error, with the buffer left as received.
  auto base = proposal_v2();
  base.resize(700, 0);
  for (std::uint32_t len = 0; len <= 0xffff; len += (len < 800 ? 1 : 97)) {
    auto b = base;
    b[5] = static_cast<std::uint8_t>(len >> 8);
    b[6] = static_cast<std::uint8_t>(len);
    auto m = decode(b);
    if (m.ok()) {
      EXPECT_EQ(len, 222u);
    }
  }
}

TEST(ClcMessages, SingleBitFlipsNeverCrash) {
  for (auto make : {proposal_v2, accept_v2_first_contact, confirm_v2_first_contact, decline_v2}) {
    auto v = make();
    for (std::size_t bit = 0; bit < v.size() * 8; ++bit) {
      auto b = v;
      b[bit / 8] ^= static_cast<std::uint8_t>(0x80 >> (bit % 8));
      auto m = decode(b);
      if (m.ok()) (void)encode(*m);
    }
  }
}

// ------------------------------------------------------ stream framing

TEST(ClcMessages, MessageReaderSplitAtEveryOffset) {
  auto a = proposal_v2();
  auto b = decline_v1();
  std::vector<std::uint8_t> stream = a;
  stream.insert(stream.end(), b.begin(), b.end());
  stream.push_back(0x99);  // first octet of plain TCP data after the exchange
  for (std::size_t split = 0; split <= stream.size(); ++split) {
    MessageReader r;
    std::vector<std::vector<std::uint8_t>> got;
    std::size_t pos = 0;
    for (wire::Bytes chunk : {wire::Bytes(stream).first(split), wire::Bytes(stream).subspan(split)}) {
      while (!chunk.empty()) {
        std::size_t used = r.put(chunk);
        chunk = chunk.subspan(used);
        pos += used;
        if (r.has_message()) {
          got.emplace_back(r.message().begin(), r.message().end());
          r.next();
          if (got.size() == 2) break;
        }
        if (used == 0) break;
      }
      if (got.size() == 2) break;
    }
    ASSERT_EQ(got.size(), 2u) << "split at " << split;
    EXPECT_EQ(got[0], a);
    EXPECT_EQ(got[1], b);
    EXPECT_EQ(pos, a.size() + b.size()) << "the TCP data after the exchange is left alone";
  }
}

TEST(ClcMessages, MessageReaderRejectsOversizedLengthBeforeBuffering) {
  auto b = proposal_v1();
  b[5] = 0xff;
  b[6] = 0xff;
  MessageReader r;
  r.put(b);
  ASSERT_TRUE(r.error());
  EXPECT_EQ(r.error()->field, "Length");
}

}  // namespace
}  // namespace rdmaconf::clc
