// The JSON report's case, finding and identity on the dashboard: the checks
// of what a publisher sends (every member kept, each bounded), the stored
// run read back and grouped as the run itself grouped it, baselines and the
// diff by findings (run_findings.hpp), the start request's labels and its
// equivalent command line (run_request.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <deque>
#include <filesystem>

#include "dashboard/case_json.hpp"
#include "report/findings.hpp"
#include "report/report_json.hpp"
#include "dashboard/run_findings.hpp"
#include "dashboard/run_request.hpp"
#include "dashboard/store.hpp"
#include "temp_db.hpp"

namespace rdmaconf::dashboard {
namespace {

namespace cf = conformance;
using nlohmann::json;
using test::temp_db;

// Cases and their results, as a run holds them.
struct RunResults {
  std::deque<cf::Case> cases;
  std::vector<cf::CaseResult> results;

  const cf::Case& a_case(const std::string& id) {
    for (const cf::Case& c : cases)
      if (c.id == id) return c;
    cf::Case& c = cases.emplace_back();
    c.id = id;
    c.protocol = "rdmap";
    c.title = "title of " + id;
    c.rfc = "RFC 5040 §7";
    c.requirements = {"rfc5040-7.1-terminate-codes"};
    c.file = "rdmap/" + id + ".case";
    return c;
  }
  void pass(const std::string& id) {
    cf::CaseResult& r = results.emplace_back();
    r.c = &a_case(id);
    r.frames.push_back({true, 0.5, "--> Send", "    opcode=3\n"});
  }
  // A Terminate whose code is not the one the case asks for: the same
  // `have` for the same cause.
  void wrong_code(const std::string& id, const std::string& have) {
    cf::CaseResult& r = results.emplace_back();
    r.c = &a_case(id);
    r.verdict = r.script_verdict = cf::Verdict::kFail;
    r.reason = "terminate: expected code=2, got " + have;
    r.failed_line = 12;
    cf::Failure& f = r.failure.emplace();
    f.kind = cf::Failure::Kind::kField;
    f.line = 12;
    f.step = "expect terminate layer=rdmap code=2";
    f.expected = f.expected_class = "terminate layer=rdmap code=2";
    f.got = "terminate";
    f.field = "code";
    f.want = "=2";
    f.have = have;
    f.received = {0x41, 0x47, 0x00, 0x01};
    f.received_offset = 40;
    f.received_length = 4;
    f.stimulus = "write";
    f.stimulus_fields = {"sink_stag"};
    f.stimulus_octets = {0x00, 0x46};
    r.frames.push_back({false, 1.5, "<-- Terminate", "    code=" + have + "\n"});
    r.exchange.tester_address = "127.0.0.1:40000";
    r.exchange.iut_address = "127.0.0.1:7174";
    r.exchange.chunks.push_back({true, 0.1, {0x00, 0x46, 0xde, 0xad}});
    r.exchange.chunks.push_back({false, 1.2, {0x41, 0x47, 0x00, 0x01}});
  }
  // A case over SCTP that failed: its association instead of TCP octets.
  void wrong_code_over_sctp(const std::string& id) {
    wrong_code(id, "0x3");
    cf::ExchangeRecord& e = results.back().exchange;
    e = {};
    cf::SctpExchange& a = e.sctp.emplace();
    a.tester_port = 40000;
    a.iut_port = 40001;
    a.iut_init = {cf::SctpInit{}.indication, 16, 16};
    a.messages.push_back({true, 0.1, {0, 16, true, {0x00, 0x00, 0x00, 0x46}}});
    a.messages.push_back({false, 1.2, {0, 16, false, {0x00, 0x00, 0x41, 0x47}}});
  }
  // A rule the capture observer saw broken while the case's own steps passed.
  void broken_in_passing(const std::string& id) {
    cf::CaseResult& r = results.emplace_back();
    r.c = &a_case(id);
    r.verdict = cf::Verdict::kNonStrict;
    r.reason = "in passing: rfc5044-4-fpdu-alignment";
    r.in_passing.push_back({"rfc5044-4-fpdu-alignment", "SHOULD", "RFC 5044 §4", "FPDUs stay aligned", "unaligned FPDU",
                            "", "", 2, 100, {100, 200}, {0x01, 0x02}});
  }
};

// Stores the run as a publisher sends it (result_json, then the checks).
std::int64_t store_run(Store& s, const RunResults& run, const std::string& target) {
  const std::int64_t id = s.create_run("cli", "running", target, {{"reference", {{"faults", {"terminate-wrong-code"}}}}});
  std::vector<json> cases;
  for (const cf::CaseResult& r : run.results) {
    std::string error;
    json c = checked_case(result_json(r), error);
    EXPECT_FALSE(c.is_null()) << error;
    cases.push_back(std::move(c));
  }
  s.add_cases(id, cases);
  s.finish_run(id, "done", "", 10, json::array());
  return id;
}

TEST(DashboardCase, KeepsEveryMemberOfTheReportsCase) {
  RunResults run;
  run.wrong_code("rdmap-a", "0x3");
  run.broken_in_passing("rdmap-b");
  run.results[0].in_passing = run.results[1].in_passing;
  run.results[0].agent.push_back({2.0, "async", "QP error", "fatal", 0, "terminate", "", ""});
  run.results[0].negotiated = cf::Negotiated{2, true, false, true, true};
  for (const cf::CaseResult& r : run.results) {
    const json sent = result_json(r);
    ASSERT_FALSE(sent["findings"].empty());
    std::string error;
    const json kept = checked_case(sent, error);
    ASSERT_FALSE(kept.is_null()) << error;
    for (const auto& [key, value] : sent.items()) {
      ASSERT_TRUE(kept.contains(key)) << key;
      EXPECT_EQ(kept.at(key), value) << key;
    }
  }
  EXPECT_TRUE(result_json(run.results[0]).contains("exchange")) << "the octets of a case that did not pass";
}

// `good` changed by `change` is refused, the error saying `says`.
template <typename Change>
void expect_refused(const json& good, Change change, const char* says) {
  json j = good;
  change(j);
  std::string error;
  EXPECT_TRUE(checked_case(j, error).is_null()) << says;
  EXPECT_NE(error.find(says), std::string::npos) << error;
}

TEST(DashboardCase, BoundsTheReportsNewMembersWithTypedErrors) {
  RunResults run;
  run.wrong_code("rdmap-a", "0x3");
  run.results[0].in_passing.push_back({"r", "MUST", "", "", "", "", "", 1, 0, {}, {}});
  const json good = result_json(run.results[0]);
  auto refused = [&](auto change, const char* says) { expect_refused(good, change, says); };
  refused([](json& j) { j["failure"]["kind"] = "bogus"; }, "failure: 'kind'");
  refused([](json& j) { j["failure"] = "a string"; }, "failure");
  refused([](json& j) { j["failure"]["received"] = "zz"; }, "'received'");
  refused([](json& j) { j["failure"]["stimulus_octets"] = std::string(2 * 128 * 1024 + 2, '0'); }, "'stimulus_octets'");
  refused([](json& j) { j["failure"]["step"] = std::string(64 * 1024 + 1, 's'); }, "'step'");
  refused([](json& j) { j["in_passing"] = "none"; }, "'in_passing'");
  refused([](json& j) { j["in_passing"][0]["offsets"] = json(std::vector<int>(65, 1)); }, "'offsets'");
  refused([](json& j) { j["in_passing"][0]["offsets"] = json::array({-1}); }, "'offsets'");
  refused([](json& j) { j["in_passing"][0].erase("rule"); }, "in_passing: 'rule'");
  refused([](json& j) { j["exchange"]["chunks"][0]["octets"] = "abc"; }, "exchange: 'octets'");
  refused([](json& j) { j["exchange"]["chunks"][0]["from"] = "mallory"; }, "exchange: 'from'");
  refused(
      [](json& j) {
        // Two chunks of 600 KiB: each fits, together over the 1 MiB of a case.
        const std::string big(2 * 600 * 1024, 'a');
        j["exchange"]["chunks"] = json::array({{{"from", "iut"}, {"octets", big}}, {{"from", "iut"}, {"octets", big}}});
      },
      "exchange: more than");
  refused([](json& j) { j["findings"] = json(std::vector<std::string>(257, "k")); }, "'findings'");
  refused([](json& j) { j["findings"] = json::array({1}); }, "'findings'");
  refused([](json& j) { j["script_verdict"] = "great"; }, "'script_verdict'");
  refused([](json& j) { j["baseline"] = "maybe"; }, "'baseline'");
  refused([](json& j) { j["level"] = "OFTEN"; }, "'level'");
  refused([](json& j) { j["negotiated"] = {{"revision", 99}}; }, "negotiated: 'revision'");
  refused([](json& j) { j["negotiated"] = {{"revision", 1}, {"crc", true}}; }, "negotiated: 'markers_to_iut'");
  refused([](json& j) { j["negotiated"] = {{"revision", 1}, {"crc", "yes"}, {"markers_to_iut", false},
                                           {"markers_to_tester", false}, {"peer_to_peer", false}}; }, "negotiated: 'crc'");
  refused([](json& j) { j.erase("level"); }, "'level'");
}

// A case over SCTP keeps its association (report_json.cpp, sctp_json) as
// a TCP case keeps its octets, every number bounded by its field's width.
TEST(DashboardCase, KeepsAnSctpCasesAssociationBounded) {
  RunResults run;
  run.wrong_code_over_sctp("ddp-a");
  const json good = result_json(run.results[0]);
  ASSERT_TRUE(good["exchange"].contains("sctp")) << good.dump();
  std::string error;
  const json kept = checked_case(good, error);
  ASSERT_FALSE(kept.is_null()) << error;
  EXPECT_EQ(kept["exchange"], good["exchange"]);
  auto refused = [&](auto change, const char* says) { expect_refused(good, change, says); };
  refused([](json& j) { j["exchange"]["sctp"]["messages"][0]["ppid"] = 1ull << 32; }, "exchange: 'ppid'");
  refused([](json& j) { j["exchange"]["sctp"]["messages"][1]["stream"] = 65536; }, "exchange: 'stream'");
  refused([](json& j) { j["exchange"]["sctp"]["messages"][1]["from"] = "mallory"; }, "exchange: 'from'");
  refused([](json& j) { j["exchange"]["sctp"]["messages"][1]["octets"] = "0g"; }, "exchange: 'octets'");
  refused([](json& j) { j["exchange"]["sctp"]["iut_init"]["indication"] = -1; }, "exchange: 'indication'");
  refused([](json& j) { j["exchange"]["sctp"].erase("tester_port"); }, "exchange: 'tester_port'");
  refused([](json& j) { j["exchange"]["sctp"] = "none"; }, "exchange: 'sctp'");
  refused(
      [](json& j) {
        // 600 KiB of TCP octets and 600 KiB over SCTP: over the 1 MiB of a case.
        const std::string big(2 * 600 * 1024, 'a');
        j["exchange"]["chunks"] = json::array({{{"from", "iut"}, {"octets", big}}});
        j["exchange"]["sctp"]["messages"][0]["octets"] = big;
      },
      "exchange: more than");
}

TEST(DashboardCase, IdentityIsBoundedAndKeepsItsMembers) {
  cf::RunIdentity id;
  id.version = "0.1.0";
  id.commit = "abcdef123456";
  id.catalogue_sha256 = std::string(64, 'f');
  id.catalogue_cases = 476;
  id.started_at = "2026-11-29T01:00:00Z";
  id.finished_at = "2026-11-29T01:00:09Z";
  id.command_line = {"rdmaconf", "run", "--agent", "http://dut:7500", "--token", "<redacted>"};
  id.iut = {{"device", "siw0"}, {"firmware", "<b>1.2</b>"}};
  id.labels = {{"fw", "1.2.3"}, {"dut", "rack<4>"}};
  const json sent = json(cf::identity_json(id));
  std::string error;
  const json kept = checked_identity(sent, error);
  ASSERT_FALSE(kept.is_null()) << error;
  EXPECT_EQ(kept, sent);
  json extra = sent;
  extra["secret"] = "dropped";
  EXPECT_FALSE(checked_identity(extra, error).contains("secret"));
  auto refused = [&](auto change) {
    json j = sent;
    change(j);
    std::string why;
    const bool out = checked_identity(j, why).is_null();
    EXPECT_FALSE(why.empty());
    return out;
  };
  EXPECT_TRUE(refused([](json& j) { j["labels"]["n"] = 3; }));
  EXPECT_TRUE(refused([](json& j) {
    for (int k = 0; k < 65; ++k) j["labels"]["k" + std::to_string(k)] = "v";
  }));
  EXPECT_TRUE(refused([](json& j) { j["labels"][std::string(65, 'k')] = "v"; }));
  EXPECT_TRUE(refused([](json& j) { j["iut"]["device"] = std::string(257, 'd'); }));
  EXPECT_TRUE(refused([](json& j) { j["command_line"] = json(std::vector<std::string>(257, "w")); }));
  EXPECT_TRUE(refused([](json& j) { j["catalogue"] = "sha"; }));
  EXPECT_TRUE(checked_identity("run", error).is_null());
}

TEST(DashboardApi, StartRequestsCarryLabelsAndAnEquivalentCommandLine) {
  std::string error;
  const json r = checked_run_request({{"reference", {{"faults", {"terminate-wrong-code"}}}},
                                      {"suites", {"rdmap"}},
                                      {"cases", {"rdmap-send*"}},
                                      {"strict", true},
                                      {"iut_lacks", {"atomics"}},
                                      {"time_scale", 0.25},
                                      {"labels", {{"fw", "1.2.3"}, {"dut", "rack <4>"}}}},
                                     error);
  ASSERT_FALSE(r.is_null()) << error;
  EXPECT_EQ(equivalent_command_line(r),
            (std::vector<std::string>{"rdmaconf", "run", "--reference", "--fault", "terminate-wrong-code", "--suite", "rdmap",
                                      "--case", "rdmap-send*", "--strict", "--iut-lacks", "atomics", "--time-scale", "0.25",
                                      "--label", "dut=rack <4>", "--label", "fw=1.2.3"}));
  // An agent's token is never in it; the defaults (8 jobs, time scale 1) are left out.
  const json a = checked_run_request({{"agent", {{"url", "http://dut:7500"}, {"token", "s3cret"}, {"configs", {"auto"}}}},
                                      {"jobs", 2u}},
                                     error);
  ASSERT_FALSE(a.is_null()) << error;
  EXPECT_EQ(equivalent_command_line(a), (std::vector<std::string>{"rdmaconf", "run", "--agent", "http://dut:7500",
                                                                  "--agent-config", "auto", "--jobs", "2"}));
  EXPECT_EQ(shown_config(a)["agent"].count("token"), 0u);
  // A published configuration is anyone's JSON: what does not fit is left out.
  EXPECT_EQ(equivalent_command_line({{"target", 7}, {"suites", {"mpa", 3}}, {"listen", "0.0.0.0:7000"}}),
            (std::vector<std::string>{"rdmaconf", "run", "--listen", "0.0.0.0:7000", "--suite", "mpa"}));
  for (const json& bad : {json{{"fw x", "1"}}, json{{"fw", 1}}, json{{"fw", "a\nb"}}, json{{"", "v"}}, json("fw=1")}) {
    error.clear();
    EXPECT_TRUE(checked_run_request({{"reference", true}, {"labels", bad}}, error).is_null()) << bad.dump();
    EXPECT_NE(error.find("labels"), std::string::npos);
  }
}

TEST(DashboardFindings, AStoredRunGroupsAsTheRunItselfDid) {
  RunResults run;
  run.pass("rdmap-pass");
  run.wrong_code("rdmap-a", "0x3");
  run.wrong_code("rdmap-b", "0x3");  // the same cause
  run.wrong_code("rdmap-c", "0x7");  // another
  run.broken_in_passing("rdmap-d");
  const auto live = findings::group(run.results);
  ASSERT_EQ(live.size(), 3u);

  std::string error;
  auto s = Store::open(temp_db("findings-group"), error);
  ASSERT_TRUE(s) << error;
  const std::int64_t id = store_run(*s, run, "192.0.2.7:7174");
  StoredRun stored;
  ASSERT_TRUE(read_stored_run(*s, *s->run(id), {"rdmaconf", "run", "--target", "192.0.2.7:7174"}, stored, error)) << error;
  ASSERT_EQ(stored.found.size(), live.size());
  for (std::size_t k = 0; k < live.size(); ++k) {
    EXPECT_EQ(stored.found[k].id, live[k].id);
    EXPECT_EQ(stored.found[k].key, live[k].key);
    EXPECT_EQ(stored.found[k].title, live[k].title);
    EXPECT_EQ(stored.found[k].cases.size(), live[k].cases.size());
    EXPECT_EQ(stored.found[k].sent, live[k].sent) << "the octets come back";
  }
  json view = {{"cases", s->cases(id)}};
  add_findings(view, stored.results, stored.info, stored.found, nullptr);
  EXPECT_EQ(view["findings"].size(), 3u);
  EXPECT_TRUE(view["baseline"].is_null());
  EXPECT_EQ(view["cases"][0]["findings"], json::array()) << "a pass is in no finding";
  EXPECT_EQ(view["cases"][1]["findings"], view["cases"][2]["findings"]) << "one cause, one finding";
  EXPECT_NE(view["cases"][1]["findings"], view["cases"][3]["findings"]);
  EXPECT_FALSE(view["cases"][1].contains("baseline"));
  EXPECT_EQ(view["findings"][0]["reproducer"].get<std::string>().rfind("rdmaconf run --target 192.0.2.7:7174 --case ", 0), 0u);
}

TEST(DashboardFindings, ABaselineMarksKnownAndNewAndTheDiffSaysWhatIsNewFixedAndStill) {
  RunResults before, after;
  before.wrong_code("rdmap-a", "0x3");
  before.pass("rdmap-b");
  before.pass("rdmap-c");
  after.wrong_code("rdmap-a", "0x3");  // still
  after.wrong_code("rdmap-b", "0x7");  // new
  after.pass("rdmap-c");
  std::string error;
  auto s = Store::open(temp_db("findings-baseline"), error);
  ASSERT_TRUE(s) << error;
  const std::int64_t a = store_run(*s, before, "t"), b = store_run(*s, after, "t");
  StoredRun sa, sb;
  ASSERT_TRUE(read_stored_run(*s, *s->run(a), {}, sa, error)) << error;
  ASSERT_TRUE(read_stored_run(*s, *s->run(b), {}, sb, error)) << error;

  baseline::Baseline known;
  ASSERT_TRUE(baseline_of(sa, "run 1", known, error)) << error;
  const baseline::Comparison cmp = baseline::compare(known, sb.results, sb.found);
  json view = {{"cases", s->cases(b)}};
  add_findings(view, sb.results, sb.info, sb.found, &cmp);
  EXPECT_EQ(view["cases"][0]["baseline"], "known");
  EXPECT_EQ(view["cases"][1]["baseline"], "new");
  EXPECT_FALSE(view["cases"][2].contains("baseline")) << "a pass is neither";
  EXPECT_EQ(view["baseline"]["known_cases"], 1);
  EXPECT_EQ(view["baseline"]["new_findings"], 1);
  EXPECT_EQ(view["baseline"]["source"], "run 1");
  for (const json& f : view["findings"]) EXPECT_EQ(f["baseline"], f["cases"][0]["id"] == "rdmap-a" ? "known" : "new");

  const json forward = diff_findings(sa, sb);
  ASSERT_EQ(forward["new"].size(), 1u);
  EXPECT_EQ(forward["new"][0]["cases"][0]["id"], "rdmap-b");
  ASSERT_EQ(forward["still"].size(), 1u);
  EXPECT_EQ(forward["still"][0]["cases"][0]["id"], "rdmap-a");
  EXPECT_TRUE(forward["fixed"].empty());
  const json back = diff_findings(sb, sa);
  EXPECT_TRUE(back["new"].empty());
  ASSERT_EQ(back["fixed"].size(), 1u);
  EXPECT_EQ(back["fixed"][0]["cases"][0]["id"], "rdmap-b") << "a fixed finding as the earlier run had it";
  EXPECT_EQ(back["still"].size(), 1u);
}

}  // namespace
}  // namespace rdmaconf::dashboard
