// The server's limits as command-line options, the same for `rdmaconf serve`
// and `rdmaconf-agent` (docs/dashboard.md and docs/agent.md, "Limits").
// Header-only, so the server library itself needs no CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include "http_server.hpp"

namespace rdmaconf::http {

struct LimitArgs {
  std::size_t max_connections = ServerOptions{}.max_connections;
  std::size_t max_client_connections = ServerOptions{}.max_client_connections;
  unsigned idle_timeout = static_cast<unsigned>(ServerOptions{}.idle_timeout.count());
  unsigned header_timeout = static_cast<unsigned>(ServerOptions{}.header_timeout.count());
  unsigned body_timeout = static_cast<unsigned>(ServerOptions{}.body_timeout.count());
  std::size_t ws_backlog_kib = ServerOptions{}.ws_backlog / 1024;
  unsigned threads = ServerOptions{}.handler_threads;
};

inline void add_limit_options(CLI::App& app, LimitArgs& a) {
  app.add_option("--max-connections", a.max_connections,
                 "Connections held at once; a new one beyond closes the longest-idle one, 503 when none is idle")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{2}, std::size_t{1000000}));
  app.add_option("--max-client-connections", a.max_client_connections,
                 "Connections from one client address at once; beyond, that client's own idle one goes first, else "
                 "it gets 503")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  app.add_option("--idle-timeout", a.idle_timeout,
                 "Seconds a connection may wait for its next request, or for the client to take an answer")
      ->capture_default_str()
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--header-timeout", a.header_timeout,
                 "Seconds from a request's first octet to its complete header; a slower sender is cut off")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600u));
  app.add_option("--body-timeout", a.body_timeout, "Seconds from a request's header to its complete body; a slower sender is cut off")
      ->capture_default_str()
      ->check(CLI::Range(1u, 86400u));
  app.add_option("--ws-backlog", a.ws_backlog_kib,
                 "KiB queued for one WebSocket client; one whose queue stays full for the idle timeout is dropped")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{16}, std::size_t{1024 * 1024}));
  app.add_option("--threads", a.threads, "Threads answering requests (the I/O itself needs two)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 256u));
}

inline void apply(const LimitArgs& a, ServerOptions& o) {
  o.max_connections = a.max_connections;
  o.max_client_connections = a.max_client_connections;
  o.idle_timeout = std::chrono::seconds(a.idle_timeout);
  o.header_timeout = std::chrono::seconds(a.header_timeout);
  o.body_timeout = std::chrono::seconds(a.body_timeout);
  o.ws_backlog = a.ws_backlog_kib * 1024;
  o.handler_threads = a.threads;
}

}  // namespace rdmaconf::http
