// Fuzz runs from the dashboard (/api/fuzz, dashboard/fuzz_runs.hpp) against
// a real `rdmaconf serve`: the token, the bounds of a start request, one
// run at a time, progress, a finding's signature, script and capture, and
// cancel.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "dashboard/fuzz_runs.hpp"
#include "serve_client.hpp"
#include "temp_db.hpp"

namespace {

using namespace rdmaconf::dashboard::test;
using rdmaconf::dashboard::checked_fuzz_request;

// Polls the fuzz run until it is no longer running (or `seconds` pass).
json wait_for_end(std::uint16_t port, std::int64_t id, int seconds) {
  json r;
  for (int i = 0; i < seconds * 10; ++i) {
    r = get(port, "/api/fuzz/" + std::to_string(id)).j();
    if (r.value("status", "") != "running") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return r;
}

TEST(FuzzRequest, BoundsAndShapes) {
  std::string why;
  json ok = checked_fuzz_request({{"reference", json::object()}, {"iterations", 5}}, why);
  ASSERT_FALSE(ok.is_null()) << why;
  EXPECT_EQ(ok["reference"]["faults"], json::array());
  EXPECT_FALSE(ok.contains("seconds"));
  EXPECT_EQ(checked_fuzz_request({{"target", "192.0.2.7:7000"}}, why)["seconds"], 60);
  const json clc = {{"eid", "RDMACONF-INTEROP"}, {"prefix", "10.78.0.0/24"}, {"mac", "auto"}};
  EXPECT_EQ(checked_fuzz_request({{"target", "192.0.2.7:7000"}, {"suites", {"clc"}}, {"clc", clc}}, why)["clc"], clc)
      << why;
  EXPECT_EQ(checked_fuzz_request({{"target", "192.0.2.7:7000"}, {"restore", true}}, why)["restore"], true) << why;
  const json bad[] = {
      json::object(),                                                  // nothing to fuzz
      {{"target", "a:1"}, {"reference", json::object()}},              // two sides
      {{"target", "a:1"}, {"listen", "127.0.0.1:0"}},                  // both ends without an agent
      {{"target", "a:1"}, {"seconds", 7200}},                          // over an hour
      {{"target", "a:1"}, {"seconds", 0}},
      {{"target", "a:1"}, {"iterations", 2.5}},
      {{"target", "a:1"}, {"suites", {"smcr"}}},
      {{"target", "a:1"}, {"cases", std::vector<std::string>(65, "x")}},
      {{"target", std::string(300, 'a')}},
      {{"target", "a:1"}, {"out", "/etc"}},                            // no field names a path
      {{"agent", {{"token", "t"}}}},                                   // an agent without its URL
      {{"target", "a:1"}, {"clc", {{"eid", "X"}, {"qp", "1"}}}},       // no such identity option
      {{"target", "a:1"}, {"clc", {{"eid", std::string(300, 'E')}}}},  // longer than any EID
      {{"target", "a:1"}, {"clc", "X"}},
      {{"target", "a:1"}, {"restore", "sh -c reboot"}},                // a request asks for the restore, never names it
      {{"reference", json::object()}, {"restore", true}},              // the reference restores itself
  };
  for (const json& b : bad) EXPECT_TRUE(checked_fuzz_request(b, why).is_null()) << b.dump();
}

TEST(FuzzApi, TheTokenIsNeededAndOneRunAtATime) {
  ServeProcess serve(temp_db("fuzz-auth"));
  const json body = {{"reference", json::object()}, {"seconds", 30}, {"cases", {"rdmap-echo-*"}}};
  EXPECT_EQ(post(serve.port(), "/api/fuzz", body, "").status, 401);
  EXPECT_EQ(post(serve.port(), "/api/fuzz", body, "wrong").status, 401);
  EXPECT_EQ(post(serve.port(), "/api/fuzz", {{"reference", json::object()}, {"seconds", 99999}}).status, 400);
  const Reply started = post(serve.port(), "/api/fuzz", body);
  ASSERT_EQ(started.status, 201) << started.body;
  const std::int64_t id = started.j()["id"];
  EXPECT_EQ(post(serve.port(), "/api/fuzz", body).status, 409);
  const json list = get(serve.port(), "/api/fuzz").j();
  ASSERT_EQ(list["runs"].size(), 1u);
  EXPECT_TRUE(list["running"].get<bool>());
  // Cancel needs the token too; then the run ends, cancelled.
  EXPECT_EQ(post(serve.port(), "/api/fuzz/" + std::to_string(id) + "/cancel", json::object(), "").status, 401);
  EXPECT_EQ(post(serve.port(), "/api/fuzz/" + std::to_string(id) + "/cancel", json::object()).status, 202);
  const json end = wait_for_end(serve.port(), id, 30);
  EXPECT_EQ(end["status"], "cancelled") << end.dump();
  EXPECT_EQ(get(serve.port(), "/api/fuzz/99").status, 404);
  EXPECT_EQ(get(serve.port(), "/api/fuzz/x").status, 404);
}

// The CLC identity reaches `rdmaconf fuzz`'s own check: a prefix that is no
// prefix fails the run with the command line's words for it.
TEST(FuzzApi, TheClcIdentityIsTheFuzzersOwn) {
  ServeProcess serve(temp_db("fuzz-clc"));
  const json body = {{"reference", json::object()}, {"iterations", 2}, {"suites", {"clc"}},
                     {"clc", {{"prefix", "not-a-prefix"}}}};
  const Reply started = post(serve.port(), "/api/fuzz", body);
  ASSERT_EQ(started.status, 201) << started.body;
  const json r = wait_for_end(serve.port(), started.j()["id"], 60);
  EXPECT_EQ(r["status"], "failed") << r.dump();
  EXPECT_NE(r.value("message", "").find("--clc-prefix"), std::string::npos) << r.dump();
  EXPECT_EQ(r["request"]["clc"]["prefix"], "not-a-prefix");
}

// A request asks for the restore command; only the dashboard's operator
// names one (rdmaconf serve --fuzz-restore-command), and without one the
// run fails saying so.
TEST(FuzzApi, TheRestoreCommandIsTheOperatorsOwn) {
  ServeProcess serve(temp_db("fuzz-restore"));
  const Reply started = post(serve.port(), "/api/fuzz", {{"target", "127.0.0.1:9"}, {"iterations", 2}, {"restore", true}});
  ASSERT_EQ(started.status, 201) << started.body;
  const json r = wait_for_end(serve.port(), started.j()["id"], 60);
  EXPECT_EQ(r["status"], "failed") << r.dump();
  EXPECT_NE(r.value("message", "").find("--fuzz-restore-command"), std::string::npos) << r.dump();
  EXPECT_EQ(r["request"]["restore"], true);
}

TEST(FuzzApi, AFindingShowsItsSignatureScriptAndCapture) {
  ServeProcess serve(temp_db("fuzz-found"));
  const json body = {{"reference", {{"faults", {"terminate-le-bitfield"}}}}, {"iterations", 20},
                     {"cases", {"rdmap-echo-*"}}, {"time_scale", 0.25}};
  const Reply started = post(serve.port(), "/api/fuzz", body);
  ASSERT_EQ(started.status, 201) << started.body;
  const std::int64_t id = started.j()["id"];
  const json r = wait_for_end(serve.port(), id, 120);
  ASSERT_EQ(r["status"], "done") << r.dump();
  EXPECT_EQ(r["progress"]["iterations"], 20);
  EXPECT_EQ(r["request"]["reference"]["faults"], json({"terminate-le-bitfield"}));
  ASSERT_FALSE(r["findings"].empty()) << r.dump();
  const json& f = r["findings"][0];
  EXPECT_EQ(f["signature"], "breaks rfc5040-4.8-terminate-format");
  EXPECT_NE(f["script"].get<std::string>().find("connection 2\nhandshake\n"), std::string::npos) << f["script"];
  EXPECT_FALSE(f.contains("folder"));  // no path of the dashboard's host
  ASSERT_FALSE(f["captures"].empty()) << f.dump();
  const std::string name = f["captures"][0];
  const std::string base = "/api/fuzz/" + std::to_string(id) + "/findings/1/captures/";
  const Reply cap = get(serve.port(), base + name);
  ASSERT_EQ(cap.status, 200);
  EXPECT_EQ(cap.content_type, "application/vnd.tcpdump.pcap");
  EXPECT_NE(cap.disposition.find("attachment"), std::string::npos);
  ASSERT_GE(cap.body.size(), 4u);
  EXPECT_EQ(cap.body.substr(0, 4), std::string("\x0a\x0d\x0d\x0a", 4));  // a pcapng Section Header Block
  // Only the names the finding lists: nothing else on the host.
  EXPECT_EQ(get(serve.port(), base + "..%2F..%2Fauth.sqlite").status, 404);
  EXPECT_EQ(get(serve.port(), base + "other.pcapng").status, 404);
  EXPECT_EQ(get(serve.port(), "/api/fuzz/" + std::to_string(id) + "/findings/9/captures/" + name).status, 404);
}

}  // namespace
