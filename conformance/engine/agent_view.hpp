// The IUT's own view of a case: what a device agent (conformance/agent/) or
// the in-process reference IUT reports locally — completions, async events
// such as Terminates and local errors, connection state — tied to the case
// whose TCP connection it is. Standard C++ only: the engine knows nothing of
// how the events travel.
//
// Correlation: an event names its connection's local and peer address as the
// IUT's host sees them; the tester knows its own side of the connection, so
// (IUT address, tester address) is the key. Across NAT (qemu user
// networking, a load balancer) the two views of the addresses differ: then
// cases run one at a time and every connection the IUT reports while a case
// runs belongs to that case (`serial`).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace rdmaconf::conformance {

struct AgentEvent {
  double at_ms = 0;   // since the view was created; reports show it relative to the case
  std::string kind;   // connection, completion, async, clc
  std::string name;   // established / recv / terminate_sent ...
  std::string status; // completions: success or the error
  std::uint32_t byte_len = 0;
  std::string detail;
  std::string local, peer;  // as the IUT's host saw them
};

// "completion recv success 4 octets" ...
std::string describe(const AgentEvent& e);

class AgentView {
 public:
  explicit AgentView(bool serial = false) : serial_(serial) {}
  bool serial() const { return serial_; }

  void add(AgentEvent e);
  // The agent started over (a new process): connections it knew are gone.
  void restart();
  // The event stream broke (the agent went away or restarted): a case that
  // ran across it cannot trust its view, nor the IUT it talked to.
  void lost();
  std::uint64_t epoch() const;

  // The runner's side. begin_case/end_case bracket a case's connection
  // (tester side and IUT side as the tester sees them).
  void begin_case(const std::string& tester, const std::string& iut);
  void end_case(const std::string& tester, const std::string& iut);
  std::vector<AgentEvent> events(const std::string& tester, const std::string& iut) const;
  // Waits until an event of the connection satisfies `pred` or the deadline.
  bool wait_for(const std::string& tester, const std::string& iut, const std::function<bool(const AgentEvent&)>& pred,
                std::chrono::steady_clock::time_point deadline) const;
  double now_ms() const;

 private:
  static std::string key(const std::string& iut, const std::string& tester) { return iut + "|" + tester; }
  std::string resolve(const std::string& agent_key);  // under mu_

  const bool serial_;
  const std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::map<std::string, std::vector<AgentEvent>> by_key_;
  std::map<std::string, std::string> alias_;  // serial: agent key -> the case's key
  std::set<std::string> cases_;               // keys of cases running now
  std::string current_;                       // serial: the running case's key
  std::uint64_t epoch_ = 0;                   // counts lost()
};

// An `agent.*` expectation (docs/conformance.md, "What the IUT reports"):
// `agent.completion`, `agent.async`, `agent.connection` with matchers on
// `name` (or `opcode`), `status`, `byte_len`, `detail` (the detail contains
// the value). Empty when `e` matches; else why not.
struct AgentMatcher {
  std::string field;
  bool negate = false;
  std::string text;           // for name, status, detail
  std::uint64_t number = 0;   // for byte_len
  bool is_number = false;
};
std::string agent_match(const std::string& unit, const std::vector<AgentMatcher>& matchers, const AgentEvent& e);
bool is_agent_unit(const std::string& unit);
bool agent_field_known(const std::string& field);

// The runner's glue (agent_view.cpp).
struct CaseResult;
struct ExchangeRecord;
struct Step;
// Waits until one event of the case's connection matches the step's only
// alternative, within `bound`; empty when it did, else why not (with what the
// IUT did report).
std::string expect_agent(const AgentView& view, const ExchangeRecord& ex, const Step& st,
                         std::chrono::milliseconds bound);
// At a case's end: waits up to `settle` for the IUT to report the close, then
// copies the connection's events into the result (times relative to t0_ms).
void collect_agent_view(AgentView& view, CaseResult& result, double t0_ms, std::chrono::milliseconds settle);

}  // namespace rdmaconf::conformance
