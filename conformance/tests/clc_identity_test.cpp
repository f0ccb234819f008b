// The tester's CLC identity (clc_identity.hpp) and what the engine does with
// an IUT's CLC offer: options parsed, values learned from a real loopback
// connection, `needs` items a Proposal does not offer, and an Accept the
// tester's server cannot build.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "engine/clc_identity.hpp"
#include "engine/engine.hpp"

namespace rdmaconf::conformance {
namespace {

TEST(ClcIdentity, ParsesPrefixGidAndMac) {
  const auto p = parse_ipv4_prefix("10.78.0.7/24");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->subnet, 0x0a4e0000u);  // the host bits are cleared
  EXPECT_EQ(p->prefix_length, 24);
  EXPECT_FALSE(parse_ipv4_prefix("10.78.0.7/33"));
  EXPECT_FALSE(parse_ipv4_prefix("10.78.0.7"));
  EXPECT_FALSE(parse_ipv4_prefix("10.78.0/24"));
  EXPECT_FALSE(parse_ipv4_prefix("10.78.0.7/2x"));
  const auto g = parse_gid("::ffff:10.78.0.2");
  ASSERT_TRUE(g);
  EXPECT_EQ(*g, ipv4_mapped_gid(0x0a4e0002));
  EXPECT_EQ(parse_gid("00000000000000000000ffff0a4e0002"), g);
  EXPECT_FALSE(parse_gid("00000000000000000000ffff0a4e00"));
  EXPECT_FALSE(parse_gid("not a gid"));
  const auto m = parse_mac("02:ab:CD:00:00:01");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, (clc::Mac{0x02, 0xab, 0xcd, 0x00, 0x00, 0x01}));
  EXPECT_FALSE(parse_mac("02:ab:cd:00:00"));
  EXPECT_FALSE(parse_mac("02-ab-cd-00-00-01"));
}

TEST(ClcIdentity, RoceV2GidIsTheIpv4MappedAddress) {
  const clc::Gid g = ipv4_mapped_gid(0x7f000001);
  const clc::Gid want = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1};
  EXPECT_EQ(g, want);
}

// A connected loopback socket: the learned prefix is lo's 127.0.0.0/8, the
// GID the mapped local address; lo's MAC is zero, so the fixed one stays.
TEST(ClcIdentity, LearnsFromTheConnectionsInterface) {
  const int l = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(l, 1), 0);
  socklen_t len = sizeof a;
  ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len);
  const int c = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_EQ(::connect(c, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);

  const auto li = local_interface(c);
  ASSERT_TRUE(li);
  EXPECT_EQ(li->address, 0x7f000001u);
  EXPECT_EQ(li->prefix.subnet, 0x7f000000u);
  EXPECT_EQ(li->prefix.prefix_length, 8);
  EXPECT_FALSE(li->mac);

  ClcIdentity id;
  id.gid_from_connection = id.mac_from_connection = true;
  const ClcResolved r = resolve_identity(id, c);
  EXPECT_EQ(r.ipv4.subnet, 0x7f000000u);
  EXPECT_EQ(r.gid, ipv4_mapped_gid(0x7f000001));
  EXPECT_TRUE(r.fixed_mac);
  EXPECT_NE(r.note.find("no MAC"), std::string::npos) << r.note;

  // Given values win over learned ones.
  id.ipv4 = clc::Ipv4Prefix{0x0a4e0000, 24};
  id.mac = clc::Mac{0x02, 0, 0, 0, 0, 0x42};
  const ClcResolved given = resolve_identity(id, c);
  EXPECT_EQ(given.ipv4.subnet, 0x0a4e0000u);
  EXPECT_EQ(given.mac, *id.mac);
  EXPECT_FALSE(given.fixed_mac);
  ::close(c);
  ::close(l);
  // Nothing to learn from: the fixed identity, said so.
  EXPECT_FALSE(resolve_identity(ClcIdentity{}, -1).note.empty());
}

