// The script parser (conformance/engine/script.hpp): every construct, the
// file:line of syntax errors, and garbage that must never crash it.
#include "engine/script.hpp"

#include "engine/needs.hpp"

#include <gtest/gtest.h>

#include <random>

namespace rdmaconf::conformance {
namespace {

constexpr std::string_view kHeader =
    "id: x-case\ntitle: A title\nrequirement: rfc5044-7.1.1-pd-length-max\nrfc: RFC 5044 §7.1.4\n"
    "level: MUST\nrole: responder\n";

std::vector<Case> ok(std::string_view text) {
  auto r = parse_script(text, "t.case");
  if (auto* e = std::get_if<SyntaxError>(&r)) ADD_FAILURE() << e->to_string();
  return std::get_if<std::vector<Case>>(&r) ? std::get<std::vector<Case>>(r) : std::vector<Case>{};
}

SyntaxError bad(std::string_view text) {
  auto r = parse_script(text, "t.case");
  EXPECT_TRUE(std::holds_alternative<SyntaxError>(r)) << text;
  return std::holds_alternative<SyntaxError>(r) ? std::get<SyntaxError>(r) : SyntaxError{};
}

TEST(Script, HeaderFields) {
  auto cs = ok(std::string(kHeader) + "needs: buffer:rw, echo\ntimeout: 3s\nuncaught: why\n> mpa.request\n");
  ASSERT_EQ(cs.size(), 1u);
  const Case& c = cs[0];
  EXPECT_EQ(c.id, "x-case");
  EXPECT_EQ(c.title, "A title");
  ASSERT_EQ(c.requirements.size(), 1u);
  EXPECT_EQ(c.rfc, "RFC 5044 §7.1.4");
  EXPECT_EQ(c.level, Level::kMust);
  EXPECT_EQ(c.role, Role::kResponder);
  EXPECT_TRUE(c.needs_item("buffer:rw"));
  EXPECT_TRUE(c.needs_item("echo"));
  EXPECT_EQ(c.timeout, Duration(3000));
  EXPECT_EQ(c.uncaught, "why");
  EXPECT_EQ(c.line, 1);
}

TEST(Script, EveryLevelAndRole) {
  for (auto [text, level] : {std::pair{"MUST NOT", Level::kMustNot}, {"SHOULD", Level::kShould},
                            {"SHOULD NOT", Level::kShouldNot}, {"MAY", Level::kMay}}) {
    std::string s(kHeader);
    s.replace(s.find("MUST\n"), 4, text);
    s.replace(s.find("responder"), 9, "initiator");
    auto cs = ok(s + "< mpa.request\n");
    ASSERT_EQ(cs.size(), 1u);
    EXPECT_EQ(cs[0].level, level);
    EXPECT_EQ(cs[0].role, Role::kInitiator);
  }
}

// A string's escapes wherever they fall: text before the first, between
// them and after the last is kept, and a string without one is kept as it is
// beside a string with them.
TEST(Script, StringEscapes) {
  auto cs = ok(std::string(kHeader) +
               "> mpa.request key=\"a\\\"b\\\\c\\nd\\te\\0f\" pd=\"plain\" other=\"\\\"\"\n");
  ASSERT_EQ(cs.size(), 1u);
  const auto& args = cs[0].steps.at(0).args;
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].value.text, std::string("a\"b\\c\nd\te\0f", 11));
  EXPECT_EQ(args[0].value.bytes, (std::vector<std::uint8_t>{'a', '"', 'b', '\\', 'c', '\n', 'd', '\t', 'e', 0, 'f'}));
  EXPECT_EQ(args[1].value.text, "plain");
  EXPECT_EQ(args[2].value.text, "\"");
  EXPECT_EQ(bad(std::string(kHeader) + "> mpa.request key=\"ab\\q\"\n").message, "unknown escape '\\q' in a string");
  EXPECT_EQ(bad(std::string(kHeader) + "> mpa.request key=\"a\\\"b\n").message, "expected '\"' to close the string");
}

