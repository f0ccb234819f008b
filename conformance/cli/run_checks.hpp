// `rdmaconf run` fails fast and loses nothing (docs/conformance.md,
// "Outputs and exit codes"): before the first case its options are checked
// against each other and against the catalogue, every output is proved
// writable and every target it will connect to is probed; after the last
// case the reports are written, and when one cannot be, the results are
// saved to a file the run names.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "cli/run.hpp"

namespace rdmaconf::cli {

// The exit codes of every command of rdmaconf and rdmaconf-agent.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;       // a case (a requirement) failed
inline constexpr int kExitUsage = 2;        // bad or meaningless options, unreadable input, unreachable target
inline constexpr int kExitNotSpeaking = 3;  // the probe before the first case failed
inline constexpr int kExitReportLost = 4;   // a report could not be written; the results are in a fallback file

// What `rdmaconf run --help` says of them.
extern const char* const kRunExitCodesHelp;

// An option that the others make meaningless (it would be silently
// ignored) or that names nothing the run knows: the message names both
// options; empty when the options make sense together.
std::string check_run_options(const RunArgs& a);

// --suite and --case against the catalogue: each must select a case.
std::string check_selection(const conformance::Catalogue& cat, const RunArgs& a);

// One file or folder the run writes, as the options name it.
struct RunOutput {
  const char* option;  // "--junit"
  std::string path;
  bool folder = false;
};
// --junit, --json, --html, --pcap (those given).
std::vector<RunOutput> run_outputs(const RunArgs& a);

// Before anything runs: the outputs' folders made, each output proved
// writable (prepare_output, output.hpp), no two outputs the same file.
bool prepare_run_outputs(const std::vector<RunOutput>& outputs, std::string& error);

// Before the first case of a pass: every target the pass's runnable cases
// connect to answers as its protocol asks (probe.hpp). Initiator-role cases
// connect to the tester: nothing to probe. What answered is noted on
// `note` (null: quiet). Returns 0, kExitUsage when a target cannot be
// reached, kExitNotSpeaking when one does not speak its protocol, with
// `error` saying which and what came instead.
int probe_targets(const std::vector<const conformance::Case*>& runnable, const conformance::RunOptions& o,
                  std::ostream* note, std::string& error);

// A report to write at the end: false with `error` when it could not be.
struct ReportWrite {
  const char* option;
  std::string path;
  std::function<bool(std::string& error)> write;
};
// Writes every report. When one fails, says so on `err` and makes sure the
// results are somewhere: in the --json report if that one was written,
// else in a fallback file (output.hpp) whose name is printed. False when
// any report failed (the run then exits kExitReportLost).
bool write_run_reports(const std::vector<ReportWrite>& reports, const std::string& json_path,
                       const std::function<void(std::ostream&)>& json_results, std::ostream& err);

}  // namespace rdmaconf::cli
