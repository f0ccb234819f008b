// The dashboard's history: one SQLite file (schema in store.cpp, upgraded
// in place through PRAGMA user_version). Every change is one transaction,
// so a server killed at any moment keeps every case it has acknowledged.
// One connection, one mutex: calls come from the HTTP threads and the run
// worker.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

struct sqlite3;

namespace rdmaconf::dashboard {

// queued -> running -> done | cancelled | failed; a run the server was
// killed under is interrupted at the next start.
struct RunRow {
  std::int64_t id = 0;
  std::string created_at, started_at, finished_at;  // ISO 8601 UTC, empty when not yet
  std::string status, source;                       // source: "dashboard" or "cli"
  std::string target;                               // what was tested, in words
  nlohmann::json config = nlohmann::json::object();  // the start request
  nlohmann::json capabilities = nullptr;             // of the agent, when one was used
  nlohmann::json skipped = nlohmann::json::array();
  std::string message;                               // why it failed, or was cancelled
  std::int64_t duration_ms = 0;
  std::map<std::string, std::int64_t> counts;        // verdict -> cases
  // What the run says about itself (conformance::identity_json's shape),
  // null for a run stored before identities were.
  nlohmann::json identity = nullptr;
  std::int64_t findings = -1;                        // findings when it ended; -1 not known
  nlohmann::json to_json() const;
};

class Store {
 public:
  // Opens (creating) the file and brings its schema to the current version.
  static std::unique_ptr<Store> open(const std::string& path, std::string& error);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  static constexpr int kSchemaVersion = 3;
  int schema_version();

  std::int64_t create_run(const std::string& source, const std::string& status, const std::string& target,
                          const nlohmann::json& config);
  void set_running(std::int64_t id, const std::string& target, const nlohmann::json& capabilities);
  // Ends a run: status, why, how long, what was skipped.
  void finish_run(std::int64_t id, const std::string& status, const std::string& message, std::int64_t duration_ms,
                  const nlohmann::json& skipped);
  // Appends checked cases (case_json.hpp) in one transaction, numbered on
  // from the run's last; the first one's number, 0 if the run is unknown.
  std::int64_t add_cases(std::int64_t id, const std::vector<nlohmann::json>& cases);
  void set_identity(std::int64_t id, const nlohmann::json& identity);
  // The run's findings as grouped when it ended (a list of
  // conformance::finding_json objects); null when never set.
  void set_findings(std::int64_t id, const nlohmann::json& findings);
  nlohmann::json findings(std::int64_t id);
  // Marks every queued or running run interrupted (a server start after a
  // kill); returns how many.
  int interrupt_unfinished(const std::string& why);

  std::vector<RunRow> list_runs(std::size_t limit, std::int64_t before_id = 0);
  std::optional<RunRow> run(std::int64_t id);
  // (target, id of its latest run that ran cases), newest first.
  std::vector<std::pair<std::string, std::int64_t>> latest_run_per_target(std::size_t limit);
  // The run's cases without frames and agent events, in arrival order.
  nlohmann::json cases(std::int64_t id);
  // One case with everything (seq is its number within the run, from 1).
  std::optional<nlohmann::json> case_detail(std::int64_t id, std::int64_t seq);
  // Every case of the run as stored (the JSON text of each), in seq order.
  std::vector<std::string> case_texts(std::int64_t id);

  // Per target, the run later runs of it are compared with: set (replacing
  // the one before), cleared when it is that run, looked up, listed.
  void set_baseline(const std::string& target, std::int64_t run_id);
  bool clear_baseline(const std::string& target, std::int64_t run_id);
  std::optional<std::int64_t> baseline_of(const std::string& target);
  nlohmann::json baselines();

  // Uploaded captures (captures.hpp): the analysis and the annotated pcapng.
  std::int64_t add_capture(const std::string& name, std::size_t size, const nlohmann::json& result,
                           const std::string& annotated);
  nlohmann::json list_captures(std::size_t limit);
  std::optional<nlohmann::json> capture(std::int64_t id);
  std::optional<std::string> capture_annotated(std::int64_t id);

 private:
  explicit Store(sqlite3* db) : db_(db) {}
  bool migrate(std::string& error);
  sqlite3* db_;
  std::mutex mu_;
};

}  // namespace rdmaconf::dashboard
