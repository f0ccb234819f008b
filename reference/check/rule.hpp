// A requirement and a broken one, as every tool names them.
//
// A Rule is one row of the requirement registry: the catalogue's id
// ("rfc<number>-<section>-<slug>"), the RFC 2119 level, the section that
// states it and a summary in our words. A Violation is what a check function
// of this folder returns when a header breaks a rule: the rule, the field and
// the octet of the DDP segment it concerns, and the value seen beside the one
// the rule wanted. The reference endpoint turns it into its Terminate, the
// capture observer reports it, the Wireshark plugin shows the observer's
// report: one rule, one check, one name. Standard library only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace rdmaconf::check {

// RFC 2119 strength of a requirement; only MUST violations fail `analyze`.
enum class Level : std::uint8_t { kMust, kShould, kMay };
constexpr std::string_view name(Level l) {
  return l == Level::kMust ? "MUST" : l == Level::kShould ? "SHOULD" : "MAY";
}

struct Rule {
  std::string_view id;
  Level level;
  std::string_view section;
  std::string_view summary;
};

struct Violation {
  const Rule* rule = nullptr;
  std::string_view field;     // the RFC's name of the field concerned ("DV", "QN")
  std::size_t octet = 0;      // where that field starts: in the DDP segment, the MPA frame, the CLC block
  std::uint64_t seen = 0;     // its value
  std::uint64_t expected = 0; // the value the rule wanted, where it names one
};

// What a check returns: nothing, or the rule the header broke.
using Outcome = std::optional<Violation>;

// Which function implements a rule (one row of a rule file's table).
struct Implementation {
  const Rule* rule;
  std::string_view function;  // in the rule file's .hpp/.cpp, or the codec function named
};

}  // namespace rdmaconf::check
