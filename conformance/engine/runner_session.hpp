// Internal to the runner (runner.cpp, runner_match.cpp, runner_case.cpp,
// runner_session.cpp, runner_build.cpp): the tester's side of one case's TCP connection.
//
// A Session owns the socket and what the tester knows of the exchange so far:
// the phase (MPA startup, RFC 5044 §7.1; full operation, §5-§6; CLC, RFC 7609
// App. A), the octets received but not yet cut into units, the framer and
// deframer agreed at startup, the next MSN per queue, the CLC machines that
// build valid messages for the tester. take_unit() cuts what the IUT sent into
// Received units (an MPA Request/Reply, an FPDU's DDP segment, a CLC message),
// each decoded through the declarations of reference/. build() makes the unit
// a `>` step names (runner_build.cpp); runner_match.cpp matches units against
// the script and runner.cpp runs the steps.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "clc/handshake.hpp"
#include "clc/messages.hpp"
#include "engine/engine.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "mpa/marker_layout.hpp"
#include "engine/units.hpp"

namespace rdmaconf::conformance::runner {

struct SmcrPhase;  // runner_smcr.cpp
struct SctpPhase;  // runner_sctp.cpp

using Clock = std::chrono::steady_clock;

// Octets as hex, at most `max` of them.
std::string hex(wire::Bytes b, std::size_t max = 32);
// One line per block, every field by its declaration, then the payload.
std::string describe_blocks(const std::vector<Block>& blocks, const std::vector<std::uint8_t>& octets,
                            std::size_t header_size);
// The blocks of a decoded CLC message (its header, the type-bits overlay,
// the bodies present, the trailer), each pointing into `m`.
std::vector<Block> clc_blocks(clc::Message& m);

// One unit the IUT sent, decoded.
struct Received {
  enum class Kind : std::uint8_t { kMpa, kFpdu, kClc, kMalformed } kind = Kind::kMalformed;
  std::string name;  // "mpa.reply", "send", "clc.decline", ...
  std::vector<std::uint8_t> octets;  // the unit (ULPDU for an FPDU)
  Segment segment;                   // FPDU: DDP/RDMAP blocks
  bool mpa_enhanced = false;
  std::optional<clc::Message> clc;
  std::size_t payload_at = 0;
  bool crc_ok = true;
  bool markers_ok = true;
  std::string problem;  // kMalformed, or a framing violation
  std::map<std::string, std::uint64_t, std::less<>> pseudo;
  // Where the unit lies in the IUT's stream (octets from its first), so
  // findings can tie it to a rule the observer saw it break (in_passing.hpp).
  std::uint64_t stream_offset = 0;
  std::size_t stream_length = 0;

  // Blocks point into this object's octets: rebuilt on use, since a
  // Received is moved around after decoding.
  std::vector<Block> all_blocks();
  wire::Bytes payload() const {
    const auto& o = kind == Kind::kFpdu ? segment.octets : octets;
    return wire::Bytes(o).subspan(std::min(payload_at, o.size()));
  }
};

enum class Phase : std::uint8_t { kMpaSetup, kFull, kClc, kDead };

// One DDP segment the IUT sent (RFC 5041, its RDMAP header inside), decoded
// and recorded the same whichever lower layer carried it: an FPDU's ULPDU,
// or a DDP Segment Chunk's segment (RFC 5043 §5.2.2).
Received ddp_unit(std::vector<std::uint8_t> segment);

struct Session {
  const Case& c;
  const RunOptions& o;
  CaseResult& result;
  int fd = -1;
  Clock::time_point start = Clock::now();
  Phase phase = Phase::kMpaSetup;
  std::vector<std::uint8_t> rx;
  std::uint64_t rx_taken = 0;  // octets of the IUT's stream cut into units so far (rx starts there)
  bool eof = false, reset = false;
  // The case says `after_close: skip` and the IUT closed this connection:
  // its remaining steps are skipped (run_step).
  bool skipping = false;
  // The connection the case's last `connection` step goes to: no later
  // connection goes on after it, so `after_close: skip` does not skip its
  // steps, and a close there fails the step it interrupts (a wire fuzz
  // case's liveness check asks whether the IUT still answers).
  bool last_connection = false;
  bool skips_after_close() const { return c.skip_after_close && !last_connection; }
  Variables vars;
  Captures captures;  // `field=@name` values the IUT sent earlier in this case