// An IUT client whose Proposal is built by the reference client with the
// given offer and EID, over a socket pair; the tester plays the server.
struct FakeClcClient {
  int tester = -1, iut = -1;
  std::thread writer;
  FakeClcClient(bool v1, bool v2, std::string eid) {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    tester = sv[0];
    iut = sv[1];
    clc::ClientConfig cfg;
    cfg.link.peer_id = 7;
    cfg.link.gid = ipv4_mapped_gid(0x0a4e0001);
    cfg.link.mac = {0x02, 0, 0, 0, 0, 9};
    cfg.link.qp_number = 0x100;
    cfg.offer_v1 = v1;
    cfg.offer_v2 = v2;
    cfg.v2.user_eids = {clc::make_eid(eid)};
    cfg.v2.rocev2_gid = cfg.link.gid;
    cfg.v2.release = clc::kRelease0;
    cfg.ipv4 = {0x7f000000, 8};
    const auto proposal = clc::ClientHandshake(cfg).start(true).send;
    writer = std::thread([fd = iut, proposal] {
      (void)::send(fd, proposal.data(), proposal.size(), MSG_NOSIGNAL);
      std::uint8_t buf[512];
      while (::recv(fd, buf, sizeof buf, 0) > 0) {
      }
    });
  }
  ~FakeClcClient() {
    ::shutdown(iut, SHUT_RDWR);
    writer.join();
    ::close(iut);
  }
  RunOptions options() {
    RunOptions o;
    o.time_scale = 0.25;
    o.accept_initiator = [fd = tester](const Case&, std::string&) { return fd; };
    return o;
  }
};

Case initiator_case(const std::string& needs, const std::string& steps) {
  auto r = parse_script("id: t\ntitle: t\nrequirement: rfc7609-3.2-accept-or-decline\nrfc: RFC 7609 §3.2\n"
                        "level: MUST\nrole: initiator\nneeds: " + needs + "\n\n" + steps,
                        "inline.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) ADD_FAILURE() << e->to_string();
  Case c = std::get<std::vector<Case>>(r).front();
  c.protocol = "clc";
  return c;
}

TEST(ClcOffer, AProposalWithoutWhatTheCaseNeedsIsUnimplemented) {
  {
    FakeClcClient iut(false, true, "RDMACONF-TEST-EID");
    const CaseResult r = run_case(initiator_case("clc, smcr-v1", "< clc.proposal\n"), iut.options());
    EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
    EXPECT_NE(r.reason.find("no SMC-R version 1"), std::string::npos) << r.reason;
  }
  {
    FakeClcClient iut(false, true, "RDMACONF-TEST-EID");
    const CaseResult r = run_case(initiator_case("clc, smcr-v2, smcv2.1", "< clc.proposal\n"), iut.options());
    EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
    EXPECT_NE(r.reason.find("no SMC v2.1 (v2 extension Release 0)"), std::string::npos) << r.reason;
  }
  {
    FakeClcClient iut(true, false, "RDMACONF-TEST-EID");
    const CaseResult r = run_case(initiator_case("clc, smcr-v2", "< clc.proposal\n"), iut.options());
    EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
  }
  {
    FakeClcClient iut(false, true, "RDMACONF-TEST-EID");
    const CaseResult r = run_case(initiator_case("clc, smcr-v2", "< clc.proposal version=2\n"), iut.options());
    EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  }
}

// The tester's server declines a Proposal whose EID the run was not given:
// the case cannot shape an Accept, and says why instead of naming a field
// the Decline it would send does not have.
TEST(ClcOffer, AnAcceptTheTestersServerWouldNotSendIsAnErrorThatSaysWhy) {
  FakeClcClient iut(false, true, "SOME-OTHER-EID");
  const CaseResult r =
      run_case(initiator_case("clc", "< clc.proposal\n> clc.accept choose=v2 smcr.qpn=0\n< clc.decline\n"), iut.options());
  EXPECT_EQ(r.verdict, Verdict::kError) << r.reason;
  EXPECT_NE(r.reason.find("declines the IUT's Proposal"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("user EID"), std::string::npos) << r.reason;
  // With the IUT's EID the same step builds an Accept.
  FakeClcClient same(false, true, "SOME-OTHER-EID");
  RunOptions o = same.options();
  o.clc_identity.eid = "SOME-OTHER-EID";
  const CaseResult ok = run_case(initiator_case("clc", "< clc.proposal\n> clc.accept choose=v2 smcr.qpn=0x10\n"), o);
  EXPECT_EQ(ok.verdict, Verdict::kPass) << ok.reason;
}

}  // namespace
}  // namespace rdmaconf::conformance
