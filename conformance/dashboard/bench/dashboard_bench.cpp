// The dashboard's targets (docs/performance.md, "Lab dashboard"):
//  - the history with 1,000 stored runs of the whole catalogue answers in
//    < 200 ms (GET /api/runs?limit=1000, and a run, the diff, coverage);
//  - a 10,000-case run streams to a WebSocket reader without falling
//    behind: the delay from a case's end (handed to the store) to its
//    arrival in the reader.
// Usage: dashboard_bench [RUNS] [CASES_PER_RUN] [STREAMED_CASES]
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "dashboard/case_json.hpp"
#include "dashboard/dashboard.hpp"
#include "http_server.hpp"
#include "dashboard/store.hpp"

namespace {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace db = rdmaconf::dashboard;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

json make_case(int k, const std::string& verdict, const std::string& reason) {
  std::string error;
  json frames = json::array();
  for (int f = 0; f < 4; ++f)
    frames.push_back({{"from", f % 2 ? "iut" : "tester"}, {"at_ms", f * 0.3}, {"headline", "--> MPA Request, Rev 1, 20 octets"},
                      {"detail", "MPA Request: key = MPA ID Req Frame, m = 0, c = 1, r = 0, rev = 1, pd_length = 0"}});
  return db::checked_case({{"id", "case-" + std::to_string(k)}, {"protocol", k % 4 == 0 ? "mpa" : k % 4 == 1 ? "ddp" : "rdmap"},
                           {"level", k % 5 ? "MUST" : "SHOULD"}, {"verdict", verdict}, {"reason", reason},
                           {"rfc", "RFC 5044 §7.1"}, {"requirements", {"rfc5044-7.1.1-key-reply"}}, {"title", "a case"},
                           {"frames", frames}},
                          error);
}

double get_ms(std::uint16_t port, const std::string& target, std::size_t& size) {
  const auto t0 = Clock::now();
  net::io_context ioc;
  tcp::socket s(ioc);
  s.connect({net::ip::make_address("127.0.0.1"), port});
  bhttp::request<bhttp::empty_body> req{bhttp::verb::get, target, 11};
  req.set(bhttp::field::host, "127.0.0.1");
  bhttp::write(s, req);
  beast::flat_buffer buf;
  bhttp::response_parser<bhttp::string_body> p;
  p.body_limit(256 * 1024 * 1024);
  bhttp::read(s, buf, p);
  size = p.get().body().size();
  return ms_since(t0);
}

void report(const char* what, std::uint16_t port, const std::string& target, int n = 15) {
  std::vector<double> t;
  std::size_t size = 0;
  for (int i = 0; i < n; ++i) t.push_back(get_ms(port, target, size));
  std::sort(t.begin(), t.end());
  std::printf("%-44s median %7.1f ms  max %7.1f ms  (%zu octets)\n", what, t[t.size() / 2], t.back(), size);
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int per_run = argc > 2 ? std::atoi(argv[2]) : 475;
  const int streamed = argc > 3 ? std::atoi(argv[3]) : 10000;
  const auto path = std::filesystem::temp_directory_path() / ("rdmaconf-dashboard-bench-" + std::to_string(::getpid()) + ".sqlite");
  std::string error;
  auto store = db::Store::open(path.string(), error);
  if (!store) {
    std::cerr << error << "\n";
    return 2;
  }
  // 1. The history: `runs` runs of `per_run` cases; every 10th run fails a tenth of its cases.
  auto t0 = Clock::now();
  std::vector<json> clean, faulty;
  for (int k = 0; k < per_run; ++k) {
    clean.push_back(make_case(k, "pass", ""));
    faulty.push_back(make_case(k, k % 10 ? "pass" : "fail", k % 10 ? "" : "terminate: expected code=2, got 0x3"));
  }
  for (int r = 0; r < runs; ++r) {
    const auto id = store->create_run("cli", "running", "target-" + std::to_string(r % 7), json::object());
    store->add_cases(id, r % 10 == 9 ? faulty : clean);
    store->finish_run(id, "done", "", 1000, json::array());
  }
  std::printf("filled %d runs x %d cases in %.1f s (%.0f MB)\n", runs, per_run, ms_since(t0) / 1000,
              static_cast<double>(std::filesystem::file_size(path)) / 1e6);

  // 2. The server, with a runner that ends `streamed` cases as fast as it can;
  //    each carries the time it ended in its reason.
  db::Catalogue catalogue;
  db::Dashboard service(*store, "bench",
                        [&](db::RunContext& ctx) {
                          ctx.started("stream", nullptr);
                          for (int k = 0; k < streamed && !ctx.cancel->load(); ++k) {
                            const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
                            ctx.case_done(make_case(k, "pass", std::to_string(ns)));
                          }
                          return db::RunEnd{};
                        },
                        catalogue);
  // As `rdmaconf serve` serves it: the stream gathered per 50 ms.
  rdmaconf::http::ServerOptions options;
  options.stream_interval = std::chrono::milliseconds(50);
  rdmaconf::http::Server server(service, options);
  if (!server.start(error)) {
    std::cerr << error << "\n";
    return 2;
  }
  const auto port = server.port();
  report("GET /api/runs (100, the first page)", port, "/api/runs");
  report("GET /api/runs?limit=1000 (the history)", port, "/api/runs?limit=1000");
  report("GET /api/runs/500 (one run's cases)", port, "/api/runs/500");
  report("GET /api/diff?a=9&b=10 (a run diff)", port, "/api/diff?a=9&b=10");
  report("GET /api/coverage (7 targets)", port, "/api/coverage", 5);

  // 3. Streaming.
  net::io_context ioc;
  websocket::stream<tcp::socket> ws(ioc);
  ws.next_layer().connect({net::ip::make_address("127.0.0.1"), port});
  ws.handshake("127.0.0.1", "/api/events?after=0");
  {
    net::io_context c;
    tcp::socket s(c);
    s.connect({net::ip::make_address("127.0.0.1"), port});
    bhttp::request<bhttp::string_body> req{bhttp::verb::post, "/api/runs", 11};
    req.set(bhttp::field::host, "127.0.0.1");
    req.set(bhttp::field::authorization, "Bearer bench");
    req.body() = R"({"reference": true})";
    req.prepare_payload();
    bhttp::write(s, req);
    beast::flat_buffer b;
    bhttp::response<bhttp::string_body> res;
    bhttp::read(s, b, res);
  }
  std::vector<double> delays;
  int batches = 0;
  t0 = Clock::now();
  while (static_cast<int>(delays.size()) < streamed) {
    beast::flat_buffer b;
    ws.read(b);
    const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
    ++batches;
    for (const json& e : json::parse(beast::buffers_to_string(b.data())))
      if (e.value("type", "") == "case")
        delays.push_back(static_cast<double>(now - std::stoll(e["case"]["reason"].get<std::string>())) / 1e6);
  }
  const double wall = ms_since(t0);
  std::sort(delays.begin(), delays.end());
  std::printf("streamed %d cases in %.0f ms (%.0f cases/s) in %d WebSocket messages; case end -> reader: median %.1f ms, "
              "p99 %.1f ms, max %.1f ms\n",
              streamed, wall, streamed / wall * 1000, batches, delays[delays.size() / 2],
              delays[delays.size() * 99 / 100], delays.back());
  server.stop();
  service.stop();
  store.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  return 0;
}
