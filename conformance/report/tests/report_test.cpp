// Report writers: JUnit XML well-formed, JSON carrying the schema's fields
// (the HTML report: conformance/dashboard/tests/static_report_test.cpp).
#include <algorithm>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <vector>

#include "report/report.hpp"
#include "report/text.hpp"

namespace rdmaconf::conformance {
namespace {

// A small well-formedness check: every tag closes in order, attributes are
// quoted, no raw '<' or '&' in text.
bool well_formed_xml(const std::string& x, std::string& why) {
  std::vector<std::string> stack;
  std::size_t i = x.find("?>");
  if (x.rfind("<?xml", 0) != 0 || i == std::string::npos) return why = "no XML declaration", false;
  i += 2;
  while (i < x.size()) {
    if (x[i] == '&') {
      const std::size_t semi = x.find(';', i);
      const std::string ent = x.substr(i, semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;" && ent != "&apos;")
        return why = "bad entity " + ent, false;
      i = semi + 1;
      continue;
    }
    if (x[i] != '<') {
      ++i;
      continue;
    }
    const std::size_t end = x.find('>', i);
    if (end == std::string::npos) return why = "unterminated tag", false;
    std::string tag = x.substr(i + 1, end - i - 1);
    if (tag.find('<') != std::string::npos) return why = "'<' inside a tag", false;
    if (tag[0] == '/') {
      if (stack.empty() || stack.back() != tag.substr(1)) return why = "mismatched </" + tag.substr(1) + ">", false;
      stack.pop_back();
    } else if (tag.back() != '/') {
      stack.push_back(tag.substr(0, tag.find(' ')));
    }
    std::size_t q = 0;
    for (char c : tag) q += c == '"';
    if (q % 2) return why = "unbalanced quotes in <" + tag + ">", false;
    i = end + 1;
  }
  if (!stack.empty()) return why = "unclosed <" + stack.back() + ">", false;
  return true;
}

struct Fixture {
  std::vector<Case> cases;
  std::vector<CaseResult> results;
  Fixture() {
    const char* ids[] = {"a-pass", "b-fail", "c-should", "d-unimpl", "e-error"};
    const Verdict vs[] = {Verdict::kPass, Verdict::kFail, Verdict::kNonStrict, Verdict::kUnimplemented, Verdict::kError};
    for (int k = 0; k < 5; ++k) {
      Case c;
      c.id = ids[k];
      c.title = "title with <angle> & \"quotes\"";
      c.protocol = k % 2 ? "ddp" : "mpa";
      c.requirements = {"rfc5044-7.1.1-key-check"};
      c.rfc = "RFC 5044 §7.1.1";
      c.file = "mpa/x.case";
      cases.push_back(c);
    }
    for (int k = 0; k < 5; ++k) {
      CaseResult r;
      r.c = &cases[k];
      r.verdict = vs[k];
      r.reason = k ? "expected terminate, got <send> & more \x01" : "";
      r.failed_line = k ? 9 : 0;
      r.frames.push_back({true, 0.5, "--> MPA Request, Rev 1, 20 octets", "    MPA Request/Reply frame header: key=...\n"});
      r.frames.push_back({false, 1.5, "<-- terminate, FPDU 32 octets", "    RDMAP Terminate Control: layer=0x1\n"});
      results.push_back(r);
    }
  }
};

// The one join the report writers share (report/text.hpp): separators only
// between parts, and an empty part keeps its place.
TEST(Report, JoinPutsTheSeparatorBetweenEachTwoParts) {
  EXPECT_EQ(report_text::join({}, ", "), "");
  EXPECT_EQ(report_text::join({"a"}, ", "), "a");
  EXPECT_EQ(report_text::join({"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(report_text::join({"", "b"}, ","), ",b");
  EXPECT_EQ(report_text::join({"a", "", "c"}, " "), "a  c");
}

// The one shell quoting (report/text.hpp) of the reproducer lines and of
// the CLC options a run repeats: plain words as they are, anything a shell
// would expand, split or take as syntax in single quotes.
TEST(Report, ShellWordQuotesWhatAShellWouldReadOtherwise) {
  EXPECT_EQ(report_text::shell_word("192.0.2.1:7000"), "192.0.2.1:7000");
  EXPECT_EQ(report_text::shell_word("crc=off,markers=on"), "crc=off,markers=on");
  EXPECT_EQ(report_text::shell_word("http://10.0.0.1:7500/a_b-c@d%e+f"), "http://10.0.0.1:7500/a_b-c@d%e+f");
  EXPECT_EQ(report_text::shell_word(""), "''");
  EXPECT_EQ(report_text::shell_word("two words"), "'two words'");
  EXPECT_EQ(report_text::shell_word("$HOME"), "'$HOME'");
  EXPECT_EQ(report_text::shell_word("a;b|c&d`e`*?~"), "'a;b|c&d`e`*?~'");
  EXPECT_EQ(report_text::shell_word("it's"), "'it'\\''s'");
}

TEST(Report, JunitIsWellFormedAndCountsVerdicts) {
  Fixture f;
  std::ostringstream out;
  write_junit(out, f.results, RunInfo{"127.0.0.1:7000", "", false, 1234});
  std::string why;
  EXPECT_TRUE(well_formed_xml(out.str(), why)) << why << "\n" << out.str();
  EXPECT_NE(out.str().find("<failure"), std::string::npos);
  EXPECT_NE(out.str().find("<skipped"), std::string::npos);
  EXPECT_NE(out.str().find("<error"), std::string::npos);
  EXPECT_NE(out.str().find("testsuite name=\"ddp\""), std::string::npos);
  EXPECT_EQ(out.str().find('\x01'), std::string::npos);
}

TEST(Report, JsonCarriesTheSchemaFields) {
  Fixture f;
  std::ostringstream out;
  write_json(out, f.results, RunInfo{"t", "", true, 10});
  const std::string j = out.str();
  const auto report = nlohmann::json::parse(j);
  for (const char* key : {"tool", "target", "faults", "strict", "duration_ms", "skipped", "summary", "exit_code", "cases"})
    EXPECT_TRUE(report.contains(key)) << key;
  EXPECT_EQ(report["strict"], true);
  EXPECT_EQ(report["exit_code"], 1);
  const auto failed = std::find_if(report["cases"].begin(), report["cases"].end(),
                                   [](const nlohmann::json& c) { return c["id"] == "b-fail"; });
  ASSERT_NE(failed, report["cases"].end()) << j;
  for (const char* key : {"requirements", "level", "role", "reason", "frames", "agent"})
    EXPECT_TRUE(failed->contains(key)) << key;
  EXPECT_EQ((*failed)["verdict"], "fail");
  EXPECT_EQ((*failed)["failed_line"], 9);
  bool iut_frame = false;
  for (const auto& fr : (*failed)["frames"]) iut_frame = iut_frame || (fr["from"] == "iut" && fr.contains("headline"));
  EXPECT_TRUE(iut_frame) << j;
  // No raw control character inside the text (the fixture's reasons carry some).
  for (char c : j) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << "raw control character";
}

TEST(Report, JsonReadBackWritesTheSameReport) {
  Fixture f;
  for (CaseResult& r : f.results) {
    for (FrameRecord& fr : r.frames) fr.at_ms = static_cast<long long>(fr.at_ms);  // the JSON holds whole ms
    r.agent.push_back({12, "completion", "recv", "success", 4, "", "", ""});
    r.configuration = "crc=on";
  }
  std::ostringstream first;
  write_json(first, f.results, RunInfo{"10.0.0.1:7000", "", true, 1234, {"ddp: not offered"}});
  std::vector<CaseResult> back;
  RunInfo info;
  std::string error;
  ASSERT_TRUE(read_json(first.str(), f.cases, back, info, error)) << error;
  std::ostringstream again;
  write_json(again, back, info);
  EXPECT_EQ(again.str(), first.str());

  ASSERT_TRUE(read_json(first.str(), f.cases, back, info, error)) << error;
  ASSERT_EQ(back.size(), 10u);
  EXPECT_EQ(info.wall_ms, 2468);
  EXPECT_EQ(summarize(back).counts[Verdict::kFail], 2);
  EXPECT_EQ(back[6].reason, f.results[1].reason);
  EXPECT_EQ(back[6].c, &f.cases[1]);
}

TEST(Report, JsonReadRefusesWhatIsNotAReport) {
  Fixture f;
  std::ostringstream j;
  write_json(j, f.results, RunInfo{"t", "", false, 10});
  std::vector<CaseResult> back;
  RunInfo info;
  std::string error;
  EXPECT_FALSE(read_json("{\"tool\": \"other\", \"cases\": []}", f.cases, back, info, error));
  EXPECT_FALSE(read_json("{\"tool\": \"rdmaconf\", \"cas", f.cases, back, info, error));
  EXPECT_EQ(error, "not JSON");
  auto gone = nlohmann::json::parse(j.str());
  for (auto& c : gone["cases"])
    if (c["id"] == "b-fail") c["id"] = "z-gone";
  const std::string renamed = gone.dump();
  EXPECT_FALSE(read_json(renamed, f.cases, back, info, error));
  EXPECT_NE(error.find("\"z-gone\" is not in the catalogue"), std::string::npos) << error;
  auto meh = nlohmann::json::parse(j.str());
  for (auto& c : meh["cases"])
    if (c["verdict"] == "fail") c["verdict"] = "meh!";
  const std::string bad_verdict = meh.dump();
  EXPECT_FALSE(read_json(bad_verdict, f.cases, back, info, error));
  EXPECT_NE(error.find("verdict \"meh!\""), std::string::npos) << error;
  EXPECT_TRUE(back.empty());
}

// A case over SCTP (--transport sctp, the sctp suite) that did not pass
// keeps its association in the report as a TCP case keeps its octets: the
// INIT's and INIT-ACK's announcements and every message with the stream,
// PPID and U flag it came with, and reading the report back gives the same
// association (so `rdmaconf findings --report` writes its capture).
TEST(Report, JsonCarriesAnSctpCasesAssociation) {
  Fixture f;
  CaseResult& failed = f.results[1];
  SctpExchange a;
  a.tester_port = 40112;
  a.iut_port = 5043;
  a.tester_init.indication = 1;
  a.tester_init.streams = 16;
  a.iut_init.indication.reset();
  a.iut_init.outbound_streams = 10;
  a.iut_init.inbound_streams = 16;
  // Session Initiate on stream 0, PPID 17 (RFC 5043 §5.2.3), U set; the
  // IUT's DDP Segment Chunk on stream 3, PPID 16, ordered.
  a.messages.push_back({true, 1, SctpChunk{0, 17, true, {0x00, 0x00, 0x00, 0x01}}});
  a.messages.push_back({false, 3, SctpChunk{3, 16, false, {0x00, 0x01, 0x41, 0x42}}});
  failed.exchange.sctp = a;
  std::ostringstream first;
  write_json(first, f.results, RunInfo{"reference", "", false, 10});
  const auto report = nlohmann::json::parse(first.str());
  const auto c = std::find_if(report["cases"].begin(), report["cases"].end(),
                              [](const nlohmann::json& x) { return x["id"] == "b-fail"; });
  ASSERT_NE(c, report["cases"].end());
  ASSERT_TRUE(c->contains("exchange")) << c->dump();
  const auto& sctp = (*c)["exchange"]["sctp"];
  EXPECT_EQ(sctp["tester_port"], 40112);
  EXPECT_EQ(sctp["iut_port"], 5043);
  EXPECT_EQ(sctp["tester_init"]["indication"], 1);
  EXPECT_TRUE(sctp["iut_init"]["indication"].is_null());
  EXPECT_EQ(sctp["iut_init"]["outbound_streams"], 10);
  ASSERT_EQ(sctp["messages"].size(), 2u);
  EXPECT_EQ(sctp["messages"][1]["from"], "iut");
  EXPECT_EQ(sctp["messages"][1]["stream"], 3);
  EXPECT_EQ(sctp["messages"][1]["ppid"], 16);
  EXPECT_EQ(sctp["messages"][1]["unordered"], false);
  EXPECT_EQ(sctp["messages"][1]["octets"], "00014142");
  EXPECT_TRUE((*c)["exchange"]["chunks"].empty());
  EXPECT_FALSE((*c)["exchange"]["truncated"]);

  std::vector<CaseResult> back;
  RunInfo info;
  std::string error;
  ASSERT_TRUE(read_json(first.str(), f.cases, back, info, error)) << error;
  ASSERT_TRUE(back[1].exchange.sctp);
  const SctpExchange& b = *back[1].exchange.sctp;
  EXPECT_EQ(b.tester_port, 40112);
  EXPECT_FALSE(b.iut_init.indication);
  ASSERT_EQ(b.messages.size(), 2u);
  EXPECT_EQ(b.messages[1].chunk.stream, 3);
  EXPECT_FALSE(b.messages[1].chunk.unordered);
  // The same packets as the run's own record: the capture is the same.
  const auto want = sctp_packets(a), have = sctp_packets(b);
  ASSERT_EQ(have.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(have[k].octets, want[k].octets) << k;
  std::ostringstream again;
  write_json(again, back, info);
  EXPECT_EQ(again.str(), first.str());

  // A PPID past 32 bits is refused, naming the member.
  auto bad = report;
  for (auto& x : bad["cases"])
    if (x["id"] == "b-fail") x["exchange"]["sctp"]["messages"][0]["ppid"] = 1ull << 32;
  back.clear();
  EXPECT_FALSE(read_json(bad.dump(), f.cases, back, info, error));
  EXPECT_NE(error.find("\"ppid\""), std::string::npos) << error;
}

// The exchange a report keeps is bounded over SCTP as over TCP.
TEST(Report, JsonCutsALongSctpExchange) {
  Fixture f;
  SctpExchange a;
  for (int k = 0; k < 80; ++k) a.messages.push_back({k % 2 == 0, double(k), SctpChunk{0, 16, true, std::vector<std::uint8_t>(4096, 0x5a)}});
  f.results[1].exchange.sctp = a;
  std::ostringstream out;
  write_json(out, f.results, RunInfo{"reference", "", false, 10});
  const auto report = nlohmann::json::parse(out.str());
  const auto& e = report["cases"][1]["exchange"];
  EXPECT_TRUE(e["truncated"]);
  EXPECT_EQ(e["sctp"]["messages"].size(), 64u);  // 256 KiB of 4 KiB messages
}

}  // namespace
}  // namespace rdmaconf::conformance
