// The registry's checks. The data files are hand-written tables: these
// tests are what keeps their ids stable-shaped, unique and complete.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "requirements/requirement.hpp"
#include "requirements/table.hpp"

namespace rq = rdmaconf::requirements;
using rq::Level;
using rq::Observability;

namespace {

constexpr std::array kLevels = {Level::kMust,      Level::kMustNot, Level::kShould,
                                Level::kShouldNot, Level::kMay,     Level::kLowerCaseMust};

TEST(Registry, EveryRowIsSound) {
  const auto found = rq::problems(rq::all());
  for (const auto& p : found) ADD_FAILURE() << p;
  EXPECT_TRUE(found.empty());
}

TEST(Registry, IdsAreUnique) {
  std::set<std::string_view> seen;
  for (const auto& r : rq::all()) EXPECT_TRUE(seen.insert(r.id).second) << "duplicate id " << r.id;
}

TEST(Registry, EveryRowHasSummarySectionAndLevel) {
  for (const auto& r : rq::all()) {
    EXPECT_FALSE(r.summary.empty()) << r.id;
    EXPECT_FALSE(r.section.empty()) << r.id;
    EXPECT_FALSE(r.rfc.empty()) << r.id;
    EXPECT_NE(rq::name(r.level), "?") << r.id;
    EXPECT_NE(rq::name(r.observable), "?") << r.id;
  }
}

TEST(Registry, NotObservableRowsSayWhy) {
  for (const auto& r : rq::all()) {
    if (r.observable == Observability::kNotObservable) {
      EXPECT_FALSE(r.why_not_observable.empty()) << r.id;
    } else {
      EXPECT_TRUE(r.why_not_observable.empty()) << r.id;
    }
  }
}

TEST(Registry, FindReturnsEveryRowAndNothingElse) {
  for (const auto& r : rq::all()) {
    const rq::Requirement* found = rq::find(r.id);
    ASSERT_NE(found, nullptr) << r.id;
    EXPECT_EQ(found->id, r.id);
    EXPECT_EQ(found->summary, r.summary);
  }
  EXPECT_EQ(rq::find(""), nullptr);
  EXPECT_EQ(rq::find("rfc5044-7.1.2-no-such-rule"), nullptr);
  EXPECT_EQ(rq::find("RFC5044-7.1.2-pd-length-max"), nullptr);  // ids are lower case
}

// The ids the engine, analyzer and dissector helpers already use.
TEST(Registry, KnownIdsExist) {
  for (std::string_view id : {"rfc5044-7.1.1-key-request", "rfc5044-7.1.1-pd-length-max",
                              "rfc5044-4.4-crc-check", "rfc5041-7.1-stag-invalid",
                              "rfc5040-4.8-terminate-layer-etype-code", "rfc7609-a.2-eyecatcher",
                              "rfc6581-9.2-reply-rtr-at-least-one"}) {
    EXPECT_NE(rq::find(id), nullptr) << id;
  }
}

TEST(Registry, DocumentsPartitionTheRows) {
  std::size_t total = 0;
  for (std::string_view doc : rq::documents()) {
    const auto rows = rq::of(doc);
    EXPECT_FALSE(rows.empty()) << doc;
    for (const auto& r : rows) EXPECT_EQ(r.rfc, doc) << r.id;
    std::size_t by_level = 0;
    for (Level l : kLevels) by_level += rq::count(doc, l);
    EXPECT_EQ(by_level, rows.size()) << doc;
    total += rows.size();
  }
  EXPECT_EQ(total, rq::all().size());
  EXPECT_TRUE(rq::of("RFC 9999").empty());
}

TEST(Registry, CountsPerDocumentAndLevel) {
  std::cout << "document    MUST  MUST NOT  SHOULD  SHOULD NOT  MAY  must   total  wire  peer  hidden\n";
  for (std::string_view doc : rq::documents()) {
    std::size_t wire = 0, peer = 0, hidden = 0;
    for (const auto& r : rq::of(doc)) {
      (r.observable == Observability::kOnTheWire         ? wire
       : r.observable == Observability::kOnTheWireAsPeer ? peer
                                                         : hidden)++;
    }
    std::printf("%-10s %5zu %9zu %7zu %11zu %4zu %5zu %7zu %5zu %5zu %7zu\n", std::string(doc).c_str(),
                rq::count(doc, Level::kMust), rq::count(doc, Level::kMustNot), rq::count(doc, Level::kShould),
                rq::count(doc, Level::kShouldNot), rq::count(doc, Level::kMay),
                rq::count(doc, Level::kLowerCaseMust), rq::count(doc), wire, peer, hidden);
  }
  std::printf("%-10s %61zu\n", "all", rq::all().size());
  std::size_t by_observability = rq::count(Observability::kOnTheWire) +
                                 rq::count(Observability::kOnTheWireAsPeer) +
                                 rq::count(Observability::kNotObservable);
  EXPECT_EQ(by_observability, rq::all().size());
}

TEST(WellFormedId, AcceptsTheScheme) {
  for (std::string_view id : {"rfc5044-7.1.1-pd-length-max", "rfc5041-7.1-stag-invalid", "rfc7609-3.7-eyecatcher",
                              "rfc7609-a.2.2-proposal-length", "rfc5040-4-ulp-reserved", "rfc7609-c-decline",
                              "smcv2-proposal-eid-count-max", "rfc7306-8.1-x2"}) {
    EXPECT_TRUE(rq::well_formed_id(id)) << id;
  }
}

TEST(WellFormedId, RejectsEverythingElse) {
  for (std::string_view id :
       {"", "rfc5044", "rfc5044-7.1.1", "rfc5044-7.1.1-", "RFC5044-7.1.1-x", "rfc5044-7..1-x", "rfc5044-.7-x",
        "rfc5044-7.-x", "rfc504-7.1-x", "rfc50444-7.1-x", "rfc5044-7.1-PD", "rfc5044-7.1-pd--length",
        "rfc5044-7.1-pd_length", "rfc5044-ab.1-x", "rfc5044-1a-x", "smcv2-7.1-x", "smcv2-Proposal-x",
        "tcp-3.1-x", "rfc5044-7.1-pd length"}) {
    EXPECT_FALSE(rq::well_formed_id(id)) << id;
  }
}

// A row with the columns only the rule layer's rows set left empty.
rq::Requirement make(std::string_view id, std::string_view rfc, std::string_view section, Level level,
                     std::string_view summary, Observability observable, std::string_view why) {
  rq::Requirement r{};
  r.id = id;
  r.rfc = rfc;
  r.section = section;
  r.level = level;
  r.summary = summary;
  r.observable = observable;
  r.why_not_observable = why;
  r.weight = rq::weight_of(level);
  return r;
}

TEST(Problems, FindsBadRows) {
  const rq::Requirement bad[] = {
      make("rfc5044-7.1-dup", "RFC 5044", "7.1", Level::kMust, "one", Observability::kOnTheWire, ""),
      make("rfc5044-7.1-dup", "RFC 5044", "7.1", Level::kMust, "two", Observability::kOnTheWire, ""),
      make("rfc5044-7.1-no-summary", "RFC 5044", "7.1", Level::kMust, "", Observability::kOnTheWire, ""),
      make("rfc5044-7.1-no-reason", "RFC 5044", "7.1", Level::kMust, "x", Observability::kNotObservable, ""),
      make("rfc5044-7.1-stray-reason", "RFC 5044", "7.1", Level::kMust, "x", Observability::kOnTheWire, "y"),
      make("rfc5044-7.1-wrong-section", "RFC 5044", "7.2", Level::kMust, "x", Observability::kOnTheWire, ""),
      make("rfc5044-7.1-wrong-document", "RFC 5041", "7.1", Level::kMust, "x", Observability::kOnTheWire, ""),
      make("rfc5044-7.1-lower-case", "RFC 5044", "7.1", Level::kLowerCaseMust, "x", Observability::kOnTheWire, ""),
      make("rfc7609-3.1-upper-case", "RFC 7609", "3.1", Level::kMust, "x", Observability::kOnTheWire, ""),
      make("Bad Id", "", "", Level::kMust, "x", Observability::kOnTheWire, ""),
      // Why no case drives a row is said of observable rows only.
      make("rfc5044-7.1-hidden-uncased", "RFC 5044", "7.1", Level::kMust, "x", Observability::kNotObservable, "y")
          .uncased("z"),
      make("rfc5044-7.1-uncased", "RFC 5044", "7.1", Level::kMust, "x", Observability::kOnTheWire, "").uncased("z"),
  };
  const auto found = rq::problems(bad);
  auto mentions = [&found](std::string_view what) {
    for (const auto& p : found) {
      if (p.find(what) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(mentions("rfc5044-7.1-dup: id is not unique"));
  EXPECT_TRUE(mentions("rfc5044-7.1-no-summary: no summary"));
  EXPECT_TRUE(mentions("rfc5044-7.1-no-reason: not observable"));
  EXPECT_TRUE(mentions("rfc5044-7.1-stray-reason: observable, yet"));
  EXPECT_TRUE(mentions("rfc5044-7.1-wrong-section: section"));
  EXPECT_TRUE(mentions("rfc5044-7.1-wrong-document: document"));
  EXPECT_TRUE(mentions("rfc5044-7.1-lower-case: lower-case"));
  EXPECT_TRUE(mentions("rfc7609-3.1-upper-case: lower-case"));
  EXPECT_TRUE(mentions("Bad Id: id is not"));
  EXPECT_TRUE(mentions("rfc5044-7.1-hidden-uncased: not observable, yet a reason why no case"));
  EXPECT_FALSE(mentions("rfc5044-7.1-uncased:"));
  EXPECT_EQ(found.size(), 12u);  // "Bad Id" also has no document and no section
}

// A row cites the section its id names; a second source is another
// document's, in the also-see column. These rows bend the rule, each one way.
TEST(Problems, FindsRowsCitingAnotherSection) {
  const auto ok = make("rfc5040-4.1-opcodes", "RFC 5040", "4.1", Level::kMust, "x", Observability::kOnTheWire, "");
  const rq::Requirement bad[] = {
      ok.says("x").also("RFC 5040 §4.3"),           // its own document at another section
      ok.says("x").also("§4.3"),                    // the same, without the document's name
      make("smcv2-accept-eid", "SMCv2", "accept", Level::kLowerCaseMust, "x", Observability::kOnTheWire, "")
          .says("x"),                               // checked, but names no source to cite
      ok.weighed(rq::Weight::kMust).also("RFC 7306 §4"),  // fine: another document
      make("rfc5040-4.1-may", "RFC 5040", "4.1", Level::kMay, "x", Observability::kOnTheWire, "")
          .weighed(rq::Weight::kMust),              // weighs more than its level
      ok.declined_with("CNFERR"),                   // a decline diagnosis on an iWARP row
  };
  std::vector<std::string> found;
  for (const auto& r : bad) {
    const auto one = rq::problems(std::span<const rq::Requirement>(&r, 1));
    found.push_back(one.empty() ? std::string() : one.front());
  }
  EXPECT_NE(found[0].find("cites another section of its own document"), std::string::npos) << found[0];
  EXPECT_NE(found[1].find("cites another section of its own document"), std::string::npos) << found[1];
  EXPECT_NE(found[2].find("Linux source"), std::string::npos) << found[2];
  EXPECT_EQ(found[3], "");
  EXPECT_NE(found[4].find("weighs more than its level"), std::string::npos) << found[4];
  EXPECT_NE(found[5].find("decline diagnosis"), std::string::npos) << found[5];
}

// The citation a tool prints: the id's document and section, then the
// also-see column; an SMCv2 row cites its Linux source alone.
TEST(Citation, FromTheIdAndTheAlsoSeeColumn) {
  EXPECT_EQ(rq::citation(rq::row("rfc5041-4.1-dv-1")).view(), "RFC 5041 §4.1");
  EXPECT_EQ(rq::citation(rq::row("rfc7609-a.2.3-accept-qp-number")).view(), "RFC 7609 App. A.2.3, IBTA vol. 1 §3.5.1");
  EXPECT_EQ(rq::citation(rq::row("rfc5040-4.1-qn-opcode-match")).view(), "RFC 5040 §4.1, RFC 5041 §4.3");
  EXPECT_EQ(rq::citation(rq::row("rfc6581-10-reply-rev-not-above")).view(), "RFC 6581 §10");
  EXPECT_EQ(rq::citation(rq::row("smcv2-accept-version-offered")).view(), "SMCv2: smc_clc_msg_hdr");
  EXPECT_EQ(rq::citation(rq::row("smcv2-fce-release-valid")).view(), "SMCv2");
}

// A tool weighs a row by its level unless the row states otherwise.
TEST(Weight, TheLevelsUnlessStated) {
  EXPECT_EQ(rq::row("rfc5041-4.1-dv-1").weight, rq::Weight::kMust);
  EXPECT_EQ(rq::row("rfc5044-7.1.1-r-request-zero").weight, rq::Weight::kShould);
  EXPECT_EQ(rq::row("smcv2-decline-code-on-wire").level, Level::kLowerCaseMust);
  EXPECT_EQ(rq::row("smcv2-decline-code-on-wire").weight, rq::Weight::kShould);
  EXPECT_EQ(rq::name(rq::Weight::kShould), "SHOULD");
}

TEST(Names, LevelsAndObservability) {
  EXPECT_EQ(rq::name(Level::kMustNot), "MUST NOT");
  EXPECT_EQ(rq::name(Level::kLowerCaseMust), "must");
  EXPECT_EQ(rq::name(Observability::kOnTheWireAsPeer), "on the wire as peer");
  EXPECT_TRUE(rq::is_mandatory(Level::kLowerCaseMust));
  EXPECT_TRUE(rq::is_mandatory(Level::kMustNot));
  EXPECT_FALSE(rq::is_mandatory(Level::kShould));
  EXPECT_FALSE(rq::is_mandatory(Level::kMay));
}

}  // namespace

// Renamed rows: every old id still finds the row it was renamed to, and the
// alias table itself is sound.
namespace {
TEST(Registry, EveryAliasResolvesToItsRow) {
  const auto found = rq::alias_problems(rq::aliases(), rq::all());
  for (const auto& p : found) ADD_FAILURE() << p;
  EXPECT_TRUE(found.empty());
  for (const rq::Alias& a : rq::aliases()) {
    const rq::Requirement* row = rq::find(a.old_id);
    ASSERT_NE(row, nullptr) << a.old_id;
    EXPECT_EQ(row->id, a.id) << a.old_id;
    EXPECT_EQ(rq::find(a.id), row);
  }
}

TEST(Registry, AliasChecksCatchBadTables) {
  const rq::Requirement rows[] = {rq::all()[0]};
  const rq::Alias bad[] = {{"not an id", rows[0].id},
                           {rows[0].id, rows[0].id},
                           {"rfc5044-1-gone", "rfc5044-1-missing"},
                           {"rfc5044-1-gone", rows[0].id}};
  const auto found = rq::alias_problems(bad, rows);
  EXPECT_EQ(found.size(), 4u);
}
}  // namespace
