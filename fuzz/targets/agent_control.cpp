// The device agent's control function (conformance/agent/control.hpp): the
// request -> response step every HTTP request of the control channel goes
// through, without Beast and without sockets (a recording fake backend).
//
// Input: octet 0 picks the method (GET, POST, PUT, DELETE, or the empty
// method), octet 1 the Authorization header (the right bearer token, a
// wrong one, a prefix of it, the right token with another scheme, none);
// then the request target up to the first '\n'; the rest is the body.
// Properties:
//  - nothing faults or throws, whatever the octets;
//  - every response is a JSON object; an error response is
//    {"error": {"status": S, "message": non-empty}} with S its HTTP status,
//    and every status is 200 or a 4xx;
//  - without the right token the answer is 401 and the backend is never
//    reached;
//  - a request the backend saw was authorised, and its port is one the
//    request's JSON could carry (0..65535).
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/input.hpp"
#include "agent/control.hpp"

using namespace rdmaconf;

namespace {

class RecordingBackend final : public agent::Backend {
 public:
  void set_event_sink(agent::EventSink s) override { sink = std::move(s); }
  agent::Capabilities capabilities() override {
    ++calls;
    agent::Capabilities c;
    c.backend = "fuzz";
    c.device = std::string("dev\xff", 4);  // not UTF-8: the answer must still be JSON
    return c;
  }
  agent::Outcome<agent::Handle> listen(const agent::ListenRequest& r) override {
    ++calls;
    port = r.port;
    return {agent::Handle{1, r.host + ":" + std::to_string(r.port)}, {}};
  }
  agent::Outcome<agent::Handle> connect(const agent::ConnectRequest& r) override {
    ++calls;
    port = r.port;
    if (r.port % 2) return {std::nullopt, {"refused"}};
    return {agent::Handle{2, r.case_id}, {}};
  }
  agent::Outcome<agent::Handle> clc_listen(const agent::ClcListenRequest& r) override {
    ++calls;
    port = r.port;
    return {agent::Handle{3, r.host}, {}};
  }
  agent::Outcome<agent::Handle> clc_connect(const agent::ClcConnectRequest& r) override {
    ++calls;
    port = r.port;
    return {agent::Handle{4, r.host}, {}};
  }
  agent::Outcome<bool> close(std::uint64_t id) override {
    ++calls;
    if (id > 4) return {std::nullopt, {"unknown id"}};
    return {true, {}};
  }
  void stop() override {}

  agent::EventSink sink;
  int calls = 0;
  std::uint32_t port = 0;
};

constexpr std::string_view kToken = "fuzz-token-0123456789";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static constexpr const char* kMethods[] = {"GET", "POST", "PUT", "DELETE", ""};
  const std::string auths[] = {"Bearer " + std::string(kToken), "Bearer wrong", "Bearer " + std::string(kToken.substr(0, 5)),
                               "Basic " + std::string(kToken), ""};
  const std::string method = kMethods[data[0] % 5];
  const std::size_t auth_index = data[1] % 5;
  const std::string_view rest(reinterpret_cast<const char*>(data + 2), size - 2);
  const auto nl = rest.find('\n');
  agent::HttpRequest req{method, std::string(rest.substr(0, nl)), auths[auth_index],
                         nl == std::string_view::npos ? std::string() : std::string(rest.substr(nl + 1))};

  RecordingBackend backend;
  agent::ControlLimits limits;
  limits.max_poll_wait = std::chrono::milliseconds(0);  // a poll never waits here
  limits.event_buffer = 4;
  agent::Control control(backend, std::string(kToken), limits);
  // A few events, more than the buffer holds, so polls see drops.
  for (int i = 0; i < 6; ++i) {
    agent::Event e;
    e.kind = static_cast<agent::EventKind>(i % 4);
    e.name = "recv";
    e.detail = std::string(1, static_cast<char>(0x80 + i));
    backend.sink(std::move(e));
  }
  const int before = backend.calls;
  const agent::HttpResponse r = control.handle(req);
  FUZZ_CHECK(r.status == 200 || (r.status >= 400 && r.status < 500));
  const auto j = nlohmann::json::parse(r.body, nullptr, false);
  FUZZ_CHECK(j.is_object());
  if (r.status != 200) {
    FUZZ_CHECK(j.contains("error") && j["error"].is_object());
    FUZZ_CHECK(j["error"]["status"] == r.status);
    FUZZ_CHECK(j["error"]["message"].is_string() && !j["error"]["message"].get<std::string>().empty());
  }
  if (auth_index != 0) {
    FUZZ_CHECK(r.status == 401 || r.status == 414);
    FUZZ_CHECK(backend.calls == before);
  }
  if (backend.calls != before) FUZZ_CHECK(auth_index == 0 && backend.port <= 65535);
  return 0;
}
