// docs/analyzer-rules.md is what `rdmaconf analyze --rules-markdown` writes
// from the observer's own rule list, never a hand copy that drifts.
#include <gtest/gtest.h>

#include "cli_run.hpp"

namespace rdmaconf::cli {
namespace {

using testing::rdmaconf;
using testing::slurp;

TEST(AnalyzerRules, DocIsWhatAnalyzeWrites) {
  const auto r = rdmaconf("analyze --rules-markdown -");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| `rfc5044-4.4-crc32c` | MUST | RFC 5044 §4.4 |"), std::string::npos) << r.out;
  EXPECT_EQ(slurp(RDMACONF_SOURCE_DIR "/docs/analyzer-rules.md"), r.out)
      << "docs/analyzer-rules.md is stale: run rdmaconf analyze --rules-markdown docs/analyzer-rules.md";
}

TEST(AnalyzerRules, ListingReadsNoCapture) {
  const auto r = rdmaconf("analyze some.pcap --rules-markdown -");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("reads no capture"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace rdmaconf::cli
