// The HTTP session and the WebSocket stream (http_connections.hpp).
#include "http_connections.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <limits>

namespace rdmaconf::http::detail {

namespace {

// What an idle connection reads its next request's first octets into: a
// held connection costs this much, not a header's worth.
constexpr std::size_t kFirstRead = 1024;

Request request_of(const bhttp::request<bhttp::string_body>& req) {
  Request r;
  r.method = std::string(req.method_string());
  r.target = std::string(req.target());
  r.authorization = std::string(req[bhttp::field::authorization]);
  r.content_type = std::string(req[bhttp::field::content_type]);
  r.host = std::string(req[bhttp::field::host]);
  r.origin = std::string(req[bhttp::field::origin]);
  return r;
}

}  // namespace

std::vector<std::shared_ptr<WsSession>> Registry::streams_now() {
  std::lock_guard lock(mu);
  std::vector<std::shared_ptr<WsSession>> out;
  for (auto it = streams.begin(); it != streams.end();) {
    if (auto s = it->lock()) {
      out.push_back(std::move(s));
      ++it;
    } else {
      it = streams.erase(it);
    }
  }
  return out;
}

// ---- HTTP -----------------------------------------------------------------

HttpSession::HttpSession(ServerCore& core, beast::tcp_stream stream, std::shared_ptr<Slot> s)
    : core_(core),
      stream_(std::move(stream)),
      strand_(stream_.get_executor()),
      buffer_(core.options.max_header + kFirstRead) {
  slot = std::move(s);
}

HttpSession::~HttpSession() { core_.registry.remove(*this); }

void HttpSession::run() {
  net::dispatch(strand_, [self = shared_from_this()] { self->wait_request(); });
}

void HttpSession::shut() {
  net::post(strand_, [self = shared_from_this()] { self->close(); });
}

void HttpSession::close() {
  if (closed_) return;
  closed_ = true;
  core_.registry.leave_idle(*this);
  slot->release();
  beast::error_code ec;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  stream_.close();
}

void HttpSession::wait_request() {
  if (closed_) return;
  if (core_.registry.stopping_now()) return close();
  parser_.reset();
  if (buffer_.size() > 0) {  // a pipelined request arrived with the last one
    first_octet_ = std::chrono::steady_clock::now();
    return read_header();
  }
  // An idle connection keeps no buffer beyond the first read's.
  buffer_.shrink_to_fit();
  core_.registry.set_idle(shared_from_this());
  stream_.expires_after(core_.options.idle_timeout);
  stream_.async_read_some(buffer_.prepare(kFirstRead),
                          [self = shared_from_this()](beast::error_code ec, std::size_t n) { self->on_first_octets(ec, n); });
}

void HttpSession::on_first_octets(beast::error_code ec, std::size_t n) {
  // Closed for a newcomer while idle: what arrived meanwhile is not read.
  if (!core_.registry.leave_idle(*this)) return close();
  if (ec) return close();  // idle too long, the client closed, or the server stops
  buffer_.commit(n);
  first_octet_ = std::chrono::steady_clock::now();
  read_header();
}

void HttpSession::read_header() {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(core_.options.max_header));
  // The body's limit is the service's, known once the request line is:
  // set after the header, where a declared length is checked against it.
  // (Not boost::none: Beast 1.74 compares a Content-Length with an absent
  // limit as larger.)
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  // RFC 9112 §9.5 lets a server close a connection whose request does not
  // arrive in time; counting from the first octet bounds a slow sender
  // (slowloris) however it spreads its octets.
  stream_.expires_at(first_octet_ + core_.options.header_timeout);
  bhttp::async_read_header(stream_, buffer_, *parser_,
                           [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
}

void HttpSession::on_header(beast::error_code ec) {
  if (ec) return read_failed(ec);
  const auto& h = parser_->get();
  body_limit_ = core_.service.body_limit(std::string_view(h.method_string().data(), h.method_string().size()),
                                         std::string_view(h.target().data(), h.target().size()));
  if (const auto n = parser_->content_length(); n && *n > body_limit_)
    return refuse(413, "request body over " + std::to_string(body_limit_) + " octets");
  parser_->body_limit(body_limit_);
  if (websocket::is_upgrade(h)) return upgrade();
  if (parser_->is_done()) return dispatch();
  stream_.expires_after(core_.options.body_timeout);
  bhttp::async_read(stream_, buffer_, *parser_,
                    [self = shared_from_this()](beast::error_code e, std::size_t) { self->on_body(e); });
}

void HttpSession::on_body(beast::error_code ec) {
  if (ec) return read_failed(ec);
  dispatch();
}

void HttpSession::read_failed(beast::error_code ec) {
  if (closed_ || ec == bhttp::error::end_of_stream || ec == net::error::eof || ec == net::error::connection_reset ||
      ec == net::error::operation_aborted || ec == net::error::bad_descriptor)
    return close();
  // A deadline passed: beast::tcp_stream has closed the socket already
  // (RFC 9110 §15.5.9 would allow a 408 first; a client this slow would
  // rarely read it).
  if (ec == beast::error::timeout) return close();
  if (ec == bhttp::error::body_limit) return refuse(413, "request body over " + std::to_string(body_limit_) + " octets");
  if (ec == bhttp::error::header_limit)
    return refuse(431, "request header over " + std::to_string(core_.options.max_header) + " octets");
  if (ec == bhttp::error::buffer_overflow) return refuse(413, "request too large");
  refuse(400, "malformed HTTP request: " + ec.message());
}

void HttpSession::refuse(int status, const std::string& message) {
  write(make_response(core_.options, 11, false, error_response(status, message)));
}

void HttpSession::dispatch() {
  auto req = parser_->release();
  parser_.reset();
  Request r = request_of(req);
  r.body = std::move(req.body());
  const unsigned version = req.version();
  const bool keep_alive = req.keep_alive();
  // The service may wait (a long poll, the database): on the handler pool,
  // so the I/O threads go on serving every other connection meanwhile.
  net::post(core_.handlers, [self = shared_from_this(), r = std::move(r), version, keep_alive] {
    Response res;
    try {
      res = self->core_.service.handle(r);
    } catch (const std::exception& e) {
      res = error_response(500, std::string("internal error: ") + e.what());
    }
    net::post(self->strand_, [self, res = std::move(res), version, keep_alive] {
      self->write(make_response(self->core_.options, version, keep_alive, res));
    });
  });
}

void HttpSession::upgrade() {
  auto req = std::make_shared<bhttp::request<bhttp::string_body>>(parser_->release());
  parser_.reset();
  net::post(core_.handlers, [self = shared_from_this(), req] {
    Response refusal;
    std::unique_ptr<Stream> source;
    try {
      source = self->core_.service.open_stream(request_of(*req), refusal);
    } catch (const std::exception& e) {
      refusal = error_response(500, std::string("internal error: ") + e.what());
    }
    net::post(self->strand_, [self, req, source = std::shared_ptr<Stream>(std::move(source)), refusal]() mutable {
      if (self->closed_) return;
      if (!source) return self->write(make_response(self->core_.options, req->version(), false, refusal));
      // The socket and its slot go to the WebSocket session; this one ends.
      self->closed_ = true;
      self->core_.registry.remove(*self);
      auto ws = std::make_shared<WsSession>(self->core_, std::move(self->stream_), std::move(self->slot),
                                            std::move(source));
      ws->run(std::move(*req));
    });
  });
}

void HttpSession::write(bhttp::response<bhttp::string_body> res) {
  if (closed_) return;
  const bool keep = res.keep_alive();
  // The last answer of a connection gives its slot back first: a client
  // that reconnects at once must not find its old connection counted.
  if (!keep) slot->release();
  auto message = std::make_shared<bhttp::response<bhttp::string_body>>(std::move(res));
  stream_.expires_after(core_.options.idle_timeout);
  bhttp::async_write(stream_, *message, [self = shared_from_this(), message, keep](beast::error_code ec, std::size_t) {
    if (ec || !keep) return self->close();
    self->wait_request();
  });
}

}  // namespace rdmaconf::http::detail

namespace rdmaconf::http::detail {

// ---- WebSocket ------------------------------------------------------------

WsSession::WsSession(ServerCore& core, beast::tcp_stream stream, std::shared_ptr<Slot> s, std::shared_ptr<Stream> src)
    : source(std::move(src)), core_(core), ws_(std::move(stream)) {
  slot = std::move(s);
}

WsSession::~WsSession() { core_.registry.remove(*this); }

std::chrono::steady_clock::time_point WsSession::last_sent() const {
  return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(last_sent_ns_.load()));
}

void WsSession::run(bhttp::request<bhttp::string_body> req) {
  req_ = std::move(req);
  core_.registry.add(shared_from_this());
  // The WebSocket's own timeouts replace the TCP stream's (Beast's rule):
  // the handshake bounded like a request header, and a client that answers
  // nothing, not even the pings, for the idle time is gone.
  beast::get_lowest_layer(ws_).expires_never();
  websocket::stream_base::timeout t{};
  t.handshake_timeout = core_.options.header_timeout;
  t.idle_timeout = core_.options.idle_timeout;
  // Beast pings at half the idle time without a word from the client; a
  // client that cannot answer (it stopped reading) is closed at the end.
  t.keep_alive_pings = true;
  ws_.set_option(t);
  ws_.read_message_max(core_.options.max_ws_message);  // the client sends nothing but control frames
  const std::string name = core_.options.server_name;
  ws_.set_option(websocket::stream_base::decorator([name](websocket::response_type& res) { res.set(bhttp::field::server, name); }));
  ws_.async_accept(req_, [self = shared_from_this()](beast::error_code ec) {
    if (ec || self->core_.registry.stopping_now()) return self->close();
    self->ws_.text(true);
    self->last_sent_ns_ = std::chrono::steady_clock::now().time_since_epoch().count();
    {
      std::lock_guard lock(self->core_.registry.mu);
      self->core_.registry.streams.push_back(self);
    }
    self->open = true;
    self->read();
    // What the stream already holds goes out without waiting for news.
    self->core_.wake();
  });
}

void WsSession::read() {
  ws_.async_read(in_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) return self->close();
    self->in_.consume(self->in_.size());
    self->read();
  });
}

