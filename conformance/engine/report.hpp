// Reports of a run: JUnit XML, JSON, a self-contained HTML page, and the
// generated catalogue (docs/catalogue.md).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engine.hpp"

namespace rdmaconf::conformance {

struct RunInfo {
  std::string target;  // what was tested
  std::string faults;  // reference faults, if the IUT was the reference
  bool strict = false;
  double wall_ms = 0;
};

void write_junit(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info);
void write_json(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info);
void write_html(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info);

// Requirement -> cases, with counts per protocol and level.
struct UnobservableRequirement {
  std::string id, rfc, level, summary, why;
};
void write_catalogue_markdown(std::ostream& out, const Catalogue& cat,
                              const std::vector<UnobservableRequirement>& unobservable);

std::string json_escape(std::string_view s);
std::string xml_escape(std::string_view s);

}  // namespace rdmaconf::conformance
