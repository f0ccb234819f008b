// DDP over SCTP on a real SCTP stack (docs/sctp-ddp.md, "Over a real SCTP
// stack"): usrsctp carried in UDP datagrams (RFC 6951), or the kernel's own
// SCTP, through the one SCTP link interface of the project
// (reference/endpoint/sctp_link.hpp).
//
// live_sctp_factory: the tester's SctpSide to an IUT at an address and SCTP
// port, one association (and one socket of its own) per case, for
// `rdmaconf run --transport sctp [--sctp-stack kernel] --target HOST:PORT`
// and the sctp suite.
//
// SctpIutServer: the reference IUT (SctpReferenceIut, the code the
// in-process side runs, with its faults) behind an SCTP listener, one IUT
// per association, for `rdmaconf responder --transport sctp`. Its SCTP
// acknowledges what it sent through SCTP's own SACKs (the sender-dry event),
// so the IUT's Terminate waits for real evidence as RFC 5043 §6.6 asks.
//
// Built when usrsctp is (RDMACONF_HAVE_USRSCTP), as rdmaconf_sctp_live.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "endpoint/sctp_link.hpp"
#include "engine/faults.hpp"
#include "engine/sctp_iut.hpp"
#include "engine/sctp_transport.hpp"

namespace rdmaconf::conformance {

struct LiveSctpTarget {
  endpoint::SctpStack stack = endpoint::SctpStack::kUsrsctp;
  std::string host = "127.0.0.1";  // an IP address
  // usrsctp: where the IUT's SCTP packets arrive (RFC 6951); kernel: the
  // IUT's SCTP port.
  std::uint16_t udp_port = 0;
  std::uint16_t sctp_port = 0;     // usrsctp: the IUT's SCTP port; 0: the UDP port
  // How long the association's setup may take.
  std::chrono::milliseconds setup_timeout{5000};
};

SctpFactory live_sctp_factory(LiveSctpTarget target);

struct SctpIutServerConfig {
  endpoint::SctpStack stack = endpoint::SctpStack::kUsrsctp;
  std::string host = "127.0.0.1";
  std::uint16_t udp_port = 0;   // 0 picks one; kernel: the SCTP port
  std::uint16_t sctp_port = 0;  // 0: the UDP port (kernel: must be)
  // What runs above each session (SctpCaseSetup::ddp): DDP and RDMAP with
  // the test ULP (the ddp and rdmap suites), or the adaptation layer alone
  // with its echoing test ULP (the sctp suite).
  bool ddp = true;
  // Associations served at once; another is refused until one ends.
  std::size_t max_associations = 64;
};

class SctpIutServer {
 public:
  // Throws std::runtime_error when the socket cannot be bound (or the
  // kernel offers no SCTP).
  SctpIutServer(FaultSet faults, SctpIutServerConfig config);
  ~SctpIutServer();
  SctpIutServer(const SctpIutServer&) = delete;
  SctpIutServer& operator=(const SctpIutServer&) = delete;

  std::uint16_t udp_port() const;
  std::uint16_t sctp_port() const;
  // Associations set up since the start.
  std::uint64_t associations() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmaconf::conformance
