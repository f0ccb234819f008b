// Conformance violations as Wireshark expert infos.
//
// Each violation names a rule id, a requirement level and the RFC section,
// as `rdmaconf analyze` reports them. It appears three ways: an expert info
// (severity from the level: MUST/MUST NOT -> error, SHOULD/SHOULD NOT ->
// warning, MAY and informational -> note), a filterable generated subtree
// (rdmaconf.violation.rule, .level, .section) and the expert message
// "<rule id> <level>: <field>: <rule> (<section>)".
//
// Rule ids are the catalogue's ("rfc<number>-<section>-<slug>", e.g.
// rfc5044-4.4-crc), the ids `rdmaconf analyze` prints. Each check names its
// id; a codec's DecodeError is mapped to one by rule_for() (the one place
// that knows which codec field belongs to which catalogue row). A DecodeError
// no row covers keeps an id made of where its rule is written,
// "RFC<n>-<section>-<field>", so it is never reported without a name.
#pragma once

#include <string>
#include <string_view>

#include "plugin.hpp"
#include "wire/result.hpp"

namespace rdmaconf::dissector {

enum class Level : std::uint8_t { kMust, kMustNot, kShould, kShouldNot, kMay, kInfo };

std::string_view name(Level level);

struct Violation {
  std::string_view id;           // catalogue rule id; empty: derived from section and field
  std::string_view field;        // in the RFC's words
  std::string_view rule;         // our words
  std::string_view rfc_section;  // "RFC 5044 §4.4"
  Level level = Level::kMust;
};

// Which protocol's decoder produced a DecodeError: the same field name can
// belong to different rows (a Reserved field of MPA vs. of CLC).
enum class Source : std::uint8_t { kMpaReqRep, kMpaDeframer, kTerminate, kClc };

// The catalogue row of a codec error, or an empty id.
std::string_view rule_for(Source source, const wire::DecodeError& e);

inline Violation from(Source source, const wire::DecodeError& e, Level level = Level::kMust) {
  return Violation{rule_for(source, e), e.field, e.rule, e.rfc_section, level};
}

// The rule id to print: v.id, or one derived from the section and field.
std::string rule_id(const Violation& v);

// Adds the expert info and the generated subtree, highlighting
// [offset, offset+length) of tvb (length -1: to the end). `proto` selects
// which protocol's expert fields carry it (ids().proto_mpa, ...).
void report(int proto, packet_info* pinfo, proto_tree* tree, tvbuff_t* tvb, int offset, int length,
            const Violation& v);

}  // namespace rdmaconf::dissector
