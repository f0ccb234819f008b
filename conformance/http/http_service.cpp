// Helpers shared by the services (http_service.hpp).
#include "http_service.hpp"

#include <arpa/inet.h>

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

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

bool host_allowed(std::string_view host_header, const std::vector<std::string>& extra) {
  // RFC 9110 §7.2: Host = uri-host [ ":" port ]; an IPv6 literal is bracketed (RFC 3986 §3.2.2).
  std::string_view name = host_header;
  if (name.starts_with('[')) {
    const auto close = name.find(']');
    if (close == std::string_view::npos) return false;
    const std::string_view rest = name.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return false;
    const std::string v6(name.substr(1, close - 1));
    in6_addr a6{};
    if (::inet_pton(AF_INET6, v6.c_str(), &a6) == 1) return true;
    name = name.substr(0, close + 1);
  } else if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    if (name.find(':', colon + 1) != std::string_view::npos) return false;  // an IPv6 literal must be bracketed
    name = name.substr(0, colon);
  }
  if (name.empty()) return false;
  const std::string n = lower(name);
  in_addr a4{};
  if (::inet_pton(AF_INET, n.c_str(), &a4) == 1) return true;
  if (n == "localhost" || ends_with(n, ".localhost")) return true;
  return std::any_of(extra.begin(), extra.end(), [&](const std::string& e) { return e == "*" || lower(e) == n; });
}

bool origin_allowed(std::string_view origin, const std::vector<std::string>& extra) {
  if (origin.empty()) return true;
  // RFC 6454 §6.2: scheme "://" host [ ":" port ], nothing after.
  const auto sep = origin.find("://");
  if (sep == std::string_view::npos) return false;
  const std::string_view host = origin.substr(sep + 3);
  if (host.empty() || host.find('/') != std::string_view::npos) return false;
  return host_allowed(host, extra);
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
