// The conformance script parser (conformance/engine/script.hpp): text from
// anywhere (a case file someone shares, a generated script) turned into
// Cases and Steps, or a SyntaxError naming file:line.
//
// Input: the script text. Properties:
//  - parsing never faults, and a syntax error names a line of the text;
//  - every parsed step has a line inside the text, and a case has an id;
//  - parsing is deterministic: the same text parses to the same cases or the
//    same error (checked on one input in eight: fuzz::rechecked), and a
//    `param` family never multiplies the text beyond the parser's bounds.
#include <cstdint>
#include <cstring>
#include <string_view>
#include <variant>
#include <vector>

#include "common/input.hpp"
#include "engine/script.hpp"

using namespace rdmaconf;

namespace {

// Where the determinism check runs (fuzz::rechecked), it compares what a
// report shows of each case.
void same_steps(const conformance::Step& a, const conformance::Step& b) {
  FUZZ_CHECK(a.kind == b.kind && a.line == b.line && a.text == b.text && a.unit == b.unit);
  FUZZ_CHECK(a.args.size() == b.args.size() && a.alternatives.size() == b.alternatives.size());
  FUZZ_CHECK(a.within == b.within && a.duration == b.duration && a.connection == b.connection);
}

void same_cases(const std::vector<conformance::Case>& a, const std::vector<conformance::Case>& b) {
  FUZZ_CHECK(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    FUZZ_CHECK(a[i].id == b[i].id && a[i].title == b[i].title && a[i].line == b[i].line);
    FUZZ_CHECK(a[i].requirements == b[i].requirements && a[i].needs == b[i].needs);
    FUZZ_CHECK(a[i].level == b[i].level && a[i].role == b[i].role && a[i].timeout == b[i].timeout);
    FUZZ_CHECK(a[i].steps.size() == b[i].steps.size());
    for (std::size_t k = 0; k < a[i].steps.size(); ++k) same_steps(a[i].steps[k], b[i].steps[k]);
  }
}

}  // namespace

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
    if (fuzz::rechecked(size)) {
      const conformance::ParseResult again = conformance::parse_script(text, "fuzz.case");
      const auto* e2 = std::get_if<conformance::SyntaxError>(&again);
      FUZZ_CHECK(e2 != nullptr && e2->line == e->line && e2->message == e->message);
    }
    return 0;
  }
  const auto& cases = std::get<std::vector<conformance::Case>>(r);
  for (const conformance::Case& c : cases) {
    FUZZ_CHECK(!c.id.empty());
    FUZZ_CHECK(c.line >= 1 && c.line <= lines);
    for (const conformance::Step& s : c.steps) {
      FUZZ_CHECK(s.line >= 1 && s.line <= lines);
      if (s.kind == conformance::StepKind::kExpect) FUZZ_CHECK(!s.alternatives.empty());
    }
    FUZZ_CHECK(!conformance::to_string(c.level).empty() && !conformance::to_string(c.role).empty());
  }
  if (fuzz::rechecked(size)) {
    const conformance::ParseResult again = conformance::parse_script(text, "fuzz.case");
    FUZZ_CHECK(std::holds_alternative<std::vector<conformance::Case>>(again));
    same_cases(cases, std::get<std::vector<conformance::Case>>(again));
  }
  // Durations on their own.
  if (size > 0 && size < 16) (void)conformance::parse_duration(text);
  return 0;
}
