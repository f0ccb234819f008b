// Decline diagnosis codes as data (Linux net/smc SMC_CLC_DECL_*) and the
// peer-diagnosis rules of clc/decline_codes.hpp.
#include "clc/decline_codes.hpp"

#include <set>

#include <gtest/gtest.h>

namespace rdmaconf::clc {
namespace {

TEST(ClcDeclineCodes, TableIsCompleteAndUnique) {
  std::set<std::uint32_t> seen;
  for (const DeclineCode& c : decline_codes()) {
    EXPECT_TRUE(seen.insert(c.code).second) << c.linux_name;
    EXPECT_FALSE(c.meaning.empty()) << c.linux_name;
    EXPECT_FALSE(c.sent_when.empty()) << c.linux_name;
    EXPECT_NE(decline_category(c.code), "unknown") << c.linux_name;
  }
  EXPECT_EQ(seen.size(), 36u);
}

TEST(ClcDeclineCodes, KnownValues) {
  // Values as net/smc/smc_clc.h defines them.
  EXPECT_EQ(find_decline_code(0x03070000)->linux_name, "DIFFPREFIX");
  EXPECT_EQ(find_decline_code(0x04000000)->linux_name, "SYNCERR");
  EXPECT_EQ(find_decline_code(0x030c0000)->linux_name, "VERSMISMAT");
  EXPECT_EQ(find_decline_code(0x09990003)->linux_name, "ERR_REGBUF");
  EXPECT_EQ(find_decline_code(0x12345678), nullptr);
  EXPECT_EQ(decline_category(kDeclMem), "resource");
  EXPECT_EQ(decline_category(kDeclTimeoutConfirmLink), "timeout");
  EXPECT_EQ(decline_category(kDeclSyncErr), "synchronization");
  EXPECT_EQ(decline_category(kDeclInterr), "internal");
  EXPECT_EQ(decline_category(0x7f000000), "unknown");
}

TEST(ClcDeclineCodes, LocalOnlyReasonsAreMarked) {
  EXPECT_FALSE(find_decline_code(kDeclPeerNoSmc)->on_wire);
  EXPECT_FALSE(find_decline_code(kDeclPeerDecl)->on_wire);
  EXPECT_FALSE(find_decline_code(kDeclOptUnsupp)->on_wire);
  EXPECT_TRUE(find_decline_code(kDeclSyncErr)->on_wire);
}

TEST(ClcDeclineCodes, OutOfSyncGoesWithSyncErrorOnly) {
  for (const DeclineCode& c : decline_codes()) EXPECT_EQ(requires_out_of_sync(c.code), c.code == kDeclSyncErr);
}

}  // namespace
}  // namespace rdmaconf::clc
