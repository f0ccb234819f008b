// write_findings_text (summary.hpp).
#include "summary.hpp"

namespace rdmaconf::conformance {

void write_findings_text(std::ostream& out, const std::vector<findings::Finding>& found,
                         const baseline::Comparison* cmp, const RunInfo& info, SummaryStyle style) {
  if (found.empty() && (!cmp || (cmp->fixed_cases.empty() && cmp->fixed_findings.empty()))) {
    out << "findings: none\n";
    return;
  }
  std::size_t cases = 0;
  for (const findings::Finding& f : found) cases += f.cases.size();
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

}  // namespace rdmaconf::conformance
