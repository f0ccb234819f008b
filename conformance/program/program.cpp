#include "program/program.hpp"

#include <iostream>

#include "program/build_info.hpp"

namespace rdmaconf::program {

std::string version_text(std::string_view name) {
  std::string text(name);
  text += " ";
  text += build_info::version();
  text += "\ncommit ";
  text += build_info::commit();
  return text;
}

void add_program_flags(CLI::App& app, const std::string& name) {
  app.name(name);
  app.set_version_flag("--version", [name] { return version_text(name); }, "Print the version and commit, and exit");
  // Hidden (no group): for the build, which installs what it prints.
  // Callbacks run before requirements are checked, as --version's does, so
  // required options need not be given.
  app.add_flag_callback(
         "--bash-completion",
         [&app] {
           std::cout << bash_completion(app);
           throw CLI::Success();
         },
         "Print the bash completion script and exit")
      ->group("")
      ->configurable(false);
}

}  // namespace rdmaconf::program
