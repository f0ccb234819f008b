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

const std::string* lacked_need(const Case& c, const std::vector<std::string>& iut_lacks, std::uint8_t smcr_version) {
  static const std::string kSmcrVersion[] = {"smcr-v1", "smcr-v2"};
  auto lacks = [&](std::string_view item) { return std::find(iut_lacks.begin(), iut_lacks.end(), item) != iut_lacks.end(); };
  const bool version_given = c.protocol == "smcr" && (smcr_version == 1 || smcr_version == 2);
  if (version_given && lacks(kSmcrVersion[smcr_version - 1])) return &kSmcrVersion[smcr_version - 1];
  for (const std::string& need : c.needs) {
    if (version_given && (need == kSmcrVersion[0] || need == kSmcrVersion[1])) continue;
    if (lacks(need) || (need.starts_with("buffer:") && lacks("buffer"))) return &need;
  }
  return nullptr;
}

std::uint64_t smcr_links_named(const Case& c) {
  std::uint64_t most = 1;
  auto look = [&](const std::vector<Arg>& args) {
    for (const Arg& a : args)
      if (a.name == "link" && a.value.kind == Value::Kind::kNumber) most = std::max(most, a.value.number);
  };
  for (const Step& st : c.steps) {
    look(st.args);
    for (const Alternative& alt : st.alternatives) look(alt.args);
  }
  return most;
}

}  // namespace rdmaconf::conformance
