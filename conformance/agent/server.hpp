// The control channel on the network: Boost.Beast HTTP/1.1 for requests and
// a WebSocket for the event stream, around Control (control.hpp), which does
// all the deciding. One thread per connection, connections bounded, every
// socket read bounded in time and size.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "agent/control.hpp"

namespace rdmaconf::agent {

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 7500;
  std::size_t max_connections = 32;           // more are answered 503 and closed
  std::chrono::seconds idle_timeout{30};      // a read or write that waits longer ends the connection
  std::size_t max_header = 8 * 1024;          // octets of an HTTP request header
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
  // Stops accepting, ends every connection, joins every thread.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmaconf::agent
