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
constexpr int kSets = 10;
std::array<ExpertSet, kSets> g_experts;

int slot_of(int proto) {
  const Ids& i = ids();
  if (proto == i.proto_ddp) return 1;
  if (proto == i.proto_rdmap) return 2;
  if (proto == i.proto_clc) return 3;
  if (proto == i.proto_rpcrdma) return 4;
  if (proto == i.proto_iser) return 5;
  if (proto == i.proto_roce) return 6;
  if (proto == i.proto_smcr_llc) return 7;
  if (proto == i.proto_smcr_cdc) return 8;
  if (proto == i.proto_ddp_sctp) return 9;
  return 0;
}

}  // namespace

int proto_of_rule(const analysis::Rule& rule) {
  const std::string_view id = rule.id;
  if (id.starts_with("rfc5044") || id.starts_with("rfc6581")) return ids().proto_mpa;
  if (id.starts_with("rfc5041")) return ids().proto_ddp;
  if (id.starts_with("rfc5040") || id.starts_with("rfc7306")) return ids().proto_rdmap;
  // The ULPs' rules (RFC 8166, RFC 8267; RFC 7145) under their protocols.
  if (id.starts_with("rfc8166") || id.starts_with("rfc8267")) return ids().proto_rpcrdma;
  if (id.starts_with("rfc7145")) return ids().proto_iser;
  if (id.starts_with("rfc5043")) return ids().proto_ddp_sctp;
  return ids().proto_clc;
}

void report(int proto, packet_info* pinfo, proto_tree* tree, tvbuff_t* tvb, int offset, int length,
            const analysis::Rule& rule, const std::string& seen, const std::string& hint,
            std::string_view mistake) {
  const Ids& i = ids();
  ExpertSet& set = g_experts[static_cast<std::size_t>(slot_of(proto))];
  expert_field* ei = rule.level == analysis::Level::kMust     ? &set.error
                     : rule.level == analysis::Level::kShould ? &set.warn
                                                              : &set.note;
  const int available = tvb_captured_length_remaining(tvb, offset);
  if (available <= 0) {
    offset = 0;
    length = 0;
  } else if (length < 0 || length > available) {
    length = available;
  }
  const std::string id(rule.id);
  const std::string level(analysis::name(rule.level));
  const std::string section(rule.section);
  // A row without a phrase (rule.summary empty) shows none, as analyze does.
  const std::string text = id + " " + level + (hint.empty() ? "" : " [hint: " + std::string(mistake) + "]") + ": " +
                           (rule.summary.empty() ? "" : std::string(rule.summary) + " ") + "(" + section + "): " + seen;
  proto_item* item = proto_tree_add_string_format(tree, i.violation, tvb, offset, length, id.c_str(), "Violation %s",
                                                  text.c_str());
  proto_tree* sub = proto_item_add_subtree(item, i.ett_violation);
  proto_item_set_generated(proto_tree_add_string(sub, i.violation_rule, tvb, offset, length, id.c_str()));
  proto_item_set_generated(proto_tree_add_string(sub, i.violation_level, tvb, offset, length, level.c_str()));
  proto_item_set_generated(proto_tree_add_string(sub, i.violation_section, tvb, offset, length, section.c_str()));
  if (!hint.empty())
    proto_item_set_generated(proto_tree_add_string(sub, i.violation_hint, tvb, offset, length, hint.c_str()));
  proto_item_set_generated(item);
  expert_add_info_format(pinfo, item, ei, "%s", text.c_str());
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
        "MUST, SHOULD or MAY (pcap/analysis/rules.hpp)", HFILL}},
      {&i.violation_section,
       {"RFC section", "rdmaconf.violation.section", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Where the rule is written", HFILL}},
      {&i.violation_hint,
       {"Likely encoding mistake", "rdmaconf.violation.hint", FT_STRING, BASE_NONE, nullptr, 0x0,
        "A known encoding mistake that explains the octets, and what they mean read that way", HFILL}},
  };
  proto_register_field_array(i.proto_mpa, hf, static_cast<int>(G_N_ELEMENTS(hf)));

  static const char* const kAbbrevs[kSets][3] = {
      {"rdmaconf.mpa.violation.error", "rdmaconf.mpa.violation.warn", "rdmaconf.mpa.violation.note"},
      {"rdmaconf.ddp.violation.error", "rdmaconf.ddp.violation.warn", "rdmaconf.ddp.violation.note"},
      {"rdmaconf.rdmap.violation.error", "rdmaconf.rdmap.violation.warn", "rdmaconf.rdmap.violation.note"},
      {"rdmaconf.clc.violation.error", "rdmaconf.clc.violation.warn", "rdmaconf.clc.violation.note"},
      {"rdmaconf.rpcrdma.violation.error", "rdmaconf.rpcrdma.violation.warn", "rdmaconf.rpcrdma.violation.note"},
      {"rdmaconf.iser.violation.error", "rdmaconf.iser.violation.warn", "rdmaconf.iser.violation.note"},
      {"rdmaconf.roce.violation.error", "rdmaconf.roce.violation.warn", "rdmaconf.roce.violation.note"},
      {"rdmaconf.smcr.llc.violation.error", "rdmaconf.smcr.llc.violation.warn", "rdmaconf.smcr.llc.violation.note"},
      {"rdmaconf.smcr.cdc.violation.error", "rdmaconf.smcr.cdc.violation.warn", "rdmaconf.smcr.cdc.violation.note"},
      {"rdmaconf.ddp_sctp.violation.error", "rdmaconf.ddp_sctp.violation.warn", "rdmaconf.ddp_sctp.violation.note"},
  };
  const int protos[kSets] = {i.proto_mpa,  i.proto_ddp,  i.proto_rdmap,    i.proto_clc,     i.proto_rpcrdma,
                             i.proto_iser, i.proto_roce, i.proto_smcr_llc, i.proto_smcr_cdc, i.proto_ddp_sctp};
  // One expert field per level a rule can have: MUST, SHOULD, MAY.
  constexpr int kLevels = 3;
  static ei_register_info ei[kSets][kLevels];
  for (int p = 0; p < kSets; ++p) {
    ExpertSet& set = g_experts[static_cast<std::size_t>(p)];
    expert_field* fields[kLevels] = {&set.error, &set.warn, &set.note};
    const int severities[kLevels] = {PI_ERROR, PI_WARN, PI_NOTE};
    const char* const summaries[kLevels] = {"Violation of a MUST-level rule", "Violation of a SHOULD-level rule",
                                      "Violation of a MAY-level rule"};
    for (int s = 0; s < kLevels; ++s) {
      ei_register_info& e = ei[p][s];
      e.ids = fields[s];
      e.eiinfo.name = kAbbrevs[p][s];
      e.eiinfo.group = PI_PROTOCOL;
      e.eiinfo.severity = severities[s];
      e.eiinfo.summary = summaries[s];
      e.eiinfo.hf_info = {0, {nullptr, nullptr, FT_NONE, BASE_NONE, nullptr, 0, nullptr, HFILL}};
    }
    expert_module_t* module = expert_register_protocol(protos[p]);
    expert_register_field_array(module, ei[p], kLevels);
  }
}

}  // namespace rdmaconf::dissector
