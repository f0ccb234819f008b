// The control channel on rdmaconf's shared Beast server (conformance/http/):
// Control decides, this adapter maps requests and the event stream.
#include "agent/server.hpp"

#include "http_server.hpp"
#include "agent/json.hpp"

namespace rdmaconf::agent {

namespace {

class EventStream : public http::Stream {
 public:
  EventStream(EventLog& log, std::uint64_t after) : log_(log), after_(after) {}
  bool next(std::vector<std::string>& out, std::chrono::milliseconds wait) override {
    std::uint64_t dropped = 0;
    for (const auto& [seq, ev] : log_.since(after_, 256, wait, dropped)) {
      out.push_back(dump(to_json(ev, seq)));
      after_ = seq;
    }
    return true;
  }

 private:
  EventLog& log_;
  std::uint64_t after_;
};

class ControlService : public http::Service {
 public:
  explicit ControlService(Control& c) : control_(c) {}
  http::Response handle(const http::Request& r) override {
    const HttpResponse res = control_.handle({r.method, r.target, r.authorization, r.body});
    return {res.status, res.body};
  }
  std::size_t body_limit(std::string_view, std::string_view) const override { return control_.limits().max_request_body; }
  std::unique_ptr<http::Stream> open_stream(const http::Request& r, http::Response& refusal) override {
    if (!control_.authorized(r.authorization)) {
      const HttpResponse denied = error_response(401, "missing or wrong bearer token");
      refusal = {denied.status, denied.body};
      return nullptr;
    }
    std::uint64_t after = 0;
    HttpResponse bad;
    if (!control_.stream_target(r.target, after, bad)) {
      refusal = {bad.status, bad.body};
      return nullptr;
    }
    return std::make_unique<EventStream>(control_.events(), after);
  }
  void close_streams() override { control_.events().close(); }
  void set_stream_wake(std::function<void()> wake) override { control_.events().set_wake(std::move(wake)); }

 private:
  Control& control_;
};

}  // namespace

struct Server::Impl {
  ControlService service;
  http::Server server;
  Impl(Control& c, const ServerOptions& o) : service(c), server(service, o) {}
};

Server::Server(Control& control, ServerOptions options) : impl_(std::make_unique<Impl>(control, options)) {}
Server::~Server() { stop(); }
bool Server::start(std::string& error) { return impl_->server.start(error); }
std::uint16_t Server::port() const { return impl_->server.port(); }
std::size_t Server::max_connections() const { return impl_->server.max_connections(); }
const std::string& Server::notice() const { return impl_->server.notice(); }
void Server::stop() {
  if (impl_) impl_->server.stop();
}

}  // namespace rdmaconf::agent
