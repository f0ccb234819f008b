// `rdmaconf faults`: the named faults of the reference IUT.
#include <iomanip>
#include <iostream>

#include "cli/command.hpp"
#include "engine/faults.hpp"

namespace rdmaconf::cli {
namespace {
void add_faults_command(CLI::App& app, int& exit_code) {
  CLI::App* sub = app.add_subcommand("faults", "List the named faults of the reference IUT (each breaks one rule)");
  sub->final_callback([&exit_code] {
    for (const auto& f : conformance::all_faults())
      std::cout << std::left << std::setw(36) << f.name << std::setw(7) << f.layer << f.rule << " (" << f.rfc_section
                << ")\n";
    exit_code = 0;
  });
}
}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(faults, rdmaconf::cli::add_faults_command);
