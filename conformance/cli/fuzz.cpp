// `rdmaconf fuzz`: the stateful wire fuzzer of an implementation under test
// (conformance/wirefuzz/, docs/fuzzing.md "Wire fuzzing").
#include <fnmatch.h>

#include <csignal>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/agent_run.hpp"
#include "cli/command.hpp"
#include "cli/fuzz_agent.hpp"
#include "engine/engine.hpp"
#include "engine/needs.hpp"
#include "engine/pcap_hook.hpp"
#include "engine/responder.hpp"
#include "wirefuzz/fuzzer.hpp"

namespace rdmaconf::cli {
namespace {
namespace cf = conformance;
namespace wf = conformance::wirefuzz;

struct FuzzArgs {
  std::string target, out, json, cases_dir;
  std::string agent, token, agent_listen, agent_config;
  bool reference = false;
  std::vector<std::string> faults, globs, excludes, case_files, iut_lacks;
  double seconds = 0;
  std::uint64_t iterations = 0, seed = 1;
  double time_scale = 1.0;
  unsigned settle_ms = 40, revive_s = 10;
  int minimize_runs = 60;
};

std::atomic<bool> g_cancel{false};

bool matches_any(const std::string& id, const std::vector<std::string>& globs) {
  for (const std::string& g : globs)
    if (::fnmatch(g.c_str(), id.c_str(), 0) == 0) return true;
  return false;
}

int run_fuzz_command(const FuzzArgs& a) {
  if ((a.target.empty() && a.agent.empty()) == !a.reference) {
    std::cerr << "rdmaconf fuzz: give --target HOST:PORT, --agent URL --token T, or --reference\n";
    return 2;
  }
  if (a.agent.empty() && (!a.token.empty() || !a.agent_listen.empty() || !a.agent_config.empty())) {
    std::cerr << "rdmaconf fuzz: --token, --agent-listen and --agent-config go with --agent\n";
    return 2;
  }
  cf::Catalogue cat = cf::load_catalogue(a.cases_dir);
  for (const auto& e : cat.errors) std::cerr << e.to_string() << "\n";
  if (!cat.errors.empty()) return 2;
  // Saved inputs (a finding's script, your own) join the seeds.
  std::vector<std::string> saved;
  for (const std::string& path : a.case_files) {
    std::string error;
    if (!cf::add_case_file(cat, path, saved, error)) {
      std::cerr << "rdmaconf fuzz: --case-file " << error << "\n";
      return 2;
    }
  }
  // Through the agent: it makes the device listen (as `run --agent` does),
  // says what the device lacks, and watches the device's host.
  std::unique_ptr<AgentRun> agent_run;
  std::unique_ptr<AgentHealth> health;
  cf::RunOptions agent_ro;
  std::vector<std::string> lacks = a.iut_lacks;
  if (!a.agent.empty()) {
    AgentRunArgs args;
    args.url = a.agent;
    args.token = a.token;
    args.target = a.target;
    args.agent_listen = a.agent_listen;
    if (!a.agent_config.empty()) args.configs = {a.agent_config};
    agent_run = std::make_unique<AgentRun>(args);
    std::string error, note;
    std::vector<agent::MpaConfig> configs;
    if (!agent_run->open(error) || !agent_run->configurations(configs, error)) {
      std::cerr << "rdmaconf fuzz: " << error << "\n";
      return 2;
    }
    // One configuration: the one asked for, else the device's default.
    const agent::MpaConfig cfg = a.agent_config.empty() ? agent::MpaConfig{} : configs.front();
    if (!agent_run->begin_pass(cfg, false, agent_ro, error)) {
      std::cerr << "rdmaconf fuzz: " << error << "\n";
      return 2;
    }
    lacks.insert(lacks.end(), agent_run->lacks().begin(), agent_run->lacks().end());
    agent::AgentUrl url;
    agent::parse_agent_url(a.agent, url);
    health = std::make_unique<AgentHealth>(url, a.token);
    if (!health->open(note, error)) {
      std::cerr << "rdmaconf fuzz: " << error << "\n";
      return 2;
    }
    std::cout << "rdmaconf fuzz: " << agent_run->describe() << ", " << cfg.label() << "; " << note << std::endl;
  }
  std::vector<const cf::Case*> seeds;
  for (const cf::Case& c : cat.cases) {
    const bool chosen = std::find(saved.begin(), saved.end(), c.id) != saved.end() ||
                        ((a.globs.empty() || matches_any(c.id, a.globs)) && !matches_any(c.id, a.excludes));
    // What the IUT lacks leaves its cases out: they would only be skipped.
    if (chosen && !cf::lacked_need(c, lacks)) seeds.push_back(&c);
  }

  std::unique_ptr<cf::ReferenceIut> iut;
  std::string host;
  std::uint16_t port = 0;
  if (a.reference) {
    cf::FaultSet fs;
    for (const std::string& n : a.faults) {
      const cf::FaultInfo* f = cf::find_fault(n);
      if (!f) {
        std::cerr << "rdmaconf fuzz: unknown fault '" << n << "' (see rdmaconf faults)\n";
        return 2;
      }
      fs.set(f->id);
    }
    iut = std::make_unique<cf::ReferenceIut>(fs);
    std::string error;
    if (!iut->listen("127.0.0.1", 0, error)) {
      std::cerr << "rdmaconf fuzz: " << error << "\n";
      return 2;
    }
    host = "127.0.0.1";
    port = iut->port();
  } else if (agent_run) {
    host = a.agent;
  } else if (!cf::split_host_port(a.target, host, port)) {
    std::cerr << "rdmaconf fuzz: --target expects HOST:PORT\n";
    return 2;
  }

  wf::FuzzOptions o;
  o.connect = agent_run ? agent_ro.connect_responder : cf::tcp_connector(host, port, std::chrono::milliseconds(3000));
  if (health) o.host_health = [&health] { return health->check(); };
  o.seeds = seeds;
  o.seed = a.seed;
  o.iterations = a.iterations;
  o.seconds = a.seconds > 0 ? a.seconds : (a.iterations > 0 ? 0 : 60);
  o.time_scale = a.time_scale;
  o.shape.settle = cf::Duration(a.settle_ms);
  o.iut_lacks = lacks;
  o.revive = std::chrono::seconds(a.revive_s);
  o.minimize_budget = a.minimize_runs;
  o.out_dir = a.out;
  if (!a.out.empty()) o.pcap = cf::pcap_writer();
  o.cancel = &g_cancel;
  o.on_progress = [](const wf::FuzzProgress& p) {
    std::cerr << "fuzz: " << p.iterations << " iterations in " << std::fixed << std::setprecision(0) << p.seconds
              << " s (" << std::setprecision(1) << (p.seconds > 0 ? static_cast<double>(p.iterations) / p.seconds : 0)
              << "/s), " << p.skipped << " skipped, " << p.findings << " findings (" << p.unresponsive
              << " the IUT stopped answering, " << p.host << " its host unhealthy)" << std::endl;
  };
  o.on_finding = [](const wf::Finding& f) {
    std::cout << "finding: " << f.signature << " (from " << f.seed << ", iteration " << f.iteration << ", "
              << f.minimize_runs << " runs to minimize" << (f.reproduced ? ", reproduced" : ", not reproduced") << ")\n  "
              << f.what << "\n";
    if (!f.folder.empty()) std::cout << "  reproducer: " << f.folder << "\n";
  };
  std::signal(SIGINT, [](int) { g_cancel = true; });
  std::signal(SIGTERM, [](int) { g_cancel = true; });
  std::cout << "rdmaconf fuzz: " << (agent_run ? host : host + ":" + std::to_string(port)) << ", seed " << a.seed << ", " << seeds.size()
            << " cases selected" << std::endl;
  const wf::FuzzSummary s = wf::run_fuzz(o);
  if (iut) iut->stop();
  if (agent_run) agent_run->end_pass();
  std::cout << "rdmaconf fuzz: " << s.progress.iterations << " iterations from " << s.seeds << " seeds in " << std::fixed
            << std::setprecision(1) << s.progress.seconds << " s (" << s.exchanges_per_second << " exchanges/s), "
            << s.progress.skipped << " skipped, " << s.findings.size() << " findings; stopped: " << s.stopped << "\n";
  if (!a.json.empty()) {
    std::ofstream j(a.json);
    j << wf::summary_json(s);
    if (!j) {
      std::cerr << "rdmaconf fuzz: --json: cannot write " << a.json << "\n";
      return 2;
    }
  }
  if (s.seeds == 0) return 2;
  return s.findings.empty() ? 0 : 1;
}

void add_fuzz_command(CLI::App& app, int& exit_code) {
  static FuzzArgs a;
  a.cases_dir = cf::default_cases_dir();
  CLI::App* sub = app.add_subcommand("fuzz", "Fuzz an implementation under test on the wire, from the catalogue's exchanges");
  sub->add_option("--target", a.target,
                  "HOST:PORT of an IUT that accepts MPA connections (with --agent: where to reach the agent's listener)");
  sub->add_option("--agent", a.agent,
                  "URL of the device's agent (http://HOST:PORT): it sets up the IUT, and the device's events, the host's "
                  "kernel log and the agent itself become oracles");
  sub->add_option("--token", a.token, "With --agent: the agent's bearer token");
  sub->add_option("--agent-listen", a.agent_listen, "With --agent: [HOST:]PORT the agent binds (default: --target's port, else any)");
  sub->add_option("--agent-config", a.agent_config,
                  "With --agent: the device's MPA settings for the run, e.g. crc=on (default: the device's own)");
  sub->add_flag("--reference", a.reference, "Fuzz the built-in reference IUT (with --fault to break it)");
  sub->add_option("--fault", a.faults, "With --reference: a named fault (rdmaconf faults)");
  sub->add_option("--seconds", a.seconds, "How long to fuzz (default 60 without --iterations)");
  sub->add_option("--iterations", a.iterations, "How many fuzz cases to run");
  sub->add_option("--seed", a.seed, "The run's seed: the same seed runs the same cases (default 1)");
  sub->add_option("--out", a.out, "One folder per finding: its case script and capture");
  sub->add_option("--json", a.json, "Write the run's summary as JSON");
  sub->add_option("--case", a.globs, "Catalogue cases to start from (glob on the id; default every iWARP responder case)");
  sub->add_option("--exclude", a.excludes, "Catalogue cases to leave out of the seeds (glob on the id)");
  sub->add_option("--case-file", a.case_files, "A saved case script (a finding's) to start from as well")
      ->check(CLI::ExistingFile);
  sub->add_option("--cases-dir", a.cases_dir, "Folder of the case scripts");
  sub->add_option("--iut-lacks", a.iut_lacks, "Features the IUT does not offer (case 'needs' items)");
  sub->add_option("--time-scale", a.time_scale, "Multiply every time bound (0.25 on loopback)")->check(CLI::Range(0.05, 20.0));
  sub->add_option("--settle", a.settle_ms, "Milliseconds each read of what the IUT sends waits (default 40)");
  sub->add_option("--revive", a.revive_s,
                  "Seconds to wait for an IUT that stopped answering to answer again (restarted by a supervisor) "
                  "before the run ends (default 10)");
  sub->add_option("--minimize-runs", a.minimize_runs, "Runs at most per finding to minimize it (default 60)");
  sub->callback([&exit_code] { exit_code = run_fuzz_command(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(fuzz, rdmaconf::cli::add_fuzz_command);
