#include "violations.hpp"

#include <array>

namespace rdmaconf::dissector {
namespace {

// One set of expert fields per protocol, one entry per severity, so that
// "Analyze > Expert Information" groups them under the right protocol.
struct ExpertSet {
  expert_field error = EI_INIT;
  expert_field warn = EI_INIT;
  expert_field note = EI_INIT;
};
std::array<ExpertSet, 4> g_experts;

int slot_of(int proto) {
  const Ids& i = ids();
  if (proto == i.proto_ddp) return 1;
  if (proto == i.proto_rdmap) return 2;
  if (proto == i.proto_clc) return 3;
  return 0;
}

}  // namespace

std::string_view name(Level level) {
  switch (level) {
    case Level::kMust: return "MUST";
    case Level::kMustNot: return "MUST NOT";
    case Level::kShould: return "SHOULD";
    case Level::kShouldNot: return "SHOULD NOT";
    case Level::kMay: return "MAY";
    case Level::kInfo: return "INFO";
  }
  return "INFO";
}

std::string_view rule_for(Source source, const wire::DecodeError& e) {
  switch (source) {
    case Source::kMpaReqRep:
      // mpa::decode_req_rep's fields (RFC 5044 §7.1.1, RFC 6581 §9).
      if (e.field == "Key") return "rfc5044-7.1.1-key";
      if (e.field == "Res") return "rfc5044-7.1.1-res-zero";
      if (e.field == "Rev") return "rfc5044-7.1.1-rev";
      if (e.field == "R") return "rfc5044-7.1.1-r-request-zero";
      if (e.field == "PD_Length") return "rfc5044-7.1.1-pd-length-max";
      if (e.field == "IRD" || e.field == "S") return "rfc6581-9-enhanced-data-present";
      return {};
    case Source::kMpaDeframer:
      if (e.field == "CRC") return "rfc5044-4.4-crc";
      if (e.field == "FPDUPTR") return "rfc5044-4.3-marker-fpduptr";
      return {};
    case Source::kTerminate:
      return "rfc5040-4.8-terminate-format";
    case Source::kClc:
      return "rfc7609-a.2-clc-format";
  }
  return {};
}

std::string rule_id(const Violation& v) {
  if (!v.id.empty()) return std::string(v.id);
  // "RFC 5044 §7.1.4" + "PD_Length" -> "RFC5044-7.1.4-PD_Length". Only the
  // first citation of a list ("RFC 5040 §4.2, RFC 7306 §4") is used.
  std::string id;
  std::string_view s = v.rfc_section.substr(0, v.rfc_section.find(','));
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == ' ') continue;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0xA7) {  // "§" in UTF-8
      id.push_back('-');
      ++i;
      continue;
    }
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.';
    id.push_back(plain ? static_cast<char>(c) : '-');
  }
  id.push_back('-');
  for (char c : v.field) id.push_back(c == ' ' ? '_' : c);
  return id;
}

