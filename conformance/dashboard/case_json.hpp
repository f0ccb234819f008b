// One case's result as JSON: what `rdmaconf run --publish` sends, what the
// dashboard stores and serves. The keys are those of the JSON report
// (conformance/engine/report.cpp), so one reader serves both.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "engine.hpp"

namespace rdmaconf::dashboard {

nlohmann::json case_json(const conformance::CaseResult& r);

// Checks a case that arrived over the network and returns it with only the
// known keys, every string and list bounded; null with `error` naming the
// key when it does not fit.
nlohmann::json checked_case(const nlohmann::json& j, std::string& error);

// The verdict names, in the order the views list them.
inline constexpr const char* kVerdicts[] = {"pass", "non-strict", "informational", "unimplemented", "fail", "error"};
bool is_verdict(std::string_view v);

}  // namespace rdmaconf::dashboard
