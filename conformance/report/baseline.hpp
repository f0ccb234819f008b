// Baselines: gate on what is new (docs/conformance.md, "Baselines").
//
// A lab that knows its device's quirks gives `rdmaconf run --baseline
// KNOWN.json`: an earlier run's results.json, or a findings file written by
// `rdmaconf findings --json` and edited by hand (findings removed from it are
// no longer accepted). Against it, a failing case is
//   known  when the same case (id and configuration) failed in the baseline
//          and every finding that explains it now is one the baseline has for
//          it;
//   new    otherwise (a case that passed before, one not in the baseline, or
//          one that now fails for another cause too);
// a case that failed in the baseline and passes now is fixed. A finding is
// known when its key is in the baseline, new when not, and a baseline finding
// none of whose cases fail now (of those that ran) is fixed. New failures and
// new findings fail the run; known ones are still shown.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "report/findings.hpp"

namespace rdmaconf::baseline {

namespace cf = conformance;

using CaseKey = std::pair<std::string, std::string>;  // case id, configuration

struct Baseline {
  std::string source;  // the file it was read from, for reports
  std::map<CaseKey, std::vector<std::string>> failing;  // a failing case -> the keys of its findings
  std::map<std::string, std::string> titles;            // finding key -> title, for the fixed list
};

// Reads a results.json or a findings file. False with `error` saying what
// does not fit; nothing it holds is trusted beyond its own text (sizes are
// bounded by the text, every member is checked for its type).
bool read(std::string_view text, Baseline& out, std::string& error);

enum class Status : std::uint8_t { kKnown, kNew };
std::string_view to_string(Status s);

struct Comparison {
  std::string source;
  std::map<const cf::CaseResult*, Status> cases;  // every failing case of the run
  std::map<std::string, Status> findings;         // every finding key of the run
  std::vector<CaseKey> fixed_cases;               // failed in the baseline, passed now
  std::vector<std::pair<std::string, std::string>> fixed_findings;  // key, title
  int new_cases = 0, known_cases = 0, new_findings = 0, known_findings = 0;

  // A new failure (verdict fail) or a new finding with a failing case:
  // what makes a run with a baseline exit 1.
  bool has_new_failure() const;
};

// One case against the baseline, as it ends (the run's progress lines):
// nullopt for a case that did not fail.
std::optional<Status> status_of(const Baseline& known, const cf::CaseResult& r);

Comparison compare(const Baseline& known, const std::vector<cf::CaseResult>& results,
                   const std::vector<findings::Finding>& found);

}  // namespace rdmaconf::baseline
