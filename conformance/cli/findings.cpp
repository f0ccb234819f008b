// `rdmaconf findings`: the findings of an existing run (a results.json of
// `rdmaconf run --json`, the interop reports, several parts of one run), a
// findings file a lab keeps as its baseline, and a bug report for one finding
// with the capture of its failing case (docs/conformance.md, "Findings").
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/baseline.hpp"
#include "report/bug_report.hpp"
#include "cli/command.hpp"
#include "engine/engine.hpp"
#include "report/findings.hpp"
#include "cli/output.hpp"
#include "engine/pcap_hook.hpp"
#include "report/report.hpp"
#include "report/report_json.hpp"
#include "report/summary.hpp"

namespace rdmaconf::cli {
namespace {

namespace cf = conformance;
namespace fs = std::filesystem;

struct FindingsArgs {
  std::vector<std::string> inputs;
  std::string baseline, json, markdown, report, out, cases_dir;
  bool quiet = false;
};

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

// The findings file: what `--baseline` reads back, and what a lab edits
// (delete a finding it does not accept as known; its cases become new).
void write_findings_file(std::ostream& out, const std::vector<findings::Finding>& found, const cf::RunInfo& info,
                         const baseline::Comparison* cmp) {
  nlohmann::ordered_json j{{"tool", "rdmaconf"}, {"kind", "findings"}, {"format", cf::kReportFormat},
                           {"run", cf::identity_json(info.identity)}, {"target", info.target}};
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const findings::Finding& f : found) {
    std::string_view status;
    if (cmp)
      if (auto it = cmp->findings.find(f.key); it != cmp->findings.end()) status = baseline::to_string(it->second);
    list.push_back(cf::finding_json(f, info, status));
  }
  j["findings"] = std::move(list);
  out << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

// A findings file holds findings, not the results they came from: it
// renders as a table (--markdown) and nothing else.
int render_findings_file(const FindingsArgs& a, const std::string& path, const nlohmann::ordered_json& j) {
  if (a.inputs.size() != 1 || a.markdown.empty() || !a.json.empty() || !a.report.empty() || !a.baseline.empty()) {
    std::cerr << "rdmaconf findings: " << path << " is a findings file: give it alone with --markdown (or to "
              << "--baseline), and the results.json it came from for anything else\n";
    return 2;
  }
  const auto list = j.contains("findings") ? j["findings"] : nlohmann::ordered_json::array();
  std::string error;
  if (!write_output(a.markdown, [&](std::ostream& o) { cf::write_findings_markdown(o, list); }, error)) {
    std::cerr << "rdmaconf findings: " << error << "\n";
    return 2;
  }
  return 0;
}

// The runs' results, read from every input (the parts of one run); an exit
// code when the command ends here (an unreadable input, a findings file).
std::optional<int> read_inputs(const FindingsArgs& a, std::vector<cf::CaseResult>& results, cf::RunInfo& info,
                               std::deque<cf::Case>& unknown) {
  for (const std::string& path : a.inputs) {
    std::string text, error;
    if (!read_file(path, text)) {
      std::cerr << "rdmaconf findings: cannot read " << path << "\n";
      return 2;
    }
    if (const auto j = nlohmann::ordered_json::parse(text, nullptr, false);
        j.is_object() && j.contains("kind") && j["kind"] == "findings")
      return render_findings_file(a, path, j);
    if (!cf::read_json(text, {}, results, info, error, &unknown)) {
      std::cerr << "rdmaconf findings: " << path << ": " << error << "\n";
      return 2;
    }
  }
  return std::nullopt;
}

// --report: one finding's bug report in its folder, with the script of its
// example case (from the catalogue, when there is one) and that case's
// capture from the octets the report kept.
int write_bug_report(const FindingsArgs& a, const std::vector<findings::Finding>& found, const cf::RunInfo& info,
                     const cf::Catalogue& cat, const std::string& dir, std::ostream& human) {
  const findings::Finding* f = findings::find(found, a.report);
  if (!f) {
    std::cerr << "rdmaconf findings: no finding '" << a.report << "' (give its id, F1 to F" << found.size()
              << ", or the start of its key)\n";
    return 2;
  }
  const std::string out_dir = a.out.empty() ? "rdmaconf-" + f->id : a.out;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) {
    std::cerr << "rdmaconf findings: cannot make " << out_dir << ": " << ec.message() << "\n";
    return 2;
  }
  findings::BugReportInputs in;
  if (f->example) {
    in.script_path = f->example->c->file;
    for (const cf::Case& c : cat.cases)
      if (c.id == f->example->c->id && !dir.empty()) {
        read_file((fs::path(dir) / c.file).string(), in.script);
        in.script_path = c.file;
      }
    const cf::ExchangeRecord& kept = f->example->exchange;
    if ((!kept.chunks.empty() || kept.sctp) && cf::pcap_writer()) {
      cf::pcap_writer()(out_dir, *f->example);
      in.capture_file = f->example->c->id + ".pcapng";
    }
  }
  const std::string path = (fs::path(out_dir) / (f->id + ".md")).string();
  std::ofstream md(path);
  if (!md) {
    std::cerr << "rdmaconf findings: cannot write " << path << "\n";
    return 2;
  }
  findings::write_bug_report(md, *f, info, in);
  human << "rdmaconf findings: bug report for " << f->id << " in " << path
        << (in.capture_file.empty() ? std::string() : ", capture " + (fs::path(out_dir) / in.capture_file).string())
        << "\n";
  return 0;
}

int run_findings(const FindingsArgs& a) {
  // Whichever output holds standard output, the console text goes to stderr.
  std::ostream& human = text_stream(is_stdout(a.markdown) ? a.markdown : a.json);
  if (is_stdout(a.json) && is_stdout(a.markdown)) {
    std::cerr << "rdmaconf findings: --json - and --markdown - cannot both write standard output\n";
    return 2;
  }
  for (const std::string& path : {a.json, a.markdown})
    if (std::string error; !path.empty() && !prepare_output(path, OutputKind::kFile, error)) {
      std::cerr << "rdmaconf findings: " << error << "\n";
      return 2;
    }
  const std::string dir = a.cases_dir.empty() ? cf::default_cases_dir() : a.cases_dir;
  // The catalogue is optional: a report names its cases itself, and the
  // catalogue only adds the scripts a bug report quotes.
  const cf::Catalogue cat = dir.empty() ? cf::Catalogue{} : cf::load_catalogue(dir);
  std::deque<cf::Case> unknown;
  std::vector<cf::CaseResult> results;
  cf::RunInfo info;
  if (const auto done = read_inputs(a, results, info, unknown)) return *done;
  std::optional<baseline::Baseline> known;
  if (!a.baseline.empty()) {
    std::string text, error;
    known.emplace();
    known->source = a.baseline;
    if (!read_file(a.baseline, text) || !baseline::read(text, *known, error)) {
      std::cerr << "rdmaconf findings: --baseline " << a.baseline << ": " << (error.empty() ? "cannot read it" : error)
                << "\n";
      return 2;
    }
    info.baseline = &*known;
  }
  const auto found = findings::group(results);
  std::optional<baseline::Comparison> cmp;
  if (known) cmp = baseline::compare(*known, results, found);

  if (!a.report.empty()) {
    if (const int code = write_bug_report(a, found, info, cat, dir, human); code != 0) return code;
  } else if (!a.quiet || a.json.empty()) {
    cf::write_findings_text(human, found, cmp ? &*cmp : nullptr, info);
  }
  if (std::string error; !a.markdown.empty() && !write_output(a.markdown, [&](std::ostream& o) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const findings::Finding& f : found) list.push_back(cf::finding_json(f, info));
        cf::write_findings_markdown(o, list);
      }, error)) {
    std::cerr << "rdmaconf findings: " << error << "\n";
    return 2;
  }
  if (std::string error; !a.json.empty() &&
                         !write_output(a.json, [&](std::ostream& o) { write_findings_file(o, found, info, cmp ? &*cmp : nullptr); },
                                       error)) {
    std::cerr << "rdmaconf findings: " << error << "\n";
    return 2;
  }
  return cf::exit_code(results, info) == 1 ? 1 : 0;
}

