// The registry: the data files' rows gathered once, an id index, counts and
// the self-check the tests run.
#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "requirements/requirement.hpp"
#include "requirements/rows.hpp"
#include "requirements/table.hpp"

namespace rdmaconf::requirements {
namespace {

// Registry order: MPA and its update, DDP, RDMAP and its extension,
// security, DDP's other lower layer (SCTP), then SMC-R, then the
// upper-layer protocols over RDMAP.
constexpr std::array<std::string_view, 11> kDocuments = {
    "RFC 5044", "RFC 6581", "RFC 5041", "RFC 5040", "RFC 7306", "RFC 5042",
    "RFC 5043", "RFC 7609", "SMCv2",    "RFC 8166", "RFC 7145",
};

struct Index {
  std::vector<Requirement> rows;
  std::array<std::pair<std::size_t, std::size_t>, kDocuments.size()> ranges{};  // [first, last)
  std::array<std::string_view, kDocuments.size()> names{};
  std::vector<std::pair<std::string_view, std::size_t>> by_id;  // sorted by id
};

const Index& index() {
  static const Index built = [] {
    Index ix;
    for (std::size_t d = 0; d < kDocuments.size(); ++d) {
      const auto first = ix.rows.size();
      const auto rows = rows_of(kDocuments[d]);
      ix.rows.insert(ix.rows.end(), rows.begin(), rows.end());
      ix.ranges[d] = {first, ix.rows.size()};
      ix.names[d] = kDocuments[d];
    }
    ix.by_id.reserve(ix.rows.size());
    for (std::size_t i = 0; i < ix.rows.size(); ++i) ix.by_id.emplace_back(ix.rows[i].id, i);
    std::sort(ix.by_id.begin(), ix.by_id.end());
    return ix;
  }();
  return built;
}

constexpr bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "4", "7.1.2", "a", "a.2.2": dot-separated runs of digits, the first run
// possibly a single appendix letter.
bool well_formed_section(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  std::size_t run = 0;
  bool first_run = true;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      if (run == 0) return false;
      run = 0;
      first_run = false;
      continue;
    }
    const bool appendix = first_run && i == 0 && c >= 'a' && c <= 'z' &&
                          (s.size() == 1 || s[1] == '.');
    if (!is_digit(c) && !appendix) return false;
    ++run;
  }
  return true;
}

// SMCv2 rows name the CLC message or part they constrain: one lower-case word.
bool well_formed_smcv2_part(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

}  // namespace

std::span<const Requirement> all() { return index().rows; }

std::span<const Requirement> of(std::string_view rfc) {
  const Index& ix = index();
  for (std::size_t d = 0; d < ix.names.size(); ++d) {
    if (ix.names[d] == rfc) {
      return std::span<const Requirement>(ix.rows).subspan(ix.ranges[d].first,
                                                           ix.ranges[d].second - ix.ranges[d].first);
    }
  }
  return {};
}

const Requirement* find(std::string_view id) {
  const Index& ix = index();
  const auto it = std::lower_bound(ix.by_id.begin(), ix.by_id.end(), id,
                                   [](const auto& entry, std::string_view key) { return entry.first < key; });
  if (it != ix.by_id.end() && it->first == id) return &ix.rows[it->second];
  for (const Alias& a : aliases())
    if (a.old_id == id) return find(a.id);
  return nullptr;
}

std::span<const std::string_view> documents() { return index().names; }

std::size_t count(std::string_view rfc) { return of(rfc).size(); }

std::size_t count(std::string_view rfc, Level level) {
  const auto rows = of(rfc);
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [level](const Requirement& r) { return r.level == level; }));
}

std::size_t count(Level level) {
  const auto rows = all();
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [level](const Requirement& r) { return r.level == level; }));
}

std::size_t count(Observability observable) {
  const auto rows = all();
  return static_cast<std::size_t>(std::count_if(
      rows.begin(), rows.end(), [observable](const Requirement& r) { return r.observable == observable; }));
}

std::string_view name(Level level) {
  switch (level) {
    case Level::kMust: return "MUST";
    case Level::kMustNot: return "MUST NOT";
    case Level::kShould: return "SHOULD";
    case Level::kShouldNot: return "SHOULD NOT";
    case Level::kMay: return "MAY";
    case Level::kLowerCaseMust: return "must";
  }
  return "?";
}

std::string_view name(Observability observable) {
  switch (observable) {
    case Observability::kOnTheWire: return "on the wire";
    case Observability::kOnTheWireAsPeer: return "on the wire as peer";
    case Observability::kNotObservable: return "not observable";
  }
  return "?";
}

