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

// `word` as one word of a POSIX shell command line a user can paste: as it
// is when it holds only characters no shell treats specially, otherwise
// in single quotes (each ' in it as '\'').
inline std::string shell_word(std::string_view word) {
  constexpr std::string_view kPlain =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@%+";
  if (!word.empty() && word.find_first_not_of(kPlain) == std::string_view::npos) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string_view("'\\''") : std::string_view(&c, 1);
  return out + "'";
}

}  // namespace rdmaconf::report_text
