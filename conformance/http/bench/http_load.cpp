// The load test of the shared HTTP server (docs/performance.md, "HTTP
// server under load"), against a real `rdmaconf serve` (and, with --agent,
// a real `rdmaconf-agent`) on 127.0.0.1, each a child process so that its
// memory is its own:
//  1. idle: N connections opened and left idle, from 127.0.0.1, 127.0.0.2,
//     ... (1,000 each, the default per-client limit); then new
//     authenticated requests, each on a new connection, timed; the server's
//     RSS; how many idle connections the server closed to make room;
//  2. stream: W WebSocket clients follow a published run of C cases (and
//     one client never reads): each must see every case of the run, in
//     order; the time from the last publish to each client's last case;
//  3. rate: GET /api/runs at R requests a second for S seconds over 8
//     kept-alive connections, latency from each request's scheduled time
//     (so a stall counts in full), p50/p99/max.
// Exit 1 when a correctness check fails (a request not answered 200, an
// event missing or out of order); the figures are printed, not judged.
// Usage: http_load RDMACONF [--agent RDMACONF_AGENT] [--idle N] [--ws W]
//        [--cases C] [--rate R] [--seconds S]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kToken = "load-token";
int failures = 0;

void fail(const std::string& what) {
  std::printf("FAIL: %s\n", what.c_str());
  ++failures;
}

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

struct Child {
  pid_t pid = -1;
  std::uint16_t port = 0;
  FILE* out = nullptr;
  // Starts argv and reads its port from the line holding `marker` + port.
  Child(std::vector<std::string> argv, const std::string& marker) {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid = ::fork();
    if (pid == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      ::close(fds[1]);
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out = ::fdopen(fds[0], "r");
    char line[1024];
    while (std::fgets(line, sizeof line, out)) {
      const std::string s(line);
      std::cout << "  | " << s;
      if (const auto at = s.find(marker); at != std::string::npos) {
        port = static_cast<std::uint16_t>(std::stoi(s.substr(at + marker.size())));
        break;
      }
    }
  }
  ~Child() {
    if (pid > 0) {
      ::kill(pid, SIGTERM);
      int status = 0;
      ::waitpid(pid, &status, 0);
    }
    if (out) std::fclose(out);
  }
  double rss_mib() const {
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line))
      if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
    return 0;
  }
};

int connect_from(std::uint16_t port, const std::string& source) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in s{};
  s.sin_family = AF_INET;
  ::inet_pton(AF_INET, source.c_str(), &s.sin_addr);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&s), sizeof s) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// One request on a connection of its own: the status.
int request(std::uint16_t port, bhttp::verb verb, const std::string& target, const std::string& body, json* answer) {
  net::io_context ioc;
  tcp::socket s(ioc);
  beast::error_code ec;
  s.connect({net::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return 0;
  bhttp::request<bhttp::string_body> req{verb, target, 11};
  req.set(bhttp::field::host, "127.0.0.1");
  req.set(bhttp::field::authorization, std::string("Bearer ") + kToken);
  if (verb != bhttp::verb::get) req.body() = body;
  req.prepare_payload();
  bhttp::write(s, req, ec);
  beast::flat_buffer buf;
  bhttp::response<bhttp::string_body> res;
  if (!ec) bhttp::read(s, buf, res, ec);
  if (ec) return 0;
  if (answer) *answer = json::parse(res.body(), nullptr, false);
  return res.result_int();
}

std::string percentiles(std::vector<double> v) {
  if (v.empty()) return "none";
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))]; };
  char s[160];
  std::snprintf(s, sizeof s, "p50 %.2f ms, p99 %.2f ms, max %.2f ms (%zu)", at(0.5), at(0.99), v.back(), v.size());
  return s;
}

