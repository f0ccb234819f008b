// The tester's CLC identity on the command line: --clc-eid, --clc-prefix,
// --clc-gid, --clc-mac. `rdmaconf run` and `rdmaconf fuzz` declare and
// parse them here, once, so that both speak to a real SMC server as the
// same peer (conformance/engine/clc_identity.hpp says what each value is
// and why a real IUT judges it).
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include "engine/clc_identity.hpp"

namespace CLI {
class App;
}

namespace rdmaconf::cli {

// The four options as given: "auto" learns a value from each connection,
// "fixed" keeps the tester's own (GID and MAC), anything else is the value.
struct ClcIdentityArgs {
  std::string eid = "RDMACONF-TEST-EID", prefix = "auto", gid = "fixed", mac = "fixed";

  // The option names of the values that differ from the defaults.
  std::string given() const;
  // One line for a run's console: what the tester's CLC peer says it is.
  std::string describe() const;
  // The options that differ from the defaults as a command line takes
  // them (" --clc-eid X --clc-prefix A.B.C.D/N"): a reproducer's command.
  std::string options() const;
};

// Declares the four options on `sub`, with their help and defaults.
void add_clc_identity_options(CLI::App& sub, ClcIdentityArgs& a);

// The identity the engine uses (RunOptions::clc_identity); unset, with a
// message naming `command` and the option, on malformed text.
std::optional<conformance::ClcIdentity> clc_identity_from(const ClcIdentityArgs& a, std::string_view command,
                                                           std::ostream& err);

}  // namespace rdmaconf::cli
