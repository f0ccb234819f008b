// The host's kernel log for the control channel's GET /v1/kernel-log
// (docs/agent.md): what `rdmaconf fuzz --agent` reads after each input to
// see a kernel crash (a BUG, an Oops, a panic) that a device driver on this
// host had. Reads Linux's /dev/kmsg (one record per read, each with its own
// sequence number) or, for other hosts and for tests, a text file that grows
// (new lines since the agent started).
#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "agent/control.hpp"

namespace rdmaconf::agent {

class KernelLog {
 public:
  // Opens `path` and skips what it already holds: only what the kernel logs
  // from now on is reported. unavailable() says why when it cannot be read
  // (not Linux, not allowed: /dev/kmsg needs CAP_SYSLOG where
  // kernel.dmesg_restrict is set).
  explicit KernelLog(std::string path);
  ~KernelLog();
  KernelLog(const KernelLog&) = delete;
  KernelLog& operator=(const KernelLog&) = delete;

  const std::string& unavailable() const { return unavailable_; }
  // Lines with a number above `after`, at most `max`; reads what is new first.
  KernelLogPage since(std::uint64_t after, std::size_t max);

  static constexpr std::size_t kKeep = 4096;       // lines kept for late readers
  static constexpr std::size_t kLineLimit = 1024;  // octets of one line kept

 private:
  void read_new();  // under mu_
  void add(std::string line);

  std::string path_, unavailable_, boot_id_;
  int fd_ = -1;
  bool kmsg_ = false;
  std::string partial_;  // a file's last line, not ended yet
  std::mutex mu_;
  std::deque<std::pair<std::uint64_t, std::string>> lines_;
  std::uint64_t next_ = 1;
};

}  // namespace rdmaconf::agent
