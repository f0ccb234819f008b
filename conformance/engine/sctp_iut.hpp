// The reference IUT's end of one SCTP association (sctp_memory.cpp), apart
// from any SCTP stack, so that the in-process side (memory_sctp_factory)
// and the reference's SCTP server over usrsctp (sctp_live.hpp) run the same
// IUT with the same faults.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/faults.hpp"
#include "engine/sctp_transport.hpp"

namespace rdmaconf::conformance {

// Broken by `faults`, with the test ULP above it: the tester's SCTP chunks
// go in, the IUT's come out.
class SctpReferenceIut {
 public:
  SctpReferenceIut(FaultSet faults, SctpCaseSetup setup);
  ~SctpReferenceIut();
  SctpReferenceIut(const SctpReferenceIut&) = delete;
  SctpReferenceIut& operator=(const SctpReferenceIut&) = delete;
  // The association is up, the tester's INIT having asked `init`; what the
  // IUT's INIT-ACK announces is peer_init(). Unless `init.hold_acks`, the
  // IUT's chunks count as acknowledged once taken; otherwise only through
  // acknowledge() (the tester's `sctp.ack`, or a real SCTP's SACKs).
  bool associate(const SctpInit& init, std::string& error);
  const SctpPeerInit& peer_init() const;
  // One chunk of the tester's.
  bool receive(const SctpChunk& chunk, std::string& error);
  // The IUT's next chunk to hand to SCTP, if any.
  std::optional<SctpChunk> take();
  // SCTP acknowledged every chunk of the IUT's so far (RFC 5043 §6.6).
  void acknowledge();

 private:
  class Core;
  std::unique_ptr<Core> core_;
};

}  // namespace rdmaconf::conformance
