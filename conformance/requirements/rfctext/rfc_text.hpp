// Reading a plain-text RFC (the RFC Editor's text format) into sentences,
// each with the section it stands in and the normative keywords it uses.
//
// The input is untrusted: any octets are accepted, the work is linear in
// the input, and every size is bounded by Limits (a longer input is cut and
// Document::truncated says so). Standard library only, so the fuzz target
// and the CLI link it without the rest of the project.
//
// What "a sentence" is here (the rules the traceability table rests on):
//   - page footers ("... [Page N]"), form feeds, the running header after a
//     page break ("RFC NNNN ... <date>") and the blank lines around the
//     break are removed, so a paragraph continues across pages;
//   - a line starting in column 0 is a heading: "4.1.  Title", "A.2  Title",
//     "Appendix A.  Title" and "Appendix A: Title" open a section ("4.1",
//     "a.2", "a"); any other
//     column-0 line (front and back matter) opens the unnumbered section "";
//   - a blank line, or a line opening a list item ("o ", "* ", "- ", "+ ",
//     "1.  ", "(a) "), ends a paragraph; a paragraph's lines are joined;
//   - a sentence ends at '.', '?' or '!' (closing quotes and brackets
//     included) followed by two spaces, a line end, or one space and an
//     upper-case letter unless the word before is an abbreviation ("e.g.",
//     "i.e.", "etc.", "cf.", a single letter); and at a paragraph's end;
//   - a sentence's text is its words joined by single spaces.
// A sentence's fingerprint is FNV-1a-64 of that text, first 8 hex digits:
// a short stable locator that needs none of the RFC's words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rdmaconf::rfctext {

// The normative keywords a sentence uses, as a bit set.
enum Keyword : std::uint32_t {
  kMust = 1u << 0,            // MUST, REQUIRED, SHALL
  kMustNot = 1u << 1,         // MUST NOT, SHALL NOT
  kShould = 1u << 2,          // SHOULD, RECOMMENDED
  kShouldNot = 1u << 3,       // SHOULD NOT, NOT RECOMMENDED
  kMay = 1u << 4,             // MAY, OPTIONAL
  kLowerCaseMust = 1u << 5,   // "must" / "must not" in lower case (only with Options::lower_case_must)
};

struct Limits {
  std::size_t max_input = 8u << 20;        // octets read; the rest is ignored (truncated)
  std::size_t max_sentence = 8192;         // octets of one sentence's text; longer ones are cut
  std::size_t max_sentences = 100000;      // sentences kept
  std::size_t max_section = 24;            // characters of a section number
};

struct Options {
  // Count lower-case "must" / "must not" as normative (RFC 7609 states its
  // rules that way; the registry grades them as kLowerCaseMust).
  bool lower_case_must = false;
  Limits limits{};
};

struct Sentence {
  std::string section;      // "4.1", "a.2", "" before the first numbered heading / in back matter
  std::string text;         // words joined by single spaces
  std::uint32_t line = 0;   // 1-based line of the input where the sentence starts
  std::uint32_t keywords = 0;
  std::string fingerprint;  // 8 lower-case hex digits

  bool normative() const { return keywords != 0; }
};

struct Document {
  unsigned rfc_number = 0;  // from "Request for Comments: NNNN" on the first page; 0 when absent
  std::vector<Sentence> sentences;
  bool truncated = false;   // a limit was reached: input, sentence count or a sentence's length
};

Document parse(std::string_view input, const Options& options = {});

// The keywords in one sentence's text (the rules parse() applies): upper-case
// whole words, "NOT" after MUST/SHALL/SHOULD and before RECOMMENDED joining
// them; a keyword touching a double quote ("MUST", "MUST NOT") is a
// mention, not a use.
std::uint32_t keywords_in(std::string_view text, bool lower_case_must);

// "MUST, MAY" for a bit set, in Keyword order.
std::string keyword_names(std::uint32_t keywords);

// FNV-1a-64 of the text, its first 8 hex digits.
std::string fingerprint(std::string_view text);

}  // namespace rdmaconf::rfctext
