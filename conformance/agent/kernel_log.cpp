// The host's kernel log (kernel_log.hpp).
#include "agent/kernel_log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace rdmaconf::agent {

KernelLog::KernelLog(std::string path) : path_(std::move(path)) {
  // Tells a reader that the host booted again (its numbering started over).
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, boot_id_);
  kmsg_ = path_ == "/dev/kmsg";
  fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) {
    unavailable_ = "cannot read " + path_ + ": " + std::strerror(errno);
    return;
  }
  // What was logged before the agent started is not news.
  if (::lseek(fd_, 0, SEEK_END) < 0 && !kmsg_) unavailable_ = "cannot seek " + path_ + ": " + std::strerror(errno);
}

KernelLog::~KernelLog() {
  if (fd_ >= 0) ::close(fd_);
}

void KernelLog::add(std::string line) {
  if (line.size() > kLineLimit) line.resize(kLineLimit);
  lines_.emplace_back(next_++, std::move(line));
  while (lines_.size() > kKeep) lines_.pop_front();
}

void KernelLog::read_new() {
  if (fd_ < 0) return;
  char buf[8192];
  // Bounded per request: a kernel that logs without pause cannot hold the
  // control channel's thread.
  for (int reads = 0; reads < 4096; ++reads) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EPIPE) continue;  // kmsg: records overwritten before we read them; go on with the next
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    const std::string_view chunk(buf, static_cast<std::size_t>(n));
    if (kmsg_) {
      // One record: "PRIO,SEQ,MICROSECONDS,FLAGS;TEXT\n", then " KEY=VALUE"
      // lines (left out). Written as dmesg does: "[seconds.micro] TEXT".
      const auto semi = chunk.find(';');
      if (semi == std::string_view::npos) continue;
      const std::string_view head = chunk.substr(0, semi);
      std::string_view text = chunk.substr(semi + 1);
      text = text.substr(0, text.find('\n'));
      unsigned long long usec = 0;
      const auto c1 = head.find(','), c2 = c1 == std::string_view::npos ? c1 : head.find(',', c1 + 1);
      if (c2 != std::string_view::npos) usec = std::strtoull(std::string(head.substr(c2 + 1)).c_str(), nullptr, 10);
      char stamp[40];
      std::snprintf(stamp, sizeof stamp, "[%5llu.%06llu] ", usec / 1000000, usec % 1000000);
      add(stamp + std::string(text));
      continue;
    }
    partial_.append(chunk);
    for (std::size_t nl; (nl = partial_.find('\n')) != std::string::npos;) {
      add(partial_.substr(0, nl));
      partial_.erase(0, nl + 1);
    }
    if (partial_.size() > kLineLimit * 4) partial_.clear();  // a "line" without end is no log line
  }
}

KernelLogPage KernelLog::since(std::uint64_t after, std::size_t max) {
  std::lock_guard lock(mu_);
  KernelLogPage page;
  page.boot_id = boot_id_;
  page.next = after;
  if (!unavailable_.empty()) {
    page.available = false;
    page.reason = unavailable_;
    return page;
  }
  read_new();
  page.available = true;
  if (!lines_.empty() && after + 1 < lines_.front().first) page.dropped = lines_.front().first - after - 1;
  for (const auto& [seq, text] : lines_) {
    if (seq <= after) continue;
    if (page.lines.size() >= max) break;
    page.lines.emplace_back(seq, text);
    page.next = seq;
  }
  return page;
}

}  // namespace rdmaconf::agent
