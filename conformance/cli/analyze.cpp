// rdmaconf analyze CAPTURE [--json FILE] [--annotate OUT.pcapng]: passive
// conformance analysis of a capture (pcap/analysis/analyzer.hpp). Exit code 0
// when no MUST was violated, 1 when one was, 2 when the capture could not be
// read or an output not written.
#include <fstream>
#include <iostream>

#include "analysis/analyzer.hpp"
#include "command.hpp"

namespace rdmaconf::cli {
namespace {

struct AnalyzeOptions {
  std::string capture;
  std::string json;
  std::string annotate;
  std::string filter;
  bool quiet = false;
};

int run_analyze(const AnalyzeOptions& o) {
  analysis::AnalysisOptions options;
  options.observer.report_fpdus = false;  // counts and violations only
  options.bpf_filter = o.filter;
  std::string error;
  auto result = analysis::analyze_file(o.capture, options, nullptr, error);
  if (!result) {
    std::cerr << "rdmaconf analyze: " << error << "\n";
    return 2;
  }
  const analysis::AnalysisSummary& s = result->summary;
  if (!o.quiet) {
    for (const analysis::ViolationRecord& v : result->violations)
      std::cout << "frame " << v.frame << "  " << v.stream << "  " << v.rule->id << " " << analysis::name(v.rule->level)
                << " (" << v.rule->section << "): " << v.text << "\n";
    std::cout << s.frames << " frames, " << s.streams << " TCP connections (" << s.mpa_connections << " MPA, "
              << s.clc_connections << " CLC), " << s.mpa_fpdus << " FPDUs, " << s.clc_messages << " CLC messages, "
              << s.violations << " violations (" << s.must_violations << " MUST)\n";
    if (result->violations.size() < s.violations)
      std::cout << "(" << s.violations - result->violations.size() << " further violations counted, not listed)\n";
  }
  if (!o.json.empty()) {
    std::ofstream out(o.json == "-" ? "/dev/stdout" : o.json);
    analysis::write_json(out, *result, o.capture);
    if (!out) {
      std::cerr << "rdmaconf analyze: cannot write " << o.json << "\n";
      return 2;
    }
  }
  if (!o.annotate.empty() && !analysis::write_annotated(o.capture, o.annotate, *result, error)) {
    std::cerr << "rdmaconf analyze: " << error << "\n";
    return 2;
  }
  return s.must_violations > 0 ? 1 : 0;
}

void add_analyze_command(CLI::App& app, int& exit_code) {
  static AnalyzeOptions o;
  CLI::App* sub = app.add_subcommand(
      "analyze", "Check a capture passively: every MPA/DDP/RDMAP/CLC message of both directions against the RFCs");
  sub->add_option("capture", o.capture, "pcap or pcapng file")->required();
  sub->add_option("--json", o.json, "Write summary, per-type counts and violations as JSON to FILE ('-': stdout)");
  sub->add_option("--annotate", o.annotate, "Write the capture again as pcapng with a comment on every violating frame");
  sub->add_option("--filter", o.filter, "BPF filter applied while reading (frame numbers still count every frame)");
  sub->add_flag("-q,--quiet", o.quiet, "Print nothing; the exit code says it");
  sub->final_callback([&exit_code] { exit_code = run_analyze(o); });
}

}  // namespace

RDMACONF_COMMAND(analyze, add_analyze_command);

}  // namespace rdmaconf::cli
