// The build's identity: which rdmaconf this is. Every report names it (so a
// result can be traced to the code that produced it) and both programs print
// it for --version.
#pragma once

#include <string_view>

namespace rdmaconf::build_info {

// The project's version (CMakeLists.txt, project(... VERSION)), e.g. "0.1.0".
std::string_view version();

// The git commit the build was made from: 40 hex digits, followed by "-dirty"
// when tracked files differed from it at build time; the value of the CMake
// cache variable RDMACONF_COMMIT when that is set (a package built from a
// tarball); "unknown" outside a git checkout.
std::string_view commit();

}  // namespace rdmaconf::build_info
