// `rdmaconf mutation --suite`: the proof of one suite's cases alone (every
// case fails against some fault, the faults only other suites catch listed,
// not held against it), and `rdmaconf run` skipping the sctp suite where
// the tester has no SCTP side.
#include <regex>

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
  // A fault of the suite is caught by at least one of its cases (how many
  // grows with the suite).
  const auto at = r.out.find("sctp-ssn-gap: caught by ");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NE(r.out[at + std::string_view("sctp-ssn-gap: caught by ").size()], '0') << r.out;
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

// Every case of the suite is skipped, in each role, and said so.
TEST(Run, TheSctpSuiteIsSkippedWithoutAnSctpSide) {
  const Ran r = rdmaconf("run --target 127.0.0.1:9 --no-probe --suite sctp" + kCases);
  // The suite's cases as `rdmaconf cases` lists them, a line each.
  const Ran listed = rdmaconf("cases --suite sctp" + kCases);
  std::size_t cases = 0;
  const std::regex id(R"((^|\n)sctp-)");
  for (std::sregex_iterator it(listed.out.begin(), listed.out.end(), id), end; it != end; ++it) ++cases;
  std::size_t skipped = 0;
  const std::regex line(R"(skipped sctp \((initiator|responder) role\): (\d+) cases skipped, no SCTP side for the tester)");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), line), end; it != end; ++it)
    skipped += std::stoul((*it)[2].str());
  EXPECT_GT(cases, 0u);
  EXPECT_EQ(skipped, cases) << r.out << r.err;
}

}  // namespace
}  // namespace rdmaconf::cli::testing
