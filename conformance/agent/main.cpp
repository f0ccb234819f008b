// rdmaconf-agent: the device agent (docs/agent.md).
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>

#include <CLI/CLI.hpp>

#include "agent/backend.hpp"
#include "agent/control.hpp"
#include "agent/kernel_log.hpp"
#include "program/program.hpp"
#include "agent/server.hpp"
#include "server_options_cli.hpp"

namespace {

constexpr const char* kBackends = R"(Backends:
  reference   the built-in reference IUT over TCP on this host (needs nothing;
              for trying the agent and for CI). --fault NAME breaks it on purpose.
  rdma-core   an RNIC through libibverbs and librdmacm (needs an RDMA device,
              for iWARP one bound to an IP address: --device NAME, see
              `rdma link`; the test ULP's buffers are registered on it).

The tester runs: rdmaconf run --agent http://ADDR:PORT --token TOKEN
docs/agent.md: capabilities, security model, API.)";

// 128 bits from the system's random source, as hex.
std::string generate_token() {
  std::random_device rd;
  std::ostringstream out;
  out << std::hex;
  for (int i = 0; i < 8; ++i) out << ((rd() & 0xffffu) | 0x10000u);
  std::string s = out.str();
  std::string token;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i % 5 != 0) token += s[i];  // drop the 0x10000 marker digits
  return token;
}

bool is_loopback(const std::string& host) { return host.rfind("127.", 0) == 0 || host == "::1" || host == "localhost"; }

}  // namespace

int main(int argc, char** argv) {
  using namespace rdmaconf::agent;
  CLI::App app{"rdmaconf-agent: plays the test ULP on the device under test for `rdmaconf run --agent`"};
  app.footer(kBackends);
  rdmaconf::program::add_program_flags(app, "rdmaconf-agent");
  std::string backend_name, device, control = "127.0.0.1:7500", token, kernel_log;
  std::vector<std::string> faults;
  bool bind_any = false;
  rdmaconf::http::LimitArgs limits;
  app.add_option("--backend", backend_name, "reference or rdma-core")
      ->required()
      ->check(CLI::IsMember({"reference", "rdma-core"}));
  app.add_option("--device", device, "RDMA device (rdma-core backend), e.g. siw_eth0");
  app.add_option("--control", control, "ADDR:PORT of the control channel (default 127.0.0.1:7500; port 0 picks one)");
  app.add_option("--token", token,
                 "Bearer token the tester must send (default: $RDMACONF_AGENT_TOKEN, else a random one, printed once)");
  app.add_flag("--bind", bind_any, "Allow a control address other than loopback (anyone who reaches it and has the token drives the device)");
  app.add_option("--kernel-log", kernel_log,
                 "The host's kernel log for GET /v1/kernel-log (rdmaconf fuzz --agent reads crashes there): /dev/kmsg, "
                 "a text file that grows, or none (default: /dev/kmsg with --backend rdma-core, none with reference)");
  app.add_option("--fault", faults, "reference backend: a named fault (rdmaconf faults)");
  rdmaconf::http::add_limit_options(app, limits);
  // Exit codes as rdmaconf's (docs/agent.md): help 0, a usage error 2, not
  // CLI11's own numbers (105, 106, 109 ...).
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  // Options the others make meaningless are usage errors, naming both.
  if (!device.empty() && backend_name != "rdma-core") {
    std::cerr << "rdmaconf-agent: --device needs --backend rdma-core (the reference backend has no device)\n";
    return 2;
  }

  const auto colon = control.rfind(':');
  ServerOptions so;
  try {
    if (colon == std::string::npos) throw std::invalid_argument("no port");
    so.address = control.substr(0, colon);
    if (so.address.size() > 2 && so.address.front() == '[' && so.address.back() == ']')
      so.address = so.address.substr(1, so.address.size() - 2);
    const unsigned long port = std::stoul(control.substr(colon + 1));
    if (port > 65535) throw std::out_of_range("port");
    so.port = static_cast<std::uint16_t>(port);
  } catch (const std::exception&) {
    std::cerr << "rdmaconf-agent: --control expects ADDR:PORT, got '" << control << "'\n";
    return 2;
  }
  rdmaconf::http::apply(limits, so);
  if (is_loopback(so.address) && bind_any) {
    std::cerr << "rdmaconf-agent: --bind allows a control address other than loopback, and --control " << control
              << " is loopback; leave --bind out or give the address to bind\n";
    return 2;
  }
  if (!is_loopback(so.address) && !bind_any) {
    std::cerr << "rdmaconf-agent: --control " << control
              << " is not a loopback address; add --bind to accept control connections from the network "
                 "(docs/agent.md, security model)\n";
    return 2;
  }
  if (!faults.empty() && backend_name != "reference") {
    std::cerr << "rdmaconf-agent: --fault needs --backend reference\n";
    return 2;
  }
  bool printed_token = false;
  if (token.empty()) {
    if (const char* env = std::getenv("RDMACONF_AGENT_TOKEN"); env && *env) token = env;
    else {
      token = generate_token();
      printed_token = true;
    }
  }

  std::string error;
  std::unique_ptr<Backend> backend = backend_name == "reference" ? create_reference_backend(faults, error)
                                                                 : create_rdma_core_backend(device, error);
  if (!backend) {
    std::cerr << "rdmaconf-agent: backend " << backend_name << ": " << error << "\n";
    return 2;
  }
  // The signals that end the agent are waited for, not handled.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  Control ctl(*backend, token);
  if (kernel_log.empty()) kernel_log = backend_name == "rdma-core" ? "/dev/kmsg" : "none";
  std::unique_ptr<KernelLog> klog;
  if (kernel_log != "none") {
    klog = std::make_unique<KernelLog>(kernel_log);
    // A log it cannot read is said once here and in every answer; the
    // agent serves the rest all the same.
    if (!klog->unavailable().empty()) std::cerr << "rdmaconf-agent: kernel log: " << klog->unavailable() << "\n";
    ctl.set_kernel_log([&klog](std::uint64_t after, std::size_t max) { return klog->since(after, max); });
  }
  Server server(ctl, so);
  if (!server.start(error)) {
    std::cerr << "rdmaconf-agent: " << error << "\n";
    return 2;
  }
  const std::string host = so.address.find(':') != std::string::npos ? "[" + so.address + "]" : so.address;
  std::cout << "rdmaconf-agent: backend " << backend_name << ", control http://" << host << ":" << server.port()
            << "\n";
  if (printed_token) std::cout << "rdmaconf-agent: token " << token << "\n";
  if (!server.notice().empty()) std::cout << "rdmaconf-agent: " << server.notice() << "\n";
  std::cout << std::flush;
  int sig = 0;
  sigwait(&signals, &sig);
  std::cout << "rdmaconf-agent: stopping\n" << std::flush;
  server.stop();
  backend->stop();
  return 0;
}
