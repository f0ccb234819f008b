// The reference iWARP endpoint: one RDMAP stream over one real TCP
// connection, as initiator or responder.
//
//   TCP socket (TcpLink, Boost.Asio)
//     -> MPA negotiation (mpa::Negotiation, RFC 5044 §7.1, RFC 6581)
//     -> MPA deframer / framer (mpa::Deframer, mpa::Framer)
//     -> DDP + RDMAP (rdmap::Stream: placement, Sends, Reads, atomics, Terminate)
//
// Every layer below is socket-free; this class only moves octets between the
// socket and those state machines, runs the timers, and closes the TCP
// connection when a Terminate has been sent or received (RFC 5040 §6.2).
//
// Threading: the endpoint runs its own io_context on one thread. All
// protocol state lives on that thread; the public methods hand work to it
// and wait for the answer, so they may be called from any one other thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "endpoint/asio.hpp"
#include "endpoint/transcript.hpp"
#include "endpoint/verbs.hpp"
#include "mpa/negotiation.hpp"
#include "rdmap/rtr.hpp"
#include "rdmap/stream.hpp"

namespace rdmaconf::endpoint {

struct IwarpConfig {
  mpa::NegotiationConfig mpa;  // role is set by connect()/accept()
  rdmap::StreamConfig rdmap;
  // RFC 5044 §7.1.2 leaves the reply timer's value to the implementation;
  // Linux siw waits 10 s.
  std::chrono::milliseconds negotiation_timeout{10000};
  // After a Terminate or a failed negotiation the endpoint half-closes and
  // waits this long for the peer to close before resetting the connection.
  std::chrono::milliseconds close_grace{2000};
  // TCP MSS-derived FPDU budget (RFC 5044 §4.1 MULPDU); the ULPDU size the
  // RDMAP stream may use is derived from it once Markers are known.
  std::size_t fpdu_budget = 1460;
  // Receive-side buffering bound: a peer that never completes a frame is
  // cut off once this many octets are waiting.
  std::size_t receive_limit = 1 << 20;
  // Optional: every MPA frame and FPDU that crosses the wire, decoded.
  WireObserver observer;
};

enum class ConnectionState : std::uint8_t {
  kNegotiating,  // MPA Request/Reply exchange
  kAwaitingRtr,  // RFC 6581 responder: full operation, nothing sent before the RTR
  kOperational,  // RDMAP messages flow
  kClosed,       // TCP connection gone (orderly, after a Terminate, or failed)
};
std::string_view to_string(ConnectionState s);

class IwarpEndpoint : public Verbs {
 public:
  // Creates the endpoint and its RDMAP stream, not yet connected: like a
  // verbs QP, memory can be registered and receives posted before the
  // connection exists (RFC 6581's zero-length Send RTR needs a posted
  // receive at the responder before it arrives).
  explicit IwarpEndpoint(IwarpConfig config);
  ~IwarpEndpoint() override;
  IwarpEndpoint(const IwarpEndpoint&) = delete;
  IwarpEndpoint& operator=(const IwarpEndpoint&) = delete;

  // Connects to `peer` as the MPA initiator, or accepts one connection on
  // `acceptor` as the responder, and returns once MPA negotiation ended:
  // true if the stream is in full operation, false with failure() set.
  // Call one of them once.
  bool connect(const tcp::endpoint& peer);
  bool accept(tcp::acceptor& acceptor);

  ConnectionState state() const;
  std::optional<mpa::NegotiationOutcome> negotiated() const;
  // Why the connection is not (or no longer) operational, in one line.
  std::string failure() const;

  // ---- the verbs the ULP uses (RFC 5040 §5; RFC 7306) ----
  ddp::Stag register_memory(std::span<std::uint8_t> buffer, std::uint64_t base_to, ddp::Access access) override;
  void post_receive(rdmap::WorkRequestId id, std::span<std::uint8_t> buffer) override;
  wire::Status post_send(rdmap::WorkRequestId id, wire::Bytes payload, rdmap::SendOptions options = {}) override;
  wire::Status post_write(rdmap::WorkRequestId id, wire::Bytes payload, ddp::Stag sink_stag,
                          std::uint64_t sink_to) override;
  wire::Status post_read(rdmap::WorkRequestId id, const rdmap::ReadRequest& read) override;
  wire::Status post_atomic(rdmap::WorkRequestId id, const rdmap::AtomicRequest& atomic) override;
  wire::Status post_immediate(rdmap::WorkRequestId id, std::uint64_t data, bool solicited_event = false) override;

  // Waits for the next completion, or nullopt after `timeout`.
  std::optional<rdmap::Completion> wait_completion(std::chrono::milliseconds timeout) override;
  // Waits until the connection is closed, or `timeout`; true if closed.
  bool wait_closed(std::chrono::milliseconds timeout) override;

  // Orderly close: FIN after everything queued has been sent.
  void close();

  // Octets moved, for benchmarks.
  std::uint64_t octets_sent() const override;
  std::uint64_t octets_received() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmaconf::endpoint
