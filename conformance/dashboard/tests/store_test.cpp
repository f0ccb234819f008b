// The history store (store.hpp) and the pure parts of the API: schema
// migration, counts, interruption after a kill, start-request checks, diff.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "dashboard/case_json.hpp"
#include "dashboard/dashboard.hpp"
#include "report/report_json.hpp"
#include "dashboard/run_findings.hpp"
#include "dashboard/store.hpp"
#include "temp_db.hpp"

namespace rdmaconf::dashboard {
namespace {

using nlohmann::json;
using test::temp_db;

json a_case(const std::string& id, const std::string& verdict, const std::string& reason = "") {
  std::string error;
  json c = checked_case({{"id", id}, {"protocol", "mpa"}, {"level", "MUST"}, {"verdict", verdict}, {"reason", reason},
                         {"frames", {{{"from", "tester"}, {"at_ms", 0.5}, {"headline", "--> MPA Request"}, {"detail", "Key"}}}}},
                        error);
  EXPECT_FALSE(c.is_null()) << error;
  return c;
}

TEST(DashboardStore, CreatesTheSchemaAndKeepsRunsAcrossReopening) {
  const std::string path = temp_db("reopen");
  std::int64_t id = 0;
  {
    std::string error;
    auto s = Store::open(path, error);
    ASSERT_TRUE(s) << error;
    EXPECT_EQ(s->schema_version(), Store::kSchemaVersion);
    id = s->create_run("dashboard", "queued", "", {{"suites", {"mpa"}}});
    s->set_running(id, "built-in reference IUT", nullptr);
    EXPECT_EQ(s->add_cases(id, {a_case("mpa.a", "pass"), a_case("mpa.b", "fail", "no Reply")}), 1);
    EXPECT_EQ(s->add_cases(id, {a_case("mpa.c", "pass")}), 3);
    EXPECT_EQ(s->add_cases(id + 100, {a_case("mpa.d", "pass")}), 0) << "an unknown run takes no cases";
    s->finish_run(id, "done", "", 12, json::array({"clc: skipped"}));
  }
  std::string error;
  auto s = Store::open(path, error);
  ASSERT_TRUE(s) << error;
  const auto row = s->run(id);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->status, "done");
  EXPECT_EQ(row->target, "built-in reference IUT");
  EXPECT_EQ(row->counts.at("pass"), 2);
  EXPECT_EQ(row->counts.at("fail"), 1);
  EXPECT_EQ(row->skipped, json::array({"clc: skipped"}));
  const json cases = s->cases(id);
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(cases[1]["id"], "mpa.b");
  EXPECT_EQ(cases[1]["reason"], "no Reply");
  const auto detail = s->case_detail(id, 2);
  ASSERT_TRUE(detail);
  EXPECT_EQ((*detail)["frames"][0]["headline"], "--> MPA Request");
  EXPECT_FALSE(s->case_detail(id, 4));
}

TEST(DashboardStore, UnfinishedRunsBecomeInterruptedAtTheNextStart) {
  const std::string path = temp_db("interrupt");
  std::string error;
  auto s = Store::open(path, error);
  ASSERT_TRUE(s) << error;
  const auto queued = s->create_run("dashboard", "queued", "", json::object());
  const auto running = s->create_run("cli", "running", "x", json::object());
  const auto done = s->create_run("cli", "running", "x", json::object());
  s->finish_run(done, "done", "", 1, json::array());
  EXPECT_EQ(s->interrupt_unfinished("killed"), 2);
  EXPECT_EQ(s->run(queued)->status, "interrupted");
  EXPECT_EQ(s->run(running)->status, "interrupted");
  EXPECT_EQ(s->run(running)->message, "killed");
  EXPECT_EQ(s->run(done)->status, "done");
}

TEST(DashboardStore, RefusesASchemaNewerThanItsOwn) {
  const std::string path = temp_db("newer");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  std::string error;
  EXPECT_FALSE(Store::open(path, error));
  EXPECT_NE(error.find("newer"), std::string::npos) << error;
}

TEST(DashboardStore, ListsNewestFirstWithPaging) {
  const std::string path = temp_db("list");
  std::string error;
  auto s = Store::open(path, error);
  ASSERT_TRUE(s) << error;
  for (int i = 0; i < 5; ++i) s->create_run("cli", "running", "t" + std::to_string(i), json::object());
  auto first = s->list_runs(2);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].target, "t4");
  auto next = s->list_runs(10, first[1].id);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[0].target, "t2");
}

