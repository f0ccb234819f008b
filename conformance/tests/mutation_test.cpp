// The mutation proof as a test: against the clean reference every case
// passes, every named fault is caught by a case, and every case catches a
// fault or says why no fault can make it fail.
#include <gtest/gtest.h>

#include "engine/mutation.hpp"

namespace rdmaconf::conformance {
namespace {

TEST(Mutation, EveryFaultCaughtEveryCaseCanFail) {
  const Catalogue cat = load_catalogue(RDMACONF_SOURCE_DIR "/conformance/cases");
  ASSERT_TRUE(cat.errors.empty());
  std::vector<const FaultInfo*> faults;
  for (const FaultInfo& f : all_faults()) faults.push_back(&f);
  EXPECT_GE(faults.size(), 25u);
  RunOptions o;
  o.jobs = 16;
  o.time_scale = 0.25;
  MutationResult r = run_mutation(select(cat, {}, {}), o, faults);
  for (const Case* c : r.clean_failures) {
    for (const CaseResult& cr : r.clean)
      if (cr.c == c) ADD_FAILURE() << "clean reference fails " << c->id << ": " << cr.reason;
  }
  for (const auto& row : r.faults) EXPECT_FALSE(row.caught_by.empty()) << "fault not caught: " << row.fault->name;
  for (const Case* c : r.catching_nothing) ADD_FAILURE() << "case catches no fault and gives no reason: " << c->id;
  for (const Case* c : r.stale_uncaught) ADD_FAILURE() << "case says no fault catches it, yet one does: " << c->id;
  EXPECT_TRUE(r.ok());
}

}  // namespace
}  // namespace rdmaconf::conformance
