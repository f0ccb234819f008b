// The control channel on the network: Boost.Beast HTTP/1.1 for requests and
// a WebSocket for the event stream, around Control (control.hpp), which does
// all the deciding. The shared server's limits (conformance/http/): few
// threads for every connection, each operation bounded in time and size.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "agent/control.hpp"
#include "http_server.hpp"

namespace rdmaconf::agent {

// The shared server's options (http_server.hpp) with the agent's port and name.
struct ServerOptions : http::ServerOptions {
  ServerOptions() {
    port = 7500;
    server_name = "rdmaconf-agent";
  }
};

class Server {
 public:
  Server(Control& control, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds and starts accepting; false with `error` when binding fails.
  bool start(std::string& error);
  std::uint16_t port() const;
  // As http::Server's: the connection limit in force and why it is less.
  std::size_t max_connections() const;
  const std::string& notice() const;
  // Stops accepting, ends every connection, joins every thread.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmaconf::agent
