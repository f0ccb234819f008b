// SMC v2's first-contact extension end to end: a CLC exchange in which the
// server reuses a link group it shares with the client (no First Contact),
// built message by message by the reference handshake machines, kept as it
// is and with the Accept carrying the first-contact extension anyway. The
// second is the capture case capture-smc-fce-absent's failing subject
// (conformance/cases/capture/), written to pcap/tests/captures/crafted/.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "clc/handshake.hpp"

namespace rdmaconf::analysis::testing {
namespace {

clc::ServerConfig server() {
  clc::ServerConfig s;
  s.link.peer_id = 0x5345525600000001ull;
  s.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0x02};
  s.link.mac = {0x02, 0, 0, 0, 0, 0x02};
  s.link.qp_number = 0x300;
  s.link.rmb_rkey = 0x4321;
  s.link.rmb_virtual_address = 0x200000;
  s.v2.user_eids = {clc::make_eid("RDMACONF-TEST-EID")};
  s.v2.rocev2_gid = s.link.gid;
  s.ipv4 = {0xc0000200, 24};
  return s;
}

clc::ClientConfig client() {
  clc::ClientConfig c;
  c.link = server().link;
  c.link.peer_id = 0x434c4e5400000001ull;
  c.link.gid[15] = 0x01;
  c.link.mac = {0x02, 0, 0, 0, 0, 0x01};
  c.link.qp_number = 0x200;
  c.offer_v1 = false;
  c.v2 = server().v2;
  c.v2.rocev2_gid = c.link.gid;
  c.ipv4 = server().ipv4;
  return c;
}

// An SMC-Rv2 exchange between a client and a server that already share a
// link group (RFC 7609 §3.5.2: the Accept and Confirm clear First
// Contact); with `flawed`, the server's Accept carries the first-contact
// extension all the same, its Length counting it.
std::string non_first_contact(bool flawed, const std::string& name) {
  clc::ClientConfig cc = client();
  clc::ServerConfig sc = server();
  cc.link_group = clc::LinkGroupPeer{sc.link.peer_id, sc.link.gid, sc.link.mac, sc.link.qp_number};
  sc.link_groups = {clc::LinkGroupPeer{cc.link.peer_id, cc.link.gid, cc.link.mac, cc.link.qp_number}};
  clc::ClientHandshake c(cc);
  clc::ServerHandshake s(sc);
  const clc::Step proposal = c.start(true);
  (void)s.start(true);
  clc::Step accept = s.on_message(proposal.send);
  EXPECT_FALSE(accept.outcome) << "the server declined";
  const clc::Step confirm = c.on_message(accept.send);
  EXPECT_FALSE(confirm.send.empty()) << "the client declined";
  if (flawed) {
    auto m = clc::decode(accept.send);
    EXPECT_TRUE(m.ok());
    auto a = std::get<clc::AcceptConfirm>(*m);
    EXPECT_FALSE(a.first_contact());
    a.fce.emplace();
    a.fce->set(clc::FirstContactExtSpec::Field::OsType, clc::kOsLinux)
        .set(clc::FirstContactExtSpec::Field::Release, clc::kRelease1)
        .set_octets(clc::FirstContactExtSpec::Field::Hostname, clc::make_eid("rdmaconf"));
    a.fce_v2x.emplace();  // SMC-R sends the v2.1 part with the extension (Linux smc_clc_fill_fce)
    a.fce_v2x->set(clc::FirstContactExtV2xSpec::Field::MaxConns, 255).set(clc::FirstContactExtV2xSpec::Field::MaxLinks, 2);
    clc::finalize(a);
    accept.send = clc::encode(a);
  }
  Bytes to_server = proposal.send, to_client = accept.send;
  to_server.insert(to_server.end(), confirm.send.begin(), confirm.send.end());
  CaptureBuilder cap(7600, 40000);
  cap.handshake(true, true);
  cap.segment(0, to_server, 0, proposal.send.size());
  cap.segment(1, to_client, 0, to_client.size());
  cap.segment(0, to_server, proposal.send.size(), confirm.send.size());
  cap.fin(0, to_server.size());
  cap.fin(1, to_client.size());
  return cap.save(name);
}

std::uint64_t broken(const std::string& path, std::string_view rule) {
  std::string error;
  const auto r = analyze_file(path, AnalysisOptions{}, nullptr, error);
  EXPECT_TRUE(r.has_value()) << error;
  if (!r) return 0;
  EXPECT_EQ(r->summary.violations_per_rule.count("rfc7609-c.6-clc-order"), 0u);
  const auto it = r->summary.violations_per_rule.find(std::string(rule));
  return it == r->summary.violations_per_rule.end() ? 0 : it->second;
}

// Without First Contact the extension is absent; an Accept that carries it
// breaks smcv2-fce-absent (and, its Length running past its blocks, the
// format), and nothing else of the exchange.
TEST(ClcCrafted, AFirstContactExtensionWithoutFirstContactIsReported) {
  EXPECT_EQ(broken(non_first_contact(false, "clc-reuse.pcapng"), "smcv2-fce-absent"), 0u);
  EXPECT_EQ(broken(non_first_contact(false, "clc-reuse.pcapng"), "rfc7609-a.2-clc-format"), 0u);
  EXPECT_EQ(broken(non_first_contact(true, "clc-reuse-fce.pcapng"), "smcv2-fce-absent"), 1u);
  // A real exchange's second connection joins the first one's link group:
  // its 78-octet Accept and Confirm carry no extension.
  EXPECT_EQ(broken(std::string(RDMACONF_REAL_CAPTURES) + "/smcd-loopback-ism.pcap", "smcv2-fce-absent"), 0u);
}

// The crafted capture capture-smc-fce-absent names is exactly what the
// builder above writes; RDMACONF_WRITE_CRAFTED=1 writes it anew.
TEST(ClcCrafted, TheCraftedCaptureIsTheBuildersOutput) {
  const std::string built = non_first_contact(true, "crafted-clc-fce.pcapng");
  const std::string committed = std::string(RDMACONF_TEST_CAPTURES) + "/crafted/smc-fce-without-first-contact.pcapng";
  auto octets = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  if (std::getenv("RDMACONF_WRITE_CRAFTED") != nullptr) {
    std::ofstream(committed, std::ios::binary) << octets(built);
    return;
  }
  EXPECT_EQ(octets(committed), octets(built)) << committed << " is not what its builder writes";
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
