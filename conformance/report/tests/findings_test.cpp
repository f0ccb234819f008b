// Findings and baselines (findings.hpp, baseline.hpp, bug_report.hpp): cases
// grouped by what the run recorded, stable keys, known/new/fixed against a
// baseline, and, against the reference IUT broken by one named fault at a
// time, one cause read as one finding.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <sstream>

#include "report/baseline.hpp"
#include "report/bug_report.hpp"
#include "engine/engine.hpp"
#include "engine/faults.hpp"
#include "report/findings.hpp"
#include "engine/mutation.hpp"
#include "report/report.hpp"
#include "engine/responder.hpp"

namespace rdmaconf::conformance {
namespace {

// Hand-made results: what the runner records, without a run.
struct Results {
  std::deque<Case> cases;
  std::vector<CaseResult> results;
  Results() { results.reserve(64); }  // tests keep references to what add() returns

  CaseResult& add(const std::string& id, Verdict v, Level level = Level::kMust) {
    Case c;
    c.id = id;
    c.title = "title of " + id;
    c.protocol = id.substr(0, id.find('-'));
    c.requirements = {"rfc5040-4.8-terminate-format"};
    c.rfc = "RFC 5040 §4.8";
    c.level = level;
    c.file = c.protocol + "/" + id + ".case";
    cases.push_back(c);
    CaseResult r;
    r.c = &cases.back();
    r.verdict = r.script_verdict = v;
    r.reason = v == Verdict::kPass ? "" : "why " + id;
    results.push_back(r);
    return results.back();
  }
  // A failed step: after `stimulus` the IUT sent `got` where `expected` was due.
  CaseResult& fail(const std::string& id, Failure::Kind kind, const std::string& stimulus, const std::string& expected,
                   const std::string& got) {
    CaseResult& r = add(id, Verdict::kFail);
    Failure f;
    f.kind = kind;
    f.stimulus = stimulus;
    f.expected = f.expected_class = expected;
    f.got = got;
    r.failure = f;
    return r;
  }
};

InPassing broke(const std::string& rule, std::uint64_t at, const std::string& mistake = {}) {
  InPassing p;
  p.rule = rule;
  p.level = "MUST";
  p.section = "RFC 5044 §4.1";
  p.summary = "the rule";
  p.text = "what was seen";
  p.mistake = mistake;
  p.stream_offset = at;
  p.offsets = {at};
  return p;
}

TEST(Findings, CasesThatCloseWhereATerminateIsDueAreOneFinding) {
  Results s;
  // Different stimuli, different codes expected: the IUT closed every time.
  s.fail("ddp-a", Failure::Kind::kClosed, "write", "terminate layer=ddp etype=1 code=0", "close");
  s.fail("ddp-b", Failure::Kind::kClosed, "send", "terminate layer=ddp etype=2 code=1", "close");
  s.fail("rdmap-c", Failure::Kind::kClosed, "read_request", "terminate layer=rdmap etype=1 code=2", "close");
  s.add("mpa-pass", Verdict::kPass);
  const auto found = findings::group(s.results);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cases.size(), 3u);
  EXPECT_EQ(found[0].key, "missing terminate got close");
  EXPECT_EQ(found[0].id, "F1");
  EXPECT_EQ(found[0].level, "MUST");
  EXPECT_NE(found[0].title.find("closes the connection"), std::string::npos) << found[0].title;
}

TEST(Findings, AnAnswerThatDiffersGroupsByWhatProvokedItAndWhatCame) {
  Results s;
  // The IUT answered Read Requests it should refuse, whichever fields the
  // cases set; a Write it should refuse it answered with a Terminate of
  // another code, which is another cause.
  s.fail("rdmap-wo", Failure::Kind::kUnit, "read_request", "terminate layer=rdmap code=2", "read_response").failure->stimulus_fields = {"stag"};
  s.fail("rdmap-local", Failure::Kind::kUnit, "read_request", "terminate layer=rdmap code=2", "read_response").failure->stimulus_fields = {"stag", "to"};
  s.fail("rdmap-qn0", Failure::Kind::kUnit, "read_request", "terminate layer=rdmap code=6", "read_response").failure->stimulus_fields = {"qn"};
  s.fail("rdmap-write", Failure::Kind::kUnit, "write", "terminate layer=rdmap code=2", "send");
  const auto found = findings::group(s.results);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].cases.size(), 3u);  // most cases first
  EXPECT_EQ(found[0].key, "step after read_request expected terminate got read_response");
  EXPECT_EQ(found[0].title, "the IUT answers a read_request with read_response where a terminate is due");
  EXPECT_EQ(found[1].key, "step after write expected terminate got send");
}

