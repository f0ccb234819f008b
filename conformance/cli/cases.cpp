// `rdmaconf cases`: the catalogue (id, RFC section, level, role), checked;
// `--markdown` writes docs/catalogue.md.
#include <fstream>
#include <iomanip>
#include <iostream>

#include "cli/command.hpp"
#include "engine/engine.hpp"
#include "report/report.hpp"
#include "requirement.hpp"

namespace rdmaconf::cli {
namespace {
namespace cf = conformance;

struct CasesArgs {
  std::string dir = cf::default_cases_dir();
  std::string markdown;
  std::vector<std::string> suites;
  bool check = false;
};

int list_cases(const CasesArgs& a) {
  auto cat = cf::load_catalogue(a.dir);
  int problems = 0;
  for (const auto& e : cat.errors) {
    std::cerr << e.to_string() << "\n";
    ++problems;
  }
  for (const cf::Case& c : cat.cases) {
    for (const std::string& e : cf::check_case(c)) {
      std::cerr << e << "\n";
      ++problems;
    }
    for (const std::string& r : c.requirements) {
      const requirements::Requirement* row = requirements::find(r);
      if (!row) {
        std::cerr << c.file << ":" << c.line << ": requirement '" << r << "' is not in the registry\n";
        ++problems;
      } else if (row->id != r) {  // an old id (alias): cases name the current one
        std::cerr << c.file << ":" << c.line << ": requirement '" << r << "' was renamed to '" << row->id << "'\n";
        ++problems;
      }
    }
  }
  if (!a.markdown.empty()) {
    std::ofstream out(a.markdown);
    if (!out) {
      std::cerr << "rdmaconf cases: cannot write " << a.markdown << "\n";
      return 2;
    }
    cf::write_catalogue_markdown(out, cat);
  } else if (!a.check) {
    for (const cf::Case* c : cf::select(cat, a.suites, {}))
      std::cout << std::left << std::setw(58) << c->id << " " << std::setw(18) << c->rfc << " " << std::setw(10)
                << cf::to_string(c->level) << " " << cf::to_string(c->role) << "\n";
    std::cout << cat.cases.size() << " cases\n";
  }
  return problems ? 2 : 0;
}

void add_cases_command(CLI::App& app, int& exit_code) {
  static CasesArgs a;
  CLI::App* sub = app.add_subcommand("cases", "List the conformance cases: id, RFC section, level, role");
  sub->add_option("--cases-dir", a.dir, "Folder of the case scripts");
  sub->add_option("--suite", a.suites, "Only these protocol suites");
  sub->add_option("--markdown", a.markdown, "Write the generated catalogue (docs/catalogue.md) to this file");
  sub->add_flag("--check", a.check, "Only check every script (syntax, fields, requirement ids)");
  sub->final_callback([&exit_code] { exit_code = list_cases(a); });
}
}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(cases, rdmaconf::cli::add_cases_command);
