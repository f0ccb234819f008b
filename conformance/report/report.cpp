#include "report/report.hpp"

#include <cstdio>
#include <map>
#include <optional>
#include <set>


#include "report/baseline.hpp"
#include "report/findings.hpp"
#include "requirement.hpp"
#include "report/text.hpp"

namespace rdmaconf::conformance {

std::string xml_escape(std::string_view s) {
  std::string o;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters even escaped.
        if (u < 0x20 && c != '\n' && c != '\t' && c != '\r') o += '?';
        else o += c;
    }
  }
  return o;
}

namespace {
std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v / 1000.0);
  return b;
}
using report_text::join;
std::string case_name(const CaseResult& r) {
  return r.configuration.empty() ? r.c->id : r.c->id + " [" + r.configuration + "]";
}
// The IUT's own view, one line per event, times relative to the case.
std::string agent_lines(const CaseResult& r) {
  std::string out;
  for (const AgentEvent& e : r.agent) {
    char at[32];
    std::snprintf(at, sizeof at, "%8.1f ms  ", e.at_ms);
    out += at + describe(e) + "\n";
  }
  return out;
}
}  // namespace

void write_junit(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info) {
  const auto found = findings::group(results);
  std::map<std::string, const findings::Finding*> by_key;
  for (const findings::Finding& f : found) by_key[f.key] = &f;
  std::optional<baseline::Comparison> cmp;
  if (info.baseline) cmp = baseline::compare(*info.baseline, results, found);
  auto known = [&](const CaseResult* r) {
    if (!cmp) return false;
    const auto it = cmp->cases.find(r);
    return it != cmp->cases.end() && it->second == baseline::Status::kKnown;
  };
  std::map<std::string, std::vector<const CaseResult*>> suites;
  for (const CaseResult& r : results) suites[r.c->protocol].push_back(&r);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"rdmaconf\" time=\"" << ms(info.wall_ms) << "\">\n";
  // The run's identity as properties of a suite of its own (JUnit has no
  // place for them on <testsuites>), beside the suites the run left out.
  const RunIdentity& id = info.identity;
  std::vector<std::pair<std::string, std::string>> props = {
      {"rdmaconf.version", id.version},          {"rdmaconf.commit", id.commit},
      {"catalogue.sha256", id.catalogue_sha256}, {"started_at", id.started_at},
      {"finished_at", id.finished_at},           {"command_line", join(id.command_line, " ")},
      {"target", info.target}};
  for (const auto& [k, v] : id.iut) props.emplace_back("iut." + k, v);
  for (const auto& [k, v] : id.labels) props.emplace_back("label." + k, v);
  if (cmp) props.emplace_back("baseline", cmp->source);
  for (const std::string& sk : info.skipped) props.emplace_back("skipped", sk);
  out << "  <testsuite name=\"rdmaconf-run\" tests=\"0\"><properties>";
  for (const auto& [k, v] : props)
    if (!v.empty()) out << "<property name=\"" << xml_escape(k) << "\" value=\"" << xml_escape(v) << "\"/>";
  out << "</properties></testsuite>\n";
  for (const auto& [name, rs] : suites) {
    int failures = 0, errors = 0, skipped = 0;
    double t = 0;
    for (const CaseResult* r : rs) {
      failures += r->verdict == Verdict::kFail && !known(r);
      errors += r->verdict == Verdict::kError;
      skipped += r->verdict == Verdict::kUnimplemented || (r->verdict == Verdict::kFail && known(r));
      t += r->duration_ms;
    }
    out << "  <testsuite name=\"" << xml_escape(name) << "\" tests=\"" << rs.size() << "\" failures=\"" << failures
        << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\" time=\"" << ms(t) << "\">\n";
    for (const CaseResult* r : rs) {
      out << "    <testcase classname=\"rdmaconf." << xml_escape(name) << "\" name=\"" << xml_escape(case_name(*r))
          << "\" time=\"" << ms(r->duration_ms) << "\">\n";
      out << "      <properties><property name=\"requirement\" value=\"" << xml_escape(join(r->c->requirements, ","))
          << "\"/><property name=\"rfc\" value=\"" << xml_escape(r->c->rfc) << "\"/><property name=\"level\" value=\""
          << to_string(r->c->level) << "\"/><property name=\"verdict\" value=\"" << to_string(r->verdict)
          << "\"/><property name=\"configuration\" value=\"" << xml_escape(r->configuration) << "\"/>"
          << (r->negotiated ? "<property name=\"negotiated\" value=\"" + r->negotiated->to_string() + "\"/>" : "");
      // The findings that explain it: a CI page shows the cause beside the case.
      std::string named;
      for (const std::string& key : findings::keys_of(*r)) {
        const auto f = by_key.find(key);
        if (f == by_key.end()) continue;
        out << "<property name=\"finding\" value=\"" << xml_escape(f->second->id + ": " + key) << "\"/>";
        named += (named.empty() ? " [" : "; ") + f->second->id + ": " + f->second->title;
      }
      if (!named.empty()) named += "]";
      if (cmp)
        if (auto it = cmp->cases.find(r); it != cmp->cases.end())
          out << "<property name=\"baseline\" value=\"" << baseline::to_string(it->second) << "\"/>";
      out << "</properties>\n";
      const std::string msg = xml_escape(r->reason + named);
      // A known failure is skipped, as test runners report an expected
      // failure (pytest's xfail): shown, not failing the build.
      if (r->verdict == Verdict::kFail && known(r))
        out << "      <skipped type=\"known\" message=\"known failure (baseline): " << msg << "\"/>\n";
      else if (r->verdict == Verdict::kFail)
        out << "      <failure message=\"" << msg << "\" type=\"" << to_string(r->c->level) << "\">" << xml_escape(r->c->file)
            << ":" << r->failed_line << ": " << msg << "</failure>\n";
      else if (r->verdict == Verdict::kError)
        out << "      <error message=\"" << msg << "\"/>\n";
      else if (r->verdict == Verdict::kUnimplemented)
        out << "      <skipped message=\"" << msg << "\"/>\n";
      std::string system_out;
      if (r->verdict == Verdict::kNonStrict || r->verdict == Verdict::kInformational)
        system_out = std::string(to_string(r->verdict)) + ": " + r->reason + named + "\n";
      if (!r->agent.empty()) system_out += "IUT's own view (agent):\n" + agent_lines(*r);
      if (!system_out.empty()) out << "      <system-out>" << xml_escape(system_out) << "</system-out>\n";
      out << "    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

CasesPerRow cases_per_row(const Catalogue& cat) {
  CasesPerRow cases;
  for (const Case& c : cat.cases)
    for (const std::string& r : c.requirements)
      if (const auto* row = requirements::find(r)) cases[std::string(row->id)].push_back(c.id);
  for (const CaptureCase& c : cat.capture_cases)
    if (const auto* row = requirements::find(c.requirement)) cases[std::string(row->id)].push_back(c.id);
  return cases;
}

std::vector<const requirements::Requirement*> observable_rows_without_case(const CasesPerRow& cases) {
  std::vector<const requirements::Requirement*> out;
  for (const requirements::Requirement& r : requirements::all())
    if (r.observable != requirements::Observability::kNotObservable && !cases.contains(r.id)) out.push_back(&r);
  return out;
}

RequirementGaps requirement_gaps(const Catalogue& cat) {
  RequirementGaps gaps;
  for (const requirements::Requirement& r : requirements::all())
    if (r.observable == requirements::Observability::kNotObservable)
      gaps.unobservable.push_back({std::string(r.id), std::string(r.rfc) + " §" + std::string(r.section),
                                   std::string(requirements::name(r.level)), std::string(r.summary),
                                   std::string(r.why_not_observable)});
  for (const requirements::Requirement* r : observable_rows_without_case(cases_per_row(cat)))
    gaps.uncovered.push_back({std::string(r->id), std::string(r->rfc) + " §" + std::string(r->section),
                              std::string(requirements::name(r->level)), std::string(r->summary),
                              std::string(requirements::name(r->observable)), std::string(r->no_case)});
  return gaps;
}

void write_catalogue_markdown(std::ostream& out, const Catalogue& cat) {
  const RequirementGaps gaps = requirement_gaps(cat);
  const auto& unobservable = gaps.unobservable;
  const auto& uncovered = gaps.uncovered;
  std::map<std::string, std::map<std::string, int>> per_protocol_level;
  std::map<std::string, std::vector<const Case*>> by_req;
  for (const Case& c : cat.cases) {
    ++per_protocol_level[c.protocol][std::string(to_string(c.level))];
    for (const std::string& r : c.requirements) by_req[r].push_back(&c);
  }
  out << "# Conformance catalogue\n\n"
         "Generated by `rdmaconf cases --markdown` from the scripts under `conformance/cases/`; do not edit by hand\n"
         "(a test checks that this file is up to date). Script format: [conformance.md](conformance.md).\n\n";
  out << "## Cases per protocol and level\n\n| protocol | MUST | MUST NOT | SHOULD | SHOULD NOT | MAY | total |\n|---|---|---|---|---|---|---|\n";
  int grand = 0;
  for (const auto& [p, levels] : per_protocol_level) {
    int total = 0;
    out << "| " << p;
    for (const char* l : {"MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"}) {
      auto it = levels.find(l);
      const int n = it == levels.end() ? 0 : it->second;
      total += n;
      out << " | " << n;
    }
    out << " | " << total << " |\n";
    grand += total;
  }
  out << "| **all** | | | | | | **" << grand << "** |\n\n";
  out << "## Requirement → cases\n\n| requirement | RFC | level | cases |\n|---|---|---|---|\n";
  for (const auto& [req, cs] : by_req) {
    std::set<std::string> rfcs;
    for (const Case* c : cs) rfcs.insert(c->rfc);
    std::string ids;
    for (const Case* c : cs) ids += (ids.empty() ? "" : ", ") + ("`" + c->id + "`");
    out << "| `" << req << "` | " << join(std::vector<std::string>(rfcs.begin(), rfcs.end()), "; ") << " | "
        << to_string(cs.front()->level) << " | " << ids << " |\n";
  }
  if (!cat.capture_cases.empty()) {
    out << "\n## Capture cases\n\n"
           "Rules judged in captures, which the live tester's peer cannot be made to show (conformance.md, \"Capture\n"
           "cases\"): each case names a capture under `pcap/tests/captures/` that keeps its rule and one that breaks\n"
           "it, and `pcap/tests/capture_cases_test.cpp` proves both.\n\n"
           "| case | requirement | RFC | level | keeps it | breaks it |\n|---|---|---|---|---|---|\n";
    for (const CaptureCase& c : cat.capture_cases)
      out << "| `" << c.id << "` | `" << c.requirement << "` | " << c.rfc << " | " << to_string(c.level) << " | `"
          << c.passes << "` | `" << c.fails << "` |\n";
  }
  if (!uncovered.empty()) {
    std::set<std::string> with_cases;
    for (const auto& [req, cs] : by_req) with_cases.insert(req);
    for (const CaptureCase& c : cat.capture_cases) with_cases.insert(c.requirement);
    out << "\n## Observable requirements without a case yet\n\n"
        << with_cases.size() << " requirements have cases; these " << uncovered.size()
        << " could be observed but no script checks them yet. Mostly: RFC 7609's link layer (below);\n"
           "TCP keep-alives on a connection that moved to SMC-R, which the tester's socket does not see, and\n"
           "the MULPDU bound, which the tester cannot know; two-connection and link-group rules (an STag\n"
           "on another stream, first and subsequent contact, out of sync); local failures a peer cannot\n"
           "provoke (catastrophic errors, a full completion queue); RFC 6581's IRD/ORD value rules that\n"
           "every 14-bit value meets or that are MAYs; an SMC-D limit for a Proposal the tester cannot\n"
           "make; and sender rules the test ULP commands cannot yet provoke (unused atomic fields, one\n"
           "IRD for Reads and Atomics, an STag revoked after its transfer). The capture analyzer checks\n"
           "some of them passively (`rdmaconf analyze`, docs/capture.md).\n\n"
           "RFC 7609's link-layer rows (link groups and LLC, RMBEs, CDC messages and RDMA Writes: its\n"
           "sections 2 to 4 and appendices A.3, A.4, C.3, C.7, C.8) run over RoCE after the CLC handshake.\n"
           "No live case checks them yet: they need a tester that is the IUT's SMC-R peer over RoCE, with\n"
           "QPs of its own, and the tester speaks CLC only (the device agent drives the peer's SMC stack\n"
           "through AF_SMC sockets, whose LLC and CDC messages travel on QPs the kernel owns).\n"
           "docs/requirements.md (\"RFC 7609's link layer\") lists the case each row wants. The capture\n"
           "analyzer checks fourteen of them on captures of that traffic: run SMC-R over rxe, capture its\n"
           "netdev, `rdmaconf analyze` the file (docs/capture.md).\n\n"
           "| requirement | RFC | level | observable | summary |\n|---|---|---|---|---|\n";
    for (const auto& u : uncovered)
      out << "| `" << u.id << "` | " << u.rfc << " | " << u.level << " | " << u.observable << " | " << u.summary
          << (u.why_no_case.empty() ? "" : ". No case: " + u.why_no_case) << " |\n";
  }
  out << "\n## Requirements not observable on the wire\n\n";
  if (unobservable.empty()) {
    out << "The requirement registry (`conformance/requirements/`) lists them; it was not built with this catalogue.\n";
  } else {
    out << "| requirement | RFC | level | why it cannot be observed |\n|---|---|---|---|\n";
    for (const auto& u : unobservable)
      out << "| `" << u.id << "` | " << u.rfc << " | " << u.level << " | " << u.why << " |\n";
  }
}

}  // namespace rdmaconf::conformance