TEST(Findings, AStepExplainedByADiagnosedMistakeJoinsTheRuleBrokenInPassing) {
  Results s;
  // A Terminate written as a little-endian bitfield: one case fails only on
  // it (the step matches the octets read that way), another breaks the same
  // rule in passing; a third meant another code than the case asks.
  CaseResult& a = s.fail("ddp-a", Failure::Kind::kField, "write", "terminate layer=ddp", "terminate");
  a.failure->mistake = "le-bitfield";
  a.failure->mistake_rule = "rfc5040-4.8-terminate-format";
  a.failure->explained = true;
  a.in_passing = {broke("rfc5040-4.8-terminate-format", 100, "le-bitfield")};
  CaseResult& b = s.add("rdmap-b", Verdict::kFail);
  b.in_passing = {broke("rfc5040-4.8-terminate-format", 60, "le-bitfield")};
  CaseResult& c = s.fail("ddp-c", Failure::Kind::kField, "send", "terminate layer=ddp etype=2 code=5", "terminate");
  c.failure->mistake = "le-bitfield";
  c.failure->mistake_rule = "rfc5040-4.8-terminate-format";
  c.failure->meant = "DDP / Untagged Buffer Error / Invalid MSN";
  c.failure->explained = false;
  c.failure->field = "code", c.failure->want = "=5", c.failure->have = "0x2";  // read as meant, the code differs
  c.in_passing = {broke("rfc5040-4.8-terminate-format", 80, "le-bitfield")};
  const auto found = findings::group(s.results);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].key, "rule rfc5040-4.8-terminate-format le-bitfield");
  EXPECT_EQ(found[0].cases.size(), 3u);  // all three sent the bitfield
  EXPECT_EQ(found[0].source, findings::Finding::Source::kRule);
  EXPECT_NE(found[1].key.find("meaning DDP / Untagged Buffer Error / Invalid MSN"), std::string::npos) << found[1].key;
  EXPECT_EQ(findings::keys_of(c).size(), 2u);  // its own cause, and the bitfield
  EXPECT_EQ(findings::keys_of(a).size(), 1u);
}

// A step that takes either of two lengths asks for the same error as one
// that names no length: a Terminate meaning another error joins both.
TEST(Findings, AlternativesThatAskForOneErrorAreOneExpectation) {
  Results s;
  for (const std::string expected :
       {"terminate layer=ddp etype=1 code=3", "terminate layer=ddp etype=1 code=3 ddp_seg_len=22 | terminate layer=ddp "
                                              "etype=1 code=3 ddp_seg_len=8"}) {
    CaseResult& r = s.fail("ddp-" + std::to_string(expected.size()), Failure::Kind::kField, "write", expected, "terminate");
    r.failure->mistake = "le-bitfield";
    r.failure->mistake_rule = "rfc5040-4.8-terminate-format";
    r.failure->meant = "DDP / Local Catastrophic Error / Error Code 0x00";
    r.failure->field = "layer", r.failure->want = "=ddp", r.failure->have = "0x0";
  }
  const auto found = findings::group(s.results);
  ASSERT_EQ(found.size(), 1u) << found[0].key << " / " << found[1].key;
  EXPECT_EQ(found[0].cases.size(), 2u);
  EXPECT_EQ(found[0].title.find("| terminate"), std::string::npos) << found[0].title;
}

// Another rule broken only through the mistake (the initiator's Terminate
// carries LLP error 0x07 in the little-endian layout, RFC 6581 §9.2) is the
// mistake's finding, not one of its own.
TEST(Findings, ARuleBrokenThroughADiagnosedMistakeIsThatMistakesFinding) {
  Results s;
  CaseResult& r = s.add("mpa-initiator-no-matching-rtr", Verdict::kFail);
  r.in_passing = {broke("rfc5040-4.8-terminate-format", 40, "le-bitfield"),
                  broke("rfc6581-9.2-initiator-no-matching-rtr", 40, "le-bitfield")};
  CaseResult& q = s.add("ddp-other", Verdict::kFail);
  q.in_passing = {broke("rfc5040-4.8-terminate-format", 40, "le-bitfield")};
  const auto found = findings::group(s.results);
  ASSERT_EQ(found.size(), 1u) << found.back().key;
  EXPECT_EQ(found[0].cases.size(), 2u);
  EXPECT_EQ(findings::keys_of(r), std::vector<std::string>{"rule rfc5040-4.8-terminate-format le-bitfield"});
}