// Opens `n` idle connections (1,000 per source address), then times new
// authenticated requests; says how many idle ones the server closed.
void idle_phase(const Child& server, std::size_t n, const std::string& target, bhttp::verb verb, const std::string& body) {
  const auto t0 = Clock::now();
  std::vector<int> idle;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string source = "127.0.0." + std::to_string(1 + i / 1000);
    const int fd = connect_from(server.port, source);
    if (fd < 0) {
      fail("idle connection " + std::to_string(i) + ": " + std::strerror(errno));
      break;
    }
    idle.push_back(fd);
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));  // all accepted
  std::printf("  %zu idle connections opened in %.0f ms; server RSS %.1f MiB\n", idle.size(), ms_since(t0),
              server.rss_mib());
  std::vector<double> times;
  for (int i = 0; i < 20; ++i) {
    const auto t = Clock::now();
    const int status = request(server.port, verb, target, body, nullptr);
    times.push_back(ms_since(t));
    if (status != 200 && status != 201) fail("a request among idle connections answered " + std::to_string(status));
  }
  std::size_t closed = 0;
  for (int fd : idle) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) ++closed;
  }
  std::printf("  new authenticated %s %s: %s; idle connections the server closed for them: %zu; RSS %.1f MiB\n",
              std::string(bhttp::to_string(verb)).c_str(), target.c_str(), percentiles(times).c_str(), closed,
              server.rss_mib());
  for (int fd : idle) ::close(fd);
}

json make_case(int k) {
  return {{"id", "load-case-" + std::to_string(k)}, {"protocol", "mpa"}, {"level", "MUST"}, {"verdict", "pass"},
          {"reason", ""}, {"rfc", "RFC 5044 §7.1"}, {"requirements", {"rfc5044-7.1.1-key-reply"}}, {"title", "a case"}};
}

void stream_phase(const Child& server, int clients, int cases) {
  json created;
  if (request(server.port, bhttp::verb::post, "/api/runs", json{{"publish", {{"target", "load"}}}}.dump(), &created) != 201) {
    fail("publish: no run");
    return;
  }
  const std::int64_t run = created.value("id", std::int64_t{0});
  // The client that never reads.
  const int stuck = connect_from(server.port, "127.0.0.250");
  const std::string upgrade = "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                              "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";
  if (stuck >= 0) (void)::send(stuck, upgrade.data(), upgrade.size(), MSG_NOSIGNAL);
  std::atomic<int> ready{0};
  std::atomic<std::int64_t> published_end_ns{0};
  std::mutex mu;
  std::vector<double> lag;
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      net::io_context ioc;
      websocket::stream<tcp::socket> ws(ioc);
      beast::error_code ec;
      ws.next_layer().connect({net::ip::make_address("127.0.0.1"), server.port}, ec);
      if (!ec) ws.handshake("127.0.0.1", "/api/events", ec);
      ++ready;
      if (ec) return fail("client " + std::to_string(c) + ": " + ec.message());
      std::int64_t expected = 1;
      while (expected <= cases) {
        beast::flat_buffer b;
        ws.read(b, ec);
        if (ec) return fail("client " + std::to_string(c) + " lost the stream at case " + std::to_string(expected));
        const json batch = json::parse(beast::buffers_to_string(b.data()), nullptr, false);
        for (const json& e : batch) {
          if (e.value("type", "") == "dropped") return fail("client " + std::to_string(c) + " was told events dropped");
          if (e.value("type", "") != "case" || e.value("run_id", std::int64_t{0}) != run) continue;
          const std::int64_t seq = e["case"].value("seq", std::int64_t{0});
          if (seq != expected)
            return fail("client " + std::to_string(c) + ": case " + std::to_string(seq) + " where " +
                        std::to_string(expected) + " was due");
          ++expected;
        }
      }
      const auto end = published_end_ns.load();
      std::lock_guard lock(mu);
      lag.push_back(end ? static_cast<double>(Clock::now().time_since_epoch().count() - end) / 1e6 : 0);
    });
  while (ready < clients) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  // A live run: batches of 50 cases, as `run --publish` sends them.
  const auto t0 = Clock::now();
  for (int k = 0; k < cases; k += 50) {
    json batch = json::array();
    for (int i = k; i < std::min(cases, k + 50); ++i) batch.push_back(make_case(i));
    if (request(server.port, bhttp::verb::post, "/api/runs/" + std::to_string(run) + "/cases", json{{"cases", batch}}.dump(),
                nullptr) != 200)
      fail("publishing cases " + std::to_string(k) + "...");
  }
  published_end_ns = Clock::now().time_since_epoch().count();
  const double publish_ms = ms_since(t0);
  for (auto& t : threads) t.join();
  request(server.port, bhttp::verb::post, "/api/runs/" + std::to_string(run) + "/finish", R"({"status":"done"})", nullptr);
  std::printf("  %d cases published in %.0f ms (one client never reading); %zu of %d clients saw every case in order; "
              "last case after the publish ended: %s; server RSS %.1f MiB\n",
              cases, publish_ms, lag.size(), clients, percentiles(lag).c_str(), server.rss_mib());
  if (stuck >= 0) ::close(stuck);
}

