// One TCP connection as the reference endpoint uses it: one read and one
// write in flight (the Boost.Beast habit), a receive buffer whose unconsumed
// octets a socket-free parser looks at as a view, and a write queue. The
// protocol logic never sees the socket; it sees octets and produces octets.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "endpoint/asio.hpp"

#include "wire/bytes.hpp"

namespace rdmaconf::endpoint {

class TcpLink : public std::enable_shared_from_this<TcpLink> {
 public:
  // Called with every unconsumed received octet; returns how many it
  // consumed. Octets not consumed are offered again, with more appended,
  // on the next call — so a parser may say "need more" by consuming 0.
  using OnReceive = std::function<std::size_t(wire::Bytes unconsumed)>;
  // Called once when the connection ends: the peer closed it (eof), it was
  // reset, or we closed it. `reason` is empty for an orderly close.
  using OnClosed = std::function<void(const std::string& reason)>;

  TcpLink(tcp::socket socket, std::size_t receive_limit);

  // Starts the read loop. Must be called on the socket's executor.
  void start(OnReceive on_receive, OnClosed on_closed);

  // send(), close_after_flush() and abort() may be called from any thread:
  // they run on the socket's executor (inline when already there).

  // Queues octets for sending; they go out in order, one write in flight.
  void send(std::vector<std::uint8_t> octets);

  // Sends what is queued, then shuts the connection down.
  void close_after_flush();
  // Closes now, discarding anything queued.
  void abort(const std::string& reason);

  bool open() const { return open_; }
  tcp::socket& socket() { return socket_; }
  std::uint64_t octets_sent() const { return octets_sent_; }
  std::uint64_t octets_received() const { return octets_received_; }

 private:
  void read_more();
  void write_next();
  void do_send(std::vector<std::uint8_t> octets);
  void do_close_after_flush();
  void finish(const std::string& reason);

  tcp::socket socket_;
  std::size_t receive_limit_;
  std::vector<std::uint8_t> rx_;  // [rx_begin_, rx_end_) holds unconsumed octets
  std::size_t rx_begin_ = 0;
  std::size_t rx_end_ = 0;
  std::deque<std::vector<std::uint8_t>> tx_;
  bool writing_ = false;
  bool close_when_flushed_ = false;
  std::atomic<bool> open_ = true;
  std::atomic<std::uint64_t> octets_sent_ = 0;
  std::atomic<std::uint64_t> octets_received_ = 0;
  OnReceive on_receive_;
  OnClosed on_closed_;
};

}  // namespace rdmaconf::endpoint
