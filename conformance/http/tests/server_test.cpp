// The shared server's limits against a fake service on 127.0.0.1: a full
// server makes room by closing its longest-idle connection, busy ones are
// kept and the newcomer told 503, one client address is bounded without
// shutting out the others, slow headers and bodies are cut off at their
// deadlines, a request that waits does not hold up the others, a WebSocket
// client that stops reading is dropped while the others get every message
// in order, and many idle connections do not delay a request.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstring>
#include <iostream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "http_server.hpp"

namespace rdmaconf::http {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Messages pushed by the test; every stream sends them all from the start.
class FakeService : public Service {
 public:
  Response handle(const Request& r) override {
    if (r.target == "/slow") std::this_thread::sleep_for(1500ms);
    return {200, "{\"target\":\"" + r.target + "\"}"};
  }
  std::size_t body_limit(std::string_view, std::string_view) const override { return 1024; }
  std::unique_ptr<Stream> open_stream(const Request&, Response&) override { return std::make_unique<Reader>(*this); }
  void close_streams() override {}
  void set_stream_wake(std::function<void()> wake) override {
    std::lock_guard lock(wake_mu_);
    wake_ = std::move(wake);
  }
  void push(std::string m) {
    {
      std::lock_guard lock(mu_);
      messages_.push_back(std::move(m));
    }
    std::lock_guard lock(wake_mu_);
    if (wake_) wake_();
  }

 private:
  class Reader : public Stream {
   public:
    explicit Reader(FakeService& s) : s_(s) {}
    bool next(std::vector<std::string>& out, std::chrono::milliseconds) override {
      std::lock_guard lock(s_.mu_);
      for (; at_ < s_.messages_.size() && out.size() < 256; ++at_) out.push_back(s_.messages_[at_]);
      return true;
    }

   private:
    FakeService& s_;
    std::size_t at_ = 0;
  };
  std::mutex mu_, wake_mu_;
  std::vector<std::string> messages_;
  std::function<void()> wake_;
};

struct Served {
  FakeService service;
  Server server;
  explicit Served(ServerOptions o) : server(service, std::move(o)) {
    std::string error;
    EXPECT_TRUE(server.start(error)) << error;
  }
  std::uint16_t port() const { return server.port(); }
};

ServerOptions small(std::size_t max_connections, std::size_t per_client = 1000) {
  ServerOptions o;
  o.max_connections = max_connections;
  o.max_client_connections = per_client;
  return o;
}

int connect_from(std::uint16_t port, const char* source = nullptr) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (source) {
    sockaddr_in s{};
    s.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &s.sin_addr);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&s), sizeof s) != 0) {
      ::close(fd);
      return -1;
    }
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void send_text(int fd, const std::string& s) { (void)::send(fd, s.data(), s.size(), MSG_NOSIGNAL); }

// Everything the server sends until it closes (or `within` passes).
std::string read_to_close(int fd, std::chrono::milliseconds within = 5000ms) {
  std::string out;
  const auto deadline = Clock::now() + within;
  char buf[4096];
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// True when the server has closed `fd` (EOF or reset) within `within`.
bool closed_by_server(int fd, std::chrono::milliseconds within) {
  const auto deadline = Clock::now() + within;
  char buf[256];
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) return true;
  }
  return false;
}

int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::stoi(response.substr(9, 3));
}

