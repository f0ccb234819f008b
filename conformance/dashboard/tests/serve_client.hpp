// The dashboard tests' client: one `rdmaconf serve` process on an
// ephemeral 127.0.0.1 port, and plain HTTP requests to it (server_test.cpp,
// fuzz_test.cpp).
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace rdmaconf::dashboard::test {

namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using nlohmann::json;

inline constexpr const char* kToken = "test-token-0123456789";

// One `rdmaconf serve` process; its port read from its first line.
class ServeProcess {
 public:
  explicit ServeProcess(std::string db, std::vector<std::string> extra = {}) : db_(std::move(db)), extra_(std::move(extra)) {
    start();
  }
  ~ServeProcess() { stop(SIGTERM); }
  void start() {
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    pid_ = ::fork();
    ASSERT_GE(pid_, 0);
    if (pid_ == 0) {
      ::dup2(out[1], 1);
      ::close(out[0]);
      ::close(out[1]);
      std::vector<const char*> argv = {RDMACONF_EXE, "serve", "--listen", "127.0.0.1:0", "--token", kToken, "--db", db_.c_str()};
      for (const std::string& e : extra_) argv.push_back(e.c_str());
      argv.push_back(nullptr);
      ::execv(RDMACONF_EXE, const_cast<char* const*>(argv.data()));
      ::_exit(127);
    }
    ::close(out[1]);
    out_ = ::fdopen(out[0], "r");
    char line[512];
    while (std::fgets(line, sizeof line, out_)) {
      const std::string s(line);
      const auto at = s.find("listening on http://127.0.0.1:");
      if (at == std::string::npos) continue;
      port_ = static_cast<std::uint16_t>(std::stoi(s.substr(at + 30)));
      break;
    }
    ASSERT_NE(port_, 0) << "rdmaconf serve did not say where it listens";
  }
  // SIGTERM: an orderly stop; SIGKILL: the crash a transaction must survive.
  void stop(int sig) {
    if (pid_ <= 0) return;
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    if (out_) std::fclose(out_);
    out_ = nullptr;
    port_ = 0;
  }
  std::uint16_t port() const { return port_; }

 private:
  std::string db_;
  std::vector<std::string> extra_;
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  std::uint16_t port_ = 0;
};

struct Reply {
  int status = 0;
  std::string body;
  std::string csp;
  std::string content_type;
  std::string disposition;
  json j() const { return json::parse(body, nullptr, false); }
};

// `declared` > 0 announces that Content-Length but sends only `body`: a
// server that refuses by the header answers without reading further.
inline Reply request(std::uint16_t port, bhttp::verb method, const std::string& target, const std::string& token = "",
              const std::string& body = "", std::size_t declared = 0, const std::string& host = "127.0.0.1") {
  Reply r;
  net::io_context ioc;
  tcp::socket s(ioc);
  beast::error_code ec;
  s.connect({net::ip::make_address("127.0.0.1"), port}, ec);
  if (ec) return r;
  bhttp::request<bhttp::string_body> req{method, target, 11};
  req.set(bhttp::field::host, host);
  if (!token.empty()) req.set(bhttp::field::authorization, "Bearer " + token);
  if (method != bhttp::verb::get) req.body() = body;
  req.prepare_payload();
  if (declared) req.content_length(declared);
  bhttp::write(s, req, ec);
  if (ec) return r;
  beast::flat_buffer buf;
  bhttp::response_parser<bhttp::string_body> p;
  p.body_limit(64 * 1024 * 1024);
  bhttp::read(s, buf, p, ec);
  if (ec) return r;
  r.status = static_cast<int>(p.get().result_int());
  r.body = p.get().body();
  r.csp = std::string(p.get()["Content-Security-Policy"]);
  r.content_type = std::string(p.get()[bhttp::field::content_type]);
  r.disposition = std::string(p.get()[bhttp::field::content_disposition]);
  return r;
}

inline Reply get(std::uint16_t port, const std::string& target) { return request(port, bhttp::verb::get, target); }
inline Reply post(std::uint16_t port, const std::string& target, const json& body, const std::string& token = kToken) {
  return request(port, bhttp::verb::post, target, token, body.dump());
}

}  // namespace rdmaconf::dashboard::test
