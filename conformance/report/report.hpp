// Reports of a run: JUnit XML and JSON, and the generated catalogue
// (docs/catalogue.md). The HTML report is the dashboard's page over the run's
// data (conformance/dashboard/static_report.hpp).
#pragma once

#include <chrono>
#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"

namespace rdmaconf::baseline {
struct Baseline;
}
namespace rdmaconf::requirements {
struct Requirement;
}

namespace rdmaconf::conformance {

// What a report says about the run that made it (docs/conformance.md, "What
// a report says about itself"): which build and catalogue, when, how it was
// started, against what, with the lab's own labels.
struct RunIdentity {
  std::string version, commit;            // the tool's (build_info.hpp)
  std::string catalogue_sha256;           // catalogue_digest() of the cases the run chose from
  std::size_t catalogue_cases = 0;
  std::string started_at, finished_at;    // ISO 8601, UTC, whole seconds
  std::vector<std::string> command_line;  // the tester's, tokens replaced (redact_command_line)
  // The IUT as the agent or the operator describes it: device, vendor,
  // firmware, driver, kernel, backend (the operator's --iut wins).
  std::map<std::string, std::string> iut;
  std::map<std::string, std::string> labels;  // --label KEY=VALUE
};

struct RunInfo {
  std::string target;  // what was tested
  std::string faults;  // reference faults, if the IUT was the reference
  bool strict = false;
  double wall_ms = 0;
  std::vector<std::string> skipped{};  // suites not run, and why
  RunIdentity identity{};
  // With --baseline: what the run is compared with (baseline.hpp); reports
  // mark each failure known or new and list what was fixed.
  const baseline::Baseline* baseline = nullptr;
};

// The JSON report's format (docs/schema/results.schema.json); a reader
// takes any report of this format or older.
inline constexpr int kReportFormat = 2;

// The exit code of `rdmaconf run` for these results (docs/conformance.md):
// with a baseline 1 only for a new failure, otherwise 1 for any failure; 2
// when a case could not be run; else 0.
int exit_code(const std::vector<CaseResult>& results, const RunInfo& info);

void write_junit(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info);
void write_json(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info);
// Reads a report write_json wrote (report_read.cpp): its cases appended to `results`, each pointing at
// the case of that id in `cases`, or, with `unknown` given, at a case made from the report's own
// fields and kept there (a report of another catalogue version). Its target, faults and identity are
// taken when `info` has none, its wall time added, its skipped suites appended. False with `error`
// naming the case and key that do not fit. Times come back in whole milliseconds, as the JSON holds
// them.
bool read_json(std::string_view text, const std::vector<Case>& cases, std::vector<CaseResult>& results, RunInfo& info,
               std::string& error, std::deque<Case>* unknown = nullptr);

// The command line as a report keeps it: the value of every option that
// carries a secret (--token, --publish-token) replaced by "<redacted>".
std::vector<std::string> redact_command_line(int argc, const char* const* argv);

// ISO 8601 UTC ("2026-11-29T01:02:03Z") of a system clock time.
std::string iso_time(std::chrono::system_clock::time_point t);

// Requirement -> cases, with counts per protocol and level.
struct UnobservableRequirement {
  std::string id, rfc, level, summary, why;
};
// A registry row a peer can observe (on the wire, or as the peer) that no
// case names yet: listed so the catalogue's gaps are in plain sight.
struct UncoveredRequirement {
  std::string id, rfc, level, summary, observable;
  std::string why_no_case;  // the registry's reason no case can drive it; empty: none written yet
};
// The registry rows the catalogue cannot check (not observable) and the
// observable ones no case names yet.
struct RequirementGaps {
  std::vector<UnobservableRequirement> unobservable;
  std::vector<UncoveredRequirement> uncovered;
};
RequirementGaps requirement_gaps(const Catalogue& cat);

// Per registry row, by its id, the cases that name it: the live cases, then
// the capture cases (capture_case.hpp), a case naming an old id counting
// for the row it became (requirements::find). What docs/catalogue.md,
// `rdmaconf requirements` and the dashboard's coverage count a row's cases by.
using CasesPerRow = std::map<std::string, std::vector<std::string>, std::less<>>;
CasesPerRow cases_per_row(const Catalogue& cat);
// The observable rows none of those cases names, in registry order.
std::vector<const requirements::Requirement*> observable_rows_without_case(const CasesPerRow& cases);

// docs/catalogue.md: cases per protocol and level, requirement -> cases,
// then the gaps of requirement_gaps().
void write_catalogue_markdown(std::ostream& out, const Catalogue& cat);

std::string xml_escape(std::string_view s);

}  // namespace rdmaconf::conformance
