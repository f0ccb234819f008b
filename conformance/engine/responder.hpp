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
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "faults.hpp"

namespace rdmaconf::conformance {

// How the reference connects as MPA initiator. Cases that need Rev 2 get an
// initiator that asks for RFC 6581's enhanced setup with the peer-to-peer
// model and offers all three RTR kinds (as Linux siw does by default); the
// others a Rev 1 initiator (the client/server model).
struct InitiatorProfile {
  bool rev2_peer_to_peer = false;
};

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
  void connect(const std::string& host, std::uint16_t port, bool clc, InitiatorProfile profile = {});

  // Stops accepting, ends every connection, joins every thread.
  void stop();

  const FaultSet& faults() const { return faults_; }

 private:
  void accept_loop(int fd, bool clc);
  void spawn(int fd, bool clc, bool initiator, InitiatorProfile profile);

  FaultSet faults_;
  std::atomic<bool> stopping_{false};
  int listen_fd_ = -1, clc_listen_fd_ = -1;
  std::uint16_t port_ = 0, clc_port_ = 0;
  std::mutex mu_;
  std::vector<std::thread> threads_;
};

}  // namespace rdmaconf::conformance
