// `rdmaconf fuzz`: the stateful wire fuzzer of an implementation under test
// (docs/fuzzing.md, "Wire fuzzing").
//
// Each iteration takes a catalogue case (a seed), turns it into a fuzz case
// and mutates it (mutator.hpp), prints it as a script and runs that text
// through the conformance engine against the IUT. Two oracles judge it:
//
//   - the IUT stops answering: the fuzz case's last connection (a fresh TCP
//     connection and a valid MPA handshake; as initiator, a connection from
//     the IUT and its Request; a CLC Proposal answered) fails, or the next
//     case's first step finds it gone (charged to this case);
//   - the IUT breaks a rule of the reference on the wire: the capture
//     observer's rules, run over every exchange in passing (in_passing.hpp),
//     find something wrong in what the IUT sent (a malformed Terminate,
//     a bad CRC or Marker, a wrong MSN);
//   - with a view of the IUT's host (FuzzOptions::host_health, the device
//     agent): its kernel logged a crash, the device reported itself broken,
//     or the agent is gone (host_health.hpp).
//
// A finding is minimized (fewest messages, then fewest and smallest field
// changes that still make the same finding), merged with earlier ones of
// the same signature, and written as its case script and its capture. After
// the IUT stopped answering the fuzzer restores it (FuzzOptions::restore) or
// waits for it to come back (a supervisor, or the harness, restarts it)
// before it minimizes or goes on. A finding its one input does not make
// again is tried from the inputs run since the IUT was last restored, in
// order (sequence.hpp): its reproducer is then several scripts, run in turn.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/pcap_hook.hpp"
#include "wirefuzz/host_health.hpp"
#include "wirefuzz/mutator.hpp"

