// The SQLite history (store.hpp).
#include "dashboard/store.hpp"

#include <sqlite3.h>

#include <chrono>
#include <ctime>
#include <stdexcept>

#include "dashboard/case_json.hpp"

namespace rdmaconf::dashboard {

using nlohmann::json;

namespace {

// Schema steps: migrations[i] takes user_version i to i + 1. A file written
// by an older build is upgraded in place; steps are never edited, only added.
const char* const kMigrations[] = {
    // 1: runs and their cases. Verdict counts live on the run row (updated
    // in the transaction that adds the cases) so the history list is one
    // indexed scan, however many cases the runs hold.
    R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at TEXT NOT NULL,
  started_at TEXT NOT NULL DEFAULT '',
  finished_at TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  source TEXT NOT NULL,
  target TEXT NOT NULL DEFAULT '',
  config TEXT NOT NULL DEFAULT '{}',
  capabilities TEXT NOT NULL DEFAULT 'null',
  skipped TEXT NOT NULL DEFAULT '[]',
  message TEXT NOT NULL DEFAULT '',
  duration_ms INTEGER NOT NULL DEFAULT 0,
  n_pass INTEGER NOT NULL DEFAULT 0,
  n_non_strict INTEGER NOT NULL DEFAULT 0,
  n_informational INTEGER NOT NULL DEFAULT 0,
  n_unimplemented INTEGER NOT NULL DEFAULT 0,
  n_fail INTEGER NOT NULL DEFAULT 0,
  n_error INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE cases (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  case_id TEXT NOT NULL,
  configuration TEXT NOT NULL,
  protocol TEXT NOT NULL,
  level TEXT NOT NULL,
  verdict TEXT NOT NULL,
  rfc TEXT NOT NULL,
  requirements TEXT NOT NULL,
  title TEXT NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
)sql",
    // 2: uploaded captures with their analysis and the annotated pcapng.
    R"sql(
CREATE TABLE captures (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  uploaded_at TEXT NOT NULL,
  size INTEGER NOT NULL,
  violations INTEGER NOT NULL,
  must_violations INTEGER NOT NULL,
  result TEXT NOT NULL,
  annotated BLOB
);
)sql",
    // 3: what a report says about its run (identity: version, commit,
    // catalogue, times, command line, IUT, labels), the run's findings as
    // they were grouped when it ended (n_findings -1: not yet), and per
    // target the run its later runs are compared with.
    R"sql(
ALTER TABLE runs ADD COLUMN identity TEXT NOT NULL DEFAULT 'null';
ALTER TABLE runs ADD COLUMN findings TEXT NOT NULL DEFAULT 'null';
ALTER TABLE runs ADD COLUMN n_findings INTEGER NOT NULL DEFAULT -1;
CREATE TABLE baselines (
  target TEXT PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  set_at TEXT NOT NULL
) WITHOUT ROWID;
)sql",
};
static_assert(std::size(kMigrations) == Store::kSchemaVersion);

const char* const kCountColumns[] = {"n_pass", "n_non_strict", "n_informational", "n_unimplemented", "n_fail", "n_error"};

std::string now_iso() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A prepared statement, finalized on scope exit.
class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &s_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(db));
  }
  ~Stmt() { sqlite3_finalize(s_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(s_, i, v);
    return *this;
  }
  Stmt& bind(int i, const std::string& v) {
    sqlite3_bind_text(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Stmt& blob(int i, const std::string& v) {
    sqlite3_bind_blob(s_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  std::string column_blob(int col) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(s_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, col))) : std::string();
  }
  bool step() {
    const int rc = sqlite3_step(s_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) throw std::runtime_error(std::string("sqlite: ") + sqlite3_errmsg(sqlite3_db_handle(s_)));
    return false;
  }
  void reset() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  std::int64_t i64(int col) { return sqlite3_column_int64(s_, col); }
  std::string text(int col) {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(s_, col))) : std::string();
  }

 private:
  sqlite3_stmt* s_ = nullptr;
};

void exec(sqlite3* db, const char* sql) {
  char* msg = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    std::string m = msg ? msg : "unknown error";
    sqlite3_free(msg);
    throw std::runtime_error("sqlite: " + m);
  }
}

// BEGIN IMMEDIATE ... COMMIT, rolled back when the scope is left by an exception.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { exec(db_, "BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, "COMMIT");
    done_ = true;
  }

 private:
  sqlite3* db_;
  bool done_ = false;
};

json parse_or(const std::string& s, json fallback) {
  json j = json::parse(s, nullptr, false);
  return j.is_discarded() ? fallback : j;
}

