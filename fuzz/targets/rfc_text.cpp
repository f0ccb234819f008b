// The plain-text RFC reader (conformance/requirements/rfctext) that the
// `requirements --rfc-dir` command runs on files a user supplies.
//
// Input: one options octet (bit 0: lower-case "must" counts; bit 1: small
// limits), then the file's octets. Properties:
//  - no crash, no unbounded work: every sentence is within the sentence
//    limit, at most the sentence count limit are kept, a section number is
//    within its limit, and `truncated` is set when a limit was reached;
//  - every sentence's text is normalised (no leading, trailing or doubled
//    space, no line break) and non-empty, its fingerprint is 8 hex digits
//    and equals fingerprint(text), and its keywords are keywords_in(text)
//    (both computed again on one input in eight: fuzz::rechecked);
//  - sentence line numbers never decrease;
//  - parsing is deterministic (the same input gives the same sentences),
//    checked on one input in eight too.
#include <cstdint>
#include <cstring>
#include <string_view>

#include "common/input.hpp"
#include "rfc_text.hpp"

using namespace rdmaconf;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t mode = in.u8();
  const fuzz::Bytes rest = in.rest();
  const std::string_view text(reinterpret_cast<const char*>(rest.data()), rest.size());

  rfctext::Options options;
  options.lower_case_must = (mode & 1) != 0;
  if ((mode & 2) != 0) {
    options.limits.max_input = 4096;
    options.limits.max_sentence = 64;
    options.limits.max_sentences = 16;
    options.limits.max_section = 6;
  }
  const rfctext::Document doc = rfctext::parse(text, options);
  const bool recheck = fuzz::rechecked(size);
  FUZZ_CHECK(doc.sentences.size() <= options.limits.max_sentences);
  std::uint32_t last_line = 0;
  for (const rfctext::Sentence& s : doc.sentences) {
    FUZZ_CHECK(!s.text.empty());
    FUZZ_CHECK(s.text.size() <= options.limits.max_sentence);
    FUZZ_CHECK(s.section.size() <= options.limits.max_section);
    FUZZ_CHECK(s.text.front() != ' ' && s.text.back() != ' ');
    // memmem once a sentence: std::string::find would call memcmp at every
    // space, and libFuzzer hooks each call.
    FUZZ_CHECK(memmem(s.text.data(), s.text.size(), "  ", 2) == nullptr);
    FUZZ_CHECK(s.text.find('\n') == std::string::npos);
    FUZZ_CHECK(s.fingerprint.size() == 8);
    if (recheck) {
      FUZZ_CHECK(s.fingerprint == rfctext::fingerprint(s.text));
      FUZZ_CHECK(s.keywords == rfctext::keywords_in(s.text, options.lower_case_must));
    }
    FUZZ_CHECK(s.line >= last_line);
    last_line = s.line;
  }
  if (text.size() > options.limits.max_input) FUZZ_CHECK(doc.truncated);

  // Determinism: every field of every sentence.
  if (!recheck) return 0;
  const rfctext::Document again = rfctext::parse(text, options);
  FUZZ_CHECK(again.rfc_number == doc.rfc_number && again.truncated == doc.truncated);
  FUZZ_CHECK(again.sentences.size() == doc.sentences.size());
  for (std::size_t i = 0; i < doc.sentences.size(); ++i) {
    const rfctext::Sentence& a = doc.sentences[i];
    const rfctext::Sentence& b = again.sentences[i];
    FUZZ_CHECK(a.text == b.text && a.section == b.section && a.line == b.line);
    FUZZ_CHECK(a.keywords == b.keywords && a.fingerprint == b.fingerprint);
  }
  return 0;
}