namespace rdmaconf::conformance::wirefuzz {

struct Finding {
  enum class Kind : std::uint8_t { kUnresponsive, kRuleBroken, kHostUnhealthy };
  Kind kind = Kind::kUnresponsive;
  // What merges findings: the oracle, the rule for a rule broken, and the
  // last step the tester sent in the minimized case (its unit and the
  // names of the fields it sets).
  std::string signature;
  std::string seed;          // the catalogue case it started from
  std::uint64_t iteration = 0;
  double seconds = 0;        // into the run when its iteration ran
  std::vector<std::string> mutations;
  std::string what;          // why the oracle fired, as the engine said it
  std::string rule;          // kRuleBroken: the registry id; kHostUnhealthy: the host problem's signature
  std::vector<std::string> host_log;  // kHostUnhealthy: the kernel's lines about it
  std::string script;        // the minimized case script of the input it is charged to
  std::string found_script;  // the case as the iteration ran it
  // The reproducer: its case scripts, run in this order on a restored IUT
  // (one: `script`). Several when one input alone did not make the finding
  // again and the inputs run since the IUT was last restored did (then
  // minimized: the fewest of them, each as small as it stays); or, when the
  // IUT could not be restored to try them (no FuzzOptions::restore, and it
  // did not come back), those inputs as they ran, not reproduced.
  std::vector<std::string> scripts;
  // The signature its last input alone gave, when the finding took several:
  // a later finding of that signature which one input alone does not make
  // again is counted as this one, its sequence not tried again.
  std::string alone_signature;
  int minimize_runs = 0;
  bool reproduced = false;   // the reproducer, run once more (on a restored IUT), found it again
  // Several scripts: the inputs run since the IUT was last restored were run
  // again, in order, on a restored IUT (and did not make it when not
  // `reproduced`: the finding takes more than those inputs, e.g. timing).
  bool sequence_tried = false;
  std::string folder;        // under FuzzOptions::out_dir, when written
  unsigned count = 1;        // iterations that found this signature
};
std::string_view to_string(Finding::Kind k);

struct FuzzProgress {
  std::uint64_t iterations = 0;
  std::uint64_t skipped = 0;  // inputs the IUT or the connection could not take (unimplemented, unbuildable)
  std::size_t findings = 0;
  std::size_t unresponsive = 0;
  std::size_t host = 0;  // findings of the host oracle (a kernel crash, a broken device, the agent gone)
  double seconds = 0;
};

struct FuzzOptions {
  // A connection to the IUT for shape.target: to it (the MPA responder, the
  // CLC server), or from it (the MPA initiator: accepted from it).
  Connector connect;
  std::vector<const Case*> seeds;
  std::uint64_t seed = 1;
  std::uint64_t iterations = 0;  // 0: run for `seconds`
  double seconds = 60;
  double time_scale = 1.0;
  FuzzShape shape{};
  std::vector<std::string> iut_lacks;
  // Who the tester's CLC peer says it is (engine/clc_identity.hpp): a real
  // SMC server declines a Proposal whose prefix, GID or EID does not fit its
  // network, and the fuzz case would end before what it mutates.
  ClcIdentity clc_identity;
  // Options of `rdmaconf run` a finding's script needs to run as it ran
  // here (" --clc-eid X ..."): its reproduce line names them.
  std::string run_options;
  // After the IUT stopped answering: how long to wait for it to answer a
  // probe again before the run ends.
  std::chrono::milliseconds revive{10000};
  int minimize_budget = 60;  // runs per finding (and as many again for a sequence of inputs)
  // Puts the IUT back as it was when the run began (the reference started
  // anew on its ports; a device by `--restore-command`: its driver
  // reloaded, its host rebooted); empty: the fuzzer cannot, and only waits
  // for an IUT that stopped answering to come back. Only a restored IUT runs
  // a sequence of inputs as it ran from the start: without it, a finding one
  // input does not make again is written with the inputs since the IUT
  // was last restored or came back, not reproduced. After it the IUT has
  // `revive` to answer. False (with why) when it could not restore: the
  // run ends there, with that reason.
  std::function<bool(std::string& why)> restore;
  // Inputs kept since the IUT was last restored or came back; 0: every one,
  // up to kHistoryCap (a failure such as siw's lost listener may take inputs
  // from far back: docs/fuzzing.md, "Findings that take several inputs").
  std::size_t history = 0;
  static constexpr std::size_t kHistoryCap = 4096;
  std::string out_dir;       // one folder per finding; empty: none written
  PcapWriter pcap;           // a finding's capture, into its folder
  // The host's health after each run of a case (nullopt: healthy). A
  // problem that lasts (a crashed kernel until the host boots again) is
  // reported again at every call; after one, the fuzzer waits, as for an IUT
  // that stopped answering, until the host is healthy and the IUT answers.
  std::function<std::optional<HostProblem>()> host_health;
  std::function<void(const FuzzProgress&)> on_progress;  // about once a second
  std::function<void(const Finding&)> on_finding;
  const std::atomic<bool>* cancel = nullptr;
};

struct FuzzSummary {
  FuzzTarget target = FuzzTarget::kMpaResponder;
  FuzzProgress progress;
  std::size_t seeds = 0;
  std::uint64_t seed = 0;
  double exchanges_per_second = 0;
  std::vector<Finding> findings;
  std::string stopped;  // why the run ended: "iterations", "time", "cancelled", "the IUT did not come back ..."
};

// The fuzz case of iteration `n` (seed choice and mutations), without
// running it: what `run_fuzz` runs, for tests of determinism.
struct Input {
  Case c;
  std::string seed_id;
  std::vector<Mutation> mutations;
};
std::optional<Input> make_input(const std::vector<Case>& fuzz_seeds, std::uint64_t seed, std::uint64_t n);

FuzzSummary run_fuzz(const FuzzOptions& o);

std::string summary_json(const FuzzSummary& s);
// One finding as an entry of the summary's findings (docs/schema/fuzz.schema.json).
std::string finding_json(const Finding& f);

}  // namespace rdmaconf::conformance::wirefuzz
