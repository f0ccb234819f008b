// The static HTML report (the dashboard's run view over one run's data,
// conformance/dashboard/static_report.hpp) as `run --html` and `report
// --html` write it: DIR/index.html.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "report/report.hpp"

namespace rdmaconf::cli {

// Writes DIR/index.html (making DIR); false with `error` naming the file
// and what failed.
bool write_html_report(const std::string& dir, const std::vector<conformance::CaseResult>& results,
                       const conformance::RunInfo& info, const nlohmann::json& config,
                       const nlohmann::json& capabilities, const std::string& cases_dir, std::string& error);

}  // namespace rdmaconf::cli