  // MPA state
  std::vector<std::uint8_t> sent_frame;  // the tester's Request/Reply, as sent
  std::vector<std::uint8_t> held;        // units sent with `more`, waiting for the next one
  // RunOptions::reply_settle: the next send waits until then.
  std::optional<Clock::time_point> settle_until;
  std::optional<mpa::Framer> framer;
  std::unique_ptr<mpa::Deframer> deframer;
  std::uint32_t next_msn[4] = {1, 1, 1, 1};
  // CLC state: the reference machines build valid messages for the tester.
  std::unique_ptr<clc::ClientHandshake> clc_client;
  std::unique_ptr<clc::ServerHandshake> clc_server;
  std::vector<std::uint8_t> last_clc_received;
  ClcResolved identity;  // the tester's CLC identity on this connection
  std::optional<clc::Outcome> clc_outcome;  // the tester's CLC machine's, once the exchange is over
  // The smcr suite: the tester's SMC-R side, from its Proposal on (runner_smcr.hpp).
  std::shared_ptr<SmcrPhase> smcr;
  // The smcr suite's connection N > 1: connection 1's SMC-R side, whose
  // link group this connection's CLC reuses (§3.5.2), and which of that
  // group's connections this one is (0: connection 1's own).
  std::shared_ptr<SmcrPhase> smcr_reuse;
  std::size_t smcr_connection = 0;
  // The sctp suite: the tester's SCTP association instead of the TCP connection (runner_sctp.hpp).
  std::shared_ptr<SctpPhase> sctp;
  // The ddp and rdmap suites over SCTP (RunOptions::llp): `sctp` carries
  // one DDP Stream Session instead of MPA over TCP (runner_sctp.hpp).
  bool ddp_over_sctp = false;

  // The tester's last unit, with the fields the script set on it: what
  // provoked what the IUT does next (a Failure's stimulus, engine.hpp).
  struct Sent {
    std::string unit;
    std::vector<std::string> fields;
    std::vector<std::uint8_t> octets;
  } last_sent;
  void sent(const Step& st, wire::Bytes octets);

  Session(const Case& cc, const RunOptions& oo, CaseResult& r) : c(cc), o(oo), result(r) {}

  // The IUT's Request (role initiator): the first frame it sent, once whole.
  std::optional<std::vector<std::uint8_t>> iut_request() const;

  double now_ms() const { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }
  Duration scaled(Duration d) const {
    return Duration(static_cast<Duration::rep>(static_cast<double>(d.count()) * o.time_scale + 0.5));
  }
  // A `wait` step's time: scaled unless it stands for the IUT's own timer.
  Duration waited(const Step& st) const { return st.unscaled ? st.duration : scaled(st.duration); }

  void record(bool from_tester, std::string headline, std::string detail) {
    result.frames.push_back({from_tester, now_ms(), std::move(headline), std::move(detail)});
  }

  bool send_octets(wire::Bytes b);
  // Reads what is available until `deadline`; false on timeout.
  bool read_more(Clock::time_point deadline);

  enum class EventKind : std::uint8_t { kUnit, kClosed, kTimeout };
  struct Event {
    EventKind kind = EventKind::kTimeout;
    Received unit;
  };
  // The next unit, the IUT's close, or nothing before `deadline`.
  Event next_event(Clock::time_point deadline);

  // Full operation from the frames both sides sent (RFC 5044 §7.1.2: CRC if
  // either asked, Markers towards whoever asked for them).
  void enter_full_operation(wire::Bytes request, wire::Bytes reply);

 private:
  // Tries to take one complete unit from rx, as the phase reads it.
  std::optional<Received> take_unit();
  std::optional<Received> take_mpa_frame();    // RFC 5044 §7.1: a Request or Reply
  std::optional<Received> take_clc_message();  // RFC 7609 App. A
  std::optional<Received> take_fpdu();         // RFC 5044 §4-§6, DDP/RDMAP inside
  // What rx holds is not a unit of this phase: nothing more is read from it.
  Received give_up(std::string problem, std::string headline, std::string detail);
};

// ---- running the steps (runner.cpp; a mismatch and expected_text: runner_match.cpp)

// What one step came to.
struct StepOutcome {
  enum class Kind : std::uint8_t { kOk, kMismatch, kUnimplemented, kError } kind = Kind::kOk;
  std::string reason;
  bool ends_case = false;  // an alternative marked `ends_case` matched: the case passed
  // kMismatch: its parts, for findings (run_case adds the line, the step
  // and what the tester sent before it).
  Failure failure{};
};

// A mismatch that no unit explains: the IUT closed, nothing came, ...
StepOutcome mismatch(Failure::Kind kind, std::string reason, std::string got);
// A step's alternatives as findings name them ("terminate layer=ddp etype=1
// | close"); `as_class`: with only what tells kinds of answers apart.
std::string expected_text(const Step& st, bool as_class = false);
// Runs one step that acts on the connection `s` (a handshake, a send, an
// expectation, a wait) and says how it went.
StepOutcome run_step(Session& s, const Step& st);

// ---- building the tester's units (runner_build.cpp)

struct Built {
  std::vector<std::uint8_t> octets;
  std::string headline;
  std::string detail;
  // An FPDU: where its own octets lie among the Markers it was framed with.
  std::optional<mpa::MarkerLayout> layout;
  // `split=N`: the first TCP send ends here (octets as sent), the rest
  // follows `pause` later (docs/conformance.md, "Units the tester sends").
  std::optional<std::size_t> split_at;
  Duration pause{30};
  // `more`: held back to go out in one TCP send with the next unit.
  bool more = false;
};

// The unit a `>` step names, shaped by its arguments; or why it cannot be built.
std::variant<Built, std::string> build(Session& s, const Step& st);

const Arg* find_arg(const std::vector<Arg>& args, std::string_view name);
std::variant<std::uint64_t, std::string> number_arg(Session& s, const Arg& a);

}  // namespace rdmaconf::conformance::runner
