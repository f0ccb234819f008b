// The CLC roles of the reference endpoint over a real TCP socket.
//
// The socket-free machines of clc/handshake.hpp do the protocol; this layer
// moves their octets with Boost.Asio: exact-length reads (header, then the
// Length the header announces, never more, so plain TCP data after a
// fallback stays in the socket), one write in flight, and the CLC wait timer
// (a steady_timer, 6 s like Linux unless configured).
//
// The SMC TCP option: an ordinary TCP socket cannot put kind 254 on its SYN
// without kernel SMC support, so in live mode "the peer is SMC-capable" is
// configuration (ClcOptions::peer_smc_capable). The option codec in
// clc/tcp_option.hpp serves captures, conformance scripts and tests.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "clc/handshake.hpp"
#include "endpoint/asio.hpp"

namespace rdmaconf::endpoint {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct ClcOptions {
  std::chrono::milliseconds wait_time = clc::kClcWaitTime;
  // Whether the peer's SYN (server) or SYN-ACK (client) carried the SMC
  // option. When false the role falls back at once and sends nothing.
  bool peer_smc_capable = true;
};

struct ClcTranscriptEntry {
  bool sent = false;  // false: received
  std::vector<std::uint8_t> octets;
};

struct ClcResult {
  clc::Outcome outcome;
  std::vector<ClcTranscriptEntry> transcript;  // every CLC message, in order
  std::string transport_error;                 // socket error text, if one ended the exchange
};

using ClcHandler = std::function<void(ClcResult)>;

// Runs a role on a connected socket. The socket must outlive the exchange;
// the handler runs once, on the socket's executor. After a fallback the
// socket is left open as a plain TCP connection.
void async_clc_client(tcp::socket& socket, clc::ClientConfig config, ClcOptions options, ClcHandler handler);
void async_clc_server(tcp::socket& socket, clc::ServerConfig config, ClcOptions options, ClcHandler handler);

// Blocking convenience for the CLI: connects to `server` and runs the client
// role on its own io_context.
ClcResult run_clc_client(const tcp::endpoint& server, clc::ClientConfig config, ClcOptions options = {});

// A listener running the server role on each accepted connection; the
// conformance engine uses it as the implementation under test.
class ClcServer {
 public:
  using Handler = std::function<void(ClcResult, tcp::socket&)>;

  ClcServer(asio::io_context& io, const tcp::endpoint& listen, clc::ServerConfig config, ClcOptions options = {});
  ~ClcServer();
  ClcServer(const ClcServer&) = delete;
  ClcServer& operator=(const ClcServer&) = delete;

  unsigned short port() const;
  // Accepts connections until `count` have been handled (0: until stop()).
  void start(Handler handler, std::size_t count = 0);
  void stop();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace rdmaconf::endpoint
