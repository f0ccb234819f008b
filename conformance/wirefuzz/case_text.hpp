// A case as script text (docs/conformance.md): what `rdmaconf fuzz` writes
// for every input it runs, so that a finding's reproducer is the very text
// that found it, readable and runnable with `rdmaconf run --case-file`.
#pragma once

#include <string>

#include "engine/script.hpp"

namespace rdmaconf::conformance::wirefuzz {

// One value as a script writes it: 17, "text", hex:0011, a named value,
// $rw.stag+4, @name.
std::string value_text(const Value& v);
// `name=value` (or a bare `name`), with the matcher's operator and mask.
std::string arg_text(const Arg& a);
// One step as a line of the script.
std::string step_text(const Step& st);
// The whole case: its header, then one step per line. Parsing it again
// gives the same case (parse_script), which the tests check.
std::string case_text(const Case& c);

}  // namespace rdmaconf::conformance::wirefuzz
