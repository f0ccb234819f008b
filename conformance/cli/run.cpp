// `rdmaconf run`: the catalogue against an implementation under test.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <fstream>
#include <iostream>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <sstream>

#include "cli/agent_run.hpp"
#include "cli/clc_options.hpp"
#include "cli/command.hpp"
#include "agent/json.hpp"
#include "cli/output.hpp"
#include "cli/publish.hpp"
#include "cli/sctp_stack_option.hpp"
#include "cli/run.hpp"
#include "cli/run_checks.hpp"
#include "engine/engine.hpp"
#include "engine/mutation.hpp"
#include "engine/needs.hpp"
#include "engine/pcap_hook.hpp"
#include "report/baseline.hpp"
#include "program/build_info.hpp"
#include "report/findings.hpp"
#include "report/report.hpp"
#include "engine/responder.hpp"
#include "report/summary.hpp"
#include "cli/html_report.hpp"
#ifdef RDMACONF_SCTP_LIVE
#include "endpoint/asio.hpp"
#include "engine/sctp_live.hpp"
#endif
#ifdef RDMACONF_ROCE_DEVICE
#include "agent/rdma_core/roce_side.hpp"
#include "agent/rdma_core/roce_transport.hpp"
#endif

namespace rdmaconf::cli {
namespace {

namespace cf = conformance;


// A suite runs only against a target that speaks it (the iWARP suites need
// an MPA peer, clc an SMC-R CLC peer); what is left out is said, with why.
std::vector<const cf::Case*> runnable_cases(const std::vector<const cf::Case*>& selected, const cf::RunOptions& o,
                                            std::vector<std::string>& skipped, const std::string& no_initiator_why) {
  std::vector<const cf::Case*> out;
  std::map<std::string, std::pair<int, std::string>> left;  // "suite, role" -> count, why
  for (const cf::Case* c : selected) {
    const bool clc = cf::uses_clc(c->protocol);
    std::string why;
    const bool over_sctp = o.llp == cf::RunOptions::Llp::kSctp && (c->protocol == "ddp" || c->protocol == "rdmap");
    if (c->protocol == "sctp" || over_sctp) {
      if (!o.sctp)
        why = "no SCTP side for the tester (give --transport sctp with --reference or --target HOST:PORT, an IUT "
              "reached over SCTP in UDP)";
    } else if (c->protocol == "smcr" && !o.roce) {
      why = "no RoCE transport for the tester's SMC-R side (give --roce-device, or run against --reference)";
    } else if (c->protocol == "smcr" && o.roce_one_port && cf::smcr_links_named(*c) > 1) {
      why = "they need the IUT's second link, and the tester's RoCE device is its only port: it rejects the "
            "IUT's ADD LINK, which would make a parallel link (RFC 7609 §3.5.1.6.1)";
    } else if (c->role == cf::Role::kInitiator) {
      if (!o.accept_initiator) why = no_initiator_why;
    } else if (clc ? !o.connect_clc : !o.connect_responder) {
      why = clc ? "no CLC target (give --clc-target HOST:PORT, or --suite clc to use --target)"
                : "no iWARP target (give --target HOST:PORT)";
    }
    if (why.empty()) {
      out.push_back(c);
      continue;
    }
    auto& [n, w] = left[c->protocol + " (" + std::string(cf::to_string(c->role)) + " role)"];
    ++n;
    w = why;
  }
  for (const auto& [what, nw] : left)
    skipped.push_back(what + ": " + std::to_string(nw.first) + " cases skipped, " + nw.second);
  return out;
}


// The fields --iut may set: what a lab says of its device beside the agent.
constexpr std::string_view kIutFields[] = {"device", "vendor", "firmware", "driver", "kernel", "model", "serial"};

// KEY=VALUE, the key a word of [A-Za-z0-9_.-], the value printable and at
// most 256 octets (it goes into every report and the dashboard). False with
// `error` naming the option.
bool key_values(const std::vector<std::string>& items, std::string_view option,
                std::map<std::string, std::string>& out, std::string& error) {
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    const std::string key = item.substr(0, eq == std::string::npos ? 0 : eq);
    const std::string value = eq == std::string::npos ? std::string() : item.substr(eq + 1);
    const bool key_ok = !key.empty() && key.size() <= 64 &&
                        key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == std::string::npos;
    const bool value_ok = value.size() <= 256 && std::all_of(value.begin(), value.end(), [](char c) {
                            return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f;
                          });
    if (eq == std::string::npos || !key_ok || !value_ok) {
      error = std::string(option) + " expects KEY=VALUE (KEY of letters, digits, '_', '.', '-'; VALUE printable, at most 256 octets), got '" + item + "'";
      return false;
    }
    out[key] = value;
  }
  return true;
}

// The IUT as the agent describes it, then as the operator does (--iut wins).
bool describe_iut(const RunArgs& a, const AgentRun* device_agent, std::map<std::string, std::string>& iut,
                  std::string& error) {
  if (a.reference) iut["backend"] = "reference (built in)";
  if (device_agent) {
    const agent::Capabilities& c = device_agent->capabilities();
    for (const auto& [k, v] : {std::pair<const char*, const std::string*>{"device", &c.device},
                               {"vendor", &c.vendor}, {"firmware", &c.firmware}, {"driver", &c.driver},
                               {"kernel", &c.kernel}, {"backend", &c.backend}})
      if (!v->empty()) iut[k] = *v;
  }
  std::map<std::string, std::string> given;
  if (!key_values(a.iut, "--iut", given, error)) return false;
  for (const auto& [k, v] : given) {
    if (std::find(std::begin(kIutFields), std::end(kIutFields), k) == std::end(kIutFields)) {
      error = "--iut: '" + k + "' is not one of device, vendor, firmware, driver, kernel, model, serial (use --label for anything else)";
      return false;
    }
    iut[k] = v;
  }
  return true;
}

// What a run is made of before its first case: the catalogue and the
// selection, the run's identity, the baseline it is compared with.
struct RunSetup {
  cf::Catalogue cat;
  std::vector<std::string> selected_ids;
  cf::RunIdentity identity;
  std::optional<baseline::Baseline> known;
};

// Fail fast (run_checks.hpp): options that make no sense together, outputs
// that cannot be written, a catalogue or selection with errors, a malformed
// label or an unreadable baseline stop the run before anything runs. The exit
// code, or nothing when the run goes on.
std::optional<int> prepare_run(const RunArgs& a, std::chrono::system_clock::time_point started, RunSetup& s,
                               std::ostream& err) {
  if (const std::string problem = check_run_options(a); !problem.empty()) {
    err << "rdmaconf run: " << problem << "\n";
    return kExitUsage;
  }
  if (std::string error; !prepare_run_outputs(run_outputs(a), error)) {
    err << "rdmaconf run: " << error << "\n";
    return kExitUsage;
  }
  s.cat = cf::load_catalogue(a.cases_dir);
  for (const auto& e : s.cat.errors) err << e.to_string() << "\n";
  if (!s.cat.errors.empty()) return 2;
  // --case-file: the scripts given run, and only they (with --case too, those as well).
  s.selected_ids = a.ids;
  for (const std::string& path : a.case_files) {
    std::string error;
    if (!cf::add_case_file(s.cat, path, s.selected_ids, error)) {
      err << "rdmaconf run: --case-file " << error << "\n";
      return 2;
    }
  }
  if (const std::string problem = check_selection(s.cat, a); !problem.empty()) {
    err << "rdmaconf run: " << problem << "\n";
    return kExitUsage;
  }
  s.identity.version = build_info::version();
  s.identity.commit = build_info::commit();
  s.identity.catalogue_sha256 = s.cat.sha256;
  s.identity.catalogue_cases = s.cat.cases.size();
  s.identity.started_at = cf::iso_time(started);
  s.identity.command_line = a.command_line.empty() ? command_line() : a.command_line;
  if (std::string error; !key_values(a.labels, "--label", s.identity.labels, error)) {
    err << "rdmaconf run: " << error << "\n";
    return 2;
  }
  // The baseline is read before anything runs: a typo in its path must not
  // cost a whole run.
  if (!a.baseline.empty()) {
    std::ifstream in(a.baseline, std::ios::binary);
    std::ostringstream text;
    if (in) text << in.rdbuf();
    std::string error;
    s.known.emplace();
    s.known->source = a.baseline;
    if (!in) error = "cannot read it";
    if (!in || !baseline::read(text.str(), *s.known, error)) {
      err << "rdmaconf run: --baseline " << a.baseline << ": " << error << "\n";
      return 2;
    }
  }
  return std::nullopt;
}

// The implementation under test, as one of three: the reference in process
// (--reference), a device through its agent (--agent), or addresses
// (--target, --clc-target, --listen). Members are destroyed in reverse
// order: the reference's view outlives the IUT that reports into it; the
// listener outlives the run whose accept_initiator waits on it.
struct Iut {
  std::unique_ptr<cf::AgentView> reference_view;
  std::unique_ptr<cf::ReferenceIut> reference;
  std::unique_ptr<AgentRun> device_agent;
  std::vector<agent::MpaConfig> passes{agent::MpaConfig{}};
  cf::Listener listener;
  std::string what;
  std::string no_initiator_why = "no listener for an IUT that connects (give --listen ADDR:PORT)";
};

std::optional<int> start_reference(const RunArgs& a, cf::RunOptions& o, Iut& iut, std::ostream& err) {
  cf::FaultSet fs;
  for (const std::string& n : a.faults) {
    const cf::FaultInfo* f = cf::find_fault(n);
    if (!f) {
      err << "rdmaconf run: unknown fault '" << n << "' (see rdmaconf faults)\n";
      return 2;
    }
    fs.set(f->id);
  }
  iut.reference = std::make_unique<cf::ReferenceIut>(fs);
  // The reference reports its own side as a device agent would.
  iut.reference_view = std::make_unique<cf::AgentView>();
  cf::observe(*iut.reference, *iut.reference_view);
  std::string error;
  if (!iut.reference->listen("127.0.0.1", 0, error) || !iut.reference->listen_clc("127.0.0.1", 0, error)) {
    err << "rdmaconf run: " << error << "\n";
    return 2;
  }
  o = cf::reference_options(*iut.reference, o);
  o.agent = iut.reference_view.get();
  iut.what = "built-in reference IUT" + (fs.names().empty() ? std::string() : " with faults " + fs.names());
  return std::nullopt;
}

std::optional<int> open_agent(const RunArgs& a, cf::RunOptions& o, Iut& iut, std::ostream& err) {
  AgentRunArgs aa = a.agent;
  aa.target = a.target;
  aa.listen = a.listen;
  aa.clc_target = a.clc_target;
  aa.agent_return = std::chrono::seconds(a.agent_return_s);
  if (aa.token.empty())
    if (const char* env = std::getenv("RDMACONF_AGENT_TOKEN")) aa.token = env;
  iut.device_agent = std::make_unique<AgentRun>(aa);
  std::string error;
  if (!iut.device_agent->open(error) || !iut.device_agent->configurations(iut.passes, error)) {
    err << "rdmaconf run: " << error << "\n";
    return 2;
  }
  for (const std::string& item : iut.device_agent->lacks())
    if (std::find(o.iut_lacks.begin(), o.iut_lacks.end(), item) == o.iut_lacks.end()) o.iut_lacks.push_back(item);
  iut.what = iut.device_agent->describe();
  iut.no_initiator_why = "the agent is not on this host: give --listen ADDR:PORT the device can reach";
  return std::nullopt;
}

// --transport sctp --target: the ddp and rdmap suites (and the sctp suite)
// over usrsctp to the IUT (engine/sctp_live.hpp).
std::optional<int> reach_sctp_target(const RunArgs& a, const std::string& host, std::uint16_t port,
                                     cf::RunOptions& o, Iut& iut, std::ostream& err) {
#ifdef RDMACONF_SCTP_LIVE
  boost::system::error_code ec;
  endpoint::asio::ip::make_address(host, ec);
  if (ec) {
    err << "rdmaconf run: --transport sctp --target expects an IP address and a UDP port, got '" << a.target << "'\n";
    return 2;
  }
  const auto stack = *endpoint::parse_sctp_stack(a.sctp_stack);
  if (stack == endpoint::SctpStack::kKernel && a.sctp_port != 0 && a.sctp_port != port) {
    err << "rdmaconf run: --sctp-port: over the kernel's SCTP the target's port is its SCTP port\n";
    return 2;
  }
  o.sctp = cf::live_sctp_factory({.stack = stack, .host = host, .udp_port = port, .sctp_port = a.sctp_port});
  // A real SCTP acknowledges by itself: the cases that hold its SACKs back
  // are the in-process reference's only.
  o.iut_lacks.push_back("sctp-acks");
  iut.what = stack == endpoint::SctpStack::kKernel
                 ? "SCTP (the kernel's) at " + a.target
                 : "SCTP over UDP at " + a.target + (a.sctp_port ? ", SCTP port " + std::to_string(a.sctp_port) : std::string());
  return std::nullopt;
#else
  (void)host, (void)port, (void)o, (void)iut;
  err << "rdmaconf run: --transport sctp --target " << a.target
      << ": this build has no SCTP (usrsctp was not found when it was configured)\n";
  return 2;
#endif
}

std::optional<int> reach_targets(const RunArgs& a, cf::RunOptions& o, Iut& iut, std::ostream& out,
                                 std::ostream& err) {
  if (a.target.empty() && a.listen.empty() && a.clc_target.empty()) {
    err << "rdmaconf run: give --target HOST:PORT, --clc-target HOST:PORT, --listen ADDR:PORT, --agent URL "
           "or --reference\n";
    return 2;
  }
  // Without an agent nobody reports the IUT's own side.
  o.iut_lacks.push_back("agent");
  const bool clc_explicit = std::find(a.suites.begin(), a.suites.end(), "clc") != a.suites.end() ||
                            std::find(a.suites.begin(), a.suites.end(), "smcr") != a.suites.end();
  std::string host;
  std::uint16_t port = 0;
  if (!a.target.empty()) {
    if (!cf::split_host_port(a.target, host, port)) {
      err << "rdmaconf run: --target expects HOST:PORT, got '" << a.target << "'\n";
      return 2;
    }
    // Over SCTP the target is the UDP address its SCTP packets arrive at
    // (RFC 6951), its SCTP port the same number unless --sctp-port says.
    if (a.transport == "sctp") return reach_sctp_target(a, host, port, o, iut, err);
    o.connect_responder = cf::tcp_connector(host, port, std::chrono::milliseconds(3000));
    // --target serves the clc and smcr suites only when asked for by name.
    if (clc_explicit && a.clc_target.empty()) o.connect_clc = o.connect_responder;
    iut.what = a.target;
  }
  if (!a.clc_target.empty()) {
    if (!cf::split_host_port(a.clc_target, host, port)) {
      err << "rdmaconf run: --clc-target expects HOST:PORT\n";
      return 2;
    }
    o.connect_clc = cf::tcp_connector(host, port, std::chrono::milliseconds(3000));
    iut.what += (iut.what.empty() ? "" : ", ") + std::string("CLC at ") + a.clc_target;
  }
  if (!a.listen.empty()) {
    std::string error;
    if (!cf::split_host_port(a.listen, host, port) || !cf::listen_on(host, port, iut.listener, error)) {
      err << "rdmaconf run: --listen: " << (error.empty() ? "expects ADDR:PORT" : error) << "\n";
      return 2;
    }
    o.accept_initiator = cf::accept_connector(iut.listener, std::chrono::milliseconds(10000));
    out << "rdmaconf run: waiting for the IUT to connect to " << iut.listener.address << "\n";
    iut.what += (iut.what.empty() ? "" : ", ") + std::string("IUT connecting to ") + iut.listener.address;
  }
  return std::nullopt;
}

// --roce-device: the smcr suite's tester side on a RoCEv2 device
// (agent/rdma_core/roce_side.hpp); the device is opened once here, so that
// a wrong name stops the run before its first case.
std::optional<int> open_roce(const RunArgs& a, cf::RunOptions& o, std::ostream& err) {
  o.smcr_version = static_cast<std::uint8_t>(a.smcr_version);
  if (a.roce_device.empty()) return std::nullopt;
#ifdef RDMACONF_ROCE_DEVICE
  namespace rc = agent::rdma_core;
  rc::RoceSideConfig c;
  c.device = a.roce_device;
  if (a.roce_gid_index >= 0) c.gid_index = static_cast<std::uint8_t>(a.roce_gid_index);
  c.alternate_device = a.roce_alternate_device;
  if (a.roce_alternate_gid_index >= 0) c.alternate_gid_index = static_cast<std::uint8_t>(a.roce_alternate_gid_index);
  rc::RoceDeviceConfig check;
  check.device = c.device;
  check.gid_index = c.gid_index;
  std::string error;
  std::unique_ptr<rc::RoceHost> host = rc::RoceHost::open(check, error);
  if (!host) {
    err << "rdmaconf run: --roce-device: " << error << "\n";
    return 2;
  }
  if (!c.alternate_device.empty()) {
    rc::RoceDeviceConfig alt;
    alt.device = c.alternate_device;
    alt.gid_index = c.alternate_gid_index;
    if (!host->add_alternate(alt, error)) {
      err << "rdmaconf run: --roce-alternate-device: " << error << "\n";
      return 2;
    }
  }
  o.roce = rc::device_roce_factory(c);
  // One port: the IUT's second link would be parallel to its first.
  o.roce_one_port = c.alternate_device.empty();
  // The device side carries the tester's SMC-R only: it cannot ask the IUT's
  // link group or application to act on its own, so the cases that need that
  // are skipped, with the need named, rather than charged to the IUT.
  for (const char* lacked : {"smcr-actions", "smcr-fabric"})
    if (std::find(o.iut_lacks.begin(), o.iut_lacks.end(), lacked) == o.iut_lacks.end()) o.iut_lacks.push_back(lacked);
  return std::nullopt;
#else
  err << "rdmaconf run: --roce-device: this build has no rdma-core (ci/install-deps.sh installs it)\n";
  return 2;
#endif
}

// The run's options from the command line, and its IUT.
std::optional<int> start_iut(const RunArgs& a, cf::RunOptions& o, Iut& iut, std::ostream& out, std::ostream& err) {
  o.jobs = a.jobs;
  o.time_scale = a.time_scale;
  o.reply_settle = std::chrono::milliseconds(a.reply_settle_ms);
  o.strict = a.strict;
  o.iut_lacks = a.iut_lacks;
  o.llp = a.transport == "sctp" ? cf::RunOptions::Llp::kSctp : cf::RunOptions::Llp::kMpa;
  if (const auto id = clc_identity_from(a.clc, "run", err)) o.clc_identity = *id;
  else return 2;
  if (const auto code = open_roce(a, o, err)) return *code;
  if (a.reference) return start_reference(a, o, iut, err);
  if (!a.agent.url.empty()) return open_agent(a, o, iut, err);
  return reach_targets(a, o, iut, out, err);
}

// --publish: the dashboard to show the run on, opened before the first case.
std::optional<int> open_publisher(const RunArgs& a, const Iut& iut, const nlohmann::json& capabilities,
                                  const cf::RunIdentity& identity, std::unique_ptr<Publisher>& publisher,
                                  std::ostream& out, std::ostream& err) {
  if (a.publish.empty()) return std::nullopt;
  std::string token = a.publish_token;
  if (token.empty())
    if (const char* env = std::getenv("RDMACONF_DASHBOARD_TOKEN")) token = env;
  // One --token serves the dashboard when no agent needs it.
  if (token.empty() && a.agent.url.empty()) token = a.agent.token;
  publisher = std::make_unique<Publisher>(a.publish, token);
  std::string error;
  if (!publisher->open(iut.what, publish_config(a), capabilities, identity, error)) {
    err << "rdmaconf run: --publish: " << error << "\n";
    return 2;
  }
  out << "rdmaconf run: publishing as run " << publisher->run_id() << " at " << a.publish << "\n";
  return std::nullopt;
}

// One case's line as it ends: verdict, baseline status, id, configuration;
// beside a verdict that is not a pass, why, and what the IUT saw itself.
void print_case_line(std::ostream& out, const cf::CaseResult& r, std::size_t done, std::size_t total,
                     const std::optional<baseline::Baseline>& known, const cf::MpaSettings& pass) {
  out << "[" << done << "/" << total << "] " << cf::to_string(r.verdict);
  if (known)
    if (auto st = baseline::status_of(*known, r)) out << " (" << baseline::to_string(*st) << ")";
  out << "  " << r.c->id;
  if (!r.configuration.empty()) out << " [" << r.configuration << "]";
  // A case may ask for other settings than its pass (a CRC case in a
  // crc=off pass): say what its connection had.
  if (const std::string other = r.negotiated ? r.negotiated->contradicts(pass) : ""; !other.empty())
    out << " (this connection: " << other << ")";
  if (r.verdict != cf::Verdict::kPass) {
    out << "  -- " << r.reason << "\n";
    for (const cf::AgentEvent& e : r.agent) out << "      agent: " << cf::describe(e) << "\n";
  } else {
    out << "\n";
  }
}

// What the passes produced: every case's result, what was left out and why,
// the time spent running cases.
struct PassesRun {
  std::vector<cf::CaseResult> results;
  std::vector<std::string> skipped;
  double wall = 0;
  bool any_run = false;
  int stopped = 0;  // the probe's exit code, when a later pass's target stopped answering
  std::size_t captures_lost = 0;  // --pcap captures that could not be written
};

// The selected cases once per MPA configuration the IUT can choose (one pass
// unless an agent offers several). The exit code when the run stops before
// its first case.
std::optional<int> run_passes(const RunArgs& a, const RunHooks& hooks, const RunSetup& s,
                              const std::vector<const cf::Case*>& selected, const cf::RunOptions& o, Iut& iut,
                              Publisher* publisher, const cf::PcapWriter& pcap_writer, PassesRun& run,
                              const std::function<int(int, const std::string&)>& stop_early) {
  std::ostream& out = *hooks.out;
  std::ostream& err = *hooks.err;
  std::mutex mu;
  std::size_t done = 0, total = 0;
  const bool labelled = iut.passes.size() > 1;
  for (std::size_t p = 0; p < iut.passes.size(); ++p) {
    cf::RunOptions po = o;
    if (iut.device_agent) {
      std::string error;
      const agent::MpaConfig& pass = iut.passes[p];
      // The clc suite runs once (no MPA setting changes it), in the first pass.
      const bool with_clc = p == 0 && !std::count(po.iut_lacks.begin(), po.iut_lacks.end(), "clc");
      if (!iut.device_agent->begin_pass(pass, with_clc, po, error)) return stop_early(kExitUsage, error);
      if (labelled) po.configuration = pass.label();
      po.pass = {pass.revision, pass.crc, pass.markers, pass.peer_to_peer};
    }
    std::vector<std::string> pass_skipped;
    auto runnable = runnable_cases(selected, po, pass_skipped, iut.no_initiator_why);
    if (iut.device_agent && p > 0) {
      // Later passes leave the clc suite out on purpose: say so once.
      std::erase_if(pass_skipped, [](const std::string& x) { return x.rfind("clc", 0) == 0; });
    }
    for (const std::string& x : pass_skipped)
      run.skipped.push_back(po.configuration.empty() ? x : "[" + po.configuration + "] " + x);
    if (runnable.empty()) {
      if (iut.device_agent) iut.device_agent->end_pass();
      continue;
    }
    // Each target of the pass speaks its protocol, or no case runs against
    // it (probe.hpp); a later pass that fails keeps the earlier results.
    if (std::string why; !a.no_probe) {
      if (const int code = probe_targets(runnable, po, a.quiet ? nullptr : &out, why); code != 0) {
        if (iut.device_agent) iut.device_agent->end_pass();
        if (run.results.empty()) return stop_early(code, why);
        err << "rdmaconf run: " << why << "\n";
        run.skipped.push_back((po.configuration.empty() ? "" : "[" + po.configuration + "] ") +
                              "this pass and those after it: " + why);
        run.stopped = code;
        break;
      }
    }
    run.any_run = true;
    total = runnable.size();
    done = 0;
    if (labelled && !a.quiet)
      out << "rdmaconf run: pass " << p + 1 << "/" << iut.passes.size() << ": " << po.configuration << "\n";
    po.on_result = [&](const cf::CaseResult& r) {
      std::lock_guard lock(mu);
      ++done;
      if (hooks.on_result) hooks.on_result(r);
      if (publisher) publisher->add(r);
      if (!pcap_writer && a.quiet) return;
      if (pcap_writer && !pcap_writer(a.pcap, r)) ++run.captures_lost;
      if (a.quiet) return;
      print_case_line(out, r, done, total, s.known, po.pass);
    };
    const auto t0 = std::chrono::steady_clock::now();
    auto rs = cf::run_cases(runnable, po);
    run.wall += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (iut.device_agent) iut.device_agent->end_pass();
    run.results.insert(run.results.end(), std::make_move_iterator(rs.begin()), std::make_move_iterator(rs.end()));
  }
  return std::nullopt;
}

// The end of a run: the summary line, the findings (with -q too, as h2spec
// ends), and the reports. A report that cannot be written leaves the results
// in a file the run names, and the exit code says so (run_checks.hpp).
int finish_run(const RunArgs& a, const PassesRun& run, const cf::RunInfo& info, std::size_t passes,
               const std::optional<baseline::Baseline>& known, const nlohmann::json& capabilities, std::ostream& out,
               std::ostream& err) {
  const std::vector<cf::CaseResult>& results = run.results;
  const cf::Summary s = cf::summarize(results);
  out << "\nrdmaconf run: " << s.total << " cases against " << info.target;
  if (passes > 1) out << " in " << passes << " configurations";
  out << " in " << static_cast<long long>(run.wall) << " ms:";
  for (const auto& [v, n] : s.counts) out << " " << cf::to_string(v) << " " << n;
  out << "\n";
  {
    const auto found = findings::group(results);
    std::optional<baseline::Comparison> cmp;
    if (known) cmp = baseline::compare(*known, results, found);
    cf::write_findings_text(out, found, cmp ? &*cmp : nullptr, info);
  }
  std::vector<ReportWrite> reports;
  auto file_report = [&](const char* option, const std::string& path, auto write) {
    if (!path.empty())
      reports.push_back({option, path, [&results, &info, path, write](std::string& error) {
                           return write_output(path, [&](std::ostream& f) { write(f, results, info); }, error);
                         }});
  };
  file_report("--junit", a.junit, cf::write_junit);
  file_report("--json", a.json, cf::write_json);
  if (!a.html.empty())
    reports.push_back({"--html", a.html, [&](std::string& error) {
                         return write_html_report(a.html, results, info, publish_config(a), capabilities, a.cases_dir,
                                                  error);
                       }});
  const bool reported =
      write_run_reports(reports, a.json, [&](std::ostream& f) { cf::write_json(f, results, info); }, err);
  if (!reported) return kExitReportLost;
  // A lost capture is a lost report: the verdicts stand, the octets of
  // those cases are gone.
  if (run.captures_lost > 0) {
    err << "rdmaconf run: --pcap: " << run.captures_lost << " of " << results.size()
        << " captures could not be written into " << a.pcap << "\n";
    return kExitReportLost;
  }
  return run.stopped ? run.stopped : cf::exit_code(results, info);
}

}  // namespace