TEST(Findings, AUnitThatBrokeARuleIsExplainedByThatRule) {
  Results s;
  // The echo came with PAD that is not zero: the step judged that unit, and
  // the observer saw the same octets break RFC 5044 §4.1.
  CaseResult& r = s.fail("mpa-echo", Failure::Kind::kUnit, "send", "send payload", "fpdu");
  r.failure->received_offset = 300;
  r.failure->received_length = 32;
  r.in_passing = {broke("rfc5044-4.1-pad-zero", 300)};
  // A broken rule elsewhere in the stream explains nothing about the step.
  CaseResult& q = s.fail("mpa-other", Failure::Kind::kUnit, "send", "send payload", "fpdu");
  q.failure->received_offset = 300;
  q.failure->received_length = 32;
  q.in_passing = {broke("rfc5044-4.1-pad-zero", 400)};
  // A Terminate where the echo was due: that its control field breaks
  // RFC 5040 §4.8 does not say why it came.
  CaseResult& t = s.fail("ddp-reordered", Failure::Kind::kUnit, "send", "send payload", "terminate");
  t.failure->received_offset = 300;
  t.failure->received_length = 48;
  t.in_passing = {broke("rfc5040-4.8-terminate-format", 300, "le-bitfield")};
  const auto found = findings::group(s.results);
  ASSERT_EQ(found.size(), 4u);
  EXPECT_EQ(findings::keys_of(r), std::vector<std::string>{"rule rfc5044-4.1-pad-zero"});
  EXPECT_EQ(findings::keys_of(q).size(), 2u);
  EXPECT_EQ(findings::keys_of(t).size(), 2u);
}

TEST(Findings, PassesUnimplementedAndErrorsExplainNothing) {
  Results s;
  s.add("mpa-p", Verdict::kPass);
  s.add("mpa-u", Verdict::kUnimplemented);
  s.add("mpa-e", Verdict::kError);
  EXPECT_TRUE(findings::group(s.results).empty());
  // An unimplemented case that broke a rule in passing is in its finding.
  s.results[1].in_passing = {broke("rfc6581-10-reply-enhanced", 0)};
  EXPECT_EQ(findings::group(s.results).size(), 1u);
}

TEST(Findings, TheFindingANameNames) {
  Results s;
  s.fail("ddp-a", Failure::Kind::kClosed, "write", "terminate", "close");
  s.fail("ddp-b", Failure::Kind::kNothing, "send", "send payload", "nothing");
  const auto found = findings::group(s.results);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(findings::find(found, "F2"), &found[1]);
  EXPECT_EQ(findings::find(found, "2"), &found[1]);
  EXPECT_EQ(findings::find(found, "missing send"), findings::find(found, found[0].key.starts_with("missing send") ? "F1" : "F2"));
  EXPECT_EQ(findings::find(found, "missing"), nullptr);  // ambiguous
  EXPECT_EQ(findings::find(found, "F9"), nullptr);
}

TEST(Findings, TheReproducerRunsOneCaseAgainWithoutOutputsOrSecrets) {
  Results s;
  CaseResult& r = s.fail("mpa-x", Failure::Kind::kClosed, "send", "send", "close");
  r.configuration = "crc=off markers=on";
  const std::vector<std::string> line = {"rdmaconf", "run", "--agent", "http://10.0.0.1:7500", "--token", "<redacted>",
                                         "--json", "out.json", "--case", "mpa-*", "-q", "--time-scale=2",
                                         "--label", "fw=1", "--agent-config", "auto"};
  EXPECT_EQ(findings::reproducer(line, "dev", r),
            "rdmaconf run --agent http://10.0.0.1:7500 --token \"$RDMACONF_AGENT_TOKEN\" --time-scale 2 --case mpa-x "
            "--agent-config crc=off,markers=on");
  EXPECT_EQ(findings::reproducer({}, "127.0.0.1:7000", r),
            "rdmaconf run --target 127.0.0.1:7000 --case mpa-x --agent-config crc=off,markers=on");
}

