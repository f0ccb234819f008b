// Helpers shared by the CLC tests: hex literals with spaces and comments.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "test_hex.hpp"

namespace rdmaconf::clc::test {

using ::rdmaconf::test::hex;

// A 32-octet EID or host name field: text, blank padded.
inline std::vector<std::uint8_t> padded(std::string_view text, std::size_t n = 32) {
  std::vector<std::uint8_t> out(text.begin(), text.end());
  out.resize(n, ' ');
  return out;
}

}  // namespace rdmaconf::clc::test