int execute_run(const RunArgs& a, const RunHooks& hooks) {
  std::ostream& out = *hooks.out;
  std::ostream& err = *hooks.err;
  const auto started = std::chrono::system_clock::now();
  RunSetup setup;
  if (const auto code = prepare_run(a, started, setup, err)) return *code;
  cf::RunOptions o;
  Iut iut;
  if (const auto code = start_iut(a, o, iut, out, err)) return *code;
  if (std::string error; !describe_iut(a, iut.device_agent.get(), setup.identity.iut, error)) {
    err << "rdmaconf run: " << error << "\n";
    return 2;
  }
  auto selected = cf::select(setup.cat, a.suites, setup.selected_ids);
  o.cancel = hooks.cancel;
  const nlohmann::json capabilities =
      iut.device_agent ? agent::to_json(iut.device_agent->capabilities()) : nlohmann::json();
  std::unique_ptr<Publisher> publisher;
  if (const auto code = open_publisher(a, iut, capabilities, setup.identity, publisher, out, err)) return *code;
  if (hooks.on_start) hooks.on_start(iut.what, capabilities);
  cf::PcapWriter pcap_writer;
  if (!a.pcap.empty()) {
    pcap_writer = cf::pcap_writer();
    if (!pcap_writer) {
      err << "rdmaconf run: --pcap: this build has no capture writer\n";
      return 2;
    }
  }
  // A run that stops before its first case still ends on the dashboard.
  auto stop_early = [&](int code, const std::string& message) {
    err << "rdmaconf run: " << message << "\n";
    if (iut.reference) iut.reference->stop();
    if (publisher) {
      std::string error;
      (void)publisher->finish("failed", message, cf::RunInfo{}, error);
    }
    return code;
  };
  PassesRun run;
  if (const auto code = run_passes(a, hooks, setup, selected, o, iut, publisher.get(), pcap_writer, run, stop_early))
    return *code;
  if (iut.reference) iut.reference->stop();
  for (const std::string& s : run.skipped) out << "rdmaconf run: skipped " << s << "\n";
  const bool cancelled = hooks.cancel && hooks.cancel->load();
  setup.identity.finished_at = cf::iso_time(std::chrono::system_clock::now());
  cf::RunInfo info{iut.what, a.faults.empty() ? "" : a.faults.front(), a.strict, run.wall, run.skipped,
                   setup.identity, setup.known ? &*setup.known : nullptr};
  if (hooks.on_end) hooks.on_end(info, run.results);
  if (publisher) {
    std::string error;
    if (!publisher->finish(!run.any_run ? "failed" : cancelled ? "cancelled" : "done",
                           !run.any_run ? "no case selected" : "", info, error))
      err << "rdmaconf run: --publish: " << error << "\n";
  }
  if (!run.any_run) {
    err << "rdmaconf run: no case selected\n";
    return 2;
  }
  return finish_run(a, run, info, iut.passes.size(), setup.known, capabilities, out, err);
}