TEST(DashboardCase, RefusesWhatDoesNotFit) {
  std::string error;
  EXPECT_TRUE(checked_case({{"id", "x"}, {"verdict", "maybe"}}, error).is_null());
  EXPECT_NE(error.find("verdict"), std::string::npos);
  error.clear();
  EXPECT_TRUE(checked_case({{"verdict", "pass"}}, error).is_null());
  error.clear();
  EXPECT_TRUE(checked_case({{"id", std::string(300, 'x')}, {"verdict", "pass"}}, error).is_null());
  error.clear();
  EXPECT_TRUE(checked_case({{"id", "x"}, {"verdict", "pass"}, {"frames", {{{"from", "mallory"}}}}}, error).is_null());
  error.clear();
  const json ok = checked_case({{"id", "x"}, {"level", "MUST"}, {"verdict", "pass"}, {"extra", "dropped"}}, error);
  ASSERT_FALSE(ok.is_null()) << error;
  EXPECT_FALSE(ok.contains("extra"));
}

// The schema as build 2 left it (store.cpp's first two steps, which are
// never edited), with a run and cases in the shape that build stored.
void make_schema_two_file(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const char* sql = R"sql(
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL, started_at TEXT NOT NULL DEFAULT '',
  finished_at TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, source TEXT NOT NULL, target TEXT NOT NULL DEFAULT '',
  config TEXT NOT NULL DEFAULT '{}', capabilities TEXT NOT NULL DEFAULT 'null', skipped TEXT NOT NULL DEFAULT '[]',
  message TEXT NOT NULL DEFAULT '', duration_ms INTEGER NOT NULL DEFAULT 0, n_pass INTEGER NOT NULL DEFAULT 0,
  n_non_strict INTEGER NOT NULL DEFAULT 0, n_informational INTEGER NOT NULL DEFAULT 0,
  n_unimplemented INTEGER NOT NULL DEFAULT 0, n_fail INTEGER NOT NULL DEFAULT 0, n_error INTEGER NOT NULL DEFAULT 0);
CREATE TABLE cases (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, seq INTEGER NOT NULL,
  case_id TEXT NOT NULL, configuration TEXT NOT NULL, protocol TEXT NOT NULL, level TEXT NOT NULL, verdict TEXT NOT NULL,
  rfc TEXT NOT NULL, requirements TEXT NOT NULL, title TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
CREATE TABLE captures (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, uploaded_at TEXT NOT NULL,
  size INTEGER NOT NULL, violations INTEGER NOT NULL, must_violations INTEGER NOT NULL, result TEXT NOT NULL, annotated BLOB);
INSERT INTO runs (created_at, finished_at, status, source, target, config, duration_ms, n_pass, n_fail)
  VALUES ('2026-11-01T10:00:00Z', '2026-11-01T10:00:01Z', 'done', 'dashboard', '192.0.2.7:7174',
          '{"target":"192.0.2.7:7174","suites":["mpa"],"cases":[],"strict":false,"iut_lacks":[],"time_scale":1.0,"jobs":4}', 900, 1, 1);
INSERT INTO cases VALUES (1, 1, 'mpa-a', '', 'mpa', 'MUST', 'pass', 'RFC 5044 §7.1', '[]', 'a', '',
  '{"id":"mpa-a","protocol":"mpa","configuration":"","title":"a","requirements":[],"rfc":"RFC 5044 §7.1","level":"MUST","role":"responder","verdict":"pass","reason":"","script":"mpa/a.case","failed_line":0,"duration_ms":1.5,"tester_address":"127.0.0.1:1","iut_address":"127.0.0.1:2","frames":[],"agent":[]}');
INSERT INTO cases VALUES (1, 2, 'mpa-b', '', 'mpa', 'MUST', 'fail', 'RFC 5044 §7.1.2', '["rfc5044-7.1.2-reply"]', 'b', 'no Reply',
  '{"id":"mpa-b","protocol":"mpa","configuration":"","title":"b","requirements":["rfc5044-7.1.2-reply"],"rfc":"RFC 5044 §7.1.2","level":"MUST","role":"responder","verdict":"fail","reason":"no Reply","script":"mpa/b.case","failed_line":7,"duration_ms":2.5,"tester_address":"127.0.0.1:3","iut_address":"127.0.0.1:2","frames":[{"from":"tester","at_ms":0.1,"headline":"--> MPA Request","detail":"key"}],"agent":[]}');
PRAGMA user_version=2;
)sql";
  char* msg = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &msg), SQLITE_OK) << (msg ? msg : "");
  sqlite3_close(db);
}

