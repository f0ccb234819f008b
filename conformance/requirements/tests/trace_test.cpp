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

// Issue 30: a row's id names the section its sentence is in. The registry
// passes; rows that bend the rule, each one way, are each reported.
TEST(Trace, EveryRowNamesTheSectionOfItsSentence) {
  for (const auto& d : rq::traced_documents()) {
    const auto found = rq::section_problems(rq::of(d.rfc), d.rfc, rq::traces(d.rfc));
    for (const auto& p : found) ADD_FAILURE() << p;
  }
  // A row renamed to its sentence's section still answers to its old id.
  const rq::Requirement* renamed = rq::find("rfc6581-9-reply-enhanced");
  ASSERT_NE(renamed, nullptr);
  EXPECT_EQ(renamed->id, "rfc6581-10-reply-enhanced");
  EXPECT_EQ(rq::citation(*renamed).view(), "RFC 6581 §10");
}

TEST(Trace, SectionProblemsFindRowsNamingAnotherSection) {
  using rq::Accounting;
  auto row = [](std::string_view id, std::string_view rfc, std::string_view section) {
    rq::Requirement r{};
    r.id = id;
    r.rfc = rfc;
    r.section = section;
    r.level = rq::Level::kMust;
    r.summary = "x";
    return r;
  };
  const rq::Requirement rows[] = {
      row("rfc6581-9-reply-enhanced", "RFC 6581", "9"),     // its sentence is in §10
      row("rfc6581-10-reply-ok", "RFC 6581", "10"),         // right
      row("rfc6581-9.1-two-places", "RFC 6581", "9.1"),     // stated in §9.1 and §9.2: names one of them
      row("rfc6581-9.2-cites-other", "RFC 6581", "9.3"),    // its citation names §9.3
      row("rfc6581-9.2-untraced", "RFC 6581", "9.2"),       // no sentence: nothing to compare with
      row("rfc5044-7.1-other-document", "RFC 5044", "7.1"), // another document's row: not this table's
  };
  const rq::SentenceTrace table[] = {
      {"10", "00000001", Accounting::kCovered, "rfc6581-9-reply-enhanced rfc6581-10-reply-ok", {}},
      {"9.1", "00000002", Accounting::kCovered, "rfc6581-9.1-two-places", {}},
      {"9.2", "00000003", Accounting::kCovered, "rfc6581-9.1-two-places rfc6581-9.2-cites-other", {}},
      {"10", "00000004", Accounting::kCovered, "rfc5044-7.1-other-document", {}},
      {"9", "00000005", Accounting::kNotARequirement, {}, "x"},
  };
  const auto found = rq::section_problems(rows, "RFC 6581", table);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0],
            "row rfc6581-9-reply-enhanced: its id names §9 but the sentences it covers are in §10 (rename it, "
            "keeping the old id as an alias)");
  EXPECT_EQ(found[1], "row rfc6581-9.2-cites-other: its citation names §9.3, its id §9.2");
  // An appendix is cited as "App. A.2.3" and named "a.2.3" in the id: the same section.
  const rq::Requirement appendix[] = {row("rfc7609-a.2.3-x", "RFC 7609", "a.2.3")};
  const rq::SentenceTrace at_appendix[] = {{"a.2.3", "00000006", Accounting::kCovered, "rfc7609-a.2.3-x", {}}};
  EXPECT_TRUE(rq::section_problems(appendix, "RFC 7609", at_appendix).empty());
}

TEST(Trace, RowIdsSplitOnSpaces) {
  const rq::SentenceTrace t{"4.1", "00000000", rq::Accounting::kCovered, "a-1-x  b-2-y", {}};
  const auto ids = rq::row_ids(t);
  ASSERT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids[0], "a-1-x");
  EXPECT_EQ(ids[1], "b-2-y");
}

}  // namespace