const char* const kRunColumns =
    "id, created_at, started_at, finished_at, status, source, target, config, capabilities, skipped, message, "
    "duration_ms, n_pass, n_non_strict, n_informational, n_unimplemented, n_fail, n_error, identity, n_findings";

RunRow read_run(Stmt& s) {
  RunRow r;
  r.id = s.i64(0);
  r.created_at = s.text(1);
  r.started_at = s.text(2);
  r.finished_at = s.text(3);
  r.status = s.text(4);
  r.source = s.text(5);
  r.target = s.text(6);
  r.config = parse_or(s.text(7), json::object());
  r.capabilities = parse_or(s.text(8), nullptr);
  r.skipped = parse_or(s.text(9), json::array());
  r.message = s.text(10);
  r.duration_ms = s.i64(11);
  for (int k = 0; k < 6; ++k) r.counts[kVerdicts[k]] = s.i64(12 + k);
  r.identity = parse_or(s.text(18), nullptr);
  r.findings = s.i64(19);
  return r;
}

}  // namespace

json RunRow::to_json() const {
  json c = json::object();
  std::int64_t total = 0;
  for (const auto& [v, n] : counts) {
    c[v] = n;
    total += n;
  }
  return {{"id", id},           {"created_at", created_at}, {"started_at", started_at}, {"finished_at", finished_at},
          {"status", status},   {"source", source},         {"target", target},         {"config", config},
          {"capabilities", capabilities}, {"skipped", skipped}, {"message", message},  {"duration_ms", duration_ms},
          {"summary", c},       {"total", total},               {"identity", identity},
          {"finding_count", findings < 0 ? json() : json(findings)}};
}

std::unique_ptr<Store> Store::open(const std::string& path, std::string& error) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr) !=
      SQLITE_OK) {
    error = "cannot open the database " + path + ": " + (db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return nullptr;
  }
  std::unique_ptr<Store> s(new Store(db));
  sqlite3_busy_timeout(db, 5000);
  try {
    // WAL: readers (the HTTP threads) never wait for the run worker's
    // writes. A committed transaction survives the process being killed;
    // synchronous=NORMAL may lose the last ones only on power loss.
    exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
  } catch (const std::exception& e) {
    error = "database " + path + ": " + e.what();
    return nullptr;
  }
  if (!s->migrate(error)) {
    error = "database " + path + ": " + error;
    return nullptr;
  }
  return s;
}

Store::~Store() { sqlite3_close(db_); }

int Store::schema_version() {
  std::lock_guard lock(mu_);
  Stmt s(db_, "PRAGMA user_version");
  return s.step() ? static_cast<int>(s.i64(0)) : 0;
}

bool Store::migrate(std::string& error) {
  try {
    Transaction t(db_);
    int version = 0;
    {
      Stmt s(db_, "PRAGMA user_version");
      if (s.step()) version = static_cast<int>(s.i64(0));
    }
    if (version > kSchemaVersion) {
      error = "schema version " + std::to_string(version) + " is newer than this build's (" +
              std::to_string(kSchemaVersion) + ")";
      return false;
    }
    for (; version < kSchemaVersion; ++version) exec(db_, kMigrations[version]);
    exec(db_, ("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
    t.commit();
    return true;
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
}

std::int64_t Store::create_run(const std::string& source, const std::string& status, const std::string& target,
                               const json& config) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "INSERT INTO runs (created_at, status, source, target, config) VALUES (?, ?, ?, ?, ?)");
  s.bind(1, now_iso()).bind(2, status).bind(3, source).bind(4, target).bind(5, config.dump());
  s.step();
  return sqlite3_last_insert_rowid(db_);
}

void Store::set_running(std::int64_t id, const std::string& target, const json& capabilities) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "UPDATE runs SET status = 'running', started_at = ?, target = ?, capabilities = ? WHERE id = ?");
  s.bind(1, now_iso()).bind(2, target).bind(3, capabilities.dump()).bind(4, id);
  s.step();
}

void Store::finish_run(std::int64_t id, const std::string& status, const std::string& message, std::int64_t duration_ms,
                       const json& skipped) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "UPDATE runs SET status = ?, message = ?, duration_ms = ?, skipped = ?, finished_at = ?, "
         "started_at = CASE started_at WHEN '' THEN ? ELSE started_at END WHERE id = ?");
  const std::string now = now_iso();
  s.bind(1, status).bind(2, message).bind(3, duration_ms).bind(4, skipped.dump()).bind(5, now).bind(6, now).bind(7, id);
  s.step();
}

