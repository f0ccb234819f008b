// rdmaconf's one HTTP/1.1 + WebSocket server skeleton (Boost.Beast), shared
// by the device agent's control channel and the lab dashboard. It moves
// octets and enforces limits; a Service (http_service.hpp) does all the deciding.
// One thread per connection, connections bounded, every socket read bounded
// in time and size, the body limit asked of the service per request.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "http_service.hpp"

namespace rdmaconf::http {

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;
  std::size_t max_connections = 32;        // more are answered 503 and closed
  std::chrono::seconds idle_timeout{30};   // a read or write that waits longer ends the connection
  std::size_t max_header = 8 * 1024;       // octets of an HTTP request header
  std::size_t max_ws_message = 4096;       // what a WebSocket client may send (control frames only)
  std::string server_name = "rdmaconf";
};

class Server {
 public:
  Server(Service& service, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts accepting; false with `error` when binding fails.
  bool start(std::string& error);
  std::uint16_t port() const;
  // Stops accepting, ends every connection, joins every thread.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// {"error": {"status": N, "message": "..."}} (JSON-escaped, never throws).
Response error_response(int status, std::string_view message);

}  // namespace rdmaconf::http
