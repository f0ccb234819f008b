// `rdmaconf run` as a function: the command line calls it, and so does the
// dashboard's run queue (`rdmaconf serve`, serve.cpp), with hooks that store
// each case as it ends and a flag that cancels.
#pragma once

#include <atomic>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/agent_run.hpp"
#include "cli/clc_options.hpp"
#include "engine/engine.hpp"
#include "report/report.hpp"

namespace rdmaconf::cli {

struct RunArgs {
  std::string target, clc_target, listen, cases_dir = conformance::default_cases_dir();
  std::vector<std::string> suites, ids, faults, iut_lacks;
  std::vector<std::string> case_files;  // --case-file: scripts outside the catalogue (only they run)
  bool reference = false, strict = false, quiet = false;
  bool no_probe = false;  // --no-probe: no check before the first case that each target speaks its protocol
  unsigned jobs = 8;
  bool jobs_given = false;  // -j on the command line (--agent-nat refuses it above 1)
  double time_scale = 1.0;
  unsigned reply_settle_ms = 0;  // --reply-settle: wait after an accepting Reply before the first FPDU
  std::string junit, json, html, pcap;
  std::string publish, publish_token;  // a dashboard to send the run to (publish.hpp)
  ClcIdentityArgs clc;  // --clc-eid, --clc-prefix, --clc-gid, --clc-mac (clc_options.hpp)
  AgentRunArgs agent;
  int agent_return_s = 10;  // --agent-return: AgentRunArgs::agent_return
  bool agent_return_given = false;
  // The smcr suite against a device: the tester's RoCE device and GID
  // index (-1: the GID of the CLC connection's local address), and the
  // SMC-R version its cases run over (0: as each script offers).
  std::string roce_device;
  int roce_gid_index = -1;
  std::string roce_alternate_device;  // a second RoCE port for added links
  int roce_alternate_gid_index = -1;
  unsigned smcr_version = 0;
  // --transport: what carries the ddp and rdmap suites, "mpa" (MPA over
  // TCP) or "sctp" (RFC 5043: against --reference, or --target over usrsctp
  // in UDP, RFC 6951); --sctp-stack: usrsctp or kernel (the kernel's SCTP,
  // --target naming the SCTP address and port); --sctp-port: the target's
  // SCTP port over usrsctp (0: its UDP port).
  std::string transport = "mpa";
  std::string sctp_stack = "usrsctp";
  std::uint16_t sctp_port = 0;
  // A lab's workflow (docs/conformance.md, "The lab workflow"): the known
  // failures to compare with, free labels, and the IUT as the operator
  // describes it (FIELD=VALUE; wins over what an agent says).
  std::string baseline;
  std::vector<std::string> labels, iut;
  // The command line the reports name; empty: the process's own.
  std::vector<std::string> command_line;
};

struct RunHooks {
  std::ostream* out = &std::cout;
  std::ostream* err = &std::cerr;
  // Once, before the first case: what is tested, in words, and the agent's
  // capabilities (null without an agent).
  std::function<void(const std::string& what, const nlohmann::json& capabilities)> on_start;
  // Every case as it ends (calls are serialised).
  std::function<void(const conformance::CaseResult&)> on_result;
  // After the last case, before the reports are written.
  std::function<void(const conformance::RunInfo&, const std::vector<conformance::CaseResult>&)> on_end;
  const std::atomic<bool>* cancel = nullptr;
};

// The run; the exit code of `rdmaconf run` (run_checks.hpp: 0, 1 a case
// failed, 2 usage or setup, 3 a target does not speak its protocol, 4 a
// report could not be written).
int execute_run(const RunArgs& a, const RunHooks& hooks = {});

}  // namespace rdmaconf::cli
