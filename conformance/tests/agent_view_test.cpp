// The IUT's own view in the engine: events tied to cases by address, and
// across NAT by the running case; `agent.*` expectations checked when the
// catalogue loads and matched against events.
#include <gtest/gtest.h>

#include "engine/agent_view.hpp"
#include "engine/engine.hpp"

namespace rdmaconf::conformance {
namespace {

using namespace std::chrono_literals;

AgentEvent event(std::string local, std::string peer, std::string kind, std::string name, std::string status = {},
                 std::uint32_t len = 0) {
  return {0, std::move(kind), std::move(name), std::move(status), len, {}, std::move(local), std::move(peer)};
}

TEST(AgentView, TiesEventsToTheConnectionByBothAddresses) {
  AgentView v;
  v.add(event("10.0.0.2:7001", "10.0.0.1:40000", "completion", "recv", "success", 4));
  v.add(event("10.0.0.2:7001", "10.0.0.1:40001", "connection", "closed"));
  const auto mine = v.events("10.0.0.1:40000", "10.0.0.2:7001");
  ASSERT_EQ(mine.size(), 1u);
  EXPECT_EQ(mine[0].name, "recv");
  EXPECT_EQ(v.events("10.0.0.1:40001", "10.0.0.2:7001").size(), 1u);
  EXPECT_TRUE(v.events("10.0.0.1:40002", "10.0.0.2:7001").empty());
  EXPECT_FALSE(v.wait_for("10.0.0.1:40000", "10.0.0.2:7001", [](const AgentEvent& e) { return e.name == "closed"; },
                          std::chrono::steady_clock::now() + 10ms));
}

TEST(AgentView, AcrossNatTheRunningCaseTakesUnknownConnections) {
  AgentView v(/*serial=*/true);
  // The guest sees the tester as 10.0.2.2 with another port; the tester
  // sees the guest as 127.0.0.1:17001.
  v.add(event("10.0.2.15:7001", "10.0.2.2:5555", "connection", "established"));  // before the case knew its addresses
  v.begin_case("127.0.0.1:40000", "127.0.0.1:17001");
  v.add(event("10.0.2.15:7001", "10.0.2.2:5555", "completion", "recv", "success", 9));
  v.end_case("127.0.0.1:40000", "127.0.0.1:17001");
  v.add(event("10.0.2.15:7001", "10.0.2.2:5555", "connection", "closed"));  // late, still the same connection
  const auto got = v.events("127.0.0.1:40000", "127.0.0.1:17001");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].name, "established");
  EXPECT_EQ(got[2].name, "closed");
  // The next case's connection is a new one.
  v.begin_case("127.0.0.1:40001", "127.0.0.1:17001");
  v.add(event("10.0.2.15:7001", "10.0.2.2:5556", "connection", "established"));
  EXPECT_EQ(v.events("127.0.0.1:40001", "127.0.0.1:17001").size(), 1u);
  EXPECT_EQ(v.events("127.0.0.1:40000", "127.0.0.1:17001").size(), 3u);
}

TEST(AgentView, LostCountsBreaks) {
  AgentView v;
  const auto e = v.epoch();
  v.lost();
  EXPECT_NE(v.epoch(), e);
}

TEST(AgentMatch, ComparesEveryMatcher) {
  const AgentEvent e = event("a", "b", "completion", "recv", "local length error", 12);
  EXPECT_EQ(agent_match("agent.completion", {{"name", false, "recv"}}, e), "");
  EXPECT_EQ(agent_match("agent.completion", {{"status", false, "local length error"}, {"byte_len", false, "12", 12, true}}, e), "");
  EXPECT_NE(agent_match("agent.completion", {{"status", true, "local length error"}}, e), "");
  EXPECT_NE(agent_match("agent.async", {}, e), "");
  EXPECT_NE(agent_match("agent.completion", {{"byte_len", false, "13", 13, true}}, e), "");
}

Case parse_one(const std::string& text) {
  auto r = parse_script(text, "inline.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) ADD_FAILURE() << e->to_string();
  Case c = std::get<std::vector<Case>>(r).front();
  c.protocol = "rdmap";
  return c;
}

TEST(AgentExpectation, CheckedWhenTheCatalogueLoads) {
  const std::string head = "id: t\ntitle: t\nrequirement: rfc5040-7.1-surface-to-ulp\nrfc: RFC 5040 §7.1\nlevel: MUST\nrole: responder\n";
  EXPECT_TRUE(check_case(parse_one(head + "needs: agent\n\nhandshake\n< agent.completion name=recv status=success byte_len=4\n")).empty());
  // Without `needs: agent`, with an unknown field, a mask, or beside another alternative.
  EXPECT_FALSE(check_case(parse_one(head + "\nhandshake\n< agent.completion name=recv\n")).empty());
  EXPECT_FALSE(check_case(parse_one(head + "needs: agent\n\nhandshake\n< agent.completion colour=red\n")).empty());
  EXPECT_FALSE(check_case(parse_one(head + "needs: agent\n\nhandshake\n< agent.completion byte_len>3\n")).empty());
  EXPECT_FALSE(check_case(parse_one(head + "needs: agent\n\nhandshake\n< agent.async | close\n")).empty());
  EXPECT_FALSE(check_case(parse_one(head + "needs: agent\n\nhandshake\n< agent.teapot\n")).empty());
}

TEST(AgentExpectation, WithoutAViewTheCaseIsUnimplemented) {
  const Case c = parse_one(
      "id: t\ntitle: t\nrequirement: rfc5040-7.1-surface-to-ulp\nrfc: RFC 5040 §7.1\nlevel: MUST\nrole: responder\n"
      "needs: agent\n\nhandshake\n< agent.async name=terminate_sent\n");
  RunOptions o;
  o.iut_lacks = {"agent"};
  const CaseResult r = run_case(c, o);
  EXPECT_EQ(r.verdict, Verdict::kUnimplemented);
}

}  // namespace
}  // namespace rdmaconf::conformance
