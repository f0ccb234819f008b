// `rdmaconf diff BEFORE.json AFTER.json`: what changed between two runs of
// the same catalogue against two versions of an implementation (a firmware
// or kernel update; the interop run's Linux 6.1 and 6.12): findings fixed,
// new (regressed) and still there, then by case what the dashboard's diff
// shows (docs/dashboard.md, "Diff"), with the cases that run now and could
// not run before (unimplemented then) listed apart. The diff file it writes
// (--json) renders again as Markdown on its own, as a findings file does
// (docs/interop-6.12.md keeps the 6.1 -> 6.12 diff so).
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "report/findings.hpp"
#include "dashboard/dashboard.hpp"

namespace rdmaconf::cli {
namespace {

using json = nlohmann::ordered_json;

struct DiffArgs {
  std::vector<std::string> inputs;
  std::string json, markdown, before_label, after_label;
};

bool read_json_file(const std::string& path, json& out, std::string& error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot read " + path;
    return false;
  }
  std::ostringstream s;
  s << in.rdbuf();
  out = json::parse(s.str(), nullptr, false);
  if (out.is_discarded() || !out.is_object()) {
    error = path + " is not a JSON object";
    return false;
  }
  return true;
}

std::string text_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const json& array_of(const json& j, const char* key) {
  static const json empty = json::array();
  const auto it = j.find(key);
  return it != j.end() && it->is_array() ? *it : empty;
}

// A run's name in the diff: --before-label/--after-label, else the lab's
// --label KEY=VALUE pairs of the run (fw=1.1), else the IUT's driver and
// kernel as the agent reported them, else the file.
std::string label_of(const json& report, const std::string& given, const std::string& path) {
  if (!given.empty()) return given;
  const auto run = report.find("run");
  if (run != report.end() && run->is_object())
    if (const auto labels = run->find("labels"); labels != run->end() && labels->is_object() && !labels->empty()) {
      std::string out;
      for (const auto& [k, v] : labels->items())
        if (v.is_string()) out += (out.empty() ? "" : " ") + k + "=" + v.get<std::string>();
      if (!out.empty()) return out;
    }
  if (run != report.end() && run->is_object())
    if (const auto iut = run->find("iut"); iut != run->end() && iut->is_object()) {
      const std::string kernel = text_of(*iut, "kernel"), driver = text_of(*iut, "driver");
      if (!kernel.empty()) return driver.empty() ? kernel : driver + " on " + kernel;
    }
  return path;
}

using CaseKey = std::pair<std::string, std::string>;  // id, configuration

std::map<CaseKey, std::string> verdicts(const json& report) {
  std::map<CaseKey, std::string> out;
  for (const json& c : array_of(report, "cases"))
    if (c.is_object()) out[{text_of(c, "id"), text_of(c, "configuration")}] = text_of(c, "verdict");
  return out;
}

bool ran(const std::string& verdict) { return !verdict.empty() && verdict != "unimplemented"; }

// One side of a finding's row: its id in that run, verdict, level and cases.
json side(const json& f) {
  json cases = json::array();
  for (const json& c : array_of(f, "cases"))
    if (c.is_object()) cases.push_back({{"id", text_of(c, "id")}, {"configuration", text_of(c, "configuration")}});
  return {{"id", text_of(f, "id")}, {"verdict", text_of(f, "verdict")}, {"cases", std::move(cases)}};
}

// Findings by their stable key (findings.hpp). A finding only AFTER has is
// new; one both have is still there; one only BEFORE has is fixed when a
// case of it ran in AFTER and none of those failed (baseline.hpp's rule),
// and "not run" when none of its cases ran in AFTER.
json diff_findings(const json& before, const json& after) {
  std::map<std::string, const json*> a, b;
  std::vector<std::string> order;
  // Keys as this rdmaconf writes them: a row renamed between the two runs is one finding.
  const auto key_of = [](const json& f) { return findings::current_key(text_of(f, "key")); };
  for (const json& f : array_of(before, "findings"))
    if (f.is_object() && a.emplace(key_of(f), &f).second) order.push_back(key_of(f));
  for (const json& f : array_of(after, "findings"))
    if (f.is_object() && b.emplace(key_of(f), &f).second && !a.count(key_of(f))) order.push_back(key_of(f));
  const auto after_verdicts = verdicts(after);
  json out = json::array();
  for (const std::string& key : order) {
    const json* x = a.count(key) ? a.at(key) : nullptr;
    const json* y = b.count(key) ? b.at(key) : nullptr;
    std::string status = x && y ? "still" : y ? "new" : "not run";
    if (x && !y)
      for (const json& c : array_of(*x, "cases")) {
        const auto it = after_verdicts.find({text_of(c, "id"), text_of(c, "configuration")});
        if (it != after_verdicts.end() && ran(it->second)) status = "fixed";
      }
    const json& any = y ? *y : *x;
    json row = {{"key", key}, {"status", status}, {"title", text_of(any, "title")}, {"level", text_of(any, "level")}};
    row["before"] = x ? side(*x) : json(nullptr);
    row["after"] = y ? side(*y) : json(nullptr);
    out.push_back(std::move(row));
  }
  return out;
}

// The dashboard's diff by case, with the cases that run in AFTER but were
// unimplemented in BEFORE (and the reverse) taken out of "changed",
// "fixed" and "new_failures" into lists of their own.
json diff_cases(const json& before, const json& after) {
  const nlohmann::json d = dashboard::diff_runs(nlohmann::json(array_of(before, "cases")),
                                                nlohmann::json(array_of(after, "cases")));
  json out = json::parse(d.dump());
  json now_run = json::array(), no_longer_run = json::array();
  for (const char* list : {"new_failures", "fixed", "changed"}) {
    json kept = json::array();
    for (const json& e : out[list]) {
      const std::string va = e["before"].value("verdict", ""), vb = e["after"].value("verdict", "");
      if (!ran(va) && ran(vb)) now_run.push_back(e);
      else if (ran(va) && !ran(vb)) no_longer_run.push_back(e);
      else kept.push_back(e);
    }
    out[list] = std::move(kept);
  }
  out["now_run"] = std::move(now_run);
  out["no_longer_run"] = std::move(no_longer_run);
  return out;
}

std::size_t count_status(const json& findings, const char* status) {
  std::size_t n = 0;
  for (const json& f : findings) n += f.value("status", "") == status;
  return n;
}

std::string summary_line(const json& d) {
  const json& f = d["findings"];
  const json& c = d["cases"];
  std::ostringstream s;
  s << "rdmaconf diff: " << text_of(d["before"], "label") << " -> " << text_of(d["after"], "label") << ": findings "
    << count_status(f, "fixed") << " fixed, " << count_status(f, "new") << " new, " << count_status(f, "still")
    << " still there, " << count_status(f, "not run") << " not run; cases " << c["fixed"].size() << " fixed, "
    << c["new_failures"].size() << " new failures, " << c["now_run"].size() << " run now (unimplemented before), "
    << c["no_longer_run"].size() << " no longer run, " << c["changed"].size() << " otherwise changed, "
    << c["added"].size() << " added, " << c["removed"].size() << " removed, " << c.value("unchanged", 0)
    << " unchanged";
  return s.str();
}

std::string cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else out += ch;
  }
  return out;
}

