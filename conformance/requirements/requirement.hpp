// The requirement registry: the single source of truth for "which RFC
// requirement is this".
//
// Every MUST / MUST NOT / SHOULD / SHOULD NOT / MAY statement of the iWARP
// RFCs (5044 with 6581, 5041, 5040 with 7306, 5042) and every lower-case
// "must" rule of RFC 7609 (SMC-R CLC), plus the SMC v2 CLC rules as Linux
// net/smc implements them, is one Requirement row with a stable id:
//
//   <document>-<section>-<short-name>     e.g. rfc5044-7.1.2-pd-length-max
//
// The conformance cases, the capture analyzer and the Wireshark dissector
// name requirements by these ids. An id names the section holding its
// requirement; a row found under the wrong section is renamed and its old id
// kept as an Alias that find() still resolves. A wrong row is corrected in
// place, a withdrawn one stays with its summary saying why. Summaries are in
// our own words, never RFC text.
//
// Standard library only: fuzz targets, the analyzer and the dissector link
// this library.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rdmaconf::requirements {

// The strength of a statement, in the words of RFC 2119 - and RFC 7609's
// informal lower-case "must", which this project counts as a requirement.
enum class Level : unsigned char {
  kMust,
  kMustNot,
  kShould,
  kShouldNot,
  kMay,
  kLowerCaseMust,  // RFC 7609 and SMC v2: "must" / "must not" without RFC 2119 force
};

// Who can check a requirement, and how.
enum class Observability : unsigned char {
  kOnTheWire,        // visible in what the implementation sends (a capture shows it)
  kOnTheWireAsPeer,  // visible only by provoking the peer and watching its answer
  kNotObservable,    // local behaviour (API, memory, ordering of completions ...)
};

struct Requirement {
  std::string_view id;       // "rfc5044-7.1.2-pd-length-max"
  std::string_view rfc;      // "RFC 5044", or "SMCv2" for the Linux-defined v2 rules
  std::string_view section;  // "7.1.2"; appendices as "a.2.2"; SMCv2 rows name the message
  Level level;
  std::string_view summary;  // our own words
  Observability observable;
  std::string_view why_not_observable;  // one line; set exactly when kNotObservable
};

// Every row, grouped by document in the order of documents(), each
// document's rows in the order of its data file (section order).
std::span<const Requirement> all();

// The rows of one document ("RFC 5044", "SMCv2").
std::span<const Requirement> of(std::string_view rfc);

// The row with this id, or nullptr. An old id (an alias) finds the row it
// was renamed to.
const Requirement* find(std::string_view id);

// A row's earlier id. When a row's id named another section than the one it
// cites, the row was renamed to name its section; the old id stays here so
// reports, filters and scripts written with it still resolve.
struct Alias {
  std::string_view old_id;
  std::string_view id;
};
std::span<const Alias> aliases();

// The documents the registry covers, in registry order.
std::span<const std::string_view> documents();

std::size_t count(std::string_view rfc);
std::size_t count(std::string_view rfc, Level level);
std::size_t count(Level level);
std::size_t count(Observability observable);

// "MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY", "must".
std::string_view name(Level level);
// "on the wire", "on the wire as peer", "not observable".
std::string_view name(Observability observable);

// A failure of a mandatory requirement fails a conformance run; a missed
// SHOULD is graded non-strict; a MAY is informational.
constexpr bool is_mandatory(Level level) {
  return level == Level::kMust || level == Level::kMustNot || level == Level::kLowerCaseMust;
}

// Ids: "<document>-<section>-<name>", all lower case. <document> is
// "rfc" + four digits or "smcv2"; <section> is digits and dots, optionally
// led by an appendix letter ("a.2.2"), or for SMCv2 a message word
// ("proposal"); <name> is one or more words of [a-z0-9] joined by '-'.
bool well_formed_id(std::string_view id);

// The problems a registry check finds (duplicate ids, malformed ids, empty
// summaries, missing or stray reasons ...), one line each; empty when the
// rows are sound. Tests call it on all(); it takes any rows so that its own
// checks can be tested on bad data.
std::vector<std::string> problems(std::span<const Requirement> rows);

// The problems of an alias table: old ids malformed or still in use as a
// row's id, targets missing, an old id listed twice.
std::vector<std::string> alias_problems(std::span<const Alias> table, std::span<const Requirement> rows);

}  // namespace rdmaconf::requirements
