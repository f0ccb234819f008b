// What the dashboard tells its browsers live: every run change and every
// case as it is stored, numbered from 1, kept in a bounded buffer for late
// readers (a reader that falls behind learns how many it missed).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "http_service.hpp"

namespace rdmaconf::dashboard {

class MessageLog {
 public:
  explicit MessageLog(std::size_t capacity) : capacity_(capacity) {}
  // `json_object` is one serialised JSON object; its "seq" is added here.
  std::uint64_t push(const std::string& json_object);
  // Messages with seq > after (at most max), waiting up to `wait` for the first.
  std::vector<std::pair<std::uint64_t, std::string>> since(std::uint64_t after, std::size_t max,
                                                           std::chrono::milliseconds wait, std::uint64_t& dropped);
  std::uint64_t last() const;
  void close();
  // Called after every push and at close (the server's WebSocket pump);
  // empty withdraws it, and once this returns the old one is not called.
  void set_wake(std::function<void()> wake);

 private:
  void call_wake();
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::mutex wake_mu_;
  std::function<void()> wake_;
  std::deque<std::pair<std::uint64_t, std::string>> messages_;
  std::size_t capacity_;
  std::uint64_t next_ = 1;
  bool closed_ = false;
};

// One WebSocket: a JSON array per batch (everything that arrived since the
// last one, at most 500), so a fast run costs the browser one message per
// wake-up, not one per case (the server asks at most once per
// ServerOptions::stream_interval). A gap says {"type":"dropped","count":N}.
class LogStream : public http::Stream {
 public:
  LogStream(MessageLog& log, std::uint64_t after) : log_(log), after_(after) {}
  bool next(std::vector<std::string>& out, std::chrono::milliseconds wait) override;

 private:
  MessageLog& log_;
  std::uint64_t after_;
};

}  // namespace rdmaconf::dashboard