std::int64_t Store::add_cases(std::int64_t id, const std::vector<json>& cases) {
  std::lock_guard lock(mu_);
  Transaction t(db_);
  std::int64_t seq = 0;
  {
    Stmt s(db_, "SELECT (SELECT COUNT(*) FROM runs WHERE id = ?1), COALESCE((SELECT MAX(seq) FROM cases WHERE run_id = ?1), 0)");
    s.bind(1, id);
    if (!s.step() || s.i64(0) == 0) return 0;
    seq = s.i64(1);
  }
  const std::int64_t first = seq + 1;
  std::int64_t counts[6] = {};
  Stmt one(db_,
           "INSERT INTO cases (run_id, seq, case_id, configuration, protocol, level, verdict, rfc, requirements, title, "
           "reason, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const json& c : cases) {
    one.reset();
    const std::string verdict = c.value("verdict", "");
    one.bind(1, id).bind(2, ++seq).bind(3, c.value("id", "")).bind(4, c.value("configuration", ""));
    one.bind(5, c.value("protocol", "")).bind(6, c.value("level", "")).bind(7, verdict).bind(8, c.value("rfc", ""));
    one.bind(9, c.value("requirements", json::array()).dump()).bind(10, c.value("title", "")).bind(11, c.value("reason", ""));
    one.bind(12, c.dump(-1, ' ', false, json::error_handler_t::replace));
    one.step();
    for (int k = 0; k < 6; ++k)
      if (verdict == kVerdicts[k]) ++counts[k];
  }
  std::string update = "UPDATE runs SET ";
  for (int k = 0; k < 6; ++k) update += std::string(k ? ", " : "") + kCountColumns[k] + " = " + kCountColumns[k] + " + ?" + std::to_string(k + 1);
  update += " WHERE id = ?7";
  Stmt u(db_, update.c_str());
  for (int k = 0; k < 6; ++k) u.bind(k + 1, counts[k]);
  u.bind(7, id);
  u.step();
  t.commit();
  return first;
}

void Store::set_identity(std::int64_t id, const json& identity) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "UPDATE runs SET identity = ? WHERE id = ?");
  s.bind(1, identity.dump(-1, ' ', false, json::error_handler_t::replace)).bind(2, id);
  s.step();
}

void Store::set_findings(std::int64_t id, const json& findings) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "UPDATE runs SET findings = ?, n_findings = ? WHERE id = ?");
  s.bind(1, findings.dump(-1, ' ', false, json::error_handler_t::replace))
      .bind(2, static_cast<std::int64_t>(findings.size()))
      .bind(3, id);
  s.step();
}

json Store::findings(std::int64_t id) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "SELECT findings FROM runs WHERE id = ?");
  s.bind(1, id);
  return s.step() ? parse_or(s.text(0), nullptr) : json();
}

int Store::interrupt_unfinished(const std::string& why) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "UPDATE runs SET status = 'interrupted', message = ?, finished_at = ? WHERE status IN ('queued', 'running')");
  s.bind(1, why).bind(2, now_iso());
  s.step();
  return sqlite3_changes(db_);
}

std::vector<RunRow> Store::list_runs(std::size_t limit, std::int64_t before_id) {
  std::lock_guard lock(mu_);
  const std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs WHERE (?1 = 0 OR id < ?1) ORDER BY id DESC LIMIT ?2";
  Stmt s(db_, sql.c_str());
  s.bind(1, before_id).bind(2, static_cast<std::int64_t>(limit));
  std::vector<RunRow> out;
  while (s.step()) out.push_back(read_run(s));
  return out;
}

std::optional<RunRow> Store::run(std::int64_t id) {
  std::lock_guard lock(mu_);
  const std::string sql = std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?";
  Stmt s(db_, sql.c_str());
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return read_run(s);
}

std::vector<std::pair<std::string, std::int64_t>> Store::latest_run_per_target(std::size_t limit) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "SELECT target, MAX(id) AS last FROM runs WHERE target != '' AND status IN ('done', 'cancelled', 'interrupted') "
         "AND n_pass + n_non_strict + n_informational + n_unimplemented + n_fail + n_error > 0 "
         "GROUP BY target ORDER BY last DESC LIMIT ?");
  s.bind(1, static_cast<std::int64_t>(limit));
  std::vector<std::pair<std::string, std::int64_t>> out;
  while (s.step()) out.emplace_back(s.text(0), s.i64(1));
  return out;
}

