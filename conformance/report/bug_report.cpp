// write_bug_report (bug_report.hpp).
#include "report/bug_report.hpp"

#include <cstdio>

#include "report/text.hpp"

namespace rdmaconf::findings {
namespace {

namespace cf = conformance;

using report_text::join;

// Who the IUT is, as the report's identity says: "siw (siw_eth0, kernel
// 6.1.0-50-amd64)"; the target when nothing else is known.
std::string iut_words(const cf::RunInfo& info) {
  const auto& iut = info.identity.iut;
  auto get = [&](const char* k) {
    const auto it = iut.find(k);
    return it == iut.end() ? std::string() : it->second;
  };
  std::string name = !get("driver").empty() ? get("driver") : !get("device").empty() ? get("device") : info.target;
  std::vector<std::string> more;
  if (!get("device").empty() && get("device") != name) more.push_back(get("device"));
  if (!get("firmware").empty()) more.push_back("firmware " + get("firmware"));
  if (!get("kernel").empty()) more.push_back("kernel " + get("kernel"));
  return name + (more.empty() ? "" : " (" + join(more, ", ") + ")");
}

void octets_block(std::ostream& out, const std::string& what, const std::vector<std::uint8_t>& octets) {
  if (octets.empty()) return;
  out << what << " (" << octets.size() << " octets" << (octets.size() >= 256 ? ", the first 256" : "") << "):\n\n```\n"
      << hex_dump(octets) << "```\n\n";
}

}  // namespace

std::string hex_dump(const std::vector<std::uint8_t>& octets) {
  std::string out;
  char buf[24];
  for (std::size_t i = 0; i < octets.size(); i += 16) {
    std::snprintf(buf, sizeof buf, "%04zx ", i);
    out += buf;
    for (std::size_t k = i; k < i + 16 && k < octets.size(); ++k) {
      std::snprintf(buf, sizeof buf, " %02x", octets[k]);
      out += buf;
    }
    out += "\n";
  }
  return out;
}

void write_bug_report(std::ostream& out, const Finding& f, const cf::RunInfo& info, const BugReportInputs& in) {
  const cf::CaseResult* ex = f.example;
  const cf::RunIdentity& id = info.identity;
  out << "# " << iut_words(info) << ": " << f.title << "\n\n";

  out << "## What happens\n\n";
  if (f.source == Finding::Source::kRule) {
    const RuleRef& rule = f.rules.front();
    out << "The implementation breaks a " << rule.level << " rule of " << rule.section << ": "
        << (rule.summary.empty() ? rule.id : rule.summary) << ".";
    if (!f.got.empty()) out << " What it sent: " << f.got << ".";
  } else if (ex && ex->failure) {
    const cf::Failure& fl = *ex->failure;
    out << "After the tester sent " << (fl.stimulus.empty() ? std::string("nothing yet") : "a `" + fl.stimulus + "`")
        << (fl.stimulus_fields.empty() ? "" : " (with " + join(fl.stimulus_fields, ", ") + " set by the case)")
        << ", the implementation answered " << f.got << ", where the case expects `" << f.expected << "`.";
  } else {
    out << f.got << ".";
  }
  out << " rdmaconf saw this in " << f.cases.size() << (f.cases.size() == 1 ? " case" : " cases") << " of its catalogue";
  if (ex) out << ", among them `" << ex->c->id << "`: " << ex->c->title;
  out << ".\n\n";

  out << "## The rule\n\n";
  for (const RuleRef& r : f.rules)
    out << "- `" << r.id << "` (" << r.level << (r.section.empty() ? "" : ", " + r.section) << ")"
        << (r.summary.empty() ? "" : ": " + r.summary) << "\n";
  out << "\n(In rdmaconf's words; the RFC text decides: see the section named.)\n\n";

  out << "## Expected and received\n\n";
  out << "- Expected: " << (f.expected.empty() ? std::string("(see the rule)") : "`" + f.expected + "`") << "\n";
  out << "- Received: " << f.got << "\n";
  if (ex && ex->failure && !ex->failure->step.empty())
    out << "- The step that did not match: `" << ex->failure->step << "` (line " << ex->failure->line << " of the case)\n";
  if (!f.meant.empty()) out << "- Read as the mistake below, the implementation meant: " << f.meant << "\n";
  if (!f.hint.empty()) out << "- Likely cause (" << f.mistake << "): " << f.hint << "\n";
  if (ex && !ex->reason.empty()) out << "- rdmaconf's verdict (" << cf::to_string(ex->verdict) << "): " << ex->reason << "\n";
  out << "\n";

  out << "## Octets\n\n";
  octets_block(out, "Sent by the tester just before (" + (ex && ex->failure ? ex->failure->stimulus : std::string("?")) + ")",
               f.sent);
  octets_block(out,
               f.received_whole ? "Received from the implementation, the message as it came (MPA framing, PAD and CRC included)"
                                : "Received from the implementation, as the tester took it (of an FPDU: its ULPDU)",
               f.received);
  if (ex && !ex->frames.empty()) {
    out << "The case's exchange, every field by its declaration (`-->` tester, `<--` implementation):\n\n```\n";
    for (const cf::FrameRecord& fr : ex->frames) {
      char at[24];
      std::snprintf(at, sizeof at, "%8.1f ms  ", fr.at_ms);
      out << at << fr.headline << "\n" << fr.detail;
      if (!fr.detail.empty() && fr.detail.back() != '\n') out << "\n";
    }
    out << "```\n\n";
  }
  if (ex && !ex->agent.empty()) {
    out << "What the implementation's host reported (device agent):\n\n```\n";
    for (const cf::AgentEvent& e : ex->agent) out << cf::describe(e) << "\n";
    out << "```\n\n";
  }

  out << "## How to reproduce\n\n";
  if (ex) out << "```sh\n" << reproducer(id.command_line, info.target, *ex) << "\n```\n\n";
  if (!in.script.empty()) {
    out << "The case script (`" << in.script_path << "` in rdmaconf's catalogue";
    if (!id.catalogue_sha256.empty()) out << " " << id.catalogue_sha256.substr(0, 12);
    out << "). With another version of the catalogue, save it as `" << (ex ? ex->c->id : std::string("case"))
        << ".case` and give `--case-file " << (ex ? ex->c->id : std::string("case")) << ".case` instead of `--case`:\n\n```\n"
        << in.script;
    if (in.script.back() != '\n') out << "\n";
    out << "```\n\n";
  }
  out << "Every case this finding explains:\n\n";
  for (const cf::CaseResult* r : f.cases)
    out << "- `" << r->c->id << "`" << (r->configuration.empty() ? "" : " [" + r->configuration + "]") << " ("
        << cf::to_string(r->verdict) << "): " << r->c->title << "\n";
  out << "\n";

  if (!in.capture_file.empty())
    out << "## Capture\n\n`" << in.capture_file << "`: the failing case's connection as the tester recorded it "
        << "(Ethernet/IPv4/TCP synthesized around the octets, the real ports); Wireshark and `rdmaconf analyze` read it.\n\n";

  out << "## Found by\n\n";
  out << "- rdmaconf " << (id.version.empty() ? "?" : id.version) << " (commit " << (id.commit.empty() ? "?" : id.commit)
      << "), catalogue " << (id.catalogue_sha256.empty() ? "?" : id.catalogue_sha256.substr(0, 12)) << "\n";
  if (!id.started_at.empty()) out << "- run " << id.started_at << " to " << id.finished_at << "\n";
  out << "- against " << info.target << "\n";
  for (const auto& [k, v] : id.iut) out << "- " << k << ": " << v << "\n";
  for (const auto& [k, v] : id.labels) out << "- label " << k << ": " << v << "\n";
  if (!id.command_line.empty()) out << "- command: `" << join(id.command_line, " ") << "`\n";
  out << "- finding " << f.id << ", key `" << f.key << "`\n";
}

}  // namespace rdmaconf::findings
