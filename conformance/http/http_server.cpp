// The Beast server (http_server.hpp). Started from Boost 1.74's http_server_sync
// and websocket_server_sync examples.
#include "http_server.hpp"

#include <sys/socket.h>
#include <poll.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <functional>
#include <list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <utility>

namespace rdmaconf::http {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

// The message is ours but may quote what a client sent: everything outside
// ASCII is escaped, invalid UTF-8 replaced.
Response error_response(int status, std::string_view message) {
  const nlohmann::json body{{"error", {{"status", status}, {"message", message}}}};
  return {status, body.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace)};
}

struct Server::Impl {
  Service& service;
  ServerOptions options;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  std::atomic<bool> stopping{false};
  std::thread accept_thread;
  std::mutex mu;
  struct Session {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::list<Session> sessions;
  std::set<int> open_fds;  // shut down on stop() so blocked reads return
  std::atomic<std::size_t> active{0};

  Impl(Service& s, ServerOptions o) : service(s), options(std::move(o)) {}

  bhttp::response<bhttp::string_body> make_response(unsigned version, bool keep_alive, const Response& r) {
    bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
    res.set(bhttp::field::server, options.server_name);
    res.set(bhttp::field::content_type, r.content_type);
    res.set("X-Content-Type-Options", "nosniff");
    if (r.status == 401) res.set(bhttp::field::www_authenticate, "Bearer");
    for (const auto& [k, v] : r.headers) res.set(k, v);
    res.keep_alive(keep_alive && r.status < 400);
    res.body() = r.body;
    res.prepare_payload();
    return res;
  }

  void write_error(tcp::socket& socket, int status, std::string_view message) {
    auto res = make_response(11, false, error_response(status, message));
    beast::error_code ec;
    bhttp::write(socket, res, ec);
  }

  void stream(tcp::socket& socket, bhttp::request<bhttp::string_body>& req, Stream& source) {
    websocket::stream<tcp::socket&> ws{socket};
    ws.read_message_max(options.max_ws_message);  // the client sends nothing but control frames
    const std::string name = options.server_name;
    ws.set_option(websocket::stream_base::decorator([name](websocket::response_type& res) { res.set(bhttp::field::server, name); }));
    beast::error_code ec;
    ws.accept(req, ec);
    if (ec) return;
    ws.text(true);
    std::vector<std::string> batch;
    while (!stopping) {
      batch.clear();
      const bool more = source.next(batch, std::chrono::milliseconds(1000));
      if (stopping) break;
      for (const std::string& m : batch) {
        ws.write(net::buffer(m), ec);
        if (ec) return;
      }
      if (!more) break;
      if (batch.empty()) {
        // Idle: a ping finds a client that went away.
        ws.ping({}, ec);
        if (ec) return;
      }
    }
    ws.close(websocket::close_code::going_away, ec);
  }

  void session(tcp::socket& socket, const std::function<void()>& release) {
    const int fd = socket.native_handle();
    timeval tv{static_cast<time_t>(options.idle_timeout.count()), 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    // The body goes to the parser's string, not this buffer: it holds a
    // header and what arrives with it.
    beast::flat_buffer buffer(options.max_header + 64 * 1024);
    for (;;) {
      bhttp::request_parser<bhttp::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(options.max_header));
      beast::error_code ec;
      bhttp::read_header(socket, buffer, parser, ec);
      std::size_t limit = 0;
      if (!ec) {
        const auto& h = parser.get();
        limit = service.body_limit(std::string_view(h.method_string().data(), h.method_string().size()),
                                   std::string_view(h.target().data(), h.target().size()));
        // Beast checks Content-Length against the limit only while the
        // header completes, so a declared length is checked here.
        if (const auto n = parser.content_length(); n && *n > limit) ec = bhttp::error::body_limit;
        else parser.body_limit(limit);
      }
      if (!ec && !parser.is_done()) bhttp::read(socket, buffer, parser, ec);
      if (ec == bhttp::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset) break;
      if (ec == bhttp::error::body_limit) {
        write_error(socket, 413, "request body over " + std::to_string(limit) + " octets");
        break;
      }
      if (ec == bhttp::error::header_limit) {
        write_error(socket, 431, "request header over " + std::to_string(options.max_header) + " octets");
        break;
      }
      if (ec == bhttp::error::buffer_overflow) {
        write_error(socket, 413, "request too large");
        break;
      }
      if (ec) {
        if (ec != net::error::would_block && ec != net::error::try_again && ec != net::error::timed_out &&
            ec != net::error::operation_aborted && ec != net::error::bad_descriptor)
          write_error(socket, 400, "malformed HTTP request: " + ec.message());
        break;
      }
      auto req = parser.release();
      Request r;
      r.method = std::string(req.method_string());
      r.target = std::string(req.target());
      r.authorization = std::string(req[bhttp::field::authorization]);
      r.content_type = std::string(req[bhttp::field::content_type]);
      r.host = std::string(req[bhttp::field::host]);
      r.origin = std::string(req[bhttp::field::origin]);
      if (websocket::is_upgrade(req)) {
        Response refusal;
        auto source = service.open_stream(r, refusal);
        if (!source) {
          auto res = make_response(req.version(), false, refusal);
          bhttp::write(socket, res, ec);
          break;
        }
        stream(socket, req, *source);
        break;
      }
      r.body = std::move(req.body());
      auto res = make_response(req.version(), req.keep_alive(), service.handle(r));
      const bool keep = res.keep_alive();
      // The last answer of a connection gives its slot back first: a client
      // that reconnects at once must not find its old connection counted.
      if (!keep) release();
      bhttp::write(socket, res, ec);
      if (ec || !keep || stopping) break;
    }
    beast::error_code ec;
    socket.shutdown(tcp::socket::shutdown_send, ec);
  }

