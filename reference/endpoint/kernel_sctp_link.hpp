// SCTP associations over the kernel's own SCTP (Linux's lksctp): one-to-one
// style sockets (SOCK_STREAM, IPPROTO_SCTP; RFC 6458 §4), one per
// association, the active side's own or one the listener accepted. It is
// one SctpLink (sctp_link.hpp), opened through open_sctp_link(
// SctpStack::kKernel, ...); none of its users calls the socket API itself.
//
// The stack does what usrsctp does in usrsctp_link.cpp, through the socket
// options RFC 6458 names: SCTP_INITMSG (streams offered and allowed),
// SCTP_ADAPTATION_LAYER (the indication our INIT or INIT-ACK carries),
// SCTP_NODELAY, SCTP_RECVRCVINFO (stream, PPID and U flag of each message
// received), SCTP_SNDINFO per message sent, and SCTP_EVENT for the
// association's change, the peer's Adaptation Layer Indication and the
// sender-dry event. No library beyond the C library is needed: the
// declarations are the kernel's own header (<linux/sctp.h>).
//
// What differs from usrsctp: the kernel keeps its packets to itself (no
// `packet` event; a capture of the association is tcpdump's), the SCTP port
// is the address's port, and the octets counted are the user messages'.
// On a kernel without SCTP (socket() fails with EPROTONOSUPPORT: no
// CONFIG_IP_SCTP, or the module not loadable) opening a link throws, saying so.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "endpoint/sctp_link.hpp"

namespace rdmaconf::endpoint {

class KernelSctpLink final : public SctpLink {
 public:
  // Opens and binds the socket (the listener, or the active side's); throws
  // std::runtime_error when that fails.
  KernelSctpLink(SctpLinkConfig config, SctpEvents events);
  ~KernelSctpLink() override;
  KernelSctpLink(const KernelSctpLink&) = delete;
  KernelSctpLink& operator=(const KernelSctpLink&) = delete;

  // The bound IP address and SCTP port.
  udp::endpoint local_address() const override;
  std::uint16_t local_sctp_port() const override;
  bool packets_seen() const override { return false; }

  // The kernel's peer is its IP address and SCTP port: `peer`'s port is not
  // used, `peer_sctp_port` is.
  bool connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port, std::string& error) override;
  bool listen(std::string& error) override;
  bool send(AssociationId id, const SctpMessage& m, std::string& error) override;
  void shutdown(AssociationId id) override;

  // User message octets moved.
  std::uint64_t octets_sent() const override;
  std::uint64_t octets_received() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Whether this kernel offers SCTP sockets; `why` says what socket() said
// when not. Tests that need one skip with that reason.
bool kernel_sctp_available(std::string& why);

// The parts of the socket API the link reads, decoded from octets so that
// they are tested without a kernel SCTP (RFC 6458 §6.1, §5.3.5).
namespace kernel_sctp {

// One notification (a message with MSG_NOTIFICATION set) as the link acts on it.
struct Notification {
  enum class Kind : std::uint8_t {
    kCommUp,      // SCTP_ASSOC_CHANGE, SCTP_COMM_UP: the stream counts
    kRestart,     // SCTP_ASSOC_CHANGE, SCTP_RESTART: nothing to do
    kEnded,       // SCTP_ASSOC_CHANGE, any other state: the association is gone
    kAdaptation,  // SCTP_ADAPTATION_INDICATION: the peer's indication
    kSenderDry,   // SCTP_SENDER_DRY_EVENT
    kOther,       // anything else (not subscribed to, or not needed)
  };
  Kind kind = Kind::kOther;
  std::uint16_t outbound_streams = 0;
  std::uint16_t inbound_streams = 0;
  std::uint32_t indication = 0;  // host order, as the socket API gives it
  std::uint16_t state = 0;       // SCTP_ASSOC_CHANGE's sac_state
};

// Empty when the octets are shorter than the notification their type names.
std::optional<Notification> decode_notification(wire::Bytes octets);

// The SCTP_RCVINFO of a received message, from the control octets recvmsg
// filled (msg_control, msg_controllen).
struct ReceiveInfo {
  std::uint16_t stream = 0;
  std::uint32_t ppid = 0;  // host order
  bool unordered = false;
};
std::optional<ReceiveInfo> receive_info(wire::Bytes control);

}  // namespace kernel_sctp
}  // namespace rdmaconf::endpoint
