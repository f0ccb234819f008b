// The Beast server (http_server.hpp). Its shape is Boost 1.74's
// advanced_server example: an io_context run by a few threads, a strand per
// connection, one read and one write in flight per stream, every operation
// with a deadline. What the example leaves out is here: the connection
// limits and who goes first when they are reached, Service::handle() on its
// own pool, and WebSocket streams fed by one thread with a bounded queue per
// client.
#include "http_server.hpp"

#include <sys/resource.h>

#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <condition_variable>
#include <list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "http_connections.hpp"

namespace rdmaconf::http {

// The message is ours but may quote what a client sent: everything outside
// ASCII is escaped, invalid UTF-8 replaced.
Response error_response(int status, std::string_view message) {
  const nlohmann::json body{{"error", {{"status", status}, {"message", message}}}};
  return {status, body.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace)};
}

namespace detail {

bhttp::response<bhttp::string_body> make_response(const ServerOptions& o, unsigned version, bool keep_alive,
                                                  const Response& r) {
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(r.status), version};
  res.set(bhttp::field::server, o.server_name);
  res.set(bhttp::field::content_type, r.content_type);
  res.set("X-Content-Type-Options", "nosniff");
  if (r.status == 401) res.set(bhttp::field::www_authenticate, "Bearer");
  for (const auto& [k, v] : r.headers) res.set(k, v);
  res.keep_alive(keep_alive && r.status < 400);
  res.body() = r.body;
  res.prepare_payload();
  return res;
}

// ---- the connection registry ----------------------------------------------

Slot::~Slot() { release(); }

void Slot::release() {
  std::lock_guard lock(registry.mu);
  registry.release_locked(*this);
}

void Registry::release_locked(Slot& s) {
  if (!s.held) return;
  s.held = false;
  --total;
  if (const auto it = per_client.find(s.client); it != per_client.end() && --it->second == 0) per_client.erase(it);
}

std::shared_ptr<Slot> Registry::admit(const std::string& client, std::size_t max_total, std::size_t max_client,
                                      std::shared_ptr<Conn>& victim) {
  std::lock_guard lock(mu);
  if (stopping) return nullptr;
  const auto at = per_client.find(client);
  const bool client_full = at != per_client.end() && at->second >= max_client;
  const bool full = total >= max_total;
  if (client_full || full) {
    // The idle connection waiting longest goes (the client's own when the
    // client is at its limit): a kept-alive connection costs its client a
    // reconnect, while a refusal would lock the newcomer out.
    for (auto it = idle.begin(); it != idle.end();) {
      std::shared_ptr<Conn> c = it->lock();
      if (!c) {
        it = idle.erase(it);
        continue;
      }
      if (client_full && c->slot->client != client) {
        ++it;
        continue;
      }
      c->in_idle = false;
      c->evicted = true;
      idle.erase(it);
      release_locked(*c->slot);
      victim = std::move(c);
      break;
    }
    if (!victim) return nullptr;
  }
  auto slot = std::make_shared<Slot>(*this, client);
  slot->held = true;
  ++total;
  ++per_client[client];
  return slot;
}

void Registry::add(const std::shared_ptr<Conn>& c) {
  std::lock_guard lock(mu);
  c->all_it = all.insert(all.end(), c);
  c->in_all = true;
}

void Registry::remove(Conn& c) {
  std::lock_guard lock(mu);
  if (c.in_all) all.erase(c.all_it);
  c.in_all = false;
  if (c.in_idle) idle.erase(c.idle_it);
  c.in_idle = false;
}

void Registry::set_idle(const std::shared_ptr<Conn>& c) {
  std::lock_guard lock(mu);
  if (c->in_idle) return;
  c->idle_it = idle.insert(idle.end(), c);
  c->in_idle = true;
  c->evicted = false;
}

bool Registry::leave_idle(Conn& c) {
  std::lock_guard lock(mu);
  if (!c.in_idle) return !c.evicted;
  idle.erase(c.idle_it);
  c.in_idle = false;
  return true;
}

std::vector<std::shared_ptr<Conn>> Registry::every() {
  std::lock_guard lock(mu);
  std::vector<std::shared_ptr<Conn>> out;
  for (const auto& w : all)
    if (auto c = w.lock()) out.push_back(std::move(c));
  return out;
}

std::shared_ptr<Conn> Registry::evict_oldest_idle() {
  std::lock_guard lock(mu);
  while (!idle.empty()) {
    std::shared_ptr<Conn> c = idle.front().lock();
    idle.pop_front();
    if (!c) continue;
    c->in_idle = false;
    c->evicted = true;
    release_locked(*c->slot);
    return c;
  }
  return nullptr;
}

}  // namespace detail

