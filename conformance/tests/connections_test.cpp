// Cases of more than one connection (`connection N`, docs/conformance.md):
// checked when the catalogue loads, run against the reference IUT (each of
// its connections has STags of its own) and against a peer that advertises
// one STag value on every connection, which leaves the step nothing to show.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "engine/engine.hpp"
#include "engine/mutation.hpp"
#include "engine/responder.hpp"
#include "engine/test_ulp.hpp"
#include "mpa/req_rep.hpp"

namespace rdmaconf::conformance {
namespace {

using namespace std::chrono_literals;

Case responder_case(const std::string& steps, const std::string& role = "responder") {
  auto r = parse_script("id: t\ntitle: t\nrequirement: rfc5042-6.1.1-stag-other-stream\nrfc: RFC 5042 §6.1.1\n"
                        "level: MUST\nrole: " + role + "\nneeds: buffer:rw\n\n" + steps,
                        "inline.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) ADD_FAILURE() << e->to_string();
  Case c = std::get<std::vector<Case>>(r).front();
  c.protocol = "ddp";
  return c;
}

constexpr const char* kOtherStream =
    "handshake\nconnection 2\nhandshake\n> write stag=$1.rw.stag to=$1.rw.to payload=8\n"
    "< terminate layer=ddp etype=1 code=0 | terminate layer=ddp etype=1 code=2\n"
    "connection 1\n> read_request sink_stag=0x7e57 sink_to=0 read_size=8 source_stag=$rw.stag source_to=$rw.to\n"
    "< read_response stag=0x7e57 payload=hex:0000000000000000\n";

struct Reference {
  ReferenceIut iut;
  RunOptions options;
  explicit Reference(FaultSet f = {}) : iut(f) {
    std::string error;
    EXPECT_TRUE(iut.listen("127.0.0.1", 0, error)) << error;
    RunOptions o;
    o.time_scale = 0.25;
    options = reference_options(iut, o);
  }
};

TEST(Connections, CheckedWhenTheCatalogueLoads) {
  EXPECT_TRUE(check_case(responder_case(kOtherStream)).empty());
  const auto later = check_case(responder_case("handshake\nconnection 3\nhandshake\n"));
  ASSERT_EQ(later.size(), 1u);
  EXPECT_NE(later[0].find("expected connection 2 before connection 3"), std::string::npos) << later[0];
  // In role initiator `connection N` waits for the IUT's Nth connection:
  // allowed, in the same order.
  EXPECT_TRUE(check_case(responder_case("< mpa.request\nconnection 2\n< mpa.request\n", "initiator")).empty());
  const auto skipped = check_case(responder_case("< mpa.request\nconnection 3\n", "initiator"));
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("expected connection 2 before connection 3"), std::string::npos) << skipped[0];
}

// Each of the reference's connections has STags of its own: the first
// connection's is refused on the second, and its buffer is read back as it
// was. The frames name their connection, the second's exchange is kept.
TEST(Connections, AnStagOfTheFirstConnectionIsRefusedOnTheSecond) {
  Reference ref;
  const CaseResult r = run_case(responder_case(kOtherStream), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kPass) << r.reason;
  ASSERT_EQ(r.other_connections.size(), 1u);
  EXPECT_FALSE(r.other_connections[0].chunks.empty());
  EXPECT_NE(r.other_connections[0].tester_address, r.exchange.tester_address);
  bool first = false, second = false;
  for (const FrameRecord& f : r.frames) {
    first = first || f.headline.starts_with("[1] ");
    second = second || f.headline.starts_with("[2] ");
    EXPECT_TRUE(f.headline.starts_with("[1] ") || f.headline.starts_with("[2] ")) << f.headline;
  }
  EXPECT_TRUE(first && second);
}

// A device whose STag lookup ignores the key octet takes the first
// connection's STag for the second's own buffer of that index.
TEST(Connections, AnStagTakenOnAnotherStreamFailsTheCase) {
  FaultSet f;
  f.set(FaultId::kStagKeyIgnored);
  Reference ref(f);
  const CaseResult r = run_case(responder_case(kOtherStream), ref.options);
  EXPECT_EQ(r.verdict, Verdict::kFail) << r.reason;
  EXPECT_EQ(r.failed_line, 13) << r.reason;
}

// A peer that advertises one STag value on every connection: the value is
// the second connection's own buffer as well, so the Write through it
// cannot show whether the first connection's is reachable.
TEST(Connections, OneStagValueOnBothConnectionsIsUnimplemented) {
  const int l = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(l, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(l, 4), 0);
  socklen_t len = sizeof a;
  ::getsockname(l, reinterpret_cast<sockaddr*>(&a), &len);
  mpa::ReqRepFields reply;
  reply.kind = mpa::FrameKind::kReply;
  reply.revision = 1;
  reply.crc = false;
  const std::vector<std::uint8_t> ad = make_advertisement({{"rw", 0x00000142, 0x10000, 4096}});
  reply.private_data = ad;  // a view: the advertisement outlives the encoding
  const std::vector<std::uint8_t> answer = mpa::encode_req_rep(reply);
  std::thread peer([&] {
    std::vector<int> held;
    for (int i = 0; i < 2; ++i) {
      const int c = ::accept(l, nullptr, nullptr);
      if (c < 0) break;
      std::uint8_t request[20];
      (void)::recv(c, request, sizeof request, MSG_WAITALL);
      (void)::send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      held.push_back(c);
    }
    std::uint8_t sink[256];
    for (int c : held) {
      while (::recv(c, sink, sizeof sink, 0) > 0) {
      }
      ::close(c);
    }
  });
  RunOptions o;
  o.time_scale = 0.25;
  o.connect_responder = tcp_connector("127.0.0.1", ntohs(a.sin_port), 1000ms);
  const CaseResult r = run_case(responder_case(kOtherStream), o);
  EXPECT_EQ(r.verdict, Verdict::kUnimplemented) << r.reason;
  EXPECT_NE(r.reason.find("STag 0x00000142 as $1.rw.stag and as this connection's $rw.stag"), std::string::npos)
      << r.reason;
  ::shutdown(l, SHUT_RDWR);
  ::close(l);
  peer.join();
}

}  // namespace
}  // namespace rdmaconf::conformance
