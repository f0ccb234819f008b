// Beast server around Control (server.hpp). Started from Boost 1.74's
// http_server_sync and websocket_server_sync examples.
#include "server.hpp"

#include <sys/socket.h>
#include <poll.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <functional>
#include <list>
#include <utility>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "json.hpp"

namespace rdmaconf::agent {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

struct Server::Impl {
  Control& control;
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

  Impl(Control& c, ServerOptions o) : control(c), options(std::move(o)) {}

  template <typename Request>
  http::response<http::string_body> make_response(const Request& req, const HttpResponse& r) {
    http::response<http::string_body> res{static_cast<http::status>(r.status), req.version()};
    res.set(http::field::server, "rdmaconf-agent");
    res.set(http::field::content_type, "application/json");
    if (r.status == 401) res.set(http::field::www_authenticate, "Bearer");
    res.keep_alive(req.keep_alive() && r.status < 400);
    res.body() = r.body;
    res.prepare_payload();
    return res;
  }

  void write_error(tcp::socket& socket, int status, std::string_view message) {
    http::request<http::empty_body> dummy;
    dummy.version(11);
    dummy.keep_alive(false);
    auto res = make_response(dummy, error_response(status, message));
    beast::error_code ec;
    http::write(socket, res, ec);
  }

  void stream_events(tcp::socket& socket, http::request<http::string_body>& req, std::uint64_t after) {
    websocket::stream<tcp::socket&> ws{socket};
    ws.read_message_max(4096);  // the client sends nothing but control frames
    ws.set_option(websocket::stream_base::decorator(
        [](websocket::response_type& res) { res.set(http::field::server, "rdmaconf-agent"); }));
    beast::error_code ec;
    ws.accept(req, ec);
    if (ec) return;
    ws.text(true);
    while (!stopping) {
      std::uint64_t dropped = 0;
      auto batch = control.events().since(after, 256, std::chrono::milliseconds(1000), dropped);
      if (stopping) break;
      if (batch.empty()) {
        // Idle: a ping finds a client that went away.
        ws.ping({}, ec);
        if (ec) return;
        continue;
      }
      for (const auto& [seq, ev] : batch) {
        ws.write(net::buffer(dump(to_json(ev, seq))), ec);
        if (ec) return;
        after = seq;
      }
    }
    ws.close(websocket::close_code::going_away, ec);
  }

  void session(tcp::socket& socket, const std::function<void()>& release) {
    const int fd = socket.native_handle();
    timeval tv{static_cast<time_t>(options.idle_timeout.count()), 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    beast::flat_buffer buffer(options.max_header + control.limits().max_request_body + 1024);
    for (;;) {
      http::request_parser<http::string_body> parser;
      parser.header_limit(static_cast<std::uint32_t>(options.max_header));
      parser.body_limit(control.limits().max_request_body);
      beast::error_code ec;
      http::read(socket, buffer, parser, ec);
      if (ec == http::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset) break;
      if (ec == http::error::body_limit) {
        write_error(socket, 413, "request body over " + std::to_string(control.limits().max_request_body) + " octets");
        break;
      }
      if (ec == http::error::header_limit) {
        write_error(socket, 431, "request header over " + std::to_string(options.max_header) + " octets");
        break;
      }
      if (ec == http::error::buffer_overflow) {
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
      if (websocket::is_upgrade(req)) {
        const HttpResponse denied = error_response(401, "missing or wrong bearer token");
        if (!control.authorized(std::string(req[http::field::authorization]))) {
          auto res = make_response(req, denied);
          http::write(socket, res, ec);
          break;
        }
        std::uint64_t after = 0;
        HttpResponse bad;
        if (!control.stream_target(std::string(req.target()), after, bad)) {
          auto res = make_response(req, bad);
          http::write(socket, res, ec);
          break;
        }
        stream_events(socket, req, after);
        break;
      }
      HttpRequest r{std::string(req.method_string()), std::string(req.target()),
                    std::string(req[http::field::authorization]), std::move(req.body())};
      auto res = make_response(req, control.handle(r));
      const bool keep = res.keep_alive();
      // The last answer of a connection gives its slot back first: a client
      // that reconnects at once must not find its old connection counted.
      if (!keep) release();
      http::write(socket, res, ec);
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
        write_error(socket, 503, "too many control connections (at most " + std::to_string(options.max_connections) + ")");
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

Server::Server(Control& control, ServerOptions options) : impl_(std::make_unique<Impl>(control, std::move(options))) {}
Server::~Server() { stop(); }

bool Server::start(std::string& error) {
  beast::error_code ec;
  const auto address = net::ip::make_address(impl_->options.address, ec);
  if (ec) {
    error = "control address '" + impl_->options.address + "' is not an IP address";
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
  impl_->control.events().close();
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

}  // namespace rdmaconf::agent
