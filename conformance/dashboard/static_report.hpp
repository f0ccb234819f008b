// `rdmaconf run --html`: the run as one self-contained HTML file that is the
// dashboard's own page. The file holds the page's scripts and app.css (built
// into the binary, assets.hpp) and the run's data as JSON in the shapes the
// API answers (GET /api/runs/N with its cases, GET /api/runs/N/cases/S,
// GET /api/scripts/ID); app.js finds that data and reads it instead of the
// API, without the live stream, the token or anything that changes a run.
// So a CI artifact is grouped, filtered and drawn exactly as the dashboard.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "report/report.hpp"

namespace rdmaconf::dashboard {

struct ReportContext {
  nlohmann::json config = nlohmann::json::object();  // the run's configuration as the dashboard shows it
  nlohmann::json capabilities;                       // the agent's, when a run had one
  std::map<std::string, std::string> scripts;        // case id -> its script text
  std::string generated_at;                          // UTC, 2026-11-27T10:00:00Z
};

// The embedded data: {"run": run with "cases" (list rows), its identity and
// findings (run_findings.hpp, add_findings; known/new with `run
// --baseline`), "cases": [detail of seq 1, 2, ...], "scripts": {id: text}}.
nlohmann::json report_data(const std::vector<conformance::CaseResult>& results, const conformance::RunInfo& info,
                           const ReportContext& context);

// JSON text that can stand inside an HTML <script> element: '<', '>', '&'
// and U+2028/U+2029 are written as \u escapes (they occur only inside JSON
// strings, where the escape means the same), so no string in it can end the
// element, open a comment or start markup. Invalid UTF-8 becomes U+FFFD.
std::string script_safe_json(const nlohmann::json& j);

void write_static_report(std::ostream& out, const std::vector<conformance::CaseResult>& results,
                         const conformance::RunInfo& info, const ReportContext& context);

}  // namespace rdmaconf::dashboard
