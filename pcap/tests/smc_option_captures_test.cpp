// The SMC TCP option and the CLC that may follow it, end to end
// (reference/check/smc_tcp.hpp: RFC 7609 §3.1, App. A.1): one first-contact
// CLC exchange by the reference handshake machines, behind a handshake whose
// SYN and SYN-ACK carry the option as Linux sends it, and the same exchange
// behind handshakes that get the option wrong, one flaw each. Each capture
// is analyzed as a file and must report exactly its rules. The builders also
// write the crafted captures of the catalogue's capture cases
// (conformance/cases/capture/smc-option-*.capture, pcap/tests/captures/crafted/).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "clc/handshake.hpp"

namespace rdmaconf::analysis::testing {
namespace {

// The option list of a SYN: as Linux sends the SMC option (two NOPs, then
// kind 254, length 6, ExID E2 D4 C3 D9), nothing, or other octets.
const Bytes kLinuxSmc = {0x01, 0x01, 0xfe, 0x06, 0xe2, 0xd4, 0xc3, 0xd9};
const Bytes kNoOption = {};
// Length 8, the ExID padded with two zero octets (Linux takes it: even, >= 6).
const Bytes kSmcLength8 = {0xfe, 0x08, 0xe2, 0xd4, 0xc3, 0xd9, 0x00, 0x00};
// The ExID's octets in little-endian order.
const Bytes kSmcExidSwapped = {0x01, 0x01, 0xfe, 0x06, 0xd9, 0xc3, 0xd4, 0xe2};

// How far the CLC exchange goes.
enum class Clc : std::uint8_t {
  kWhole,         // Proposal, Accept, Confirm
  kProposalOnly,  // the client proposes, the server (plain TCP) sends nothing
};

struct Handshake {
  Bytes client = kLinuxSmc;
  Bytes server = kLinuxSmc;
  Clc clc = Clc::kWhole;
};

clc::ServerConfig server() {
  clc::ServerConfig s;
  s.link.peer_id = 0x5345525600000001ull;
  s.link.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0xff, 0xfe, 0, 0, 0x02};
  s.link.mac = {0x02, 0, 0, 0, 0, 0x02};
  s.link.qp_number = 0x300;
  s.link.rmb_rkey = 0x4321;
  s.link.rmb_virtual_address = 0x200000;
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
  c.ipv4 = server().ipv4;
  return c;
}

// The capture: the handshake, the CLC exchange (SMC-R v1, first contact),
// both FINs.
std::string smc_exchange(const Handshake& h, const std::string& name) {
  clc::ClientHandshake c(client());
  clc::ServerHandshake s(server());
  const clc::Step proposal = c.start(true);
  (void)s.start(true);
  const clc::Step accept = s.on_message(proposal.send);
  EXPECT_FALSE(accept.outcome) << "the server declined";
  const clc::Step confirm = c.on_message(accept.send);
  EXPECT_FALSE(confirm.send.empty()) << "the client declined";
  Bytes to_server = proposal.send, to_client;
  if (h.clc == Clc::kWhole) {
    to_server.insert(to_server.end(), confirm.send.begin(), confirm.send.end());
    to_client = accept.send;
  }
  CaptureBuilder cap(7600, 40000);
  cap.handshake_options(h.client, h.server);
  cap.segment(0, to_server, 0, proposal.send.size());
  if (h.clc == Clc::kWhole) {
    cap.segment(1, to_client, 0, to_client.size());
    cap.segment(0, to_server, proposal.send.size(), confirm.send.size());
  }
  cap.fin(0, to_server.size());
  cap.fin(1, to_client.size());
  return cap.save(name);
}

std::map<std::string, std::uint64_t> broken(const std::string& path) {
  std::string error;
  const auto r = analyze_file(path, AnalysisOptions{}, nullptr, error);
  EXPECT_TRUE(r.has_value()) << error;
  if (!r) return {};
  EXPECT_EQ(r->summary.clc_connections, 1u);
  return r->summary.violations_per_rule;
}

using Rules = std::map<std::string, std::uint64_t>;

// Each flaw and every rule it breaks: the rule of its case, and the ones
// the same handshake breaks as well (a client that proposes after a SYN
// without the option also speaks CLC after a handshake without it).
struct Made {
  std::string file;
  Handshake handshake;
  Rules rules;
};
const Made kMade[] = {
    {"smc-option-keeps-every-rule.pcapng", {}, {}},
    {"smc-option-not-in-syn.pcapng",
     {.client = kNoOption},
     {{"rfc7609-3.1-option-in-syn", 1}, {"rfc7609-3.1-both-or-tcp", 1}}},
    {"smc-option-not-in-synack.pcapng",
     {.server = kNoOption},
     {{"rfc7609-3.1-both-or-tcp", 1}, {"rfc7609-3.1-option-in-synack", 1}, {"rfc7609-3.1-no-clc-without-option", 1}}},
    {"smc-option-proposal-to-plain-tcp.pcapng",
     {.server = kNoOption, .clc = Clc::kProposalOnly},
     {{"rfc7609-3.1-both-or-tcp", 1}}},
    {"smc-option-clc-without-options.pcapng",
     {.client = kNoOption, .server = kNoOption},
     {{"rfc7609-3.1-option-in-syn", 1}, {"rfc7609-3.1-both-or-tcp", 1}, {"rfc7609-3.1-no-clc-without-option", 1}}},
    {"smc-option-length-8.pcapng", {.client = kSmcLength8}, {{"rfc7609-a.1-option-kind", 1}}},
    {"smc-option-exid-swapped.pcapng",
     {.client = kSmcExidSwapped},
     {{"rfc7609-a.1-option-exid", 1}, {"rfc7609-3.1-both-or-tcp", 1}}},
};

TEST(SmcOptionCaptures, EachHandshakeBreaksItsRulesAndNoOthers) {
  for (const Made& m : kMade) EXPECT_EQ(broken(smc_exchange(m.handshake, m.file)), m.rules) << m.file;
}

// Linux's own handshakes keep every option rule: its SYN and SYN-ACK carry
// the option (01 01 fe 06 e2 d4 c3 d9 at the end of the option list), and
// where the server's SYN-ACK does not, no CLC follows.
TEST(SmcOptionCaptures, LinuxKeepsEveryOptionRule) {
  const std::string rows[] = {"rfc7609-3.1-option-in-syn",         "rfc7609-3.1-option-in-synack",
                              "rfc7609-3.1-both-or-tcp",           "rfc7609-3.1-no-clc-without-option",
                              "rfc7609-a.1-option-kind",           "rfc7609-a.1-option-exid"};
  for (const char* file : {"smc-r-v2.pcap", "smc-client-decline-no-pnet.pcap", "smc-fallback-tcp-server.pcap"}) {
    std::string error;
    const auto r = analyze_file(std::string(RDMACONF_REAL_CAPTURES) + "/" + file, AnalysisOptions{}, nullptr, error);
    ASSERT_TRUE(r.has_value()) << error;
    for (const std::string& row : rows) EXPECT_EQ(r->summary.violations_per_rule.count(row), 0u) << file << ": " << row;
  }
}

// A kind-253 option with the SMC ExID is judged as the SMC option in the
// wrong kind; another experiment's option (TCP Fast Open's) is not taken
// for a SMC option with a wrong ExID.
TEST(SmcOptionCaptures, KindAndOtherExperiments) {
  const Bytes kind253 = {0x01, 0x01, 0xfd, 0x06, 0xe2, 0xd4, 0xc3, 0xd9};
  EXPECT_EQ(broken(smc_exchange({.client = kind253}, "smc-kind-253.pcapng")), (Rules{{"rfc7609-a.1-option-kind", 1}}));
  const Bytes fast_open = {0xfe, 0x04, 0xf9, 0x89};
  EXPECT_EQ(broken(smc_exchange({.client = fast_open}, "smc-fast-open.pcapng")),
            (Rules{{"rfc7609-3.1-option-in-syn", 1}, {"rfc7609-3.1-both-or-tcp", 1}}));
  const Bytes exid16 = {0xfe, 0x04, 0xe2, 0xd4};
  EXPECT_EQ(broken(smc_exchange({.client = exid16}, "smc-exid-16.pcapng")),
            (Rules{{"rfc7609-a.1-option-exid", 1}, {"rfc7609-3.1-both-or-tcp", 1}}));
}

// The crafted captures the capture cases name are exactly what the builder
// above writes; RDMACONF_WRITE_CRAFTED=1 writes them anew.
TEST(SmcOptionCaptures, TheCraftedCapturesAreTheBuildersOutput) {
  auto octets = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const bool write = std::getenv("RDMACONF_WRITE_CRAFTED") != nullptr;
  for (const Made& m : kMade) {
    const std::string built = smc_exchange(m.handshake, "crafted-" + m.file);
    const std::string committed = std::string(RDMACONF_TEST_CAPTURES) + "/crafted/" + m.file;
    if (write) {
      std::ofstream(committed, std::ios::binary) << octets(built);
      continue;
    }
    EXPECT_EQ(octets(committed), octets(built)) << committed << " is not what its builder writes";
  }
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
