// rdmaconf: the command-line front end. Each subcommand lives in its own
// file; its callback runs it and leaves the exit code.
#include <CLI/CLI.hpp>

#include "loopback.hpp"

int main(int argc, char** argv) {
  CLI::App app{"rdmaconf: conformance and fuzzing suite for RDMA over IP (iWARP MPA/DDP/RDMAP, SMC-R CLC)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rdmaconf 0.1.0");

  rdmaconf::cli::LoopbackOptions loopback;
  rdmaconf::cli::add_loopback_command(app, loopback);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help exits 0; a usage error exits 2, like every setup error of rdmaconf.
    return app.exit(e) == 0 ? 0 : 2;
  }
  return loopback.exit_code;
}
