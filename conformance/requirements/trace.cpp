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
    TraceTable{{"RFC 5043", 5043, false}, detail::rfc5043_trace},
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

// "7.1.2" out of "rfc5044-7.1.2-pd-length-max".
std::string_view section_of_id(std::string_view id) {
  const auto first = id.find('-');
  if (first == std::string_view::npos) return {};
  const auto second = id.find('-', first + 1);
  if (second == std::string_view::npos) return {};
  return id.substr(first + 1, second - first - 1);
}

// The section a citation names first: "7.1.2" out of "RFC 5044 §7.1.2, ...",
// "a.2.3" out of "RFC 7609 App. A.2.3, ..." (lower-cased as ids write it).
std::string cited_section(std::string_view citation) {
  std::string_view rest = citation.substr(0, citation.find(", "));
  std::string section;
  if (const auto at = rest.find("§"); at != std::string_view::npos) {
    section = rest.substr(at + std::string_view("§").size());
  } else if (const auto app = rest.find(" App. "); app != std::string_view::npos) {
    section = rest.substr(app + 6);
    if (!section.empty() && section.front() >= 'A' && section.front() <= 'Z')
      section.front() = static_cast<char>(section.front() - 'A' + 'a');
  }
  return section;
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

std::vector<std::string> section_problems(std::span<const Requirement> rows, std::string_view rfc,
                                          std::span<const SentenceTrace> table) {
  std::vector<std::string> found;
  for (const Requirement& row : rows) {
    if (row.rfc != rfc) continue;
    const std::string_view named = section_of_id(row.id);
    const std::string cited = cited_section(citation(row).view());
    if (cited != named)
      found.push_back("row " + std::string(row.id) + ": its citation names §" + cited + ", its id §" +
                      std::string(named));
    std::set<std::string_view> stated;  // the sections of the sentences the row covers
    for (const SentenceTrace& t : table) {
      if (t.accounting != Accounting::kCovered) continue;
      const auto ids = row_ids(t);
      if (std::find(ids.begin(), ids.end(), row.id) != ids.end()) stated.insert(t.section);
    }
    if (stated.empty() || stated.count(named)) continue;
    std::string where;
    for (std::string_view s : stated) where += (where.empty() ? "§" : ", §") + std::string(s);
    found.push_back("row " + std::string(row.id) + ": its id names §" + std::string(named) +
                    " but the sentences it covers are in " + where + " (rename it, keeping the old id as an alias)");
  }
  return found;
}

std::vector<std::string> trace_problems() {
  std::vector<std::string> found;
  for (const auto& table : kTables) {
    const auto rows = section_problems(of(table.document.rfc), table.document.rfc, table.rows());
    found.insert(found.end(), rows.begin(), rows.end());
  }
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
