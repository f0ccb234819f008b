// Findings that take several inputs (docs/fuzzing.md, "Findings that take
// several inputs"): delta debugging over the inputs a target took since it
// was last restored, in their order, down to the fewest that still make the
// finding.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace rdmaconf::conformance::wirefuzz {

// What a run of a candidate came to: how many of its inputs, from its first,
// it took to make the finding again (0: it did not make it).
using SequenceRun = std::function<std::size_t(const std::vector<std::size_t>&)>;

// The fewest of the inputs 0 .. n-1 (kept in their order) whose run still
// makes the finding: Zeller's ddmin over the sequence, by its complements
// (each of two halves alone, then each of more parts left out, the parts
// twice as many when none helps), a candidate kept
// only when `reproduces` says so, cut after the input that made it. The whole
// sequence is taken to make the finding already. `budget` counts the runs
// left and is spent by each candidate; when it runs out the smallest
// sequence found so far is the answer.
std::vector<std::size_t> fewest_inputs(std::size_t n, const SequenceRun& reproduces, int& budget);

}  // namespace rdmaconf::conformance::wirefuzz
