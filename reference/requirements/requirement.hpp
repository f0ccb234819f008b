// The requirement registry: the single source of truth for "which RFC
// requirement is this".
//
// Every MUST / MUST NOT / SHOULD / SHOULD NOT / MAY statement of the iWARP
// RFCs (5044 with 6581, 5041, 5040 with 7306, 5042) and every lower-case
// "must" rule of RFC 7609 (SMC-R: CLC, then link groups, LLC and CDC over
// RoCE), plus the SMC v2 CLC rules as Linux net/smc implements them, is one
// Requirement row with a stable id:
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
// The rows are the one source of a requirement for every tool: the rule
// layer (reference/check/) names a row by id and takes its level, citation
// and wording from it (check/rule.hpp), the capture observer and the CLC
// handshake machines likewise, and the conformance layer (trace, catalogue,
// `rdmaconf requirements`) reads the same rows.
//
// Standard library only: the codecs, fuzz targets, the analyzer and the
// dissector link this library.
#pragma once

#include <array>
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

// How much a broken row weighs in a tool's verdict: kMust fails `run` and
// `analyze`, kShould is graded non-strict, kMay informs. A row weighs what
// its level says (is_mandatory: kMust; SHOULD, SHOULD NOT: kShould; MAY:
// kMay) unless it states another weight on purpose, with the reason in its
// summary (a lower-case "must" that rests on one implementation's practice).
enum class Weight : unsigned char { kMust, kShould, kMay };

constexpr bool is_mandatory(Level level);
constexpr Weight weight_of(Level level);

struct Requirement {
  std::string_view id;       // "rfc5044-7.1.2-pd-length-max"
  std::string_view rfc;      // "RFC 5044", or "SMCv2" for the Linux-defined v2 rules
  std::string_view section;  // "7.1.2"; appendices as "a.2.2"; SMCv2 rows name the message
  Level level;
  std::string_view summary;  // our own words
  Observability observable;
  std::string_view why_not_observable;  // one line; set exactly when kNotObservable

  // The columns of a row a tool checks (check/rule.hpp), set where they apply:
  std::string_view phrase;    // the rule in a phrase, printed beside a violation ("DV is 1")
  std::string_view also_see;  // another source the rule rests on, cited after the row's section
                              // ("IBTA vol. 1 §3.5.1"); an SMCv2 row cites the Linux source it follows
  Weight weight = Weight::kMust;  // set from the level by the data files' row()
  std::string_view decline;   // a CLC rule: the diagnosis a handshake machine declines with,
                              // by its Linux name without SMC_CLC_DECL_ ("CNFERR")
  std::string_view no_case;   // an observable row no case can drive: why (what the tester's
                              // SCTP, TCP or RoCE side cannot provoke or see), one line

  // The data files add the columns: row(...).says("DV is 1").also("IBTA vol. 1 §3.5.1"),
  // .uncased("the tester cannot ...") on an observable row no case can drive.
  constexpr Requirement says(std::string_view p) const { return with(&Requirement::phrase, p); }
  constexpr Requirement also(std::string_view s) const { return with(&Requirement::also_see, s); }
  constexpr Requirement declined_with(std::string_view d) const { return with(&Requirement::decline, d); }
  constexpr Requirement uncased(std::string_view why) const { return with(&Requirement::no_case, why); }
  constexpr Requirement weighed(Weight w) const {
    Requirement r = *this;
    r.weight = w;
    return r;
  }

 private:
  constexpr Requirement with(std::string_view Requirement::*column, std::string_view value) const {
    Requirement r = *this;
    r.*column = value;
    return r;
  }
};

// How a tool cites a row: its document and section ("RFC 5044 §7.1.2",
// "RFC 7609 App. A.2.3"), then the also-see column ("RFC 5040 §4.1, RFC 5041
// §4.3"). An SMCv2 row has no RFC section: it cites its also-see alone (the
// Linux source, "SMCv2: smc_clc_msg_hdr").
struct Citation {
  std::array<char, 120> text{};
  std::size_t size = 0;
  constexpr std::string_view view() const { return {text.data(), size}; }
};
constexpr Citation citation(const Requirement& r);

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
constexpr Weight weight_of(Level level) {
  return is_mandatory(level) ? Weight::kMust : level == Level::kMay ? Weight::kMay : Weight::kShould;
}
// "MUST", "SHOULD", "MAY": a weight as reports print it.
constexpr std::string_view name(Weight w) {
  return w == Weight::kMust ? "MUST" : w == Weight::kShould ? "SHOULD" : "MAY";
}

constexpr Citation citation(const Requirement& r) {
  Citation c;
  auto put = [&c](std::string_view s) {
    for (char ch : s)
      if (c.size < c.text.size()) c.text[c.size++] = ch;
  };
  if (r.rfc != "SMCv2") {
    put(r.rfc);
    const bool appendix = !r.section.empty() && r.section.front() >= 'a' && r.section.front() <= 'z';
    if (appendix) {
      put(" App. ");
      put(std::string_view(&"ABCDEFGHIJKLMNOPQRSTUVWXYZ"[r.section.front() - 'a'], 1));
      put(r.section.substr(1));
    } else {
      put(" §");
      put(r.section);
    }
    if (!r.also_see.empty()) put(", ");
  } else if (r.also_see.empty()) {
    put("SMCv2");  // the document itself, when the row names no message layout
  }
  put(r.also_see);
  return c;
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
