// The JSON nesting bound every control and dashboard request is checked
// against before a parser sees it. Standard library only, so the Boost-free
// agent control library (and its fuzz target) uses the same check as the
// HTTP layer.
#pragma once

#include <cstddef>
#include <string_view>

namespace rdmaconf::http {

// Refuses JSON nested deeper than max_depth: a parser and a destructor
// recurse once per level, and nothing a client sends here nests deeply.
// Brackets inside strings (escapes included) do not count.
inline bool json_nesting_within(std::string_view body, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (char ch : body) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (ch == '\\') escaped = true;
      else if (ch == '"') in_string = false;
      continue;
    }
    if (ch == '"') in_string = true;
    else if (ch == '[' || ch == '{') {
      if (++depth > max_depth) return false;
    } else if ((ch == ']' || ch == '}') && depth > 0) --depth;
  }
  return true;
}

}  // namespace rdmaconf::http
