#include "engine/script.hpp"

#include "engine/needs.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <list>

namespace rdmaconf::conformance {
namespace {

constexpr std::size_t kMaxLineLength = 4096;
constexpr std::size_t kMaxSteps = 1000;
constexpr std::size_t kMaxParamValues = 256;

// Character classes for the lexer, one table lookup per character: the
// fuzz build traces every comparison, and a chain of them per character
// (space? '='? '|'? ...) was most of what parsing a line cost there.
enum CharClass : std::uint8_t {
  kSpace = 1,     // ' ', '\t', '\r'
  kWordEnd = 2,   // ends a word: a space, '=', '|', '"', '!'
  kAngle = 4,     // '<' or '>': an operator inside a word, a word at its start
  kNameChar = 8,  // in a unit, field or variable name: letters, digits, '_', '.', '-'
  kIdChar = 16,   // in a case id: letters, digits, '-', '_', '{', '}'
};

constexpr std::array<std::uint8_t, 256> kCharClass = [] {
  std::array<std::uint8_t, 256> t{};
  for (unsigned char c : {' ', '\t', '\r'}) t[c] = kSpace | kWordEnd;
  for (unsigned char c : {'=', '|', '"', '!'}) t[c] = kWordEnd;
  t['<'] = t['>'] = kAngle;
  for (unsigned char c = '0'; c <= '9'; ++c) t[c] = kNameChar | kIdChar;
  for (unsigned char c = 'a'; c <= 'z'; ++c) t[c] = kNameChar | kIdChar;
  for (unsigned char c = 'A'; c <= 'Z'; ++c) t[c] = kNameChar | kIdChar;
  t['_'] = t['-'] = kNameChar | kIdChar;
  t['.'] = kNameChar;
  t['{'] = t['}'] = kIdChar;
  return t;
}();

std::uint8_t char_class(char c) { return kCharClass[static_cast<unsigned char>(c)]; }

// Every character of `s` has `cls` (true for an empty s).
bool all_of_class(std::string_view s, std::uint8_t cls) {
  for (char c : s)
    if ((char_class(c) & cls) == 0) return false;
  return true;
}

bool is_space(char c) { return (char_class(c) & kSpace) != 0; }

// An error message from its parts, built in one allocation (a token is a
// view, and std::string has no operator+ for views).
std::string concat(std::initializer_list<std::string_view> parts) {
  std::size_t n = 0;
  for (std::string_view p : parts) n += p.size();
  std::string out;
  out.reserve(n);
  for (std::string_view p : parts) out.append(p);
  return out;
}

}  // namespace

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

namespace {

// Drops a '#' comment that is not inside a string.
std::string_view strip_comment(std::string_view s) {
  // Most lines have no '#' at all; memchr finds that out without a loop.
  if (s.find('#') == std::string_view::npos) return s;
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"' && (i == 0 || s[i - 1] != '\\')) in_string = !in_string;
    if (s[i] == '#' && !in_string) return s.substr(0, i);
  }
  return s;
}

std::optional<std::uint64_t> parse_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::vector<std::uint8_t>> parse_hex(std::string_view s) {
  std::vector<std::uint8_t> out;
  std::string digits;
  for (char c : s)
    if (c != '_' && c != ':') digits.push_back(c);
  if (digits.size() % 2 != 0) return std::nullopt;
  for (std::size_t i = 0; i < digits.size(); i += 2) {
    std::uint8_t b = 0;
    auto [p, ec] = std::from_chars(digits.data() + i, digits.data() + i + 2, b, 16);
    if (ec != std::errc() || p != digits.data() + i + 2) return std::nullopt;
    out.push_back(b);
  }
  return out;
}

// ---------------------------------------------------------------- lexer

// A token is a view into the step's text, or for a string with escapes into
// the unescaped copy the lexer keeps: tokens build no strings of their own,
// only what the step keeps does (most steps are a few words).
struct Token {
  enum class Kind : std::uint8_t { kWord, kString, kOperator, kBar };
  Kind kind;
  std::string_view text;
};

struct LexError {
  std::string message;
};

// `s` as tokens into `out`, which one script's steps share (a step's tokens
// are gone once the step is parsed, and its capacity stays). `unescaped` keeps
// the strings whose escapes were replaced (a list, so that the views stay
// valid as it grows, and nothing is allocated without one).
std::optional<LexError> lex(std::string_view s, std::vector<Token>& out, std::list<std::string>& unescaped) {
  out.clear();
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (is_space(c)) {
      ++i;
    } else if (c == '|') {
      out.push_back({Token::Kind::kBar, "|"});
      ++i;
    } else if (c == '=') {
      out.push_back({Token::Kind::kOperator, "="});
      ++i;
    } else if (c == '!') {
      if (i + 1 >= s.size() || s[i + 1] != '=') return LexError{"expected '!=' after '!'"};
      out.push_back({Token::Kind::kOperator, "!="});
      i += 2;
    } else if ((c == '<' || c == '>') && i > 0 && !is_space(s[i - 1]) && s[i - 1] != '|') {
      // Right after a field name: a comparison. At the start of a word ('<'
      // and '>' that begin a step) it stays a word.
      const bool or_equal = i + 1 < s.size() && s[i + 1] == '=';
      out.push_back({Token::Kind::kOperator, s.substr(i, or_equal ? 2 : 1)});
      i += or_equal ? 2 : 1;
    } else if (c == '"') {
      // Up to the closing quote; a string without escapes is a view of the
      // line, one with them is rebuilt in `unescaped`.
      const std::size_t start = ++i;
      std::string* text = nullptr;
      bool closed = false;
      while (i < s.size()) {
        char d = s[i++];
        if (d == '"') {
          closed = true;
          break;
        }
        if (d == '\\') {
          if (text == nullptr) text = &unescaped.emplace_back(s.substr(start, i - 1 - start));
          if (i >= s.size()) break;
          char e = s[i++];
          if (e == 'n') d = '\n';
          else if (e == 't') d = '\t';
          else if (e == '0') d = '\0';
          else if (e == '"' || e == '\\') d = e;
          else return LexError{std::string("unknown escape '\\") + e + "' in a string"};
          text->push_back(d);
        } else if (text != nullptr) {
          text->push_back(d);
        }
      }
      if (!closed) return LexError{"expected '\"' to close the string"};
      out.push_back({Token::Kind::kString, text != nullptr ? std::string_view(*text) : s.substr(start, i - 1 - start)});
    } else {
      // A word runs to a space, '=', '|', '"' or '!', or to a '<' or '>'
      // after its first character (its first is none of the former, and a
      // '<' or '>' there starts the word).
      std::size_t j = i + 1;
      while (j < s.size() && (char_class(s[j]) & (kWordEnd | kAngle)) == 0) ++j;
      out.push_back({Token::Kind::kWord, s.substr(i, j - i)});
      i = j;
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- parser

class LineParser {
 public:
  explicit LineParser(const std::vector<Token>& tokens) : t_(tokens) {}

  bool done() const { return i_ >= t_.size(); }
  const Token* peek() const { return done() ? nullptr : &t_[i_]; }
  Token take() { return t_[i_++]; }

  // At most how many arguments the tokens left hold, up to a '|': each
  // word or string is one, less one for each operator (its value is no
  // argument of its own).
  std::size_t args_left() const {
    std::size_t n = 0, ops = 0;
    for (std::size_t k = i_; k < t_.size() && t_[k].kind != Token::Kind::kBar; ++k)
      (t_[k].kind == Token::Kind::kOperator ? ops : n) += 1;
    return n > ops ? n - ops : 0;
  }

  // name[&MASK][OP value]
  std::optional<std::string> arg(Arg& out) {
    const Token* t = peek();
    if (t == nullptr || t->kind != Token::Kind::kWord) return "expected a field name";
    out.name = take().text;
    if (const std::size_t amp = out.name.find('&'); amp != std::string::npos) {
      auto m = parse_number(std::string_view(out.name).substr(amp + 1));
      if (!m) return "expected a number (decimal or 0x hex) after '&' in '" + out.name + "'";
      out.mask = *m;
      out.name.resize(amp);
    }
    if (!valid_name(out.name)) return "expected a field name, got '" + out.name + "'";
    const Token* op = peek();
    if (op == nullptr || op->kind != Token::Kind::kOperator) {
      if (out.mask) return "expected a comparison after '" + out.name + "&...'";
      return std::nullopt;
    }
    const std::string_view op_text = take().text;
    out.op = op_text == "="    ? Op::kEq
             : op_text == "!=" ? Op::kNe
             : op_text == "<"  ? Op::kLt
             : op_text == "<=" ? Op::kLe
             : op_text == ">"  ? Op::kGt
                               : Op::kGe;
    out.has_value = true;
    const Token* v = peek();
    if (v == nullptr || v->kind == Token::Kind::kBar || v->kind == Token::Kind::kOperator)
      return concat({"expected a value after '", out.name, op_text, "'"});
    Token vt = take();
    return value(vt, out.value);
  }

  static bool valid_name(std::string_view n) { return !n.empty() && all_of_class(n, kNameChar); }

  static std::optional<std::string> value(const Token& t, Value& v) {
    if (t.kind == Token::Kind::kString) {
      v.kind = Value::Kind::kString;
      v.text = t.text;
      v.bytes.assign(t.text.begin(), t.text.end());
      return std::nullopt;
    }
    std::string_view w = t.text;
    if (w.starts_with("hex:")) {
      auto b = parse_hex(w.substr(4));
      if (!b) return concat({"expected an even number of hex digits after 'hex:', got '", t.text, "'"});
      v.kind = Value::Kind::kBytes;
      v.bytes = std::move(*b);
      return std::nullopt;
    }
    if (w.starts_with("$")) {
      w.remove_prefix(1);
      std::size_t op = w.find_first_of("+-", 1);
      std::string_view name = w.substr(0, op);
      if (!valid_name(name)) return concat({"expected a variable name after '$', got '", t.text, "'"});
      v.kind = Value::Kind::kVariable;
      v.text = std::string(name);
      if (op != std::string_view::npos) {
        auto n = parse_number(w.substr(op + 1));
        if (!n || *n > static_cast<std::uint64_t>(INT64_MAX)) return concat({"expected a number after '", w.substr(op, 1), "' in '", t.text, "'"});
        v.offset = w[op] == '-' ? -static_cast<std::int64_t>(*n) : static_cast<std::int64_t>(*n);
      }
      return std::nullopt;
    }
    if (w.starts_with("@")) {
      // A value the IUT sent earlier in the case (docs/conformance.md).
      w.remove_prefix(1);
      if (!valid_name(w)) return concat({"expected a name after '@', got '", t.text, "'"});
      v.kind = Value::Kind::kCapture;
      v.text = std::string(w);
      return std::nullopt;
    }
    if (!w.empty() && std::isdigit(static_cast<unsigned char>(w[0]))) {
      auto n = parse_number(w);
      if (!n && parse_duration(w)) {
        // A duration (`pause=30ms`) stays a word; its step reads it.
        v.kind = Value::Kind::kWord;
        v.text = t.text;
        return std::nullopt;
      }
      if (!n) return concat({"expected a number (decimal or 0x hex) or a duration (30ms, 2s), got '", t.text, "'"});
      v.kind = Value::Kind::kNumber;
      v.number = *n;
      return std::nullopt;
    }
    if (!valid_name(w)) return concat({"expected a value, got '", t.text, "'"});
    v.kind = Value::Kind::kWord;
    v.text = t.text;
    return std::nullopt;
  }

 private:
  const std::vector<Token>& t_;
  std::size_t i_ = 0;
};

struct Failure {
  int line;
  std::string message;
};

std::optional<std::string> parse_args(LineParser& p, std::vector<Arg>& args, bool stop_at_bar_or_within) {
  args.reserve(args.size() + p.args_left());  // one allocation, not one per doubling
  while (!p.done()) {
    const Token* t = p.peek();
    if (stop_at_bar_or_within && (t->kind == Token::Kind::kBar || (t->kind == Token::Kind::kWord && t->text == "within")))
      return std::nullopt;
    Arg a;
    if (auto e = p.arg(a)) return e;
    args.push_back(std::move(a));
  }
  return std::nullopt;
}

// `tokens`: the script's scratch for lex().
std::optional<Failure> parse_step(std::string_view line_text, int line, Step& step, std::vector<Token>& tokens) {
  std::string_view s = trim(line_text);
  step.line = line;
  step.text = std::string(s);
  std::list<std::string> unescaped;  // outlives the tokens that view it
  if (auto e = lex(s, tokens, unescaped)) return Failure{line, e->message};
  if (tokens.empty() || tokens.front().kind != Token::Kind::kWord)
    return Failure{line, "expected '>', '<', 'handshake', 'wait' or 'connection' at the start of a step"};
  LineParser p(tokens);
  const Token first = p.take();
  if (first.text == ">") {
    step.kind = StepKind::kSend;
    if (p.done() || p.peek()->kind != Token::Kind::kWord) return Failure{line, "expected a unit to send after '>'"};
    step.unit = p.take().text;
    if (!LineParser::valid_name(step.unit)) return Failure{line, "expected a unit name after '>', got '" + step.unit + "'"};
    if (step.unit == "raw") {
      // `> raw hex:...` : the value is positional.
      if (p.done()) return Failure{line, "expected hex:... after 'raw'"};
      Arg a;
      a.name = "octets";
      a.has_value = true;
      if (auto e = LineParser::value(p.take(), a.value)) return Failure{line, *e};
      if (a.value.kind != Value::Kind::kBytes && a.value.kind != Value::Kind::kString)
        return Failure{line, "expected hex:... or a string after 'raw'"};
      step.args.push_back(std::move(a));
    }
    if (auto e = parse_args(p, step.args, false)) return Failure{line, *e};
    return std::nullopt;
  }
  if (first.text == "<") {
    step.kind = StepKind::kExpect;
    for (;;) {
      if (p.done() || p.peek()->kind != Token::Kind::kWord)
        return Failure{line, "expected what the IUT does ('close', 'silence', a unit) after '<' or '|'"};
      Alternative alt;
      alt.unit = p.take().text;
      if (!LineParser::valid_name(alt.unit)) return Failure{line, "expected a unit name, got '" + alt.unit + "'"};
      if (auto e = parse_args(p, alt.args, true)) return Failure{line, *e};
      step.alternatives.push_back(std::move(alt));
      if (p.done()) break;
      Token t = p.take();
      if (t.kind == Token::Kind::kBar) continue;
      // within DURATION ends the step
      if (p.done()) return Failure{line, "expected a duration after 'within'"};
      Token d = p.take();
      auto dur = d.kind == Token::Kind::kWord ? parse_duration(d.text) : std::nullopt;
      if (!dur) return Failure{line, concat({"expected a duration such as 500ms or 2s after 'within', got '", d.text, "'"})};
      step.within = *dur;
      if (!p.done()) return Failure{line, concat({"expected the end of the step after 'within ", d.text, "'"})};
      break;
    }
    return std::nullopt;
  }
  if (first.text == "handshake") {
    step.kind = StepKind::kHandshake;
    step.unit = "handshake";
    if (auto e = parse_args(p, step.args, false)) return Failure{line, *e};
    return std::nullopt;
  }
  if (first.text == "wait") {
    step.kind = StepKind::kWait;
    if (p.done() || p.peek()->kind != Token::Kind::kWord) return Failure{line, "expected a duration after 'wait'"};
    Token d = p.take();
    auto dur = parse_duration(d.text);
    if (!dur) return Failure{line, concat({"expected a duration such as 500ms or 2s after 'wait', got '", d.text, "'"})};
    step.duration = *dur;
    if (!p.done() && p.peek()->kind == Token::Kind::kWord && p.peek()->text == "unscaled") {
      p.take();
      step.unscaled = true;
    }
    if (!p.done()) return Failure{line, concat({"expected the end of the step after 'wait ", d.text, "' (or 'unscaled')"})};
    return std::nullopt;
  }
  if (first.text == "connection") {
    // `connection N`: the steps that follow run on the case's Nth connection
    // to the IUT, opened when first named.
    step.kind = StepKind::kConnection;
    const Token* n = p.peek();
    const auto number = n && n->kind == Token::Kind::kWord ? parse_number(n->text) : std::nullopt;
    if (!number || *number < 1 || *number > kMaxConnections)
      return Failure{line, "expected a connection number from 1 to " + std::to_string(kMaxConnections) + " after 'connection'"};
    (void)p.take();
    step.connection = static_cast<int>(*number);
    if (!p.done()) return Failure{line, "expected the end of the step after 'connection " + std::to_string(step.connection) + "'"};
    return std::nullopt;
  }
  return Failure{line, concat({"expected '>', '<', 'handshake', 'wait' or 'connection' at the start of a step, got '", first.text, "'"})};
}

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    std::size_t c = s.find(',');
    std::string_view item = trim(s.substr(0, c));
    if (!item.empty()) out.emplace_back(item);
    if (c == std::string_view::npos) break;
    s.remove_prefix(c + 1);
  }
  return out;
}

// Every `from` in `s` replaced by `to`, in place.
void replace_all(std::string& s, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

bool valid_id(std::string_view id) { return !id.empty() && all_of_class(id, kIdChar); }

std::string id_suffix(std::string_view v) {
  std::string out;
  for (char c : v) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out.push_back(static_cast<char>(std::tolower(u)));
    else if (!out.empty() && out.back() != '-') out.push_back('-');
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace

std::string_view to_string(Level l) {
  switch (l) {
    case Level::kMust: return "MUST";
    case Level::kMustNot: return "MUST NOT";
    case Level::kShould: return "SHOULD";
    case Level::kShouldNot: return "SHOULD NOT";
    case Level::kMay: return "MAY";
  }
  return "?";
}

std::string_view to_string(Role r) { return r == Role::kResponder ? "responder" : "initiator"; }

std::string_view to_string(Op op) {
  switch (op) {
    case Op::kNone: return "";
    case Op::kEq: return "=";
    case Op::kNe: return "!=";
    case Op::kLt: return "<";
    case Op::kLe: return "<=";
    case Op::kGt: return ">";
    case Op::kGe: return ">=";
  }
  return "";
}

std::optional<Level> parse_level(std::string_view s) {
  if (s == "MUST") return Level::kMust;
  if (s == "MUST NOT") return Level::kMustNot;
  if (s == "SHOULD") return Level::kShould;
  if (s == "SHOULD NOT") return Level::kShouldNot;
  if (s == "MAY") return Level::kMay;
  return std::nullopt;
}

bool Case::needs_item(std::string_view n) const {
  return std::find(needs.begin(), needs.end(), n) != needs.end();
}

std::string SyntaxError::to_string() const {
  // One string, appended to in place (operator+ would build three
  // temporaries; the fuzz target prints every error it provokes).
  std::array<char, 16> number{};
  const auto [end, ec] = std::to_chars(number.data(), number.data() + number.size(), line);
  std::string out;
  out.reserve(file.size() + 16 + message.size());
  out.append(file);
  if (line > 0) out.append(":").append(number.data(), end);  // a folder's error has no line
  if (!file.empty()) out.append(": ");
  out.append(message);
  return out;
}

std::optional<Duration> parse_duration(std::string_view s) {
  double scale = 0;
  if (s.ends_with("ms")) {
    scale = 1;
    s.remove_suffix(2);
  } else if (s.ends_with("s")) {
    scale = 1000;
    s.remove_suffix(1);
  } else {
    return std::nullopt;
  }
  if (s.empty() || s.size() > 9) return std::nullopt;
  std::uint64_t whole = 0;
  std::uint64_t frac = 0, frac_div = 1;
  std::size_t dot = s.find('.');
  std::string_view w = s.substr(0, dot);
  auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), whole);
  if (ec != std::errc() || p != w.data() + w.size()) return std::nullopt;
  if (dot != std::string_view::npos) {
    std::string_view f = s.substr(dot + 1);
    if (f.empty() || f.size() > 3) return std::nullopt;
    auto [q, ec2] = std::from_chars(f.data(), f.data() + f.size(), frac);
    if (ec2 != std::errc() || q != f.data() + f.size()) return std::nullopt;
    for (std::size_t i = 0; i < f.size(); ++i) frac_div *= 10;
  }
  const double ms = (static_cast<double>(whole) + static_cast<double>(frac) / static_cast<double>(frac_div)) * scale;
  return Duration(static_cast<Duration::rep>(ms));
}

namespace {

// A script line as the parser reads it: comments stripped, trimmed, '\'
// continuations joined, blank lines left out.
struct Line {
  int number;
  std::string_view text;
};

// `text` as lines. A line is a view into `text`; only a joined line is
// built, and kept in `joined` (a list, so that the views stay valid as it
// grows, and nothing is allocated while no line is joined).
std::optional<SyntaxError> split_lines(std::string_view text, const std::string& f, std::vector<Line>& lines,
                                       std::list<std::string>& joined) {
  // One search for a NUL over the whole text, not one per line: most texts
  // have none, and the line that holds one is the one it falls before.
  const std::size_t nul_at = text.find('\0');
  const char* const nul = nul_at == std::string_view::npos ? text.data() + text.size() : text.data() + nul_at;
  int n = 0;
  std::string pending;
  int pending_line = 0;
  std::size_t at = 0;
  while (at <= text.size()) {
    std::size_t nl = text.find('\n', at);
    std::string_view raw = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    ++n;
    if (raw.size() > kMaxLineLength) return SyntaxError{f, n, "expected a line of at most 4096 characters"};
    if (raw.data() + raw.size() > nul) return SyntaxError{f, n, "expected text, got a NUL character"};
    std::string_view s = trim(strip_comment(raw));
    if (!pending.empty() && s.empty()) return SyntaxError{f, pending_line, "expected a line after the '\\' continuation"};
    if (pending.empty()) pending_line = n;
    if (!s.empty() && s.back() == '\\') {
      s.remove_suffix(1);
      pending.append(s).push_back(' ');
    } else if (pending.empty()) {
      if (!s.empty()) lines.push_back({n, s});  // already trimmed
    } else {
      pending.append(s);
      if (!trim(pending).empty()) lines.push_back({pending_line, joined.emplace_back(trim(pending))});
      pending.clear();
    }
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
  if (!pending.empty()) return SyntaxError{f, pending_line, "expected a line after the '\\' continuation"};
  return std::nullopt;
}

// The header: `key: value` lines up to the first step. Every case of the
// script starts from `base`; a `param` line makes one case per value.
struct Header {
  Case base;
  std::string param_name;
  std::vector<std::string> param_values;
  int needs_line = 0;
  std::size_t first_step = 0;  // index of the first step's line
};

// One header line into `h`.
std::optional<SyntaxError> header_line(const Line& l, Header& h, std::array<bool, 6>& have) {
  auto error = [&](std::string m) { return SyntaxError{h.base.file, l.number, std::move(m)}; };
  auto& [have_id, have_title, have_req, have_rfc, have_level, have_role] = have;
  std::size_t colon = l.text.find(':');
  if (colon == std::string::npos) return error("expected 'key: value' in the header, or a step");
  // Views: only what the case keeps is copied.
  const std::string_view key = trim(l.text.substr(0, colon));
  const std::string_view value = trim(l.text.substr(colon + 1));
  Case& base = h.base;
  if (key == "id") {
    if (!valid_id(value)) return error(concat({"expected an id of letters, digits and '-', got '", value, "'"}));
    base.id = value;
    base.line = l.number;
    have_id = true;
  } else if (key == "title") {
    base.title = value;
    have_title = !value.empty();
  } else if (key == "requirement" || key == "requirements") {
    base.requirements = split_list(value);
    have_req = !base.requirements.empty();
  } else if (key == "rfc") {
    base.rfc = value;
    have_rfc = !value.empty();
  } else if (key == "level") {
    auto lv = parse_level(value);
    if (!lv) return error(concat({"expected level MUST, MUST NOT, SHOULD, SHOULD NOT or MAY, got '", value, "'"}));
    base.level = *lv;
    have_level = true;
  } else if (key == "role") {
    if (value == "responder") base.role = Role::kResponder;
    else if (value == "initiator") base.role = Role::kInitiator;
    else return error(concat({"expected role responder or initiator, got '", value, "'"}));
    have_role = true;
  } else if (key == "needs") {
    if (value != "-") base.needs = split_list(value);
    h.needs_line = l.number;
  } else if (key == "timeout") {
    auto d = parse_duration(value);
    if (!d) return error(concat({"expected a duration such as 5s for timeout, got '", value, "'"}));
    base.timeout = *d;
  } else if (key == "uncaught") {
    base.uncaught = value;
  } else if (key == "after_close") {
    if (value != "skip" && value != "fail") return error(concat({"expected after_close: skip or fail, got '", value, "'"}));
    base.skip_after_close = value == "skip";
  } else if (key == "param") {
    if (!h.param_name.empty()) return error("expected at most one 'param' line");
    std::size_t c2 = value.find(':');
    if (c2 == std::string::npos) return error("expected 'param: NAME: v1, v2, ...'");
    h.param_name = trim(value.substr(0, c2));
    if (!LineParser::valid_name(h.param_name)) return error("expected a parameter name, got '" + h.param_name + "'");
    h.param_values = split_list(value.substr(c2 + 1));
    if (h.param_values.empty() || h.param_values.size() > kMaxParamValues)
      return error("expected between 1 and 256 parameter values");
  } else {
    return error(concat({"expected a header key (id, title, requirement, rfc, level, role, needs, timeout, param, "
                        "uncaught, after_close), got '", key, "'"}));
  }
  return std::nullopt;
}

// The header's lines up to the first step, with every key a case must have
// and at least one step after them.
std::optional<SyntaxError> parse_header(const std::vector<Line>& lines, Header& h) {
  const std::string& f = h.base.file;
  std::array<bool, 6> have{};  // id, title, requirement, rfc, level, role
  h.first_step = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    const char c0 = l.text[0];
    if (c0 == '>' || c0 == '<' || l.text.starts_with("handshake") || l.text.starts_with("wait ") ||
        l.text.starts_with("connection ")) {
      h.first_step = i;
      break;
    }
    if (auto e = header_line(l, h, have)) return e;
  }
  const int header_end = lines.empty() ? 1 : lines[std::min(h.first_step, lines.size() - 1)].number;
  static constexpr std::array<const char*, 6> kMissing = {
      "expected an 'id:' line in the header",  "expected a 'title:' line in the header",
      "expected a 'requirement:' line in the header", "expected an 'rfc:' line in the header",
      "expected a 'level:' line in the header", "expected a 'role:' line in the header"};
  for (std::size_t k = 0; k < have.size(); ++k)
    if (!have[k]) return SyntaxError{f, header_end, kMissing[k]};
  if (h.first_step == lines.size()) return SyntaxError{f, header_end, "expected at least one step after the header"};
  if (lines.size() - h.first_step > kMaxSteps) return SyntaxError{f, lines[h.first_step].number, "expected at most 1000 steps"};
  return std::nullopt;
}

// One case per param value (one without a param): `{NAME}` replaced in the
// id (or the value appended to it), title, requirements, needs and steps.
// The last case takes the header's own Case rather than a copy of it.
std::optional<SyntaxError> expand(Header& h, const std::vector<Line>& lines, std::vector<Case>& out) {
  const std::string& param_name = h.param_name;
  std::vector<std::string>& param_values = h.param_values;
  if (param_values.empty()) param_values.push_back({});
  const std::string token = param_name.empty() ? std::string() : "{" + param_name + "}";
  std::vector<Token> tokens;  // every step's, in turn
  tokens.reserve(16);
  std::string substituted;    // a step's text with the param's value in it
  out.reserve(param_values.size());
  for (const std::string& pv : param_values) {
    Case c = &pv == &param_values.back() ? std::move(h.base) : h.base;
    const std::string& f = c.file;
    c.steps.reserve(lines.size() - h.first_step);
    if (!param_name.empty()) {
      if (c.id.find(token) != std::string::npos) replace_all(c.id, token, pv);
      else c.id.append("-").append(id_suffix(pv));
      replace_all(c.title, token, pv);
      for (auto& r : c.requirements) replace_all(r, token, pv);
      for (auto& n : c.needs) replace_all(n, token, pv);
    }
    if (c.id.find('{') != std::string::npos || c.id.find('}') != std::string::npos)
      return SyntaxError{f, c.line, "expected every '{NAME}' in the id to name the param"};
    // A needs item nobody can declare lacking would make its case run
    // against every IUT: only the items of needs.hpp.
    for (const std::string& n : c.needs)
      if (!is_needs_item(n))
        return SyntaxError{f, h.needs_line, "expected needs items of " + needs_items_text() + ", got '" + n + "'"};
    for (std::size_t i = h.first_step; i < lines.size(); ++i) {
      Step st;
      // Without a param the line is parsed where it is, not copied first.
      std::string_view step_text = lines[i].text;
      if (!param_name.empty()) {
        substituted.assign(step_text);
        replace_all(substituted, token, pv);
        step_text = substituted;
      }
      if (auto e = parse_step(step_text, lines[i].number, st, tokens)) return SyntaxError{f, e->line, e->message};
      c.steps.push_back(std::move(st));
    }
    out.push_back(std::move(c));
  }
  return std::nullopt;
}

}  // namespace

ParseResult parse_script(std::string_view text, std::string_view file) {
  std::vector<Line> lines;
  std::list<std::string> joined;
  Header h;
  h.base.file = std::string(file);
  if (auto e = split_lines(text, h.base.file, lines, joined)) return *e;
  if (auto e = parse_header(lines, h)) return *e;
  std::vector<Case> out;
  if (auto e = expand(h, lines, out)) return *e;
  return out;
}

}  // namespace rdmaconf::conformance
