// `rdmaconf fuzz`: the stateful wire fuzzer of an implementation under test
// (conformance/wirefuzz/, docs/fuzzing.md "Wire fuzzing").
#include <fnmatch.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>

#include "cli/agent_run.hpp"
#include "cli/command.hpp"
#include "cli/fuzz.hpp"
#include "cli/fuzz_agent.hpp"
#include "cli/fuzz_restore.hpp"
#include "engine/engine.hpp"
#include "engine/needs.hpp"
#include "engine/pcap_hook.hpp"
#include "engine/responder.hpp"
#include "wirefuzz/fuzzer.hpp"

namespace rdmaconf::cli {
namespace cf = conformance;
namespace wf = conformance::wirefuzz;
namespace {

std::atomic<bool> g_cancel{false};

bool matches_any(const std::string& id, const std::vector<std::string>& globs) {
  for (const std::string& g : globs)
    if (::fnmatch(g.c_str(), id.c_str(), 0) == 0) return true;
  return false;
}

// Which side of the IUT the run fuzzes: --listen makes it the initiator,
// --suite clc (or --case globs that select clc cases only) its CLC server.
std::optional<wf::FuzzTarget> fuzz_target(const FuzzArgs& a, const cf::Catalogue& cat, std::ostream& err) {
  const bool clc_suite = std::find(a.suites.begin(), a.suites.end(), "clc") != a.suites.end();
  for (const std::string& s : a.suites)
    if (s != "clc" && s != "mpa" && s != "ddp" && s != "rdmap") {
      err << "rdmaconf fuzz: --suite " << s << ": the wire fuzzer takes mpa, ddp, rdmap or clc\n";
      return std::nullopt;
    }
  if (clc_suite && a.suites.size() > 1) {
    err << "rdmaconf fuzz: --suite clc fuzzes the CLC server alone; run the iWARP suites separately\n";
    return std::nullopt;
  }
  bool only_clc = !a.globs.empty();
  bool any = false;
  if (!a.globs.empty())
    for (const cf::Case& c : cat.cases)
      if (matches_any(c.id, a.globs) && !matches_any(c.id, a.excludes)) {
        any = true;
        only_clc = only_clc && c.protocol == "clc";
      }
  const bool clc = clc_suite || (any && only_clc);
  if (clc && !a.listen.empty()) {
    err << "rdmaconf fuzz: --listen fuzzes the MPA initiator; the CLC server is fuzzed with --target, --agent "
                 "or --reference\n";
    return std::nullopt;
  }
  return clc ? wf::FuzzTarget::kClcServer : !a.listen.empty() ? wf::FuzzTarget::kMpaInitiator : wf::FuzzTarget::kMpaResponder;
}

}  // namespace

int execute_fuzz(const FuzzArgs& a, const FuzzHooks& h) {
  std::ostream& out = *h.out;
  std::ostream& err = *h.err;
  // One IUT: the reference (as initiator with --listen), a device through
  // its agent, or addresses.
  const bool none = a.target.empty() && a.agent.empty() && a.listen.empty() && !a.reference;
  if (none || (a.reference && (!a.target.empty() || !a.agent.empty()))) {
    err << "rdmaconf fuzz: give --target HOST:PORT, --listen ADDR:PORT, --agent URL --token T, or --reference\n";
    return 2;
  }
  if (a.agent.empty() && !a.target.empty() && !a.listen.empty()) {
    err << "rdmaconf fuzz: a run fuzzes one side: --target (the IUT listens) or --listen (it connects)\n";
    return 2;
  }
  if (a.agent.empty() && (!a.token.empty() || !a.agent_listen.empty() || !a.agent_config.empty())) {
    err << "rdmaconf fuzz: --token, --agent-listen and --agent-config go with --agent\n";
    return 2;
  }
  if (a.reference && !a.restore_command.empty()) {
    err << "rdmaconf fuzz: --restore-command restores a device or a target; --reference restores itself (it starts "
           "anew on its ports)\n";
    return 2;
  }
  if (a.restore_command.empty() && !a.restore_log.empty()) {
    err << "rdmaconf fuzz: --restore-log goes with --restore-command\n";
    return 2;
  }
  cf::Catalogue cat = cf::load_catalogue(a.cases_dir);
  for (const auto& e : cat.errors) err << e.to_string() << "\n";
  if (!cat.errors.empty()) return 2;
  // Saved inputs (a finding's script, your own) join the seeds.
  std::vector<std::string> saved;
  for (const std::string& path : a.case_files) {
    std::string error;
    if (!cf::add_case_file(cat, path, saved, error)) {
      err << "rdmaconf fuzz: --case-file " << error << "\n";
      return 2;
    }
  }
  const std::optional<wf::FuzzTarget> target = fuzz_target(a, cat, err);
  if (!target) return 2;
  const bool clc = *target == wf::FuzzTarget::kClcServer;
  if (const std::string given = a.clc.given(); !given.empty() && !clc) {
    err << "rdmaconf fuzz: " << given << (given.find(',') == std::string::npos ? " shapes" : " shape")
        << " the CLC messages of the CLC server target (--suite clc), which this run does not fuzz\n";
    return 2;
  }
  const std::optional<cf::ClcIdentity> identity = clc_identity_from(a.clc, "fuzz", err);
  if (!identity) return 2;
  // Through the agent: it makes the device listen (as `run --agent` does),
  // or connect to --listen, says what the device lacks, and watches the
  // device's host.
  std::unique_ptr<AgentRun> agent_run;
  std::unique_ptr<AgentHealth> health;
  cf::RunOptions agent_ro;
  std::vector<std::string> lacks = a.iut_lacks;
  if (!a.agent.empty()) {
    AgentRunArgs args;
    args.url = a.agent;
    args.token = a.token;
    // The CLC server's listener is where --target points (its port the
    // one the agent binds); the MPA listener the agent opens as well then
    // takes any port.
    (clc ? args.clc_target : args.target) = a.target;
    args.agent_listen = a.agent_listen;
    args.listen = a.listen;
    if (!a.agent_config.empty()) args.configs = {a.agent_config};
    agent_run = std::make_unique<AgentRun>(args);
    std::string error, note;
    std::vector<agent::MpaConfig> configs;
    if (!agent_run->open(error) || !agent_run->configurations(configs, error)) {
      err << "rdmaconf fuzz: " << error << "\n";
      return 2;
    }
    // One configuration: the one asked for, else the device's default.
    const agent::MpaConfig cfg = a.agent_config.empty() ? agent::MpaConfig{} : configs.front();
    if (!agent_run->begin_pass(cfg, *target == wf::FuzzTarget::kClcServer, agent_ro, error)) {
      err << "rdmaconf fuzz: " << error << "\n";
      return 2;
    }
    lacks.insert(lacks.end(), agent_run->lacks().begin(), agent_run->lacks().end());
    agent::AgentUrl url;
    agent::parse_agent_url(a.agent, url);
    health = std::make_unique<AgentHealth>(url, a.token);
    if (!health->open(note, error)) {
      err << "rdmaconf fuzz: " << error << "\n";
      return 2;
    }
    out << "rdmaconf fuzz: " << agent_run->describe() << ", " << cfg.label() << "; " << note << std::endl;
  }
  std::vector<const cf::Case*> seeds;
  for (const cf::Case& c : cat.cases) {
    const bool in_suite = a.suites.empty() || std::find(a.suites.begin(), a.suites.end(), c.protocol) != a.suites.end();
    const bool chosen = std::find(saved.begin(), saved.end(), c.id) != saved.end() ||
                        (in_suite && (a.globs.empty() || matches_any(c.id, a.globs)) && !matches_any(c.id, a.excludes));
    // What the IUT lacks leaves its cases out: they would only be skipped.
    if (chosen && !cf::lacked_need(c, lacks)) seeds.push_back(&c);
  }

  std::unique_ptr<cf::ReferenceIut> iut;
  cf::Listener listener;  // --listen without the agent: where the IUT connects
  cf::Connector connect;
  std::string host, where;
  std::uint16_t port = 0;
  if (!a.listen.empty() && !agent_run) {
    std::string error;
    if (!cf::split_host_port(a.listen, host, port) || !cf::listen_on(host, port, listener, error)) {
      err << "rdmaconf fuzz: --listen: " << (error.empty() ? "expects ADDR:PORT" : error) << "\n";
      return 2;
    }
    connect = cf::accept_connector(listener, std::chrono::milliseconds(10000));
    where = "the IUT connecting to " + listener.address;
  }
  cf::FaultSet fs;
  if (a.reference) {
    for (const std::string& n : a.faults) {
      const cf::FaultInfo* f = cf::find_fault(n);
      if (!f) {
        err << "rdmaconf fuzz: unknown fault '" << n << "' (see rdmaconf faults)\n";
        return 2;
      }
      fs.set(f->id);
    }
    iut = std::make_unique<cf::ReferenceIut>(fs);
    std::string error;
    if (!iut->listen("127.0.0.1", 0, error) || !iut->listen_clc("127.0.0.1", 0, error)) {
      err << "rdmaconf fuzz: " << error << "\n";
      return 2;
    }
    if (*target == wf::FuzzTarget::kMpaInitiator) {
      // The reference initiator connects to --listen once per connection
      // the engine waits for, as `run --reference` makes it for each case.
      const std::uint16_t to = static_cast<std::uint16_t>(std::stoi(listener.address.substr(listener.address.rfind(':') + 1)));
      connect = [accept = connect, &iut, host, to](const cf::Case& c, std::string& err) {
        cf::InitiatorProfile profile;
        profile.rev2_peer_to_peer = c.needs_item("rev2");
        iut->connect(host, to, false, profile);
        return accept(c, err);
      };
      where = "the reference initiator connecting to " + listener.address;
    } else {
      const std::uint16_t at = *target == wf::FuzzTarget::kClcServer ? iut->clc_port() : iut->port();
      connect = cf::tcp_connector("127.0.0.1", at, std::chrono::milliseconds(3000));
      where = "the reference at 127.0.0.1:" + std::to_string(at);
    }
  } else if (agent_run) {
    connect = *target == wf::FuzzTarget::kClcServer   ? agent_ro.connect_clc
              : *target == wf::FuzzTarget::kMpaInitiator ? agent_ro.accept_initiator
                                                         : agent_ro.connect_responder;
    where = a.agent;
    if (!connect) {
      err << "rdmaconf fuzz: the agent set up no connection for the " << wf::to_string(*target)
                << " target (give --listen ADDR:PORT the device can reach)\n";
      return 2;
    }
  } else if (a.listen.empty()) {
    if (!cf::split_host_port(a.target, host, port)) {
      err << "rdmaconf fuzz: --target expects HOST:PORT\n";
      return 2;
    }
    connect = cf::tcp_connector(host, port, std::chrono::milliseconds(3000));
    where = a.target;
  }

  wf::FuzzOptions o;
  o.connect = connect;
  o.shape.target = *target;
  if (health) o.host_health = [&health] { return health->check(); };
  o.seeds = seeds;
  o.seed = a.seed;
  o.iterations = a.iterations;
  o.seconds = a.seconds > 0 ? a.seconds : (a.iterations > 0 ? 0 : 60);
  o.time_scale = a.time_scale;
  o.shape.settle = cf::Duration(a.settle_ms);
  o.iut_lacks = lacks;
  o.clc_identity = *identity;
  if (clc) o.run_options = a.clc.options();
  o.revive = std::chrono::seconds(a.revive_s);
  o.minimize_budget = a.minimize_runs;
  o.history = a.history;
  // The reference is restored by starting it anew on its ports (a finding
  // that takes several inputs runs them from its start). A device or a
  // target is restored by --restore-command (a driver reload, a reboot);
  // without it the fuzzer only waits for it to come back (--revive).
  if (iut)
    o.restore = [&iut, &fs](std::string& why) {
      const std::uint16_t mpa = iut->port(), clc = iut->clc_port();
      iut->stop();
      iut = std::make_unique<cf::ReferenceIut>(fs);
      return iut->listen("127.0.0.1", mpa, why) && iut->listen_clc("127.0.0.1", clc, why);
    };
  std::unique_ptr<RestoreCommand> restorer;
  if (!a.restore_command.empty()) {
    std::string log = a.restore_log;
    if (log.empty() && !a.out.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(a.out, ec);
      log = (std::filesystem::path(a.out) / "restore.log").string();
    }
    restorer = std::make_unique<RestoreCommand>(a.restore_command, std::chrono::seconds(a.restore_timeout_s), log,
                                                h.cancel);
    // Through the agent, the restored device's agent (a new one, after a
    // reboot) listens again as the pass began, and the host oracle starts
    // from what the host holds after the restore.
    o.restore = [&restorer, &agent_run, &health, &err, revive = a.revive_s](std::string& why) {
      if (!restorer->run(why)) {
        err << "rdmaconf fuzz: restore " << restorer->runs() << " failed: " << why << std::endl;
        return false;
      }
      err << "fuzz: restore " << restorer->runs() << " took " << std::fixed << std::setprecision(1)
          << restorer->last_seconds() << " s" << std::endl;
      if (agent_run && !agent_run->resume_pass(std::chrono::seconds(revive), why)) return false;
      std::string note;
      if (health && !health->open(note, why)) return false;
      return true;
    };
  }
  o.out_dir = a.out;
  if (!a.out.empty()) o.pcap = cf::pcap_writer();
  o.cancel = h.cancel;
  o.on_progress = h.on_progress;
  o.on_finding = h.on_finding;
  out << "rdmaconf fuzz: " << where << " (" << wf::to_string(*target) << "), seed " << a.seed << ", "
            << seeds.size() << " cases selected" << (clc ? "; the tester's CLC peer: " + a.clc.describe() : "")
            << std::endl;
  const wf::FuzzSummary s = wf::run_fuzz(o);
  if (h.summary) *h.summary = s;
  if (iut) iut->stop();
  if (agent_run) agent_run->end_pass();
  out << "rdmaconf fuzz: " << s.progress.iterations << " iterations from " << s.seeds << " seeds in " << std::fixed
            << std::setprecision(1) << s.progress.seconds << " s (" << s.exchanges_per_second << " exchanges/s), "
            << s.progress.skipped << " skipped, " << s.findings.size() << " findings; stopped: " << s.stopped << "\n";
  if (!a.json.empty()) {
    std::ofstream j(a.json);
    j << wf::summary_json(s);
    if (!j) {
      err << "rdmaconf fuzz: --json: cannot write " << a.json << "\n";
      return 2;
    }
  }
  if (s.seeds == 0) return 2;
  return s.findings.empty() ? 0 : 1;
}

namespace {

// The console's view of a run: progress about once a second on stderr, each
// finding as it comes on stdout; Ctrl-C ends the run with what it found.
int run_fuzz_command(const FuzzArgs& a) {
  FuzzHooks h;
  h.cancel = &g_cancel;
  h.on_progress = [](const wf::FuzzProgress& p) {
    std::cerr << "fuzz: " << p.iterations << " iterations in " << std::fixed << std::setprecision(0) << p.seconds
              << " s (" << std::setprecision(1) << (p.seconds > 0 ? static_cast<double>(p.iterations) / p.seconds : 0)
              << "/s), " << p.skipped << " skipped, " << p.findings << " findings (" << p.unresponsive
              << " the IUT stopped answering, " << p.host << " its host unhealthy)" << std::endl;
  };
  h.on_finding = [](const wf::Finding& f) {
    std::cout << "finding: " << f.signature << " (from " << f.seed << ", iteration " << f.iteration << ", "
              << f.minimize_runs << " runs to minimize" << (f.reproduced ? ", reproduced" : ", not reproduced") << ")\n  "
              << f.what << "\n";
    if (!f.folder.empty()) std::cout << "  reproducer: " << f.folder << "\n";
  };
  std::signal(SIGINT, [](int) { g_cancel = true; });
  std::signal(SIGTERM, [](int) { g_cancel = true; });
  return execute_fuzz(a, h);
}

void add_fuzz_command(CLI::App& app, int& exit_code) {
  static FuzzArgs a;
  a.cases_dir = cf::default_cases_dir();
  CLI::App* sub = app.add_subcommand("fuzz", "Fuzz an implementation under test on the wire, from the catalogue's exchanges");
  sub->add_option("--target", a.target,
                  "HOST:PORT of an IUT that accepts MPA connections, or its CLC server with --suite clc (with --agent: "
                  "where to reach the agent's listener)");
  sub->add_option("--listen", a.listen,
                  "ADDR:PORT where the tester waits for an IUT that connects: fuzz the MPA initiator (initiator-role "
                  "cases; with --agent the device is asked to connect, with --reference the reference does)");
  sub->add_option("--suite", a.suites,
                  "Suites to start from: mpa, ddp, rdmap (the default, all three), or clc alone (the IUT's SMC CLC server)");
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
  sub->add_option("--case", a.globs,
                  "Catalogue cases to start from (glob on the id; default every case of the target's role; clc cases "
                  "alone fuzz the CLC server)");
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
  sub->add_option("--minimize-runs", a.minimize_runs,
                  "Runs at most per finding to minimize it (default 60; as many again for a finding that takes several "
                  "inputs)");
  sub->add_option("--history", a.history,
                  "Inputs kept since the IUT was last restored, for a finding one input alone does not make again "
                  "(default 0: every one, up to 4096)")
      ->check(CLI::Range(0, 4096));
  sub->add_option("--restore-command", a.restore_command,
                  "A shell command that brings the IUT back to a fresh state (reload its driver and restart its agent, "
                  "reboot its host): run before each try of a finding, so that findings of a device are minimized "
                  "like the reference's; its output goes to --restore-log");
  sub->add_option("--restore-timeout", a.restore_timeout_s,
                  "Seconds the restore command may take before it is ended and the run with it (default 900); the "
                  "IUT then has --revive seconds to answer")
      ->check(CLI::Range(1, 86400));
  sub->add_option("--restore-log", a.restore_log,
                  "Where the restore command's output is appended (default: restore.log in --out)");
  add_clc_identity_options(*sub, a.clc);
  sub->callback([&exit_code] { exit_code = run_fuzz_command(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(fuzz, rdmaconf::cli::add_fuzz_command);
