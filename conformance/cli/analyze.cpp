// rdmaconf analyze CAPTURE [--json FILE|-] [--annotate OUT.pcapng]
// rdmaconf analyze -i IFACE [--filter BPF] [--duration S | --count N]:
// passive conformance analysis of a capture file or a live interface
// (pcap/analysis/analyzer.hpp). Exit code 0 when no MUST was violated, 1 when
// one was, 2 when the input could not be read or an output not written.
#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "analysis/analyzer.hpp"
#include "cli/command.hpp"
#include "cli/output.hpp"

namespace rdmaconf::cli {
namespace {

struct AnalyzeOptions {
  std::string capture;
  std::string interface;
  double duration_s = 0;
  std::uint64_t count = 0;
  std::uint32_t buffer_mib = capture::LiveOptions{}.buffer_mib;
  std::string json;
  std::string annotate;
  std::string filter;
  std::vector<std::string> ulps;
  bool quiet = false;
  bool buffer_size_given = false;  // --buffer-size on the command line (its default is a value)
};

// Ctrl-C ends a live capture; what was seen is still analyzed and reported.
std::atomic<bool> g_stop{false};
void on_interrupt(int) { g_stop.store(true, std::memory_order_relaxed); }

int run_analyze(const AnalyzeOptions& o) {
  if (o.capture.empty() == o.interface.empty()) {
    std::cerr << "rdmaconf analyze: give a capture file or -i IFACE (one of them)\n";
    return 2;
  }
  if (o.capture.empty() && !o.annotate.empty()) {
    std::cerr << "rdmaconf analyze: --annotate needs a capture file (it rewrites the file's frames); capture "
                 "with tcpdump -w FILE first, then run analyze FILE --annotate OUT\n";
    return 2;
  }
  if (!o.capture.empty() && (o.duration_s > 0 || o.count > 0 || o.buffer_size_given)) {
    std::cerr << "rdmaconf analyze: --duration, --count and --buffer-size apply to -i only, not to a capture file\n";
    return 2;
  }
  // The outputs, before a long capture or file is read: neither may be the
  // capture itself (it would be overwritten while being read).
  for (const auto& [option, path] : {std::pair{"--json", &o.json}, {"--annotate", &o.annotate}}) {
    std::error_code ec;
    if (!o.capture.empty() && !path->empty() && std::filesystem::equivalent(*path, o.capture, ec)) {
      std::cerr << "rdmaconf analyze: " << option << " " << *path << " is the capture being read; give another file\n";
      return 2;
    }
    std::string error;
    if (!prepare_output(*path, OutputKind::kFile, error)) {
      std::cerr << "rdmaconf analyze: " << option << ": " << error << "\n";
      return 2;
    }
  }
  if (is_stdout(o.annotate)) {
    std::cerr << "rdmaconf analyze: --annotate writes a capture file; give its name\n";
    return 2;
  }
  analysis::AnalysisOptions options;
  options.observer.report_fpdus = false;  // counts and violations only
  options.bpf_filter = o.filter;
  for (const std::string& u : o.ulps) options.ulps.push_back(*analysis::parse_ulp_choice(u));
  std::string error;
  std::optional<analysis::AnalysisResult> result;
  if (!o.capture.empty()) {
    result = analysis::analyze_file(o.capture, options, nullptr, error);
  } else {
    analysis::LiveAnalysis live;
    live.interface = o.interface;
    live.duration = std::chrono::milliseconds(static_cast<std::int64_t>(o.duration_s * 1000));
    live.max_frames = o.count;
    live.buffer_mib = o.buffer_mib;
    live.stop = &g_stop;
    live.on_capturing = [&o] {
      // On stderr, so that --json - keeps stdout clean; tests wait for it.
      std::cerr << "rdmaconf analyze: capturing on " << o.interface
                << (o.filter.empty() ? "" : " (" + o.filter + ")") << "\n"
                << std::flush;
    };
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    result = analysis::analyze_live(live, options, nullptr, error);
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
  }
  if (!result) {
    std::cerr << "rdmaconf analyze: " << error << "\n";
    return 2;
  }
  const analysis::AnalysisSummary& s = result->summary;
  // With --json - the JSON holds standard output; the summary goes to stderr.
  std::ostream& text = text_stream(o.json);
  if (!o.quiet) {
    for (const analysis::ViolationRecord& v : result->violations)
      text << "frame " << v.frame << "  " << v.stream << "  " << v.rule->id << " " << analysis::name(v.rule->level)
                << " (" << v.rule->section << "): " << v.text << "\n"
                << (v.hint.empty() ? "" : "    hint: " + v.hint + "\n");
    text << s.frames << " frames, " << s.streams << " TCP connections (" << s.mpa_connections << " MPA, "
              << s.clc_connections << " CLC), " << s.mpa_fpdus << " FPDUs, " << s.clc_messages << " CLC messages, "
              << s.violations << " violations (" << s.must_violations << " MUST)\n";
    if (s.roce_packets > 0) {
      // SMC-R past the handshake: what the RoCEv2 packets carried.
      std::uint64_t llc = 0;
      for (const auto& [name, n] : s.llc_messages) llc += n;
      text << s.roce_packets << " RoCEv2 packets (" << s.roce_retransmissions << " retransmitted, "
                << s.roce_undecoded << " not decoded): " << llc << " LLC messages, " << s.cdc_messages
                << " CDC messages, " << s.rdma_writes << " RDMA Writes";
      if (s.roce_psn_gaps > 0) text << "; " << s.roce_psn_gaps << " PSN gaps (packets not captured)";
      text << "\n";
      for (const auto& [name, n] : s.llc_messages) text << "  " << name << " " << n << "\n";
    }
    // Whatever the capture layer could not use is said, never dropped silently.
    if (s.capture_reports > 0) {
      text << s.capture_reports << " capture reports:";
      for (const auto& [kind, n] : s.report_kinds) text << " " << kind << " " << n;
      text << " (" << s.skipped_octets << " octets not decoded)\n";
    }
    if (s.kernel_drops > 0)
      text << s.kernel_drops << " frames were dropped by the kernel before they could be read"
                << " (a larger --buffer-size helps)\n";
    for (const auto& [ulp, t] : s.ulps) {
      text << ulp << " on " << t.connections << (t.connections == 1 ? " connection" : " connections") << ":";
      for (const auto& [what, n] : t.messages) text << " " << what << " " << n << ",";
      text << " " << t.undecoded << " Sends not decoded\n";
      if (!t.operations.empty()) {
        text << "  " << (ulp == "iser" ? "SCSI commands:" : ulp == "smb-direct" ? "SMB2 commands:" : "RPC calls:");
        for (const auto& [what, n] : t.operations) text << " " << what << " " << n << ",";
        text << "\n";
      }
      const analysis::UlpTransfers& x = t.transfers;
      if (ulp == "smb-direct") continue;  // its buffer descriptors are not tied to RDMA traffic yet
      text << "  RDMA Read Requests " << x.reads << " (" << x.reads_tied << " tied to "
                << (ulp == "iser" ? "a Write STag" : "a read chunk") << "), RDMA Writes " << x.writes << " ("
                << x.writes_tied << " tied to " << (ulp == "iser" ? "a Read STag" : "a Write or Reply chunk")
                << "), Sends with Invalidate " << x.invalidations << " (" << x.invalidations_tied
                << " naming an STag of their " << (ulp == "iser" ? "command" : "call") << ")\n";
    }
    if (!result->clean_end) text << "the capture did not end cleanly (truncated or unreadable)\n";
    if (result->violations.size() < s.violations)
      text << "(" << s.violations - result->violations.size() << " further violations counted, not listed)\n";
  }
  if (!o.json.empty()) {
    std::string werror;
    if (!write_output(o.json, [&](std::ostream& out) {
          analysis::write_json(out, *result, o.capture.empty() ? "live:" + o.interface : o.capture);
        }, werror)) {
      std::cerr << "rdmaconf analyze: --json: " << werror << "\n";
      return 2;
    }
  }
  if (!o.annotate.empty() && !analysis::write_annotated(o.capture, o.annotate, *result, error)) {
    std::cerr << "rdmaconf analyze: " << error << "\n";
    return 2;
  }
  // A file cut short (or unreadable part way) is reported with everything
  // read before the cut, and fails like a file that cannot be read: as
  // tshark does, the exit code says the input was not whole.
  if (!result->clean_end) {
    std::cerr << "rdmaconf analyze: " << (o.capture.empty() ? "live capture on " + o.interface : o.capture)
              << " did not end cleanly (truncated or unreadable); "
              << s.frames << " frames analyzed\n";
    return 2;
  }
  return s.must_violations > 0 ? 1 : 0;
}

void add_analyze_command(CLI::App& app, int& exit_code) {
  static AnalyzeOptions o;
  CLI::App* sub = app.add_subcommand(
      "analyze", "Check a capture passively: every MPA/DDP/RDMAP/CLC message of both directions against the RFCs; SMC-R LLC/CDC over RoCEv2 decoded and counted");
  sub->add_option("capture", o.capture, "pcap or pcapng file");
  sub->add_option("-i,--interface", o.interface, "Capture live on this interface instead (lo, eth0, any)");
  sub->add_option("--duration", o.duration_s, "With -i: stop after this many seconds")->check(CLI::Range(0.0, 1e9));
  sub->add_option("--count", o.count, "With -i: stop after this many frames");
  CLI::Option* buffer_size =
      sub->add_option("--buffer-size", o.buffer_mib, "With -i: the kernel's capture buffer in MiB (drops are reported)")
          ->check(CLI::Range(1, 1024))
          ->capture_default_str();
  add_json_option(*sub, o.json, "Write the summary, per-type counts and violations as JSON");
  sub->add_option("--annotate", o.annotate, "Write the capture again as pcapng with a comment on every violating frame");
  sub->add_option("--filter", o.filter, "BPF filter (files: frame numbers still count every frame; -i: applied in the kernel)");
  add_ulp_option(*sub, o.ulps);
  sub->add_flag("-q,--quiet", o.quiet, "Print nothing; the exit code says it");
  sub->final_callback([&exit_code, buffer_size] {
    o.buffer_size_given = buffer_size->count() > 0;
    exit_code = run_analyze(o);
  });
}

}  // namespace

void add_ulp_option(CLI::App& sub, std::vector<std::string>& ulps) {
  // One value per --ulp (repeat it for several ports), so that the capture
  // after it is never read as a second ULP.
  sub.add_option("--ulp", ulps,
                 "The upper-layer protocol over RDMAP, NAME or NAME:PORT (rpc-over-rdma or nfs-rdma, iser, smb-direct); "
                 "repeat for several ports; otherwise recognised per connection from the MPA private data or the "
                 "first Send")
      ->allow_extra_args(false)
      ->check([](const std::string& v) {
        return analysis::parse_ulp_choice(v) ? std::string() : "expected rpc-over-rdma (or nfs-rdma), iser, smb-direct or unknown, with an optional :PORT";
      });
}

RDMACONF_COMMAND(analyze, add_analyze_command);

}  // namespace rdmaconf::cli
