#include "endpoint/clc_endpoint.hpp"

#include <array>
#include <list>
#include <optional>

namespace rdmaconf::endpoint {
namespace {

// One CLC exchange on one socket, for either role.
template <typename Machine>
class ClcSession : public std::enable_shared_from_this<ClcSession<Machine>> {
 public:
  ClcSession(tcp::socket& socket, Machine machine, ClcOptions options, ClcHandler handler)
      : socket_(socket),
        timer_(socket.get_executor()),
        machine_(std::move(machine)),
        options_(options),
        handler_(std::move(handler)) {}

  void start() { handle(machine_.start(options_.peer_smc_capable)); }

 private:
  void handle(clc::Step step) {
    if (done_) return;
    if (step.outcome) outcome_ = std::move(step.outcome);
    if (!step.send.empty()) {
      result_.transcript.push_back({true, step.send});
      out_ = std::move(step.send);
      asio::async_write(socket_, asio::buffer(out_),
                        [self = this->shared_from_this()](boost::system::error_code ec, std::size_t) {
                          if (ec) return self->transport_failed(ec);
                          self->after_send();
                        });
      return;
    }
    after_send();
  }

  void after_send() {
    if (outcome_) return finish();
    wait_message();
  }

  void wait_message() {
    timer_.expires_after(options_.wait_time);
    timer_.async_wait([self = this->shared_from_this()](boost::system::error_code ec) {
      if (ec || self->done_ || !self->waiting_) return;
      // RFC 7609 App. C.5 / Linux CLC_WAIT_TIME: the exchange ends.
      self->waiting_ = false;
      boost::system::error_code ignored;
      self->socket_.cancel(ignored);
      self->handle(self->machine_.on_timeout());
    });
    waiting_ = true;
    asio::async_read(socket_, asio::buffer(buf_.data(), clc::kHeaderSize),
                     [self = this->shared_from_this()](boost::system::error_code ec, std::size_t) {
                       if (!self->waiting_) return;  // timed out meanwhile
                       if (ec) return self->transport_failed(ec);
                       self->read_rest();
                     });
  }

  void read_rest() {
    auto length = clc::message_length(wire::Bytes(buf_).first(clc::kHeaderSize));
    if (!length) return deliver(clc::kHeaderSize);  // the machine reports the typed error
    const std::size_t rest = *length - clc::kHeaderSize;  // bounded by kMaxMessageLength
    asio::async_read(socket_, asio::buffer(buf_.data() + clc::kHeaderSize, rest),
                     [self = this->shared_from_this(), n = *length](boost::system::error_code ec, std::size_t) {
                       if (!self->waiting_) return;
                       if (ec) return self->transport_failed(ec);
                       self->deliver(n);
                     });
  }

  void deliver(std::size_t n) {
    waiting_ = false;
    timer_.cancel();
    wire::Bytes msg = wire::Bytes(buf_).first(n);
    result_.transcript.push_back({false, std::vector<std::uint8_t>(msg.begin(), msg.end())});
    handle(machine_.on_message(msg));
  }

  void transport_failed(boost::system::error_code ec) {
    if (done_) return;
    waiting_ = false;
    timer_.cancel();
    result_.transport_error = ec.message();
    clc::Outcome o;
    o.kind = clc::OutcomeKind::kFailed;
    o.fail = clc::FailReason::kProtocolError;
    o.error = wire::DecodeError{"TCP connection", "ended before the CLC exchange completed", clc::cite::kLinuxWaitMsg, 0};
    outcome_ = std::move(o);
    finish();
  }

  void finish() {
    if (done_) return;
    done_ = true;
    timer_.cancel();
    result_.outcome = std::move(*outcome_);
    auto h = std::move(handler_);
    h(std::move(result_));
  }

  tcp::socket& socket_;
  asio::steady_timer timer_;
  Machine machine_;
  ClcOptions options_;
  ClcHandler handler_;
  std::array<std::uint8_t, clc::kMaxMessageLength> buf_{};
  std::vector<std::uint8_t> out_;
  std::optional<clc::Outcome> outcome_;
  ClcResult result_;
  bool waiting_ = false;
  bool done_ = false;
};

}  // namespace

void async_clc_client(tcp::socket& socket, clc::ClientConfig config, ClcOptions options, ClcHandler handler) {
  auto s = std::make_shared<ClcSession<clc::ClientHandshake>>(socket, clc::ClientHandshake(std::move(config)),
                                                              options, std::move(handler));
  asio::post(socket.get_executor(), [s] { s->start(); });
}

void async_clc_server(tcp::socket& socket, clc::ServerConfig config, ClcOptions options, ClcHandler handler) {
  auto s = std::make_shared<ClcSession<clc::ServerHandshake>>(socket, clc::ServerHandshake(std::move(config)),
                                                              options, std::move(handler));
  asio::post(socket.get_executor(), [s] { s->start(); });
}

ClcResult run_clc_client(const tcp::endpoint& server, clc::ClientConfig config, ClcOptions options) {
  asio::io_context io;
  tcp::socket socket(io);
  ClcResult out;
  boost::system::error_code ec;
  socket.connect(server, ec);
  if (ec) {
    out.transport_error = ec.message();
    out.outcome.kind = clc::OutcomeKind::kFailed;
    out.outcome.fail = clc::FailReason::kProtocolError;
    out.outcome.error = wire::DecodeError{"TCP connection", "could not be established", clc::cite::kClcMessages, 0};
    return out;
  }
  async_clc_client(socket, std::move(config), options, [&](ClcResult r) { out = std::move(r); });
  io.run();
  return out;
}

struct ClcServer::Impl : std::enable_shared_from_this<ClcServer::Impl> {
  Impl(asio::io_context& io, const tcp::endpoint& listen, clc::ServerConfig c, ClcOptions o)
      : acceptor(io, listen), config(std::move(c)), options(o) {}

  void accept_next() {
    if (stopped || (limit != 0 && accepted == limit)) return;
    acceptor.async_accept([self = shared_from_this()](boost::system::error_code ec, tcp::socket socket) {
      if (ec || self->stopped) return;
      ++self->accepted;
      self->sockets.push_back(std::move(socket));
      tcp::socket& s = self->sockets.back();
      async_clc_server(s, self->config, self->options, [self, &s](ClcResult r) {
        if (self->handler) self->handler(std::move(r), s);
      });
      self->accept_next();
    });
  }

  tcp::acceptor acceptor;
  clc::ServerConfig config;
  ClcOptions options;
  Handler handler;
  std::list<tcp::socket> sockets;  // stable addresses while sessions run
  std::size_t limit = 0;
  std::size_t accepted = 0;
  bool stopped = false;
};

ClcServer::ClcServer(asio::io_context& io, const tcp::endpoint& listen, clc::ServerConfig config, ClcOptions options)
    : impl_(std::make_shared<Impl>(io, listen, std::move(config), options)) {}

ClcServer::~ClcServer() { stop(); }

unsigned short ClcServer::port() const { return impl_->acceptor.local_endpoint().port(); }

void ClcServer::start(Handler handler, std::size_t count) {
  impl_->handler = std::move(handler);
  impl_->limit = count;
  impl_->accept_next();
}

void ClcServer::stop() {
  impl_->stopped = true;
  boost::system::error_code ignored;
  impl_->acceptor.close(ignored);
}

}  // namespace rdmaconf::endpoint
