// The verbs an RDMA endpoint offers its ULP (RFC 5040 §5, RFC 7306), whatever
// carries its DDP segments: MPA over TCP (IwarpEndpoint) or the DDP/SCTP
// adaptation layer (SctpEndpoint). Tools that only exercise RDMAP, as
// `rdmaconf loopback` does, work on this interface and never learn the
// lower layer.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>

#include "rdmap/stream.hpp"

namespace rdmaconf::endpoint {

class Verbs {
 public:
  virtual ~Verbs() = default;

  virtual ddp::Stag register_memory(std::span<std::uint8_t> buffer, std::uint64_t base_to, ddp::Access access) = 0;
  virtual void post_receive(rdmap::WorkRequestId id, std::span<std::uint8_t> buffer) = 0;
  virtual wire::Status post_send(rdmap::WorkRequestId id, wire::Bytes payload, rdmap::SendOptions options = {}) = 0;
  virtual wire::Status post_write(rdmap::WorkRequestId id, wire::Bytes payload, ddp::Stag sink_stag,
                                  std::uint64_t sink_to) = 0;
  virtual wire::Status post_read(rdmap::WorkRequestId id, const rdmap::ReadRequest& read) = 0;
  virtual wire::Status post_atomic(rdmap::WorkRequestId id, const rdmap::AtomicRequest& atomic) = 0;
  virtual wire::Status post_immediate(rdmap::WorkRequestId id, std::uint64_t data, bool solicited_event = false) = 0;

  // Waits for the next completion, or nullopt after `timeout`.
  virtual std::optional<rdmap::Completion> wait_completion(std::chrono::milliseconds timeout) = 0;
  // Waits until the lower layer's connection (TCP connection, or the DDP
  // stream session) is over, or `timeout`; true if it is.
  virtual bool wait_closed(std::chrono::milliseconds timeout) = 0;

  // Octets moved by the lower layer, for benchmarks and summaries.
  virtual std::uint64_t octets_sent() const = 0;
  virtual std::uint64_t octets_received() const = 0;
};

}  // namespace rdmaconf::endpoint
