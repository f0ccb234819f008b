// One fuzz input made as small as its finding stays (docs/fuzzing.md,
// "Wire fuzzing"): delta debugging over the steps and fields of a case
// script, apart from the run that judges each candidate (fuzzer.cpp runs
// them against the IUT; sequence.hpp does the same over several inputs).
#pragma once

#include <functional>

#include "engine/engine.hpp"

namespace rdmaconf::conformance::wirefuzz {

// Fewest messages first, then fewest field changes, then smaller numbers
// (zero, a field's lower edge, first, else halving; offsets from advertised
// values towards zero), each candidate kept only when `keeps` runs it and
// says the finding stays, until a pass changes nothing or `budget_left`
// says no more runs. Only the steps before the liveness check change
// (mutator.hpp, liveness_step): it is what a finding is judged by.
Case minimize(Case cur, const std::function<bool(const Case&)>& keeps, const std::function<bool()>& budget_left);

}  // namespace rdmaconf::conformance::wirefuzz
