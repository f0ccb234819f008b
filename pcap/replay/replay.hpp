// Replaying one side of a recorded connection against a live implementation
// (`rdmaconf replay CAPTURE --target HOST:PORT [--side client|server]`), and a
// recording relay that puts a capture under any live exchange.
//
// Replay: the recorded connection is cut into messages by the observer; the
// replayer plays its side's octets over a fresh TCP connection exactly as
// recorded (same FPDUs, same Markers and CRCs), and after each of its
// messages waits for the live peer's next message, decoded by a second
// observer, and compares it with the recorded one: message type, then every
// field decode prints, except those that legitimately differ between runs
// (STags, TOs, private data length by default; configurable).
//
// Sockets: Boost.Asio on the caller's thread, one connection, explicit timeouts.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/observer.hpp"
#include "analysis/recording.hpp"

namespace rdmaconf::replay {

using analysis::Side;

struct ReplayOptions {
  std::string capture;
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  // The recorded side we play: kInitiator connects to host:port; kResponder
  // listens on host:port and waits for the live initiator.
  Side side = Side::kInitiator;
  std::uint64_t connection = 0;  // which connection of the capture (0: the first MPA or CLC one)
  std::set<std::string> ignore_fields = {"stag", "to", "sink_stag", "source_stag", "pd_length"};
  std::chrono::milliseconds answer_timeout{3000};
  // Wait this long after each live answer before sending our next message. Recorded peers were
  // never as quick as a replayer, and some implementations lose a message that arrives right
  // after their own (Linux siw misses an FPDU that comes in while it hands the socket from its
  // connection manager to the QP, just after sending the MPA Reply: docs/interop.md).
  std::chrono::milliseconds pace{0};
};

struct Difference {
  std::size_t index = 0;   // the peer's message number (0-based)
  std::string field;       // "type", a field name, or "message" (missing/extra)
  std::string recorded;
  std::string live;
};

struct ReplayResult {
  bool setup_ok = false;
  std::string error;
  std::size_t sent_messages = 0;
  std::size_t expected_messages = 0;  // the recorded peer's messages
  std::size_t matched_messages = 0;
  std::vector<Difference> differences;
  std::vector<std::string> live_violations;  // what the observer saw the live peer break
  bool ok() const { return setup_ok && differences.empty(); }
};

ReplayResult replay(const ReplayOptions& options);

// A TCP relay on 127.0.0.1 that forwards one connection to `target` and
// records both directions into a capture (synthesized framing), e.g. for
// recording a live exchange between two real endpoints.
class RecordingRelay {
 public:
  RecordingRelay(const std::string& target_host, std::uint16_t target_port, const std::string& capture_path,
                 analysis::RecordingOptions options = {});
  ~RecordingRelay();  // stops, closes the capture
  std::uint16_t port() const;  // where to connect
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rdmaconf::replay
