// `rdmaconf fuzz` as a function (conformance/cli/fuzz.cpp): the command
// line's options, and hooks for whoever runs it in process (the console,
// the dashboard's fuzz runs: conformance/cli/serve.cpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "cli/clc_options.hpp"
#include "wirefuzz/fuzzer.hpp"

namespace rdmaconf::cli {

// The options of `rdmaconf fuzz` (docs/fuzzing.md, "Wire fuzzing").
struct FuzzArgs {
  std::string target, out, json, cases_dir;
  std::string agent, token, agent_listen, agent_config, listen;
  bool reference = false;
  std::vector<std::string> faults, globs, excludes, case_files, iut_lacks, suites;
  double seconds = 0;
  std::uint64_t iterations = 0, seed = 1;
  double time_scale = 1.0;
  unsigned settle_ms = 40, revive_s = 10;
  int minimize_runs = 60;
  std::size_t history = 0;  // inputs kept since the IUT was last restored (FuzzOptions::history; 0: all, capped)
  // A command that brings the IUT back to a fresh state (fuzz_restore.hpp),
  // its bound, and where its output goes (default: restore.log under `out`).
  std::string restore_command, restore_log;
  unsigned restore_timeout_s = 900;
  ClcIdentityArgs clc;  // the CLC server target: who the tester's peer says it is (clc_options.hpp)
};

struct FuzzHooks {
  std::ostream* out = &std::cout;  // the run's first and last lines
  std::ostream* err = &std::cerr;  // usage errors and what stopped the run
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(const conformance::wirefuzz::FuzzProgress&)> on_progress;  // about once a second
  std::function<void(const conformance::wirefuzz::Finding&)> on_finding;
  conformance::wirefuzz::FuzzSummary* summary = nullptr;  // the run's summary, when it ran
};

// Runs `rdmaconf fuzz` with these options: 0 nothing found, 1 findings, 2 a
// usage error or a run that could not start (said on hooks.err).
int execute_fuzz(const FuzzArgs& a, const FuzzHooks& hooks);

}  // namespace rdmaconf::cli
