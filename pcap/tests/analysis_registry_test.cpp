// Every rule id the observer emits is a row of the requirement registry
// (conformance/requirements/), so analyze, the engine and the dissector name
// a requirement the same way, and the row agrees with the rule on how much
// a violation weighs and on being visible in a capture.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <string_view>

#include "analysis/rules.hpp"
#include "check/registry.hpp"
#include "requirement.hpp"

namespace rdmaconf::analysis {
namespace {

namespace rq = requirements;

TEST(RuleRegistry, EveryEmittedIdIsRegistered) {
  for (const Rule* r : all_rules()) {
    const rq::Requirement* row = rq::find(r->id);
    EXPECT_NE(row, nullptr) << r->id << " is not a registry row";
    if (row) {
      EXPECT_EQ(row->id, r->id) << r->id << " is an old id: the rule names the current one";
    }
  }
}

TEST(RuleRegistry, IdsAreUniqueAndWellFormed) {
  std::set<std::string_view> seen;
  for (const Rule* r : all_rules()) {
    EXPECT_TRUE(seen.insert(r->id).second) << r->id << " is used by two rules";
    EXPECT_TRUE(rq::well_formed_id(r->id)) << r->id;
    EXPECT_EQ(find_rule(r->id), r) << r->id;
  }
}

// A passive observer can only check what a capture shows.
TEST(RuleRegistry, EmittedRulesAreObservableRows) {
  for (const Rule* r : all_rules()) {
    const rq::Requirement* row = rq::find(r->id);
    if (!row) continue;
    EXPECT_NE(row->observable, rq::Observability::kNotObservable) << r->id;
  }
}

// A MUST violation fails `analyze` as a mandatory row fails `run`. The one
// exception: the registry writes every SMC v2 row as a lower-case "must",
// while the observer reports a local-only Decline diagnosis as a SHOULD
// because it rests on Linux's practice (the row says so).
TEST(RuleRegistry, LevelsAgree) {
  // Rules whose text is weaker than the registry's level for their
  // document (reference/check/smcr.hpp says why for the SMC-R one).
  // And RFC 7609 §4.8.1's FIN after the close: a design point, weighed as
  // SHOULD in its row (reference/check/smc_tcp.hpp).
  const std::set<std::string_view> kWeakerInObserver = {"smcv2-decline-code-on-wire",
                                                        "rfc7609-a.4-urgent-present-pending",
                                                        "rfc7609-4.8.1-fin-after-smc-close"};
  for (const Rule* r : all_rules()) {
    const rq::Requirement* row = rq::find(r->id);
    if (!row) continue;
    if (kWeakerInObserver.count(r->id)) {
      EXPECT_EQ(r->level, Level::kShould) << r->id;
      continue;
    }
    switch (r->level) {
      case Level::kMust: EXPECT_TRUE(rq::is_mandatory(row->level)) << r->id << " is " << rq::name(row->level); break;
      case Level::kShould:
        EXPECT_TRUE(row->level == rq::Level::kShould || row->level == rq::Level::kShouldNot) << r->id;
        break;
      case Level::kMay: EXPECT_EQ(row->level, rq::Level::kMay) << r->id; break;
    }
  }
}

}  // namespace
}  // namespace rdmaconf::analysis

namespace rdmaconf::analysis {
namespace {

// The rules the observer reports that another tool checks too are the rule
// layer's rows (reference/check/: DDP and RDMAP, MPA startup, CLC, SMC-R,
// ULPs: every file check/registry.hpp joins),
// the same objects the reference endpoint and the handshake machines check
// with: every one of them is in the analyzer's list, under the same address.
TEST(RuleRegistry, RuleLayerRowsAreTheAnalyzersRows) {
  const auto all = all_rules();
  for (const check::Rule* r : check::all_rules()) {
    EXPECT_NE(std::find(all.begin(), all.end(), r), all.end()) << r->id;
    EXPECT_EQ(find_rule(r->id), r) << r->id;
  }
}

// The rules only a handshake machine can judge (what it has: prefixes, EIDs,
// link groups) are registry rows under their current ids too, so the
// catalogue and the machines' Declines name them the same way; none is in
// the analyzer's list, since no capture can break them.
TEST(RuleRegistry, LocalRulesAreRegistryRowsTheAnalyzerLeavesOut) {
  const auto all = all_rules();
  ASSERT_FALSE(check::local_rules().empty());
  for (const check::Rule* r : check::local_rules()) {
    const rq::Requirement* row = rq::find(r->id);
    ASSERT_NE(row, nullptr) << r->id << " is not a registry row";
    EXPECT_EQ(row->id, r->id) << r->id << " is an old id";
    EXPECT_EQ(std::find(all.begin(), all.end(), r), all.end()) << r->id << " is the analyzer's";
  }
}

}  // namespace
}  // namespace rdmaconf::analysis
