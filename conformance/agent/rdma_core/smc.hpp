// The CLC side of the agent: the host's own SMC stack (Linux net/smc) as the
// CLC IUT (RFC 7609, SMC v2). The agent opens an AF_SMC socket that listens
// or connects; the kernel runs the CLC handshake with the tester, and the
// socket echoes what arrives, whether the connection went SMC-R or fell
// back to TCP. What the stack says about it is reported as kClc events:
//
//   smc_diag (NETLINK_SOCK_DIAG, family AF_SMC)  the connection's mode
//       (SMC-R, SMC-D, TCP fallback) and its fallback reason and peer
//       diagnosis (SMC_DIAG_FALLBACK), matched by the socket's inode;
//   generic netlink SMC_GEN_NETLINK, SMC_NETLINK_GET_FBACK_STATS  the
//       stack's fallback counters per reason (server and client), reported
//       when a connection ends.
//
// Linux has no getsockopt for the fallback reason (SOL_SMC offers only
// SMC_LIMIT_HS), hence netlink. The parsers are pure and unit-tested; the
// sockets need a kernel with the smc module.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "agent/backend.hpp"

namespace rdmaconf::agent::rdma_core {

// ------------------------------------------------------------ netlink parsing

struct NetlinkAttr {
  std::uint16_t type = 0;  // without the nested/byte-order flags
  std::span<const std::uint8_t> value;
};
// The attributes (struct nlattr / rtattr: length, type, value, padded to 4)
// in `octets`. Stops at the first attribute whose length is impossible;
// never reads past `octets`.
std::vector<NetlinkAttr> parse_netlink_attrs(std::span<const std::uint8_t> octets);

// One smc_diag answer (the payload after struct nlmsghdr).
struct SmcDiagInfo {
  std::uint8_t state = 0;
  std::uint8_t mode = 0;  // SMC_DIAG_MODE_*
  std::uint16_t local_port = 0, peer_port = 0;
  std::uint64_t inode = 0;
  bool has_fallback = false;
  std::uint32_t fallback_reason = 0, peer_diagnosis = 0;
};
std::optional<SmcDiagInfo> parse_smc_diag(std::span<const std::uint8_t> payload);
const char* smc_mode_name(std::uint8_t mode);  // "smc-r", "fallback", "smc-d", "unknown"
// "0x03030000 SMC_CLC_DECL_NOSMCDEV (...)"; "none" for 0.
std::string describe_smc_code(std::uint32_t code);

// One SMC_GEN_FBACK_STATS nest of SMC_NETLINK_GET_FBACK_STATS (the payload
// after the generic netlink header).
struct FallbackCount {
  bool server = false;
  std::uint32_t reason = 0;
  std::uint32_t count = 0;
};
std::optional<FallbackCount> parse_fallback_stats(std::span<const std::uint8_t> genl_payload);
// "server NOSMCDEV=3, client PEERNOSMC=1"
std::string describe_fallback_counts(const std::vector<FallbackCount>& counts);

// ------------------------------------------------------------- the sockets

class SmcSide {
 public:
  SmcSide(std::function<std::uint64_t()> next_handle, std::function<void(Event)> emit);
  ~SmcSide();
  SmcSide(const SmcSide&) = delete;
  SmcSide& operator=(const SmcSide&) = delete;

  // Whether this host can open AF_SMC sockets at all.
  static bool available();

  Outcome<Handle> listen(const ClcListenRequest& r, const std::string& default_host);
  Outcome<Handle> connect(const ClcConnectRequest& r);
  bool owns(std::uint64_t id);
  Outcome<bool> close(std::uint64_t id);
  void stop();

 private:
  struct Entry;
  void accept_loop(std::shared_ptr<Entry> listener);
  void serve(std::shared_ptr<Entry> listener, int fd, bool client);
  void report_diag(std::uint64_t handle, int fd, const std::string& local, const std::string& peer);
  // Starts a thread (with mu_ held), first joining those that have ended:
  // a joinable thread keeps its stack until joined.
  void spawn(std::function<void()> fn);
  struct Worker {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  std::function<std::uint64_t()> next_handle_;
  std::function<void(Event)> emit_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::map<std::uint64_t, std::shared_ptr<Entry>> entries_;
  std::vector<Worker> threads_;
  std::size_t live_connections_ = 0;
};

// The stack's fallback counters, or an error line.
std::string query_fallback_stats();

}  // namespace rdmaconf::agent::rdma_core