std::string side_cell(const json& s) {
  if (!s.is_object()) return "-";
  const std::size_t n = array_of(s, "cases").size();
  return cell(text_of(s, "id") + " " + text_of(s, "verdict") + ", " + std::to_string(n) + (n == 1 ? " case" : " cases"));
}

std::string case_list(const json& entries) {
  constexpr std::size_t kShown = 10;
  std::string out;
  for (std::size_t i = 0; i < entries.size() && i < kShown; ++i) {
    const json& e = entries[i];
    std::string one = "`" + text_of(e, "id") + "`";
    if (!text_of(e, "configuration").empty()) one += " [" + text_of(e, "configuration") + "]";
    if (e.contains("before") && e.contains("after"))
      one += " (" + e["before"].value("verdict", "") + " -> " + e["after"].value("verdict", "") + ")";
    out += (out.empty() ? "" : ", ") + one;
  }
  if (entries.size() > kShown) out += ", and " + std::to_string(entries.size() - kShown) + " more";
  return cell(out);
}

// Two tables: one row per finding (status, then each run's id, verdict and
// case count), then the cases by kind of change.
void write_markdown(std::ostream& o, const json& d) {
  const std::string la = cell(text_of(d["before"], "label")), lb = cell(text_of(d["after"], "label"));
  o << "| finding | level | " << la << " | " << lb << " | what the implementation does |\n|---|---|---|---|---|\n";
  for (const json& f : d["findings"])
    o << "| " << cell(text_of(f, "status")) << " | " << cell(text_of(f, "level")) << " | " << side_cell(f["before"])
      << " | " << side_cell(f["after"]) << " | " << cell(text_of(f, "title")) << " |\n";
  o << "\n| cases | count | which |\n|---|---|---|\n";
  const json& c = d["cases"];
  const std::pair<const char*, std::string> rows[] = {
      {"fixed", "fixed (failed before, not now)"},  {"new_failures", "new failures"},
      {"now_run", "run now, unimplemented before"}, {"no_longer_run", "no longer run"},
      {"changed", "other verdict or reason"},       {"added", "only in " + lb},
      {"removed", "only in " + la}};
  for (const auto& [key, name] : rows)
    o << "| " << name << " | " << c[key].size() << " | " << case_list(c[key]) << " |\n";
  o << "| unchanged | " << c.value("unchanged", 0) << " | |\n";
}

