// The control channel over the network: Beast server + client with the
// reference backend. Auth, malformed and oversized input, bounded
// connections (idle ones make room), concurrent clients, the WebSocket event stream, restart.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "agent/client.hpp"
#include "agent/control.hpp"
#include "agent/server.hpp"

namespace rdmaconf::agent {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kToken = "agent-test-token";

struct Agent {
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Control> control;
  std::unique_ptr<Server> server;
  explicit Agent(std::uint16_t port = 0, std::size_t max_connections = 32) {
    std::string error;
    backend = create_reference_backend({}, error);
    EXPECT_TRUE(backend) << error;
    control = std::make_unique<Control>(*backend, kToken);
    ServerOptions o;
    o.port = port;
    o.max_connections = max_connections;
    o.idle_timeout = 2s;
    server = std::make_unique<Server>(*control, o);
    EXPECT_TRUE(server->start(error)) << error;
  }
  ~Agent() {
    server->stop();
    backend->stop();
  }
  AgentUrl url() const { return {"127.0.0.1", server->port()}; }
};

// Sends raw octets and returns everything the server answers until it closes.
std::string raw(std::uint16_t port, const std::string& octets, bool half_close = true) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return {};
  }
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)::send(fd, octets.data(), octets.size(), MSG_NOSIGNAL);
  if (half_close) ::shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return out;
}

int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::stoi(response.substr(9, 3));
}

json body_of(const std::string& response) {
  const auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? json() : json::parse(response.substr(at + 4), nullptr, false);
}

