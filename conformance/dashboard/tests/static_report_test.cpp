// The static HTML report (static_report.hpp): one file that loads nothing,
// holds the dashboard's own app.js and app.css, and carries the run's data as
// JSON that no string in it can break out of. What the page draws from it is
// checked in a real browser (browser/dashboard.test.mjs).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "dashboard/assets.hpp"
#include "report/baseline.hpp"
#include "dashboard/static_report.hpp"

namespace rdmaconf::dashboard {
namespace {

namespace cf = conformance;
using nlohmann::json;

// Markup and script in every string a case carries, plus the two
// characters JavaScript once did not allow in string literals and an octet
// that is not UTF-8.
const std::string kEvil =
    "</script><script>window.__pwned=1</script><!-- <img src=x onerror=\"x()\"> & &amp; \xE2\x80\xA8|\xE2\x80\xA9 \xFF";

struct Fixture {
  std::vector<cf::Case> cases;
  std::vector<cf::CaseResult> results;
  Fixture() {
    cases.resize(3);
    const cf::Verdict vs[] = {cf::Verdict::kPass, cf::Verdict::kFail, cf::Verdict::kNonStrict};
    for (std::size_t k = 0; k < cases.size(); ++k) {
      cases[k].id = "mpa-case-" + std::to_string(k);
      cases[k].protocol = "mpa";
      cases[k].title = "title " + kEvil;
      cases[k].rfc = "RFC 5044 §7.1.1";
      cases[k].requirements = {"rfc5044-7.1.1-key-check", kEvil};
      cases[k].file = "mpa/x.case";
    }
    for (std::size_t k = 0; k < cases.size(); ++k) {
      cf::CaseResult r;
      r.c = &cases[k];
      r.verdict = vs[k];
      r.reason = k ? "expected terminate " + kEvil : "";
      r.failed_line = k ? 9 : 0;
      r.configuration = k == 2 ? kEvil : "";
      r.frames.push_back({true, 0.5, "--> MPA Request " + kEvil, "    key=" + kEvil + "\n"});
      r.frames.push_back({false, 1.5, "<-- terminate, FPDU 32 octets", "    RDMAP Terminate Control: layer=0x1\n"});
      r.agent.push_back({2.0, "async", kEvil, kEvil, 0, kEvil, "", ""});
      if (k) {
        // What the run recorded of the failing step (findings group by it).
        cf::Failure& f = r.failure.emplace();
        f.kind = cf::Failure::Kind::kUnit;
        f.expected = f.expected_class = "terminate";
        f.got = "close";
        f.stimulus = "write " + kEvil;
        f.stimulus_octets = {0x00, 0x46};
        r.script_verdict = r.verdict;
      }
      results.push_back(r);
    }
    info.identity.version = "0.1.0";
    info.identity.commit = "abcdef123456";
    info.identity.catalogue_sha256 = std::string(64, 'a');
    info.identity.command_line = {"rdmaconf", "run", "--target", "127.0.0.1:7000", "--label", "dut=" + kEvil};
    info.identity.labels = {{"dut", kEvil}};
    info.identity.iut = {{"firmware", kEvil}};
  }
  cf::RunInfo info{"127.0.0.1:7000 " + kEvil, "", true, 1234, {"clc: " + kEvil}};
  ReportContext context{{{"note", kEvil}}, nullptr, {{"mpa-case-1", "id: mpa-case-1\n" + kEvil + "\n"}}, "2026-11-27T10:00:00Z"};
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

std::string report(const Fixture& f) {
  std::ostringstream out;
  write_static_report(out, f.results, f.info, f.context);
  return out.str();
}

const std::string kDataOpen = "<script type=\"application/json\" id=\"rdmaconf-report\">";

TEST(StaticReport, IsOneFileThatLoadsNothing) {
  const Fixture f;
  const std::string h = report(f);
  // The markup around the data and the page's code: no src, no stylesheet
  // or other link, nothing embedded from elsewhere; the style has no import
  // or url(); the page's own policy forbids any load besides data: images.
  const std::size_t data = h.find(kDataOpen);
  ASSERT_NE(data, std::string::npos);
  const std::string markup = lower(h.substr(0, data) + h.substr(h.find("</script>", data)).substr(0, 30));
  static const std::set<std::string> kTags = {"!doctype", "html", "head", "meta", "title", "style", "body", "header", "a", "span", "main", "script"};
  for (std::size_t at = markup.find('<'); at != std::string::npos; at = markup.find('<', at + 1)) {
    const std::string tag = markup.substr(at + 1, markup.find('>', at) - at - 1);
    const std::string name = tag.substr(tag[0] == '/', tag.find_first_of(" >") - (tag[0] == '/'));
    EXPECT_TRUE(kTags.count(name)) << "<" << tag << ">";
    for (const char* bad : {" src=", "href=\"http", "href=\"//", "url("}) EXPECT_EQ(tag.find(bad), std::string::npos) << "<" << tag << ">";
  }
  // The title's target is markup, written as text.
  EXPECT_NE(markup.find("<title>rdmaconf report: 127.0.0.1:7000 &lt;/script&gt;&lt;script&gt;"), std::string::npos);
  const std::string css = lower(std::string(find_asset("/app.css")->body));
  EXPECT_EQ(count(css, "@import"), 0u);
  EXPECT_EQ(count(css, "url("), 0u);
  EXPECT_NE(markup.find("content-security-policy\" content=\"default-src 'none'; script-src 'sha256-"), std::string::npos);
  // Three script elements: the data block and the page's two scripts; nothing else
  // opens or closes one (the data's "</script>" strings are escaped).
  const std::string all = lower(h);
  EXPECT_EQ(count(all, "<script"), 3u);
  EXPECT_EQ(count(all, "</script"), 3u);
  EXPECT_EQ(count(all, "<!--"), 0u);
}

TEST(StaticReport, EmbedsTheDashboardsOwnPage) {
  const Fixture f;
  const std::string h = report(f);
  const Asset* js = find_asset("/app.js");
  const Asset* findings_js = find_asset("/findings.js");
  const Asset* css = find_asset("/app.css");
  ASSERT_TRUE(js && findings_js && css);
  // The page's code byte for byte (the CSP names each script by its
  // SHA-256), and it holds nothing that would end or confuse its element.
  EXPECT_NE(h.find("<script>" + std::string(findings_js->body) + "</script>\n<script>" + std::string(js->body) + "</script>"),
            std::string::npos);
  EXPECT_NE(h.find("<style>\n" + std::string(css->body) + "</style>"), std::string::npos);
  for (const Asset* script : {js, findings_js})
    for (const char* bad : {"</script", "<!--", "<script"})
      EXPECT_EQ(lower(std::string(script->body)).find(bad), std::string::npos) << script->path << ": " << bad;
  EXPECT_EQ(count(h, "'sha256-"), 2u) << "the policy names both scripts";
  EXPECT_EQ(lower(std::string(css->body)).find("</style"), std::string::npos);
  EXPECT_EQ(js->sha256_hex.size(), 64u);
}

TEST(StaticReport, DataIsEscapedAndReadsBackUnchanged) {
  const Fixture f;
  const std::string h = report(f);
  const std::size_t open = h.find(kDataOpen);
  ASSERT_NE(open, std::string::npos);
  const std::size_t start = open + kDataOpen.size();
  const std::size_t end = h.find("</script>", start);
  ASSERT_NE(end, std::string::npos);
  const std::string data = h.substr(start, end - start);
  for (const char* raw : {"<", ">", "&", "\xE2\x80\xA8", "\xE2\x80\xA9"}) EXPECT_EQ(data.find(raw), std::string::npos) << raw;
  EXPECT_NE(data.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(data.find("\\u2028"), std::string::npos);
  EXPECT_NE(data.find("\\u2029"), std::string::npos);

  const json j = json::parse(data);  // what JSON.parse(textContent) gets
  // The markup arrives as the same text (the octet that is not UTF-8 as U+FFFD).
  std::string evil = kEvil;
  evil.replace(evil.size() - 1, 1, "\xEF\xBF\xBD");
  EXPECT_EQ(j["run"]["target"], "127.0.0.1:7000 " + evil);
  EXPECT_EQ(j["run"]["config"]["note"], evil);
  EXPECT_EQ(j["run"]["skipped"][0], "clc: " + evil);
  EXPECT_EQ(j["scripts"]["mpa-case-1"], "id: mpa-case-1\n" + evil + "\n");
  const json& c = j["cases"][1];
  EXPECT_EQ(c["title"], "title " + evil);
  EXPECT_EQ(c["reason"], "expected terminate " + evil);
  EXPECT_EQ(c["frames"][0]["headline"], "--> MPA Request " + evil);
  EXPECT_EQ(c["agent"][0]["name"], evil);
  EXPECT_EQ(j["cases"][2]["configuration"], evil);
  EXPECT_EQ(j["run"]["identity"]["labels"]["dut"], evil);
  EXPECT_EQ(j["run"]["identity"]["iut"]["firmware"], evil);
  EXPECT_EQ(j["run"]["findings"][0]["example"]["case"], "mpa-case-1");
}

// Findings lead the report as they lead the run view: grouped, each with
// its reproducer, each failing case naming its finding; the run's identity
// is in it; with `run --baseline`, known and new.
TEST(StaticReport, CarriesTheFindingsAndTheIdentity) {
  const Fixture f;
  const json j = report_data(f.results, f.info, f.context);
  const json& run = j["run"];
  ASSERT_EQ(run["findings"].size(), 1u) << "two cases that fail the same way, one cause";
  const json& finding = run["findings"][0];
  EXPECT_EQ(finding["id"], "F1");
  EXPECT_EQ(finding["cases"].size(), 2u);
  EXPECT_EQ(finding["reproducer"].get<std::string>().rfind("rdmaconf run --target 127.0.0.1:7000 --case mpa-case-", 0), 0u)
      << finding["reproducer"];
  EXPECT_EQ(run["cases"][0]["findings"], json::array());
  EXPECT_EQ(run["cases"][1]["findings"], json::array({"F1"}));
  EXPECT_EQ(run["cases"][2]["findings"], json::array({"F1"}));
  EXPECT_EQ(j["cases"][1]["failure"]["kind"], "unit") << "the case keeps its failure";
  EXPECT_EQ(run["finding_count"], 1);
  EXPECT_TRUE(run["baseline"].is_null());
  EXPECT_EQ(run["identity"]["version"], "0.1.0");
  EXPECT_EQ(run["identity"]["commit"], "abcdef123456");
  EXPECT_EQ(run["identity"]["command_line"][2], "--target");

  // Against a baseline in which mpa-case-1 failed for the same cause.
  baseline::Baseline known;
  known.source = "known.json";
  known.failing[{"mpa-case-1", ""}] = {finding["key"].get<std::string>()};
  cf::RunInfo info = f.info;
  info.baseline = &known;
  const json b = report_data(f.results, info, f.context)["run"];
  EXPECT_EQ(b["cases"][1]["baseline"], "known");
  EXPECT_EQ(b["cases"][2]["baseline"], "new");
  EXPECT_FALSE(b["cases"][0].contains("baseline"));
  EXPECT_EQ(b["findings"][0]["baseline"], "known");
  EXPECT_EQ(b["baseline"]["source"], "known.json");
  EXPECT_EQ(b["baseline"]["new_cases"], 1);
}

TEST(StaticReport, DataHasTheApisShapes) {
  const Fixture f;
  const json j = report_data(f.results, f.info, f.context);
  const json& run = j["run"];
  EXPECT_EQ(run["id"], 1);
  EXPECT_EQ(run["status"], "done");
  EXPECT_EQ(run["total"], 3);
  EXPECT_EQ(run["summary"], json({{"pass", 1}, {"fail", 1}, {"non-strict", 1}}));
  ASSERT_EQ(run["cases"].size(), 3u);
  ASSERT_EQ(j["cases"].size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    // The list row (GET /api/runs/N) and the detail (GET /api/runs/N/cases/S) of seq k+1.
    const json& row = run["cases"][k];
    const json& d = j["cases"][k];
    EXPECT_EQ(row["seq"], k + 1);
    EXPECT_EQ(d["seq"], k + 1);
    for (const char* key : {"id", "protocol", "level", "verdict", "rfc", "requirements", "title", "reason", "configuration"})
      EXPECT_EQ(row[key], d[key]) << key;
    EXPECT_FALSE(row.contains("frames"));
    EXPECT_EQ(d["frames"].size(), 2u);
  }
  EXPECT_EQ(j["cases"][1]["verdict"], "fail");
  EXPECT_EQ(j["cases"][1]["failed_line"], 9);
}

TEST(StaticReport, EscapesEachDangerousCharacterAlone) {
  EXPECT_EQ(script_safe_json(json("<")), "\"\\u003c\"");
  EXPECT_EQ(script_safe_json(json(">")), "\"\\u003e\"");
  EXPECT_EQ(script_safe_json(json("&")), "\"\\u0026\"");
  EXPECT_EQ(script_safe_json(json("\xE2\x80\xA8")), "\"\\u2028\"");
  EXPECT_EQ(script_safe_json(json("\xE2\x80\xA9")), "\"\\u2029\"");
  EXPECT_EQ(script_safe_json(json("\xE2\x80\xA7")), "\"\xE2\x80\xA7\"");  // U+2027 stays
  EXPECT_EQ(script_safe_json(json({{"a<", 1}})), "{\"a\\u003c\":1}");       // keys too
}

// `rdmaconf report A.json B.json --html DIR` (a suite split across runs, as
// the live SMC run is) writes the same static report over the joined cases.
TEST(StaticReport, ReportJoinsRunsIntoOneStaticReport) {
  const std::string dir = ::testing::TempDir() + "rdmaconf-report-html";
  const std::string exe = RDMACONF_EXE;
  const auto sh = [](const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); };
  ASSERT_EQ(sh(exe + " run --reference -q --suite rdmap --case 'rdmap-send*' --json " + dir + "-a.json"), 0);
  ASSERT_EQ(sh(exe + " run --reference -q --suite ddp --case 'ddp-tagged*' --json " + dir + "-b.json"), 0);
  ASSERT_EQ(sh(exe + " report " + dir + "-a.json " + dir + "-b.json --html " + dir), 0);
  std::ifstream f(dir + "/index.html");
  std::stringstream html;
  html << f.rdbuf();
  const std::string h = html.str();
  const Asset* js = find_asset("/app.js");
  ASSERT_TRUE(js);
  EXPECT_NE(h.find("<script>" + std::string(js->body) + "</script>"), std::string::npos) << "the dashboard's own page";
  EXPECT_NE(h.find("merged_reports"), std::string::npos);
  EXPECT_NE(h.find("\"rdmap-send"), std::string::npos);
  EXPECT_NE(h.find("\"ddp-tagged"), std::string::npos);
}

}  // namespace
}  // namespace rdmaconf::dashboard
