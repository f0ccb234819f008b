#include "needs.hpp"

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

}  // namespace rdmaconf::conformance