TEST(Script, StepsAndValues) {
  auto cs = ok(std::string(kHeader) +
               "handshake rev=2 hint=markers\n"
               "> write stag=$rw.stag to=$rw.to+16 payload=hex:0102 crc=bad   # comment\n"
               "> mpa.request key=\"MPA ID Req Fram\\\"\" pd=513\n"
               "> raw hex:00_11:22\n"
               "< terminate layer=ddp etype=1 code!=0x10 | close within 1.5s\n"
               "< silence\n"
               "wait 250ms\n"
               "> send \\\n  payload=4\n"
               "wait 610s unscaled\n");
  ASSERT_EQ(cs.size(), 1u);
  const auto& st = cs[0].steps;
  ASSERT_EQ(st.size(), 9u);
  EXPECT_EQ(st[0].kind, StepKind::kHandshake);
  EXPECT_EQ(st[0].args[1].value.kind, Value::Kind::kWord);
  EXPECT_EQ(st[1].kind, StepKind::kSend);
  EXPECT_EQ(st[1].unit, "write");
  EXPECT_EQ(st[1].args[0].value.kind, Value::Kind::kVariable);
  EXPECT_EQ(st[1].args[0].value.text, "rw.stag");
  EXPECT_EQ(st[1].args[1].value.offset, 16);
  EXPECT_EQ(st[1].args[2].value.bytes, (std::vector<std::uint8_t>{1, 2}));
  EXPECT_EQ(st[2].args[0].value.kind, Value::Kind::kString);
  EXPECT_EQ(st[2].args[0].value.text, "MPA ID Req Fram\"");
  EXPECT_EQ(st[2].args[1].value.number, 513u);
  EXPECT_EQ(st[3].unit, "raw");
  EXPECT_EQ(st[3].args[0].value.bytes, (std::vector<std::uint8_t>{0x00, 0x11, 0x22}));
  EXPECT_EQ(st[4].kind, StepKind::kExpect);
  ASSERT_EQ(st[4].alternatives.size(), 2u);
  EXPECT_EQ(st[4].alternatives[0].args[2].op, Op::kNe);
  EXPECT_EQ(st[4].alternatives[0].args[2].value.number, 0x10u);
  EXPECT_EQ(st[4].alternatives[1].unit, "close");
  EXPECT_EQ(st[4].within, Duration(1500));
  EXPECT_EQ(st[5].alternatives[0].unit, "silence");
  EXPECT_EQ(st[6].kind, StepKind::kWait);
  EXPECT_EQ(st[6].duration, Duration(250));
  EXPECT_FALSE(st[6].unscaled);
  EXPECT_EQ(st[8].kind, StepKind::kWait);
  EXPECT_EQ(st[8].duration, Duration(610000));
  EXPECT_TRUE(st[8].unscaled);
  EXPECT_EQ(cs[0].steps.back().line, 16);
  (void)st;
}

// `connection N` (docs/conformance.md, "More than one connection"): a step
// of its own, 1 to kMaxConnections, and a variable may name a connection.
TEST(Script, ConnectionSteps) {
  auto cs = ok(std::string(kHeader) + "handshake\nconnection 2\nhandshake\n> write stag=$1.rw.stag to=$1.rw.to+8\n"
               "connection 1\n");
  ASSERT_EQ(cs.size(), 1u);
  const auto& st = cs[0].steps;
  ASSERT_EQ(st.size(), 5u);
  EXPECT_EQ(st[1].kind, StepKind::kConnection);
  EXPECT_EQ(st[1].connection, 2);
  EXPECT_EQ(st[4].connection, 1);
  EXPECT_EQ(st[3].args[0].value.kind, Value::Kind::kVariable);
  EXPECT_EQ(st[3].args[0].value.text, "1.rw.stag");
  EXPECT_EQ(st[3].args[1].value.offset, 8);
  // A script may begin with one: the header ends there.
  EXPECT_EQ(ok(std::string(kHeader) + "connection 1\n> mpa.request\n")[0].steps.size(), 2u);
  for (const char* wrong : {"connection\n", "connection 0\n", "connection 5\n", "connection two\n", "connection 2 3\n"})
    EXPECT_NE(bad(std::string(kHeader) + "handshake\n" + wrong).message.find("connection"), std::string::npos) << wrong;
}

