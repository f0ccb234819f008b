// `rdmaconf report`: the reports of several `rdmaconf run --json` files as one
// run (JSON, JUnit, HTML), for a suite that had to be split across runs: the
// live SMC run reboots the IUT's host between client-role cases
// (ci/interop.sh, docs/interop.md).
#include <fstream>
#include <iostream>
#include <sstream>

#include "command.hpp"
#include "engine.hpp"
#include "html_report.hpp"
#include "report.hpp"

namespace rdmaconf::cli {
namespace {
namespace cf = conformance;

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string dir = cf::default_cases_dir();
  std::string json, junit, html;
};

int merge_reports(const ReportArgs& a) {
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
  auto write = [&](const std::string& path, auto fn) {
    std::ofstream f(path);
    if (!f) {
      std::cerr << "rdmaconf report: cannot write " << path << "\n";
      return false;
    }
    fn(f, results, info);
    return true;
  };
  if (!a.junit.empty() && !write(a.junit, cf::write_junit)) return 2;
  if (!a.json.empty() && !write(a.json, cf::write_json)) return 2;
  if (!a.html.empty()) {
    const nlohmann::json config = {{"merged_reports", a.inputs}};
    if (!write_html_report(a.html, results, info, config, nullptr, a.dir, std::cerr)) return 2;
  }
  const cf::Summary s = cf::summarize(results);
  std::cout << "rdmaconf report: " << s.total << " cases from " << a.inputs.size() << " reports:";
  for (const auto& [v, n] : s.counts) std::cout << " " << cf::to_string(v) << " " << n;
  std::cout << "\n";
  return s.exit_code();
}

void add_report_command(CLI::App& app, int& exit_code) {
  static ReportArgs a;
  CLI::App* sub = app.add_subcommand(
      "report", "Write the JSON reports of several `rdmaconf run`s as one run's reports (cases in the order given)");
  sub->add_option("reports", a.inputs, "JSON reports written by rdmaconf run --json")->required()->check(CLI::ExistingFile);
  sub->add_option("--cases-dir", a.dir, "The catalogue the runs used (cases are found by id)")->capture_default_str();
  sub->add_option("--json", a.json, "Write the JSON report here");
  sub->add_option("--junit", a.junit, "Write JUnit XML here");
  sub->add_option("--html", a.html, "Write a self-contained HTML report into this folder");
  sub->final_callback([&exit_code] { exit_code = merge_reports(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(report, rdmaconf::cli::add_report_command);
