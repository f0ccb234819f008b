// The reference iWARP endpoint over SCTP: one RDMAP stream on one DDP stream
// of an SCTP association, as the session's active or passive side.
//
//   an SCTP link (sctp_link.hpp): usrsctp in this process, its packets in UDP
//   datagrams on loopback (RFC 6951), or the kernel's own SCTP
//     -> DDP/SCTP adaptation layer (sctp::Association, RFC 5043): Adaptation
//        Indication, DDP Stream Session, DDP-SSN order
//     -> DDP + RDMAP (rdmap::Stream, unchanged from the TCP path)
//
// The endpoint only moves octets between the SCTP link and the socket-free
// machines. Every DATA chunk it sends is unordered (RFC 5043 §10) and carries
// the PPID the adaptation layer chose; the INIT or INIT-ACK carries the
// Adaptation Layer Indication for DDP (§5.1, §11.1).
//
// Threading is IwarpEndpoint's: one I/O thread owns the protocol state, the
// verbs run on the caller's thread under the same lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "endpoint/asio.hpp"
#include "endpoint/sctp_link.hpp"
#include "endpoint/transcript.hpp"
#include "endpoint/verbs.hpp"
#include "rdmap/stream.hpp"
#include "sctp/session.hpp"

namespace rdmaconf::endpoint {

using udp = asio::ip::udp;

struct SctpConfig {
  rdmap::StreamConfig rdmap;
  // Which SCTP carries the association (sctp_link.hpp).
  SctpStack stack = SctpStack::kUsrsctp;
  // The local address SCTP's packets leave from and arrive at: over usrsctp
  // a UDP address (RFC 6951), over the kernel's SCTP the IP address and SCTP
  // port; port 0 picks one.
  udp::endpoint local{asio::ip::make_address("127.0.0.1"), 0};
  // The SCTP port of this side (in the SCTP common header); 0: usrsctp
  // picks one, the kernel takes local's port.
  std::uint16_t sctp_port = 0;
  // RFC 5043 §9: the largest DDP segment either side sends; it fits one
  // DATA chunk on loopback's path without fragmentation.
  std::size_t max_segment_size = 1024;
  // The DDP stream (SCTP Stream Identifier) the session runs on (§8).
  std::uint16_t stream = 0;
  // Private data of the Initiate or Accept (RFC 5043 §5.2.3).
  std::vector<std::uint8_t> private_data;
  // A passive side that refuses the session: Reject with the private data.
  bool reject = false;
  std::chrono::milliseconds setup_timeout{10000};
  // Optional: every adaptation-layer message sent or received, decoded.
  WireObserver observer;
};

enum class SctpState : std::uint8_t {
  kConnecting,   // SCTP association and DDP Stream Session being set up
  kOperational,  // the session is established; RDMAP messages flow
  kClosed,       // the session ended (Terminate, Reject) or the association is gone
};

class SctpEndpoint : public Verbs {
 public:
  explicit SctpEndpoint(SctpConfig config);
  ~SctpEndpoint() override;
  SctpEndpoint(const SctpEndpoint&) = delete;
  SctpEndpoint& operator=(const SctpEndpoint&) = delete;

  // The address and SCTP port a peer connects to (after the constructor).
  udp::endpoint local_address() const;
  std::uint16_t local_sctp_port() const;

  // Active side: sets up the association to the peer's address and SCTP
  // port, then the session (Initiate, waits for the answer). Passive side:
  // waits for one association and its Initiate, and answers it. Both return
  // once the session is established (true) or failed (false, failure()).
  bool connect(const udp::endpoint& peer, std::uint16_t peer_sctp_port);
  bool accept();
  // Passive side: listens for the association now and returns once it does
  // (false, failure(), when it cannot), so that a peer's INIT sent after it
  // finds a listener rather than an ABORT; accept() listens if this was not
  // called.
  bool listen();

  SctpState state() const;
  std::string failure() const;
  // The peer's private data from its Initiate, Accept or Reject.
  std::vector<std::uint8_t> peer_private_data() const;

  ddp::Stag register_memory(std::span<std::uint8_t> buffer, std::uint64_t base_to, ddp::Access access) override;
  void post_receive(rdmap::WorkRequestId id, std::span<std::uint8_t> buffer) override;
  wire::Status post_send(rdmap::WorkRequestId id, wire::Bytes payload, rdmap::SendOptions options = {}) override;
  wire::Status post_write(rdmap::WorkRequestId id, wire::Bytes payload, ddp::Stag sink_stag,
                          std::uint64_t sink_to) override;
  wire::Status post_read(rdmap::WorkRequestId id, const rdmap::ReadRequest& read) override;
  wire::Status post_atomic(rdmap::WorkRequestId id, const rdmap::AtomicRequest& atomic) override;
  wire::Status post_immediate(rdmap::WorkRequestId id, std::uint64_t data, bool solicited_event = false) override;
  std::optional<rdmap::Completion> wait_completion(std::chrono::milliseconds timeout) override;
  bool wait_closed(std::chrono::milliseconds timeout) override;
  // The link's count of octets moved (sctp_link.hpp).
  std::uint64_t octets_sent() const override;
  std::uint64_t octets_received() const override;

  // Ends the DDP Stream Session with a Terminate (RFC 5043 §6.2).
  void terminate_session();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmaconf::endpoint
