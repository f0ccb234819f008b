// A requirement and a broken one, as every tool names them.
//
// A Rule is the rule layer's view of one row of the requirement registry
// (requirements/requirement.hpp), taken from the row at compile time: the
// row's id, the weight a violation has in a verdict, the row's citation
// ("RFC 5044 §7.1.2") and its phrase ("DV is 1"). A rule file names its rows
// by id and restates nothing:
//
//   inline constexpr const Rule& kDdpVersion = rule<"rfc5041-4.1-dv-1">;
//
// An id that is no registry row does not compile. A Violation is what a check
// function of this folder returns when a header breaks a rule: the rule, the
// field and the octet of the DDP segment it concerns, and the value seen
// beside the one the rule wanted. The reference endpoint turns it into its
// Terminate, the capture observer reports it, the Wireshark plugin shows the
// observer's report: one rule, one check, one name. Standard library only.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "requirements/table.hpp"

namespace rdmaconf::check {

// How much a violation weighs (the row's weight): only MUST violations fail
// `analyze`. name(Level) prints "MUST", "SHOULD", "MAY".
using Level = requirements::Weight;
using requirements::name;

struct Rule {
  std::string_view id;
  Level level;               // the row's weight
  std::string_view section;  // the row's citation
  std::string_view summary;  // the row's phrase
  const requirements::Requirement* row = nullptr;  // the whole row (its decline diagnosis, ...)
};

// A registry id as a template argument: rule<"rfc5041-4.1-dv-1">.
template <std::size_t N>
struct RowId {
  char text[N]{};
  constexpr RowId(const char (&id)[N]) { std::copy_n(id, N, text); }  // NOLINT: implicit on purpose
  constexpr std::string_view view() const { return {text, N - 1}; }
};

// A row's citation, kept once per row for the Rule that views it.
template <RowId id>
inline constexpr requirements::Citation kCitation = requirements::citation(requirements::row(id.view()));

// The Rule of a registry row; one object per id, shared by every file that names it.
template <RowId id>
inline constexpr Rule rule{requirements::row(id.view()).id, requirements::row(id.view()).weight,
                           kCitation<id>.view(), requirements::row(id.view()).phrase,
                           &requirements::row(id.view())};

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