json Store::cases(std::int64_t id) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "SELECT seq, case_id, configuration, protocol, level, verdict, rfc, requirements, title, reason FROM cases "
         "WHERE run_id = ? ORDER BY seq");
  s.bind(1, id);
  json out = json::array();
  while (s.step())
    out.push_back({{"seq", s.i64(0)},      {"id", s.text(1)},     {"configuration", s.text(2)},
                   {"protocol", s.text(3)}, {"level", s.text(4)},  {"verdict", s.text(5)},
                   {"rfc", s.text(6)},      {"requirements", parse_or(s.text(7), json::array())},
                   {"title", s.text(8)},    {"reason", s.text(9)}});
  return out;
}

std::optional<json> Store::case_detail(std::int64_t id, std::int64_t seq) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "SELECT detail FROM cases WHERE run_id = ? AND seq = ?");
  s.bind(1, id).bind(2, seq);
  if (!s.step()) return std::nullopt;
  json j = parse_or(s.text(0), json::object());
  j["seq"] = seq;
  j["run"] = id;
  return j;
}

std::vector<std::string> Store::case_texts(std::int64_t id) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "SELECT detail FROM cases WHERE run_id = ? ORDER BY seq");
  s.bind(1, id);
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

void Store::set_baseline(const std::string& target, std::int64_t run_id) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "INSERT INTO baselines (target, run_id, set_at) VALUES (?1, ?2, ?3) "
         "ON CONFLICT(target) DO UPDATE SET run_id = ?2, set_at = ?3");
  s.bind(1, target).bind(2, run_id).bind(3, now_iso());
  s.step();
}

bool Store::clear_baseline(const std::string& target, std::int64_t run_id) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "DELETE FROM baselines WHERE target = ? AND run_id = ?");
  s.bind(1, target).bind(2, run_id);
  s.step();
  return sqlite3_changes(db_) > 0;
}

std::optional<std::int64_t> Store::baseline_of(const std::string& target) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "SELECT run_id FROM baselines WHERE target = ?");
  s.bind(1, target);
  if (!s.step()) return std::nullopt;
  return s.i64(0);
}

json Store::baselines() {
  std::lock_guard lock(mu_);
  Stmt s(db_, "SELECT target, run_id, set_at FROM baselines ORDER BY set_at DESC, target");
  json out = json::array();
  while (s.step()) out.push_back({{"target", s.text(0)}, {"run", s.i64(1)}, {"set_at", s.text(2)}});
  return out;
}

std::int64_t Store::add_capture(const std::string& name, std::size_t size, const json& result, const std::string& annotated) {
  std::lock_guard lock(mu_);
  Stmt s(db_,
         "INSERT INTO captures (name, uploaded_at, size, violations, must_violations, result, annotated) "
         "VALUES (?, ?, ?, ?, ?, ?, ?)");
  const json& sum = result.at("summary");
  s.bind(1, name).bind(2, now_iso()).bind(3, static_cast<std::int64_t>(size));
  s.bind(4, sum.value("violations", std::int64_t{0})).bind(5, sum.value("must_violations", std::int64_t{0}));
  s.bind(6, result.dump(-1, ' ', false, json::error_handler_t::replace)).blob(7, annotated);
  s.step();
  return sqlite3_last_insert_rowid(db_);
}

json Store::list_captures(std::size_t limit) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "SELECT id, name, uploaded_at, size, violations, must_violations FROM captures ORDER BY id DESC LIMIT ?");
  s.bind(1, static_cast<std::int64_t>(limit));
  json out = json::array();
  while (s.step())
    out.push_back({{"id", s.i64(0)}, {"name", s.text(1)}, {"uploaded_at", s.text(2)}, {"size", s.i64(3)},
                   {"violations", s.i64(4)}, {"must_violations", s.i64(5)}});
  return out;
}

std::optional<json> Store::capture(std::int64_t id) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "SELECT id, name, uploaded_at, size, result FROM captures WHERE id = ?");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  json j = parse_or(s.text(4), json::object());
  j["id"] = s.i64(0);
  j["name"] = s.text(1);
  j["uploaded_at"] = s.text(2);
  j["size"] = s.i64(3);
  return j;
}

std::optional<std::string> Store::capture_annotated(std::int64_t id) {
  std::lock_guard lock(mu_);
  Stmt s(db_, "SELECT annotated FROM captures WHERE id = ? AND annotated IS NOT NULL AND length(annotated) > 0");
  s.bind(1, id);
  if (!s.step()) return std::nullopt;
  return s.column_blob(0);
}

}  // namespace rdmaconf::dashboard
