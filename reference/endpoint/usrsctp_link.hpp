// SCTP associations over usrsctp, carried in UDP datagrams (RFC 6951): the one
// place that owns usrsctp's start, its AF_CONN lower layer, the UDP socket
// that carries its packets, its timers, its sockets and their upcalls. The
// reference endpoint over SCTP (sctp_endpoint.hpp), the tester's live SCTP
// side and the reference IUT's SCTP server (conformance/engine/sctp_live.hpp)
// all run their associations through it; none of them calls usrsctp itself.
//
//   UsrsctpLink link(config, events);        // binds the UDP socket
//   link.connect(peer_udp, peer_sctp_port);  // active: one association, id 0
//   link.listen();                           // passive: each association its own id
//   link.send(id, {stream, ppid, unordered, octets});
//
// The link knows no protocol rule above SCTP: it hands whole user messages
// (with stream, PPID and U flag) and the association's events to the
// caller's callbacks, on its I/O thread, holding no lock of its own, so a
// callback may call send() and the caller may hold its own lock around both.
//
// Routing (RFC 6951 §5.1): each peer is known by its SCTP port. A datagram's
// sender becomes the UDP address of the SCTP source port in it; an outgoing
// packet goes to the UDP address of its destination port. A peer that is
// not known yet is learnt from its INIT only, so a stray datagram cannot
// take an association's address.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "endpoint/asio.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::endpoint {

using udp = asio::ip::udp;

struct UsrsctpLinkConfig {
  // The local UDP address SCTP's packets leave from and arrive at; port 0 picks one.
  udp::endpoint local{asio::ip::make_address("127.0.0.1"), 0};
  // The SCTP port of this side (in the common header); 0: the UDP port.
  std::uint16_t sctp_port = 0;
  // The Adaptation Layer Indication our INIT or INIT-ACK carries (RFC 5061
  // §4.2.5); none: the parameter is left out.
  std::optional<std::uint32_t> indication;
  // Streams our INIT or INIT-ACK offers outbound and allows inbound.
  std::uint16_t outbound_streams = 1;
  std::uint16_t inbound_streams = 1;
  // The largest user message taken whole; the octets of a longer one past
  // one more than this are never stored (the caller sees it is too long).
  std::size_t max_message = 4096;
  // Passive: associations open at once; a further one is shut down at once.
  std::size_t max_associations = 1;
};

using AssociationId = std::uint32_t;

struct UsrsctpMessage {
  std::uint16_t stream = 0;
  std::uint32_t ppid = 0;  // host order
  bool unordered = true;
  std::vector<std::uint8_t> octets;
};

// The association is up: what SCTP negotiated, and the peer's Adaptation
// Layer Indication (absent when its INIT or INIT-ACK carried none).
struct UsrsctpUp {
  std::uint16_t outbound_streams = 0;
  std::uint16_t inbound_streams = 0;
  std::optional<std::uint32_t> peer_indication;
};

// Called on the link's I/O thread; any may be empty.
struct UsrsctpEvents {
  std::function<void(AssociationId, const UsrsctpUp&)> up;
  std::function<void(AssociationId, UsrsctpMessage)> message;
  // Everything sent so far has been acknowledged by the peer's SCTP.
  std::function<void(AssociationId)> dry;
  // The association ended (SHUTDOWN, ABORT, a failed receive); after its
  // last message.
  std::function<void(AssociationId, const std::string& why)> gone;
  // Every SCTP packet, as sent (true) or received (false), whole.
  std::function<void(bool sent, wire::Bytes packet)> packet;
};

class UsrsctpLink {
 public:
  // Binds the UDP socket and opens the SCTP socket; throws std::runtime_error
  // when either fails.
  UsrsctpLink(UsrsctpLinkConfig config, UsrsctpEvents events);
  ~UsrsctpLink();
  UsrsctpLink(const UsrsctpLink&) = delete;
  UsrsctpLink& operator=(const UsrsctpLink&) = delete;

  udp::endpoint local_udp() const;
  std::uint16_t local_sctp_port() const;

  // Active: sets up the association (id 0) to the peer; its progress comes
  // as events. False with `error` when it cannot even start.
  bool connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port, std::string& error);
  // Passive: takes associations from now on. False with `error` when not.
  bool listen(std::string& error);

  // One user message on association `id`. False with `error` when SCTP
  // refuses it or the association is gone. Any thread.
  bool send(AssociationId id, const UsrsctpMessage& m, std::string& error);
  // Ends association `id` gracefully (SHUTDOWN). Any thread.
  void shutdown(AssociationId id);

  // UDP payload octets (whole SCTP packets) moved.
  std::uint64_t octets_sent() const;
  std::uint64_t octets_received() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmaconf::endpoint
