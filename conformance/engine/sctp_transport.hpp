// The SCTP side of the sctp suite (docs/conformance.md, "The sctp suite"):
// the tester's end of one SCTP association to an IUT that runs DDP over
// SCTP (RFC 5043). The runner (runner_sctp.cpp) asks an SctpFactory for one
// per case, and through it sends DATA chunks whose every part the script
// chooses (stream, PPID, U flag, the adaptation layer's octets) and reads
// those the IUT sends, each with its stream, PPID and U flag, so that the
// adaptation layer's rules can be judged on what SCTP delivers.
//
// Against the reference IUT (`--reference`, the mutation proof, the tests)
// the association lives in this process (sctp_memory.cpp): the IUT is
// reference/sctp/'s Association with the test ULP's decisions, its INIT-ACK
// is a value, and the tester decides when SCTP acknowledges what the IUT
// sent (RFC 5043 §6.6, §10 read SCTP's acknowledgements).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/faults.hpp"

namespace rdmaconf::conformance {

// One SCTP DATA chunk's user data (a whole message) with what SCTP carries
// beside it.
struct SctpChunk {
  std::uint16_t stream = 0;
  std::uint32_t ppid = 0;
  bool unordered = true;
  std::vector<std::uint8_t> octets;
};

// What the tester's INIT asks for (RFC 4960 §3.3.2, RFC 5061 §4.2.5).
struct SctpInit {
  // The Adaptation Indication the tester announces; nullopt: none at all.
  std::optional<std::uint32_t> indication = 1;
  std::uint16_t streams = 16;  // outbound streams asked for, and inbound allowed
  // The tester's SCTP acknowledges what the IUT sent only when the script
  // says so (`> sctp.ack`); otherwise at once.
  bool hold_acks = false;
};

// What the IUT's INIT-ACK (or INIT, when it initiates) announced.
struct SctpPeerInit {
  std::optional<std::uint32_t> indication;
  std::uint16_t outbound_streams = 0;
  std::uint16_t inbound_streams = 0;
};

class SctpSide {
 public:
  virtual ~SctpSide() = default;
  // Sets the association up; false with `error` when it cannot.
  virtual bool associate(const SctpInit& init, std::string& error) = 0;
  virtual const SctpPeerInit& peer_init() const = 0;
  virtual bool send(const SctpChunk& chunk, std::string& error) = 0;
  // The IUT's next chunk, or nullopt when none came before `deadline` or
  // the association is gone (closed()).
  virtual std::optional<SctpChunk> receive(std::chrono::steady_clock::time_point deadline) = 0;
  // The tester's SCTP acknowledges every chunk the IUT sent so far.
  virtual void acknowledge() = 0;
  // True when the IUT lives in this process: a quiet side is a final answer.
  virtual bool in_process() const = 0;
  // The association ended (ABORT or SHUTDOWN from the IUT).
  virtual bool closed() const = 0;
  // The association's SCTP ports, the tester's and the IUT's, once it is
  // up (what a case's capture shows); {0, 0} where none exist (in memory).
  virtual std::pair<std::uint16_t, std::uint16_t> ports() const { return {0, 0}; }
};

// What a case asks of the IUT's end of its association.
struct SctpCaseSetup {
  // The IUT's role: the passive side (the tester initiates sessions) or
  // the active side.
  bool iut_active = false;
  // The ddp and rdmap suites over SCTP (RunOptions::llp): the IUT runs DDP
  // and RDMAP with the test ULP above each session it accepts, and its
  // Accept carries the test ULP's advertisement. Otherwise (the sctp suite)
  // DDP segments stay with the adaptation layer, which the suite judges alone.
  bool ddp = false;
};
using SctpFactory = std::function<std::unique_ptr<SctpSide>(const SctpCaseSetup& setup, std::string& error)>;

// The tester's SctpSide against the reference IUT, broken by `faults`: the
// SCTP faults act at the association's seams, and with `ddp` the DDP and
// RDMAP faults act in the stream above each session as over MPA.
SctpFactory memory_sctp_factory(FaultSet faults);

// The reference IUT's test ULP over SCTP (docs/conformance.md): an Initiate
// whose private data begins with one of these is rejected, or left waiting
// for a decision, instead of being accepted with its private data echoed.
inline constexpr std::string_view kSctpUlpReject = "RDMACONF-REJECT";
inline constexpr std::string_view kSctpUlpHold = "RDMACONF-HOLD";

}  // namespace rdmaconf::conformance
