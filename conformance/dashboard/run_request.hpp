// The request that starts a run from the page (POST /api/runs): its checks,
// and the `rdmaconf run` command line that does the same, which the run's
// identity names (docs/dashboard.md, "Identity") and reproducers are built
// from.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rdmaconf::dashboard {

// Checks a start request; the checked copy (defaults filled in), or null
// with `error`.
nlohmann::json checked_run_request(const nlohmann::json& j, std::string& error);

// The start request as stored and shown: everything but the agent's token.
nlohmann::json shown_config(const nlohmann::json& request);

// The `rdmaconf run` command line equivalent to a start request (or to a
// published run's configuration, which has the same shape): "rdmaconf",
// "run", then the options. The agent's token is never in it (the command
// reads $RDMACONF_AGENT_TOKEN); what is not a string where a string belongs
// is left out.
std::vector<std::string> equivalent_command_line(const nlohmann::json& request);

}  // namespace rdmaconf::dashboard