namespace beast = detail::beast;
namespace bhttp = detail::bhttp;
namespace net = detail::net;
using tcp = detail::tcp;
using detail::Conn;
using detail::HttpSession;
using detail::WsSession;

struct Server::Impl : detail::ServerCore {
  tcp::acceptor acceptor;
  net::steady_timer accept_retry;
  std::vector<std::thread> io;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  std::thread pump_thread;
  std::mutex pump_mu;
  std::condition_variable pump_cv;
  bool woken = false, pump_stop = false;
  std::string notice;
  bool started = false, stopped = false;

  Impl(Service& s, ServerOptions o)
      : ServerCore(s, std::move(o)),
        acceptor(net::make_strand(ioc)),
        accept_retry(acceptor.get_executor()) {}

  void wake() override {
    {
      std::lock_guard lock(pump_mu);
      woken = true;
    }
    pump_cv.notify_one();
  }

  void accept() {
    acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
      if (registry.stopping_now()) return;
      if (ec) {
        if (ec == net::error::operation_aborted || ec == net::error::bad_descriptor) return;
        // Out of file descriptors (EMFILE, ENFILE) or a transient failure:
        // an idle connection gives its descriptor back, and accepting
        // resumes shortly instead of spinning.
        if (auto victim = registry.evict_oldest_idle()) victim->shut();
        accept_retry.expires_after(std::chrono::milliseconds(20));
        accept_retry.async_wait([this](beast::error_code e) {
          if (!e) accept();
        });
        return;
      }
      admit(std::move(socket));
      accept();
    });
  }

  void admit(tcp::socket socket) {
    beast::error_code ec;
    const auto peer = socket.remote_endpoint(ec);
    if (ec) return;
    auto address = peer.address();
    if (address.is_v6() && address.to_v6().is_v4_mapped())
      address = net::ip::make_address_v4(net::ip::v4_mapped, address.to_v6());
    socket.set_option(tcp::no_delay(true), ec);
    std::shared_ptr<Conn> victim;
    auto slot = registry.admit(address.to_string(), max_connections, options.max_client_connections, victim);
    if (victim) victim->shut();
    if (!slot) {
      refuse(std::move(socket), address.to_string());
      return;
    }
    auto session = std::make_shared<HttpSession>(*this, beast::tcp_stream(std::move(socket)), std::move(slot));
    registry.add(session);
    session->run();
  }

  // Every connection busy with a request or a stream: this one is told so
  // and closed at once (its answer fits in the socket's send buffer).
  void refuse(tcp::socket socket, const std::string& client) {
    const bool client_full = [&] {
      std::lock_guard lock(registry.mu);
      const auto it = registry.per_client.find(client);
      return it != registry.per_client.end() && it->second >= options.max_client_connections;
    }();
    const std::string why = client_full ? "too many connections from " + client + " (at most " +
                                              std::to_string(options.max_client_connections) + ", none idle)"
                                        : "too many connections (at most " + std::to_string(max_connections) +
                                              ", none idle)";
    std::ostringstream out;
    out << detail::make_response(options, 11, false, error_response(503, why));
    auto s = std::make_shared<tcp::socket>(std::move(socket));
    auto text = std::make_shared<std::string>(out.str());
    net::async_write(*s, net::buffer(*text), [s, text](beast::error_code, std::size_t) {
      beast::error_code ec;
      s->shutdown(tcp::socket::shutdown_send, ec);
      s->close(ec);
    });
  }

  // One thread feeds every WebSocket: it asks each stream for what is new
  // when the service wakes it (and twice a second, which also pings idle
  // clients), and hands the messages to the client's strand, while the
  // client's queue is under the backlog. A client that stops reading is
  // dropped; the others never wait for it.
  void pump() {
    const auto second = std::chrono::seconds(1);
    // A client is pinged after a second without a message: looking twice a
    // second keeps the gap under 1.5 s (the agent's client gives up after 3 s).
    const auto tick = std::chrono::milliseconds(500);
    for (;;) {
      {
        std::unique_lock lock(pump_mu);
        pump_cv.wait_for(lock, tick, [&] { return woken || pump_stop; });
        if (pump_stop) return;
        woken = false;
      }
      bool delivered = false;
      const auto now = std::chrono::steady_clock::now();
      for (const std::shared_ptr<WsSession>& ws : registry.streams_now()) {
        if (!ws->open || ws->ended) continue;
        if (ws->queued >= options.ws_backlog) {
          // Its queue is full: the stream waits in the service's bounded
          // log, not in memory. A client that has taken nothing for the
          // idle time while it waits has stopped reading: dropped.
          if (now - ws->last_sent() >= options.idle_timeout) ws->shut();
          continue;
        }
        std::vector<std::string> batch;
        const bool more = ws->source->next(batch, std::chrono::milliseconds(0));
        std::size_t octets = 0;
        for (const std::string& m : batch) octets += m.size();
        if (!batch.empty()) {
          ws->queued += octets;
          delivered = true;
          ws->deliver(std::move(batch));
        } else if (now - ws->last_sent() >= second) {
          ws->ping();
        }
        if (!more) {
          ws->ended = true;
          ws->finish();
        }
      }
      if (delivered) {
        // The streams may hold more than one batch: another round, after
        // the interval that lets a fast producer's messages gather.
        std::unique_lock lock(pump_mu);
        if (options.stream_interval.count() > 0)
          pump_cv.wait_for(lock, options.stream_interval, [&] { return pump_stop; });
        woken = true;
      }
    }
  }
};