TEST(Baseline, KnownNewAndFixed) {
  Results before;
  before.fail("ddp-a", Failure::Kind::kClosed, "write", "terminate", "close");
  before.fail("ddp-b", Failure::Kind::kClosed, "send", "terminate", "close");
  before.fail("ddp-c", Failure::Kind::kNothing, "send", "send payload", "nothing");
  std::ostringstream report;
  write_json(report, before.results, RunInfo{"t", "", false, 1});
  baseline::Baseline known;
  std::string error;
  ASSERT_TRUE(baseline::read(report.str(), known, error)) << error;

  Results now;
  now.fail("ddp-a", Failure::Kind::kClosed, "write", "terminate", "close");             // known
  now.fail("ddp-b", Failure::Kind::kUnit, "send", "terminate", "send");                 // fails otherwise now: new
  now.add("ddp-c", Verdict::kPass);                                                     // fixed
  now.fail("ddp-d", Failure::Kind::kClosed, "write", "terminate", "close");             // passed before: new
  const auto found = findings::group(now.results);
  const auto cmp = baseline::compare(known, now.results, found);
  EXPECT_EQ(cmp.cases.at(&now.results[0]), baseline::Status::kKnown);
  EXPECT_EQ(cmp.cases.at(&now.results[1]), baseline::Status::kNew);
  EXPECT_EQ(cmp.cases.at(&now.results[3]), baseline::Status::kNew);
  EXPECT_EQ(cmp.known_cases, 1);
  EXPECT_EQ(cmp.new_cases, 2);
  ASSERT_EQ(cmp.fixed_cases.size(), 1u);
  EXPECT_EQ(cmp.fixed_cases[0].first, "ddp-c");
  ASSERT_EQ(cmp.fixed_findings.size(), 1u);
  EXPECT_EQ(cmp.fixed_findings[0].first, "missing send got nothing");
  EXPECT_EQ(cmp.new_findings, 1);  // the Send where a Terminate was due
  EXPECT_TRUE(cmp.has_new_failure());
  // The same run as its own baseline: nothing new.
  const auto self = baseline::compare(known, before.results, findings::group(before.results));
  EXPECT_FALSE(self.has_new_failure());
  EXPECT_EQ(self.new_findings, 0);
  RunInfo info{"t", "", false, 1};
  info.baseline = &known;
  EXPECT_EQ(exit_code(before.results, info), 0);
  EXPECT_EQ(exit_code(now.results, info), 1);
}

// A findings file written before a row was renamed still names the finding:
// its key is read as this rdmaconf writes it (the old id is an alias).
TEST(Baseline, AKeyNamingARenamedRowIsTheRowsKey) {
  EXPECT_EQ(findings::current_key("rule rfc6581-9-enhanced-data-present"), "rule rfc6581-6-enhanced-data-present");
  EXPECT_EQ(findings::current_key("rule rfc5041-5.2-msn-increment le-bitfield"), "rule rfc5041-4.3-msn-increment le-bitfield");
  EXPECT_EQ(findings::current_key("rule rfc6581-6-enhanced-data-present"), "rule rfc6581-6-enhanced-data-present");
  EXPECT_EQ(findings::current_key("rule no-such-row"), "rule no-such-row");
  EXPECT_EQ(findings::current_key("missing terminate got close"), "missing terminate got close");
  nlohmann::json file{{"tool", "rdmaconf"}, {"kind", "findings"}, {"findings", nlohmann::json::array()}};
  file["findings"].push_back({{"key", "rule rfc6581-9-enhanced-data-present"},
                              {"title", "t"},
                              {"cases", {{{"id", "mpa-a"}, {"configuration", ""}}}}});
  baseline::Baseline known;
  std::string error;
  ASSERT_TRUE(baseline::read(file.dump(), known, error)) << error;
  const auto& keys = known.failing.at({"mpa-a", ""});
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0], "rule rfc6581-6-enhanced-data-present");
}

TEST(Baseline, AFindingsFileALabEditedDropsWhatItNoLongerAccepts) {
  Results s;
  s.fail("ddp-a", Failure::Kind::kClosed, "write", "terminate", "close");
  s.fail("ddp-c", Failure::Kind::kNothing, "send", "send payload", "nothing");
  const auto found = findings::group(s.results);
  nlohmann::json file{{"tool", "rdmaconf"}, {"kind", "findings"}, {"findings", nlohmann::json::array()}};
  // The lab keeps only the closes as known.
  for (const auto& f : found)
    if (f.key.starts_with("missing terminate"))
      file["findings"].push_back({{"key", f.key}, {"title", f.title}, {"cases", {{{"id", "ddp-a"}, {"configuration", ""}}}}});
  baseline::Baseline known;
  std::string error;
  ASSERT_TRUE(baseline::read(file.dump(), known, error)) << error;
  const auto cmp = baseline::compare(known, s.results, found);
  EXPECT_EQ(cmp.cases.at(&s.results[0]), baseline::Status::kKnown);
  EXPECT_EQ(cmp.cases.at(&s.results[1]), baseline::Status::kNew);
}

