// rdmaconf's one HTTP/1.1 + WebSocket server skeleton (Boost.Beast), shared
// by the device agent's control channel and the lab dashboard. It moves
// octets and enforces limits; a Service (http_service.hpp) does all the deciding.
//
// Asynchronous: a few I/O threads serve every socket, each operation bounded
// in time (beast::tcp_stream), so a slow or idle client costs a socket and a
// small buffer, never a thread. Service::handle() runs on a small pool of its
// own, so a request that waits (a long poll, a database read) never holds up
// the I/O. The limits protect without locking out: a full server closes its
// longest-idle connection for a new one before it refuses anybody.
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
  // Connections held at once. A new one beyond it closes the connection
  // idle longest (waiting for a request); with none idle it is answered 503.
  std::size_t max_connections = 10000;
  // Connections from one client address at once; beyond it that client's
  // own idle connection goes first, else that client (only) gets 503.
  std::size_t max_client_connections = 1000;
  // The wait for the first octet of a request (a fresh or a kept-alive
  // connection), and for a response to be taken by the client.
  std::chrono::seconds idle_timeout{30};
  // A request's header complete this long after its first octet, else the
  // connection is closed (slowloris).
  std::chrono::seconds header_timeout{10};
  // A request's body complete this long after its header, else closed.
  std::chrono::seconds body_timeout{60};
  std::size_t max_header = 8 * 1024;       // octets of an HTTP request header
  std::size_t max_ws_message = 4096;       // what a WebSocket client may send (control frames only)
  // Octets queued for one WebSocket client: its stream is read on while
  // its queue is under this, so a client that stops reading costs at most
  // this (and one batch); with its queue full and nothing taken for the
  // idle time it is dropped.
  std::size_t ws_backlog = 1024 * 1024;
  // Collects a stream's messages at most once per this interval, so a fast
  // producer costs a client one message per interval (0: at once).
  std::chrono::milliseconds stream_interval{0};
  unsigned io_threads = 2;       // threads moving octets
  unsigned handler_threads = 4;  // threads running Service::handle() and open_stream()
  std::string server_name = "rdmaconf";
};

class Server {
 public:
  Server(Service& service, ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Raises the process's file-descriptor limit as far as the connection
  // limit needs and the hard limit allows, binds and starts serving; false
  // with `error` when binding fails.
  bool start(std::string& error);
  std::uint16_t port() const;
  // The connection limit in force: max_connections, or less when the
  // file-descriptor limit cannot be raised that far (notice() says so).
  std::size_t max_connections() const;
  // Empty, or one line for the operator on what start() could not have
  // (the file-descriptor limit).
  const std::string& notice() const;
  // Connections held right now (for tests and the load test).
  std::size_t connections() const;
  // Stops accepting, ends every connection, joins every thread.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// {"error": {"status": N, "message": "..."}} (JSON-escaped, never throws).
Response error_response(int status, std::string_view message);

}  // namespace rdmaconf::http
