#include "engine/catalogue_location.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

#include "engine/engine.hpp"

// Set by CMake from GNUInstallDirs ("../share" for bin/ and share/); relative,
// so that the installed tree can be moved or unpacked anywhere.
#ifndef RDMACONF_DATADIR_FROM_BINDIR
#define RDMACONF_DATADIR_FROM_BINDIR "../share"
#endif

namespace rdmaconf::conformance {

namespace fs = std::filesystem;

std::string CatalogueLookup::error() const {
  std::string out = "no case catalogue found: looked in ";
  for (std::size_t i = 0; i < looked_in.size(); ++i) out += (i ? ", " : "") + looked_in[i];
  return out + "; give --cases-dir DIR or set RDMACONF_CASES=DIR";
}

CatalogueLookup find_catalogue(const std::optional<std::string>& rdmaconf_cases, const fs::path& executable) {
  CatalogueLookup lookup;
  if (rdmaconf_cases && !rdmaconf_cases->empty()) {
    lookup.looked_in.push_back(*rdmaconf_cases);
    lookup.found = *rdmaconf_cases;
    return lookup;
  }
  lookup.looked_in.push_back("$RDMACONF_CASES (not set)");
  if (executable.empty()) return lookup;
  const fs::path bin = executable.parent_path();
  std::vector<fs::path> candidates{bin / RDMACONF_DATADIR_FROM_BINDIR / "rdmaconf" / "cases"};
  fs::path up = bin;
  for (int level = 0; level < 3 && up.has_relative_path(); ++level) {
    up = up.parent_path();
    candidates.push_back(up / "share" / "rdmaconf" / "cases");
  }
  for (fs::path& c : candidates) {
    const std::string shown = c.lexically_normal().string();
    if (std::find(lookup.looked_in.begin(), lookup.looked_in.end(), shown) != lookup.looked_in.end()) continue;
    lookup.looked_in.push_back(shown);
    std::error_code ec;
    if (fs::is_directory(c, ec)) {
      lookup.found = shown;
      return lookup;
    }
  }
  return lookup;
}

CatalogueLookup find_catalogue() {
  std::optional<std::string> env;
  if (const char* v = std::getenv("RDMACONF_CASES")) env = v;
  std::error_code ec;
  // The path of the running program itself, whatever it was started as
  // (a symbolic link, a relative path, through $PATH).
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return find_catalogue(env, ec ? fs::path() : exe);
}

std::string default_cases_dir() { return find_catalogue().found; }

}  // namespace rdmaconf::conformance
