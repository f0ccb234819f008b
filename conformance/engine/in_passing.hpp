// Rules the IUT breaks in passing: the capture observer (pcap/analysis/
// observer.hpp) watches every exchange of a live run, so a rule the IUT
// breaks is reported whatever the case was written for. A case that echoes
// a Send checks the echo's payload; the observer checks its PAD, CRC,
// Markers, DDP and RDMAP headers and sequence numbers as `rdmaconf analyze`
// would check them in a capture of the run (docs/conformance.md, "Rules
// checked in passing").
//
// The observer judges both sides; only what the IUT sent counts here (the
// tester breaks rules on purpose). Standard library, rdmaconf_codec and the
// observer only: deterministic, the same exchange gives the same answer.
#pragma once

#include <vector>

#include "engine/engine.hpp"
#include "engine/sctp_packets.hpp"

namespace rdmaconf::conformance {

// The rules the IUT broke in the case's exchange, one entry per rule and
// mistake (counted), in the order they were first broken. `role` is the
// IUT's (responder: the tester opened the connection).
std::vector<InPassing> judge_in_passing(const ExchangeRecord& exchange, Role role);
// The same over SCTP: the association's packets, put back together from the
// runner's record (sctp_packets.hpp), through the observer's SCTP rules and,
// above each DDP stream, its DDP and RDMAP rules. The offending octets are
// not cut out (DDP streams over SCTP have no one stream offset for them).
std::vector<InPassing> judge_in_passing(const SctpExchange& association, Role role);

// The verdict rules broken in passing give a case on their own: fail for a
// MUST, non-strict for a SHOULD (fail with `strict`), informational for a
// MAY; pass when the list is empty.
Verdict in_passing_verdict(const std::vector<InPassing>& broken, bool strict);

}  // namespace rdmaconf::conformance
