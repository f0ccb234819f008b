// Findings and baselines on the dashboard (docs/dashboard.md, "Findings and
// baselines"). A stored run is read back into results by the JSON report's
// own reader (conformance::read_json), so the report library groups
// (findings::group), compares (baseline::compare) and serialises
// (conformance::finding_json) it exactly as it does a live run: a run stored
// before findings existed gets them too, and the dashboard never groups on
// its own.
#pragma once

#include <cstdint>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/baseline.hpp"
#include "report/findings.hpp"
#include "report/report.hpp"
#include "dashboard/store.hpp"

namespace rdmaconf::dashboard {

// A run read back from the store. Findings and the comparison point into
// `results`, `results` into `cases`: it is neither copied nor moved.
struct StoredRun {
  std::int64_t id = 0;
  std::deque<conformance::Case> cases;           // made from what each stored case says of itself
  std::vector<conformance::CaseResult> results;  // results[k] is the case of seq k + 1
  conformance::RunInfo info;                     // target and identity (command line: the stored one or
                                                 // `fallback_command_line`)
  std::vector<findings::Finding> found;
  StoredRun() = default;
  StoredRun(const StoredRun&) = delete;
  StoredRun& operator=(const StoredRun&) = delete;
};

// Reads run `row`'s cases from the store and groups them; false with
// `error` (naming the case and member) when a stored case does not read
// back. `fallback_command_line` is the identity's command line for a run
// stored without one (reproducers are built from it).
bool read_stored_run(Store& store, const RunRow& row, const std::vector<std::string>& fallback_command_line, StoredRun& out,
                     std::string& error);

// `run` as a baseline: what baseline::read makes of the JSON report the
// run's results write (conformance::write_json). False with `error`.
bool baseline_of(const StoredRun& run, const std::string& source, baseline::Baseline& out, std::string& error);

// Adds the findings to a run as the API and the static report show it:
//  - run["findings"]: each conformance::finding_json, "known"/"new" when compared;
//  - run["baseline"]: the comparison (what it compares with, counts, what
//    was fixed), null without one;
//  - to each row of run["cases"] (row k is results[k]): "findings", the ids
//    of the findings that explain it, and "baseline", "known" or "new"
//    when compared and the case failed.
void add_findings(nlohmann::json& run, const std::vector<conformance::CaseResult>& results,
                  const conformance::RunInfo& info, const std::vector<findings::Finding>& found,
                  const baseline::Comparison* cmp);

// Run `b` against run `a` by findings: "new" (b's findings a had not),
// "still" (b's findings a had too), "fixed" (a's findings none of whose
// cases fail in b, as a listed them). Each as conformance::finding_json.
nlohmann::json diff_findings(const StoredRun& a, const StoredRun& b);

}  // namespace rdmaconf::dashboard
