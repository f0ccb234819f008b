// What the wire fuzzer's tests share: the catalogue they take their seeds
// from (loaded once per process), a printed script read back as one case,
// and the loopback listener their relays "crash" by closing
// (conformance/tests/support/loopback_listener.hpp).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "engine/engine.hpp"
#include "tests/support/loopback_listener.hpp"

namespace rdmaconf::conformance::wirefuzz {

inline const Catalogue& catalogue() {
  static const Catalogue cat = load_catalogue(std::string(RDMACONF_SOURCE_DIR) + "/conformance/cases");
  return cat;
}

// A script the fuzzer printed, parsed back: its one case, of `protocol`.
inline Case parse_one(const std::string& text, const std::string& protocol) {
  auto parsed = parse_script(text, "printed.case");
  if (auto* e = std::get_if<SyntaxError>(&parsed)) {
    ADD_FAILURE() << e->to_string() << "\n" << text;
    return {};
  }
  Case c = std::get<std::vector<Case>>(parsed).front();
  c.protocol = protocol;
  return c;
}

}  // namespace rdmaconf::conformance::wirefuzz
