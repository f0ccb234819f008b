// Where the case catalogue is when no --cases-dir names it. No path of the
// source tree is compiled in: an installed rdmaconf finds the catalogue
// installed beside it, a build-tree one the catalogue the build tree mirrors
// (docs/install.md, "Where rdmaconf finds its catalogue").
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rdmaconf::conformance {

struct CatalogueLookup {
  std::string found;                   // the folder to load; empty when none was found
  std::vector<std::string> looked_in;  // every place tried, in order
  std::string error() const;           // "no case catalogue found: looked in ..."
};

// The rules, in order:
//   1. $RDMACONF_CASES, when set and not empty (taken as it is, existing or not);
//   2. <executable's folder>/<data folder relative to the bin folder>/rdmaconf/cases,
//      the installed layout (<prefix>/bin/rdmaconf, <prefix>/share/rdmaconf/cases);
//   3. share/rdmaconf/cases in the executable's folder's parent, grandparent or
//      great-grandparent: the build tree (<build>/share/rdmaconf/cases, made at
//      configure time, beside <build>/conformance/cli/rdmaconf and the tests).
// `executable` is empty when the running program's path is unknown.
CatalogueLookup find_catalogue(const std::optional<std::string>& rdmaconf_cases,
                               const std::filesystem::path& executable);

// The rules for this process: $RDMACONF_CASES and /proc/self/exe.
CatalogueLookup find_catalogue();

}  // namespace rdmaconf::conformance
