// Helpers shared by the CLC tests: hex literals with spaces and comments.
#pragma once

#include <cctype>
#include <cstdint>
#include <string_view>
#include <vector>

namespace rdmaconf::clc::test {

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

// A 32-octet EID or host name field: text, blank padded.
inline std::vector<std::uint8_t> padded(std::string_view text, std::size_t n = 32) {
  std::vector<std::uint8_t> out(text.begin(), text.end());
  out.resize(n, ' ');
  return out;
}

}  // namespace rdmaconf::clc::test
