// SCTP associations over usrsctp, carried in UDP datagrams (RFC 6951): the one
// place that owns usrsctp's start, its AF_CONN lower layer, the UDP socket
// that carries its packets, its timers, its sockets and their upcalls. The
// reference endpoint over SCTP (sctp_endpoint.hpp), the tester's live SCTP
// side and the reference IUT's SCTP server (conformance/engine/sctp_live.hpp)
// all run their associations through it; none of them calls usrsctp itself.
//
// It is one SctpLink (sctp_link.hpp): its users open it through
// open_sctp_link(SctpStack::kUsrsctp, ...) and see only that interface.
//
// Routing (RFC 6951 §5.1): each peer is known by its SCTP port. A datagram's
// sender becomes the UDP address of the SCTP source port in it; an outgoing
// packet goes to the UDP address of its destination port. A peer that is
// not known yet is learnt from its INIT only, so a stray datagram cannot
// take an association's address.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "endpoint/sctp_link.hpp"

namespace rdmaconf::endpoint {

class UsrsctpLink final : public SctpLink {
 public:
  // Binds the UDP socket and opens the SCTP socket; throws std::runtime_error
  // when either fails. `config.local` is the UDP address.
  UsrsctpLink(SctpLinkConfig config, SctpEvents events);
  ~UsrsctpLink() override;
  UsrsctpLink(const UsrsctpLink&) = delete;
  UsrsctpLink& operator=(const UsrsctpLink&) = delete;

  // The UDP address.
  udp::endpoint local_address() const override;
  std::uint16_t local_sctp_port() const override;
  bool packets_seen() const override { return true; }

  // `peer` is the UDP address the peer's SCTP packets arrive at.
  bool connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port, std::string& error) override;
  bool listen(std::string& error) override;
  bool send(AssociationId id, const SctpMessage& m, std::string& error) override;
  void shutdown(AssociationId id) override;

  // UDP payload octets (whole SCTP packets) moved.
  std::uint64_t octets_sent() const override;
  std::uint64_t octets_received() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmaconf::endpoint