TEST(DashboardStore, UpgradesASchemaTwoFileWithItsRunsAndTheirFindings) {
  const std::string path = temp_db("upgrade");
  make_schema_two_file(path);
  std::string error;
  auto s = Store::open(path, error);
  ASSERT_TRUE(s) << error;
  EXPECT_EQ(s->schema_version(), 3);
  const auto row = s->run(1);
  ASSERT_TRUE(row);
  EXPECT_EQ(row->target, "192.0.2.7:7174");
  EXPECT_EQ(row->counts.at("fail"), 1);
  EXPECT_TRUE(row->identity.is_null()) << "a run from before identities has none";
  EXPECT_EQ(row->findings, -1) << "nor findings grouped when it ended";
  EXPECT_TRUE(row->to_json()["finding_count"].is_null());
  EXPECT_EQ(s->cases(1).size(), 2u);
  EXPECT_EQ(s->baselines(), json::array());
  // Its findings are grouped from the stored cases all the same, with the
  // command line its request stands for.
  StoredRun run;
  ASSERT_TRUE(read_stored_run(*s, *row, equivalent_command_line(row->config), run, error)) << error;
  ASSERT_EQ(run.results.size(), 2u);
  ASSERT_EQ(run.found.size(), 1u);
  EXPECT_EQ(run.found[0].key, "case mpa-b no Reply");
  EXPECT_EQ(run.found[0].cases.front(), &run.results[1]);
  json view = {{"cases", s->cases(1)}};
  add_findings(view, run.results, run.info, run.found, nullptr);
  EXPECT_EQ(view["findings"][0]["reproducer"], "rdmaconf run --target 192.0.2.7:7174 --case mpa-b");
  EXPECT_EQ(view["cases"][1]["findings"], json::array({"F1"}));
  EXPECT_EQ(view["cases"][0]["findings"], json::array());
  // The upgraded file takes what the new steps hold.
  s->set_baseline("192.0.2.7:7174", 1);
  EXPECT_EQ(s->baseline_of("192.0.2.7:7174"), 1);
  const std::int64_t next = s->create_run("cli", "running", "192.0.2.7:7174", json::object());
  EXPECT_EQ(next, 2);
}

TEST(DashboardStore, KeepsIdentityFindingsAndOneBaselinePerTarget) {
  const std::string path = temp_db("baselines");
  std::string error;
  auto s = Store::open(path, error);
  ASSERT_TRUE(s) << error;
  const auto a = s->create_run("cli", "running", "t", json::object());
  const auto b = s->create_run("cli", "running", "t", json::object());
  const auto c = s->create_run("cli", "running", "u", json::object());
  s->set_identity(a, {{"version", "1.0"}, {"labels", {{"fw", "1.2.3"}}}});
  s->set_findings(a, json::array({{{"id", "F1"}, {"key", "k"}}}));
  EXPECT_EQ(s->run(a)->identity["labels"]["fw"], "1.2.3");
  EXPECT_EQ(s->run(a)->findings, 1);
  EXPECT_EQ(s->findings(a)[0]["key"], "k");
  EXPECT_TRUE(s->findings(b).is_null());
  s->set_baseline("t", a);
  s->set_baseline("u", c);
  s->set_baseline("t", b);  // replaces a
  EXPECT_EQ(s->baseline_of("t"), b);
  EXPECT_FALSE(s->baseline_of("v"));
  EXPECT_FALSE(s->clear_baseline("t", a)) << "a is no longer t's baseline";
  EXPECT_EQ(s->baselines().size(), 2u);
  EXPECT_TRUE(s->clear_baseline("t", b));
  EXPECT_FALSE(s->baseline_of("t"));
  EXPECT_EQ(s->baselines().size(), 1u);
}

