// `rdmaconf run --publish URL`: the run appears on a dashboard (`rdmaconf
// serve`, docs/dashboard.md) while it goes. The run is created first, cases
// are sent in batches from a thread of their own (a slow dashboard never
// slows the cases), the end is said last. The CLI works the same without it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "agent/client.hpp"
#include "engine/engine.hpp"
#include "report/report.hpp"

namespace rdmaconf::cli {

struct RunArgs;
// The run's configuration as the dashboard shows it (never a token).
nlohmann::json publish_config(const RunArgs& a);

class Publisher {
 public:
  Publisher(std::string url, std::string token);
  ~Publisher();
  Publisher(const Publisher&) = delete;
  Publisher& operator=(const Publisher&) = delete;

  // Creates the run on the dashboard with what the run says about itself
  // (its identity; the end repeats it with the end time); false with
  // `error` when it refused or cannot be reached.
  bool open(const std::string& target, const nlohmann::json& config, const nlohmann::json& capabilities,
            const conformance::RunIdentity& identity, std::string& error);
  std::int64_t run_id() const { return run_id_; }
  void add(const conformance::CaseResult& r);
  // Sends what is left and ends the run; false when a batch or the end
  // could not be delivered.
  bool finish(const std::string& status, const std::string& message, const conformance::RunInfo& info, std::string& error);

 private:
  void loop();
  bool flush(std::vector<nlohmann::json>& batch);

  std::string url_, token_;
  std::unique_ptr<agent::AgentClient> client_;
  std::int64_t run_id_ = 0;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<nlohmann::json> pending_;
  bool closing_ = false;
  std::string error_;  // the first delivery error
  std::thread thread_;
};

}  // namespace rdmaconf::cli
