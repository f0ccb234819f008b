// The trace tables gathered, and their own checks (trace.hpp).
#include "trace.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <tuple>

#include "trace_rows.hpp"

namespace rdmaconf::requirements {
namespace {

struct TraceTable {
  TracedDocument document;
  std::span<const SentenceTrace> (*rows)();
};

constexpr std::array kTables = {
    TraceTable{{"RFC 5044", 5044, false}, detail::rfc5044_trace},
    TraceTable{{"RFC 6581", 6581, false}, detail::rfc6581_trace},
    TraceTable{{"RFC 5041", 5041, false}, detail::rfc5041_trace},
    TraceTable{{"RFC 5040", 5040, false}, detail::rfc5040_trace},
    TraceTable{{"RFC 7306", 7306, false}, detail::rfc7306_trace},
    TraceTable{{"RFC 5042", 5042, false}, detail::rfc5042_trace},
    TraceTable{{"RFC 7609", 7609, true}, detail::rfc7609_trace},
};

const std::array<TracedDocument, kTables.size()>& documents_array() {
  static const auto docs = [] {
    std::array<TracedDocument, kTables.size()> d{};
    for (std::size_t i = 0; i < kTables.size(); ++i) d[i] = kTables[i].document;
    return d;
  }();
  return docs;
}

bool is_hex8(std::string_view s) {
  return s.size() == 8 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

std::span<const TracedDocument> traced_documents() { return documents_array(); }

std::span<const SentenceTrace> traces(std::string_view rfc) {
  for (const auto& t : kTables)
    if (t.document.rfc == rfc) return t.rows();
  return {};
}

std::vector<std::string_view> row_ids(const SentenceTrace& t) {
  std::vector<std::string_view> ids;
  std::string_view rest = t.rows;
  while (!rest.empty()) {
    const auto space = rest.find(' ');
    const std::string_view id = rest.substr(0, space);
    if (!id.empty()) ids.push_back(id);
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  return ids;
}

std::vector<TracedSentence> sentences_of(std::string_view id) {
  std::vector<TracedSentence> out;
  for (const auto& table : kTables)
    for (const SentenceTrace& t : table.rows()) {
      const auto ids = row_ids(t);
      if (std::find(ids.begin(), ids.end(), id) != ids.end()) out.push_back({table.document.rfc, &t});
    }
  return out;
}

std::string_view name(Accounting a) {
  switch (a) {
    case Accounting::kCovered: return "covered";
    case Accounting::kNotObservable: return "not observable";
    case Accounting::kNotARequirement: return "not a requirement";
  }
  return "?";
}

std::vector<std::string> trace_problems() {
  std::vector<std::string> found;
  for (const auto& table : kTables) {
    std::set<std::pair<std::string_view, std::string_view>> seen;
    for (const SentenceTrace& t : table.rows()) {
      const std::string where =
          std::string(table.document.rfc) + " §" + std::string(t.section) + " " + std::string(t.fingerprint) + ": ";
      if (!is_hex8(t.fingerprint)) found.push_back(where + "fingerprint is not 8 lower-case hex digits");
      if (!seen.insert({t.section, t.fingerprint}).second) found.push_back(where + "sentence listed twice");
      const auto ids = row_ids(t);
      if (t.accounting == Accounting::kCovered) {
        if (ids.empty()) found.push_back(where + "covered, but by no row");
        for (std::string_view id : ids) {
          const Requirement* r = find(id);
          if (!r) found.push_back(where + "row " + std::string(id) + " is not in the registry");
          else if (r->id != id) found.push_back(where + "row " + std::string(id) + " is an old alias of " + std::string(r->id));
        }
      } else {
        if (!ids.empty()) found.push_back(where + "names rows but is not 'covered'");
        if (t.reason.empty()) found.push_back(where + "no reason given");
      }
    }
  }
  return found;
}

}  // namespace rdmaconf::requirements
