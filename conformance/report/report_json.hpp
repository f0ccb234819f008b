// The JSON report's parts, for the writers that share them: the report
// itself (report_json.cpp), the dashboard's API and static report, and
// `rdmaconf findings`. One serialisation of a case, a finding and a run's
// identity (docs/schema/results.schema.json describes them).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/findings.hpp"
#include "report/report.hpp"

namespace rdmaconf::conformance {

// Octets as lower-case hex, two digits each, nothing between.
std::string hex_string(const std::vector<std::uint8_t>& octets);

// One case: what it is, its verdict and why, its failing step, the rules it
// broke in passing, its frames, the IUT's own view and (when it did not
// pass) the octets of its exchange. `finding_keys`: findings::keys_of();
// `baseline_status`: "known", "new" or empty.
nlohmann::ordered_json case_json(const CaseResult& r, const std::vector<std::string>& finding_keys,
                                 std::string_view baseline_status = {});

// One finding, with a reproducer built from the run's command line.
nlohmann::ordered_json finding_json(const findings::Finding& f, const RunInfo& info, std::string_view baseline_status = {});

// The "run" member: version, commit, catalogue, times, command line, IUT, labels.
nlohmann::ordered_json identity_json(const RunIdentity& id);

}  // namespace rdmaconf::conformance
