// Every rule file of the rule layer, joined: which function implements which
// rule id, across segment.hpp, smcr.hpp, ulp.hpp, mpa_startup.hpp, mpa_tcp.hpp
// and clc.hpp.
//
// Each rule file keeps its own table (a constexpr array of Implementation
// rows in its .cpp, returned by `<file>_implementations()`) and the list of
// its rules (`<file>_rules()`). A new rule file adds one line to each list
// in registry.cpp; the test (reference/tests/check_registry_test.cpp) then
// holds that no rule id has two implementations, in one file or across them.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "check/rule.hpp"

namespace rdmaconf::check {

// One rule file: its name, its table and its rules.
struct RuleFile {
  std::string_view name;  // "segment", "smcr", ...
  std::span<const Implementation> (*implementations)();
  std::span<const Rule* const> (*rules)();
};
std::span<const RuleFile> rule_files();
// The rules only one side of a connection can judge, resting on what it has
// (a CLC server's prefixes, EIDs, link groups: the handshake machines'):
// implemented here too, but no capture can break them, so they are not among
// all_rules(), the rules the analyzer reports.
std::span<const RuleFile> local_rule_files();

// Every file's rows (those of the local rules too), in file order.
std::vector<Implementation> implementations();
std::vector<const Rule*> all_rules();
std::vector<const Rule*> local_rules();
// The row that implements `id`, or null.
const Implementation* find_implementation(std::string_view id);

}  // namespace rdmaconf::check
