// The control channel without sockets: an HTTP request (already parsed by
// the server) in, a JSON response out. Standard C++ and nlohmann-json only,
// so the fuzzer (fuzz/targets/agent_control.cpp) drives exactly what the
// network reaches. docs/agent.md, "API", is the schema.
#pragma once

#include <condition_variable>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/backend.hpp"

namespace rdmaconf::agent {

struct ControlLimits {
  std::size_t max_request_body = 16 * 1024;   // octets; larger -> 413
  std::size_t max_target = 1024;              // octets of the request target
  std::size_t max_json_depth = 16;            // nesting of arrays/objects
  std::size_t event_buffer = 65536;           // events kept for late readers
  std::size_t max_events_per_poll = 4096;
  std::chrono::milliseconds max_poll_wait{5000};  // longest wait_ms of GET /v1/events
};

struct HttpRequest {
  std::string method;         // "GET", "POST", ...
  std::string target;         // "/v1/listen?x=y"
  std::string authorization;  // the Authorization header, as received
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string body;  // JSON
};

// Every event a backend reports, numbered from 1, kept in a bounded buffer
// (the oldest drop out: a reader that asks for them learns how many it
// missed) and handed to waiting readers (the WebSocket sessions).
class EventLog {
 public:
  explicit EventLog(std::size_t capacity) : capacity_(capacity) {}
  void push(Event e);
  // Events with seq > after, at most `max`; waits up to `wait` for the first.
  // `next` is the seq to ask for next; `dropped` how many were lost.
  std::vector<std::pair<std::uint64_t, Event>> since(std::uint64_t after, std::size_t max,
                                                      std::chrono::milliseconds wait, std::uint64_t& dropped);
  std::uint64_t last() const;
  void close();  // wakes every waiter; since() returns at once afterwards
  // Called after every push and at close (the server's WebSocket pump);
  // empty withdraws it, and once this returns the old one is not called.
  void set_wake(std::function<void()> wake);

 private:
  void call_wake();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::mutex wake_mu_;
  std::function<void()> wake_;
  std::deque<std::pair<std::uint64_t, Event>> events_;
  std::size_t capacity_;
  std::uint64_t next_ = 1;
  bool closed_ = false;
};

// A page of the host's kernel log (GET /v1/kernel-log; kernel_log.hpp
// reads it): lines numbered from 1 since the agent started.
struct KernelLogPage {
  bool available = false;
  std::string reason;   // why not, when not available
  std::string boot_id;  // changes when the host booted again
  std::vector<std::pair<std::uint64_t, std::string>> lines;
  std::uint64_t next = 0;     // the number to ask after next
  std::uint64_t dropped = 0;  // lines lost before `after` could be read
};
using KernelLogSource = std::function<KernelLogPage(std::uint64_t after, std::size_t max)>;

// Compares without an early exit, so response time says nothing about how
// much of a guessed token was right.
bool constant_time_equal(std::string_view a, std::string_view b);

class Control {
 public:
  Control(Backend& backend, std::string token, ControlLimits limits = {});
  HttpResponse handle(const HttpRequest& r);

  // For the server: is this Authorization header the bearer token?
  bool authorized(std::string_view authorization) const;
  // For the server's WebSocket upgrade: the `after` of /v1/events/stream,
  // or an error response (404, 400) when the target is not that stream.
  bool stream_target(std::string_view target, std::uint64_t& after, HttpResponse& error) const;
  EventLog& events() { return events_; }
  // The host's kernel log for GET /v1/kernel-log; without one the request
  // answers that the agent offers none. Set before the server starts.
  void set_kernel_log(KernelLogSource source) { kernel_log_ = std::move(source); }
  const ControlLimits& limits() const { return limits_; }

 private:
  Backend& backend_;
  std::string token_;
  ControlLimits limits_;
  EventLog events_;
  KernelLogSource kernel_log_;
};

// A JSON error body: {"error": {"status": N, "message": "..."}}.
HttpResponse error_response(int status, std::string_view message);

}  // namespace rdmaconf::agent
