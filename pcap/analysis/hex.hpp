// A value as the analyzer's texts print it: "0x" and lower-case hex digits.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace rdmaconf::analysis {

inline std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace rdmaconf::analysis
