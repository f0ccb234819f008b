// rdmaconf: the command-line front end. Every subcommand lives in its own
// file in this folder and registers itself (command.hpp).
#include <algorithm>

#include "cli/command.hpp"
#include "report/report.hpp"
#include "program/program.hpp"

namespace rdmaconf::cli {
std::vector<CommandEntry>& registered_commands() {
  static std::vector<CommandEntry> commands;
  return commands;
}

namespace {
std::vector<std::string>& the_command_line() {
  static std::vector<std::string> words;
  return words;
}
}  // namespace
void set_command_line(int argc, const char* const* argv) {
  the_command_line() = conformance::redact_command_line(argc, argv);
}
const std::vector<std::string>& command_line() { return the_command_line(); }
}  // namespace rdmaconf::cli

int main(int argc, char** argv) {
  CLI::App app{"rdmaconf: conformance and fuzzing suite for RDMA over IP (iWARP MPA/DDP/RDMAP, SMC-R CLC)"};
  app.require_subcommand(1);
  rdmaconf::program::add_program_flags(app, "rdmaconf");

  int exit_code = 0;
  auto commands = rdmaconf::cli::registered_commands();
  std::sort(commands.begin(), commands.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& c : commands) c.add(app, exit_code);

  rdmaconf::cli::set_command_line(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help exits 0; a usage error exits 2, like every setup error of rdmaconf.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return exit_code;
}
