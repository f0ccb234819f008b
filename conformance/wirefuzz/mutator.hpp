// The wire fuzzer's inputs: a catalogue case turned into a fuzz case, and
// mutations of its messages and fields, each written in the script language
// (docs/fuzzing.md, "Wire fuzzing").
//
// A fuzz case is a seed case whose expectations became `< anything` (it
// reads what the IUT sends and judges it only in passing), with
// `after_close: skip` (the IUT closing after the handshake ends that
// connection's steps) and a last connection whose handshake asks whether the
// IUT still answers (a close there is not skipped: it fails that check). Mutations act on the `>` steps: drop, duplicate or swap
// messages, split them over TCP sends, set a declared field to a value at or
// across its range, make ULPDU_Length, PAD or the octets sent lie, or make
// the CRC wrong on purpose; everything else (CRC, PAD, Markers, MSNs)
// stays computed by the reference framer, as negotiated. Everything here is
// a pure function of its seed numbers, so an iteration is reproducible from
// the run's seed and its number alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/script.hpp"

namespace rdmaconf::conformance::wirefuzz {

// splitmix64: the same numbers on every platform and standard library
// (std::uniform_int_distribution is not), so a seed reproduces everywhere.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  // Uniform in [0, n); 0 when n is 0.
  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : next() % n; }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

// The generator of iteration `n` of a run seeded with `seed`.
Rng iteration_rng(std::uint64_t seed, std::uint64_t n);

// What a run fuzzes, and so which catalogue cases are its seeds and how a
// fuzz case asks whether the IUT still answers (docs/fuzzing.md).
enum class FuzzTarget : std::uint8_t {
  kMpaResponder,  // the IUT listens for MPA (responder-role iWARP cases); liveness: a handshake
  kMpaInitiator,  // the IUT connects to the tester (initiator-role iWARP cases); liveness: it connects
                  // again and its first octets are an MPA Request (RFC 5044 §7.1.2)
  kClcServer,     // the IUT's SMC CLC server (responder-role clc cases); liveness: a Proposal is
                  // answered with an Accept or a Decline (RFC 7609 §3.5.1)
};
std::string_view to_string(FuzzTarget t);

// How a fuzz case reads the IUT: each `< anything` waits this long.
struct FuzzShape {
  Duration settle{40};
  FuzzTarget target = FuzzTarget::kMpaResponder;
};

// The fuzz case of a seed (the cases of shape.target: responder-role or
// initiator-role iWARP cases of mpa, ddp, rdmap, or responder-role clc
// cases), or nullopt when the seed cannot be one (another role or suite,
// four connections already, nothing to send, or what the IUT reports
// locally being its point).
std::optional<Case> fuzz_case(const Case& seed, const FuzzShape& shape);

// One mutation, as the step it changed says it (for the summary).
struct Mutation {
  std::string what;  // "drop step 3", "set ulpdu_length=0 on step 2 (> send ...)"
};

// Applies `count` random mutations to a fuzz case (its `>` steps); the
// mutations made, in order. A case without a step to mutate stays as it is.
std::vector<Mutation> mutate(Case& c, Rng& rng, int count);

// The steps that send (`>`), by index into c.steps.
std::vector<std::size_t> send_steps(const Case& c);
// The index of the step that begins the liveness check (the last
// `connection`), or c.steps.size() when there is none.
std::size_t liveness_step(const Case& c);

}  // namespace rdmaconf::conformance::wirefuzz
