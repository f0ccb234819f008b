// RFC 6581 §9.2: the Ready-to-Receive (RTR) messages of the peer-to-peer
// model. The Reply sets the RTR kinds the responder accepts; the initiator's
// first FPDU is one of them, and the responder sends nothing before it
// arrived. This reference treats a first FPDU that is none of them as "no
// matching RTR" (LLP error code 0x07, RFC 6581 §8): the text names the code
// for an initiator that can send none of the kinds, and gives a responder
// none of its own for this case.
#pragma once

#include "mpa/negotiation.hpp"
#include "rdmap/stream.hpp"
#include "wire/chunks.hpp"

namespace rdmaconf::rdmap {

// Whether `ulpdu` (one DDP segment) is the RTR message of `kind`:
//   zero-length Send         untagged, L set, opcode Send, no payload
//   zero-length RDMA Write   tagged, L set, opcode RDMA Write, no payload
//   zero-length RDMA Read    a Read Request whose RDMA Read Message Size is 0
bool is_rtr(mpa::RtrKind kind, const wire::Chunks& ulpdu);
// Whether `ulpdu` is the RTR message of one of `kinds`.
bool is_rtr(const mpa::RtrKinds& kinds, const wire::Chunks& ulpdu);

// Posts the RTR message of `kind` on the initiator's stream, before any other
// work, so that it is the first FPDU sent (the zero-length Write names STag 0
// and the Read asks for zero octets from STag 0: RFC 6581 §9.2 gives the RTR
// no buffer). kNone posts nothing.
wire::Status post_rtr(Stream& stream, mpa::RtrKind kind, WorkRequestId id);

}  // namespace rdmaconf::rdmap
