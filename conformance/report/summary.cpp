// write_findings_text (summary.hpp).
#include "report/summary.hpp"

namespace rdmaconf::conformance {

void write_findings_text(std::ostream& out, const std::vector<findings::Finding>& found,
                         const baseline::Comparison* cmp, const RunInfo& info, SummaryStyle style) {
  if (found.empty() && (!cmp || (cmp->fixed_cases.empty() && cmp->fixed_findings.empty()))) {
    out << "findings: none\n";
    return;
  }
  out << "findings: " << found.size() << (found.size() == 1 ? " cause" : " causes");
  if (cmp)
    out << " (" << cmp->new_findings << " new, " << cmp->known_findings << " known against " << cmp->source << ")";
  out << "\n";
  for (const findings::Finding& f : found) {
    std::string status;
    if (cmp)
      if (auto it = cmp->findings.find(f.key); it != cmp->findings.end()) status = std::string(baseline::to_string(it->second));
    out << "  " << f.id << "  " << f.level << "  " << to_string(f.verdict) << "  " << f.cases.size()
        << (f.cases.size() == 1 ? " case" : " cases") << (status.empty() ? "" : "  [" + status + "]") << "\n";
    out << "      " << f.title << "\n";
    if (!f.sections.empty()) {
      out << "      ";
      constexpr std::size_t kShown = 4;
      for (std::size_t i = 0; i < f.sections.size() && i < kShown; ++i) out << (i ? "; " : "") << f.sections[i];
      if (f.sections.size() > kShown) out << "; and " << f.sections.size() - kShown << " more";
      out << "\n";
    }
    if (!f.hint.empty()) out << "      hint: " << f.hint << "\n";
    out << "      cases: ";
    for (std::size_t i = 0; i < f.cases.size() && i < style.case_ids; ++i) {
      const CaseResult& r = *f.cases[i];
      out << (i ? ", " : "") << r.c->id << (r.configuration.empty() ? "" : " [" + r.configuration + "]");
    }
    if (f.cases.size() > style.case_ids) out << ", ... (" << f.cases.size() - style.case_ids << " more)";
    out << "\n";
    if (style.reproducers && f.example)
      out << "      reproduce: " << findings::reproducer(info.identity.command_line, info.target, *f.example) << "\n";
  }
  if (cmp) {
    for (const auto& [id, config] : cmp->fixed_cases)
      out << "  fixed: " << id << (config.empty() ? "" : " [" + config + "]") << " (failed in the baseline, passes now)\n";
    for (const auto& [key, title] : cmp->fixed_findings)
      out << "  fixed finding: " << (title.empty() ? key : title) << "\n";
  }
}

namespace {
// A table cell: one line, no column break, code-quoted where asked.
std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out;
}
std::string text_of(const nlohmann::ordered_json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
}  // namespace

void write_findings_markdown(std::ostream& out, const nlohmann::ordered_json& findings) {
  out << "| finding | level | verdict | cases | what the implementation does | rules |\n|---|---|---|---|---|---|\n";
  if (!findings.is_array()) return;
  for (const auto& f : findings) {
    if (!f.is_object()) continue;
    std::string rules;
    if (const auto r = f.find("rules"); r != f.end() && r->is_array()) {
      constexpr std::size_t kRulesShown = 4;
      for (std::size_t i = 0; i < r->size() && i < kRulesShown; ++i)
        if ((*r)[i].is_object())
          rules += (rules.empty() ? "" : ", ") + ("`" + text_of((*r)[i], "id") + "` (" + text_of((*r)[i], "section") + ")");
      if (r->size() > kRulesShown) rules += ", and " + std::to_string(r->size() - kRulesShown) + " more";
    }
    std::string cases;
    std::size_t n = 0;
    if (const auto c = f.find("cases"); c != f.end() && c->is_array()) {
      n = c->size();
      constexpr std::size_t kShown = 8;
      for (std::size_t i = 0; i < c->size() && i < kShown; ++i) {
        const auto& one = (*c)[i];
        if (!one.is_object()) continue;
        const std::string config = text_of(one, "configuration");
        cases += (cases.empty() ? "" : ", ") + ("`" + text_of(one, "id") + "`" + (config.empty() ? "" : " [" + config + "]"));
      }
      if (c->size() > kShown) cases += ", and " + std::to_string(c->size() - kShown) + " more";
    }
    std::string what = text_of(f, "title");
    if (const auto d = f.find("diagnosis"); d != f.end() && d->is_object() && !text_of(*d, "hint").empty())
      what += "; hint: " + text_of(*d, "hint");
    out << "| " << cell(text_of(f, "id")) << " | " << cell(text_of(f, "level")) << " | " << cell(text_of(f, "verdict")) << " | "
        << n << ": " << cell(cases) << " | " << cell(what) << " | " << cell(rules) << " |\n";
  }
}

}  // namespace rdmaconf::conformance
