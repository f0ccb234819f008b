// The history store (store.hpp) and the pure parts of the API: schema
// migration, counts, interruption after a kill, start-request checks, diff.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

#include "case_json.hpp"
#include "dashboard.hpp"
#include "store.hpp"

namespace rdmaconf::dashboard {
namespace {

using nlohmann::json;

std::string temp_db(const char* name) {
  const auto p = std::filesystem::temp_directory_path() / ("rdmaconf-store-" + std::to_string(::getpid()) + "-" + name + ".sqlite");
  std::filesystem::remove(p);
  std::filesystem::remove(p.string() + "-wal");
  std::filesystem::remove(p.string() + "-shm");
  return p.string();
}

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
  const json ok = checked_case({{"id", "x"}, {"verdict", "pass"}, {"extra", "dropped"}}, error);
  ASSERT_FALSE(ok.is_null()) << error;
  EXPECT_FALSE(ok.contains("extra"));
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
