// `rdmaconf run`: the catalogue against an implementation under test.
#include <chrono>
#include <fstream>
#include <iostream>
#include <filesystem>
#include <mutex>

#include "command.hpp"
#include "engine.hpp"
#include "mutation.hpp"
#include "pcap_hook.hpp"
#include "report.hpp"
#include "responder.hpp"

namespace rdmaconf::cli {
namespace {

namespace cf = conformance;

struct RunArgs {
  std::string target, clc_target, listen, cases_dir = cf::default_cases_dir();
  std::vector<std::string> suites, ids, faults, iut_lacks;
  bool reference = false, strict = false, quiet = false;
  unsigned jobs = 8;
  double time_scale = 1.0;
  std::string junit, json, html, pcap;
};

int run(const RunArgs& a) {
  auto cat = cf::load_catalogue(a.cases_dir);
  for (const auto& e : cat.errors) std::cerr << e.to_string() << "\n";
  if (!cat.errors.empty()) return 2;
  cf::RunOptions o;
  o.jobs = a.jobs;
  o.time_scale = a.time_scale;
  o.strict = a.strict;
  o.iut_lacks = a.iut_lacks;
  std::unique_ptr<cf::ReferenceIut> iut;
  cf::Listener listener;
  std::string what;
  if (a.reference) {
    cf::FaultSet fs;
    for (const std::string& n : a.faults) {
      const cf::FaultInfo* f = cf::find_fault(n);
      if (!f) {
        std::cerr << "rdmaconf run: unknown fault '" << n << "' (see rdmaconf faults)\n";
        return 2;
      }
      fs.set(f->id);
    }
    iut = std::make_unique<cf::ReferenceIut>(fs);
    std::string error;
    if (!iut->listen("127.0.0.1", 0, error) || !iut->listen_clc("127.0.0.1", 0, error)) {
      std::cerr << "rdmaconf run: " << error << "\n";
      return 2;
    }
    o = cf::reference_options(*iut, o);
    what = "built-in reference IUT" + (fs.names().empty() ? std::string() : " with faults " + fs.names());
  } else {
    if (a.target.empty() && a.listen.empty()) {
      std::cerr << "rdmaconf run: give --target HOST:PORT, --listen ADDR:PORT or --reference\n";
      return 2;
    }
    std::string host;
    std::uint16_t port = 0;
    if (!a.target.empty()) {
      if (!cf::split_host_port(a.target, host, port)) {
        std::cerr << "rdmaconf run: --target expects HOST:PORT, got '" << a.target << "'\n";
        return 2;
      }
      o.connect_responder = cf::tcp_connector(host, port, std::chrono::milliseconds(3000));
      what = a.target;
    }
    if (!a.clc_target.empty()) {
      if (!cf::split_host_port(a.clc_target, host, port)) {
        std::cerr << "rdmaconf run: --clc-target expects HOST:PORT\n";
        return 2;
      }
      o.connect_clc = cf::tcp_connector(host, port, std::chrono::milliseconds(3000));
    }
    if (!a.listen.empty()) {
      std::string error;
      if (!cf::split_host_port(a.listen, host, port) || !cf::listen_on(host, port, listener, error)) {
        std::cerr << "rdmaconf run: --listen: " << (error.empty() ? "expects ADDR:PORT" : error) << "\n";
        return 2;
      }
      o.accept_initiator = cf::accept_connector(listener, std::chrono::milliseconds(10000));
      std::cout << "rdmaconf run: waiting for the IUT to connect to " << listener.address << "\n";
      what += (what.empty() ? "" : ", ") + std::string("IUT connecting to ") + listener.address;
    }
  }
  auto selected = cf::select(cat, a.suites, a.ids);
  // Cases whose role has no connection in this run are left out.
  std::vector<const cf::Case*> runnable;
  for (const cf::Case* c : selected) {
    const bool have = c->role == cf::Role::kInitiator ? static_cast<bool>(o.accept_initiator)
                                                      : static_cast<bool>(o.connect_responder) ||
                                                            (c->protocol == "clc" && o.connect_clc);
    if (have) runnable.push_back(c);
  }
  if (runnable.empty()) {
    std::cerr << "rdmaconf run: no case selected\n";
    return 2;
  }
  cf::PcapWriter pcap_writer;
  if (!a.pcap.empty()) {
    pcap_writer = cf::pcap_writer();
    if (!pcap_writer) {
      std::cerr << "rdmaconf run: --pcap: this build has no capture writer\n";
      return 2;
    }
  }
  std::mutex mu;
  std::size_t done = 0;
  o.on_result = [&](const cf::CaseResult& r) {
    std::lock_guard lock(mu);
    ++done;
    if (!pcap_writer && a.quiet) return;
    if (pcap_writer) pcap_writer(a.pcap, r);
    if (a.quiet) return;
    std::cout << "[" << done << "/" << runnable.size() << "] " << cf::to_string(r.verdict) << "  " << r.c->id;
    if (r.verdict != cf::Verdict::kPass) std::cout << "  -- " << r.reason;
    std::cout << "\n";
  };
  const auto t0 = std::chrono::steady_clock::now();
  auto results = cf::run_cases(runnable, o);
  const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (iut) iut->stop();
  const cf::Summary s = cf::summarize(results);
  std::cout << "\nrdmaconf run: " << s.total << " cases against " << what << " in " << static_cast<long long>(wall)
            << " ms:";
  for (const auto& [v, n] : s.counts) std::cout << " " << cf::to_string(v) << " " << n;
  std::cout << "\n";
  cf::RunInfo info{what, a.faults.empty() ? "" : a.faults.front(), a.strict, wall};
  auto write = [&](const std::string& path, auto fn) {
    std::ofstream f(path);
    if (!f) {
      std::cerr << "rdmaconf run: cannot write " << path << "\n";
      return false;
    }
    fn(f, results, info);
    return true;
  };
  if (!a.junit.empty() && !write(a.junit, cf::write_junit)) return 2;
  if (!a.json.empty() && !write(a.json, cf::write_json)) return 2;
  if (!a.html.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.html, ec);
    if (!write(a.html + "/index.html", cf::write_html)) return 2;
  }
  return s.exit_code();
}

void add_run_command(CLI::App& app, int& exit_code) {
  static RunArgs a;
  CLI::App* sub = app.add_subcommand("run", "Run conformance cases against an implementation under test");
  sub->add_option("--target", a.target, "HOST:PORT of an IUT that accepts connections (MPA responder, CLC server)");
  sub->add_option("--clc-target", a.clc_target, "HOST:PORT for the clc suite, if not --target");
  sub->add_option("--listen", a.listen, "ADDR:PORT where the tester waits for an IUT that connects (initiator role)");
  sub->add_flag("--reference", a.reference, "Test the built-in reference IUT (with --fault to break it)");
  sub->add_option("--fault", a.faults, "With --reference: a named fault (rdmaconf faults)");
  sub->add_option("--suite", a.suites, "Protocol suites to run: mpa, ddp, rdmap, clc");
  sub->add_option("--case", a.ids, "Case ids (a trailing * selects a prefix)");
  sub->add_option("--cases-dir", a.cases_dir, "Folder of the case scripts");
  sub->add_option("--iut-lacks", a.iut_lacks,
                  "Features the IUT does not offer (case 'needs' items: commands, atomics, immediate, rev2, "
                  "markers, no-crc, echo, receives, clc, buffer): their cases are reported unimplemented, not run")
      ->check(CLI::IsMember({"commands", "atomics", "immediate", "rev2", "markers", "no-crc", "echo", "receives",
                             "clc", "buffer"}));
  sub->add_option("-j,--jobs", a.jobs, "Cases run in parallel")->check(CLI::Range(1, 64));
  sub->add_option("--time-scale", a.time_scale, "Multiply every time bound (0.25 on loopback)")->check(CLI::Range(0.05, 20.0));
  sub->add_flag("--strict", a.strict, "A missed SHOULD fails the run");
  sub->add_flag("-q,--quiet", a.quiet, "Only the summary");
  sub->add_option("--junit", a.junit, "Write JUnit XML here");
  sub->add_option("--json", a.json, "Write the JSON report here");
  sub->add_option("--html", a.html, "Write a self-contained HTML report into this folder");
  sub->add_option("--pcap", a.pcap, "Write one capture per case into this folder");
  sub->final_callback([&exit_code] { exit_code = run(a); });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(run, rdmaconf::cli::add_run_command);
