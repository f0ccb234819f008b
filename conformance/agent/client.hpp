// The tester's side of the control channel (rdmaconf run --agent): requests
// over HTTP/1.1 and the event stream over a WebSocket, with Boost.Beast.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "agent/backend.hpp"

namespace rdmaconf::agent {

struct AgentUrl {
  std::string host;
  std::uint16_t port = 0;
};
// "http://host:port" (or "host:port"); false when it is neither.
bool parse_agent_url(const std::string& url, AgentUrl& out);

class AgentClient {
 public:
  AgentClient(AgentUrl url, std::string token, std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  ~AgentClient();
  AgentClient(const AgentClient&) = delete;
  AgentClient& operator=(const AgentClient&) = delete;

  struct Reply {
    int status = 0;            // HTTP status; 0 when the agent could not be reached
    nlohmann::json body;       // the JSON body (null when not JSON)
    std::string error;         // transport error, or the agent's error message
    explicit operator bool() const { return status == 200; }
  };
  Reply get(const std::string& target);
  Reply post(const std::string& target, const nlohmann::json& body);

  // Starts a thread that keeps a WebSocket on /v1/events/stream open
  // (reconnecting when it drops, e.g. an agent restart) and hands every
  // event to `on_event`. `on_restart` is called when the agent's numbering
  // started over (a new agent process).
  // Events after `after` (0: every event the agent still holds).
  // `on_lost` is called when an open stream breaks.
  void start_events(std::function<void(std::uint64_t seq, Event e)> on_event, std::function<void()> on_restart = {},
                    std::uint64_t after = 0, std::function<void()> on_lost = {});
  void stop_events();
  bool events_connected() const { return ws_connected_; }

 private:
  void event_loop(std::uint64_t after);

  AgentUrl url_;
  std::string token_;
  std::chrono::milliseconds timeout_;
  std::function<void(std::uint64_t, Event)> on_event_;
  std::function<void()> on_restart_, on_lost_;
  std::atomic<bool> stopping_{false}, ws_connected_{false};
  std::atomic<int> ws_fd_{-1};
  std::mutex ws_mu_;
  std::thread thread_;
};

}  // namespace rdmaconf::agent
