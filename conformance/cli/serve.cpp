// `rdmaconf serve`: the lab dashboard (docs/dashboard.md). The service and
// the store are conformance/dashboard/; this file gives them the command
// line, the catalogue and the runners (a queued run is execute_run(), the
// same code as `rdmaconf run`; a fuzz run is execute_fuzz(), `rdmaconf fuzz`'s).
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "program/build_info.hpp"
#include "dashboard/case_json.hpp"
#include "cli/command.hpp"
#include "dashboard/dashboard.hpp"
#include "http_server.hpp"
#include "report/report_json.hpp"
#include "cli/fuzz.hpp"
#include "cli/run.hpp"
#include "server_options_cli.hpp"

namespace rdmaconf::cli {
namespace {

using nlohmann::json;
namespace cf = conformance;

struct ServeArgs {
  std::string listen = "127.0.0.1:8080";
  std::string token, db, cases_dir = cf::default_cases_dir();
  http::LimitArgs limits;
  std::vector<std::string> allow_hosts;
  std::string fuzz_restore_command;  // what a fuzz run started with "restore": true runs (rdmaconf fuzz --restore-command)
};

std::string random_token() {
  std::random_device rd;
  static const char* hex = "0123456789abcdef";
  std::string t;
  for (int i = 0; i < 32; ++i) t += hex[rd() % 16];
  return t;
}

// $XDG_DATA_HOME/rdmaconf, else ~/.local/share/rdmaconf.
std::string default_db() {
  std::filesystem::path dir;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) dir = x;
  else if (const char* h = std::getenv("HOME"); h && *h) dir = std::filesystem::path(h) / ".local" / "share";
  else dir = ".";
  return (dir / "rdmaconf" / "dashboard.sqlite").string();
}

std::vector<std::string> strings(const json& j, const char* key) {
  std::vector<std::string> out;
  for (const json& s : j.value(key, json::array())) out.push_back(s.get<std::string>());
  return out;
}

dashboard::RunEnd run_queued(dashboard::RunContext& ctx, const std::string& cases_dir) {
  const json& q = ctx.request;
  RunArgs a;
  a.cases_dir = cases_dir;
  a.quiet = true;
  a.suites = strings(q, "suites");
  a.ids = strings(q, "cases");
  a.iut_lacks = strings(q, "iut_lacks");
  a.strict = q.value("strict", false);
  a.time_scale = q.value("time_scale", 1.0);
  a.jobs = q.value("jobs", 8u);
  a.target = q.value("target", "");
  a.clc_target = q.value("clc_target", "");
  a.listen = q.value("listen", "");
  if (q.contains("reference")) {
    a.reference = true;
    a.faults = strings(q["reference"], "faults");
  }
  if (q.contains("agent")) {
    a.agent.url = q["agent"].value("url", "");
    a.agent.token = q["agent"].value("token", "");
    a.agent.configs = strings(q["agent"], "configs");
  }
  // The run's reports name the command that does the same from a shell.
  a.command_line = dashboard::equivalent_command_line(q);
  if (const auto labels = q.find("labels"); labels != q.end() && labels->is_object())
    for (const auto& [k, v] : labels->items()) a.labels.push_back(k + "=" + v.get<std::string>());
  auto identified = [&](const cf::RunIdentity& id) {
    if (ctx.identified) ctx.identified(json(cf::identity_json(id)));
  };
  std::ostringstream out, err;
  RunHooks hooks;
  hooks.out = &out;
  hooks.err = &err;
  hooks.cancel = ctx.cancel;
  hooks.on_start = [&](const std::string& what, const json& capabilities) {
    ctx.started(what, capabilities);
    // What is known before the first case; the end adds the rest.
    cf::RunIdentity id;
    id.version = build_info::version();
    id.commit = build_info::commit();
    id.started_at = cf::iso_time(std::chrono::system_clock::now());
    id.command_line = a.command_line;
    for (const std::string& l : a.labels) id.labels[l.substr(0, l.find('='))] = l.substr(l.find('=') + 1);
    identified(id);
  };
  hooks.on_result = [&](const cf::CaseResult& r) { ctx.case_done(dashboard::result_json(r)); };
  dashboard::RunEnd end;
  bool ended = false;
  hooks.on_end = [&](const cf::RunInfo& info, const std::vector<cf::CaseResult>&) {
    identified(info.identity);
    ended = true;
    end.duration_ms = static_cast<std::int64_t>(info.wall_ms);
    end.skipped = info.skipped;
  };
  const int code = execute_run(a, hooks);
  std::string message = err.str();
  while (!message.empty() && message.back() == '\n') message.pop_back();
  if (!ended || (code == 2 && !message.empty())) {
    end.status = ctx.cancel && ctx.cancel->load() ? "cancelled" : "failed";
    end.message = message.empty() ? "the run did not start" : message;
  } else {
    end.status = ctx.cancel && ctx.cancel->load() ? "cancelled" : "done";
  }
  return end;
}

// A fuzz run started from the page (dashboard/fuzz_runs.hpp): the checked
// request as `rdmaconf fuzz`'s options, its findings' folders under the
// dashboard's fuzz directory.
dashboard::FuzzEnd run_fuzz_started(dashboard::FuzzContext& ctx, const std::string& cases_dir,
                                    const std::string& restore_command) {
  namespace wf = cf::wirefuzz;
  const json& q = ctx.request;
  FuzzArgs a;
  a.cases_dir = cases_dir;
  a.out = ctx.out_dir;
  a.target = q.value("target", "");
  a.listen = q.value("listen", "");
  if (q.contains("reference")) {
    a.reference = true;
    a.faults = strings(q["reference"], "faults");
  }
  if (q.contains("agent")) {
    a.agent = q["agent"].value("url", "");
    a.token = q["agent"].value("token", "");
  }
  a.suites = strings(q, "suites");
  a.globs = strings(q, "cases");
  a.excludes = strings(q, "exclude");
  a.seconds = q.value("seconds", 0.0);
  a.iterations = q.value("iterations", std::uint64_t{0});
  a.seed = q.value("seed", std::uint64_t{1});
  a.time_scale = q.value("time_scale", 1.0);
  a.minimize_runs = q.value("minimize_runs", 60);
  if (q.value("restore", false)) {
    if (restore_command.empty()) {
      dashboard::FuzzEnd refused;
      refused.status = "failed";
      refused.message = "this dashboard has no restore command (rdmaconf serve --fuzz-restore-command CMD)";
      return refused;
    }
    a.restore_command = restore_command;
  }
  if (const auto c = q.find("clc"); c != q.end()) {
    a.clc.eid = c->value("eid", a.clc.eid);
    a.clc.prefix = c->value("prefix", a.clc.prefix);
    a.clc.gid = c->value("gid", a.clc.gid);
    a.clc.mac = c->value("mac", a.clc.mac);
  }
  std::ostringstream out, err;
  FuzzHooks h;
  h.out = &out;
  h.err = &err;
  h.cancel = ctx.cancel;
  h.on_progress = [&ctx](const wf::FuzzProgress& p) {
    ctx.progress({{"iterations", p.iterations}, {"skipped", p.skipped}, {"findings", p.findings},
                  {"unresponsive", p.unresponsive}, {"host", p.host}, {"seconds", p.seconds}});
  };
  h.on_finding = [&ctx](const wf::Finding& f) { ctx.finding(json::parse(wf::finding_json(f))); };
  wf::FuzzSummary s;
  h.summary = &s;
  const int code = execute_fuzz(a, h);
  std::string message = err.str();
  while (!message.empty() && message.back() == '\n') message.pop_back();
  dashboard::FuzzEnd end;
  if (code == 2 && (s.seeds == 0 || !message.empty())) {
    end.status = "failed";
    end.message = !message.empty() ? message : s.stopped;
  } else {
    end.status = ctx.cancel && ctx.cancel->load() ? "cancelled" : "done";
    end.message = "stopped: " + s.stopped;
  }
  return end;
}

int serve(const ServeArgs& a) {
  std::string host;
  std::uint16_t port = 0;
  if (!cf::split_host_port(a.listen, host, port)) {
    std::cerr << "rdmaconf serve: --listen expects ADDR:PORT, got '" << a.listen << "'\n";
    return 2;
  }
  const std::string db = a.db.empty() ? default_db() : a.db;
  std::error_code fs_ec;
  if (const auto parent = std::filesystem::path(db).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent, fs_ec);
  std::string error;
  auto store = dashboard::Store::open(db, error);
  if (!store) {
    std::cerr << "rdmaconf serve: " << error << "\n";
    return 2;
  }
  if (const int n = store->interrupt_unfinished("the dashboard stopped while the run was queued or running"))
    std::cout << "rdmaconf serve: " << n << " run(s) left unfinished by the last server marked interrupted\n";

  auto cat = std::make_shared<cf::Catalogue>(cf::load_catalogue(a.cases_dir));
  for (const auto& e : cat->errors) std::cerr << e.to_string() << "\n";
  dashboard::Catalogue catalogue;
  for (const cf::Case& c : cat->cases)
    catalogue.cases.push_back({{"id", c.id}, {"protocol", c.protocol}, {"level", std::string(cf::to_string(c.level))},
                               {"role", std::string(cf::to_string(c.role))}, {"title", c.title}, {"rfc", c.rfc},
                               {"requirements", c.requirements}, {"needs", c.needs}});
  catalogue.cases_per_row = cf::cases_per_row(*cat);
  const std::string cases_dir = a.cases_dir;
  // Only a file the catalogue names (relative to its folder) is ever read.
  catalogue.script = [cat, cases_dir](const std::string& id) -> std::optional<std::string> {
    for (const cf::Case& c : cat->cases) {
      if (c.id != id) continue;
      std::ifstream f(std::filesystem::path(cases_dir) / c.file, std::ios::binary);
      if (!f) return std::nullopt;
      std::string text(256 * 1024, '\0');
      f.read(text.data(), static_cast<std::streamsize>(text.size()));
      text.resize(static_cast<std::size_t>(f.gcount()));
      return text;
    }
    return std::nullopt;
  };

  // SIGINT/SIGTERM are taken by sigwait below, in every thread started after this.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  const std::string token = a.token.empty() ? random_token() : a.token;
  dashboard::Dashboard service(*store, token, [cases_dir](dashboard::RunContext& ctx) { return run_queued(ctx, cases_dir); },
                               std::move(catalogue));
  service.allow_hosts(a.allow_hosts);
  // Fuzz runs' findings beside the database.
  const std::filesystem::path db_dir = std::filesystem::path(db).parent_path();
  service.enable_fuzz([cases_dir, restore = a.fuzz_restore_command](dashboard::FuzzContext& ctx) {
                        return run_fuzz_started(ctx, cases_dir, restore);
                      },
                      ((db_dir.empty() ? std::filesystem::path(".") : db_dir) / "fuzz").string());
  http::ServerOptions so;
  so.address = host;
  so.port = port;
  http::apply(a.limits, so);
  so.server_name = "rdmaconf-serve";
  // A run in full flow costs a browser one message per 50 ms, not one per case.
  so.stream_interval = std::chrono::milliseconds(50);
  http::Server server(service, so);
  if (!server.start(error)) {
    std::cerr << "rdmaconf serve: " << error << "\n";
    return 2;
  }
  const std::string shown_host = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  const std::string url = "http://" + shown_host + ":" + std::to_string(server.port()) + "/";
  std::cout << "rdmaconf serve: listening on " << url << " (database " << db << ")\n";
  if (a.token.empty()) std::cout << "rdmaconf serve: token " << token << "\n";
  if (!server.notice().empty()) std::cout << "rdmaconf serve: " << server.notice() << "\n";
  std::cout << "rdmaconf serve: open " << url << "#token=" << token << std::endl;
  int sig = 0;
  sigwait(&signals, &sig);
  std::cout << "rdmaconf serve: stopping" << std::endl;
  server.stop();
  service.stop();
  return 0;
}

void add_serve_command(CLI::App& app, int& exit_code) {
  static ServeArgs a;
  CLI::App* sub = app.add_subcommand("serve", "The lab dashboard: runs, live progress, history, run diff (docs/dashboard.md)");
  sub->add_option("--listen", a.listen, "ADDR:PORT to listen on (default 127.0.0.1:8080; port 0 picks one)");
  sub->add_option("--token", a.token, "Bearer token for every call that changes something (default: a random one, printed)");
  sub->add_option("--db", a.db, "The history database (default: $XDG_DATA_HOME/rdmaconf/dashboard.sqlite)");
  sub->add_option("--cases-dir", a.cases_dir, "Folder of the case scripts");
  sub->add_option("--allow-host", a.allow_hosts,
                  "A name the dashboard is reached by besides IP addresses and localhost (repeatable; * any): other "
                  "names in Host are refused, against DNS rebinding");
  sub->add_option("--fuzz-restore-command", a.fuzz_restore_command,
                  "The shell command a fuzz run started with \"restore\": true runs to bring its device back to a fresh "
                  "state (rdmaconf fuzz --restore-command); requests never carry a command");
  http::add_limit_options(*sub, a.limits);
  sub->final_callback([&exit_code] { exit_code = serve(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(serve, rdmaconf::cli::add_serve_command);
