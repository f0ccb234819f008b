// The capture cases of the catalogue (conformance/engine/capture_case.hpp),
// each proven both ways: its `passes` capture keeps the row's rule and its
// `fails` capture breaks it, as `rdmaconf analyze` judges them (a ULP row's
// captures carry its upper-layer protocol). The trace
// (`rdmaconf requirements`) counts a row as having a case through a capture
// case; this test is what makes that count honest.
#include <gtest/gtest.h>

#include <set>

#include "analysis/analyzer.hpp"
#include "check/mpa_tcp.hpp"
#include "engine/capture_case.hpp"
#include "requirement.hpp"

namespace rdmaconf::analysis::testing {
namespace {

namespace cf = conformance;
namespace rq = requirements;

// What one capture case's two captures show, one line per problem.
std::vector<std::string> prove(const cf::CaptureCase& c, const std::string& captures) {
  std::vector<std::string> problems;
  const rq::Requirement* row = rq::find(c.requirement);
  if (!row) return {c.id + ": requirement " + c.requirement + " is no registry row"};
  if (row->observable == rq::Observability::kNotObservable)
    problems.push_back(c.id + ": row " + std::string(row->id) + " is not observable");
  auto broken = [&](const std::string& file, std::uint64_t& count) {
    std::string error;
    const auto r = analyze_file(captures + "/" + file, AnalysisOptions{}, nullptr, error);
    if (!r) {
      problems.push_back(c.id + ": " + file + ": " + error);
      return false;
    }
    // The row's protocol is in the capture: the ULP of an RFC 8166 or RFC
    // 7145 row, a CLC connection for SMC's rows, an MPA connection for the
    // iWARP rows.
    if (row->rfc == "RFC 8166" || row->rfc == "RFC 7145") {
      if (r->summary.ulps.empty()) problems.push_back(c.id + ": " + file + " carries no upper-layer protocol");
    } else if (row->rfc == "RFC 7609" || row->rfc == "SMCv2") {
      if (r->summary.clc_connections == 0) problems.push_back(c.id + ": " + file + " carries no CLC connection");
    } else if (r->summary.mpa_connections == 0) {
      problems.push_back(c.id + ": " + file + " carries no MPA connection");
    }
    const auto it = r->summary.violations_per_rule.find(std::string(row->id));
    count = it == r->summary.violations_per_rule.end() ? 0 : it->second;
    return true;
  };
  std::uint64_t kept = 0, failed = 0;
  if (broken(c.passes, kept) && kept != 0)
    problems.push_back(c.id + ": " + c.passes + " breaks " + std::string(row->id) + " " + std::to_string(kept) +
                       " times, but the case says it keeps it");
  if (broken(c.fails, failed) && failed == 0)
    problems.push_back(c.id + ": " + c.fails + " does not break " + std::string(row->id));
  return problems;
}

TEST(CaptureCases, EveryCaseIsProvenBothWays) {
  const auto cat = cf::load_capture_cases(RDMACONF_CASES_DIR);
  for (const auto& e : cat.errors) ADD_FAILURE() << e.to_string();
  ASSERT_FALSE(cat.cases.empty());
  std::set<std::string> rows;
  for (const cf::CaptureCase& c : cat.cases) {
    for (const auto& p : prove(c, RDMACONF_TEST_CAPTURES)) ADD_FAILURE() << p;
    rows.insert(c.requirement);
  }
  // The ULP rules of RFC 8166 and RFC 7145 the analyzer checks, one case each at least.
  for (const rq::Requirement& r : rq::all()) {
    if (r.rfc == "RFC 8166" || r.rfc == "RFC 7145") {
      EXPECT_TRUE(rows.count(std::string(r.id))) << r.id << " has no capture case";
    }
  }
  // So do the rules of how MPA uses TCP's segments (check/mpa_tcp.hpp): the
  // tester's socket sees a byte stream, not its peer's segments.
  for (const check::Rule* r : check::mpa_tcp_rules())
    EXPECT_TRUE(rows.count(std::string(r->id))) << r->id << " has no capture case";
}

// The proof fails when a case's captures are the wrong way round, or name
// a row the capture does not bear on.
TEST(CaptureCases, TheProofCatchesAWrongCase) {
  const auto cat = cf::load_capture_cases(RDMACONF_CASES_DIR);
  ASSERT_FALSE(cat.cases.empty());
  cf::CaptureCase swapped = cat.cases.front();
  std::swap(swapped.passes, swapped.fails);
  EXPECT_EQ(prove(swapped, RDMACONF_TEST_CAPTURES).size(), 2u);
  cf::CaptureCase other = cat.cases.front();
  other.requirement = "rfc5044-4.1-pad-zero";  // a rule these captures keep
  const auto found = prove(other, RDMACONF_TEST_CAPTURES);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("does not break rfc5044-4.1-pad-zero"), std::string::npos) << found[0];
  cf::CaptureCase unknown = cat.cases.front();
  unknown.requirement = "rfc8166-9.9-no-such-row";
  EXPECT_EQ(prove(unknown, RDMACONF_TEST_CAPTURES).size(), 1u);
}

TEST(CaptureCases, ParsingRejectsMalformedCases) {
  const std::string good =
      "id: capture-x\ntitle: t\nrequirement: rfc8166-3.3.1-credit-limit\nrfc: RFC 8166 §3.3.1\nlevel: MUST\n"
      "passes: crafted/a.pcapng\nfails: crafted/b.pcapng\n";
  ASSERT_TRUE(std::holds_alternative<cf::CaptureCase>(cf::parse_capture_case(good, "x.capture")));
  auto error_of = [](const std::string& text) {
    const auto r = cf::parse_capture_case(text, "x.capture");
    return std::holds_alternative<cf::SyntaxError>(r) ? std::get<cf::SyntaxError>(r).message : std::string();
  };
  EXPECT_NE(error_of(good + "step: x\n").find("unknown key"), std::string::npos);
  EXPECT_NE(error_of(good + "id: again\n").find("twice"), std::string::npos);
  EXPECT_NE(error_of("id: capture-x\n").find("missing"), std::string::npos);
  std::string escape = good;
  escape.replace(escape.find("crafted/b"), 9, "../../../b");
  EXPECT_NE(error_of(escape).find("relative path"), std::string::npos);
  std::string same = good;
  same.replace(same.find("crafted/b"), 9, "crafted/a");
  EXPECT_NE(error_of(same).find("same capture"), std::string::npos);
  EXPECT_NE(error_of(std::string(20000, 'x')).find("longer"), std::string::npos);
  EXPECT_NE(error_of("no colon here\n").find("key: value"), std::string::npos);
}

}  // namespace
}  // namespace rdmaconf::analysis::testing
