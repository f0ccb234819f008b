// Checks before `rdmaconf run` and its reports after (run_checks.hpp).
#include "cli/run_checks.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include "engine/needs.hpp"
#include "cli/output.hpp"
#include "engine/probe.hpp"

namespace rdmaconf::cli {

namespace cf = conformance;

const char* const kRunExitCodesHelp =
    "Exit codes (docs/conformance.md, \"Outputs and exit codes\"):\n"
    "  0  no case failed (with --baseline: no new failure)\n"
    "  1  a case failed (with --baseline: a new failure or a new finding)\n"
    "  2  usage or setup error: bad or meaningless options, unreadable catalogue or input, unreachable target,\n"
    "     agent refused, listener could not bind\n"
    "  3  the target does not speak the protocol (the probe before the first case failed)\n"
    "  4  the run finished but a report could not be written (the results were saved to a fallback file named\n"
    "     on standard error), or a --pcap capture could not (standard error says how many)";

namespace {

std::string join(const std::set<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

bool has(const std::vector<std::string>& v, std::string_view x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

std::string check_run_options(const RunArgs& a) {
  const bool agent = !a.agent.url.empty();
  if (a.reference && agent)
    return "--agent and --reference exclude each other: --reference tests the built-in IUT, --agent a device";
  if (a.reference)
    for (const auto& [option, value] : {std::pair{"--target", &a.target}, {"--clc-target", &a.clc_target},
                                        {"--listen", &a.listen}})
      if (!value->empty())
        return std::string(option) + " and --reference exclude each other: --reference tests the built-in IUT, "
                                     "on addresses of its own";
  if (!a.faults.empty() && !a.reference)
    return "--fault needs --reference: it breaks the built-in reference IUT (a --target or an --agent's device "
           "is tested as it is)";
  if (!agent) {
    for (const auto& [option, given] : {std::pair{"--agent-config", !a.agent.configs.empty()},
                                        {"--agent-listen", !a.agent.agent_listen.empty()},
                                        {"--agent-connect-to", !a.agent.connect_to.empty()},
                                        {"--agent-nat", a.agent.nat},
                                        {"--agent-return", a.agent_return_given}})
      if (given) return std::string(option) + " needs --agent: it tells the device's agent what to do";
    if (!a.agent.token.empty() && a.publish.empty())
      return "--token needs --agent (it is the agent's token; without an agent, --publish's)";
  }
  if (a.agent.nat && a.jobs_given && a.jobs > 1)
    return "--agent-nat runs one case at a time (the device's events are tied to the running case): leave out -j";
  if (!a.publish_token.empty() && a.publish.empty()) return "--publish-token needs --publish";
  // A suite left out by --suite makes the options that shape only it
  // meaningless.
  const bool all_suites = a.suites.empty();
  const bool clc = all_suites || has(a.suites, "clc") || has(a.suites, "smcr");
  const bool iwarp = all_suites || has(a.suites, "mpa") || has(a.suites, "ddp") || has(a.suites, "rdmap");
  if (!clc) {
    if (!a.clc_target.empty()) return "--clc-target serves the clc and smcr suites, which --suite leaves out";
    if (const std::string given = a.clc.given(); !given.empty())
      return given + (given.find(',') == std::string::npos ? " shapes" : " shape") +
             " the CLC messages of the clc and smcr suites, which --suite leaves out";
  }
  if (!a.roce_device.empty() && a.reference)
    return "--roce-device puts the smcr suite's tester on a device; --reference runs the IUT's SMC-R in memory";
  if (a.roce_gid_index >= 0 && a.roce_device.empty()) return "--roce-gid-index needs --roce-device";
  if (!a.roce_alternate_device.empty() && a.roce_device.empty()) return "--roce-alternate-device needs --roce-device";
  if (!a.roce_alternate_device.empty() && a.roce_alternate_device == a.roce_device)
    return "--roce-alternate-device names --roce-device's device: a second link needs a second port";
  if (a.roce_alternate_gid_index >= 0 && a.roce_alternate_device.empty())
    return "--roce-alternate-gid-index needs --roce-alternate-device";
  if (!all_suites && !has(a.suites, "smcr")) {
    if (!a.roce_device.empty()) return "--roce-device serves the smcr suite, which --suite leaves out";
    if (a.smcr_version != 0) return "--smcr-version shapes the smcr suite, which --suite leaves out";
  }
  if (a.reply_settle_ms > 0) {
    if (!iwarp) return "--reply-settle delays the MPA cases, which --suite leaves out";
    if (a.target.empty() && !a.reference && !agent)
      return "--reply-settle needs --target: it delays the responder-role MPA cases, which connect there";
  }
  // The stack carries a live association: in memory (--reference) there is none to choose.
  if (a.sctp_stack != "usrsctp" && (a.transport != "sctp" || a.target.empty()))
    return "--sctp-stack " + a.sctp_stack + " needs --transport sctp --target: it carries the association to the IUT";
  for (const auto& [option, path] : {std::pair{"--junit", &a.junit}, {"--html", &a.html}, {"--pcap", &a.pcap}})
    if (is_stdout(*path)) return std::string(option) + " writes files: give a name (only --json takes - for standard output)";
  // The dashboard queues runs without the command line's checks.
  for (const std::string& item : a.iut_lacks)
    if (!cf::is_lackable(item))
      return "--iut-lacks: expected a needs item (" + cf::needs_items_text() + ", buffer), got '" + item + "'";
  return {};
}

std::string check_selection(const cf::Catalogue& cat, const RunArgs& a) {
  if (cat.cases.empty()) return "the catalogue folder " + a.cases_dir + " holds no case (--cases-dir)";
  std::set<std::string> suites;
  for (const cf::Case& c : cat.cases) suites.insert(c.protocol);
  for (const std::string& s : a.suites)
    if (!suites.count(s)) return "--suite " + s + ": the catalogue's suites are " + join(suites);
  for (const std::string& id : a.ids)
    if (cf::select(cat, a.suites, {id}).empty())
      return "--case " + id + " matches no case" + (a.suites.empty() ? "" : " of the suites --suite names") +
             " (rdmaconf cases lists them; a trailing * selects a prefix)";
  return {};
}

std::vector<RunOutput> run_outputs(const RunArgs& a) {
  std::vector<RunOutput> out;
  for (RunOutput o : {RunOutput{"--junit", a.junit}, RunOutput{"--json", a.json}, RunOutput{"--html", a.html, true},
                      RunOutput{"--pcap", a.pcap, true}})
    if (!o.path.empty()) out.push_back(std::move(o));
  return out;
}

bool prepare_run_outputs(const std::vector<RunOutput>& outputs, std::string& error) {
  namespace fs = std::filesystem;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const RunOutput& o = outputs[i];
    for (std::size_t j = 0; j < i; ++j) {
      if (is_stdout(o.path)) break;
      std::error_code ec;
      if (fs::weakly_canonical(outputs[j].path, ec) == fs::weakly_canonical(o.path, ec) && !ec) {
        error = std::string(outputs[j].option) + " and " + o.option + " name the same path, " + o.path;
        return false;
      }
    }
    if (!prepare_output(o.path, o.folder ? OutputKind::kFolder : OutputKind::kFile, error)) {
      error = std::string(o.option) + ": " + error;
      return false;
    }
  }
  return true;
}

int probe_targets(const std::vector<const cf::Case*>& runnable, const cf::RunOptions& o, std::ostream* note,
                  std::string& error) {
  bool mpa = false, clc = false;
  for (const cf::Case* c : runnable) {
    // The tester connects in the responder role only; a case the IUT lacks
    // a need of makes no connection at all.
    // The sctp suite runs on its own SCTP side, no TCP target to probe.
    // So do the ddp and rdmap suites over SCTP (--transport sctp).
    const bool over_sctp = o.llp == cf::RunOptions::Llp::kSctp && (c->protocol == "ddp" || c->protocol == "rdmap");
    if (c->role != cf::Role::kResponder || c->protocol == "sctp" || over_sctp || cf::lacked_need(*c, o.iut_lacks))
      continue;
    (cf::uses_clc(c->protocol) ? clc : mpa) = true;
  }
  struct Target {
    bool used;
    cf::ProbeProtocol protocol;
    const cf::Connector& connect;
    const char* suites;
  };
  const Target targets[] = {{mpa, cf::ProbeProtocol::kMpa, o.connect_responder, "iWARP"},
                            {clc, cf::ProbeProtocol::kClc, o.connect_clc ? o.connect_clc : o.connect_responder, "CLC"}};
  for (const Target& t : targets) {
    if (!t.used || !t.connect) continue;
    const cf::ProbeResult r = cf::probe_target(t.protocol, t.connect, o);
    switch (r.outcome) {
      case cf::ProbeResult::Outcome::kUnreachable:
        error = std::string("cannot reach the ") + t.suites + " target: " + r.text;
        return kExitUsage;
      case cf::ProbeResult::Outcome::kDoesNotSpeak:
        error = r.text + "; --no-probe runs the cases anyway";
        return kExitNotSpeaking;
      case cf::ProbeResult::Outcome::kSpeaks:
        if (note) *note << "rdmaconf run: " << r.target << " answered the probe with " << r.text << "\n";
        break;
    }
  }
  return 0;
}

bool write_run_reports(const std::vector<ReportWrite>& reports, const std::string& json_path,
                       const std::function<void(std::ostream&)>& json_results, std::ostream& err) {
  bool all = true, json_written = false;
  for (const ReportWrite& r : reports) {
    std::string error;
    if (r.write(error)) {
      if (r.path == json_path) json_written = !is_stdout(json_path);
      continue;
    }
    all = false;
    err << "rdmaconf run: " << r.option << ": " << error << "\n";
  }
  if (all) return true;
  if (json_written) {
    err << "rdmaconf run: the results are in the JSON report, " << json_path << "\n";
    return false;
  }
  std::string error;
  const std::string fallback = write_fallback("rdmaconf-results", json_results, error);
  if (!fallback.empty()) {
    err << "rdmaconf run: the results were saved to " << fallback << " (rdmaconf report " << fallback
        << " writes the reports from it)\n";
    return false;
  }
  // Nowhere to save them: the JSON goes where the messages go, not lost.
  err << "rdmaconf run: the results could not be saved either (" << error << "); they follow as JSON\n";
  json_results(err);
  return false;
}

}  // namespace rdmaconf::cli
