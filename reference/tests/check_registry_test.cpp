// The rule layer's registry (check/registry.hpp): across every rule file,
// each rule has exactly one implementing function and no id is used twice,
// so a reader who looks up a rule id finds one place.
#include "check/registry.hpp"

#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace rdmaconf::check {
namespace {

TEST(CheckRegistry, NoRuleIdHasTwoImplementations) {
  std::map<std::string_view, int> count;
  for (const Implementation& i : implementations()) {
    ASSERT_NE(i.rule, nullptr);
    EXPECT_FALSE(i.function.empty()) << i.rule->id;
    ++count[i.rule->id];
  }
  for (const auto& [id, n] : count) EXPECT_EQ(n, 1) << id << " has " << n << " implementations";
}

TEST(CheckRegistry, EveryRuleOfEveryFileIsImplementedInItsFile) {
  std::set<std::string_view> ids;
  std::vector<RuleFile> files(rule_files().begin(), rule_files().end());
  files.insert(files.end(), local_rule_files().begin(), local_rule_files().end());
  for (const RuleFile& f : files) {
    std::set<const Rule*> implemented;
    for (const Implementation& i : f.implementations()) implemented.insert(i.rule);
    std::set<const Rule*> listed;
    for (const Rule* r : f.rules()) {
      EXPECT_TRUE(listed.insert(r).second) << f.name << " lists " << r->id << " twice";
      EXPECT_TRUE(ids.insert(r->id).second) << r->id << " is a rule of two files (or listed twice)";
      EXPECT_TRUE(implemented.count(r)) << f.name << ": " << r->id << " has no implementation";
      EXPECT_FALSE(r->section.empty()) << r->id;
      EXPECT_FALSE(r->summary.empty()) << r->id;
    }
    EXPECT_EQ(implemented, listed) << f.name << ": a table row names a rule the file does not list";
  }
  EXPECT_EQ(ids.size(), all_rules().size() + local_rules().size());
  EXPECT_EQ(implementations().size(), all_rules().size() + local_rules().size());
}

TEST(CheckRegistry, FindsTheImplementationOfAnId) {
  const Implementation* i = find_implementation("rfc6581-9.2-p2p-echo-a");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->function, "p2p_echo");
  i = find_implementation("smcv2-accept-version-offered");
  ASSERT_NE(i, nullptr);
  EXPECT_EQ(i->function, "accept_version_offered");
  EXPECT_EQ(find_implementation("rfc5041-4.1-dv-1")->function, "ddp_version");
  EXPECT_EQ(find_implementation("no-such-rule"), nullptr);
}

}  // namespace
}  // namespace rdmaconf::check
