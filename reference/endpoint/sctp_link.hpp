// One SCTP association source for the whole project, whichever SCTP stack
// carries it: usrsctp in this process, its packets in UDP datagrams (RFC
// 6951, usrsctp_link.hpp), or the kernel's own SCTP (Linux's lksctp, one-to-
// one style sockets, kernel_sctp_link.hpp). The reference endpoint over SCTP
// (sctp_endpoint.hpp), the tester's live SCTP side and the reference IUT's
// SCTP server (conformance/engine/sctp_live.hpp) run their associations
// through this interface and never call a stack themselves.
//
//   auto link = open_sctp_link(SctpStack::kKernel, config, events);
//   link->connect(peer, peer_sctp_port);  // active: one association, id 0
//   link->listen();                       // passive: each association its own id
//   link->send(id, {stream, ppid, unordered, octets});
//
// A link knows no protocol rule above SCTP: it hands whole user messages
// (with stream, PPID and U flag) and the association's events to the
// caller's callbacks, on its I/O thread, holding no lock of its own, so a
// callback may call send() and the caller may hold its own lock around both.
//
// Addresses: `local` and a peer's address are where SCTP's packets leave
// from and arrive at. Over usrsctp that is a UDP address, and the SCTP port
// (in SCTP's common header) is a number of its own; over the kernel's SCTP
// it is the IP address with the SCTP port itself, so there the SCTP port
// is the address's port.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "endpoint/asio.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::endpoint {

using udp = asio::ip::udp;

enum class SctpStack : std::uint8_t {
  kUsrsctp,  // usrsctp in this process, over UDP (RFC 6951)
  kKernel,   // the kernel's SCTP (IPPROTO_SCTP sockets)
};

// "usrsctp" or "kernel": the names the command line takes (--sctp-stack).
std::string_view sctp_stack_name(SctpStack s);
std::optional<SctpStack> parse_sctp_stack(std::string_view name);

struct SctpLinkConfig {
  // The local address SCTP's packets leave from and arrive at (usrsctp: a
  // UDP address; kernel: the IP address and SCTP port); port 0 picks one.
  udp::endpoint local{asio::ip::make_address("127.0.0.1"), 0};
  // The SCTP port of this side; 0: local's port. The kernel's SCTP port is
  // local's port: another number there is an error.
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

struct SctpMessage {
  std::uint16_t stream = 0;
  std::uint32_t ppid = 0;  // host order
  bool unordered = true;
  std::vector<std::uint8_t> octets;
};

// The association is up: what SCTP negotiated, and the peer's Adaptation
// Layer Indication (absent when its INIT or INIT-ACK carried none).
struct SctpUp {
  std::uint16_t outbound_streams = 0;
  std::uint16_t inbound_streams = 0;
  std::optional<std::uint32_t> peer_indication;
};

// Called on the link's I/O thread; any may be empty.
struct SctpEvents {
  std::function<void(AssociationId, const SctpUp&)> up;
  std::function<void(AssociationId, SctpMessage)> message;
  // Everything sent so far has been acknowledged by the peer's SCTP.
  std::function<void(AssociationId)> dry;
  // The association ended (SHUTDOWN, ABORT, a failed receive); after its
  // last message.
  std::function<void(AssociationId, const std::string& why)> gone;
  // Every SCTP packet, as sent (true) or received (false), whole. Only a
  // stack that sees the packets reports them (usrsctp; the kernel keeps
  // its packets to itself: packets_seen() says which).
  std::function<void(bool sent, wire::Bytes packet)> packet;
};

class SctpLink {
 public:
  virtual ~SctpLink() = default;

  // Where SCTP's packets arrive at this side (see "Addresses" above).
  virtual udp::endpoint local_address() const = 0;
  virtual std::uint16_t local_sctp_port() const = 0;
  // Whether the `packet` event is ever called.
  virtual bool packets_seen() const = 0;

  // Active: sets up the association (id 0) to the peer; its progress comes
  // as events. False with `error` when it cannot even start.
  virtual bool connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port, std::string& error) = 0;
  // Passive: takes associations from now on. False with `error` when not.
  virtual bool listen(std::string& error) = 0;

  // One user message on association `id`. False with `error` when SCTP
  // refuses it or the association is gone. Any thread.
  virtual bool send(AssociationId id, const SctpMessage& m, std::string& error) = 0;
  // Ends association `id` gracefully (SHUTDOWN). Any thread.
  virtual void shutdown(AssociationId id) = 0;

  // Octets moved: whole SCTP packets over usrsctp, user messages over the
  // kernel's SCTP (which does not say what its packets took).
  virtual std::uint64_t octets_sent() const = 0;
  virtual std::uint64_t octets_received() const = 0;
};

// A link on `stack`; throws std::runtime_error when it cannot be opened
// (the address is taken, the kernel offers no SCTP, ...), saying why.
std::unique_ptr<SctpLink> open_sctp_link(SctpStack stack, SctpLinkConfig config, SctpEvents events);

}  // namespace rdmaconf::endpoint
