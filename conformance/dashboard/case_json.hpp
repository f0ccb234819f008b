// A case's result as the dashboard stores and serves it, and the checks of
// what arrives over the network. The serialisation is the JSON report's
// (conformance/report/report_json.hpp, conformance::case_json): what
// `rdmaconf run --publish` sends, what a run started from the page stores
// and what `run --html` embeds are one shape, read back by one reader
// (conformance::read_json) when the dashboard groups a stored run into
// findings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engine/engine.hpp"

namespace rdmaconf::dashboard {

// conformance::case_json() of the result with the keys of the findings
// that explain it (findings::keys_of), as the dashboard's JSON type.
nlohmann::json result_json(const conformance::CaseResult& r);

// Checks a case that arrived over the network and returns it with only the
// known keys, every string and list bounded (docs/dashboard.md, Security);
// null with `error` naming the key when it does not fit.
nlohmann::json checked_case(const nlohmann::json& j, std::string& error);

// Checks a run's identity (conformance::identity_json's shape) that arrived
// with a published run: only its known members, each bounded; null with
// `error` when it does not fit.
nlohmann::json checked_identity(const nlohmann::json& j, std::string& error);

// The verdict names, in the order the views list them.
inline constexpr const char* kVerdicts[] = {"pass", "non-strict", "informational", "unimplemented", "fail", "error"};
bool is_verdict(std::string_view v);

}  // namespace rdmaconf::dashboard
