#include "wire/show.hpp"

#include <algorithm>

namespace rdmaconf::wire {

namespace {
bool is_text(std::uint8_t o) { return (o >= 0x20 && o < 0x7f) || o == '\t' || o == '\r' || o == '\n'; }
}  // namespace

std::string show_octets(Bytes b, std::size_t max_text, std::size_t max_hex) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  // Text when what we would show is text; a binary tail after a text line
  // does not turn the line into hex.
  const Bytes head = b.first(std::min(b.size(), max_text));
  bool text = !head.empty();
  for (std::uint8_t o : head) text = text && is_text(o);
  if (text) {
    std::size_t end = 0;
    while (end < head.size() && head[end] != '\r' && head[end] != '\n') ++end;
    if (end == 0) end = head.size();  // a leading line end: show the escapes
    for (std::uint8_t o : head.first(end)) {
      if (o == '\t') out += "\\t";
      else if (o == '\r') out += "\\r";
      else if (o == '\n') out += "\\n";
      else out.push_back(static_cast<char>(o));
    }
    // A line shown whole, followed by its line end, is all a reader needs.
    const bool whole_line = end < b.size() && (b[end] == '\r' || b[end] == '\n');
    if (end < b.size() && !(whole_line && end < max_text)) out += "...";
    return out;
  }
  const std::size_t n = std::min(b.size(), max_hex);
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out.push_back(' ');
    out.push_back(kDigits[b[i] >> 4]);
    out.push_back(kDigits[b[i] & 0xf]);
  }
  if (b.size() > n) out += " ...";
  return out;
}

}  // namespace rdmaconf::wire
