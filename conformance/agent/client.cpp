// AgentClient (client.hpp): one short HTTP connection per request (requests
// are few: a handful per case), one long-lived WebSocket for events.
#include "agent/client.hpp"

#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include "agent/json.hpp"

namespace rdmaconf::agent {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;

bool parse_agent_url(const std::string& url, AgentUrl& out) {
  std::string rest = url;
  if (rest.rfind("http://", 0) == 0) rest = rest.substr(7);
  else if (rest.find("://") != std::string::npos) return false;
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  const auto colon = rest.rfind(':');
  if (colon == std::string::npos || colon == 0) return false;
  out.host = rest.substr(0, colon);
  if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']') out.host = out.host.substr(1, out.host.size() - 2);
  const std::string port = rest.substr(colon + 1);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos) return false;
  const unsigned long p = std::stoul(port);
  if (p == 0 || p > 65535) return false;
  out.port = static_cast<std::uint16_t>(p);
  return true;
}

namespace {

// Connects with every socket operation bounded by `timeout`.
bool open(net::io_context& ioc, tcp::socket& socket, const AgentUrl& url, std::chrono::milliseconds timeout,
          std::string& error) {
  beast::error_code ec;
  tcp::resolver resolver(ioc);
  const auto results = resolver.resolve(url.host, std::to_string(url.port), ec);
  if (!ec) net::connect(socket, results, ec);
  if (ec) {
    error = "cannot reach the agent at " + url.host + ":" + std::to_string(url.port) + ": " + ec.message();
    return false;
  }
  timeval tv{static_cast<time_t>(timeout.count() / 1000), static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  socket.set_option(tcp::no_delay(true), ec);
  return true;
}

}  // namespace

AgentClient::AgentClient(AgentUrl url, std::string token, std::chrono::milliseconds timeout)
    : url_(std::move(url)), token_(std::move(token)), timeout_(timeout) {}

AgentClient::~AgentClient() { stop_events(); }

AgentClient::Reply AgentClient::get(const std::string& target) { return post(target, nlohmann::json()); }

AgentClient::Reply AgentClient::post(const std::string& target, const nlohmann::json& body) {
  Reply reply;
  net::io_context ioc;
  tcp::socket socket(ioc);
  if (!open(ioc, socket, url_, timeout_, reply.error)) return reply;
  http::request<http::string_body> req{body.is_null() ? http::verb::get : http::verb::post, target, 11};
  req.set(http::field::host, url_.host);
  req.set(http::field::authorization, "Bearer " + token_);
  req.keep_alive(false);
  if (!body.is_null()) {
    req.set(http::field::content_type, "application/json");
    req.body() = dump(body);
  }
  req.prepare_payload();
  beast::error_code ec;
  http::write(socket, req, ec);
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(16u << 20);
  if (!ec) http::read(socket, buffer, parser, ec);
  if (ec) {
    reply.error = "agent request " + target + " failed: " + ec.message();
    return reply;
  }
  const auto& res = parser.get();
  reply.status = static_cast<int>(res.result_int());
  reply.body = nlohmann::json::parse(res.body(), nullptr, false);
  if (reply.body.is_discarded()) reply.body = nullptr;
  if (reply.status != 200) {
    reply.error = "agent answered " + std::to_string(reply.status);
    if (reply.body.is_object() && reply.body.contains("error") && reply.body["error"].is_object() &&
        reply.body["error"].contains("message") && reply.body["error"]["message"].is_string())
      reply.error += ": " + reply.body["error"]["message"].get<std::string>();
  }
  beast::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  return reply;
}

void AgentClient::start_events(std::function<void(std::uint64_t, Event)> on_event, std::function<void()> on_restart,
                               std::uint64_t after, std::function<void()> on_lost) {
  on_event_ = std::move(on_event);
  on_restart_ = std::move(on_restart);
  on_lost_ = std::move(on_lost);
  stopping_ = false;
  thread_ = std::thread([this, after] { event_loop(after); });
}

void AgentClient::stop_events() {
  stopping_ = true;
  {
    std::lock_guard lock(ws_mu_);
    if (ws_fd_ >= 0) ::shutdown(ws_fd_, SHUT_RDWR);
  }
  if (thread_.joinable()) thread_.join();
}

void AgentClient::event_loop(std::uint64_t after) {
  while (!stopping_) {
    // A new agent process numbers its events from 1 again.
    if (after > 0) {
      const Reply info = get("/v1/info");
      if (info && info.body.is_object() && info.body.contains("last_event") &&
          info.body["last_event"].is_number_unsigned() && info.body["last_event"].get<std::uint64_t>() < after) {
        after = 0;
        if (on_restart_) on_restart_();
      }
    }
    net::io_context ioc;
    tcp::socket socket(ioc);
    std::string error;
    if (!open(ioc, socket, url_, std::chrono::milliseconds(3000), error)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    {
      std::lock_guard lock(ws_mu_);
      ws_fd_ = socket.native_handle();
    }
    websocket::stream<tcp::socket&> ws(socket);
    ws.read_message_max(64 * 1024);
    ws.set_option(websocket::stream_base::decorator([this](websocket::request_type& req) {
      req.set(http::field::authorization, "Bearer " + token_);
    }));
    beast::error_code ec;
    ws.handshake(url_.host, "/v1/events/stream?after=" + std::to_string(after), ec);
    if (!ec) ws_connected_ = true;
    beast::flat_buffer buffer;
    while (!ec && !stopping_) {
      buffer.clear();
      ws.read(buffer, ec);
      // A read that times out (the agent pings every second) or fails
      // ends this stream; the next one resumes after the last event.
      if (ec) break;
      const auto j = nlohmann::json::parse(beast::buffers_to_string(buffer.data()), nullptr, false);
      std::uint64_t seq = 0;
      std::string why;
      if (auto e = event_from_json(j, seq, why); e && seq > after) {
        after = seq;
        if (on_event_) on_event_(seq, std::move(*e));
      }
    }
    const bool was_connected = ws_connected_.exchange(false);
    if (was_connected && !stopping_ && on_lost_) on_lost_();
    {
      std::lock_guard lock(ws_mu_);
      ws_fd_ = -1;
    }
    if (!stopping_) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace rdmaconf::agent
