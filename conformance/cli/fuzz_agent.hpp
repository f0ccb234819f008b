// `rdmaconf fuzz --agent`: the IUT's host as an oracle (docs/fuzzing.md,
// "Through the device agent"). After each input the fuzzer asks the agent
// whether it still answers, whether the device reported itself broken (its
// async events since the last look) and, when the agent offers the host's
// kernel log, whether the kernel logged a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/client.hpp"
#include "wirefuzz/host_health.hpp"

namespace rdmaconf::cli {

class AgentHealth {
 public:
  AgentHealth(agent::AgentUrl url, std::string token);
  // Starts from what the agent holds now (earlier events and kernel lines
  // are not this run's, nor, opened again after a restore, what the
  // restore made); `note` says whether the kernel log is offered.
  bool open(std::string& note, std::string& error);
  // nullopt: healthy. A kernel crash lasts until the host booted again (the
  // agent's kernel log has another boot id).
  std::optional<conformance::wirefuzz::HostProblem> check();

 private:
  bool start(std::string& note, std::string& error);
  std::optional<conformance::wirefuzz::HostProblem> look();
  std::optional<conformance::wirefuzz::HostProblem> read_kernel_log();

  agent::AgentUrl url_;
  agent::AgentClient client_;
  std::uint64_t events_after_ = 0, log_after_ = 0;
  std::string boot_id_;
  bool log_offered_ = false;
  std::vector<std::string> recent_;  // the last lines, where a splat's start may wait for its end
  std::optional<conformance::wirefuzz::HostProblem> kernel_crashed_;
};

}  // namespace rdmaconf::cli
