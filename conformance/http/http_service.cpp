// Helpers shared by the services (http_service.hpp).
#include "http_service.hpp"

#include <algorithm>
#include <cctype>

namespace rdmaconf::http {

bool bearer_matches(std::string_view authorization, std::string_view token) {
  constexpr std::string_view kScheme = "Bearer ";
  if (token.empty() || authorization.size() < kScheme.size()) return false;
  for (std::size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(authorization[i])) != std::tolower(static_cast<unsigned char>(kScheme[i])))
      return false;
  const std::string_view given = authorization.substr(kScheme.size());
  // The token's length is not secret; its octets are.
  unsigned diff = given.size() == token.size() ? 0u : 1u;
  const std::size_t n = std::max(given.size(), token.size());
  for (std::size_t i = 0; i < n; ++i) {
    const unsigned char x = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    const unsigned char y = i < token.size() ? static_cast<unsigned char>(token[i]) : 0;
    diff |= static_cast<unsigned>(x ^ y);
  }
  return diff == 0;
}

bool query_value(std::string_view query, std::string_view key, std::string_view& value) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == key) {
      value = eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
      return true;
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return false;
}

std::pair<std::string_view, std::string_view> split_target(std::string_view target) {
  const auto q = target.find('?');
  if (q == std::string_view::npos) return {target, {}};
  return {target.substr(0, q), target.substr(q + 1)};
}

}  // namespace rdmaconf::http
