// Hex literals for known-answer tests: spaces and '#' comments allowed.
#pragma once

#include <cctype>
#include <cstdint>
#include <string_view>
#include <vector>

namespace rdmaconf::test {

// "e2 d4 c3 d9  # SMCR" -> octets; '#' starts a comment up to the newline.
inline std::vector<std::uint8_t> hex(std::string_view s) {
  std::vector<std::uint8_t> out;
  int hi = -1;
  bool comment = false;
  for (char c : s) {
    if (comment) {
      comment = c != '\n';
      continue;
    }
    if (c == '#') {
      comment = true;
      continue;
    }
    if (!std::isxdigit(static_cast<unsigned char>(c))) continue;
    int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10);
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(static_cast<std::uint8_t>(hi << 4 | v));
      hi = -1;
    }
  }
  return out;
}

}  // namespace rdmaconf::test
