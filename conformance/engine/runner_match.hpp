// Internal to the runner (runner.cpp, runner_match.cpp): a unit the IUT sent
// held against one alternative of a `<` step, and a mismatch as the step's
// outcome. The steps that read (runner.cpp) ask match() whether a unit is
// what the script expects; match() says why not in parts that findings
// keep (engine.hpp, Failure): the field, what the script wanted, what came,
// and a known encoding mistake that explains the octets.
#pragma once

#include <string>

#include "engine/runner_session.hpp"

namespace rdmaconf::conformance::runner {

// Why a unit did not match an alternative: the reason for the report and
// its parts for findings (engine.hpp, Failure). Empty `why`: it matched.
struct Miss {
  std::string why;
  Failure::Kind kind = Failure::Kind::kField;
  std::string field, want, have;
  std::string mistake, hint, mistake_rule, meant;
  bool explained = false;
  bool matched() const { return why.empty(); }
};
Miss miss(Failure::Kind kind, std::string why);

// Empty when `u` matches `alt`; otherwise why not. Captures the alternative
// binds (`field=@name`) join s.captures only when it matches. `diagnose`:
// a Terminate that missed is read for a known encoding mistake as well.
Miss match(Session& s, const Alternative& alt, Received& u, bool diagnose = true);

// An FPDU with a wrong CRC or Marker: the capture observer's rule for it
// is the whole cause (RFC 5044 §4.4, §4.2).
Miss framing_miss(const Received& u);

// The unit's name, or what is wrong with a malformed one.
std::string describe_unit(const Received& u);
// A step's alternatives by unit name: "terminate or close".
std::string alternatives_text(const Step& st);

// A mismatch on a unit the IUT sent.
StepOutcome mismatch(const Miss& m, const Received& u, std::string reason);
StepOutcome mismatch(Failure::Kind kind, const Received& u, std::string reason);

}  // namespace rdmaconf::conformance::runner
