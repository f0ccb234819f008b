// The trace tables (trace.hpp): every entry names registry rows that exist
// (by their current id), has a well-formed fingerprint and a reason where
// one is needed. Matching entries to RFC sentences needs the RFC texts,
// which the project does not ship: `rdmaconf requirements --rfc-dir` does
// that in CI (ci/test.sh).
#include <gtest/gtest.h>

#include "requirement.hpp"
#include "trace.hpp"

namespace rq = rdmaconf::requirements;

namespace {

TEST(Trace, TablesAreSound) {
  const auto found = rq::trace_problems();
  for (const auto& p : found) ADD_FAILURE() << p;
  EXPECT_TRUE(found.empty());
}

TEST(Trace, EveryTracedDocumentIsARegistryDocument) {
  for (const auto& d : rq::traced_documents()) EXPECT_GT(rq::count(d.rfc), 0u) << d.rfc;
}

TEST(Trace, SentencesOfFindsTheRowsEntries) {
  std::size_t covered = 0;
  for (const auto& d : rq::traced_documents())
    for (const auto& t : rq::traces(d.rfc)) {
      if (t.accounting != rq::Accounting::kCovered) continue;
      ++covered;
      for (std::string_view id : rq::row_ids(t)) {
        bool listed = false;
        for (const auto& s : rq::sentences_of(id)) listed = listed || s.trace == &t;
        EXPECT_TRUE(listed) << id;
      }
    }
  EXPECT_GT(covered, 0u);
}

TEST(Trace, RowIdsSplitOnSpaces) {
  const rq::SentenceTrace t{"4.1", "00000000", rq::Accounting::kCovered, "a-1-x  b-2-y", {}};
  const auto ids = rq::row_ids(t);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], "a-1-x");
  EXPECT_EQ(ids[1], "b-2-y");
}

}  // namespace
