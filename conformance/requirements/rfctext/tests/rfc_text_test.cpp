// The RFC reader on a small RFC-like text written for this test (no RFC
// sentence appears here): page furniture, headings, paragraphs, sentence
// ends, keywords and fingerprints, and bounded behaviour on hostile input.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "rfc_text.hpp"

namespace rt = rdmaconf::rfctext;

namespace {

// Two pages of a made-up "Widget Framing" memo in the RFC text layout.
const std::string kMemo =
    "Network Working Group                                        A. Writer\n"
    "Request for Comments: 9999                                     Example\n"
    "Category: Standards Track                                   April 2031\n"
    "\n"
    "                           Widget Framing\n"
    "\n"
    "1.  Introduction\n"
    "\n"
    "   The key words \"MUST\", \"MUST NOT\" and \"MAY\" are used as in the\n"
    "   keyword memo.  Widgets travel in frames.\n"
    "\n"
    "2.  Frame Layout\n"
    "\n"
    "2.1.  Length Field\n"
    "\n"
    "   A sender MUST put the widget count into the Length field.  A\n"
    "   receiver SHOULD NOT trust a count above 9, e.g. 12 widgets.\n"
    "\n"
    "\n"
    "\n"
    "Writer                        Standards Track                  [Page 1]\n"
    "\f\n"
    "RFC 9999                      Widget Framing                 April 2031\n"
    "\n"
    "\n"
    "   The Length field is never negative. Its top bit MAY be set by\n"
    "   old senders (see Fig. 3) and is NOT RECOMMENDED for new ones.\n"
    "\n"
    "   o  Each frame ends with a trailer; the trailer MUST NOT be empty\n"
    "   o  Padding is the SHALL_NOT field and 2MUST is no keyword\n"
    "\n"
    "Appendix A.  Older Widgets\n"
    "\n"
    "   Senders built before this memo might not set it.\n"
    "\n"
    "A.1  Legacy Counts\n"
    "\n"
    "   Legacy receivers REQUIRED nothing. The old text says it must be\n"
    "   zero.\n"
    "\n"
    "Appendix B: Colon Style\n"
    "\n"
    "   Later senders SHOULD count.\n"
    "\n"
    "Author's Address\n"
    "\n"
    "   A. Writer, Example Street 1\n";

const rt::Sentence* find(const rt::Document& d, std::string_view prefix) {
  for (const auto& s : d.sentences)
    if (s.text.substr(0, prefix.size()) == prefix) return &s;
  return nullptr;
}

TEST(RfcText, ReadsRfcNumberSectionsAndSentences) {
  const rt::Document d = rt::parse(kMemo);
  EXPECT_EQ(d.rfc_number, 9999u);
  EXPECT_FALSE(d.truncated);

  const auto* keywords = find(d, "The key words");
  ASSERT_NE(keywords, nullptr);
  EXPECT_EQ(keywords->section, "1");
  EXPECT_EQ(keywords->keywords, 0u) << "quoted keywords are mentions";
  ASSERT_NE(find(d, "Widgets travel in frames."), nullptr);

  const auto* must = find(d, "A sender MUST");
  ASSERT_NE(must, nullptr);
  EXPECT_EQ(must->section, "2.1");
  EXPECT_EQ(must->text, "A sender MUST put the widget count into the Length field.");
  EXPECT_EQ(must->keywords, rt::kMust);
  EXPECT_EQ(must->line, 16u);

  // "e.g. 12" does not end the sentence; the line break after "A" does not either.
  const auto* should_not = find(d, "A receiver SHOULD NOT");
  ASSERT_NE(should_not, nullptr);
  EXPECT_EQ(should_not->text, "A receiver SHOULD NOT trust a count above 9, e.g. 12 widgets.");
  EXPECT_EQ(should_not->keywords, rt::kShouldNot);
}

TEST(RfcText, PageFurnitureIsRemovedAndParagraphsContinue) {
  const rt::Document d = rt::parse(kMemo);
  for (const auto& s : d.sentences) {
    EXPECT_EQ(s.text.find("[Page"), std::string::npos) << s.text;
    EXPECT_NE(s.text.substr(0, 8), "RFC 9999") << s.text;
  }
  const auto* never = find(d, "The Length field is never negative.");
  ASSERT_NE(never, nullptr);
  EXPECT_EQ(never->section, "2.1") << "the page break does not change the section";
  // One space then a capital ends a sentence; "Fig." does not.
  const auto* may = find(d, "Its top bit MAY");
  ASSERT_NE(may, nullptr);
  EXPECT_EQ(may->text, "Its top bit MAY be set by old senders (see Fig. 3) and is NOT RECOMMENDED for new ones.");
  EXPECT_EQ(may->keywords, rt::kMay | rt::kShouldNot);
}

TEST(RfcText, ListItemsAreParagraphsAndGluedWordsAreNoKeywords) {
  const rt::Document d = rt::parse(kMemo);
  const auto* trailer = find(d, "o Each frame ends");
  ASSERT_NE(trailer, nullptr);
  EXPECT_EQ(trailer->keywords, rt::kMustNot);
  EXPECT_EQ(trailer->text.find("Padding"), std::string::npos) << "a new list item is a new paragraph";
  const auto* padding = find(d, "o Padding");
  ASSERT_NE(padding, nullptr);
  EXPECT_EQ(padding->keywords, 0u);
}

TEST(RfcText, AppendicesAndBackMatter) {
  const rt::Document d = rt::parse(kMemo);
  const auto* older = find(d, "Senders built before");
  ASSERT_NE(older, nullptr);
  EXPECT_EQ(older->section, "a");
  const auto* legacy = find(d, "Legacy receivers");
  ASSERT_NE(legacy, nullptr);
  EXPECT_EQ(legacy->section, "a.1");
  EXPECT_EQ(legacy->keywords, rt::kMust);
  const auto* lower = find(d, "The old text says");
  ASSERT_NE(lower, nullptr);
  EXPECT_EQ(lower->keywords, 0u) << "lower case only counts when asked";
  const auto* colon = find(d, "Later senders SHOULD");
  ASSERT_NE(colon, nullptr);
  EXPECT_EQ(colon->section, "b");
  const auto* address = find(d, "A. Writer, Example");
  ASSERT_NE(address, nullptr);
  EXPECT_EQ(address->section, "");

  rt::Options lower_case;
  lower_case.lower_case_must = true;
  const rt::Document d2 = rt::parse(kMemo, lower_case);
  const auto* lower2 = find(d2, "The old text says");
  ASSERT_NE(lower2, nullptr);
  EXPECT_EQ(lower2->keywords, rt::kLowerCaseMust);
}

TEST(RfcText, FingerprintIsStableAndIgnoresLineBreaks) {
  EXPECT_EQ(rt::fingerprint(""), "cbf29ce4");  // FNV-1a-64 offset basis
  EXPECT_EQ(rt::fingerprint("a"), "af63dc4c");
  const std::string one = "   A sender MUST put the widget count\n   into the Length field.\n";
  const std::string two = "   A sender MUST put the widget\n   count into the Length field.\n";
  const auto a = rt::parse(one);
  const auto b = rt::parse(two);
  ASSERT_EQ(a.sentences.size(), 1u);
  ASSERT_EQ(b.sentences.size(), 1u);
  EXPECT_EQ(a.sentences[0].fingerprint, b.sentences[0].fingerprint);
  EXPECT_EQ(a.sentences[0].fingerprint, rt::fingerprint(a.sentences[0].text));
  EXPECT_EQ(a.sentences[0].fingerprint.size(), 8u);
}

TEST(RfcText, KeywordNames) {
  EXPECT_EQ(rt::keyword_names(rt::kMust | rt::kMay), "MUST, MAY");
  EXPECT_EQ(rt::keyword_names(0), "");
  EXPECT_EQ(rt::keywords_in("It SHALL NOT and it is OPTIONAL", false), rt::kMustNot | rt::kMay);
  EXPECT_EQ(rt::keywords_in("It is RECOMMENDED", false), rt::kShould);
  EXPECT_EQ(rt::keywords_in("MUSTARD is not MUST-like", false), rt::kMust);
  EXPECT_EQ(rt::keywords_in("we must not", true), rt::kLowerCaseMust);
  EXPECT_EQ(rt::keywords_in("\"MUST\" NOT", false), 0u);
}

TEST(RfcText, HostileInputIsBounded) {
  rt::Options small;
  small.limits.max_input = 1000;
  small.limits.max_sentence = 50;
  small.limits.max_sentences = 3;
  const std::string noise(5000, 'x');
  const auto d = rt::parse("   " + noise, small);
  EXPECT_TRUE(d.truncated);
  for (const auto& s : d.sentences) EXPECT_LE(s.text.size(), 50u);
  EXPECT_LE(d.sentences.size(), 3u);

  std::string many;
  for (int i = 0; i < 100; ++i) many += "   One MUST. ";
  const auto m = rt::parse(many, small);
  EXPECT_EQ(m.sentences.size(), 3u);
  EXPECT_TRUE(m.truncated);

  // Odd octets, lone form feeds, footers without pages, headings of digits only.
  const std::string odd = std::string("\f\f\r\n[Page ]\n9999999999999999999999999999999999\n\0\0MUST\n", 46) +
                          "Appendix \nA\n   (a) x\n   1.  y\n   o\n";
  const auto o = rt::parse(odd);
  for (const auto& s : o.sentences) EXPECT_LE(s.section.size(), rt::Limits{}.max_section);
}

// A sentence at its length limit: whole words up to the limit, the
// separating space counted, a word cut where the limit falls, and no space
// left dangling when only the space would fit.
TEST(RfcText, SentenceLimitCutsAtTheExactOctet) {
  rt::Options o;
  o.limits.max_sentence = 11;
  auto text_of = [&](const std::string& para) {
    const auto d = rt::parse("   " + para + "\n", o);
    EXPECT_EQ(d.sentences.size(), 1u);
    return std::make_pair(d.sentences.empty() ? std::string() : d.sentences[0].text, d.truncated);
  };
  EXPECT_EQ(text_of("abcde \t fghij"), std::make_pair(std::string("abcde fghij"), false));  // exactly 11
  EXPECT_EQ(text_of("abcde fghijk"), std::make_pair(std::string("abcde fghij"), true));      // cut inside a word
  EXPECT_EQ(text_of("abcdefghij k"), std::make_pair(std::string("abcdefghij"), true));       // only the space fits
  EXPECT_EQ(text_of("abcdefghijk l"), std::make_pair(std::string("abcdefghijk"), true));     // nothing fits after
  EXPECT_EQ(text_of("abcdefghijkl"), std::make_pair(std::string("abcdefghijk"), true));      // one word cut
}

// The word after a keyword decides "MUST NOT" and "NOT RECOMMENDED"; a glued
// word between them is skipped, a quoted one still joins.
TEST(RfcText, KeywordsLookOneWordAhead) {
  EXPECT_EQ(rt::keywords_in("MUST NOT", false), rt::kMustNot);
  EXPECT_EQ(rt::keywords_in("MUST", false), rt::kMust);
  EXPECT_EQ(rt::keywords_in("SHOULD x1 NOT", false), rt::kShouldNot);  // "x1" is glued: not a word
  EXPECT_EQ(rt::keywords_in("SHOULD \"NOT\"", false), rt::kShouldNot);
  EXPECT_EQ(rt::keywords_in("MUST NOT RECOMMENDED", false), rt::kMustNot | rt::kShould);  // NOT taken by MUST
  EXPECT_EQ(rt::keywords_in("is NOT RECOMMENDED; MAY", false), rt::kShouldNot | rt::kMay);
  EXPECT_EQ(rt::keywords_in("NOT", false), 0u);
}

}  // namespace
