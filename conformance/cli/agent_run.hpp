// `rdmaconf run --agent`: a run against a device through its agent
// (docs/agent.md). The agent is asked for its capabilities, to listen for
// responder-role cases and to connect for initiator-role cases, once per
// MPA configuration the device can choose; its events become each case's
// agent view.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "agent/backend.hpp"
#include "agent/client.hpp"
#include "engine/engine.hpp"

namespace rdmaconf::cli {

struct AgentRunArgs {
  std::string url, token;
  std::string target;       // where the tester connects (default: the address the agent listens on)
  std::string agent_listen; // [HOST:]PORT the agent binds (default: --target's port, else any)
  std::string listen;       // where the tester waits for initiator-role cases (default 127.0.0.1, a port per case)
  std::string connect_to;   // HOST[:PORT] the agent dials to reach that listener (default: --listen's)
  std::string clc_target;   // where the tester connects for CLC (default: the agent's CLC listener)
  std::vector<std::string> configs;  // auto, default, or "crc=on,markers=off" ...
  bool nat = false;         // addresses differ between the two views: one case at a time
  // How long a case waits for an agent that stopped answering (a restart)
  // before it is an error; 0: not at all (rdmaconf fuzz, which restores
  // the device itself).
  std::chrono::milliseconds agent_return{0};
};

class AgentRun {
 public:
  explicit AgentRun(AgentRunArgs args);
  ~AgentRun();

  // Reaches the agent, reads its capabilities, starts the event stream.
  bool open(std::string& error);
  const agent::Capabilities& capabilities() const { return caps_; }
  const std::vector<std::string>& lacks() const { return lacks_; }
  std::string describe() const;

  // The configurations to run (one catalogue pass each); false with `error`
  // for a spec that does not parse or that the device cannot choose.
  bool configurations(std::vector<agent::MpaConfig>& out, std::string& error) const;

  // Fills the connectors of `o` for one pass (the agent listens with `cfg`;
  // CLC only when `with_clc`). false with `error` when the agent refused.
  bool begin_pass(const agent::MpaConfig& cfg, bool with_clc, conformance::RunOptions& o, std::string& error);
  // After the device was restored under the pass (its driver reloaded, its
  // host booted again, the agent a new process: `rdmaconf fuzz
  // --restore-command`): waits up to `within` for the agent to answer, then
  // has it listen again as the pass began (the same port, the same MPA
  // settings; the CLC listener too). False with `error` when it did not.
  bool resume_pass(std::chrono::milliseconds within, std::string& error);
  void end_pass();

  conformance::AgentView& view() { return *view_; }

 private:
  bool relisten(std::string& error);
  bool agent_back(std::string& error);
  bool clc_relisten(std::string& error);
  int connect_to_listener(const std::uint64_t& listens, bool (AgentRun::*relisten)(std::string&),
                          const std::function<int(std::string&)>& connect, std::string& err);
  std::string reachable(const std::string& address) const;

  AgentRunArgs args_;
  agent::AgentUrl url_;
  std::unique_ptr<agent::AgentClient> client_;
  std::unique_ptr<conformance::AgentView> view_;
  agent::Capabilities caps_;
  std::vector<std::string> lacks_;
  // The pass under way.
  agent::MpaConfig cfg_;
  std::mutex mu_;
  std::uint64_t listen_id_ = 0;
  bool with_clc_ = false;
  std::uint64_t clc_id_ = 0;
  std::uint16_t clc_port_ = 0;    // the CLC listener's port, for resume_pass
  std::string connect_address_;   // where responder-role cases connect
  bool agent_lost_ = false;       // a wait for the agent ended without it (agent_back)
  std::uint64_t listens_ = 0, clc_listens_ = 0;  // how often the agent listened (a job that saw fewer retries)
  std::vector<std::uint64_t> handles_;  // closed at the end of the pass
  std::unique_ptr<conformance::Listener> shared_listener_;
};

}  // namespace rdmaconf::cli
