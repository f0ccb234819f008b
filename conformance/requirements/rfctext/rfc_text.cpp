// The plain-text RFC reader (rfc_text.hpp): page furniture removed, headings
// turned into sections, paragraphs joined, sentences split, keywords found.
#include "rfc_text.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>

namespace rdmaconf::rfctext {
namespace {

constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool is_letter(char c) { return is_upper(c) || is_lower(c); }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// "... [Page 12]" at the end of a line.
bool is_footer(std::string_view line) {
  line = trim(line);
  if (line.size() < 8 || line.back() != ']') return false;
  const auto open = line.rfind("[Page ");
  if (open == std::string_view::npos) return false;
  const std::string_view number = line.substr(open + 6, line.size() - open - 7);
  return !number.empty() && number.size() <= 6 && std::all_of(number.begin(), number.end(), is_digit);
}

// "RFC 5044   MPA Framing for TCP   October 2007" in column 0.
bool is_running_header(std::string_view line) {
  return starts_with(line, "RFC ") && line.size() > 4 && is_digit(line[4]);
}

// A heading's section number, or "" for an unnumbered column-0 line.
// "4.1.  Title" -> "4.1"; "A.5.1  Title" -> "a.5.1"; "Appendix B.  Title"
// and "Appendix B: Title" -> "b".
std::string heading_section(std::string_view line, std::size_t max_section) {
  std::string section;
  std::size_t i = 0;
  bool appendix = false;
  if (starts_with(line, "Appendix ") && line.size() > 9 && is_upper(line[9]) &&
      (line.size() == 10 || line[10] == '.' || line[10] == ':' || is_space(line[10]))) {
    line.remove_prefix(9);
    appendix = true;
  }
  if (!line.empty() && is_upper(line[0]) &&
      (line.size() == 1 || line[1] == '.' || is_space(line[1]) || (appendix && line[1] == ':'))) {
    section.push_back(static_cast<char>(line[0] - 'A' + 'a'));
    i = 1;
  } else if (!line.empty() && is_digit(line[0])) {
    while (i < line.size() && is_digit(line[i])) section.push_back(line[i++]);
  } else {
    return {};
  }
  // Further ".N" runs.
  while (i + 1 < line.size() && line[i] == '.' && is_digit(line[i + 1])) {
    section.push_back('.');
    ++i;
    while (i < line.size() && is_digit(line[i])) section.push_back(line[i++]);
  }
  if (i < line.size() && (line[i] == '.' || (appendix && line[i] == ':'))) ++i;
  // A heading number is followed by white space (or ends the line).
  if (i < line.size() && !is_space(line[i])) return {};
  if (section.size() > max_section) section.resize(max_section);
  return section;
}

// A line that opens a list item ends the paragraph before it.
bool opens_list_item(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.size() >= 2 && (t[0] == 'o' || t[0] == '*' || t[0] == '-' || t[0] == '+') && t[1] == ' ') return true;
  std::size_t i = 0;
  while (i < t.size() && i < 3 && is_digit(t[i])) ++i;
  if (i > 0 && i + 2 < t.size() && t[i] == '.' && t[i + 1] == ' ' && t[i + 2] == ' ') return true;
  if (t.size() >= 4 && t[0] == '(') {
    const auto close = t.find(')');
    if (close != std::string_view::npos && close >= 2 && close <= 4 && close + 1 < t.size() &&
        t[close + 1] == ' ') {
      return std::all_of(t.begin() + 1, t.begin() + static_cast<std::ptrdiff_t>(close),
                         [](char c) { return is_letter(c) || is_digit(c); });
    }
  }
  return false;
}

constexpr std::array<std::string_view, 12> kAbbreviations = {"e.g", "i.e", "etc", "cf", "vs", "al",
                                                             "Fig", "Sec", "No", "approx", "resp", "viz"};

// Is the word ending just before `dot` (the '.' at text[dot]) an abbreviation?
bool abbreviation_before(std::string_view text, std::size_t dot) {
  std::size_t start = dot;
  while (start > 0 && !is_space(text[start - 1]) && text[start - 1] != '(') --start;
  const std::string_view word = text.substr(start, dot - start);
  if (word.size() == 1 && is_letter(word[0])) return true;  // an initial, "A."
  return std::find(kAbbreviations.begin(), kAbbreviations.end(), word) != kAbbreviations.end();
}

struct Builder {
  const Options& options;
  Document& doc;
  std::string section;

