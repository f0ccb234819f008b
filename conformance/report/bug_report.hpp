// A bug report for one finding (`rdmaconf findings RESULTS.json --report F3`):
// what a kernel or firmware maintainer needs to act on it, in Markdown that
// reads as plain text in a mail too. What happens, the rule in our words
// with its section, what was expected and what came, the octets both ways
// with their fields named, how to reproduce it with rdmaconf (the command
// and the case script inline), the capture of the failing case, and the
// build, catalogue and IUT that produced it.
#pragma once

#include <ostream>
#include <string>

#include "report/findings.hpp"
#include "report/report.hpp"

namespace rdmaconf::findings {

struct BugReportInputs {
  std::string script;        // the example case's script text (empty: not found)
  std::string script_path;   // where it was read, relative to the catalogue
  std::string capture_file;  // the capture written beside the report (empty: none)
};

void write_bug_report(std::ostream& out, const Finding& f, const conformance::RunInfo& info, const BugReportInputs& in);

// Octets as a hex dump, 16 per line with their offset: "0000  00 1a 41 43 ...".
std::string hex_dump(const std::vector<std::uint8_t>& octets);

}  // namespace rdmaconf::findings