namespace {

// Descriptors the process keeps besides its connections: the listener,
// files, the agent's own test connections.
constexpr rlim_t kOtherDescriptors = 256;

// Raises the soft limit towards what `connections` need, within the hard
// limit; the limit on connections that results, and a notice when it is
// less than asked.
std::size_t fit_descriptor_limit(std::size_t connections, std::string& notice) {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return connections;
  const rlim_t want = static_cast<rlim_t>(connections) + kOtherDescriptors;
  if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max == RLIM_INFINITY ? want : std::min(want, rl.rlim_max);
    if (::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want) return connections;
  const rlim_t room = rl.rlim_cur > 2 * kOtherDescriptors ? rl.rlim_cur - kOtherDescriptors : rl.rlim_cur / 2;
  const std::size_t fits = std::max<std::size_t>(1, static_cast<std::size_t>(room));
  notice = "at most " + std::to_string(fits) + " connections, not " + std::to_string(connections) +
           ": the file-descriptor limit is " + std::to_string(rl.rlim_cur) + " and its hard limit " +
           (rl.rlim_max == RLIM_INFINITY ? std::string("unlimited") : std::to_string(rl.rlim_max)) +
           " (raise it with ulimit -Hn or systemd's LimitNOFILE=)";
  return fits;
}

}  // namespace

Server::Server(Service& service, ServerOptions options) : impl_(std::make_unique<Impl>(service, std::move(options))) {}
Server::~Server() { stop(); }

bool Server::start(std::string& error) {
  Impl& s = *impl_;
  beast::error_code ec;
  const auto address = net::ip::make_address(s.options.address, ec);
  if (ec) {
    error = "address '" + s.options.address + "' is not an IP address";
    return false;
  }
  s.max_connections = fit_descriptor_limit(s.options.max_connections, s.notice);
  const tcp::endpoint ep{address, s.options.port};
  s.acceptor.open(ep.protocol(), ec);
  if (!ec) s.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(ep, ec);
  if (!ec) s.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    error = "cannot listen on " + s.options.address + ":" + std::to_string(s.options.port) + ": " + ec.message();
    return false;
  }
  s.started = true;
  s.service.set_stream_wake([&s] { s.wake(); });
  s.work.emplace(s.ioc.get_executor());
  s.accept();
  for (unsigned i = 0; i < std::max(1u, s.options.io_threads); ++i) s.io.emplace_back([&s] { s.ioc.run(); });
  s.pump_thread = std::thread([&s] { s.pump(); });
  return true;
}

std::uint16_t Server::port() const {
  beast::error_code ec;
  const auto ep = impl_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

std::size_t Server::max_connections() const { return impl_->max_connections; }
const std::string& Server::notice() const { return impl_->notice; }
std::size_t Server::connections() const {
  std::lock_guard lock(impl_->registry.mu);
  return impl_->registry.total;
}

void Server::stop() {
  if (!impl_) return;
  Impl& s = *impl_;
  if (s.stopped) return;
  s.stopped = true;
  {
    std::lock_guard lock(s.registry.mu);
    s.registry.stopping = true;
  }
  if (!s.started) return;
  s.service.set_stream_wake({});
  s.service.close_streams();
  {
    std::lock_guard lock(s.pump_mu);
    s.pump_stop = true;
  }
  s.pump_cv.notify_one();
  if (s.pump_thread.joinable()) s.pump_thread.join();
  net::post(s.acceptor.get_executor(), [&s] {
    beast::error_code ec;
    s.acceptor.close(ec);
    s.accept_retry.cancel();
  });
  for (const auto& c : s.registry.every()) c->shut();
  // Requests under way finish (close_streams() ended every long wait);
  // their answers find their connections closed.
  s.handlers.join();
  for (const auto& c : s.registry.every()) c->shut();
  s.work.reset();
  for (std::thread& t : s.io) t.join();
}

}  // namespace rdmaconf::http