  void add_sentence(std::string_view raw, std::uint32_t line) {
    if (doc.sentences.size() >= options.limits.max_sentences) {
      doc.truncated = true;
      return;
    }
    // Words joined by single spaces, copied a word at a time (a copy per
    // character was a tenth of the fuzz target's time).
    std::string text;
    text.reserve(std::min(raw.size(), options.limits.max_sentence));
    const std::size_t limit = options.limits.max_sentence;
    for (std::size_t i = 0; i < raw.size();) {
      if (is_space(raw[i])) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < raw.size() && !is_space(raw[j])) ++j;
      // The separating space counts too: the text never passes the limit.
      const std::size_t space = text.empty() ? 0 : 1;
      const std::size_t room = limit > text.size() + space ? limit - text.size() - space : 0;
      if (room == 0) {
        doc.truncated = true;
        break;
      }
      if (space) text.push_back(' ');
      text.append(raw.substr(i, std::min(room, j - i)));
      if (j - i > room) {
        doc.truncated = true;
        break;
      }
      i = j;
    }
    if (text.empty()) return;
    Sentence s;
    s.section = section;
    s.line = line;
    s.keywords = keywords_in(text, options.lower_case_must);
    s.fingerprint = fingerprint(text);
    s.text = std::move(text);
    doc.sentences.push_back(std::move(s));
  }

  // Splits a joined paragraph; `lines` gives the input line of each offset.
  void add_paragraph(std::string_view para, const std::vector<std::pair<std::size_t, std::uint32_t>>& lines) {
    auto line_at = [&lines](std::size_t offset) -> std::uint32_t {
      // The last line starting at or before `offset` (lines are in offset order).
      const auto it = std::upper_bound(lines.begin(), lines.end(), offset,
                                       [](std::size_t o, const auto& entry) { return o < entry.first; });
      return it == lines.begin() ? (lines.empty() ? 0 : lines.front().second) : std::prev(it)->second;
    };
    std::size_t start = 0;
    for (std::size_t i = 0; i < para.size(); ++i) {
      const char c = para[i];
      if (c != '.' && c != '?' && c != '!') continue;
      std::size_t end = i + 1;
      while (end < para.size() && (para[end] == '"' || para[end] == ')' || para[end] == '\'' || para[end] == ']')) {
        ++end;
      }
      if (end >= para.size()) break;  // the paragraph's end closes it anyway
      if (para[end] != ' ') continue;
      std::size_t next = end;
      while (next < para.size() && para[next] == ' ') ++next;
      if (next >= para.size()) break;
      const bool wide = next - end >= 2;  // two spaces (or a line end, joined as two)
      const char after = para[next];
      const bool capital = is_upper(after) || after == '"' || after == '(' || after == '[';
      if (!wide && !(capital && !(c == '.' && abbreviation_before(para, i)))) continue;
      add_sentence(para.substr(start, end - start), line_at(start));
      start = next;
      i = next - 1;
    }
    if (start < para.size()) add_sentence(para.substr(start), line_at(start));
  }
};

}  // namespace

std::string fingerprint(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = kHex[(h >> (60 - 4 * i)) & 0xf];
  return out;
}

std::uint32_t keywords_in(std::string_view text, bool lower_case_must) {
  std::uint32_t found = 0;
  // Words of letters, each with whether it touches a double quote, read one
  // ahead (a keyword looks at the word after it) without keeping a list.
  struct Word {
    std::string_view w;
    bool quoted = false;
  };
  std::size_t at = 0;
  auto next_word = [&]() -> std::optional<Word> {
    while (at < text.size()) {
      if (!is_letter(text[at])) {
        ++at;
        continue;
      }
      const std::size_t i = at;
      std::size_t j = i;
      while (j < text.size() && is_letter(text[j])) ++j;
      at = j;
      // A word glued to a letter-like neighbour ("MUST_x", "x-MUST") is not a keyword use either:
      // only letters delimit here, so check the characters around for '_' too.
      const bool glued = (i > 0 && (text[i - 1] == '_' || is_digit(text[i - 1]))) ||
                         (j < text.size() && (text[j] == '_' || is_digit(text[j])));
      if (glued) continue;
      // Touching a double quote on either side: a mention ("MUST", "MUST NOT").
      const bool quoted = (i > 0 && text[i - 1] == '"') || (j < text.size() && text[j] == '"');
      return Word{text.substr(i, j - i), quoted};
    }
    return std::nullopt;
  };
  std::optional<Word> word = next_word();
  while (word) {
    std::optional<Word> after = next_word();
    const auto& [w, quoted] = *word;
    bool joined = false;  // the word after is part of this one ("MUST NOT", "NOT RECOMMENDED")
    if (!quoted) {
      const bool next_not = after && after->w == "NOT";
      if (w == "MUST" || w == "SHALL") {
        found |= next_not ? kMustNot : kMust;
        joined = next_not;
      } else if (w == "REQUIRED") {
        found |= kMust;
      } else if (w == "SHOULD") {
        found |= next_not ? kShouldNot : kShould;
        joined = next_not;
      } else if (w == "NOT" && after && after->w == "RECOMMENDED") {
        found |= kShouldNot;
        joined = true;
      } else if (w == "RECOMMENDED") {
        found |= kShould;
      } else if (w == "MAY" || w == "OPTIONAL") {
        found |= kMay;
      } else if (lower_case_must && w == "must") {
        found |= kLowerCaseMust;
      }
    }
    word = joined ? next_word() : after;
  }
  return found;
}