void add_findings_command(CLI::App& app, int& exit_code) {
  static FindingsArgs a;
  CLI::App* sub = app.add_subcommand("findings", "The findings (failures grouped by cause) of an earlier run, a findings "
                                                 "file for --baseline, or a bug report for one finding");
  sub->add_option("results", a.inputs, "JSON reports of rdmaconf run --json (several: the parts of one run)")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--baseline", a.baseline, "Mark each finding known or new against this results.json or findings file")
      ->check(CLI::ExistingFile);
  add_json_option(*sub, a.json,
                  "Write the findings file (what --baseline reads; edit it to keep only the findings you accept as "
                  "known)");
  sub->add_option("--markdown", a.markdown,
                  "Write the findings as a Markdown table to FILE (- for standard output, which then holds nothing "
                  "else); the input may be a findings file");
  sub->add_option("--report", a.report, "Write a bug report for this finding (its id, F3, or the start of its key)");
  sub->add_option("--out", a.out, "With --report: the folder for the report and its capture (default rdmaconf-ID)");
  sub->add_option("--cases-dir", a.cases_dir, "The catalogue, for the case script a bug report quotes");
  sub->add_flag("-q,--quiet", a.quiet, "With --json: nothing else");
  sub->footer(
      "Exit codes: 0 no failing finding (with --baseline: no new one), 1 a failing (new) finding, 2 usage or an "
      "unreadable report.");
  sub->final_callback([&exit_code] { exit_code = run_findings(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(findings, rdmaconf::cli::add_findings_command);
