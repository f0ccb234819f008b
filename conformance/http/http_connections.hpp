// Inside the server (http_server.cpp): the registry of connections that the
// limits are counted in, and the two kinds of connection, an HTTP session
// and a WebSocket stream. Not part of the library's interface.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <chrono>
#include <cstddef>
#include <deque>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "http_server.hpp"

namespace rdmaconf::http::detail {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

struct Registry;
class WsSession;

// One connection counted against the limits, from its client address. It
// moves with the socket from the HTTP session to the WebSocket one.
struct Slot {
  Slot(Registry& r, std::string c) : registry(r), client(std::move(c)) {}
  ~Slot();
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  void release();  // counted no more (idempotent)
  Registry& registry;
  const std::string client;
  bool held = false;  // under Registry::mu
};

// What the registry knows of a connection; the fields are under Registry::mu.
struct Conn {
  virtual ~Conn() = default;
  // Closes the connection from any thread (on its strand).
  virtual void shut() = 0;
  std::shared_ptr<Slot> slot;
  std::list<std::weak_ptr<Conn>>::iterator all_it, idle_it;
  bool in_all = false, in_idle = false;
  bool evicted = false;  // closed for a newcomer while idle
};

struct Registry {
  mutable std::mutex mu;
  std::size_t total = 0;
  std::unordered_map<std::string, std::size_t> per_client;
  std::list<std::weak_ptr<Conn>> all;
  std::list<std::weak_ptr<Conn>> idle;  // waiting for a request's first octet, longest first
  std::list<std::weak_ptr<WsSession>> streams;
  bool stopping = false;

  bool stopping_now() const {
    std::lock_guard lock(mu);
    return stopping;
  }
  // A slot for a new connection from `client`, or nullptr (refuse it). At a
  // limit the longest-idle connection is released for it and returned in
  // `victim` to be shut.
  std::shared_ptr<Slot> admit(const std::string& client, std::size_t max_total, std::size_t max_client,
                              std::shared_ptr<Conn>& victim);
  void release_locked(Slot& s);
  void add(const std::shared_ptr<Conn>& c);
  void remove(Conn& c);
  void set_idle(const std::shared_ptr<Conn>& c);
  // False when the connection was closed for a newcomer meanwhile.
  bool leave_idle(Conn& c);
  std::shared_ptr<Conn> evict_oldest_idle();
  std::vector<std::shared_ptr<Conn>> every();
  std::vector<std::shared_ptr<WsSession>> streams_now();
};

// What sessions share with the server.
struct ServerCore {
  ServerCore(Service& s, ServerOptions o)
      : service(s), options(std::move(o)), handlers(std::max(1u, options.handler_threads)) {}
  virtual ~ServerCore() = default;
  // Tells the pump thread that a stream may have messages.
  virtual void wake() = 0;
  Service& service;
  const ServerOptions options;
  std::size_t max_connections = 0;  // options.max_connections as the descriptor limit allows
  net::io_context ioc;
  net::thread_pool handlers;  // Service::handle() and open_stream()
  Registry registry;
};

bhttp::response<bhttp::string_body> make_response(const ServerOptions& o, unsigned version, bool keep_alive,
                                                  const Response& r);

// One HTTP connection: wait for a request (idle), read its header and body
// (each with its deadline), hand it to the service on the handler pool,
// write the answer; again while kept alive. An upgrade hands the socket to
// a WsSession.
class HttpSession : public Conn, public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(ServerCore& core, beast::tcp_stream stream, std::shared_ptr<Slot> slot);
  ~HttpSession() override;
  void run();
  void shut() override;

 private:
  void wait_request();
  void on_first_octets(beast::error_code ec, std::size_t n);
  void read_header();
  void on_header(beast::error_code ec);
  void on_body(beast::error_code ec);
  void read_failed(beast::error_code ec);
  void dispatch();
  void upgrade();
  void write(bhttp::response<bhttp::string_body> res);
  void refuse(int status, const std::string& message);
  void close();

  ServerCore& core_;
  beast::tcp_stream stream_;
  // The connection's strand, kept apart: the stream moves to a WsSession
  // on an upgrade while a late shut() may still post here.
  const beast::tcp_stream::executor_type strand_;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::chrono::steady_clock::time_point first_octet_;
  std::size_t body_limit_ = 0;
  bool closed_ = false;
};

// One WebSocket: the server's pump thread calls deliver() with what the
// stream has; this writes it in order, one message in flight, and reads
// (and drops) what the client sends so that pongs and its close are seen.
class WsSession : public Conn, public std::enable_shared_from_this<WsSession> {
 public:
  WsSession(ServerCore& core, beast::tcp_stream stream, std::shared_ptr<Slot> slot, std::shared_ptr<Stream> source);
  ~WsSession() override;
  void run(bhttp::request<bhttp::string_body> req);
  void shut() override;
  // From the pump thread:
  void deliver(std::vector<std::string> messages);
  void ping();
  void finish();  // the stream ended: close once everything queued is sent
  std::chrono::steady_clock::time_point last_sent() const;

  const std::shared_ptr<Stream> source;  // asked by the pump thread only
  std::atomic<std::size_t> queued{0};    // octets handed over and not yet written
  std::atomic<bool> open{false}, ended{false};

 private:
  void read();
  void write_next();
  void close();

  ServerCore& core_;
  websocket::stream<beast::tcp_stream> ws_;
  bhttp::request<bhttp::string_body> req_;
  beast::flat_buffer in_;
  std::deque<std::string> out_;
  bool writing_ = false, pinging_ = false, finishing_ = false, close_sent_ = false, closed_ = false;
  std::atomic<std::int64_t> last_sent_ns_{0};
};

}  // namespace rdmaconf::http::detail