TEST(Script, ComparisonsMasksAndCaptures) {
  auto cs = ok(std::string(kHeader) +
               "< clc.accept smcr.qp_mtu<=3 smcr.rmbe_index>=1 x<2 y>0x10 smcr.mac&0x010000000000=0 smcr.peer_id=@peer\n"
               "> clc.confirm smcr.peer_id=@peer\n");
  const auto& st = cs[0].steps;
  ASSERT_EQ(st.size(), 2u);
  ASSERT_EQ(st[0].alternatives.size(), 1u);
  const auto& a = st[0].alternatives[0].args;
  ASSERT_EQ(a.size(), 6u);
  EXPECT_EQ(a[0].op, Op::kLe);
  EXPECT_EQ(a[0].value.number, 3u);
  EXPECT_EQ(a[1].op, Op::kGe);
  EXPECT_EQ(a[2].op, Op::kLt);
  EXPECT_EQ(a[3].op, Op::kGt);
  EXPECT_EQ(a[3].value.number, 0x10u);
  EXPECT_EQ(a[4].name, "smcr.mac");
  EXPECT_EQ(a[4].mask, 0x010000000000u);
  EXPECT_EQ(a[4].op, Op::kEq);
  EXPECT_EQ(a[5].value.kind, Value::Kind::kCapture);
  EXPECT_EQ(a[5].value.text, "peer");
  // '<' and '>' that begin a step stay step markers.
  EXPECT_EQ(st[1].kind, StepKind::kSend);
  EXPECT_EQ(st[1].args[0].value.kind, Value::Kind::kCapture);
}

TEST(Script, ComparisonErrorsNameWhatWasExpected) {
  EXPECT_NE(bad(std::string(kHeader) + "< fpdu x<=\n").message.find("expected a value after 'x<='"), std::string::npos);
  EXPECT_NE(bad(std::string(kHeader) + "< fpdu x&zz=1\n").message.find("after '&'"), std::string::npos);
  EXPECT_NE(bad(std::string(kHeader) + "< fpdu x&1\n").message.find("expected a comparison"), std::string::npos);
  EXPECT_NE(bad(std::string(kHeader) + "< fpdu x=@\n").message.find("after '@'"), std::string::npos);
}

TEST(Script, ParamMakesOneCasePerValue) {
  std::string s(kHeader);
  s += "param: dv: 0, 2, \"x y\"\n> send dv={dv}\n";
  auto cs = ok(s);
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0].id, "x-case-0");
  EXPECT_EQ(cs[2].id, "x-case-x-y");
  EXPECT_EQ(cs[1].steps[0].args[0].value.number, 2u);
  std::string t(kHeader);
  t.replace(t.find("x-case"), 6, "dv-{dv}-case");
  auto named = ok(t + "param: dv: 1\n> send dv={dv}\n");
  ASSERT_EQ(named.size(), 1u);
  EXPECT_EQ(named[0].id, "dv-1-case");
}

TEST(Script, SyntaxErrorsNameFileLineAndWhatWasExpected) {
  struct Bad {
    std::string text;
    int line;
    std::string_view expected;
  };
  const std::string h(kHeader);
  const Bad cases[] = {
      {h + "> \n", 7, "expected a unit"},
      {h + "<\n", 7, "expected what the IUT does"},
      {h + "> send payload=\n", 7, "expected a value"},
      {h + "> send payload=\"open\n", 7, "expected '\"'"},
      {h + "> send payload=hex:123\n", 7, "hex digits"},
      {h + "< close within soon\n", 7, "expected a duration"},
      {h + "< close within 1s extra\n", 7, "expected the end"},
      {h + "wait forever\n", 7, "expected a duration"},
      {h + "wait 2s slowly\n", 7, "or 'unscaled'"},
      {h + "frobnicate\n", 7, "expected 'key: value'"},
      {h + "> send\nfrobnicate x\n", 8, "expected '>'"},
      {h + "> send a ! b\n", 7, "'!='"},
      {h + "> send x=$\n", 7, "variable name"},
      {h + "> send x=0xZZ\n", 7, "expected a number"},
      {"id: a\n> send\n", 2, "title"},
      {h, 6, "at least one step"},
      {"level: MUCH\n", 1, "expected level"},
      {"role: observer\n", 1, "expected role"},
      {"id: Bad Id!\n", 1, "expected an id"},
      {"timeout: later\n", 1, "expected a duration"},
      {"colour: red\n", 1, "expected a header key"},
      {h + "param: x\n> send\n", 7, "expected 'param"},
      {h + "> send \\\n", 7, "continuation"},
  };
  for (const Bad& b : cases) {
    SyntaxError e = bad(b.text);
    EXPECT_EQ(e.file, "t.case") << b.text;
    EXPECT_EQ(e.line, b.line) << b.text << " -> " << e.to_string();
    EXPECT_NE(e.message.find(b.expected), std::string::npos) << b.text << " -> " << e.to_string();
    EXPECT_EQ(e.to_string().rfind("t.case:" + std::to_string(b.line) + ": ", 0), 0u);
  }
}

