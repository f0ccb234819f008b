// `rdmaconf mutation`: proves that every case can fail and every fault is
// caught (conformance/engine/mutation.hpp).
#include <algorithm>
#include <fstream>
#include <iostream>

#include "cli/command.hpp"
#include "engine/engine.hpp"
#include "engine/mutation.hpp"
#include "engine/needs.hpp"

namespace rdmaconf::cli {
namespace {
namespace cf = conformance;

struct MutationArgs {
  std::string dir = cf::default_cases_dir(), markdown;
  std::vector<std::string> faults, suites;
  std::string transport = "mpa";
  unsigned jobs = 16;
  double time_scale = 0.25;
};

int run_mutation(const MutationArgs& a) {
  auto cat = cf::load_catalogue(a.dir);
  for (const auto& e : cat.errors) std::cerr << e.to_string() << "\n";
  if (!cat.errors.empty()) return 2;
  std::vector<const cf::FaultInfo*> faults;
  for (const auto& f : cf::all_faults())
    if (a.faults.empty() || std::find(a.faults.begin(), a.faults.end(), f.name) != a.faults.end()) faults.push_back(&f);
  cf::RunOptions o;
  o.jobs = a.jobs;
  o.time_scale = a.time_scale;
  auto cases = cf::select(cat, a.suites, {});
  if (a.transport == "sctp") {
    // The ddp and rdmap suites over SCTP: a case whose meaning rests on MPA
    // or TCP does not run there (mpa_bound), so it proves nothing there.
    o.llp = cf::RunOptions::Llp::kSctp;
    const auto before = cases.size();
    std::erase_if(cases, [](const cf::Case* c) {
      return (c->protocol == "ddp" || c->protocol == "rdmap") && !cf::mpa_bound(*c).empty();
    });
    std::cout << "rdmaconf mutation: over SCTP, " << before - cases.size()
              << " cases left out whose meaning rests on MPA or TCP\n";
  }
  if (cases.empty()) {
    std::cerr << "rdmaconf mutation: no case in the suites given\n";
    return 2;
  }
  auto r = cf::run_mutation(cases, o, faults, [](const std::string& s) { std::cout << s << std::endl; });
  // With --suite the proof is the selected cases': each can fail; a fault
  // only other suites catch is said, not held against them.
  const bool whole = a.suites.empty();
  const bool cases_ok = r.clean_failures.empty() && r.catching_nothing.empty() && r.stale_uncaught.empty();
  const bool ok = whole ? r.ok() : cases_ok;
  for (const cf::Case* c : r.clean_failures) {
    for (const auto& cr : r.clean)
      if (cr.c == c) std::cout << "clean reference fails " << c->id << ": " << cr.reason << "\n";
  }
  for (const auto& row : r.faults)
    if (row.caught_by.empty())
      std::cout << "fault not caught" << (whole ? "" : " by these suites") << ": " << row.fault->name << "\n";
  for (const cf::Case* c : r.catching_nothing) std::cout << "case catches no fault and says not why: " << c->id << "\n";
  for (const cf::Case* c : r.stale_uncaught)
    std::cout << "case says no fault catches it, yet one does (drop its 'uncaught:' line): " << c->id << "\n";
  std::cout << "rdmaconf mutation: " << cases.size() << " cases x " << (faults.size() + 1) << " configurations in "
            << static_cast<long long>(r.wall_ms) << " ms: "
            << (!ok ? "FAILED" : whole ? "every fault caught, every case can fail" : "every case can fail")
            << "\n";
  if (!a.markdown.empty()) {
    std::ofstream out(a.markdown);
    cf::write_mutation_markdown(out, r);
  }
  return ok ? 0 : 1;
}

void add_mutation_command(CLI::App& app, int& exit_code) {
  static MutationArgs a;
  CLI::App* sub = app.add_subcommand("mutation", "Run the catalogue against the clean reference IUT and each named fault");
  sub->add_option("--cases-dir", a.dir, "Folder of the case scripts");
  sub->add_option("--fault", a.faults, "Only these faults");
  sub->add_option("--suite", a.suites,
                  "Only these suites' cases: each must fail against some fault (faults they do not catch are listed)");
  sub->add_option("--markdown", a.markdown, "Write the mutation table (docs/mutation.md) here");
  sub->add_option("--transport", a.transport,
                  "What carries the ddp and rdmap suites: mpa, or sctp (RFC 5043; the cases whose meaning rests on "
                  "MPA or TCP are left out)")
      ->check(CLI::IsMember({"mpa", "sctp"}));
  sub->add_option("-j,--jobs", a.jobs, "Cases run in parallel")->check(CLI::Range(1, 64));
  sub->add_option("--time-scale", a.time_scale, "Multiply every time bound")->check(CLI::Range(0.05, 20.0));
  sub->final_callback([&exit_code] { exit_code = run_mutation(a); });
}
}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(mutation, rdmaconf::cli::add_mutation_command);