bool well_formed_id(std::string_view id) {
  const auto first = id.find('-');
  if (first == std::string_view::npos) return false;
  const std::string_view document = id.substr(0, first);
  const auto second = id.find('-', first + 1);
  if (second == std::string_view::npos) return false;
  const std::string_view section = id.substr(first + 1, second - first - 1);
  const std::string_view short_name = id.substr(second + 1);

  if (document == "smcv2") {
    if (!well_formed_smcv2_part(section)) return false;
  } else {
    if (document.size() != 7 || document.substr(0, 3) != "rfc" ||
        !std::all_of(document.begin() + 3, document.end(), is_digit)) {
      return false;
    }
    if (!well_formed_section(section)) return false;
  }
  // Words of [a-z0-9] joined by single '-'.
  if (short_name.empty() || short_name.front() == '-' || short_name.back() == '-') return false;
  for (std::size_t i = 0; i < short_name.size(); ++i) {
    const char c = short_name[i];
    if (c == '-') {
      if (short_name[i - 1] == '-') return false;
    } else if (!is_lower_alnum(c)) {
      return false;
    }
  }
  return true;
}

std::vector<std::string> problems(std::span<const Requirement> rows) {
  std::vector<std::string> found;
  auto say = [&found](std::string_view id, std::string_view what) {
    found.push_back(std::string(id) + ": " + std::string(what));
  };
  std::vector<std::string_view> ids;
  ids.reserve(rows.size());
  for (const Requirement& r : rows) {
    ids.push_back(r.id);
    if (!well_formed_id(r.id)) say(r.id, "id is not <document>-<section>-<name> in lower case");
    if (r.rfc.empty() || r.rfc != detail::id_document(r.id)) say(r.id, "document does not match the id");
    if (r.section.empty() || r.section != detail::id_section(r.id)) say(r.id, "section does not match the id");
    if (r.summary.empty()) say(r.id, "no summary");
    if (r.summary.size() > 400) say(r.id, "summary longer than 400 characters");
    const bool hidden = r.observable == Observability::kNotObservable;
    if (hidden && r.why_not_observable.empty()) say(r.id, "not observable, but no reason given");
    if (!hidden && !r.why_not_observable.empty()) say(r.id, "observable, yet a reason why not is given");
    if (hidden && !r.no_case.empty()) say(r.id, "not observable, yet a reason why no case drives it is given");
    // The columns a tool reads. A row cites its own section, named by its id; a second source
    // is another document (also_see), never another section of its own.
    if (!r.also_see.empty() && r.rfc != "SMCv2" &&
        (r.also_see.find(r.rfc) != std::string_view::npos || r.also_see.starts_with("§")))
      say(r.id, "cites another section of its own document than its id names");
    if (!r.phrase.empty() && r.rfc == "SMCv2" && r.also_see.empty())
      say(r.id, "a checked SMCv2 row names the Linux source it follows (also_see)");
    if (citation(r).size == Citation{}.text.size()) say(r.id, "citation too long");
    if (static_cast<int>(r.weight) < static_cast<int>(weight_of(r.level)))
      say(r.id, "weighs more than its level");
    if (!r.decline.empty() && r.rfc != "RFC 7609" && r.rfc != "SMCv2")
      say(r.id, "a decline diagnosis on a row that is not a CLC rule");
    const bool lower_case_document = r.rfc == "RFC 7609" || r.rfc == "SMCv2";
    if (lower_case_document != (r.level == Level::kLowerCaseMust)) {
      say(r.id, "lower-case \"must\" is the level of RFC 7609 and SMCv2 rows, and only theirs");
    }
  }
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 1; i < ids.size(); ++i) {
    if (ids[i] == ids[i - 1] && (i == 1 || ids[i - 2] != ids[i])) say(ids[i], "id is not unique");
  }
  return found;
}

std::vector<std::string> alias_problems(std::span<const Alias> table, std::span<const Requirement> rows) {
  std::vector<std::string> found;
  auto row_with = [rows](std::string_view id) {
    return std::find_if(rows.begin(), rows.end(), [id](const Requirement& r) { return r.id == id; }) != rows.end();
  };
  for (std::size_t i = 0; i < table.size(); ++i) {
    const Alias& a = table[i];
    const std::string name(a.old_id);
    if (!well_formed_id(a.old_id)) found.push_back(name + ": old id is not well formed");
    if (row_with(a.old_id)) found.push_back(name + ": old id is still a row's id");
    if (!row_with(a.id)) found.push_back(name + ": renamed to " + std::string(a.id) + ", which is not a row");
    for (std::size_t j = 0; j < i; ++j)
      if (table[j].old_id == a.old_id) found.push_back(name + ": listed twice");
  }
  return found;
}

}  // namespace rdmaconf::requirements
