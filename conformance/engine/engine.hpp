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

#include "agent_view.hpp"
#include "clc_identity.hpp"
#include "script.hpp"

namespace rdmaconf::conformance {

enum class Verdict : std::uint8_t { kPass, kNonStrict, kInformational, kUnimplemented, kFail, kError };
std::string_view to_string(Verdict v);

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
};

struct CaseResult {
  const Case* c = nullptr;
  Verdict verdict = Verdict::kPass;
  std::string reason;      // why, for anything but pass
  int failed_line = 0;     // the script line that did not match
  double duration_ms = 0;
  std::vector<FrameRecord> frames;
  ExchangeRecord exchange;
  // What the IUT reported locally for this connection (agent_view.hpp),
  // at_ms relative to the case's connection; empty without an agent view.
  std::vector<AgentEvent> agent{};
  std::string configuration{};  // the pass it ran in ("crc=on"), empty for a single pass
};

// How the engine gets a connection to the IUT for a case. Returns a
// connected socket, or -1 with `error` set.
using Connector = std::function<int(const Case& c, std::string& error)>;

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
  std::function<void(const CaseResult&)> on_result;  // progress, captures
  // Set (by another thread) to stop a run: cases not yet started are not
  // run and not in run_cases()' results; cases under way finish.
  const std::atomic<bool>* cancel = nullptr;
};

struct Catalogue {
  std::vector<Case> cases;
  std::vector<SyntaxError> errors;
};

// Loads every *.case under dir/<protocol>/ (sorted by path).
Catalogue load_catalogue(const std::string& dir);

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
