// What every dashboard handler shares: one JSON serialisation (invalid UTF-8
// in stored text replaced, never thrown on), one response shape, and one
// reading of an id in a path, so the API's files do not each keep a copy.
#pragma once

#include <charconv>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "http_server.hpp"

namespace rdmaconf::dashboard::api_support {

// Compact JSON; a stored string that is not UTF-8 (a target's banner, a case's
// reason) is replaced octet by octet rather than failing the whole answer.
inline std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline http::Response ok(const nlohmann::json& j, int status = 200) { return {status, dump(j)}; }

inline http::Response error(int status, std::string_view message) { return http::error_response(status, message); }

// An id in a path (/api/runs/ID): decimal digits only, at most 18 of them, so
// it fits an SQLite integer and no sign or space slips through.
inline bool whole_number(std::string_view s, std::int64_t& out) {
  if (s.empty() || s.size() > 18) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out >= 0;
}

}  // namespace rdmaconf::dashboard::api_support