TEST(Baseline, WhatIsNotABaselineIsRefusedWithAReason) {
  baseline::Baseline b;
  std::string error;
  EXPECT_FALSE(baseline::read("[]", b, error));
  EXPECT_FALSE(baseline::read("{\"tool\": \"other\", \"cases\": []}", b, error));
  EXPECT_NE(error.find("tool"), std::string::npos);
  EXPECT_FALSE(baseline::read("{\"tool\": \"rdmaconf\"}", b, error));
  EXPECT_FALSE(baseline::read("{\"tool\": \"rdmaconf\", \"cases\": [{\"id\": 5}]}", b, error));
  EXPECT_FALSE(baseline::read("{\"tool\": \"rdmaconf\", \"findings\": [{\"key\": \"k\", \"cases\": [{}]}]}", b, error));
  EXPECT_FALSE(baseline::read("{\"tool\": \"rdmaconf\", \"cases\": [{\"id\": \"a\", \"verdict\": \"fail\", \"findings\": 7}],"
                              "\"strict\": \"x\"}",
                              b, error) && b.failing.empty());
}

TEST(BugReport, SaysWhatHappensTheRuleTheOctetsAndHowToReproduce) {
  Results s;
  CaseResult& r = s.fail("rdmap-wo", Failure::Kind::kUnit, "read_request", "terminate layer=rdmap etype=1 code=2",
                         "read_response");
  r.failure->stimulus_fields = {"stag"};
  r.failure->stimulus_octets = {0x00, 0x1c, 0x41, 0x41};
  r.failure->received = {0x81, 0x42, 0x00, 0x00};
  r.failure->step = "< terminate layer=rdmap etype=1 code=2";
  r.failure->line = 12;
  r.frames.push_back({false, 3.0, "<-- read_response, FPDU 48 octets", "    DDP Tagged Buffer Model header: t=0x1\n"});
  const auto found = findings::group(s.results);
  ASSERT_EQ(found.size(), 1u);
  RunInfo info{"device siw_eth0", "", false, 1};
  info.identity.version = "0.1.0";
  info.identity.commit = "abc1234";
  info.identity.iut = {{"driver", "siw"}, {"kernel", "6.1.0"}};
  std::ostringstream out;
  findings::write_bug_report(out, found[0], info, {"id: rdmap-wo\n< terminate\n", "rdmap/wo.case", "rdmap-wo.pcapng"});
  const std::string md = out.str();
  for (const char* part : {"# siw (kernel 6.1.0): ", "## What happens", "## The rule", "rfc5040-4.8-terminate-format",
                           "## Expected and received", "## Octets", "0000  00 1c 41 41", "0000  81 42 00 00",
                           "<-- read_response", "## How to reproduce", "rdmaconf run --target 'device siw_eth0' --case rdmap-wo",
                           "id: rdmap-wo", "## Capture", "rdmap-wo.pcapng", "rdmaconf 0.1.0 (commit abc1234)"})
    EXPECT_NE(md.find(part), std::string::npos) << part << "\n" << md;
}

// One cause, one finding: the reference with one named fault at a time. A
// fault breaks one rule, so its failures should read as very few causes.
TEST(Findings, OneFaultOfTheReferenceReadsAsOneCause) {
  const Catalogue cat = load_catalogue(default_cases_dir());
  ASSERT_TRUE(cat.errors.empty());
  std::vector<const Case*> all;
  for (const Case& c : cat.cases) all.push_back(&c);
  // (fault, at most this many findings): the first three are one behaviour
  // everywhere; the others measured when the grouping was written. A Reply
  // that refuses CRCs is two behaviours, FPDUs without CRCs and no Terminate
  // for a wrong one, and the cases wait for a Terminate, a close or either
  // after the wrong CRC: up to six.
  const std::pair<const char*, std::size_t> expect[] = {
      {"terminate-le-bitfield", 1}, {"terminate-omitted", 1}, {"mpa-pad-nonzero", 1},
      {"mpa-ignore-crc-request", 6}, {"send-not-delivered", 6}, {"untagged-msn-from-zero", 6}};
  for (const auto& [name, most] : expect) {
    const FaultInfo* f = find_fault(name);
    ASSERT_NE(f, nullptr) << name;
    FaultSet fs;
    fs.set(f->id);
    AgentView view;
    ReferenceIut iut(fs);
    observe(iut, view);
    std::string error;
    ASSERT_TRUE(iut.listen("127.0.0.1", 0, error) && iut.listen_clc("127.0.0.1", 0, error)) << error;
    RunOptions o;
    o.time_scale = 0.25;
    o.agent = &view;
    const auto results = run_cases(all, reference_options(iut, o));
    iut.stop();
    const auto found = findings::group(results);
    EXPECT_GE(found.size(), 1u) << name;
    EXPECT_LE(found.size(), most) << name << ": " << (found.empty() ? "" : found.back().key);
  }
}

}  // namespace
}  // namespace rdmaconf::conformance
