// Subcommands register themselves: each command file defines one
// registration, and main.cpp adds every registered command to the CLI11 app.
// Adding a command is adding a file; nothing else changes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace rdmaconf::cli {

// Adds the subcommand to `app`. Its callback stores the command's exit code
// in `exit_code` (0 success, 1 a requirement failed, 2 usage or setup error).
using AddCommand = void (*)(CLI::App& app, int& exit_code);

struct CommandEntry {
  std::string_view name;
  AddCommand add;
};

std::vector<CommandEntry>& registered_commands();

// The process's command line as a report keeps it (secrets redacted,
// report.hpp): main() sets it before the subcommand runs.
void set_command_line(int argc, const char* const* argv);
const std::vector<std::string>& command_line();

// `--ulp NAME[:PORT]` (analyze, decode): the upper-layer protocol of every
// connection, or of those to PORT, as Wireshark's Decode As; checked at parse
// time, so the commands may take each value as valid.
void add_ulp_option(CLI::App& sub, std::vector<std::string>& ulps);

struct CommandRegistration {
  CommandRegistration(std::string_view name, AddCommand add) { registered_commands().push_back({name, add}); }
};

}  // namespace rdmaconf::cli

// One per command file, at namespace scope.
#define RDMACONF_COMMAND(name, add_function) \
  static const ::rdmaconf::cli::CommandRegistration rdmaconf_command_##name{#name, add_function}
