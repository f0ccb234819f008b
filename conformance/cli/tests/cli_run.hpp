// Runs the `rdmaconf` binary for the CLI tests: exit code, standard output
// and standard error apart, and how long it took.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/support/scratch_folder.hpp"

namespace rdmaconf::cli::testing {

struct Ran {
  int code = -1;
  std::string out, err;
  std::chrono::milliseconds took{0};
};

using test_support::slurp;

// `prefix` goes before the binary (environment settings: "TMPDIR=/x").
inline Ran rdmaconf(const std::string& args, const std::string& prefix = "") {
  static int counter = 0;
  const std::string base = (std::filesystem::temp_directory_path() /
                            ("rdmaconf-cli-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++)))
                               .string();
  const std::string cmd = prefix + " " + RDMACONF_EXE + " " + args + " > " + base + ".out 2> " + base + ".err";
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  Ran r;
  r.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(base + ".out");
  r.err = slurp(base + ".err");
  std::filesystem::remove(base + ".out");
  std::filesystem::remove(base + ".err");
  return r;
}

}  // namespace rdmaconf::cli::testing
