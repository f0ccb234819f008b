#include "engine/needs.hpp"

#include <algorithm>

namespace rdmaconf::conformance {

bool is_needs_item(std::string_view item) {
  for (const NeedsItem& n : kNeedsItems)
    if (n.name == item) return true;
  constexpr std::string_view kBuffer = "buffer:";
  if (item.substr(0, kBuffer.size()) != kBuffer) return false;
  item.remove_prefix(kBuffer.size());
  for (std::string_view b : kTestUlpBuffers)
    if (b == item) return true;
  return false;
}

bool is_lackable(std::string_view item) { return item == "buffer" || is_needs_item(item); }

std::string needs_items_text() {
  std::string out;
  for (const NeedsItem& n : kNeedsItems) out += std::string(n.name) + ", ";
  out += "buffer:NAME (";
  for (std::string_view b : kTestUlpBuffers) out += std::string(b) + (b == kTestUlpBuffers[std::size(kTestUlpBuffers) - 1] ? ")" : ", ");
  return out;
}

const std::string* lacked_need(const Case& c, const std::vector<std::string>& iut_lacks) {
  auto lacks = [&](std::string_view item) { return std::find(iut_lacks.begin(), iut_lacks.end(), item) != iut_lacks.end(); };
  for (const std::string& need : c.needs)
    if (lacks(need) || (need.starts_with("buffer:") && lacks("buffer"))) return &need;
  return nullptr;
}

}  // namespace rdmaconf::conformance
