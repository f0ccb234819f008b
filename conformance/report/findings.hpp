// Findings: a run's failures grouped by cause (docs/conformance.md,
// "Findings"). A lab that runs the catalogue against a device gets one line
// per cause with every case it explains, not one line per case.
//
// Grouping works from what the run recorded, never from a list of known
// bugs:
//  - a rule the IUT broke in passing (engine.hpp, InPassing) is one finding
//    per rule and encoding mistake, whichever cases it happened in;
//  - a case whose own step failed (engine.hpp, Failure) joins the finding of
//    a known encoding mistake when the step matches the octets read the way
//    the mistake says (siw's little-endian Terminate: every case that fails
//    only on it is that one finding); otherwise it groups with the cases
//    that sent the same kind of stimulus (the unit and the fields the script
//    set), expected the same thing and got the same kind of answer;
//  - a failure that fits no group is a finding of its own.
// A finding's key says all of that in words, so the same cause has the same
// key in two runs (baselines compare keys, baseline.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/engine.hpp"

namespace rdmaconf::findings {

namespace cf = conformance;

// One rule a finding breaks, as the registry names it.
struct RuleRef {
  std::string id, level, section, summary;
};

struct Finding {
  enum class Source : std::uint8_t { kRule, kStep };
  std::string id;   // "F1", "F2" ... in this report, worst first
  std::string key;  // stable across runs: "rule rfc5040-4.8-terminate-format le-bitfield", "step ..."
  Source source = Source::kStep;
  std::string title;        // one line: what the IUT does
  cf::Verdict verdict = cf::Verdict::kFail;  // the worst verdict among its cases
  std::string level;        // the strongest level among its rules and cases ("MUST", "SHOULD", "MAY")
  std::vector<RuleRef> rules;
  std::vector<std::string> sections;  // "RFC 5040 §4.8", one per distinct section
  // What was expected and what came, from its first case.
  std::string expected, got;
  std::string mistake, hint;  // a known encoding mistake that explains the octets
  std::string meant;          // what the octets say read that way
  const cf::CaseResult* example = nullptr;  // the case the octets come from
  std::vector<std::uint8_t> sent, received;  // the tester's stimulus and the IUT's answer
  // `received` is a message as it came on the wire (a rule broken in
  // passing), not the unit a step judged (an FPDU's ULPDU).
  bool received_whole = false;
  std::vector<const cf::CaseResult*> cases;  // every case it explains, by id (then configuration)
};

// The run's findings, worst first (verdict, level, then most cases), each
// numbered. Cases that passed, were unimplemented or could not be run
// (error) explain nothing and are in none, unless they broke a rule in
// passing. The results must outlive the findings.
std::vector<Finding> group(const std::vector<cf::CaseResult>& results);

// The keys of the findings that explain one case (its step's, then the rules
// it broke in passing); empty for a case that passed.
std::vector<std::string> keys_of(const cf::CaseResult& r);

// A key as this rdmaconf writes it: a rule's key read from an older report or
// findings file names the row by the id it had then; a renamed row's old id
// (an alias, reference/requirements/aliases.cpp) becomes its id, so a finding
// stays known across the rename. Other keys are returned as they are.
std::string current_key(std::string_view key);

// The finding a user names: its id ("F3", "3") or a unique prefix of its key.
const Finding* find(const std::vector<Finding>& all, const std::string& name);

// A one-line command that runs one of the finding's cases again, built from
// the run's command line (the token replaced by the variable that holds it,
// outputs and case selection dropped, the case's configuration kept).
std::string reproducer(const std::vector<std::string>& command_line, const std::string& target,
                       const cf::CaseResult& r);

}  // namespace rdmaconf::findings
