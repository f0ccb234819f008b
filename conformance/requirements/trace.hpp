// The registry traced to the RFC text: for every normative sentence of an
// RFC, what accounts for it. A sentence is named by its section and its
// fingerprint (rfctext::fingerprint of its whitespace-normalised text, 8 hex
// digits), so no RFC text is stored here; the `requirements --rfc-dir`
// command reads the user's RFC files and matches sentences to entries.
//
//   covered          one or more registry rows state the sentence's
//                    requirement (the rows' ids, space separated);
//   not observable   a requirement, but on local behaviour nothing on the
//                    wire shows (reason);
//   not a requirement the keyword does not place a requirement on a DDP,
//                    RDMAP, MPA or SMC-R implementation's behaviour (a
//                    restatement of another sentence, a requirement on
//                    another protocol, a description of an option ...; reason).
//
// A row "covers" a sentence only when the row really states it: its level
// is one the sentence uses and its summary says the same thing in other
// words. The command checks the first; review checks the second.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "requirement.hpp"

namespace rdmaconf::requirements {

enum class Accounting : unsigned char { kCovered, kNotObservable, kNotARequirement };

struct SentenceTrace {
  std::string_view section;      // "7.1.1", "a.2"
  std::string_view fingerprint;  // 8 lower-case hex digits
  Accounting accounting;
  std::string_view rows;    // kCovered: registry ids, space separated
  std::string_view reason;  // kNotObservable / kNotARequirement: one line (optional note for kCovered)
};

// An RFC whose normative sentences the trace accounts for.
struct TracedDocument {
  std::string_view rfc;     // "RFC 5044"
  unsigned number;          // 5044
  bool lower_case_must;     // RFC 7609: lower-case "must" is normative
};

std::span<const TracedDocument> traced_documents();
std::span<const SentenceTrace> traces(std::string_view rfc);

// The sentences a row covers (traces listing its id), with their RFC.
struct TracedSentence {
  std::string_view rfc;
  const SentenceTrace* trace;
};
std::vector<TracedSentence> sentences_of(std::string_view id);

// The ids in a trace's rows field.
std::vector<std::string_view> row_ids(const SentenceTrace& t);

std::string_view name(Accounting a);  // "covered", "not observable", "not a requirement"

// Problems in the trace tables themselves (unknown row ids, bad
// fingerprints, duplicates, missing reasons, the section_problems() of each
// traced document's rows), one line each.
std::vector<std::string> trace_problems();

// Rows of one document (`rfc`) whose id names another section than the text
// puts their requirement in: a row the table ties to sentences of its own
// document must name the section of one of them (a row stated in several
// sections names one of those), and its citation must name the section of
// its id. One line per row; empty when every row names its section. Takes
// any rows and table so that its checks can be tested on bad data.
std::vector<std::string> section_problems(std::span<const Requirement> rows, std::string_view rfc,
                                          std::span<const SentenceTrace> table);

}  // namespace rdmaconf::requirements
