// What both programs, rdmaconf and rdmaconf-agent, offer as programs: their
// name in help and usage (not the path they were started by), --version with
// the build's identity, and a hidden --bash-completion that prints their bash
// completion, generated from the same CLI11 definitions that parse their
// command lines (docs/install.md, "Man pages and completions").
#pragma once

#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace rdmaconf::program {

// "NAME VERSION\ncommit COMMIT": the first line is what help2man reads.
std::string version_text(std::string_view name);

// Names the app and adds --version and --bash-completion. Call it before the
// app is parsed; --bash-completion describes every option and subcommand the
// app has by then.
void add_program_flags(CLI::App& app, const std::string& name);

// The bash completion of the app: every subcommand and option, the values
// CLI11 knows (IsMember sets), files or folders where CLI11 expects them.
// Needs bash-completion's helpers (_init_completion, _filedir) when loaded.
std::string bash_completion(const CLI::App& app);

}  // namespace rdmaconf::program
