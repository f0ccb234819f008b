// Before the first case (`rdmaconf run`): does the target speak the
// protocol its cases are written for? Against a port that does not (an HTTP
// server, a service on the wrong port) every case would wait out its bounds
// and the run would report hundreds of failures of a device that was never
// tested. One connection per target, as a responder-role case of the suite
// would make it:
//
//   - iWARP: a valid MPA Request (RFC 5044 §7.1.1, Rev 1, CRC asked for, no
//     private data, built by the reference codec); any MPA Reply answers it,
//     accepting or rejecting (§7.1.2 rule 2);
//   - SMC-R: a valid CLC Proposal from the tester's CLC client (the run's
//     CLC identity, clc_identity.hpp; RFC 7609 §3.5.1.2); any CLC message
//     answers it, an Accept or a Decline.
//
// The probe leaves the IUT as a case does: after an Accept, a Decline in
// lieu of the Confirm ends the CLC handshake and the connection falls back
// to TCP (RFC 7609 App. C.1), then the tester half-closes and reads what
// the IUT still sends before it closes (no RST). With an agent view the
// probe's connection is bracketed as a case's is, so the IUT's events about
// it are the probe's and never the first case's.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "engine/engine.hpp"

namespace rdmaconf::conformance {

enum class ProbeProtocol : std::uint8_t { kMpa, kClc };

struct ProbeResult {
  enum class Outcome : std::uint8_t {
    kSpeaks,       // an MPA Reply or a CLC message came back
    kUnreachable,  // no connection (refused, no route, no answer to the SYN)
    kDoesNotSpeak, // something else came back, or nothing, or a close
  };
  Outcome outcome = Outcome::kSpeaks;
  std::string target;  // the address connected to, "127.0.0.1:8080"
  // kSpeaks: what answered ("an accepting MPA Reply, Rev 1"); otherwise one
  // sentence saying what happened, naming the target and the RFC section.
  std::string text;
};

// How long the probe waits for the answer: 3 s times the run's time scale,
// never less than half a second.
std::chrono::milliseconds probe_wait(double time_scale);

// Probes the target `connect` reaches (the run's connector for the suite's
// responder-role cases). Uses o.time_scale, o.clc_identity, o.agent and
// o.agent_settle.
ProbeResult probe_target(ProbeProtocol protocol, const Connector& connect, const RunOptions& o);

}  // namespace rdmaconf::conformance