std::string get(std::uint16_t port, const std::string& target, const char* source = nullptr) {
  const int fd = connect_from(port, source);
  if (fd < 0) return {};
  send_text(fd, "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  std::string r = read_to_close(fd);
  ::close(fd);
  return r;
}

TEST(HttpServer, AFullServerClosesItsLongestIdleConnectionForANewcomer) {
  Served s(small(4));
  std::vector<int> idle;
  for (int i = 0; i < 4; ++i) idle.push_back(connect_from(s.port()));
  for (int i = 0; i < 100 && s.server.connections() < 4; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(s.server.connections(), 4u);
  const std::string answer = get(s.port(), "/new");
  EXPECT_EQ(status_of(answer), 200) << answer;
  // The first to come was idle longest: it went.
  EXPECT_TRUE(closed_by_server(idle[0], 2000ms));
  EXPECT_FALSE(closed_by_server(idle[3], 200ms));
  EXPECT_LE(s.server.connections(), 4u);
  for (int fd : idle) ::close(fd);
}

TEST(HttpServer, ConnectionsBusyWithARequestStayAndTheNewcomerIsTold503) {
  Served s(small(2));
  std::vector<int> busy;
  for (int i = 0; i < 2; ++i) {
    busy.push_back(connect_from(s.port()));
    send_text(busy.back(), "GET /half HTTP/1.1\r\nHo");  // a header under way
  }
  for (int i = 0; i < 100 && s.server.connections() < 2; ++i) std::this_thread::sleep_for(10ms);
  const std::string answer = get(s.port(), "/new");
  EXPECT_EQ(status_of(answer), 503) << answer;
  EXPECT_NE(answer.find("too many connections (at most 2"), std::string::npos) << answer;
  // The busy ones are served when they finish.
  send_text(busy[0], "st: x\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(status_of(read_to_close(busy[0])), 200);
  for (int fd : busy) ::close(fd);
}

TEST(HttpServer, OneClientAddressIsBoundedAndOthersStillGetIn) {
  Served s(small(100, 2));
  std::vector<int> busy;
  for (int i = 0; i < 2; ++i) {
    busy.push_back(connect_from(s.port(), "127.0.0.1"));
    send_text(busy.back(), "GET /half HTTP/1.1\r\n");
  }
  for (int i = 0; i < 100 && s.server.connections() < 2; ++i) std::this_thread::sleep_for(10ms);
  const std::string same = get(s.port(), "/again", "127.0.0.1");
  EXPECT_EQ(status_of(same), 503) << same;
  EXPECT_NE(same.find("too many connections from 127.0.0.1 (at most 2"), std::string::npos) << same;
  const std::string other = get(s.port(), "/other", "127.0.0.2");
  EXPECT_EQ(status_of(other), 200) << other;
  for (int fd : busy) ::close(fd);
  // A client at its limit with an idle connection loses that one instead.
  std::vector<int> idle{connect_from(s.port(), "127.0.0.3"), connect_from(s.port(), "127.0.0.3")};
  for (int i = 0; i < 100 && s.server.connections() < 2; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(status_of(get(s.port(), "/third", "127.0.0.3")), 200);
  EXPECT_TRUE(closed_by_server(idle[0], 2000ms));
  for (int fd : idle) ::close(fd);
}

TEST(HttpServer, AHeaderSentSlowlyIsCutOffAtItsDeadline) {
  ServerOptions o;
  o.header_timeout = 1s;
  Served s(o);
  const int fd = connect_from(s.port());
  const std::string header = "GET /slow-loris HTTP/1.1\r\nHost: x\r\nX-Pad: " + std::string(200, 'a') + "\r\n\r\n";
  // An octet every 50 ms: every read is quick, the header never complete in time.
  const auto t0 = Clock::now();
  bool cut = false;
  for (char ch : header) {
    if (::send(fd, &ch, 1, MSG_NOSIGNAL) != 1) {
      cut = true;
      break;
    }
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0) {
      cut = true;
      break;
    }
  }
  ASSERT_TRUE(cut) << "the whole header went in";
  EXPECT_TRUE(closed_by_server(fd, 100ms));
  const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_GE(waited, 0.9);
  EXPECT_LT(waited, 3.0);
  ::close(fd);
}

TEST(HttpServer, ABodySentSlowlyIsCutOffAtItsDeadline) {
  ServerOptions o;
  o.body_timeout = 1s;
  Served s(o);
  const int fd = connect_from(s.port());
  send_text(fd, "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12");
  const auto t0 = Clock::now();
  const std::string answer = read_to_close(fd, 4000ms);
  const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
  EXPECT_EQ(answer, "");  // closed, nothing answered
  EXPECT_GE(waited, 0.9);
  EXPECT_LT(waited, 3.0);
  ::close(fd);
}

TEST(HttpServer, ARequestThatWaitsDoesNotHoldUpTheOthers) {
  ServerOptions o;
  o.io_threads = 1;
  o.handler_threads = 2;
  Served s(o);
  std::thread slow([&] { EXPECT_EQ(status_of(get(s.port(), "/slow")), 200); });
  std::this_thread::sleep_for(100ms);
  const auto t0 = Clock::now();
  EXPECT_EQ(status_of(get(s.port(), "/fast")), 200);
  EXPECT_LT(Clock::now() - t0, 1000ms);  // the slow one takes 1.5 s
  slow.join();
}

namespace beast = boost::beast;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

TEST(HttpServer, AWebSocketClientThatStopsReadingIsDroppedAndTheOthersGetEverythingInOrder) {
  ServerOptions o;
  o.ws_backlog = 64 * 1024;
  o.idle_timeout = 2s;
  Served s(o);
  // The client that never reads: a small receive buffer, the upgrade, nothing more.
  const int stuck = ::socket(AF_INET, SOCK_STREAM, 0);
  const int small_buffer = 4096;
  ::setsockopt(stuck, SOL_SOCKET, SO_RCVBUF, &small_buffer, sizeof small_buffer);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(s.port());
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(stuck, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  send_text(stuck, "GET /stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
  net::io_context ioc;
  websocket::stream<tcp::socket> reader(ioc);
  reader.next_layer().connect({net::ip::make_address("127.0.0.1"), s.port()});
  reader.handshake("127.0.0.1", "/stream");
  for (int i = 0; i < 100 && s.server.connections() < 2; ++i) std::this_thread::sleep_for(10ms);
  ASSERT_EQ(s.server.connections(), 2u);

  constexpr int kMessages = 20000;  // 20 MB: more than any socket buffers
  std::thread producer([&] {
    const std::string pad(1000, 'x');
    for (int i = 0; i < kMessages; ++i) s.service.push(std::to_string(i) + " " + pad);
  });
  int expected = 0;
  beast::flat_buffer b;
  while (expected < kMessages) {
    b.clear();
    beast::error_code ec;
    reader.read(b, ec);
    ASSERT_FALSE(ec) << ec.message() << " after " << expected;
    const std::string m = beast::buffers_to_string(b.data());
    ASSERT_EQ(m.substr(0, m.find(' ')), std::to_string(expected));
    ++expected;
  }
  producer.join();
  // The reader goes on reading (and so answers the server's pings) ...
  std::thread still_reading([&] {
    beast::error_code ec;
    while (!ec) reader.read(b, ec);
  });
  // ... and stays; the stuck client is dropped at the idle time.
  for (int i = 0; i < 500 && s.server.connections() > 1; ++i) std::this_thread::sleep_for(10ms);
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(s.server.connections(), 1u);
  ::shutdown(reader.next_layer().native_handle(), SHUT_RDWR);
  still_reading.join();
  ::close(stuck);
}

TEST(HttpServer, AnIdleWebSocketIsPingedOftenEnoughForTheAgentsClient) {
  Served s(ServerOptions{});
  net::io_context ioc;
  websocket::stream<tcp::socket> ws(ioc);
  ws.next_layer().connect({net::ip::make_address("127.0.0.1"), s.port()});
  ws.handshake("127.0.0.1", "/stream");
  // The agent's client gives up on a read after 3 s; with no messages the
  // pings alone must reach it sooner (the control callback sees them).
  std::vector<Clock::time_point> pings;
  ws.control_callback([&](websocket::frame_type kind, beast::string_view) {
    if (kind == websocket::frame_type::ping) pings.push_back(Clock::now());
  });
  timeval tv{3, 0};
  ::setsockopt(ws.next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  std::thread reading([&] {
    beast::flat_buffer b;
    beast::error_code ec;
    ws.read(b, ec);  // returns when the socket is shut down below
  });
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(4500ms);
  ::shutdown(ws.next_layer().native_handle(), SHUT_RDWR);
  reading.join();
  ASSERT_GE(pings.size(), 3u);
  auto last = t0;
  for (const auto& p : pings) {
    EXPECT_LT(p - last, 1600ms);
    last = p;
  }
}

// In a child process, whose limits may be lowered for good: 0 when `check` holds.
int in_child(const std::function<bool()>& check) {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(check() ? 0 : 1);
  int status = -1;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(HttpServer, RaisesTheDescriptorLimitAsFarAsAllowedAndSaysWhenItHoldsFewer) {
  rlimit rl{};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 2000) GTEST_SKIP() << "hard limit " << rl.rlim_max;
  // A soft limit under what 1,000 connections need, the hard one above: raised.
  EXPECT_EQ(in_child([] {
              rlimit low{};
              ::getrlimit(RLIMIT_NOFILE, &low);
              low.rlim_cur = 600;
              if (::setrlimit(RLIMIT_NOFILE, &low) != 0) return false;
              FakeService service;
              Server server(service, small(1000));
              std::string error;
              if (!server.start(error)) return false;
              rlimit now{};
              ::getrlimit(RLIMIT_NOFILE, &now);
              return now.rlim_cur >= 1000 + 256 && server.max_connections() == 1000 && server.notice().empty();
            }),
            0);
  // A hard limit of 600: fewer connections, and a notice saying why.
  EXPECT_EQ(in_child([] {
              rlimit low{600, 600};
              if (::setrlimit(RLIMIT_NOFILE, &low) != 0) return false;
              FakeService service;
              Server server(service, small(1000));
              std::string error;
              if (!server.start(error)) return false;
              return server.max_connections() == 600 - 256 &&
                     server.notice().find("at most 344 connections, not 1000") != std::string::npos;
            }),
            0);
}

// The CI's share of the load test (docs/performance.md): 2,000 idle
// connections held, a new request still answered at once, the server's
// memory small. The full 10,000 are http_load's.
TEST(HttpServer, TwoThousandIdleConnectionsDoNotDelayARequest) {
  std::size_t want = 2000;
  rlimit rl{};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  // Client and server ends both live in this process.
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < 2 * want + 600) {
    want = rl.rlim_max > 1200 ? (rl.rlim_max - 600) / 2 : 300;
    std::cout << "file-descriptor hard limit " << rl.rlim_max << ": " << want << " idle connections\n";
  }
  Served s(small(want + 100, want + 100));
  std::vector<int> idle;
  for (std::size_t i = 0; i < want; ++i) {
    const int fd = connect_from(s.port());
    ASSERT_GE(fd, 0) << "connection " << i << ": " << std::strerror(errno);
    idle.push_back(fd);
  }
  for (int i = 0; i < 500 && s.server.connections() < want; ++i) std::this_thread::sleep_for(10ms);
  EXPECT_EQ(s.server.connections(), want);
  const auto t0 = Clock::now();
  const std::string answer = get(s.port(), "/while-idle");
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  EXPECT_EQ(status_of(answer), 200) << answer;
  std::cout << want << " idle connections: a new request answered in " << ms << " ms\n";
  // Loose enough for a loaded CI machine; the benchmark holds it to 100 ms.
  EXPECT_LT(ms, 1000.0);
  for (int fd : idle) ::close(fd);
}

}  // namespace
}  // namespace rdmaconf::http
