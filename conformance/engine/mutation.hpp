// The mutation proof (`rdmaconf mutation`): the catalogue against the clean
// reference IUT (every case must pass) and against each named fault (every
// fault must be caught by a case; every case must catch a fault, or say in
// its `uncaught:` header why no fault of the reference can make it fail).
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "engine/faults.hpp"

namespace rdmaconf::conformance {

struct MutationResult {
  std::vector<CaseResult> clean;
  struct FaultRow {
    const FaultInfo* fault = nullptr;
    std::vector<const Case*> caught_by;
    double wall_ms = 0;
  };
  std::vector<FaultRow> faults;
  std::vector<const Case*> clean_failures;    // cases that did not pass against the clean IUT
  std::vector<const Case*> catching_nothing;  // without an `uncaught:` reason
  std::vector<const Case*> declared_uncaught; // with one
  std::vector<const Case*> stale_uncaught;    // say no fault catches them, yet one does
  double wall_ms = 0;
  bool ok() const;
};

// Starts one reference IUT per configuration on loopback and runs `cases`.
MutationResult run_mutation(const std::vector<const Case*>& cases, RunOptions base,
                            const std::vector<const FaultInfo*>& faults,
                            std::function<void(const std::string&)> progress = {});

// Options that run cases against an in-process reference IUT.
RunOptions reference_options(class ReferenceIut& iut, RunOptions base);

// Feeds what the reference IUT sees locally into `view` (call before the
// IUT listens), so `agent.*` expectations run against the reference too.
void observe(class ReferenceIut& iut, AgentView& view);

void write_mutation_markdown(std::ostream& out, const MutationResult& r);

}  // namespace rdmaconf::conformance
