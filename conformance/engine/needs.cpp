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

std::string mpa_bound(const Case& c) {
  for (std::string_view need : {"mpa", "rev2", "markers", "no-crc"})
    if (c.needs_item(need)) return "it needs '" + std::string(need) + "', which only MPA over TCP has";
  // The IUT's own view ties each event to a TCP connection (agent_view.hpp).
  if (c.needs_item("agent")) return "it needs 'agent', and the IUT's own view names TCP connections";
  // Fields that exist only in MPA's framing, sent or matched (RFC 5044 §4).
  static constexpr std::string_view kFraming[] = {"ulpdu_length", "pad", "pad_octet", "crc", "fpduptr", "marker_res",
                                                  "omit_markers", "crc_ok", "crc_field", "pad_zero", "markers",
                                                  "markers_res_zero"};
  // How a unit's octets go into TCP sends.
  static constexpr std::string_view kTcpSends[] = {"truncate", "append", "split", "pause", "more"};
  auto in = [](std::string_view name, const auto& list) {
    return std::find(std::begin(list), std::end(list), name) != std::end(list);
  };
  auto why = [](const Step& st, const std::string& what) {
    return "line " + std::to_string(st.line) + " (" + st.text + ") " + what;
  };
  for (const Step& st : c.steps) {
    if (st.kind == StepKind::kHandshake && !st.args.empty())
      return why(st, "sets fields of the MPA Request (RFC 5044 §7.1)");
    if (st.kind == StepKind::kSend) {
      if (st.unit.starts_with("mpa.") || st.unit == "raw") return why(st, "sends " + st.unit + ", which only MPA over TCP carries");
      if (st.unit == "reset") return why(st, "resets the TCP connection");
      for (const Arg& a : st.args) {
        if (in(a.name, kFraming)) return why(st, "sets '" + a.name + "', a field of MPA's framing (RFC 5044 §4)");
        if (in(a.name, kTcpSends)) return why(st, "shapes TCP sends with '" + a.name + "'");
      }
    }
    for (const Alternative& alt : st.alternatives) {
      if (alt.unit.starts_with("mpa.")) return why(st, "expects " + alt.unit + ", which only MPA over TCP carries");
      for (const Arg& a : alt.args) {
        if (alt.unit == "close" && (a.name == "reset" || a.name == "fin"))
          return why(st, "tells a TCP " + a.name + " from other closes");
        if (alt.unit != "close" && in(a.name, kFraming))
          return why(st, "matches '" + a.name + "', a field of MPA's framing (RFC 5044 §4)");
      }
    }
  }
  return {};
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
