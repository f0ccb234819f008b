// The static HTML report (static_report.hpp).
#include "dashboard/static_report.hpp"

#include <stdexcept>

#include <optional>

#include "dashboard/assets.hpp"
#include "report/baseline.hpp"
#include "report/findings.hpp"
#include "report/report_json.hpp"
#include "dashboard/run_findings.hpp"

namespace rdmaconf::dashboard {

using nlohmann::json;
namespace cf = conformance;

namespace {

const Asset& asset(std::string_view path) {
  const Asset* a = find_asset(path);
  if (!a) throw std::logic_error("the dashboard's " + std::string(path) + " is not built in");
  return *a;
}

// A Content-Security-Policy hash source names a script by the base64 of its
// SHA-256 (CSP Level 2, "hash-source"); the build gives the digest in hex.
std::string base64_of_hex(std::string_view hex) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) bytes.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[v & 63] : '=';
  }
  return out;
}

}  // namespace

json report_data(const std::vector<cf::CaseResult>& results, const cf::RunInfo& info, const ReportContext& context) {
  // The findings, and with `run --baseline` the comparison, as the JSON
  // report has them (report_json.hpp).
  const std::vector<findings::Finding> found = findings::group(results);
  std::optional<baseline::Comparison> cmp;
  if (info.baseline) cmp = baseline::compare(*info.baseline, results, found);
  json rows = json::array();
  json details = json::array();
  json summary = json::object();
  std::int64_t seq = 0;
  for (const cf::CaseResult& r : results) {
    std::string_view status;
    if (cmp)
      if (const auto it = cmp->cases.find(&r); it != cmp->cases.end()) status = baseline::to_string(it->second);
    json d = json(cf::case_json(r, findings::keys_of(r), status));
    d["seq"] = ++seq;
    d["run"] = 1;
    // The list row: the columns GET /api/runs/N gives for each case.
    json row = json::object();
    for (const char* k : {"seq", "id", "configuration", "protocol", "level", "verdict", "rfc", "requirements", "title", "reason"})
      row[k] = d[k];
    rows.push_back(std::move(row));
    const std::string v = d["verdict"];
    summary[v] = summary.value(v, 0) + 1;
    details.push_back(std::move(d));
  }
  json run = {{"id", 1},
              {"created_at", context.generated_at},
              {"started_at", context.generated_at},
              {"finished_at", context.generated_at},
              {"status", "done"},
              {"source", "cli"},
              {"target", info.target},
              {"config", context.config},
              {"capabilities", context.capabilities},
              {"skipped", info.skipped},
              {"message", ""},
              {"duration_ms", static_cast<std::int64_t>(info.wall_ms)},
              {"summary", summary},
              {"total", seq},
              {"identity", json(cf::identity_json(info.identity))},
              {"finding_count", found.size()},
              {"baseline_run", nullptr},
              {"cases", std::move(rows)}};
  add_findings(run, results, info, found, cmp ? &*cmp : nullptr);
  json scripts = json::object();
  for (const auto& [id, text] : context.scripts) scripts[id] = text;
  return {{"run", std::move(run)}, {"cases", std::move(details)}, {"scripts", std::move(scripts)}};
}

std::string script_safe_json(const json& j) {
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' && (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      // U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

void write_static_report(std::ostream& out, const std::vector<cf::CaseResult>& results, const cf::RunInfo& info,
                         const ReportContext& context) {
  const Asset& findings_js = asset("/findings.js");
  const Asset& js = asset("/app.js");
  const Asset& css = asset("/app.css");
  // Only the page's own scripts may run, and nothing may be fetched: the
  // file is the whole report, and a string in the data that still looked
  // like markup could not load or run anything.
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-"
      << base64_of_hex(findings_js.sha256_hex) << "' 'sha256-" << base64_of_hex(js.sha256_hex)
      << "'; style-src 'unsafe-inline'; img-src data:\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>rdmaconf report: "
      << cf::xml_escape(info.target) << "</title>\n<style>\n"
      << css.body << "</style>\n</head>\n<body class=\"report\">\n<header>\n  <a href=\"#/\" class=\"brand\">rdmaconf</a>\n"
      << "  <span>conformance report · generated " << cf::xml_escape(context.generated_at)
      << " by rdmaconf run</span>\n</header>\n<main id=\"main\"></main>\n"
      << "<script type=\"application/json\" id=\"rdmaconf-report\">" << script_safe_json(report_data(results, info, context))
      << "</script>\n<script>" << findings_js.body << "</script>\n<script>" << js.body << "</script>\n</body>\n</html>\n";
}

}  // namespace rdmaconf::dashboard
