// Which build this is: the project's version and the commit it was built
// from (reports name both).
#pragma once

#include <string_view>

namespace rdmaconf::build_info {
inline std::string_view version() { return RDMACONF_VERSION; }
inline std::string_view commit() { return RDMACONF_COMMIT; }
}  // namespace rdmaconf::build_info
