// The probe before a run (conformance/engine/probe.hpp): the reference
// answers it in both protocols; an HTTP-like server, a silent one, one that
// closes and a closed port are told apart within seconds, in words that
// show what came; the agent view keeps the probe's events from the first
// case.
#include "engine/probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "engine/mutation.hpp"
#include "engine/responder.hpp"
#include "tests/support/loopback_peer.hpp"

namespace rdmaconf::conformance {
namespace {

using namespace std::chrono_literals;
using Outcome = ProbeResult::Outcome;

using test_support::LoopbackPeer;
using Then = LoopbackPeer::Then;

// A peer that answers the probe's connection with `answer` once it has read
// `read_first` octets (or closes, or stays silent).
LoopbackPeer::Play answering(std::string answer, Then then, std::size_t read_first = 20) {
  return {.answer = std::move(answer), .then = then, .read_first = read_first};
}
Connector connector(const LoopbackPeer& peer) { return tcp_connector("127.0.0.1", peer.port(), 1000ms); }

RunOptions quick() {
  RunOptions o;
  o.time_scale = 0.25;
  return o;
}

TEST(Probe, TheReferenceAnswersBothProtocols) {
  ReferenceIut iut;
  std::string error;
  ASSERT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
  ASSERT_TRUE(iut.listen_clc("127.0.0.1", 0, error)) << error;
  const ProbeResult mpa = probe_target(ProbeProtocol::kMpa, tcp_connector("127.0.0.1", iut.port(), 1000ms), quick());
  EXPECT_EQ(mpa.outcome, Outcome::kSpeaks) << mpa.text;
  EXPECT_EQ(mpa.text, "an accepting MPA Reply, Rev 1");
  EXPECT_EQ(mpa.target, "127.0.0.1:" + std::to_string(iut.port()));
  const ProbeResult clc = probe_target(ProbeProtocol::kClc, tcp_connector("127.0.0.1", iut.clc_port(), 1000ms), quick());
  EXPECT_EQ(clc.outcome, Outcome::kSpeaks) << clc.text;
  EXPECT_EQ(clc.text, "a CLC Accept");
  iut.stop();
}

// A rejecting Reply is an answer in MPA all the same (RFC 5044 §7.1.2).
TEST(Probe, ARejectingReplyIsAnAnswer) {
  const std::string reject("MPA ID Rep Frame\x60\x01\x00\x00", 20);
  LoopbackPeer peer(answering(reject, Then::kHold));
  const ProbeResult r = probe_target(ProbeProtocol::kMpa, connector(peer), quick());
  EXPECT_EQ(r.outcome, Outcome::kSpeaks) << r.text;
  EXPECT_EQ(r.text, "a rejecting MPA Reply, Rev 1");
}

TEST(Probe, AnHttpServerDoesNotSpeakMpaNorClc) {
  const std::string http = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
  {
    LoopbackPeer peer(answering(http, Then::kClose));
    const ProbeResult r = probe_target(ProbeProtocol::kMpa, connector(peer), quick());
    EXPECT_EQ(r.outcome, Outcome::kDoesNotSpeak);
    EXPECT_EQ(r.text, "the target at " + peer.address() +
                          " answered `HTTP/1.1 400 Bad Request` to an MPA Request; it does not speak MPA (RFC 5044 §7.1.2)");
  }
  {
    LoopbackPeer peer(answering(http, Then::kClose, 8));
    const ProbeResult r = probe_target(ProbeProtocol::kClc, connector(peer), quick());
    EXPECT_EQ(r.outcome, Outcome::kDoesNotSpeak);
    EXPECT_EQ(r.text, "the target at " + peer.address() +
                          " answered `HTTP/1.1 400 Bad Request` to a CLC Proposal; it does not speak SMC-R CLC (RFC 7609 §3.5.1)");
  }
}

TEST(Probe, BinaryAnswersAreShownAsHex) {
  LoopbackPeer peer(answering(std::string("\x15\x03\x01\x00\x02\x02\x32", 7), Then::kClose));
  const ProbeResult r = probe_target(ProbeProtocol::kMpa, connector(peer), quick());
  EXPECT_EQ(r.outcome, Outcome::kDoesNotSpeak);
  EXPECT_NE(r.text.find("answered `15 03 01 00 02 02 32` to an MPA Request"), std::string::npos) << r.text;
}

// Silence is told within the probe's bound (3 s x 0.25), not a case's.
TEST(Probe, ASilentServerIsToldWithinSeconds) {
  LoopbackPeer peer(answering("", Then::kHold, 0));
  const auto t0 = std::chrono::steady_clock::now();
  const ProbeResult r = probe_target(ProbeProtocol::kMpa, connector(peer), quick());
  const auto took = std::chrono::steady_clock::now() - t0;
  EXPECT_EQ(r.outcome, Outcome::kDoesNotSpeak);
  EXPECT_EQ(r.text, "the target at " + peer.address() +
                        " sent nothing within 750 ms of an MPA Request; it does not speak MPA (RFC 5044 §7.1.2)");
  EXPECT_LT(took, 2s);
  EXPECT_EQ(probe_wait(1.0), 3000ms);
  EXPECT_EQ(probe_wait(0.05), 500ms);
}

TEST(Probe, AServerThatClosesDoesNotSpeak) {
  LoopbackPeer peer(answering("", Then::kClose));
  const ProbeResult r = probe_target(ProbeProtocol::kMpa, connector(peer), quick());
  EXPECT_EQ(r.outcome, Outcome::kDoesNotSpeak);
  EXPECT_NE(r.text.find("closed the connection without answering an MPA Request"), std::string::npos) << r.text;
}

TEST(Probe, AClosedPortIsUnreachable) {
  // A port that was free a moment ago: nobody listens there.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  const std::uint16_t port = ntohs(a.sin_port);
  ::close(fd);
  const ProbeResult r = probe_target(ProbeProtocol::kMpa, tcp_connector("127.0.0.1", port, 1000ms), quick());
  EXPECT_EQ(r.outcome, Outcome::kUnreachable);
  EXPECT_NE(r.text.find("Connection refused"), std::string::npos) << r.text;
}

// Across NAT (AgentView serial) an event under unknown addresses belongs to
// the case that runs, or, when none runs, to the next case that starts. The
// probe runs as a case of its own: the IUT's events about its connection
// never reach the first case.
TEST(Probe, TheFirstCaseDoesNotGetTheProbesEvents) {
  AgentView view(/*serial=*/true);
  ReferenceIut iut;
  // The device's host sees other addresses than the tester (NAT).
  std::atomic<int> connection{0};
  iut.set_observer([&](const IutEvent& e) {
    static constexpr const char* kKinds[] = {"connection", "completion", "async"};
    if (e.kind == IutEvent::Kind::kConnection && e.name == "established") ++connection;
    const std::string peer = "10.0.2.2:" + std::to_string(5000 + connection.load());
    view.add({0, kKinds[static_cast<int>(e.kind)], e.name, e.status, e.byte_len, e.detail, "10.0.2.15:7001", peer});
  });
  std::string error;
  ASSERT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
  ASSERT_TRUE(iut.listen_clc("127.0.0.1", 0, error)) << error;
  RunOptions o = reference_options(iut, quick());
  o.agent = &view;
  const ProbeResult r = probe_target(ProbeProtocol::kMpa, o.connect_responder, o);
  ASSERT_EQ(r.outcome, Outcome::kSpeaks) << r.text;
  const auto script = parse_script(
      "id: t\ntitle: t\nrequirement: rfc5044-7.1.1-key-check\nrfc: RFC 5044 §7.1.1\nlevel: MUST\nrole: "
      "responder\nneeds: agent\nhandshake\n< agent.connection name=established\n",
      "t.case");
  ASSERT_TRUE(std::holds_alternative<std::vector<Case>>(script)) << std::get<SyntaxError>(script).to_string();
  Case c = std::get<std::vector<Case>>(script).front();
  c.protocol = "mpa";
  const CaseResult result = run_case(c, o);
  EXPECT_EQ(result.verdict, Verdict::kPass) << result.reason;
  int established = 0;
  for (const AgentEvent& e : result.agent) established += e.name == "established";
  EXPECT_EQ(established, 1) << "the case got the probe's connection too";
  iut.stop();
}

}  // namespace
}  // namespace rdmaconf::conformance