void WsSession::shut() {
  net::post(ws_.get_executor(), [self = shared_from_this()] { self->close(); });
}

void WsSession::close() {
  if (closed_) return;
  closed_ = true;
  open = false;
  slot->release();
  beast::get_lowest_layer(ws_).close();
}

void WsSession::deliver(std::vector<std::string> messages) {
  net::post(ws_.get_executor(), [self = shared_from_this(), messages = std::move(messages)]() mutable {
    if (self->closed_) return;
    for (std::string& m : messages) self->out_.push_back(std::move(m));
    if (!self->writing_) self->write_next();
  });
}

void WsSession::write_next() {
  writing_ = true;
  ws_.async_write(net::buffer(out_.front()), [self = shared_from_this()](beast::error_code ec, std::size_t) {
    self->queued -= self->out_.front().size();
    self->out_.pop_front();
    self->last_sent_ns_ = std::chrono::steady_clock::now().time_since_epoch().count();
    if (ec) return self->close();
    if (!self->out_.empty()) return self->write_next();
    self->writing_ = false;
    self->core_.wake();  // room in the queue: the pump may take more of the stream
    if (self->finishing_) self->finish();
  });
}

void WsSession::ping() {
  net::post(ws_.get_executor(), [self = shared_from_this()] {
    if (self->closed_ || self->writing_ || self->pinging_) return;
    self->pinging_ = true;
    // The ping finds a client that went away; it counts as sending.
    self->last_sent_ns_ = std::chrono::steady_clock::now().time_since_epoch().count();
    self->ws_.async_ping({}, [self](beast::error_code ec) {
      self->pinging_ = false;
      if (ec) return self->close();
      if (self->finishing_) self->finish();
    });
  });
}

void WsSession::finish() {
  net::post(ws_.get_executor(), [self = shared_from_this()] {
    if (self->closed_ || self->close_sent_) return;
    self->finishing_ = true;
    if (self->writing_ || self->pinging_) return;  // after the queue is written
    self->close_sent_ = true;
    self->ws_.async_close(websocket::close_code::going_away, [self](beast::error_code) { self->close(); });
  });
}

}  // namespace rdmaconf::http::detail