std::string keyword_names(std::uint32_t keywords) {
  static constexpr std::array<std::string_view, 6> kNames = {"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY",
                                                             "must"};
  std::string out;
  for (std::size_t b = 0; b < kNames.size(); ++b) {
    if ((keywords & (1u << b)) == 0) continue;
    if (!out.empty()) out += ", ";
    out += kNames[b];
  }
  return out;
}

Document parse(std::string_view input, const Options& options) {
  Document doc;
  if (input.size() > options.limits.max_input) {
    input = input.substr(0, options.limits.max_input);
    doc.truncated = true;
  }
  Builder b{options, doc, {}};

  // Pass 1: the lines that carry text, page furniture removed.
  struct Line {
    std::string_view text;
    std::uint32_t number;
  };
  std::vector<Line> lines;
  bool after_break = false;  // skipping the blank lines and running header after a footer / form feed
  std::uint32_t number = 0;
  for (std::size_t pos = 0; pos <= input.size();) {
    const auto nl = input.find('\n', pos);
    std::string_view line = input.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? input.size() + 1 : nl + 1;
    if (number < UINT32_MAX) ++number;
    bool form_feed = false;
    while (!line.empty() && (line.front() == '\f')) {
      line.remove_prefix(1);
      form_feed = true;
    }
    while (!line.empty() && (line.back() == '\r' || line.back() == '\f')) {
      form_feed = form_feed || line.back() == '\f';
      line.remove_suffix(1);
    }
    if (is_footer(line)) {
      while (!lines.empty() && trim(lines.back().text).empty()) lines.pop_back();
      after_break = true;
      continue;
    }
    if (form_feed) {
      while (!lines.empty() && trim(lines.back().text).empty()) lines.pop_back();
      after_break = true;
    }
    if (after_break) {
      if (trim(line).empty()) continue;
      if (is_running_header(line)) continue;
      after_break = false;
    }
    if (doc.rfc_number == 0) {
      const auto at = line.find("Request for Comments:");
      if (at != std::string_view::npos) {
        std::string_view rest = trim(line.substr(at + 21));
        unsigned n = 0;
        std::size_t k = 0;
        while (k < rest.size() && k < 6 && is_digit(rest[k])) n = n * 10 + static_cast<unsigned>(rest[k++] - '0');
        doc.rfc_number = n;
      }
    }
    lines.push_back({line, number});
  }

  // Pass 2: headings, paragraphs, sentences.
  std::string para;
  std::vector<std::pair<std::size_t, std::uint32_t>> para_lines;
  auto flush = [&] {
    if (!para.empty()) b.add_paragraph(para, para_lines);
    para.clear();
    para_lines.clear();
  };
  for (const Line& l : lines) {
    const std::string_view t = trim(l.text);
    if (t.empty()) {
      flush();
      continue;
    }
    const char first = l.text.front();
    if (is_letter(first) || is_digit(first)) {  // column 0: a heading (figures drawn there stay text)
      flush();
      b.section = heading_section(l.text, options.limits.max_section);
      continue;
    }
    if (opens_list_item(l.text)) flush();
    if (!para.empty()) {
      // A line that ends a sentence is joined with two spaces so the split sees the end.
      const char last = para.back();
      const bool ends = last == '.' || last == '?' || last == '!' ||
                        ((last == '"' || last == ')') && para.size() >= 2 &&
                         (para[para.size() - 2] == '.' || para[para.size() - 2] == '?'));
      para += ends ? "  " : " ";
    }
    if (para.size() > options.limits.max_sentence * 8) {  // one runaway paragraph: cut it into pieces
      flush();
      doc.truncated = true;
    }
    para_lines.emplace_back(para.size(), l.number);
    para.append(t);
  }
  flush();
  return doc;
}

}  // namespace rdmaconf::rfctext
