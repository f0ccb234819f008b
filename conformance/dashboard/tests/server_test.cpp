// The API against a real `rdmaconf serve` on an ephemeral 127.0.0.1 port:
// auth, limits, bad JSON, concurrent clients, the run lifecycle with live
// events, queue and cancel, restart with history intact, kill -9 mid-run,
// and `rdmaconf run --publish`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "requirement.hpp"
#include "serve_client.hpp"
#include "temp_db.hpp"

namespace {

using namespace rdmaconf::dashboard::test;
namespace websocket = beast::websocket;
namespace requirements = rdmaconf::requirements;

// The live event stream: every event, batch by batch.
class Events {
 public:
  explicit Events(std::uint16_t port) : ws_(ioc_) {
    tcp::socket& s = ws_.next_layer();
    s.connect({net::ip::make_address("127.0.0.1"), port});
    ws_.handshake("127.0.0.1", "/api/events");
  }
  // Reads until `pred` holds for an event (or the deadline); every event seen goes to `seen`.
  template <typename Pred>
  bool until(Pred pred, std::chrono::seconds within = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    ::timeval tv{1, 0};
    ::setsockopt(ws_.next_layer().native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while (std::chrono::steady_clock::now() < deadline) {
      beast::flat_buffer b;
      beast::error_code ec;
      ws_.read(b, ec);
      if (ec) return false;
      const json batch = json::parse(beast::buffers_to_string(b.data()), nullptr, false);
      if (!batch.is_array()) return false;
      ++batches;
      for (const json& e : batch) {
        seen.push_back(e);
        if (pred(e)) return true;
      }
    }
    return false;
  }
  std::vector<json> seen;
  int batches = 0;

 private:
  net::io_context ioc_;
  websocket::stream<tcp::socket> ws_;
};

bool run_ended(const json& e, std::int64_t id) {
  return e.value("type", "") == "run" && e["run"]["id"] == id && e["run"]["status"] != "queued" &&
         e["run"]["status"] != "running";
}

std::size_t cases_of(const std::vector<json>& seen, std::int64_t id) {
  std::size_t n = 0;
  for (const json& e : seen)
    if (e.value("type", "") == "case" && e["run_id"] == id) ++n;
  return n;
}

TEST(DashboardServer, ReadsAreOpenChangesNeedTheToken) {
  ServeProcess serve(temp_db("auth"));
  const auto port = serve.port();
  EXPECT_EQ(get(port, "/api/runs").status, 200);
  EXPECT_EQ(get(port, "/api/info").status, 200);
  const json start = {{"reference", true}, {"suites", {"mpa"}}};
  EXPECT_EQ(post(port, "/api/runs", start, "").status, 401);
  EXPECT_EQ(post(port, "/api/runs", start, "wrong").status, 401);
  EXPECT_EQ(post(port, "/api/runs", start, std::string(kToken) + "x").status, 401);
  EXPECT_EQ(post(port, "/api/runs/1/cancel", json::object(), "").status, 401);
  EXPECT_EQ(post(port, "/api/runs/1/cases", {{"cases", json::array()}}, "").status, 401);
  EXPECT_EQ(get(port, "/api/runs").j()["runs"].size(), 0u) << "nothing refused was recorded";
}

// The limits are options of `rdmaconf serve` (docs/dashboard.md, "Connections
// under load"): idle connections make room, busy ones do not.
TEST(DashboardServer, ConnectionLimitsAreOptionsAndIdleConnectionsMakeRoom) {
  ServeProcess serve(temp_db("limits"), {"--max-connections", "2", "--header-timeout", "2"});
  const auto port = serve.port();
  net::io_context ioc;
  std::vector<tcp::socket> held;
  for (int i = 0; i < 2; ++i) {
    held.emplace_back(ioc);
    held.back().connect({net::ip::make_address("127.0.0.1"), port});
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(get(port, "/api/info").status, 200) << "an idle connection makes room";
  for (auto& s : held) s.close();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  held.clear();
  for (int i = 0; i < 2; ++i) {
    held.emplace_back(ioc);
    held.back().connect({net::ip::make_address("127.0.0.1"), port});
    net::write(held.back(), net::buffer(std::string("GET /api/info HTTP/1.1\r\n")));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Reply refused = get(port, "/api/info");
  EXPECT_EQ(refused.status, 503);
  EXPECT_NE(refused.body.find("too many connections (at most 2, none idle)"), std::string::npos) << refused.body;
  // The header deadline (2 s) ends the busy ones; the server serves again.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(get(port, "/api/info").status, 200);
}

TEST(DashboardServer, BadRequestsAreRefused) {
  ServeProcess serve(temp_db("bad"));
  const auto port = serve.port();
  EXPECT_EQ(request(port, bhttp::verb::post, "/api/runs", kToken, "{not json").status, 400);
  EXPECT_EQ(request(port, bhttp::verb::post, "/api/runs", kToken, "[1]").status, 400);
  EXPECT_EQ(request(port, bhttp::verb::post, "/api/runs", kToken, std::string(40, '[') + std::string(40, ']')).status, 400);
  EXPECT_EQ(post(port, "/api/runs", {{"reference", true}, {"suites", {"tcp"}}}).status, 400);
  // Over the 64 KiB limit of a start request: refused before it is read.
  const Reply big = post(port, "/api/runs", {{"reference", true}, {"cases", {std::string(70 * 1024, 'x')}}});
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(get(port, "/api/runs/abc").status, 404);
  EXPECT_EQ(get(port, "/api/runs/999").status, 404);
  EXPECT_EQ(get(port, "/api/nothing").status, 404);
  EXPECT_EQ(get(port, "/api/diff?a=1").status, 400);
  EXPECT_EQ(request(port, bhttp::verb::delete_, "/api/runs/1", kToken).status, 405);
  EXPECT_EQ(get(port, "/" + std::string(3000, 'a')).status, 414);
  // The page: from here only, under a policy that allows nothing else.
  const Reply page = get(port, "/");
  EXPECT_EQ(page.status, 200);
  EXPECT_NE(page.csp.find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(get(port, "/../etc/passwd").status, 404);
  EXPECT_EQ(get(port, "/api/runs").status, 200) << "still serving";
}

// The answer status to a WebSocket upgrade of /api/events with this Host
// and Origin (101: upgraded).
int upgrade_status(std::uint16_t port, const std::string& host, const std::string& origin) {
  net::io_context ioc;
  tcp::socket s(ioc);
  beast::error_code ec;
  s.connect({net::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return 0;
  bhttp::request<bhttp::empty_body> req{bhttp::verb::get, "/api/events", 11};
  req.set(bhttp::field::host, host);
  req.set(bhttp::field::connection, "Upgrade");
  req.set(bhttp::field::upgrade, "websocket");
  req.set(bhttp::field::sec_websocket_version, "13");
  req.set(bhttp::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  if (!origin.empty()) req.set(bhttp::field::origin, origin);
  bhttp::write(s, req, ec);
  if (ec) return 0;
  beast::flat_buffer buf;
  bhttp::response_parser<bhttp::empty_body> p;
  p.skip(true);  // the upgrade's answer has no body; a refusal's is not needed
  bhttp::read_header(s, buf, p, ec);
  return ec ? 0 : static_cast<int>(p.get().result_int());
}

// DNS rebinding: a page on a name its attacker controls, resolved to
// 127.0.0.1, reaches the port but names itself in Host; another site's page
// opening the event stream names itself in Origin.
TEST(DashboardServer, AnswersOnlyItsOwnNames) {
  ServeProcess serve(temp_db("host"));
  const auto port = serve.port();
  auto get_as = [&](const std::string& host) { return request(port, bhttp::verb::get, "/api/runs", "", "", 0, host).status; };
  EXPECT_EQ(get_as("127.0.0.1:" + std::to_string(port)), 200);
  EXPECT_EQ(get_as("localhost:" + std::to_string(port)), 200);
  EXPECT_EQ(get_as("[::1]:" + std::to_string(port)), 200);
  EXPECT_EQ(get_as("rebind.attacker.example:" + std::to_string(port)), 421);
  EXPECT_EQ(get_as(""), 421);
  EXPECT_EQ(request(port, bhttp::verb::get, "/", "", "", 0, "rebind.attacker.example").status, 421) << "the page too";
  const json start = {{"reference", true}, {"suites", {"mpa"}}};
  EXPECT_EQ(request(port, bhttp::verb::post, "/api/runs", kToken, start.dump(), 0, "evil.example").status, 421);
  EXPECT_EQ(upgrade_status(port, "127.0.0.1", ""), 101);
  EXPECT_EQ(upgrade_status(port, "127.0.0.1", "http://127.0.0.1:" + std::to_string(port)), 101);
  EXPECT_EQ(upgrade_status(port, "127.0.0.1", "https://evil.example"), 403);
  EXPECT_EQ(upgrade_status(port, "127.0.0.1", "null"), 403);
  EXPECT_EQ(upgrade_status(port, "evil.example", ""), 421);
  EXPECT_EQ(get(port, "/api/runs").j()["runs"].size(), 0u) << "nothing refused was recorded";

  // --allow-host: a lab's name for the machine.
  ServeProcess named(temp_db("host-allowed"), {"--allow-host", "Dash.Lab.Example"});
  EXPECT_EQ(request(named.port(), bhttp::verb::get, "/api/runs", "", "", 0, "dash.lab.example:8080").status, 200);
  EXPECT_EQ(upgrade_status(named.port(), "dash.lab.example", "http://dash.lab.example:8080"), 101);
  EXPECT_EQ(request(named.port(), bhttp::verb::get, "/api/runs", "", "", 0, "other.lab.example").status, 421);
}

TEST(DashboardServer, ARunGoesFromQueuedToDoneWithEveryCaseLive) {
  ServeProcess serve(temp_db("lifecycle"));
  const auto port = serve.port();
  Events events(port);
  const Reply r = post(port, "/api/runs", {{"reference", true}, {"suites", {"mpa"}}, {"time_scale", 0.25}});
  ASSERT_EQ(r.status, 201) << r.body;
  const std::int64_t id = r.j()["id"];
  ASSERT_TRUE(events.until([&](const json& e) { return run_ended(e, id); })) << "the run did not end";
  const json run = get(port, "/api/runs/" + std::to_string(id)).j();
  EXPECT_EQ(run["status"], "done");
  EXPECT_EQ(run["source"], "dashboard");
  EXPECT_EQ(run["target"], "built-in reference IUT");
  ASSERT_GT(run["cases"].size(), 50u);
  EXPECT_EQ(run["total"], run["cases"].size());
  EXPECT_EQ(run["summary"]["pass"], run["cases"].size()) << "the reference passes its own suite";
  EXPECT_EQ(cases_of(events.seen, id), run["cases"].size()) << "every stored case was sent live";
  // What the run says about itself: the build, the catalogue, the times and
  // the command that does the same from a shell.
  const json& identity = run["identity"];
  EXPECT_EQ(identity["command_line"], json({"rdmaconf", "run", "--reference", "--suite", "mpa", "--time-scale", "0.25"}));
  EXPECT_FALSE(identity["version"].get<std::string>().empty());
  EXPECT_EQ(identity["catalogue"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_FALSE(identity["finished_at"].get<std::string>().empty());
  EXPECT_EQ(identity["iut"]["backend"], "reference (built in)");
  EXPECT_EQ(run["finding_count"], 0);
  EXPECT_EQ(run["findings"], json::array());
  EXPECT_LT(events.batches, static_cast<int>(run["cases"].size())) << "cases arrive batched";
  const json c = get(port, "/api/runs/" + std::to_string(id) + "/cases/1").j();
  EXPECT_FALSE(c["frames"].empty());
  EXPECT_EQ(c["id"], run["cases"][0]["id"]);
  EXPECT_EQ(get(port, "/api/scripts/" + c["id"].get<std::string>()).status, 200);
}

TEST(DashboardServer, RunsQueueAndCancel) {
  ServeProcess serve(temp_db("queue"));
  const auto port = serve.port();
  Events events(port);
  // One case at a time through the whole catalogue: long enough to cancel.
  const json slow = {{"reference", true}, {"jobs", 1}};
  const std::int64_t first = post(port, "/api/runs", slow).j()["id"];
  const std::int64_t second = post(port, "/api/runs", slow).j()["id"];
  EXPECT_EQ(get(port, "/api/runs/" + std::to_string(second)).j()["status"], "queued");
  const Reply c2 = post(port, "/api/runs/" + std::to_string(second) + "/cancel", json::object());
  EXPECT_EQ(c2.status, 200) << c2.body;
  EXPECT_EQ(get(port, "/api/runs/" + std::to_string(second)).j()["status"], "cancelled");
  ASSERT_TRUE(events.until([&](const json& e) { return e.value("type", "") == "case" && e["run_id"] == first; }));
  EXPECT_EQ(post(port, "/api/runs/" + std::to_string(first) + "/cancel", json::object()).status, 202);
  ASSERT_TRUE(events.until([&](const json& e) { return run_ended(e, first); }));
  const json run = get(port, "/api/runs/" + std::to_string(first)).j();
  EXPECT_EQ(run["status"], "cancelled");
  EXPECT_LT(run["cases"].size(), 400u) << "the cancel stopped the run";
  EXPECT_EQ(post(port, "/api/runs/" + std::to_string(first) + "/cancel", json::object()).status, 409);
}

TEST(DashboardServer, ConcurrentClientsAreAllServed) {
  ServeProcess serve(temp_db("concurrent"));
  const auto port = serve.port();
  ASSERT_EQ(post(port, "/api/runs", {{"reference", true}, {"suites", {"ddp"}}, {"time_scale", 0.25}}).status, 201);
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t)
    clients.emplace_back([&] {
      for (int i = 0; i < 20; ++i)
        if (get(port, i % 2 ? "/api/runs" : "/api/runs/1").status == 200) ++ok;
    });
  for (auto& c : clients) c.join();
  EXPECT_EQ(ok, 160);
}

TEST(DashboardServer, HistorySurvivesARestartAndKillNineLosesNoReportedCase) {
  const std::string db = temp_db("restart");
  std::int64_t done_id = 0, killed_id = 0;
  std::size_t done_cases = 0, reported = 0;
  {
    ServeProcess serve(db);
    const auto port = serve.port();
    Events events(port);
    done_id = post(port, "/api/runs", {{"reference", true}, {"suites", {"mpa"}}, {"time_scale", 0.25}}).j()["id"];
    ASSERT_TRUE(events.until([&](const json& e) { return run_ended(e, done_id); }));
    done_cases = get(port, "/api/runs/" + std::to_string(done_id)).j()["cases"].size();
    killed_id = post(port, "/api/runs", {{"reference", true}, {"jobs", 1}}).j()["id"];
    ASSERT_TRUE(events.until([&](const json& e) { return cases_of(events.seen, killed_id) >= 30 && e.is_object(); }));
    reported = cases_of(events.seen, killed_id);
    serve.stop(SIGKILL);
  }
  ServeProcess again(db);
  const auto port = again.port();
  const json done = get(port, "/api/runs/" + std::to_string(done_id)).j();
  EXPECT_EQ(done["status"], "done");
  EXPECT_EQ(done["cases"].size(), done_cases);
  const json killed = get(port, "/api/runs/" + std::to_string(killed_id)).j();
  EXPECT_EQ(killed["status"], "interrupted");
  EXPECT_GE(killed["cases"].size(), reported) << "every case the browser saw is in the history";
  EXPECT_EQ(killed["total"], killed["cases"].size()) << "counts and rows agree";
  // The server goes on with new runs.
  EXPECT_EQ(post(port, "/api/runs", {{"reference", true}, {"cases", {"mpa-crc-*"}}, {"time_scale", 0.25}}).status, 201);
}

int run_cli(const std::vector<std::string>& args) {
  std::string cmd = RDMACONF_EXE;
  for (const auto& a : args) cmd += " '" + a + "'";
  cmd += " >/dev/null 2>&1";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(DashboardServer, PublishSendsACliRun) {
  ServeProcess serve(temp_db("publish"));
  const auto port = serve.port();
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  EXPECT_EQ(run_cli({"run", "--reference", "--suite", "rdmap", "--time-scale", "0.25", "-q", "--publish", url,
                     "--publish-token", kToken}),
            0);
  const json runs = get(port, "/api/runs").j()["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["source"], "cli");
  EXPECT_EQ(runs[0]["status"], "done");
  EXPECT_GT(runs[0]["total"], 20);
  EXPECT_EQ(runs[0]["summary"]["pass"], runs[0]["total"]);
  EXPECT_EQ(runs[0]["config"]["suites"][0], "rdmap");
  // A run with a fault: the diff against the clean one names what broke.
  EXPECT_EQ(run_cli({"run", "--reference", "--fault", "terminate-wrong-code", "--suite", "rdmap", "--time-scale", "0.25",
                     "-q", "--publish", url, "--token", kToken}),
            1);
  const json d = get(port, "/api/diff?a=1&b=2").j();
  EXPECT_FALSE(d["new_failures"].empty()) << d.dump();
  EXPECT_TRUE(d["fixed"].empty());
  // By findings: the fault's causes are new, nothing was there before.
  EXPECT_FALSE(d["findings"]["new"].empty()) << d["findings"].dump();
  EXPECT_TRUE(d["findings"]["still"].empty());
  EXPECT_TRUE(d["findings"]["fixed"].empty());
  const json back = get(port, "/api/diff?a=2&b=1").j();
  EXPECT_EQ(back["findings"]["fixed"].size(), d["findings"]["new"].size()) << "the other way, each is fixed";
  EXPECT_TRUE(back["findings"]["new"].empty());
  // A wrong token: the CLI says so and stops before running.
  EXPECT_EQ(run_cli({"run", "--reference", "--suite", "rdmap", "-q", "--publish", url, "--publish-token", "nope"}), 2);
  EXPECT_EQ(get(port, "/api/runs").j()["runs"].size(), 2u);
}

TEST(DashboardServer, CapturesAreAnalyzedPerConnection) {
  ServeProcess serve(temp_db("captures"));
  const auto port = serve.port();
  std::ifstream f(RDMACONF_BAD_KEY_CAPTURE, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string pcap = ss.str();
  ASSERT_GT(pcap.size(), 100u);
  EXPECT_EQ(request(port, bhttp::verb::post, "/api/captures?name=x.pcap", "", pcap).status, 401);
  EXPECT_EQ(request(port, bhttp::verb::post, "/api/captures", kToken, std::string(1000, 'x')).status, 422);
  EXPECT_EQ(request(port, bhttp::verb::post, "/api/captures", kToken, "", 17 * 1024 * 1024).status, 413);
  const Reply up = request(port, bhttp::verb::post, "/api/captures?name=%3Cb%3Ebad-key.pcap", kToken, pcap);
  ASSERT_EQ(up.status, 201) << up.body;
  const json c = get(port, "/api/captures/" + std::to_string(up.j()["id"].get<int>())).j();
  EXPECT_EQ(c["name"], "<b>bad-key.pcap") << "stored as given; the page shows it as text";
  EXPECT_EQ(c["summary"]["must_violations"], 1);
  ASSERT_EQ(c["connections"].size(), 1u);
  ASSERT_EQ(c["connections"][0]["violations"].size(), 1u);
  EXPECT_EQ(c["connections"][0]["violations"][0]["rule"], "rfc5044-7.1.1-key-reply");
  EXPECT_TRUE(c["connections"][0]["messages"].empty()) << "the only message is the broken Request";
  const Reply annotated = get(port, "/api/captures/" + std::to_string(c["id"].get<int>()) + "/annotated.pcapng");
  EXPECT_EQ(annotated.status, 200);
  EXPECT_EQ(annotated.body.substr(0, 4), std::string("\x0a\x0d\x0d\x0a", 4)) << "a pcapng Section Header Block";
  EXPECT_EQ(get(port, "/api/captures").j()["captures"].size(), 1u);
}

}  // namespace

namespace {

TEST(DashboardServer, CoverageShowsTheLastVerdictPerTarget) {
  ServeProcess serve(temp_db("coverage"));
  const auto port = serve.port();
  Events events(port);
  const std::int64_t id = post(port, "/api/runs", {{"reference", true}, {"suites", {"mpa"}}, {"time_scale", 0.25}}).j()["id"];
  ASSERT_TRUE(events.until([&](const json& e) { return run_ended(e, id); }));
  const json cov = get(port, "/api/coverage").j();
  ASSERT_EQ(cov["targets"].size(), 1u);
  EXPECT_EQ(cov["targets"][0]["target"], "built-in reference IUT");
  EXPECT_GT(cov["totals"]["rows"], 100);
  EXPECT_GT(cov["totals"]["with_cases"], 50);
  bool mpa_pass = false, ddp_unrun = false;
  for (const json& r : cov["requirements"]) {
    if (r["cases"].empty()) continue;
    if (r["id"].get<std::string>().starts_with("rfc5044-") && r["verdicts"][0] == "pass") mpa_pass = true;
    if (r["id"].get<std::string>().starts_with("rfc5041-") && r["verdicts"][0].is_null()) ddp_unrun = true;
  }
  EXPECT_TRUE(mpa_pass) << "an MPA row the run covered shows its pass";
  // Level and observability in the registry's own words (requirements::name),
  // not in a copy of them.
  std::set<std::string> observabilities;
  for (const json& r : cov["requirements"]) {
    const requirements::Requirement* row = requirements::find(r["id"].get<std::string>());
    ASSERT_NE(row, nullptr) << r["id"];
    EXPECT_EQ(r["level"], std::string(requirements::name(row->level))) << r["id"];
    EXPECT_EQ(r["observable"], std::string(requirements::name(row->observable))) << r["id"];
    observabilities.insert(r["observable"].get<std::string>());
  }
  EXPECT_EQ(observabilities.size(), 3u) << "rows of every kind of observability";
  EXPECT_TRUE(ddp_unrun) << "a DDP row the mpa-only run did not reach shows no verdict";
  // A row only a capture case names (RFC 8166's, RFC 7145's: the live tester
  // cannot make its peer run NFS or iSER) has that case; the observable rows
  // without a case are the ones `rdmaconf requirements` lists.
  std::size_t capture_only = 0;
  for (const json& r : cov["requirements"])
    capture_only += r["cases"].size() == 1 && r["cases"][0].get<std::string>().starts_with("capture-");
  EXPECT_GT(capture_only, 0u) << "rows named by a capture case alone show it";
  std::FILE* p = ::popen((std::string(RDMACONF_EXE) + " requirements --json - 2>/dev/null").c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  ::pclose(p);
  const json trace = json::parse(out, nullptr, false);
  ASSERT_TRUE(trace.contains("observable_rows_without_case")) << out.substr(0, 200);
  EXPECT_EQ(cov["totals"]["observable_without_cases"], trace["observable_rows_without_case"].size());
  std::size_t listed_uncovered = 0;
  for (const json& r : cov["requirements"]) listed_uncovered += r["cases"].empty() && r["observable"] != "not observable";
  EXPECT_EQ(cov["totals"]["observable_without_cases"], listed_uncovered) << "the page's filter shows the rows counted";
}

}  // namespace

namespace {

json published_case(const std::string& id, const std::string& verdict, const std::string& reason) {
  return {{"id", id},          {"verdict", verdict}, {"protocol", "rdmap"}, {"level", "MUST"}, {"rfc", "RFC 5040 §7"},
          {"title", "t"},      {"reason", reason},   {"requirements", json::array()},      {"frames", json::array()}};
}

std::int64_t publish(std::uint16_t port, const std::string& target, const json& identity, const json& cases) {
  const Reply r = post(port, "/api/runs", {{"publish", {{"target", target}, {"config", json::object()}, {"identity", identity}}}});
  EXPECT_EQ(r.status, 201) << r.body;
  const std::int64_t id = r.j().value("id", 0);
  EXPECT_EQ(post(port, "/api/runs/" + std::to_string(id) + "/cases", {{"cases", cases}}).status, 200);
  return id;
}

// A lab's baseline: marking one needs the token like every change; later
// runs of the same target have their failing cases and findings known or
// new. The target and a label are markup: they come back as the same
// strings, as JSON.
TEST(DashboardServer, BaselinesNeedTheTokenAndMarkCasesKnownOrNew) {
  ServeProcess serve(temp_db("baseline"));
  const auto port = serve.port();
  const std::string evil = "<img src=x onerror=\"alert(1)\"></script>'&";
  const json identity = {{"version", "9.9"}, {"labels", {{"dut", evil}}}, {"command_line", {"rdmaconf", "run"}}};
  const std::int64_t first = publish(port, evil, identity,
                                     {published_case("rdmap-a", "fail", "code 3"), published_case("rdmap-b", "pass", "")});
  const std::string path = "/api/runs/" + std::to_string(first) + "/baseline";
  EXPECT_EQ(get(port, "/api/runs/" + std::to_string(first)).j()["identity"]["labels"]["dut"], evil)
      << "the identity of the start request";
  EXPECT_EQ(request(port, bhttp::verb::put, path).status, 401);
  EXPECT_EQ(request(port, bhttp::verb::put, path, "wrong").status, 401);
  EXPECT_EQ(request(port, bhttp::verb::put, path, kToken).status, 409) << "a running run is no baseline";
  EXPECT_EQ(post(port, "/api/runs/" + std::to_string(first) + "/finish", {{"status", "done"}}).status, 200);
  EXPECT_EQ(get(port, "/api/baselines").j()["baselines"], json::array()) << "nothing refused was recorded";
  EXPECT_EQ(request(port, bhttp::verb::get, path).status, 405);
  EXPECT_EQ(request(port, bhttp::verb::put, "/api/runs/999/baseline", kToken).status, 404);
  const Reply marked = request(port, bhttp::verb::put, path, kToken);
  ASSERT_EQ(marked.status, 200) << marked.body;
  EXPECT_EQ(marked.j()["target"], evil);
  const Reply listed = get(port, "/api/baselines");
  EXPECT_EQ(listed.content_type.rfind("application/json", 0), 0u) << listed.content_type;
  ASSERT_EQ(listed.j()["baselines"].size(), 1u);
  EXPECT_EQ(listed.j()["baselines"][0]["target"], evil);
  EXPECT_EQ(listed.j()["baselines"][0]["run"], first);

  // The same failure again (known), a new one, and a case the baseline did not have.
  const std::int64_t second = publish(port, evil, identity,
                                      {published_case("rdmap-a", "fail", "code 3"), published_case("rdmap-b", "fail", "no Reply"),
                                       published_case("rdmap-c", "pass", "")});
  ASSERT_EQ(post(port, "/api/runs/" + std::to_string(second) + "/finish", {{"status", "done"}}).status, 200);
  const json run = get(port, "/api/runs/" + std::to_string(second)).j();
  EXPECT_EQ(run["baseline_run"], first);
  EXPECT_EQ(run["baseline"]["run"], first);
  EXPECT_EQ(run["baseline"]["known_cases"], 1);
  EXPECT_EQ(run["baseline"]["new_cases"], 1);
  EXPECT_EQ(run["cases"][0]["baseline"], "known");
  EXPECT_EQ(run["cases"][1]["baseline"], "new");
  EXPECT_FALSE(run["cases"][2].contains("baseline"));
  ASSERT_EQ(run["findings"].size(), 2u);
  for (const json& f : run["findings"]) EXPECT_EQ(f["baseline"], f["cases"][0]["id"] == "rdmap-a" ? "known" : "new") << f.dump();
  EXPECT_EQ(run["finding_count"], 2) << "grouped when the run ended";
  EXPECT_EQ(run["identity"]["labels"]["dut"], evil);
  const json own = get(port, "/api/runs/" + std::to_string(first)).j();
  EXPECT_EQ(own["baseline_run"], first);
  EXPECT_TRUE(own["baseline"].is_null()) << "the baseline is compared with nothing";

  // Unmarking: only the baseline itself, with the token.
  EXPECT_EQ(request(port, bhttp::verb::delete_, "/api/runs/" + std::to_string(second) + "/baseline", kToken).status, 404);
  EXPECT_EQ(request(port, bhttp::verb::delete_, path).status, 401);
  EXPECT_EQ(request(port, bhttp::verb::delete_, path, kToken).status, 200);
  const json after = get(port, "/api/runs/" + std::to_string(second)).j();
  EXPECT_TRUE(after["baseline_run"].is_null());
  EXPECT_TRUE(after["baseline"].is_null());
  EXPECT_FALSE(after["cases"][0].contains("baseline"));
  // A published identity is checked like a case.
  EXPECT_EQ(post(port, "/api/runs", {{"publish", {{"target", "t"}, {"identity", {{"labels", {{"k", 1}}}}}}}}).status, 400);
}

// A command-line run's findings on the dashboard are the report's own: the
// same causes, ids and cases as its results.json, and its identity.
TEST(DashboardServer, FindingsOfAPublishedRunAreTheReportsOwn) {
  ServeProcess serve(temp_db("findings"));
  const auto port = serve.port();
  const std::string report = ::testing::TempDir() + "rdmaconf-published-" + std::to_string(::getpid()) + ".json";
  EXPECT_EQ(run_cli({"run", "--reference", "--fault", "terminate-le-bitfield", "--suite", "rdmap", "--time-scale", "0.25", "-q",
                     "--label", "fw=1.2.3", "--json", report, "--publish", "http://127.0.0.1:" + std::to_string(port),
                     "--publish-token", kToken}),
            1);
  std::ifstream f(report);
  const json cli = json::parse(f);
  const json found = get(port, "/api/runs/1/findings").j();
  ASSERT_FALSE(cli["findings"].empty());
  ASSERT_EQ(found["findings"].size(), cli["findings"].size()) << found.dump().substr(0, 2000);
  for (std::size_t k = 0; k < cli["findings"].size(); ++k) {
    const json& want = cli["findings"][k];
    const json& have = found["findings"][k];
    // Titles and examples come from a finding's first case: the dashboard
    // has the cases in the order they ended, the report in the catalogue's.
    EXPECT_EQ(have["id"], want["id"]);
    EXPECT_EQ(have["key"], want["key"]);
    EXPECT_EQ(have["level"], want["level"]);
    EXPECT_EQ(have["verdict"], want["verdict"]);
    EXPECT_EQ(have["cases"].size(), want["cases"].size());
    EXPECT_NE(have["reproducer"].get<std::string>().find("--fault terminate-le-bitfield"), std::string::npos);
  }
  const json run = get(port, "/api/runs/1").j();
  EXPECT_EQ(run["identity"]["labels"]["fw"], "1.2.3");
  EXPECT_EQ(run["identity"]["version"], cli["run"]["version"]);
  EXPECT_EQ(run["identity"]["catalogue"], cli["run"]["catalogue"]);
  EXPECT_EQ(run["identity"]["command_line"], cli["run"]["command_line"]);
  EXPECT_FALSE(run["identity"]["finished_at"].get<std::string>().empty()) << "the end repeats the identity";
  EXPECT_EQ(run["finding_count"], cli["findings"].size());
  std::size_t in_findings = 0;
  for (const json& c : run["cases"]) in_findings += !c["findings"].empty();
  EXPECT_EQ(in_findings, run["summary"]["fail"].get<std::size_t>()) << "every failing case links its finding";
  // A failing case keeps the report's record of its failure and its octets:
  // one whose failing step the report names (a case can also fail only by a
  // rule broken in passing, which has no failing step; which one fails first
  // depends on timing).
  const auto has_failure = [&cli](const json& row) {
    for (const json& c : cli["cases"])
      if (c["id"] == row["id"] && c["configuration"] == row["configuration"]) return c["failure"].is_object();
    return false;
  };
  const auto row = std::find_if(run["cases"].begin(), run["cases"].end(),
                                [&](const json& c) { return c["verdict"] == "fail" && has_failure(c); });
  ASSERT_NE(row, run["cases"].end());
  const json failing = get(port, "/api/runs/1/cases/" + std::to_string((*row)["seq"].get<int>())).j();
  for (const json& c : cli["cases"])
    if (c["id"] == failing["id"] && c["configuration"] == failing["configuration"]) {
      EXPECT_EQ(failing["failure"], c["failure"]);
      EXPECT_EQ(failing["findings"], c["findings"]);
    }
  EXPECT_TRUE(failing["failure"].is_object()) << failing.dump().substr(0, 1000);
  EXPECT_FALSE(failing["exchange"]["chunks"].empty());
}

}  // namespace
