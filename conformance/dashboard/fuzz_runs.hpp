// Fuzz runs started from the page (docs/dashboard.md, "Fuzzing"): POST
// /api/fuzz starts one (the token, bounded parameters), GET /api/fuzz and
// /api/fuzz/N show their progress and findings (each finding's signature,
// its case script as text, its captures), GET
// /api/fuzz/N/findings/K/captures/NAME serves one of a finding's captures,
// POST /api/fuzz/N/cancel ends one. Running one is the FuzzRunner's (given
// by `rdmaconf serve`: the same engine as `rdmaconf fuzz`, in process), one
// at a time on a thread of its own, beside the run queue. Fuzz runs live as
// long as the service (the last kKeep of them); their findings' folders stay
// on disk under the directory it was given.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "http_service.hpp"

namespace rdmaconf::dashboard {

struct FuzzContext {
  std::int64_t id = 0;
  nlohmann::json request;  // checked (checked_fuzz_request), the agent's token included
  std::string out_dir;     // one folder per finding goes here
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const nlohmann::json& progress)> progress;  // iterations, skipped, findings, seconds ...
  // A finding as the fuzz summary's JSON has it (docs/schema/fuzz.schema.json, findings[]).
  std::function<void(const nlohmann::json& finding)> finding;
};
struct FuzzEnd {
  std::string status = "done";  // done, cancelled or failed
  std::string message;          // why it stopped, or why it failed
};
using FuzzRunner = std::function<FuzzEnd(FuzzContext&)>;

// Checks a start request (what `rdmaconf fuzz` takes, bounded); the checked
// copy, or null with `error`.
nlohmann::json checked_fuzz_request(const nlohmann::json& j, std::string& error);

class FuzzRuns {
 public:
  static constexpr std::size_t kKeep = 16;

  FuzzRuns(FuzzRunner runner, std::string dir);
  ~FuzzRuns();

  // /api/fuzz... (seg[0] "api", seg[1] "fuzz"); the token was checked for
  // anything but GET, and `body` is the request's JSON object.
  http::Response api(std::string_view method, const std::vector<std::string_view>& seg, const nlohmann::json& body);
  // Cancels the run under way and waits for it.
  void stop();

 private:
  struct Run {
    std::int64_t id = 0;
    std::string status = "running";  // running, done, cancelled, failed
    std::string message;
    nlohmann::json request;          // as shown: without the agent's token
    nlohmann::json progress = nlohmann::json::object();
    std::vector<nlohmann::json> findings;
    std::vector<std::vector<std::string>> captures;  // per finding, the capture files in its folder
    std::string dir;
  };
  http::Response start(const nlohmann::json& body);
  http::Response capture(std::int64_t id, std::int64_t finding, std::string_view name);
  nlohmann::json run_json(const Run& r, bool whole) const;
  Run* find(std::int64_t id);

  FuzzRunner runner_;
  std::string dir_;
  std::mutex mu_;
  std::vector<Run> runs_;  // oldest first, at most kKeep
  std::int64_t next_id_ = 1;
  bool running_ = false;
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

}  // namespace rdmaconf::dashboard