namespace {

void add_run_command(CLI::App& app, int& exit_code) {
  static RunArgs a;
  CLI::App* sub = app.add_subcommand("run", "Run conformance cases against an implementation under test");
  sub->add_option("--target", a.target,
                  "HOST:PORT of an IUT that accepts MPA connections (the iWARP suites; the clc suite too with --suite "
                  "clc); with --agent: where the device's listener is reached, if not where the agent says");
  sub->add_option("--clc-target", a.clc_target, "HOST:PORT of an SMC-R CLC server (the clc and smcr suites)");
  sub->add_option("--listen", a.listen, "ADDR:PORT where the tester waits for an IUT that connects (initiator role)");
  sub->add_flag("--reference", a.reference, "Test the built-in reference IUT (with --fault to break it)");
  sub->add_option("--fault", a.faults, "With --reference: a named fault (rdmaconf faults)");
  sub->add_option("--suite", a.suites, "Protocol suites to run: mpa, ddp, rdmap, clc, smcr, sctp");
  sub->add_option("--transport", a.transport,
                  "What carries the ddp and rdmap suites: mpa (MPA over TCP) or sctp (RFC 5043 over an SCTP "
                  "association: against --reference, or with --target HOST:PORT over usrsctp in UDP datagrams to "
                  "that UDP port, RFC 6951, or over the kernel's SCTP with --sctp-stack kernel; cases whose meaning rests on MPA or TCP are unimplemented, with why)")
      ->check(CLI::IsMember({"mpa", "sctp"}));
  add_sctp_stack_option(*sub, a.sctp_stack);
  sub->add_option("--sctp-port", a.sctp_port,
                  "With --transport sctp --target: the IUT's SCTP port, when it is not the target's UDP port");
  sub->add_option("--case", a.ids, "Case ids (a trailing * selects a prefix)");
  sub->add_option("--case-file", a.case_files,
                  "A case script outside the catalogue (a bug report's, your own): it runs, and replaces a catalogue "
                  "case of the same id")
      ->check(CLI::ExistingFile);
  sub->add_option("--cases-dir", a.cases_dir, "Folder of the case scripts");
  // The items are the engine's one table (needs.hpp), which the case parser enforces too.
  sub->add_option("--iut-lacks", a.iut_lacks,
                  "Features the IUT does not offer, case 'needs' items: " + cf::needs_items_text() +
                      ", or buffer for every buffer. Their cases are reported unimplemented, not run")
      ->check([](const std::string& item) {
        return cf::is_lackable(item) ? std::string()
                                     : "expected a needs item (" + cf::needs_items_text() + ", buffer), got '" + item + "'";
      })
      // The items as a set, as CLI11 names an IsMember's: help and the
      // generated completions (conformance/program/) offer them.
      ->type_name([] {
        std::string set = "ITEM:{";
        for (const cf::NeedsItem& n : cf::kNeedsItems) set += std::string(n.name) + ",";
        for (std::string_view b : cf::kTestUlpBuffers) set += "buffer:" + std::string(b) + ",";
        return set + "buffer}";
      }());
  add_clc_identity_options(*sub, a.clc);
  sub->add_option("--roce-device", a.roce_device,
                  "The tester's RoCEv2 device for the smcr suite (rxe0, mlx5_0): past CLC its SMC-R link runs there, "
                  "against the IUT's SMC-R over real RoCE");
  sub->add_option("--roce-gid-index", a.roce_gid_index,
                  "With --roce-device: the GID table entry (a RoCEv2 GID) the tester's links use; default: the "
                  "RoCEv2 GID of each CLC connection's local IPv4 address")
      ->check(CLI::Range(0, 255));
  sub->add_option("--roce-alternate-device", a.roce_alternate_device,
                  "With --roce-device: a second RoCEv2 device (port) of the tester, on another address pair, for the "
                  "links added after the first (RFC 7609 §3.5.1.6): the cases of a second link and of failover run");
  sub->add_option("--roce-alternate-gid-index", a.roce_alternate_gid_index,
                  "With --roce-alternate-device: its GID table entry (a RoCEv2 GID); default: its first RoCEv2 IPv4 GID")
      ->check(CLI::Range(0, 255));
  sub->add_option("--smcr-version", a.smcr_version,
                  "The SMC-R version the smcr suite runs over: each case's Proposal offers it whatever the script "
                  "offers (2 for an IUT without SMC-R version 1, such as Linux over soft-RoCE)")
      ->check(CLI::Range(1, 2));
  sub->add_option("--agent", a.agent.url, "http://HOST:PORT of an rdmaconf-agent on the device's host (docs/agent.md)");
  sub->add_option("--token", a.agent.token, "The agent's bearer token (default: $RDMACONF_AGENT_TOKEN)");
  sub->add_option("--agent-config", a.agent.configs,
                  "With --agent: MPA configurations, one catalogue pass each: auto (every setting the device can "
                  "choose), default, or e.g. crc=off,markers=on");
  sub->add_option("--agent-listen", a.agent.agent_listen, "With --agent: [HOST:]PORT the agent listens on (default: --target's port)");
  sub->add_option("--agent-connect-to", a.agent.connect_to,
                  "With --agent: HOST[:PORT] the device dials to reach --listen (default: --listen's address)");
  sub->add_option("--agent-return", a.agent_return_s,
                  "With --agent: seconds a case waits for an agent that stopped answering (restarted) before it is "
                  "an error, once for all jobs; 0: not at all (default 10)")
      ->check(CLI::Range(0, 3600))
      ->each([](const std::string&) { a.agent_return_given = true; });
  sub->add_flag("--agent-nat", a.agent.nat,
                "With --agent: the device sees other addresses than the tester (NAT): one case at a time, events "
                "tied to the running case");
  sub->add_option("-j,--jobs", a.jobs, "Cases run in parallel")
      ->check(CLI::Range(1, 64))
      ->each([](const std::string&) { a.jobs_given = true; });
  sub->add_option("--time-scale", a.time_scale, "Multiply every time bound (0.25 on loopback)")->check(CLI::Range(0.05, 20.0));
  sub->add_option("--reply-settle", a.reply_settle_ms,
                  "Responder-role cases: wait MS after the IUT's accepting MPA Reply before sending anything "
                  "(default 0: at once, as RFC 5044 §7.1.2 allows; for an IUT that misses data right after its Reply)")
      ->check(CLI::Range(0, 10000));
  sub->add_flag("--strict", a.strict, "A missed SHOULD fails the run");
  sub->add_flag("-q,--quiet", a.quiet, "Only the summary");
  sub->add_option("--junit", a.junit, "Write JUnit XML here");
  add_json_option(*sub, a.json, "Write the JSON report");
  sub->add_option("--html", a.html, "Write a self-contained HTML report into this folder");
  sub->add_option("--pcap", a.pcap, "Write one capture per case into this folder");
  sub->add_option("--publish", a.publish, "http://HOST:PORT of an rdmaconf serve dashboard: send the run there as it goes");
  sub->add_option("--baseline", a.baseline,
                  "Known failures: an earlier run's results.json or a findings file (rdmaconf findings --json). "
                  "Failures it lists are reported as known and do not fail the run; new failures and new findings do")
      ->check(CLI::ExistingFile);
  sub->add_option("--label", a.labels, "KEY=VALUE carried by every report and the dashboard (e.g. fw=1.2.3, dut=rack4)");
  sub->add_option("--iut", a.iut,
                  "FIELD=VALUE describing the IUT in every report: device, vendor, firmware, driver, kernel, model, "
                  "serial (wins over what the agent says)");
  sub->add_option("--publish-token", a.publish_token,
                  "The dashboard's bearer token (default: $RDMACONF_DASHBOARD_TOKEN, else --token when no --agent)");
  sub->add_flag("--no-probe", a.no_probe,
                "Run the cases without first checking that each target speaks its protocol (an MPA Request or a CLC "
                "Proposal answered within 3 s times --time-scale)");
  sub->footer(kRunExitCodesHelp);
  sub->final_callback([&exit_code] {
    RunHooks hooks;
    // --json -: the JSON report holds standard output; the console goes to stderr.
    if (is_stdout(a.json)) hooks.out = &std::cerr;
    exit_code = execute_run(a, hooks);
  });
}

}  // namespace
}  // namespace rdmaconf::cli

RDMACONF_COMMAND(run, rdmaconf::cli::add_run_command);