TEST(DashboardApi, StartRequestsAreChecked) {
  std::string error;
  EXPECT_FALSE(checked_run_request({{"reference", true}, {"suites", {"mpa"}}}, error).is_null()) << error;
  EXPECT_TRUE(checked_run_request({{"suites", {"mpa"}}}, error).is_null()) << "nothing to test";
  EXPECT_TRUE(checked_run_request({{"reference", true}, {"suites", {"tcp"}}}, error).is_null());
  EXPECT_TRUE(checked_run_request({{"reference", true}, {"jobs", 0}}, error).is_null());
  EXPECT_TRUE(checked_run_request({{"reference", true}, {"time_scale", 100}}, error).is_null());
  EXPECT_TRUE(checked_run_request({{"reference", true}, {"rm", "-rf"}}, error).is_null());
  EXPECT_NE(error.find("unknown key"), std::string::npos);
  EXPECT_TRUE(checked_run_request({{"reference", true}, {"agent", {{"url", "http://x:1"}}}}, error).is_null());
  const json r = checked_run_request({{"reference", {{"faults", {"no-crc-check"}}}}, {"cases", {"mpa.*"}}}, error);
  ASSERT_FALSE(r.is_null()) << error;
  EXPECT_EQ(r["reference"]["faults"][0], "no-crc-check");
  EXPECT_EQ(r["jobs"], 8);
}

TEST(DashboardApi, DiffSaysWhatChanged) {
  const json a = json::array({{{"id", "a"}, {"verdict", "pass"}, {"seq", 1}},
                              {{"id", "b"}, {"verdict", "fail"}, {"reason", "code 1"}, {"seq", 2}},
                              {{"id", "c"}, {"verdict", "fail"}, {"reason", "code 1"}, {"seq", 3}},
                              {{"id", "d"}, {"verdict", "pass"}, {"seq", 4}},
                              {{"id", "gone"}, {"verdict", "pass"}, {"seq", 5}}});
  const json b = json::array({{{"id", "a"}, {"verdict", "fail"}, {"reason", "no Reply"}, {"seq", 1}},
                              {{"id", "b"}, {"verdict", "pass"}, {"seq", 2}},
                              {{"id", "c"}, {"verdict", "fail"}, {"reason", "code 2"}, {"seq", 3}},
                              {{"id", "d"}, {"verdict", "pass"}, {"seq", 4}},
                              {{"id", "new"}, {"verdict", "pass"}, {"seq", 5}}});
  const json d = diff_runs(a, b);
  ASSERT_EQ(d["new_failures"].size(), 1u);
  EXPECT_EQ(d["new_failures"][0]["id"], "a");
  EXPECT_EQ(d["new_failures"][0]["after"]["reason"], "no Reply");
  ASSERT_EQ(d["fixed"].size(), 1u);
  EXPECT_EQ(d["fixed"][0]["id"], "b");
  ASSERT_EQ(d["changed"].size(), 1u);
  EXPECT_EQ(d["changed"][0]["before"]["reason"], "code 1");
  EXPECT_EQ(d["changed"][0]["after"]["reason"], "code 2");
  EXPECT_EQ(d["added"][0]["id"], "new");
  EXPECT_EQ(d["removed"][0]["id"], "gone");
  EXPECT_EQ(d["unchanged"], 1);
}

}  // namespace
}  // namespace rdmaconf::dashboard