void report(int proto, packet_info* pinfo, proto_tree* tree, tvbuff_t* tvb, int offset, int length,
            const Violation& v) {
  const Ids& i = ids();
  const std::string id = rule_id(v);
  ExpertSet& set = g_experts[static_cast<std::size_t>(slot_of(proto))];
  expert_field* ei = &set.note;
  if (v.level == Level::kMust || v.level == Level::kMustNot) ei = &set.error;
  else if (v.level == Level::kShould || v.level == Level::kShouldNot) ei = &set.warn;

  const int available = tvb_captured_length_remaining(tvb, offset);
  if (available <= 0) {
    offset = 0;
    length = 0;
  } else if (length < 0 || length > available) {
    length = available;
  }
  const std::string_view level = name(v.level);
  proto_item* item = proto_tree_add_string_format(tree, i.violation, tvb, offset, length, id.c_str(),
                                                  "Violation %s %.*s: %.*s: %.*s (%.*s)", id.c_str(),
                                                  static_cast<int>(level.size()), level.data(),
                                                  static_cast<int>(v.field.size()), v.field.data(),
                                                  static_cast<int>(v.rule.size()), v.rule.data(),
                                                  static_cast<int>(v.rfc_section.size()), v.rfc_section.data());
  proto_tree* sub = proto_item_add_subtree(item, i.ett_violation);
  proto_item_set_generated(proto_tree_add_string(sub, i.violation_rule, tvb, offset, length, id.c_str()));
  proto_item_set_generated(
      proto_tree_add_string(sub, i.violation_level, tvb, offset, length, std::string(level).c_str()));
  proto_item_set_generated(proto_tree_add_string(sub, i.violation_section, tvb, offset, length,
                                                 std::string(v.rfc_section).c_str()));
  proto_item_set_generated(item);
  expert_add_info_format(pinfo, item, ei, "%s %.*s: %.*s: %.*s (%.*s)", id.c_str(), static_cast<int>(level.size()),
                         level.data(), static_cast<int>(v.field.size()), v.field.data(),
                         static_cast<int>(v.rule.size()), v.rule.data(), static_cast<int>(v.rfc_section.size()),
                         v.rfc_section.data());
}

void register_violations(void) {
  Ids& i = ids();
  static hf_register_info hf[] = {
      {&i.violation,
       {"Conformance violation", "rdmaconf.violation", FT_STRING, BASE_NONE, nullptr, 0x0,
        "A rule of the RFCs this message breaks, with its id", HFILL}},
      {&i.violation_rule,
       {"Rule id", "rdmaconf.violation.rule", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Rule id, as rdmaconf analyze reports it", HFILL}},
      {&i.violation_level,
       {"Requirement level", "rdmaconf.violation.level", FT_STRING, BASE_NONE, nullptr, 0x0,
        "MUST, MUST NOT, SHOULD, SHOULD NOT, MAY or INFO", HFILL}},
      {&i.violation_section,
       {"RFC section", "rdmaconf.violation.section", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Where the rule is written", HFILL}},
  };
  proto_register_field_array(i.proto_mpa, hf, static_cast<int>(G_N_ELEMENTS(hf)));

  static const char* const kAbbrevs[4][3] = {
      {"rdmaconf.mpa.violation.error", "rdmaconf.mpa.violation.warn", "rdmaconf.mpa.violation.note"},
      {"rdmaconf.ddp.violation.error", "rdmaconf.ddp.violation.warn", "rdmaconf.ddp.violation.note"},
      {"rdmaconf.rdmap.violation.error", "rdmaconf.rdmap.violation.warn", "rdmaconf.rdmap.violation.note"},
      {"rdmaconf.clc.violation.error", "rdmaconf.clc.violation.warn", "rdmaconf.clc.violation.note"},
  };
  const int protos[4] = {i.proto_mpa, i.proto_ddp, i.proto_rdmap, i.proto_clc};
  static ei_register_info ei[4][3];
  for (int p = 0; p < 4; ++p) {
    ExpertSet& set = g_experts[static_cast<std::size_t>(p)];
    expert_field* fields[3] = {&set.error, &set.warn, &set.note};
    const int severities[3] = {PI_ERROR, PI_WARN, PI_NOTE};
    const char* const summaries[3] = {"Violation of a MUST or MUST NOT", "Violation of a SHOULD or SHOULD NOT",
                                      "Noteworthy (MAY, ignored reserved bits)"};
    for (int s = 0; s < 3; ++s) {
      ei_register_info& e = ei[p][s];
      e.ids = fields[s];
      e.eiinfo.name = kAbbrevs[p][s];
      e.eiinfo.group = PI_PROTOCOL;
      e.eiinfo.severity = severities[s];
      e.eiinfo.summary = summaries[s];
      e.eiinfo.hf_info = {0, {nullptr, nullptr, FT_NONE, BASE_NONE, nullptr, 0, nullptr, HFILL}};
    }
    expert_module_t* module = expert_register_protocol(protos[p]);
    expert_register_field_array(module, ei[p], 3);
  }
}

}  // namespace rdmaconf::dissector
