// rdma-core-probe: the rdma-core backend on its own, without the agent's
// control channel. It prints what the backend says about the device, then
// listens (or connects) as the test ULP and prints every event, one line
// each, until the time is up or it is interrupted. A vendor engineer uses it
// to see the device through the backend's eyes before running the agent;
// with `rdmaconf run --target` pointed at its listener it runs cases
// against the device directly.
//
//   rdma-core-probe [--device NAME] [--listen ADDR:PORT] [--connect ADDR:PORT]
//                   [--clc-listen ADDR:PORT] [--clc-connect ADDR:PORT] [--seconds N]
#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <mutex>
#include <thread>

#include "agent/backend.hpp"

namespace {

std::atomic<bool> interrupted{false};
void on_signal(int) { interrupted = true; }

bool split(const std::string& s, std::string& host, std::uint16_t& port) {
  const auto colon = s.rfind(':');
  if (colon == std::string::npos) return false;
  host = s.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  try {
    const unsigned long p = std::stoul(s.substr(colon + 1));
    if (p > 65535) return false;
    port = static_cast<std::uint16_t>(p);
  } catch (...) {
    return false;
  }
  return true;
}

const char* kind_name(rdmaconf::agent::EventKind k) {
  switch (k) {
    case rdmaconf::agent::EventKind::kConnection: return "connection";
    case rdmaconf::agent::EventKind::kCompletion: return "completion";
    case rdmaconf::agent::EventKind::kAsync: return "async";
    case rdmaconf::agent::EventKind::kClc: return "clc";
  }
  return "?";
}

void print_capabilities(const rdmaconf::agent::Capabilities& c) {
  auto list = [](const auto& v) {
    std::string out;
    for (const auto& x : v) {
      std::ostringstream s;
      s << x;
      out += (out.empty() ? "" : ",") + s.str();
    }
    return out.empty() ? std::string("-") : out;
  };
  std::cout << "device " << c.device << " (" << c.vendor << ") firmware '" << c.firmware << "' transport "
            << c.transport << " address '" << c.address << "'\n"
            << "mpa revisions " << list(c.mpa_revisions) << "; crc on/off " << c.crc.can_on << "/" << c.crc.can_off
            << "; markers on " << c.markers.can_on << "; peer-to-peer " << c.peer_to_peer << " rtr " << list(c.rtr)
            << "\natomics " << c.atomics << "; immediate " << c.immediate_data << "; memory windows "
            << c.memory_windows << "; remote invalidate " << c.remote_invalidate << "; clc " << c.clc
            << "\nbuffers " << list(c.buffers) << "; reply private data " << c.max_reply_private_data << " octets\n";
  for (const std::string& n : c.notes) std::cout << "note: " << n << "\n";
  std::cout << "lacks " << list(rdmaconf::agent::lacks(c)) << "\n" << std::flush;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The rdma-core backend alone: capabilities and events of one device"};
  std::string device, listen, connect, clc_listen, clc_connect;
  int seconds = 60;
  app.add_option("--device", device, "RDMA device (default: the first iWARP device)");
  app.add_option("--listen", listen, "ADDR:PORT to accept MPA connections on as the test ULP");
  app.add_option("--connect", connect, "ADDR:PORT of a tester to connect to as MPA initiator");
  app.add_option("--clc-listen", clc_listen, "ADDR:PORT for an AF_SMC listener (CLC server)");
  app.add_option("--clc-connect", clc_connect, "ADDR:PORT to connect to with AF_SMC (CLC client)");
  app.add_option("--seconds", seconds, "how long to run")->check(CLI::Range(0, 86400));
  CLI11_PARSE(app, argc, argv);

  std::string error;
  auto backend = rdmaconf::agent::create_rdma_core_backend(device, error);
  if (!backend) {
    std::cerr << "rdma-core-probe: " << error << "\n";
    return 2;
  }
  std::mutex out_mu;
  backend->set_event_sink([&](rdmaconf::agent::Event e) {
    std::lock_guard lock(out_mu);
    std::cout << "event " << kind_name(e.kind) << " handle " << e.handle << " " << e.name;
    if (!e.status.empty()) std::cout << " status '" << e.status << "' byte_len " << e.byte_len << " wr_id 0x" << std::hex << e.wr_id << std::dec;
    std::cout << " local " << (e.local.empty() ? "-" : e.local) << " peer " << (e.peer.empty() ? "-" : e.peer);
    if (!e.detail.empty()) std::cout << " | " << e.detail;
    std::cout << std::endl;
  });
  print_capabilities(backend->capabilities());

  auto report = [&](const char* what, const auto& outcome) {
    std::lock_guard lock(out_mu);
    if (outcome) std::cout << what << " handle " << outcome.value->id << " " << outcome.value->address << std::endl;
    else std::cout << what << " failed: " << outcome.error.message << std::endl;
    return static_cast<bool>(outcome);
  };
  std::string host;
  std::uint16_t port = 0;
  bool ok = true;
  if (!listen.empty()) ok &= split(listen, host, port) && report("listen", backend->listen({host, port, {}}));
  if (!connect.empty()) ok &= split(connect, host, port) && report("connect", backend->connect({host, port, {}, "probe"}));
  if (!clc_listen.empty()) ok &= split(clc_listen, host, port) && report("clc-listen", backend->clc_listen({host, port}));
  if (!clc_connect.empty())
    ok &= split(clc_connect, host, port) && report("clc-connect", backend->clc_connect({host, port, "probe"}));

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!interrupted && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  backend->stop();
  return ok ? 0 : 1;
}
