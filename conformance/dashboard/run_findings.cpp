// Findings and baselines of stored runs (run_findings.hpp).
#include "dashboard/run_findings.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "report/report_json.hpp"
#include "dashboard/api_support.hpp"

namespace rdmaconf::dashboard {

using nlohmann::json;
namespace cf = conformance;

namespace {

using namespace api_support;

json comparison_json(const baseline::Comparison& cmp) {
  json fixed = json::array();
  for (const auto& [id, config] : cmp.fixed_cases) fixed.push_back({{"id", id}, {"configuration", config}});
  json fixed_findings = json::array();
  for (const auto& [key, title] : cmp.fixed_findings) fixed_findings.push_back({{"key", key}, {"title", title}});
  return {{"source", cmp.source},
          {"known_cases", cmp.known_cases},
          {"new_cases", cmp.new_cases},
          {"known_findings", cmp.known_findings},
          {"new_findings", cmp.new_findings},
          {"fixed_cases", std::move(fixed)},
          {"fixed_findings", std::move(fixed_findings)}};
}

}  // namespace

bool read_stored_run(Store& store, const RunRow& row, const std::vector<std::string>& fallback_command_line, StoredRun& out,
                     std::string& error) {
  out.id = row.id;
  json identity = row.identity.is_object() ? row.identity : json::object();
  if (!identity.contains("command_line") || identity["command_line"].empty()) identity["command_line"] = fallback_command_line;
  // The stored cases are the JSON report's case objects: around them, the
  // report's few members the reader asks for.
  std::string text = "{\"tool\":\"rdmaconf\",\"format\":" + std::to_string(cf::kReportFormat) +
                     ",\"target\":" + dump(row.target) + ",\"duration_ms\":" + std::to_string(row.duration_ms) +
                     ",\"run\":" + dump(identity) + ",\"cases\":[";
  bool first = true;
  for (const std::string& c : store.case_texts(row.id)) {
    text += first ? "" : ",";
    text += c;
    first = false;
  }
  text += "]}";
  if (!cf::read_json(text, {}, out.results, out.info, error, &out.cases)) return false;
  out.found = findings::group(out.results);
  return true;
}

bool baseline_of(const StoredRun& run, const std::string& source, baseline::Baseline& out, std::string& error) {
  std::ostringstream text;
  cf::RunInfo info = run.info;
  info.baseline = nullptr;
  cf::write_json(text, run.results, info);
  out.source = source;
  return baseline::read(text.str(), out, error);
}

void add_findings(json& run, const std::vector<cf::CaseResult>& results, const cf::RunInfo& info,
                  const std::vector<findings::Finding>& found, const baseline::Comparison* cmp) {
  std::map<const cf::CaseResult*, std::vector<std::string>> ids;
  json list = json::array();
  for (const findings::Finding& f : found) {
    std::string_view status;
    if (cmp)
      if (const auto it = cmp->findings.find(f.key); it != cmp->findings.end()) status = baseline::to_string(it->second);
    list.push_back(json(cf::finding_json(f, info, status)));
    for (const cf::CaseResult* r : f.cases) ids[r].push_back(f.id);
  }
  run["findings"] = std::move(list);
  run["baseline"] = cmp ? comparison_json(*cmp) : json();
  json& rows = run["cases"];
  for (std::size_t k = 0; k < results.size() && k < rows.size(); ++k) {
    const cf::CaseResult* r = &results[k];
    const auto it = ids.find(r);
    rows[k]["findings"] = it == ids.end() ? json::array() : json(it->second);
    if (cmp)
      if (const auto st = cmp->cases.find(r); st != cmp->cases.end()) rows[k]["baseline"] = baseline::to_string(st->second);
  }
}

json diff_findings(const StoredRun& a, const StoredRun& b) {
  json out = {{"new", json::array()}, {"still", json::array()}, {"fixed", json::array()}};
  baseline::Baseline before;
  std::string error;
  if (!baseline_of(a, "run " + std::to_string(a.id), before, error)) {
    out["error"] = error;
    return out;
  }
  const baseline::Comparison cmp = baseline::compare(before, b.results, b.found);
  for (const findings::Finding& f : b.found) {
    const bool known = cmp.findings.at(f.key) == baseline::Status::kKnown;
    out[known ? "still" : "new"].push_back(json(cf::finding_json(f, b.info, known ? "known" : "new")));
  }
  // A fixed finding as run a had it (its id, level and cases there).
  for (const auto& fixed : cmp.fixed_findings) {
    const std::string& key = fixed.first;
    const auto it = std::find_if(a.found.begin(), a.found.end(), [&key](const findings::Finding& f) { return f.key == key; });
    out["fixed"].push_back(it != a.found.end() ? json(cf::finding_json(*it, a.info))
                                               : json({{"key", key}, {"title", fixed.second}}));
  }
  return out;
}

}  // namespace rdmaconf::dashboard
