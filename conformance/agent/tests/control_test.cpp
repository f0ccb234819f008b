// The control function without sockets: auth, routing, bad input, limits,
// and what reaches the backend.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agent/control.hpp"
#include "agent/json.hpp"
#include "engine/needs.hpp"

namespace rdmaconf::agent {
namespace {

using nlohmann::json;

// Records what the control function asks for.
class FakeBackend : public Backend {
 public:
  void set_event_sink(EventSink s) override { sink = std::move(s); }
  Capabilities capabilities() override {
    Capabilities c;
    c.backend = "fake";
    c.mpa_revisions = {1};
    c.crc = {.can_on = true, .can_off = false, .per_connection = false};
    c.echo = true;
    c.buffers = {"rw"};
    return c;
  }
  Outcome<Handle> listen(const ListenRequest& r) override {
    last_listen = r;
    if (r.port == 1) return {std::nullopt, {"port 1 is taken"}};
    return {Handle{7, "10.0.0.2:" + std::to_string(r.port)}, {}};
  }
  Outcome<Handle> connect(const ConnectRequest& r) override {
    last_connect = r;
    return {Handle{8, {}}, {}};
  }
  Outcome<Handle> clc_listen(const ClcListenRequest&) override { return {Handle{9, "10.0.0.2:9"}, {}}; }
  Outcome<Handle> clc_connect(const ClcConnectRequest&) override { return {Handle{10, {}}, {}}; }
  Outcome<bool> close(std::uint64_t id) override {
    if (id != 7) return {std::nullopt, {"no such id"}};
    return {true, {}};
  }
  void stop() override {}
  EventSink sink;
  ListenRequest last_listen;
  ConnectRequest last_connect;
};

constexpr const char* kAuth = "Bearer s3cret";

struct ControlTest : ::testing::Test {
  FakeBackend backend;
  Control control{backend, "s3cret"};
  HttpResponse call(std::string method, std::string target, std::string body = {}, std::string auth = kAuth) {
    return control.handle({std::move(method), std::move(target), std::move(auth), std::move(body)});
  }
  static json parse(const HttpResponse& r) { return json::parse(r.body); }
};

TEST_F(ControlTest, EveryRequestNeedsTheToken) {
  for (const char* target : {"/v1/info", "/v1/capabilities", "/v1/events", "/v1/nowhere"}) {
    EXPECT_EQ(call("GET", target, "", "").status, 401) << target;
    EXPECT_EQ(call("GET", target, "", "Bearer s3cre").status, 401) << target;
    EXPECT_EQ(call("GET", target, "", "Bearer s3cret2").status, 401) << target;
    EXPECT_EQ(call("GET", target, "", "Basic s3cret").status, 401) << target;
  }
  EXPECT_EQ(call("POST", "/v1/listen", "{}", "").status, 401);
  EXPECT_EQ(backend.last_listen.port, 0);  // nothing reached the backend
  EXPECT_EQ(call("GET", "/v1/info", "", "bearer s3cret").status, 200);  // the scheme is case-insensitive
  const json e = parse(call("GET", "/v1/info", "", ""));
  EXPECT_EQ(e["error"]["status"], 401);
  EXPECT_NE(e["error"]["message"].get<std::string>().find("token"), std::string::npos);
}

TEST_F(ControlTest, AnEmptyTokenAuthorisesNothing) {
  FakeBackend b;
  Control open_door(b, "");
  EXPECT_EQ(open_door.handle({"GET", "/v1/info", "Bearer ", ""}).status, 401);
}

TEST(ConstantTimeEqual, ComparesWholeStrings) {
  EXPECT_TRUE(constant_time_equal("abc", "abc"));
  EXPECT_FALSE(constant_time_equal("abc", "abd"));
  EXPECT_FALSE(constant_time_equal("abc", "ab"));
  EXPECT_FALSE(constant_time_equal("", "a"));
  EXPECT_TRUE(constant_time_equal("", ""));
}

TEST_F(ControlTest, CapabilitiesCarryWhatTheDeviceLacks) {
  const HttpResponse r = call("GET", "/v1/capabilities");
  ASSERT_EQ(r.status, 200);
  const json j = parse(r);
  EXPECT_EQ(j["capabilities"]["backend"], "fake");
  const auto lacks = j["lacks"].get<std::vector<std::string>>();
  for (const char* item : {"rev2", "no-crc", "markers", "atomics", "immediate", "receives", "commands", "clc",
                           "buffer:ro", "buffer:stale"})
    EXPECT_NE(std::find(lacks.begin(), lacks.end(), item), lacks.end()) << item;
  for (const char* item : {"echo", "buffer:rw"})
    EXPECT_EQ(std::find(lacks.begin(), lacks.end(), item), lacks.end()) << item;
  std::string error;
  const auto back = capabilities_from_json(j["capabilities"], error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(lacks, rdmaconf::agent::lacks(*back));
}

// Whatever a device lacks is a needs item the cases name (needs.hpp): a
// device that has nothing lacks only items the case parser knows.
TEST(Capabilities, LacksAreNeedsItems) {
  Capabilities nothing;
  nothing.clc = true;
  nothing.smcr_v1 = false;
  const auto lacks = rdmaconf::agent::lacks(nothing);
  EXPECT_GT(lacks.size(), 15u);
  for (const std::string& item : lacks) EXPECT_TRUE(rdmaconf::conformance::is_needs_item(item)) << item;
}

// A device without a RoCE v1 GID lacks SMC-R v1 (only where there is a CLC
// side at all); the field is optional on the wire, absent meaning true.
TEST(Capabilities, SmcrV1TravelsAndBecomesALack) {
  Capabilities c;
  c.clc = true;
  c.smcr_v1 = false;
  const auto l = rdmaconf::agent::lacks(c);
  EXPECT_NE(std::find(l.begin(), l.end(), "smcr-v1"), l.end());
  std::string error;
  json j = json::parse(to_json(c).dump());  // as it travels
  const auto back = capabilities_from_json(j, error);
  ASSERT_TRUE(back) << error;
  EXPECT_FALSE(back->smcr_v1);
  j.erase("smcr_v1");
  const auto old = capabilities_from_json(j, error);
  ASSERT_TRUE(old) << error;
  EXPECT_TRUE(old->smcr_v1);
  c.clc = false;
  const auto none = rdmaconf::agent::lacks(c);
  EXPECT_EQ(std::find(none.begin(), none.end(), "smcr-v1"), none.end());
}

TEST_F(ControlTest, ListenPassesTheConfigurationThrough) {
  const HttpResponse r = call("POST", "/v1/listen", R"({"port": 7001, "mpa": {"revision": 2, "crc": false}})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(parse(r)["id"], 7);
  EXPECT_EQ(parse(r)["address"], "10.0.0.2:7001");
  EXPECT_EQ(backend.last_listen.port, 7001);
  EXPECT_EQ(backend.last_listen.mpa.revision, 2);
  EXPECT_EQ(backend.last_listen.mpa.crc, false);
  EXPECT_FALSE(backend.last_listen.mpa.markers);
  EXPECT_EQ(backend.last_listen.mpa.label(), "rev2 crc=off");
}

TEST_F(ControlTest, ConnectNeedsHostAndPort) {
  EXPECT_EQ(call("POST", "/v1/connect", R"({"port": 5})").status, 400);
  EXPECT_EQ(call("POST", "/v1/connect", R"({"host": "127.0.0.1"})").status, 400);
  const HttpResponse r = call("POST", "/v1/connect", R"({"host": "127.0.0.1", "port": 5, "case": "mpa-x"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(backend.last_connect.case_id, "mpa-x");
}

TEST_F(ControlTest, MalformedInputGetsAClear4xx) {
  struct Bad {
    const char* method;
    std::string target;
    std::string body;
    int status;
  };
  const Bad bad[] = {
      {"POST", "/v1/listen", "{", 400},
      {"POST", "/v1/listen", "[1,2]", 400},
      {"POST", "/v1/listen", R"({"port": -1})", 400},
      {"POST", "/v1/listen", R"({"port": 65536})", 400},
      {"POST", "/v1/listen", R"({"port": "80"})", 400},
      {"POST", "/v1/listen", R"({"host": 5})", 400},
      {"POST", "/v1/listen", R"({"mpa": {"revision": 3}})", 400},
      {"POST", "/v1/listen", R"({"mpa": {"crc": "yes"}})", 400},
      {"POST", "/v1/listen", R"({"mpa": 1})", 400},
      {"POST", "/v1/listen", std::string(20, '[') + std::string(20, ']'), 400},
      {"POST", "/v1/listen", std::string(20000, ' '), 413},
      {"POST", "/v1/close", R"({"id": "7"})", 400},
      {"POST", "/v1/close", R"({"id": 99})", 404},
      {"GET", "/v1/listen", "", 405},
      {"POST", "/v1/capabilities", "", 405},
      {"GET", "/v2/info", "", 404},
      {"GET", "/v1/events?after=x", "", 400},
      {"GET", "/v1/events?after=", "", 400},
      {"GET", "/v1/events?after=99999999999999999999999", "", 400},
      {"GET", "/" + std::string(2000, 'a'), "", 414},
      {"POST", "/v1/listen", R"({"port": 1})", 422},
  };
  for (const Bad& b : bad) {
    const HttpResponse r = call(b.method, b.target, b.body);
    EXPECT_EQ(r.status, b.status) << b.method << " " << b.target << " " << b.body.substr(0, 40);
    const json j = json::parse(r.body, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.body;
    EXPECT_EQ(j["error"]["status"], b.status);
    EXPECT_FALSE(j["error"]["message"].get<std::string>().empty());
  }
}

TEST_F(ControlTest, EventsAreNumberedAndPolled) {
  Event e;
  e.kind = EventKind::kCompletion;
  e.local = "127.0.0.1:1";
  e.peer = "127.0.0.1:2";
  e.name = "recv";
  e.status = "success";
  e.byte_len = 4;
  backend.sink(e);
  e.kind = EventKind::kAsync;
  e.name = "terminate_sent";
  e.detail = "layer=ddp";
  backend.sink(e);
  json j = parse(call("GET", "/v1/events"));
  ASSERT_EQ(j["events"].size(), 2u);
  EXPECT_EQ(j["events"][0]["seq"], 1);
  EXPECT_EQ(j["events"][0]["kind"], "completion");
  EXPECT_EQ(j["events"][0]["byte_len"], 4);
  EXPECT_EQ(j["events"][1]["name"], "terminate_sent");
  EXPECT_EQ(j["next"], 2);
  j = parse(call("GET", "/v1/events?after=1"));
  ASSERT_EQ(j["events"].size(), 1u);
  std::uint64_t seq = 0;
  std::string error;
  const auto back = event_from_json(j["events"][0], seq, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(seq, 2u);
  EXPECT_EQ(back->detail, "layer=ddp");
  EXPECT_EQ(back->kind, EventKind::kAsync);
  j = parse(call("GET", "/v1/events?after=2&wait_ms=20"));
  EXPECT_TRUE(j["events"].empty());
}

TEST(EventLog, DropsTheOldestAndSaysSo) {
  EventLog log(3);
  for (int i = 0; i < 5; ++i) log.push(Event{});
  std::uint64_t dropped = 0;
  const auto got = log.since(0, 10, std::chrono::milliseconds(0), dropped);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got.front().first, 3u);
  EXPECT_EQ(dropped, 2u);
}

TEST(EventJson, InvalidUtf8DoesNotThrow) {
  Event e;
  e.detail = std::string("\xff\xfe", 2);
  EXPECT_NO_THROW((void)dump(to_json(e, 1)));
}

}  // namespace
}  // namespace rdmaconf::agent
