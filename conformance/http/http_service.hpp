// What an HTTP/1.1 + WebSocket service built on rdmaconf's Beast server
// (http_server.hpp) provides: a request -> response function, a body limit per
// request, and event streams for WebSocket upgrades. No Boost here, so the
// deciding part of a service stays testable and fuzzable without sockets.
#pragma once

#include <chrono>
#include <cstddef>
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
  // False when the stream has ended (the server closes the WebSocket).
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
};

// "Bearer TOKEN" against `token`, scheme case-insensitive (RFC 6750 §2.1),
// compared without an early exit. An empty token authorizes nothing.
bool bearer_matches(std::string_view authorization, std::string_view token);

// "a=1&b=2" -> the value of `key` (not percent-decoded); false when absent.
bool query_value(std::string_view query, std::string_view key, std::string_view& value);

// Splits "/path?query".
std::pair<std::string_view, std::string_view> split_target(std::string_view target);

}  // namespace rdmaconf::http
