// The reference IUT's SMC-R side, in this process (docs/conformance.md,
// "The smcr suite"): one in-memory fabric (reference/smcr/transport.hpp's
// MemoryFabric) per CLC connection, named by the connection's two TCP
// addresses. The reference IUT's CLC thread makes its first link's queue
// pair and RMB there before its Accept or Confirm names them, and hands the
// handshake's outcome over when it reaches SMC-R; the tester's RoceSide for
// that connection finds the same fabric, and its drive() runs the IUT's link
// group and connection (reference/smcr/) in the runner's thread, since the
// fabric has no clock and no lock of its own. A later CLC connection from
// a client the IUT (as server) has a live link group with reuses it
// (§3.5.2): its Accept names that group's link and a free element of the
// IUT's RMB (4 RMBEs, one per connection, §4.1), and its connection is
// handed to the group's side, which runs every connection of the group.
//
// The IUT's application is the SMC-R test ULP: it echoes what it reads
// (urgent data as urgent data), reads only what its send buffer can take,
// and closes when the peer closed; once it closed, its close timer
// (smcr::kCloseWaitTime, §4.8.1) ends a connection whose peer never
// finishes the close, and the TCP connection is reset; the tester's TCP
// reset without A before it aborts the SMC-R connection. The named faults of the SMC-R layer
// (faults.hpp) act on its link group's and connection's configuration, on
// the connection's Faults, or on the LLC and CDC messages its queue pairs
// send and receive.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "clc/handshake.hpp"
#include "engine/faults.hpp"
#include "engine/smcr_transport.hpp"

namespace rdmaconf::conformance {

// "a.b.c.d:port" of a socket's own end (peer false) or its peer's.
std::string socket_address(int fd, bool peer);

// What the reference IUT's CLC announces for its first link.
struct IutFirstLink {
  std::uint32_t qp_number = 0;
  std::uint32_t rmb_rkey = 0;
  std::uint64_t rmb_virtual_address = 0;
  std::uint32_t alert_token = 0;
};

// The name of the fabric of the IUT's CLC connection `fd` (both TCP ends).
std::string iut_exchange_key(int fd);
// The IUT's CLC thread, before it builds its Accept (server) or Confirm
// (client): its first link's queue pair and an RMB of `rmbe_size` octets
// registered on it.
IutFirstLink iut_first_link(const std::string& key, std::uint64_t rmbe_size);
// RFC 7609 §3.5.2: the link groups the reference IUT as server has with
// clients (while a case's tester runs them), added to `cfg` for its Accept:
// each client's identity and end of the link, and the IUT's values for a
// connection that reuses the group (its link, a free RMBE of its RMB and
// that RMBE's alert token, §4.1). A group without a free RMBE is left out.
void iut_link_groups(clc::ServerConfig& cfg, const FaultSet& f);
// The handshake reached SMC-R: what the IUT announced (`own`) and its
// peer's values, for the runner to start the IUT's link group with, or,
// without first contact, to add the connection to the group it reused.
void iut_reached_smcr(const std::string& key, bool server, const clc::SmcrLink& own, const clc::Outcome& outcome,
                      const FaultSet& f);
// The IUT's SMC-R connection was aborted or its link group ended: the CLC
// thread resets the TCP connection (RFC 7609 §4.8.2).
bool iut_smcr_reset(const std::string& key);
// The IUT's TCP connection was reset by the tester (its CLC thread saw the
// RST): its SMC-R connection aborts (RFC 7609 §4.8.2) when the runner next
// drives its side.
void iut_tcp_reset_received(const std::string& key);
// RunOptions::tcp_reset_sent for the reference: waits (a bounded time) until
// the IUT's CLC thread saw the tester's RST on that connection, so that the
// next step finds the IUT's answer rather than racing that thread.
std::function<void(const RoceEndpoints&)> memory_tcp_reset_sent();
// The CLC connection ended: the fabric is forgotten once the tester lets go too.
void iut_connection_ended(const std::string& key);

// The tester's RoceSide against the reference IUT.
RoceFactory memory_roce_factory();

}  // namespace rdmaconf::conformance