void rate_phase(const Child& server, int rate, int seconds) {
  constexpr int kConnections = 8;
  std::mutex mu;
  std::vector<double> latency;
  std::atomic<int> bad{0};
  const auto start = Clock::now() + std::chrono::milliseconds(100);
  const auto interval = std::chrono::nanoseconds(1'000'000'000LL * kConnections / rate);
  const int per_connection = rate * seconds / kConnections;
  std::vector<std::thread> threads;
  for (int c = 0; c < kConnections; ++c)
    threads.emplace_back([&, c] {
      net::io_context ioc;
      tcp::socket s(ioc);
      s.connect({net::ip::make_address("127.0.0.1"), server.port});
      beast::flat_buffer buf;
      std::vector<double> mine;
      for (int i = 0; i < per_connection; ++i) {
        const auto due = start + interval * i + interval * c / kConnections;
        std::this_thread::sleep_until(due);
        bhttp::request<bhttp::empty_body> req{bhttp::verb::get, "/api/runs", 11};
        req.set(bhttp::field::host, "127.0.0.1");
        beast::error_code ec;
        bhttp::write(s, req, ec);
        bhttp::response<bhttp::string_body> res;
        if (!ec) bhttp::read(s, buf, res, ec);
        if (ec || res.result_int() != 200) {
          ++bad;
          return;
        }
        mine.push_back(std::chrono::duration<double, std::milli>(Clock::now() - due).count());
      }
      std::lock_guard lock(mu);
      latency.insert(latency.end(), mine.begin(), mine.end());
    });
  for (auto& t : threads) t.join();
  if (bad) fail(std::to_string(bad.load()) + " connections lost a GET /api/runs");
  std::printf("  GET /api/runs at %d/s for %d s over %d connections: %s\n", rate, seconds, kConnections,
              percentiles(latency).c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: http_load RDMACONF [--agent RDMACONF_AGENT] [--idle N] [--ws W] [--cases C] [--rate R] [--seconds S]\n";
    return 2;
  }
  std::string rdmaconf = argv[1], agent;
  std::size_t idle = 10000;
  int clients = 100, cases = 10000, rate = 1000, seconds = 5;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--agent") agent = v;
    else if (k == "--idle") idle = std::stoul(v);
    else if (k == "--ws") clients = std::stoi(v);
    else if (k == "--cases") cases = std::stoi(v);
    else if (k == "--rate") rate = std::stoi(v);
    else if (k == "--seconds") seconds = std::stoi(v);
  }
  ::signal(SIGPIPE, SIG_IGN);
  // This process holds the clients' ends: as many descriptors as allowed.
  rlimit rl{};
  ::getrlimit(RLIMIT_NOFILE, &rl);
  rl.rlim_cur = rl.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &rl);
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < idle + 300) {
    std::printf("file-descriptor limit %llu: %llu idle connections instead of %zu\n",
                static_cast<unsigned long long>(rl.rlim_cur), static_cast<unsigned long long>(rl.rlim_cur - 300), idle);
    idle = rl.rlim_cur - 300;
  }
  const auto db = std::filesystem::temp_directory_path() / ("rdmaconf-http-load-" + std::to_string(::getpid()) + ".sqlite");
  {
    std::printf("rdmaconf serve (default limits):\n");
    Child serve({rdmaconf, "serve", "--listen", "127.0.0.1:0", "--token", kToken, "--db", db.string()},
                "listening on http://127.0.0.1:");
    if (!serve.port) return 2;
    std::printf("  started: RSS %.1f MiB\n", serve.rss_mib());
    idle_phase(serve, idle, "/api/runs", bhttp::verb::post, json{{"publish", {{"target", "idle"}}}}.dump());
    stream_phase(serve, clients, cases);
    rate_phase(serve, rate, seconds);
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db.string() + suffix);
  if (!agent.empty()) {
    std::printf("rdmaconf-agent (default limits):\n");
    Child a({agent, "--backend", "reference", "--control", "127.0.0.1:0", "--token", kToken}, "control http://127.0.0.1:");
    if (!a.port) return 2;
    idle_phase(a, idle, "/v1/info", bhttp::verb::get, "");
  }
  std::printf(failures ? "%d check(s) failed\n" : "every check held\n", failures);
  return failures ? 1 : 0;
}
