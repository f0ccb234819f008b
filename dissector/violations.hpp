// Conformance violations as Wireshark expert infos.
//
// Each violation names a rule id, a requirement level and the RFC section,
// as `rdmaconf analyze` reports them. It appears three ways: an expert info
// (severity from the level: MUST/MUST NOT -> error, SHOULD/SHOULD NOT ->
// warning, MAY and informational -> note), a filterable generated subtree
// (rdmaconf.violation.rule, .level, .section) and the expert message
// "<rule id> <level>: <field>: <rule> (<section>)".
//
// Rule ids: until conformance/requirements (the catalogue's registry) is in
// the tree, a violation found by a codec is identified by where its rule is
// written, "RFC<n>-<section>-<field>" (e.g. RFC5044-7.1.4-PD_Length), which is
// what the DecodeError carries. rule_id() is the one place that maps to the
// catalogue's ids once they exist.
#pragma once

#include <string>
#include <string_view>

#include "plugin.hpp"
#include "wire/result.hpp"

namespace rdmaconf::dissector {

enum class Level : std::uint8_t { kMust, kMustNot, kShould, kShouldNot, kMay, kInfo };

std::string_view name(Level level);

struct Violation {
  std::string_view field;        // in the RFC's words
  std::string_view rule;         // our words
  std::string_view rfc_section;  // "RFC 5044 §4.4"
  Level level = Level::kMust;
};

inline Violation from(const wire::DecodeError& e, Level level = Level::kMust) {
  return Violation{e.field, e.rule, e.rfc_section, level};
}

// "RFC5044-4.4-CRC": the interim rule id (see above).
std::string rule_id(const Violation& v);

// Adds the expert info and the generated subtree, highlighting
// [offset, offset+length) of tvb (length -1: to the end). `proto` selects
// which protocol's expert fields carry it (ids().proto_mpa, ...).
void report(int proto, packet_info* pinfo, proto_tree* tree, tvbuff_t* tvb, int offset, int length,
            const Violation& v);

}  // namespace rdmaconf::dissector
