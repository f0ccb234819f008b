// The findings as a person reads them at the end of a run (and from
// `rdmaconf findings`): one block per finding, worst first, as h2spec ends
// with its list of failures; with a baseline, known and new marked and what
// was fixed listed.
#pragma once

#include <ostream>
#include <vector>

#include "baseline.hpp"
#include "findings.hpp"
#include "report.hpp"

namespace rdmaconf::conformance {

struct SummaryStyle {
  bool reproducers = true;      // a command per finding
  std::size_t case_ids = 6;     // at most this many case ids per finding
};

void write_findings_text(std::ostream& out, const std::vector<findings::Finding>& found,
                         const baseline::Comparison* cmp, const RunInfo& info, SummaryStyle style = {});

}  // namespace rdmaconf::conformance
