// MessageLog and LogStream (events.hpp).
#include "dashboard/events.hpp"

#include <algorithm>

namespace rdmaconf::dashboard {

std::uint64_t MessageLog::push(const std::string& json_object) {
  std::uint64_t seq;
  {
    std::lock_guard lock(mu_);
    seq = next_++;
    // {"seq":N, ...the object's members}
    std::string m = "{\"seq\":" + std::to_string(seq);
    if (json_object.size() > 2) m += "," + json_object.substr(1);
    else m += "}";
    messages_.emplace_back(seq, std::move(m));
    while (messages_.size() > capacity_) messages_.pop_front();
  }
  cv_.notify_all();
  call_wake();
  return seq;
}

void MessageLog::set_wake(std::function<void()> wake) {
  std::lock_guard lock(wake_mu_);
  wake_ = std::move(wake);
}

void MessageLog::call_wake() {
  std::lock_guard lock(wake_mu_);
  if (wake_) wake_();
}

std::vector<std::pair<std::uint64_t, std::string>> MessageLog::since(std::uint64_t after, std::size_t max,
                                                                     std::chrono::milliseconds wait, std::uint64_t& dropped) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, wait, [&] { return closed_ || next_ - 1 > after; });
  std::vector<std::pair<std::uint64_t, std::string>> out;
  const std::uint64_t oldest = messages_.empty() ? next_ : messages_.front().first;
  dropped = oldest > after + 1 ? oldest - after - 1 : 0;
  // Numbers are consecutive: the first wanted is found by arithmetic, so a
  // reader that is up to date costs nothing however long the buffer.
  const std::uint64_t first = after >= oldest ? after - oldest + 1 : 0;
  for (std::uint64_t i = first; i < messages_.size() && out.size() < max; ++i) out.push_back(messages_[i]);
  return out;
}

std::uint64_t MessageLog::last() const {
  std::lock_guard lock(mu_);
  return next_ - 1;
}

void MessageLog::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
  call_wake();
}

bool LogStream::next(std::vector<std::string>& out, std::chrono::milliseconds wait) {
  std::uint64_t dropped = 0;
  auto batch = log_.since(after_, 500, wait, dropped);
  if (batch.empty() && !dropped) return true;
  std::string m = "[";
  if (dropped) m += "{\"type\":\"dropped\",\"count\":" + std::to_string(dropped) + "}";
  for (const auto& [seq, text] : batch) {
    if (m.size() > 1) m += ",";
    m += text;
    after_ = seq;
  }
  m += "]";
  out.push_back(std::move(m));
  return true;
}

}  // namespace rdmaconf::dashboard
