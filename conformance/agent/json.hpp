// The control channel's JSON forms of the backend types (docs/agent.md,
// "API"). Both sides use them: the agent to answer, the tester to read.
// Readers are tolerant of unknown keys and never throw.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "agent/backend.hpp"

namespace rdmaconf::agent {

inline constexpr int kApiVersion = 1;

nlohmann::json to_json(const Capabilities& c);
nlohmann::json to_json(const MpaConfig& m);
nlohmann::json to_json(const Event& e, std::uint64_t seq);
std::string_view to_string(EventKind k);

// nullopt with `error` naming the field when the JSON does not fit.
std::optional<Capabilities> capabilities_from_json(const nlohmann::json& j, std::string& error);
std::optional<MpaConfig> mpa_from_json(const nlohmann::json& j, std::string& error);
std::optional<Event> event_from_json(const nlohmann::json& j, std::uint64_t& seq, std::string& error);

// Serialises without throwing: invalid UTF-8 in a string becomes U+FFFD.
std::string dump(const nlohmann::json& j);

}  // namespace rdmaconf::agent