  void accept_loop() {
    while (!stopping) {
      pollfd p{acceptor.native_handle(), POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      beast::error_code ec;
      tcp::socket socket{ioc};
      acceptor.accept(socket, ec);
      if (ec) continue;
      if (active >= options.max_connections) {
        timeval tv{1, 0};
        ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        write_error(socket, 503, "too many connections (at most " + std::to_string(options.max_connections) + ")");
        continue;
      }
      std::lock_guard lock(mu);
      if (stopping) break;
      // Finished sessions are joined here, so the list stays as long as the
      // number of open connections.
      for (auto it = sessions.begin(); it != sessions.end();) {
        if (*it->done) {
          it->thread.join();
          it = sessions.erase(it);
        } else {
          ++it;
        }
      }
      ++active;
      open_fds.insert(socket.native_handle());
      auto done = std::make_shared<std::atomic<bool>>(false);
      sessions.push_back({std::thread([this, done, s = std::move(socket)]() mutable {
                            bool released = false;
                            auto release = [&] {
                              if (std::exchange(released, true)) return;
                              std::lock_guard l(mu);
                              open_fds.erase(s.native_handle());
                              --active;
                            };
                            session(s, release);
                            release();
                            beast::error_code ec;
                            s.close(ec);
                            *done = true;
                          }),
                          done});
    }
  }
};

Server::Server(Service& service, ServerOptions options) : impl_(std::make_unique<Impl>(service, std::move(options))) {}
Server::~Server() { stop(); }

bool Server::start(std::string& error) {
  beast::error_code ec;
  const auto address = net::ip::make_address(impl_->options.address, ec);
  if (ec) {
    error = "address '" + impl_->options.address + "' is not an IP address";
    return false;
  }
  const tcp::endpoint ep{address, impl_->options.port};
  impl_->acceptor.open(ep.protocol(), ec);
  if (!ec) impl_->acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) impl_->acceptor.bind(ep, ec);
  if (!ec) impl_->acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + impl_->options.address + ":" + std::to_string(impl_->options.port) + ": " + ec.message();
    return false;
  }
  impl_->accept_thread = std::thread([this] { impl_->accept_loop(); });
  return true;
}

std::uint16_t Server::port() const {
  beast::error_code ec;
  const auto ep = impl_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

void Server::stop() {
  if (!impl_ || impl_->stopping.exchange(true)) return;
  impl_->service.close_streams();
  if (impl_->accept_thread.joinable()) impl_->accept_thread.join();
  std::list<Impl::Session> sessions;
  {
    std::lock_guard lock(impl_->mu);
    for (int fd : impl_->open_fds) ::shutdown(fd, SHUT_RDWR);
    sessions.swap(impl_->sessions);
  }
  for (auto& s : sessions)
    if (s.thread.joinable()) s.thread.join();
  beast::error_code ec;
  impl_->acceptor.close(ec);
}

}  // namespace rdmaconf::http