int run_diff(const DiffArgs& a) {
  if (is_stdout(a.json) && is_stdout(a.markdown)) {
    std::cerr << "rdmaconf diff: --json - and --markdown - cannot both write standard output\n";
    return 2;
  }
  std::ostream& human = text_stream(is_stdout(a.markdown) ? a.markdown : a.json);
  for (const std::string& path : {a.json, a.markdown})
    if (std::string error; !path.empty() && !prepare_output(path, OutputKind::kFile, error)) {
      std::cerr << "rdmaconf diff: " << error << "\n";
      return 2;
    }
  std::vector<json> in(a.inputs.size());
  for (std::size_t i = 0; i < a.inputs.size(); ++i)
    if (std::string error; !read_json_file(a.inputs[i], in[i], error)) {
      std::cerr << "rdmaconf diff: " << error << "\n";
      return 2;
    }
  json d;
  if (in.size() == 1) {
    // A diff file written by --json: rendered again, nothing recomputed.
    if (text_of(in[0], "kind") != "diff" || a.markdown.empty() || !a.json.empty()) {
      std::cerr << "rdmaconf diff: give two results.json (before, after), or one diff file with --markdown\n";
      return 2;
    }
    d = in[0];
    if (!d.contains("findings") || !d["findings"].is_array() || !d.contains("cases") || !d["cases"].is_object() ||
        !d.contains("before") || !d.contains("after")) {
      std::cerr << "rdmaconf diff: " << a.inputs[0] << " lacks findings, cases, before or after\n";
      return 2;
    }
    for (const char* k : {"fixed", "new_failures", "now_run", "no_longer_run", "changed", "added", "removed"})
      if (!d["cases"].contains(k) || !d["cases"][k].is_array()) d["cases"][k] = json::array();
  } else {
    for (std::size_t i = 0; i < 2; ++i)
      if (!in[i].contains("cases") || !in[i]["cases"].is_array()) {
        std::cerr << "rdmaconf diff: " << a.inputs[i] << " is not a results.json of rdmaconf run or report\n";
        return 2;
      }
    auto run_side = [](const json& r, const std::string& label) {
      json s = {{"label", label}, {"target", text_of(r, "target")}};
      s["run"] = r.contains("run") ? r["run"] : json(nullptr);
      return s;
    };
    d = {{"tool", "rdmaconf"}, {"kind", "diff"}, {"format", 1}};
    d["before"] = run_side(in[0], label_of(in[0], a.before_label, a.inputs[0]));
    d["after"] = run_side(in[1], label_of(in[1], a.after_label, a.inputs[1]));
    d["findings"] = diff_findings(in[0], in[1]);
    d["cases"] = diff_cases(in[0], in[1]);
  }
  if (!is_stdout(a.json) && !is_stdout(a.markdown)) human << summary_line(d) << "\n";
  if (std::string error; !a.markdown.empty() && !write_output(a.markdown, [&](std::ostream& o) { write_markdown(o, d); }, error)) {
    std::cerr << "rdmaconf diff: " << error << "\n";
    return 2;
  }
  if (std::string error; !a.json.empty() && !write_output(a.json, [&](std::ostream& o) { o << d.dump(2) << "\n"; }, error)) {
    std::cerr << "rdmaconf diff: " << error << "\n";
    return 2;
  }
  return count_status(d["findings"], "new") > 0 || !d["cases"]["new_failures"].empty() ? 1 : 0;
}

void add_diff_command(CLI::App& app, int& exit_code) {
  static DiffArgs a;
  CLI::App* sub = app.add_subcommand(
      "diff", "What changed between two runs (before, after): findings fixed, new and still there, cases by change");
  sub->add_option("reports", a.inputs, "BEFORE.json AFTER.json (results.json of rdmaconf run or report), or one diff file")
      ->required()
      ->expected(1, 2)
      ->check(CLI::ExistingFile);
  add_json_option(*sub, a.json, "Write the diff file (renders again with --markdown)");
  sub->add_option("--markdown", a.markdown, "Write the diff as two Markdown tables to FILE (- for standard output)");
  sub->add_option("--before-label", a.before_label,
                  "The first run's name in the diff (default: its --label pairs, else the IUT's driver and kernel)");
  sub->add_option("--after-label", a.after_label,
                  "The second run's name in the diff (default: its --label pairs, else the IUT's driver and kernel)");
  sub->footer("Exit codes: 0 nothing new failed, 1 a new finding or a new failure, 2 usage or an unreadable input.");
  sub->final_callback([&exit_code] { exit_code = run_diff(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(diff, rdmaconf::cli::add_diff_command);
