// The findings as a person reads them at the end of a run (and from
// `rdmaconf findings`): one block per finding, worst first, as h2spec ends
// with its list of failures; with a baseline, known and new marked and what
// was fixed listed.
#pragma once

#include <ostream>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/baseline.hpp"
#include "report/findings.hpp"
#include "report/report.hpp"

namespace rdmaconf::conformance {

struct SummaryStyle {
  bool reproducers = true;      // a command per finding
  std::size_t case_ids = 6;     // at most this many case ids per finding
};

void write_findings_text(std::ostream& out, const std::vector<findings::Finding>& found,
                         const baseline::Comparison* cmp, const RunInfo& info, SummaryStyle style = {});

// The findings as a Markdown table (docs/interop.md keeps the live runs'
// so, generated from their findings files): from finding objects as the JSON
// report and the findings file hold them (report_json.hpp, finding_json), so
// a findings file renders without the run's results.
void write_findings_markdown(std::ostream& out, const nlohmann::ordered_json& findings);

}  // namespace rdmaconf::conformance
