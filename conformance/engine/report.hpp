// Reports of a run: JUnit XML and JSON, and the generated catalogue
// (docs/catalogue.md). The HTML report is the dashboard's page over the run's
// data (conformance/dashboard/static_report.hpp).
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "engine.hpp"

namespace rdmaconf::conformance {

struct RunInfo {
  std::string target;  // what was tested
  std::string faults;  // reference faults, if the IUT was the reference
  bool strict = false;
  double wall_ms = 0;
  std::vector<std::string> skipped{};  // suites not run, and why
};

void write_junit(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info);
void write_json(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info);
// Reads a report write_json wrote (report_read.cpp): its cases, each found by id in `cases`, appended to
// `results` (they point into `cases`); its target and faults taken when `info` has none, its wall time
// added, its skipped suites appended. False with `error` naming the case and key that do not fit.
// Times come back in whole milliseconds, as the JSON holds them.
bool read_json(std::string_view text, const std::vector<Case>& cases, std::vector<CaseResult>& results, RunInfo& info,
               std::string& error);

// Requirement -> cases, with counts per protocol and level.
struct UnobservableRequirement {
  std::string id, rfc, level, summary, why;
};
// A registry row a peer can observe (on the wire, or as the peer) that no
// case names yet: listed so the catalogue's gaps are in plain sight.
struct UncoveredRequirement {
  std::string id, rfc, level, summary, observable;
};
// The registry rows the catalogue cannot check (not observable) and the
// observable ones no case names yet.
struct RequirementGaps {
  std::vector<UnobservableRequirement> unobservable;
  std::vector<UncoveredRequirement> uncovered;
};
RequirementGaps requirement_gaps(const Catalogue& cat);

// docs/catalogue.md: cases per protocol and level, requirement -> cases,
// then the gaps of requirement_gaps().
void write_catalogue_markdown(std::ostream& out, const Catalogue& cat);

std::string xml_escape(std::string_view s);

}  // namespace rdmaconf::conformance
