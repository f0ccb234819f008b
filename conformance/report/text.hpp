// Text the reports share: small helpers every report writer uses, written
// once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rdmaconf::report_text {

// The parts with `separator` between each two: "a, b, c". An empty part
// keeps its place ("", "b" joined by ", " is ", b").
inline std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

}  // namespace rdmaconf::report_text
