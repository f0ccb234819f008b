// `rdmaconf diff BEFORE AFTER`: two small reports whose cases and findings
// change in every way the diff names (fixed, new, still, not run; by case
// fixed, new failure, run now, no longer run, changed, added, removed), and
// the diff file rendering the same tables again on its own.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli_run.hpp"

namespace rdmaconf::cli::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

json one_case(const std::string& id, const std::string& verdict) {
  return {{"id", id}, {"configuration", ""}, {"protocol", "clc"}, {"level", "MUST"}, {"title", "case " + id},
          {"verdict", verdict}, {"reason", verdict == "pass" ? "" : "because " + verdict}};
}

json finding(const std::string& id, const std::string& key, const std::vector<std::string>& cases) {
  json list = json::array();
  for (const std::string& c : cases) list.push_back({{"id", c}, {"configuration", ""}, {"verdict", "fail"}});
  return {{"id", id}, {"key", key}, {"title", "does " + key}, {"verdict", "fail"}, {"level", "MUST"}, {"cases", list}};
}

json report(const std::string& kernel, json cases, json findings) {
  return {{"tool", "rdmaconf"}, {"format", 2}, {"run", {{"iut", {{"kernel", kernel}, {"driver", "smc"}}}}},
          {"target", "device"}, {"cases", std::move(cases)}, {"findings", std::move(findings)}};
}

struct Files {
  fs::path dir = fs::temp_directory_path() / ("rdmaconf-diff-test-" + std::to_string(::getpid()));
  std::string before = (dir / "before.json").string(), after = (dir / "after.json").string();
  Files() {
    fs::create_directories(dir);
    // before (6.1): a fails (finding A), b fails (finding B), c unimplemented, d passes, e fails (finding E),
    // f passes and g fails for one reason; r only here.
    const json b = report("6.1.0", json::array({one_case("a", "fail"), one_case("b", "fail"), one_case("c", "unimplemented"),
                                                one_case("d", "pass"), one_case("e", "fail"), one_case("f", "pass"),
                                                one_case("g", "fail"), one_case("r", "pass")}),
                          json::array({finding("F1", "A", {"a"}), finding("F2", "B", {"b"}), finding("F3", "E", {"e"}),
                                       finding("F4", "G", {"g"})}));
    // after (6.12): a passes (A fixed), b still fails (B still), c now runs and passes, d now fails
    // (finding D new), e unimplemented (E not run), f unchanged, g fails for another reason; n only here.
    json g = one_case("g", "fail");
    g["reason"] = "another reason";
    const json a = report("6.12.0", json::array({one_case("a", "pass"), one_case("b", "fail"), one_case("c", "pass"),
                                                 one_case("d", "fail"), one_case("e", "unimplemented"), one_case("f", "pass"),
                                                 g, one_case("n", "pass")}),
                          json::array({finding("F1", "B", {"b"}), finding("F2", "D", {"d"}), finding("F3", "G", {"g"})}));
    std::ofstream(before) << b.dump();
    std::ofstream(after) << a.dump();
  }
  ~Files() { fs::remove_all(dir); }
};

std::vector<std::string> ids(const json& entries) {
  std::vector<std::string> out;
  for (const json& e : entries) out.push_back(e.value("id", ""));
  return out;
}

TEST(Diff, FindingsAndCasesByKindOfChange) {
  Files f;
  const std::string out = (f.dir / "diff.json").string();
  const Ran r = rdmaconf("diff " + f.before + " " + f.after + " --json " + out);
  EXPECT_EQ(r.code, 1) << r.err;  // D is new, d a new failure
  EXPECT_NE(r.out.find("smc on 6.1.0 -> smc on 6.12.0"), std::string::npos) << r.out;
  const json d = json::parse(slurp(out));
  EXPECT_EQ(d["kind"], "diff");
  std::map<std::string, std::string> status;
  for (const json& x : d["findings"]) status[x["key"]] = x["status"];
  EXPECT_EQ(status, (std::map<std::string, std::string>{{"A", "fixed"}, {"B", "still"}, {"D", "new"}, {"E", "not run"},
                                                        {"G", "still"}}));
  const json& c = d["cases"];
  EXPECT_EQ(ids(c["fixed"]), std::vector<std::string>{"a"});
  EXPECT_EQ(ids(c["new_failures"]), std::vector<std::string>{"d"});
  EXPECT_EQ(ids(c["now_run"]), std::vector<std::string>{"c"});
  EXPECT_EQ(ids(c["no_longer_run"]), std::vector<std::string>{"e"});
  EXPECT_EQ(ids(c["changed"]), std::vector<std::string>{"g"});
  EXPECT_EQ(ids(c["added"]), std::vector<std::string>{"n"});
  EXPECT_EQ(ids(c["removed"]), std::vector<std::string>{"r"});
  EXPECT_EQ(c["unchanged"], 2);  // b and f
}

TEST(Diff, TheDiffFileRendersTheSameTables) {
  Files f;
  const std::string out = (f.dir / "diff.json").string();
  const Ran direct = rdmaconf("diff " + f.before + " " + f.after + " --json " + out + " --markdown -");
  const Ran again = rdmaconf("diff " + out + " --markdown -");
  EXPECT_EQ(again.code, 1) << again.err;
  EXPECT_EQ(direct.out, again.out);
  EXPECT_NE(again.out.find("| fixed | MUST | F1 fail, 1 case | - | does A |"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("| new | MUST | - | F2 fail, 1 case | does D |"), std::string::npos) << again.out;
  EXPECT_NE(again.out.find("| run now, unimplemented before | 1 | `c` (unimplemented -> pass) |"), std::string::npos)
      << again.out;
}

TEST(Diff, UsageErrors) {
  Files f;
  EXPECT_EQ(rdmaconf("diff " + f.before).code, 2);  // one results.json is not a diff file
  EXPECT_EQ(rdmaconf("diff " + f.before + " " + f.after + " --json - --markdown -").code, 2);
  std::ofstream(f.dir / "not-json.json") << "[1, 2";
  EXPECT_EQ(rdmaconf("diff " + f.before + " " + (f.dir / "not-json.json").string()).code, 2);
}

TEST(Diff, SameRunTwiceChangesNothing) {
  Files f;
  const Ran r = rdmaconf("diff " + f.before + " " + f.before + " --json -");
  EXPECT_EQ(r.code, 0) << r.err;
  const json d = json::parse(r.out);
  for (const json& x : d["findings"]) EXPECT_EQ(x["status"], "still");
  EXPECT_EQ(d["cases"]["unchanged"], 8);
}

}  // namespace
}  // namespace rdmaconf::cli::testing
