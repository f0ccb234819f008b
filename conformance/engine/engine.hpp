// The conformance engine: loads the catalogue, runs cases (one fresh TCP
// connection each, independent cases in parallel, per-case timeout), grades
// them like Autobahn|Testsuite and hands the results to the reports.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/agent_view.hpp"
#include "engine/capture_case.hpp"
#include "engine/clc_identity.hpp"
#include "engine/script.hpp"
#include "engine/sctp_packets.hpp"
#include "engine/sctp_transport.hpp"
#include "engine/smcr_transport.hpp"

namespace rdmaconf::conformance {

enum class Verdict : std::uint8_t { kPass, kNonStrict, kInformational, kUnimplemented, kFail, kError };
std::string_view to_string(Verdict v);
std::optional<Verdict> parse_verdict(std::string_view s);
// How bad a verdict is for the IUT: pass and unimplemented 0, informational
// 1, non-strict 2, fail 3; error (the tester's trouble) 4.
int severity(Verdict v);

// One thing that crossed the wire during a case, decoded for the report.
struct FrameRecord {
  bool from_tester = true;
  double at_ms = 0;        // since the case's connection was established
  std::string headline;    // "--> MPA Request, Rev 1, 20 octets"
  std::string detail;      // one line per header, every field by its declaration
};

// The raw TCP payload of the case, both directions in order: what a capture
// writer (pcap/'s TcpRecorder) needs to synthesize the connection.
struct StreamChunk {
  bool from_tester = true;
  double at_ms = 0;
  std::vector<std::uint8_t> octets;
};
struct ExchangeRecord {
  std::string tester_address;  // "127.0.0.1:40112"
  std::string iut_address;
  std::vector<StreamChunk> chunks;
  bool closed_by_iut = false;
  bool reset_by_iut = false;
  // A connection over SCTP (the sctp suite, --transport sctp): its
  // association as recorded (sctp_packets.hpp) instead of `chunks`; the
  // rules checked in passing and the capture writer read its packets.
  std::optional<SctpExchange> sctp{};
};

// Why a case's own steps did not pass, as the run recorded it: the step,
// what it expected, what came instead, and what the tester had sent just
// before. Findings (conformance/report/findings.hpp) group cases by it, so it holds
// what a reader needs to tell two causes apart, in fields, not prose.
struct Failure {
  enum class Kind : std::uint8_t {
    kField,      // the expected unit came with a field that did not match
    kUnit,       // another unit came
    kClosed,     // the IUT closed (FIN) or reset the connection
    kNothing,    // nothing came within the step's bound
    kFraming,    // an FPDU with a wrong CRC or Marker (RFC 5044 §4.3, §4.4)
    kMalformed,  // octets that are no unit of the phase
    kAgent,      // the IUT's own report (agent.*) did not match
    kHandshake,  // the MPA handshake a `handshake` step asks for failed
    kOther,
  };
  Kind kind = Kind::kOther;
  int line = 0;              // the script line
  std::string step;          // the step as written
  std::string expected;      // its alternatives: "terminate layer=ddp etype=1 | close"
  // The same with only what tells kinds of answers apart: codes and flags
  // kept, payloads, lengths and values learnt during the run reduced to the
  // field's name ("send payload" for "send payload=200").
  std::string expected_class;
  std::string got;           // what came: a unit's name, "close", "reset", "nothing", "malformed"
  std::string field;         // kField: the field that differed
  std::string want, have;    // kField: the value it should have had, the value it had
  std::vector<std::uint8_t> received;  // the unit that came (MPA frame, ULPDU, CLC message)
  std::uint64_t received_offset = 0;   // where it lies in the IUT's stream (octets from the first)
  std::size_t received_length = 0;     // its octets there (0: no unit came)
  // A known encoding mistake that explains the octets (wire/hint.hpp) and
  // the rule it breaks; `explained` when the step matches the octets read
  // the way the mistake says (then the mistake is the whole cause), and
  // `meant` what they say read that way.
  std::string mistake, hint, mistake_rule, meant;
  bool explained = false;
  // What provoked it: the tester's last unit before the step, the fields
  // the script set on it (sorted), and its octets.
  std::string stimulus;
  std::vector<std::string> stimulus_fields;
  std::vector<std::uint8_t> stimulus_octets;
};
std::string_view to_string(Failure::Kind k);
std::optional<Failure::Kind> parse_failure_kind(std::string_view s);

// A rule the IUT broke on the wire during a case, whatever the case was
// written for: the capture observer's rules (pcap/analysis/) run over every
// exchange of a live run (in_passing.hpp).
struct InPassing {
  std::string rule;      // registry id
  std::string level;     // "MUST", "SHOULD", "MAY"
  std::string section;   // "RFC 5044 §4.1"
  std::string summary;   // the rule in our words
  std::string text;      // what was seen (the first time)
  std::string mistake, hint;  // a known encoding mistake that explains it
  std::uint32_t count = 1;    // messages of the case that broke it
  std::uint64_t stream_offset = 0;     // in the IUT's stream, of the first one
  std::vector<std::uint64_t> offsets;  // of each (at most 64), for findings to tie a failed step to it
  std::vector<std::uint8_t> octets;    // the first offending message (at most 256 octets)
};

// The MPA settings one pass of a run asks for (`rdmaconf run --agent-config`,
// docs/agent.md): the IUT is set to ask for them, and the tester's own
// Request or Reply asks for the same unless the case's step says otherwise.
// nullopt: not set by the pass (the tester asks for CRC and no Markers, in
// Rev 1 unless the case asks for Rev 2).
struct MpaSettings {
  std::optional<int> revision{};
  std::optional<bool> crc{};
  std::optional<bool> markers{};
  std::optional<bool> peer_to_peer{};
};

// What the tester and the IUT settled on the case's connection when it
// entered full operation (RFC 5044 §7.1.2: CRC when either frame set C,
// Markers towards each side that set M; RFC 6581 §9.2: the peer-to-peer
// model when the Reply echoes A). Directions are named by the receiver.
struct Negotiated {
  int revision = 1;                 // the Reply's
  bool crc = false;
  bool markers_to_iut = false;      // the IUT asked for Markers: the tester sends them
  bool markers_to_tester = false;   // the tester asked: the IUT sends them
  bool peer_to_peer = false;
  // "rev1 crc=on markers=to-iut p2p=off" (markers: off, to-iut, to-tester, both)
  std::string to_string() const;
  // The settings `pass` names that this connection did not have, in the
  // same words ("crc=on"); empty when the pass's label is true of it.
  std::string contradicts(const MpaSettings& pass) const;
};

struct CaseResult {
  const Case* c = nullptr;
  Verdict verdict = Verdict::kPass;
  // The verdict of the case's own steps, before rules broken in passing
  // raised it (the mutation proof asks whether the case's steps catch a
  // fault; reports show `verdict`).
  Verdict script_verdict = Verdict::kPass;
  std::optional<Failure> failure{};   // the step that did not match, when one did not
  std::vector<InPassing> in_passing{};
  std::string reason;      // why, for anything but pass
  int failed_line = 0;     // the script line that did not match
  double duration_ms = 0;
  std::vector<FrameRecord> frames;
  ExchangeRecord exchange;
  // A case with `connection N` steps: its other connections, 2 and up
  // (`exchange` is the first). Judged in passing like the first.
  std::vector<ExchangeRecord> other_connections{};
  // What the IUT reported locally for this connection (agent_view.hpp),
  // at_ms relative to the case's connection; empty without an agent view.
  std::vector<AgentEvent> agent{};
  std::string configuration{};  // the pass it ran in ("crc=on"), empty for a single pass
  // What was in effect on the case's connection; empty when it never
  // reached MPA full operation (CLC cases, refused Requests).
  std::optional<Negotiated> negotiated{};
};

// How the engine gets a connection to the IUT for a case. Returns a
// connected socket, or -1 with `error` set.
using Connector = std::function<int(const Case& c, std::string& error)>;

// Suites that start with the CLC handshake (RFC 7609): clc, and smcr, which
// goes on over RoCE once it reached SMC-R.
inline bool uses_clc(std::string_view protocol) { return protocol == "clc" || protocol == "smcr"; }

struct RunOptions {
  Connector connect_responder;  // role responder (iWARP suites)
  Connector connect_clc;        // role responder, clc suite (defaults to connect_responder)
  Connector accept_initiator;   // role initiator
  bool initiator_parallel = false;  // accept_initiator can serve cases in parallel
  unsigned jobs = 8;
  double time_scale = 1.0;
  bool strict = false;
  // What the IUT lacks (`needs` items, docs/conformance.md): a case that
  // needs one is reported unimplemented without a connection. "buffer"
  // stands for every buffer:NAME.
  std::vector<std::string> iut_lacks;
  // Who the tester's CLC peer says it is (clc_identity.hpp): what must match
  // the IUT's network and configuration.
  ClcIdentity clc_identity;
  // The smcr suite's RoCE side per connection (smcr_transport.hpp): the
  // reference's in-memory fabric, or a RoCEv2 device; unset, the suite is skipped.
  RoceFactory roce;
  // The tester reset the TCP connection of an smcr case (`> reset`): an IUT
  // in this process is given the time to see it before the next step (the
  // reference: memory_tcp_reset_sent); a device sees it on its own. Unset: nothing.
  std::function<void(const RoceEndpoints&)> tcp_reset_sent;
  // The SMC-R version the smcr suite runs over (1 or 2): each case's
  // Proposal offers that one whatever its script offers, and the case needs
  // smcr-v1 or smcr-v2 accordingly. 0: as the scripts say. For an IUT with
  // one version only (Linux over soft-RoCE has no RoCE v1 GID: version 2).
  std::uint8_t smcr_version = 0;
  // The tester's RoCE side has one port (a device without a second one):
  // the smcr cases that name link 2 or higher are not run (smcr_links_named).
  bool roce_one_port = false;
  // The sctp suite's SCTP side per case (sctp_transport.hpp): the
  // reference's association in memory; unset, the suite is skipped.
  SctpFactory sctp;
  // The lower layer the ddp and rdmap suites run over: MPA over TCP, or
  // RFC 5043's adaptation layer on an association from `sctp` (one DDP
  // Stream Session per connection, the handshake its Initiate and Accept;
  // docs/sctp-ddp.md). Over SCTP a case whose meaning rests on MPA or TCP
  // (mpa_bound, needs.hpp) is unimplemented with the reason.
  enum class Llp : std::uint8_t { kMpa, kSctp } llp = Llp::kMpa;
  // The IUT's own view (a device agent, or the reference IUT in process):
  // `agent.*` expectations read it, reports show it beside the exchange.
  // Without it, cases that need `agent` are unimplemented.
  AgentView* agent = nullptr;
  Duration agent_settle{500};  // at a case's end, how long to wait for the IUT to report the close
  // Role responder: how long the tester waits after the IUT's accepting
  // Reply before it sends anything (unscaled). RFC 5044 §7.1.2 lets the
  // initiator send its first FPDU at once, so 0 (the default) is what the
  // cases are written for; a longer settle lets them get past an IUT that
  // misses data arriving right after its Reply (docs/interop.md: Linux siw).
  // `handshake at_once` ignores it: that case tests the race itself.
  Duration reply_settle{0};
  std::string configuration{};  // copied into every CaseResult
  // Run the capture observer's rules over every case's exchange
  // (in_passing.hpp): a rule the IUT breaks fails the case at its level.
  bool judge_in_passing = true;
  MpaSettings pass{};           // what this pass set the IUT to ask for (empty outside --agent passes)
  std::function<void(const CaseResult&)> on_result;  // progress, captures
  // Set (by another thread) to stop a run: cases not yet started are not
  // run and not in run_cases()' results; cases under way finish.
  const std::atomic<bool>* cancel = nullptr;
};

struct Catalogue {
  std::vector<Case> cases;
  // The capture cases (*.capture, capture_case.hpp): counted as cases of
  // their rows, never run (their proof is pcap/tests/capture_cases_test.cpp).
  std::vector<CaptureCase> capture_cases;
  std::vector<SyntaxError> errors;
  std::string sha256;  // the scripts' digest (load_catalogue): reports name the catalogue by it
};

// Loads every *.case under dir/<protocol>/ (sorted by path), and the
// capture cases under it.
Catalogue load_catalogue(const std::string& dir);

// Adds the cases of one script file given on its own (`run --case-file`, a
// case from a bug report): its suite is the first word of each id (mpa,
// ddp, rdmap, clc), and a case whose id the catalogue has replaces it. False
// with `error` naming the file and what is wrong; the ids added go to `ids`.
bool add_case_file(Catalogue& cat, const std::string& path, std::vector<std::string>& ids, std::string& error);

// Checks that every unit, field and value of the case resolves against the
// declarations (without a connection). Empty when fine.
std::vector<std::string> check_case(const Case& c);

// Runs one case.
CaseResult run_case(const Case& c, const RunOptions& options);

// Runs the cases (parallel where options allow); results in input order
// (without the cases a cancel left out).
std::vector<CaseResult> run_cases(const std::vector<const Case*>& cases, const RunOptions& options);

// Selection: --suite (protocol folders) and --case (ids, or prefixes ending in '*').
std::vector<const Case*> select(const Catalogue& cat, const std::vector<std::string>& suites,
                                const std::vector<std::string>& ids);

struct Summary {
  std::map<Verdict, int> counts;
  int total = 0;
  int exit_code() const;  // 1 if any fail, else 2 if any error, else 0
};
Summary summarize(const std::vector<CaseResult>& results);

// The catalogue when no --cases-dir is given: $RDMACONF_CASES, else beside the
// executable (catalogue_location.hpp). Empty when none is found; then
// load_catalogue("") reports where it looked.
std::string default_cases_dir();

// Connectors for the CLI.
Connector tcp_connector(std::string host, std::uint16_t port, std::chrono::milliseconds timeout);
// A listener shared by initiator-role cases (serialised). Returns -1 fd in
// `listener` when binding failed (error set).
struct Listener {
  int fd = -1;
  std::string address;
  ~Listener();
};
bool listen_on(const std::string& host, std::uint16_t port, Listener& l, std::string& error);
Connector accept_connector(const Listener& l, std::chrono::milliseconds timeout);
bool split_host_port(const std::string& s, std::string& host, std::uint16_t& port);

}  // namespace rdmaconf::conformance