// `needs` names only the items of needs.hpp, after the param is put in, so
// that every item a case needs is one `--iut-lacks` can declare lacking.
TEST(Script, NeedsItemsAreTheTableOnes) {
  auto cs = ok(std::string(kHeader) + "needs: smcr-v2, buffer:otherpd, smcv2.1\n> send\n");
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_TRUE(cs[0].needs_item("smcr-v2"));
  auto offered = ok(std::string(kHeader) + "param: offer: v1, v2\nneeds: clc, smcr-{offer}\n> send\n");
  ASSERT_EQ(offered.size(), 2u);
  EXPECT_TRUE(offered[1].needs_item("smcr-v2"));
  const std::string h(kHeader);
  for (const std::string bad_item : {"smcr-v3", "buffer:nosuch", "buffer", "Echo"}) {
    SyntaxError e = bad(h + "needs: clc, " + bad_item + "\n> send\n");
    EXPECT_EQ(e.line, 7) << bad_item;
    EXPECT_NE(e.message.find("got '" + bad_item + "'"), std::string::npos) << e.message;
    EXPECT_NE(e.message.find("buffer:NAME (rw, ro,"), std::string::npos) << e.message;
  }
  // A param value that makes an unknown item is refused too (smcr-v1v2).
  SyntaxError e = bad(h + "param: offer: v1, v1v2\nneeds: smcr-{offer}\n> send\n");
  EXPECT_NE(e.message.find("got 'smcr-v1v2'"), std::string::npos) << e.message;
  EXPECT_TRUE(is_lackable("buffer"));
  EXPECT_FALSE(is_needs_item("buffer"));
  EXPECT_TRUE(is_lackable("buffer:otherpd"));
  EXPECT_FALSE(is_lackable("buffer:"));
}

TEST(Script, Durations) {
  EXPECT_EQ(parse_duration("250ms"), Duration(250));
  EXPECT_EQ(parse_duration("2s"), Duration(2000));
  EXPECT_EQ(parse_duration("1.25s"), Duration(1250));
  EXPECT_FALSE(parse_duration("2"));
  EXPECT_FALSE(parse_duration("s"));
  EXPECT_FALSE(parse_duration("1.2345s"));
  EXPECT_FALSE(parse_duration("99999999999s"));
}

// Fuzz-style: random octets and random mutations of a valid script never
// crash the parser (ASan/UBSan builds make this sharper) and always yield
// either cases or an error with a line inside the input.
TEST(Script, GarbageNeverCrashes) {
  std::mt19937 rng(12345);
  const std::string valid = std::string(kHeader) +
                            "param: v: 1, 2\nhandshake rev=2\n> write stag=$rw.stag to=$rw.to+{v} payload=hex:0102\n"
                            "< terminate layer=ddp code!=1 | close within 1s\nwait 10ms\n";
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    if (i % 3 == 0) {
      s.resize(rng() % 300);
      for (char& c : s) c = static_cast<char>(rng() % 256);
    } else {
      s = valid;
      const int edits = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < edits && !s.empty(); ++k) {
        const std::size_t at = rng() % s.size();
        switch (rng() % 4) {
          case 0: s[at] = static_cast<char>(rng() % 256); break;
          case 1: s.erase(at, 1 + rng() % 10); break;
          case 2: s.insert(at, 1, "=|\"\\#<>${}:\n\0"[rng() % 14]); break;
          default: s.insert(at, s.substr(rng() % s.size(), 1 + rng() % 20)); break;
        }
      }
    }
    auto r = parse_script(s, "fuzz.case");
    if (auto* e = std::get_if<SyntaxError>(&r)) {
      EXPECT_GE(e->line, 1);
      EXPECT_FALSE(e->message.empty());
    }
  }
}

}  // namespace
}  // namespace rdmaconf::conformance
