// The lab dashboard's service (docs/dashboard.md): the JSON API under /api/,
// the live event stream, the built-in page, and the run queue. Sockets are
// the shared Beast server's (conformance/http/); running a run is the
// Runner's (given by `rdmaconf serve`, so this library needs no CLI).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "dashboard/events.hpp"
#include "dashboard/fuzz_runs.hpp"
#include "http_service.hpp"
#include "dashboard/run_request.hpp"
#include "dashboard/store.hpp"
#include "report/report.hpp"

namespace rdmaconf::dashboard {

struct Limits {
  std::size_t max_body = 64 * 1024;             // POST bodies but the two below
  std::size_t max_cases_body = 8 * 1024 * 1024;  // POST /api/runs/N/cases (a published batch)
  std::size_t max_capture_body = 16 * 1024 * 1024;  // POST /api/captures
  std::size_t max_target = 2048;
  std::size_t max_json_depth = 16;
  std::size_t max_queue = 64;                   // queued runs; more -> 429
  std::size_t event_buffer = 20000;
};

// What the runner gets for one queued run.
struct RunContext {
  std::int64_t id = 0;
  nlohmann::json request;  // the checked start request, token included
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const std::string& target, const nlohmann::json& capabilities)> started;
  std::function<void(const nlohmann::json& c)> case_done;  // a result_json() object
  // What the run says about itself (conformance::identity_json), as soon as
  // it is known and again when it grows (the end time): stored and shown.
  std::function<void(const nlohmann::json& identity)> identified;
};
struct RunEnd {
  std::string status = "done";  // done, cancelled or failed
  std::string message;
  std::int64_t duration_ms = 0;
  nlohmann::json skipped = nlohmann::json::array();
};
using Runner = std::function<RunEnd(RunContext&)>;

// Two runs' cases -> what changed (GET /api/diff).
nlohmann::json diff_runs(const nlohmann::json& a_cases, const nlohmann::json& b_cases);

struct Catalogue {
  nlohmann::json cases = nlohmann::json::array();   // id, protocol, level, title, rfc, requirements, role
  std::function<std::optional<std::string>(const std::string& id)> script;  // a case's script text
  // Per registry row the cases naming it, capture cases included
  // (conformance::cases_per_row): what the coverage page lists and counts,
  // as `rdmaconf requirements` counts it.
  conformance::CasesPerRow cases_per_row;
};

class Dashboard : public http::Service {
 public:
  Dashboard(Store& store, std::string token, Runner runner, Catalogue catalogue, Limits limits = {});
  ~Dashboard() override;

  http::Response handle(const http::Request& r) override;
  std::size_t body_limit(std::string_view method, std::string_view target) const override;
  std::unique_ptr<http::Stream> open_stream(const http::Request& r, http::Response& refusal) override;
  void close_streams() override;
  void set_stream_wake(std::function<void()> wake) override;

  // Names besides IP literals and localhost that requests may carry in Host
  // (and WebSocket upgrades in Origin); "*" any (http::host_allowed). Set
  // before the server starts.
  void allow_hosts(std::vector<std::string> names) { allowed_hosts_ = std::move(names); }

  // Fuzz runs from the page (/api/fuzz, fuzz_runs.hpp), their findings'
  // folders under `dir`. Set before the server starts; without it
  // /api/fuzz answers 404.
  void enable_fuzz(FuzzRunner runner, std::string dir) { fuzz_ = std::make_unique<FuzzRuns>(std::move(runner), std::move(dir)); }

  // Ends the worker: the run under way is cancelled and waited for, and
  // so is a fuzz run.
  void stop();
  MessageLog& events() { return events_; }

 private:
  http::Response api(const http::Request& r, std::string_view path, std::string_view query);
  std::optional<http::Response> read_api(const std::vector<std::string_view>& seg, std::string_view query, bool get);
  http::Response diff(std::string_view query);
  http::Response captures_api(const http::Request& r, const std::vector<std::string_view>& seg, std::string_view query);
  std::optional<http::Response> runs_api(const http::Request& r, const std::vector<std::string_view>& seg,
                                         std::string_view query, const nlohmann::json& body);
  http::Response start_run(const nlohmann::json& body);
  http::Response publish_cases(std::int64_t id, const nlohmann::json& body);
  http::Response publish_finish(std::int64_t id, const nlohmann::json& body);
  http::Response cancel_run(std::int64_t id);
  http::Response mark_baseline(std::int64_t id, bool set);
  http::Response run_findings(std::int64_t id, bool with_cases);
  // Adds the run's findings, its target's baseline and the comparison with
  // it (run_findings.hpp) to the run's JSON.
  void add_run_findings(const RunRow& row, nlohmann::json& j);
  // Groups a run that ended and stores its findings (Store::set_findings).
  void store_findings(std::int64_t id);
  nlohmann::json coverage();
  http::Response upload_capture(std::string_view query, const std::string& octets);
  void announce_run(std::int64_t id);
  void announce_cases(std::int64_t id, std::int64_t first_seq, const std::vector<nlohmann::json>& cases);
  void worker();

  Store& store_;
  std::string token_;
  Runner runner_;
  Catalogue catalogue_;
  Limits limits_;
  std::vector<std::string> allowed_hosts_;
  MessageLog events_;

  struct Queued {
    std::int64_t id;
    nlohmann::json request;
  };
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Queued> queue_;
  std::int64_t current_ = 0;  // the run under way, 0 when none
  std::atomic<bool> cancel_current_{false};
  bool stopping_ = false;
  std::mutex publish_mu_;  // publish batches of one run arrive in order
  std::unique_ptr<FuzzRuns> fuzz_;
  std::thread thread_;
};

}  // namespace rdmaconf::dashboard
