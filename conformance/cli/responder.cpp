// `rdmaconf responder`: the reference implementation as the IUT, with
// named faults that each break one rule.
#include <csignal>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/command.hpp"
#include "cli/sctp_stack_option.hpp"
#include "engine/engine.hpp"
#include "engine/responder.hpp"
#ifdef RDMACONF_SCTP_LIVE
#include "engine/sctp_live.hpp"
#endif

namespace rdmaconf::cli {
namespace {
namespace cf = conformance;

struct ResponderArgs {
  std::string listen = "127.0.0.1:7000", clc_listen;
  std::vector<std::string> faults;
  double seconds = 0;
  // tcp: MPA and CLC over TCP; sctp: DDP over SCTP (RFC 5043) over usrsctp
  // in UDP datagrams (RFC 6951), --listen naming the UDP address, the SCTP
  // port being the UDP port; or with --sctp-stack kernel over the kernel's
  // SCTP, --listen naming the SCTP address and port.
  std::string transport = "tcp";
  std::string sctp_stack = "usrsctp";
  std::string sctp_ulp = "ddp";
};

volatile std::sig_atomic_t g_stop = 0;

void wait_for_stop(double seconds) {
  std::signal(SIGINT, [](int) { g_stop = 1; });
  std::signal(SIGTERM, [](int) { g_stop = 1; });
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!g_stop && (seconds <= 0 || std::chrono::steady_clock::now() < until))
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

int run_sctp_responder(const ResponderArgs& a, const cf::FaultSet& fs, const std::string& host, std::uint16_t port) {
#ifdef RDMACONF_SCTP_LIVE
  std::unique_ptr<cf::SctpIutServer> server;
  try {
    server = std::make_unique<cf::SctpIutServer>(
        fs, cf::SctpIutServerConfig{.stack = *endpoint::parse_sctp_stack(a.sctp_stack),
                                    .host = host,
                                    .udp_port = port,
                                    .ddp = a.sctp_ulp == "ddp"});
  } catch (const std::exception& e) {
    std::cerr << "rdmaconf responder: " << e.what() << "\n";
    return 2;
  }
  std::cout << "rdmaconf responder: DDP over SCTP (RFC 5043, "
            << (a.sctp_ulp == "ddp" ? "DDP and RDMAP with the test ULP" : "the adaptation layer's echoing test ULP")
            << ") over " << sctp_stack_words(a.sctp_stack)
            << (a.sctp_stack == "kernel"
                    ? " on SCTP " + host + ":" + std::to_string(server->sctp_port())
                    : " on UDP " + host + ":" + std::to_string(server->udp_port()) + ", SCTP port " +
                          std::to_string(server->sctp_port()))
            << (fs.names().empty() ? "" : ", faults: " + fs.names()) << std::endl;
  wait_for_stop(a.seconds);
  return 0;
#else
  (void)a, (void)fs, (void)host, (void)port;
  std::cerr << "rdmaconf responder: --transport sctp: this build has no SCTP (usrsctp was not found when it was "
               "configured)\n";
  return 2;
#endif
}

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
  if (a.transport == "sctp") return run_sctp_responder(a, fs, host, port);
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
  wait_for_stop(a.seconds);
  iut.stop();
  return 0;
}

void add_responder_command(CLI::App& app, int& exit_code) {
  static ResponderArgs a;
  CLI::App* sub = app.add_subcommand("responder", "Run the reference iWARP responder and CLC server as the IUT");
  sub->add_option("--listen", a.listen,
                  "ADDR:PORT for iWARP (MPA) connections; with --transport sctp the UDP address SCTP's packets "
                  "arrive at (RFC 6951), the SCTP port being the same number; with --sctp-stack kernel the SCTP "
                  "address and port");
  sub->add_option("--transport", a.transport,
                  "tcp (MPA and CLC over TCP) or sctp (DDP over SCTP, RFC 5043, over usrsctp in UDP datagrams or, with "
                  "--sctp-stack kernel, the kernel's SCTP)")
      ->check(CLI::IsMember({"tcp", "sctp"}));
  sub->add_option("--sctp-ulp", a.sctp_ulp,
                  "With --transport sctp, what runs above each session: ddp (DDP and RDMAP with the test ULP, for "
                  "the ddp and rdmap suites) or adaptation (the adaptation layer's echoing test ULP, for the sctp "
                  "suite)")
      ->check(CLI::IsMember({"ddp", "adaptation"}));
  add_sctp_stack_option(*sub, a.sctp_stack);
  sub->add_option("--clc-listen", a.clc_listen, "ADDR:PORT for CLC connections (default: the next port)");
  sub->add_option("--fault", a.faults, "A named fault (rdmaconf faults); may be repeated");
  sub->add_option("--seconds", a.seconds, "Stop after this long (default: until interrupted)");
  sub->final_callback([&exit_code] { exit_code = run_responder(a); });
}
}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(responder, rdmaconf::cli::add_responder_command);
