// `rdmaconf responder`: the reference implementation as the IUT, with
// named faults that each break one rule.
#include <csignal>
#include <iostream>
#include <thread>

#include "cli/command.hpp"
#include "engine/engine.hpp"
#include "engine/responder.hpp"

namespace rdmaconf::cli {
namespace {
namespace cf = conformance;

struct ResponderArgs {
  std::string listen = "127.0.0.1:7000", clc_listen;
  std::vector<std::string> faults;
  double seconds = 0;
};

volatile std::sig_atomic_t g_stop = 0;

int run_responder(const ResponderArgs& a) {
  cf::FaultSet fs;
  for (const std::string& n : a.faults) {
    const cf::FaultInfo* f = cf::find_fault(n);
    if (!f) {
      std::cerr << "rdmaconf responder: unknown fault '" << n << "' (see rdmaconf faults)\n";
      return 2;
    }
    fs.set(f->id);
  }
  std::string host, error;
  std::uint16_t port = 0;
  if (!cf::split_host_port(a.listen, host, port)) {
    std::cerr << "rdmaconf responder: --listen expects ADDR:PORT\n";
    return 2;
  }
  cf::ReferenceIut iut(fs);
  if (!iut.listen(host, port, error)) {
    std::cerr << "rdmaconf responder: " << error << "\n";
    return 2;
  }
  std::string clc_host = host;
  std::uint16_t clc_port = static_cast<std::uint16_t>(iut.port() + 1);
  if (!a.clc_listen.empty() && !cf::split_host_port(a.clc_listen, clc_host, clc_port)) {
    std::cerr << "rdmaconf responder: --clc-listen expects ADDR:PORT\n";
    return 2;
  }
  if (!iut.listen_clc(clc_host, clc_port, error)) {
    std::cerr << "rdmaconf responder: " << error << "\n";
    return 2;
  }
  std::cout << "rdmaconf responder: iWARP (MPA responder) on " << host << ":" << iut.port() << ", CLC server on "
            << clc_host << ":" << iut.clc_port() << (fs.names().empty() ? "" : ", faults: " + fs.names()) << std::endl;
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(a.seconds);
  while (!g_stop && (a.seconds <= 0 || std::chrono::steady_clock::now() < until))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  iut.stop();
  return 0;
}

void add_responder_command(CLI::App& app, int& exit_code) {
  static ResponderArgs a;
  CLI::App* sub = app.add_subcommand("responder", "Run the reference iWARP responder and CLC server as the IUT");
  sub->add_option("--listen", a.listen, "ADDR:PORT for iWARP (MPA) connections");
  sub->add_option("--clc-listen", a.clc_listen, "ADDR:PORT for CLC connections (default: the next port)");
  sub->add_option("--fault", a.faults, "A named fault (rdmaconf faults); may be repeated");
  sub->add_option("--seconds", a.seconds, "Stop after this long (default: until interrupted)");
  sub->final_callback([&exit_code] { exit_code = run_responder(a); });
}
}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(responder, rdmaconf::cli::add_responder_command);
