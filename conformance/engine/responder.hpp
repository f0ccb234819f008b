// The reference implementation as the implementation under test.
//
// ReferenceIut runs the socket-free machines of reference/ — mpa::Negotiation,
// mpa::Deframer/Framer, rdmap::Stream, clc::ServerHandshake/ClientHandshake —
// on real TCP connections, one thread per connection, following the test ULP
// profile (test_ulp.hpp: it advertises its buffers and echoes Sends). It is
// the same composition as endpoint::IwarpEndpoint, kept here because named
// faults act at the seams between those machines (a Request patched before
// the negotiation sees it, a Terminate rewritten before the framer sends it),
// which the endpoint does not expose.
//
// Each named fault (faults.hpp) makes it break exactly one rule, so that
// `rdmaconf mutation` can prove every case able to fail.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/faults.hpp"

namespace rdmaconf::conformance {

// MPA choices the IUT makes itself, per listener (the device agent's
// configurations, conformance/agent/). nullopt keeps the default: accept the
// revision the Request asks for, ask for no CRC (RFC 5044 §7.1.1: either
// side may), ask for Markers only when the tester hints so.
struct IutMpaConfig {
  std::optional<int> revision;  // the only revision accepted
  std::optional<bool> want_crc;
  std::optional<bool> want_markers;
};

// How the reference connects as MPA initiator. Cases that need Rev 2 get an
// initiator that asks for RFC 6581's enhanced setup with the peer-to-peer
// model and offers all three RTR kinds (as Linux siw does by default); the
// others a Rev 1 initiator (the client/server model).
struct InitiatorProfile {
  bool rev2_peer_to_peer = false;
  IutMpaConfig mpa{};  // revision is ignored: rev2_peer_to_peer decides
};

// What the IUT saw locally, for an observer (the agent's reference backend):
// the verbs-level view a real device's host reports. `local` and `peer` are
// the connection's TCP addresses as the IUT sees them.
struct IutEvent {
  enum class Kind : std::uint8_t { kConnection, kCompletion, kAsync };
  Kind kind = Kind::kConnection;
  std::string local, peer;
  std::string name;    // connection: established, rejected, closed; completion: opcode; async: terminate_sent ...
  std::string status;  // completion: success, flushed
  std::uint32_t byte_len = 0;
  std::uint64_t wr_id = 0;
  std::string detail;
};
using IutObserver = std::function<void(const IutEvent&)>;

class ReferenceIut {
 public:
  explicit ReferenceIut(FaultSet faults = {});
  ~ReferenceIut();
  ReferenceIut(const ReferenceIut&) = delete;
  ReferenceIut& operator=(const ReferenceIut&) = delete;

  // Listens for iWARP (MPA responder) and CLC (server) connections; port 0
  // picks a free port. false with `error` when binding fails.
  bool listen(const std::string& host, std::uint16_t port, std::string& error);
  bool listen_clc(const std::string& host, std::uint16_t port, std::string& error);
  std::uint16_t port() const { return port_; }
  std::uint16_t clc_port() const { return clc_port_; }

  // Initiator role: connects to a tester waiting at host:port, as the MPA
  // initiator (clc false) or the CLC client (clc true), in the background.
  // false when the TCP connection could not be made.
  bool connect(const std::string& host, std::uint16_t port, bool clc, InitiatorProfile profile = {});

  // Stops accepting, ends every connection, joins every thread.
  void stop();

  const FaultSet& faults() const { return faults_; }

  // Set before listen/connect: every connection reports to `observer`, and
  // accepted ones follow `mpa`.
  void set_observer(IutObserver observer) { observer_ = std::move(observer); }
  void set_mpa(IutMpaConfig mpa) { mpa_ = mpa; }

 private:
  void accept_loop(int fd, bool clc);
  void spawn(int fd, bool clc, bool initiator, InitiatorProfile profile);

  FaultSet faults_;
  IutObserver observer_;
  IutMpaConfig mpa_;
  std::atomic<bool> stopping_{false};
  int listen_fd_ = -1, clc_listen_fd_ = -1;
  std::uint16_t port_ = 0, clc_port_ = 0;
  std::mutex mu_;
  std::vector<std::thread> threads_;
  std::uint8_t next_stag_key_ = 0;  // under mu_: the next connection's first STag key
};

}  // namespace rdmaconf::conformance
