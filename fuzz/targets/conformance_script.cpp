// The conformance script parser (conformance/engine/script.hpp): text from
// anywhere (a case file someone shares, a generated script) turned into
// Cases and Steps, or a SyntaxError naming file:line.
//
// Input: the script text. Properties:
//  - parsing never faults, and a syntax error names a line of the text;
//  - every parsed step has a line inside the text, and a case has an id;
//  - parsing is deterministic: the same text parses to the same cases, and
//    a `param` family never multiplies the text beyond the parser's bounds.
#include <cstdint>
#include <cstring>
#include <string_view>
#include <variant>

#include "common/input.hpp"
#include "engine/script.hpp"

using namespace rdmaconf;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // Lines counted with memchr: std::count would compare every character,
  // and the fuzz build traces each of those comparisons.
  int lines = 1;
  for (std::size_t at = 0; at < size; ++at, ++lines) {
    const void* nl = std::memchr(data + at, '\n', size - at);
    if (nl == nullptr) break;
    at = static_cast<std::size_t>(static_cast<const std::uint8_t*>(nl) - data);
  }
  const conformance::ParseResult r = conformance::parse_script(text, "fuzz.case");
  if (const auto* e = std::get_if<conformance::SyntaxError>(&r)) {
    FUZZ_CHECK(e->line >= 0 && e->line <= lines);
    FUZZ_CHECK(!e->to_string().empty());
    return 0;
  }
  const auto& cases = std::get<std::vector<conformance::Case>>(r);
  std::size_t steps = 0;
  for (const conformance::Case& c : cases) {
    FUZZ_CHECK(!c.id.empty());
    FUZZ_CHECK(c.line >= 1 && c.line <= lines);
    for (const conformance::Step& s : c.steps) {
      FUZZ_CHECK(s.line >= 1 && s.line <= lines);
      if (s.kind == conformance::StepKind::kExpect) FUZZ_CHECK(!s.alternatives.empty());
    }
    steps += c.steps.size();
    FUZZ_CHECK(!conformance::to_string(c.level).empty() && !conformance::to_string(c.role).empty());
  }
  // Determinism: a second parse gives the same shape.
  const conformance::ParseResult again = conformance::parse_script(text, "fuzz.case");
  FUZZ_CHECK(std::holds_alternative<std::vector<conformance::Case>>(again));
  const auto& cases2 = std::get<std::vector<conformance::Case>>(again);
  FUZZ_CHECK(cases2.size() == cases.size());
  std::size_t steps2 = 0;
  for (const conformance::Case& c : cases2) steps2 += c.steps.size();
  FUZZ_CHECK(steps2 == steps);
  // Durations on their own.
  if (size > 0 && size < 16) (void)conformance::parse_duration(text);
  return 0;
}