TEST(Server, RefusesRequestsWithoutTheToken) {
  Agent agent;
  AgentClient wrong(agent.url(), "not-the-token");
  const auto r = wrong.get("/v1/capabilities");
  EXPECT_EQ(r.status, 401);
  EXPECT_NE(r.error.find("token"), std::string::npos);
  const auto post = wrong.post("/v1/listen", json{{"port", 0}});
  EXPECT_EQ(post.status, 401);
  const std::string anonymous = raw(agent.server->port(), "GET /v1/info HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(status_of(anonymous), 401);
  EXPECT_NE(anonymous.find("WWW-Authenticate: Bearer"), std::string::npos);
  AgentClient right(agent.url(), kToken);
  EXPECT_EQ(right.get("/v1/capabilities").status, 200);
}

TEST(Server, MalformedAndOversizedInputGetsA4xxAndTheServerGoesOn) {
  Agent agent;
  const std::uint16_t port = agent.server->port();
  const std::string auth = std::string("Authorization: Bearer ") + kToken + "\r\n";
  struct Bad {
    std::string octets;
    int status;
  };
  const Bad bad[] = {
      {"POST /v1/listen HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Length: 5\r\n\r\n{\"po", 0},  // short body: EOF
      {"POST /v1/listen HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Length: 9\r\n\r\n{\"port\":}", 400},
      {"POST /v1/listen HTTP/1.1\r\nHost: x\r\n" + auth + "Content-Length: 1000000\r\n\r\n{}", 413},
      {"GET /v1/info HTTP/1.1\r\nHost: x\r\n" + auth + "X-Big: " + std::string(20000, 'a') + "\r\n\r\n", 431},
      {"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 not http at all\r\n\r\n", 400},
      {"GET /v1/info HTTP/9.9\r\nHost: x\r\n\r\n", 400},
      {"BREW /v1/info HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 404 /* unknown method, known path */},
      {"GET /v1/" + std::string(3000, 'x') + " HTTP/1.1\r\nHost: x\r\n" + auth + "\r\n", 414},
  };
  for (const Bad& b : bad) {
    const std::string answer = raw(port, b.octets);
    if (b.status == 0) continue;
    const int got = status_of(answer);
    if (b.status == 404) {
      EXPECT_TRUE(got == 400 || got == 405 || got == 404) << answer.substr(0, 200);
    } else {
      EXPECT_EQ(got, b.status) << b.octets.substr(0, 60) << " -> " << answer.substr(0, 200);
    }
    const json j = body_of(answer);
    ASSERT_TRUE(j.is_object()) << answer.substr(0, 300);
    EXPECT_TRUE(j.contains("error"));
  }
  // Still serving.
  AgentClient c(agent.url(), kToken);
  EXPECT_EQ(c.get("/v1/info").status, 200);
}

TEST(Server, ManyClientsAtOnce) {
  Agent agent;
  std::atomic<int> ok{0}, bad{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 12; ++t)
    ts.emplace_back([&] {
      AgentClient c(agent.url(), kToken);
      for (int i = 0; i < 20; ++i) {
        const auto r = c.get("/v1/capabilities");
        (r.status == 200 ? ok : bad)++;
        if (r.status != 200) ADD_FAILURE() << r.status << " " << r.error;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(ok, 240);
  EXPECT_EQ(bad, 0);
}

TEST(Server, AFullAgentClosesAnIdleConnectionForARequestAndRefusesOnlyWhenAllAreBusy) {
  Agent agent(0, 2);
  const std::uint16_t port = agent.server->port();
  auto open_connection = [&] {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  };
  const std::string info = std::string("GET /v1/info HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ") + kToken + "\r\n\r\n";
  // Two idle connections hold both slots: a request still gets in.
  std::vector<int> held{open_connection(), open_connection()};
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(status_of(raw(port, info)), 200);
  for (int fd : held) ::close(fd);
  // Two connections in the middle of a request: the newcomer is refused.
  std::this_thread::sleep_for(100ms);
  held = {open_connection(), open_connection()};
  for (int fd : held) (void)::send(fd, "GET /v1/info HTTP/1.1\r\n", 23, MSG_NOSIGNAL);
  std::this_thread::sleep_for(200ms);
  const std::string answer = raw(port, info);
  EXPECT_EQ(status_of(answer), 503) << answer;
  for (int fd : held) ::close(fd);
  // The slots come back.
  std::this_thread::sleep_for(300ms);
  AgentClient c(agent.url(), kToken);
  EXPECT_EQ(c.get("/v1/info").status, 200);
}

struct Collected {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Event> events;
  bool wait_for(const std::function<bool(const Event&)>& pred, std::chrono::milliseconds within) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, within, [&] { return std::any_of(events.begin(), events.end(), pred); });
  }
};

int connect_to(const std::string& address) {
  const auto colon = address.rfind(':');
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(std::stoi(address.substr(colon + 1))));
  ::inet_pton(AF_INET, address.substr(0, colon).c_str(), &a.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string local_address(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  char host[INET_ADDRSTRLEN];
  ::inet_ntop(AF_INET, &a.sin_addr, host, sizeof host);
  return std::string(host) + ":" + std::to_string(ntohs(a.sin_port));
}

TEST(Server, TheWebSocketStreamsEventsWithTheConnectionsAddresses) {
  Agent agent;
  AgentClient c(agent.url(), kToken);
  Collected got;
  c.start_events([&](std::uint64_t, Event e) {
    std::lock_guard lock(got.mu);
    got.events.push_back(std::move(e));
    got.cv.notify_all();
  });
  const auto listen = c.post("/v1/listen", json{{"port", 0}});
  ASSERT_EQ(listen.status, 200) << listen.error;
  const std::string address = listen.body["address"].get<std::string>();
  const int fd = connect_to(address);
  ASSERT_GE(fd, 0);
  const std::string mine = local_address(fd);
  ::close(fd);  // no MPA Request: the IUT sees the close
  EXPECT_TRUE(got.wait_for([&](const Event& e) { return e.name == "closed" && e.peer == mine && e.local == address; }, 5s));
  // The stream wants the token too.
  const std::string upgrade = raw(agent.server->port(),
                                  "GET /v1/events/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                  "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  EXPECT_EQ(status_of(upgrade), 401) << upgrade;
  c.stop_events();
  EXPECT_EQ(c.post("/v1/close", json{{"id", listen.body["id"]}}).status, 200);
  EXPECT_EQ(c.post("/v1/close", json{{"id", listen.body["id"]}}).status, 404);
}

TEST(Server, TheClientNoticesARestartAndResumes) {
  std::unique_ptr<Agent> agent = std::make_unique<Agent>();
  const std::uint16_t port = agent->server->port();
  AgentClient c(agent->url(), kToken);
  Collected got;
  std::atomic<int> restarts{0}, losses{0};
  c.start_events(
      [&](std::uint64_t, Event e) {
        std::lock_guard lock(got.mu);
        got.events.push_back(std::move(e));
        got.cv.notify_all();
      },
      [&] { ++restarts; }, 0, [&] { ++losses; });
  auto provoke = [&] {
    const auto l = c.post("/v1/listen", json{{"port", 0}});
    ASSERT_EQ(l.status, 200) << l.error;
    const int fd = connect_to(l.body["address"].get<std::string>());
    ASSERT_GE(fd, 0);
    ::close(fd);
  };
  provoke();
  provoke();
  ASSERT_TRUE(got.wait_for([](const Event& e) { return e.name == "closed"; }, 5s));
  for (int i = 0; i < 100 && got.events.size() < 2; ++i) std::this_thread::sleep_for(20ms);
  agent.reset();  // the agent goes away ...
  agent = std::make_unique<Agent>(port);  // ... and a new one comes up on the same port
  for (int i = 0; i < 200 && !c.events_connected(); ++i) std::this_thread::sleep_for(20ms);
  provoke();
  EXPECT_TRUE(got.wait_for([&](const Event&) { return restarts > 0; }, 5s));
  EXPECT_GE(losses, 1);
  {
    std::unique_lock lock(got.mu);
    EXPECT_TRUE(got.cv.wait_for(lock, 5s, [&] { return got.events.size() >= 3; }));
  }
  c.stop_events();
}

}  // namespace
}  // namespace rdmaconf::agent
