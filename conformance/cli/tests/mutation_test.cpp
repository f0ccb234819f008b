// `rdmaconf mutation --suite`: the proof of one suite's cases alone (every
// case fails against some fault, the faults only other suites catch listed,
// not held against it), and `rdmaconf run` skipping the sctp suite where
// the tester has no SCTP side.
#include <gtest/gtest.h>

#include "cli/tests/cli_run.hpp"

namespace rdmaconf::cli::testing {
namespace {

const std::string kCases = std::string(" --cases-dir ") + RDMACONF_SOURCE_DIR + "/conformance/cases";

TEST(Mutation, ASuiteAloneProvesEachOfItsCasesCanFail) {
  const Ran r = rdmaconf("mutation --suite sctp" + kCases);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("every case can fail"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fault not caught by these suites: mpa-accept-bad-key"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sctp-ssn-gap: caught by 2 case(s)"), std::string::npos) << r.out;
}

TEST(Mutation, ACaseNoGivenFaultMakesFailFailsTheSuitesProof) {
  const Ran r = rdmaconf("mutation --suite sctp --fault sctp-ssn-gap" + kCases);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("case catches no fault and says not why: sctp-indication-in-init"), std::string::npos) << r.out;
}

TEST(Mutation, ASuiteWithoutCasesIsAUsageError) {
  const Ran r = rdmaconf("mutation --suite nosuch" + kCases);
  EXPECT_EQ(r.code, 2) << r.out << r.err;
}

TEST(Run, TheSctpSuiteIsSkippedWithoutAnSctpSide) {
  const Ran r = rdmaconf("run --target 127.0.0.1:9 --no-probe --suite sctp" + kCases);
  EXPECT_NE(r.out.find("18 cases skipped, no SCTP side for the tester"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace rdmaconf::cli::testing
