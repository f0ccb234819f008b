// What an HTTP/1.1 + WebSocket service built on rdmaconf's Beast server
// (http_server.hpp) provides: a request -> response function, a body limit per
// request, and event streams for WebSocket upgrades. No Boost here, so the
// deciding part of a service stays testable and fuzzable without sockets.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rdmaconf::http {

struct Request {
  std::string method;         // "GET", "POST", ...
  std::string target;         // "/api/runs?limit=10"
  std::string authorization;  // the Authorization header, as received
  std::string content_type;
  std::string body;
  std::string host;    // the Host header, as received
  std::string origin;  // the Origin header (browsers send it on WebSocket upgrades), as received
};

struct Response {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers{};  // extra fields
};

// The messages one WebSocket session sends, in order.
class Stream {
 public:
  virtual ~Stream() = default;
  // Appends the next messages to `out`, waiting up to `wait` for the first.
  // False when the stream has ended (the server closes the WebSocket). The
  // server asks with no wait, from one thread, when the service's wake
  // function (Service::set_stream_wake) was called and twice a second.
  virtual bool next(std::vector<std::string>& out, std::chrono::milliseconds wait) = 0;
};

class Service {
 public:
  virtual ~Service() = default;
  virtual Response handle(const Request& r) = 0;
  // The largest body accepted for this request line; a larger one is
  // answered 413 before it is read.
  virtual std::size_t body_limit(std::string_view method, std::string_view target) const = 0;
  // A WebSocket upgrade of `r` (its body is empty): the stream to send, or
  // nullptr with `refusal` set (401, 404, ...).
  virtual std::unique_ptr<Stream> open_stream(const Request& r, Response& refusal) = 0;
  // The server stops: every Stream::next() must return soon.
  virtual void close_streams() = 0;
  // `wake` (cheap, any thread) is to be called whenever a stream may have
  // new messages; an empty function withdraws it, and once this returns the
  // old one is not called any more. A service that never calls it has its
  // streams asked twice a second.
  virtual void set_stream_wake(std::function<void()> wake) { (void)wake; }
};

// "Bearer TOKEN" against `token`, scheme case-insensitive (RFC 6750 §2.1),
// compared without an early exit. An empty token authorizes nothing.
bool bearer_matches(std::string_view authorization, std::string_view token);

// "a=1&b=2" -> the value of `key` (not percent-decoded); false when absent.
bool query_value(std::string_view query, std::string_view key, std::string_view& value);

// Splits "/path?query".
std::pair<std::string_view, std::string_view> split_target(std::string_view target);

// The names a service on a loopback or lab address answers to. A browser
// page on a name its attacker controls can have that name resolve to the
// service's address (DNS rebinding) and then read it as its own origin; the
// Host header still carries the attacker's name, so a service that answers
// only its own names is out of reach. Allowed: IP literals (an attacker's
// page cannot be served from the service's own address), "localhost" and
// names under ".localhost" (RFC 6761 §6.3: they never leave the host), and
// the names in `extra` ("*" allows any). The port is not compared.
// Case-insensitive; an empty or malformed Host is refused.
bool host_allowed(std::string_view host_header, const std::vector<std::string>& extra);

// A WebSocket upgrade's Origin ("http://name:port"): allowed when absent
// (not a browser) or when its host passes host_allowed(). WebSockets are not
// held to the same-origin rule, so without this any page could read the
// stream. The opaque origin "null" (a file, a sandbox) is refused.
bool origin_allowed(std::string_view origin, const std::vector<std::string>& extra);

}  // namespace rdmaconf::http
