// `rdmaconf report`: the reports of several `rdmaconf run --json` files as one
// run (JSON, JUnit, HTML), for a suite that had to be split across runs: the
// live SMC run reboots the IUT's host between client-role cases
// (ci/interop.sh, docs/interop.md).
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/command.hpp"
#include "engine/engine.hpp"
#include "cli/html_report.hpp"
#include "cli/output.hpp"
#include "report/report.hpp"

namespace rdmaconf::cli {
namespace {
namespace cf = conformance;

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string dir = cf::default_cases_dir();
  std::string json, junit, html;
};

int merge_reports(const ReportArgs& a) {
  for (const auto& [option, path, kind] : {std::tuple{"--json", &a.json, OutputKind::kFile},
                                           {"--junit", &a.junit, OutputKind::kFile},
                                           {"--html", &a.html, OutputKind::kFolder}}) {
    std::string error;
    if (is_stdout(*path) && path != &a.json) error = "writes files: give a name (only --json takes - for standard output)";
    if (!error.empty() || !prepare_output(*path, kind, error)) {
      std::cerr << "rdmaconf report: " << option << ": " << error << "\n";
      return 2;
    }
  }
  const cf::Catalogue cat = cf::load_catalogue(a.dir);
  std::vector<cf::CaseResult> results;
  cf::RunInfo info;
  for (const std::string& path : a.inputs) {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "rdmaconf report: cannot read " << path << "\n";
      return 2;
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::string error;
    if (!cf::read_json(text.str(), cat.cases, results, info, error)) {
      std::cerr << "rdmaconf report: " << path << ": " << error << "\n";
      return 2;
    }
  }
  // The inputs stay where they are: whatever cannot be written is said, the
  // other reports are still written.
  bool written = true;
  auto write = [&](const char* option, const std::string& path, auto fn) {
    std::string error;
    if (path.empty() || write_output(path, [&](std::ostream& f) { fn(f, results, info); }, error)) return;
    std::cerr << "rdmaconf report: " << option << ": " << error << "\n";
    written = false;
  };
  write("--junit", a.junit, cf::write_junit);
  write("--json", a.json, cf::write_json);
  if (!a.html.empty()) {
    const nlohmann::json config = {{"merged_reports", a.inputs}};
    std::string error;
    if (!write_html_report(a.html, results, info, config, nullptr, a.dir, error)) {
      std::cerr << "rdmaconf report: --html: " << error << "\n";
      written = false;
    }
  }
  if (!written) return 2;
  const cf::Summary s = cf::summarize(results);
  std::ostream& text = text_stream(a.json);
  text << "rdmaconf report: " << s.total << " cases from " << a.inputs.size() << " reports:";
  for (const auto& [v, n] : s.counts) text << " " << cf::to_string(v) << " " << n;
  text << "\n";
  return s.exit_code();
}

void add_report_command(CLI::App& app, int& exit_code) {
  static ReportArgs a;
  CLI::App* sub = app.add_subcommand(
      "report", "Write the JSON reports of several `rdmaconf run`s as one run's reports (cases in the order given)");
  sub->add_option("reports", a.inputs, "JSON reports written by rdmaconf run --json")->required()->check(CLI::ExistingFile);
  sub->add_option("--cases-dir", a.dir, "The catalogue the runs used (cases are found by id)")->capture_default_str();
  add_json_option(*sub, a.json, "Write the JSON report");
  sub->add_option("--junit", a.junit, "Write JUnit XML here");
  sub->add_option("--html", a.html, "Write a self-contained HTML report into this folder");
  sub->final_callback([&exit_code] { exit_code = merge_reports(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(report, rdmaconf::cli::add_report_command);
