// The conformance script language: lexer and parser (docs/conformance.md).
//
// Standard C++ only and free of protocol knowledge, so that it can be fuzzed
// on its own: it turns text into Cases made of Steps whose unit names, field
// names and values are still words. units.cpp gives them their meaning
// against the header declarations of reference/, and the runner runs them.
// Malformed input never throws and never crashes; it yields a SyntaxError
// naming file:line and what was expected.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace rdmaconf::conformance {

using Duration = std::chrono::milliseconds;

enum class Level : std::uint8_t { kMust, kMustNot, kShould, kShouldNot, kMay };
enum class Role : std::uint8_t { kResponder, kInitiator };

std::string_view to_string(Level l);
std::string_view to_string(Role r);
std::optional<Level> parse_level(std::string_view s);
// `s` without the blanks (space, tab, carriage return) at either end, as the
// script and capture-case readers take a line.
std::string_view trim(std::string_view s);
// MUST and MUST NOT: a mismatch is a failure whatever --strict says.
constexpr bool is_mandatory(Level l) { return l == Level::kMust || l == Level::kMustNot; }
constexpr bool is_recommended(Level l) { return l == Level::kShould || l == Level::kShouldNot; }

struct Value {
  enum class Kind : std::uint8_t { kNone, kNumber, kString, kBytes, kWord, kVariable, kCapture };
  Kind kind = Kind::kNone;
  std::uint64_t number = 0;         // kNumber
  std::string text;                 // kString, kWord, kVariable (name without '$'), kCapture (without '@')
  std::vector<std::uint8_t> bytes;  // kBytes; kString also fills it with the text's octets
  std::int64_t offset = 0;          // kVariable: $name+offset
};

// How a matcher compares: `=`, `!=`, `<`, `<=`, `>`, `>=` (a bare name has kNone).
enum class Op : std::uint8_t { kNone, kEq, kNe, kLt, kLe, kGt, kGe };
std::string_view to_string(Op op);

// `name=value`, `name!=value`, `name<value` ... or a bare `name`; in an
// expectation the name may carry a mask, `name&MASK=value`, which compares
// only the bits of MASK (e.g. a MAC's I/G bit).
struct Arg {
  std::string name;
  Op op = Op::kNone;
  std::optional<std::uint64_t> mask;
  bool has_value = false;
  Value value;

  bool negate() const { return op == Op::kNe; }
};

struct Alternative {
  std::string unit;  // "terminate", "close", "silence", "mpa.reply", ...
  std::vector<Arg> args;
};

enum class StepKind : std::uint8_t { kHandshake, kSend, kExpect, kWait, kConnection };

// A case runs on one connection to the IUT unless a `connection N` step
// opens another (docs/conformance.md, "More than one connection").
inline constexpr int kMaxConnections = 4;

struct Step {
  StepKind kind = StepKind::kSend;
  int line = 0;
  std::string unit;                       // kSend
  std::vector<Arg> args;                  // kSend, kHandshake
  std::vector<Alternative> alternatives;  // kExpect
  std::optional<Duration> within;         // kExpect
  Duration duration{0};                   // kWait
  // kWait: `wait D unscaled`, a wait that stands for a timer of the IUT's
  // own (an idle link group's 600 s): --time-scale stretches the tester's
  // patience with a slow IUT, not a timer the IUT runs by the clock.
  bool unscaled = false;
  int connection = 0;                     // kConnection: 1 .. kMaxConnections
  std::string text;                       // the step as written, for reports
};

struct Case {
  std::string file;
  int line = 0;  // of the header's id line
  std::string protocol;  // the folder under conformance/cases (set by the loader)
  std::string id;
  std::string title;
  std::vector<std::string> requirements;
  std::string rfc;
  Level level = Level::kMust;
  Role role = Role::kResponder;
  std::vector<std::string> needs;
  Duration timeout{10000};
  std::string uncaught;  // why no reference fault can make it fail, if so
  // `after_close: skip` (a wire fuzzer's case, docs/fuzzing.md): the IUT
  // closing a connection after its handshake is no mismatch; the steps that
  // follow on that connection are skipped, the next `connection` goes on.
  bool skip_after_close = false;
  std::vector<Step> steps;

  bool needs_item(std::string_view n) const;
};

struct SyntaxError {
  std::string file;
  int line = 0;
  std::string message;  // "expected ..., got ..."
  std::string to_string() const;
};

using ParseResult = std::variant<std::vector<Case>, SyntaxError>;

// Parses one script file (one case, or one per `param` value).
ParseResult parse_script(std::string_view text, std::string_view file);

// "250ms", "2s", "1.5s" -> milliseconds.
std::optional<Duration> parse_duration(std::string_view s);

}  // namespace rdmaconf::conformance
