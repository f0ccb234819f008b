// rdmaconf decode CAPTURE [--json]: every MPA, DDP/RDMAP and CLC message of a
// capture, one per line (or one JSON object per line inside a JSON array),
// with violations and resynchronisation events interleaved in the text form.
#include <iostream>

#include "analysis/analyzer.hpp"
#include "analysis/decode_text.hpp"
#include "command.hpp"

namespace rdmaconf::cli {
namespace {

struct DecodeOptions {
  std::string capture;
  std::string filter;
  std::vector<std::string> ulps;
  bool json = false;
};

class Printer : public analysis::AnalysisListener {
 public:
  explicit Printer(bool json) : json_(json) {}
  void on_message(const analysis::ConnectionInfo& c, const analysis::Message& m) override {
    if (json_) {
      std::cout << (first_ ? "[\n  " : ",\n  ") << analysis::describe_json(c, m);
      first_ = false;
    } else {
      std::cout << analysis::describe_line(c, m) << "\n";
    }
  }
  void on_violation(const analysis::ConnectionInfo& c, const analysis::Violation& v) override {
    if (!json_)
      std::cout << "  ! frame " << v.frame << "  " << c.stream(v.side) << "  " << v.rule->id << " "
                << analysis::name(v.rule->level) << ": " << v.text << "\n"
                << (v.hint.empty() ? "" : "    hint: " + v.hint + "\n");
  }
  void on_event(const analysis::ConnectionInfo& c, const analysis::Event& e) override {
    if (!json_ && e.kind != analysis::EventKind::kDetected)
      std::cout << "  # frame " << e.frame << "  " << c.stream(e.side) << "  " << e.text << "\n";
  }
  void finish() {
    if (json_) std::cout << (first_ ? "[]\n" : "\n]\n");
  }

 private:
  bool json_;
  bool first_ = true;
};

int run_decode(const DecodeOptions& o) {
  analysis::AnalysisOptions options;
  options.bpf_filter = o.filter;
  for (const std::string& u : o.ulps) options.ulps.push_back(*analysis::parse_ulp_choice(u));
  Printer printer(o.json);
  std::string error;
  auto result = analysis::analyze_file(o.capture, options, &printer, error);
  if (!result) {
    std::cerr << "rdmaconf decode: " << error << "\n";
    return 2;
  }
  printer.finish();
  // As analyze (and tshark): what was read is printed, the exit code says
  // the file was cut short.
  if (!result->clean_end) {
    std::cerr << "rdmaconf decode: " << o.capture << " did not end cleanly (truncated or unreadable)\n";
    return 2;
  }
  return 0;
}

void add_decode_command(CLI::App& app, int& exit_code) {
  static DecodeOptions o;
  CLI::App* sub = app.add_subcommand("decode", "Print every MPA, DDP/RDMAP and CLC message of a capture");
  sub->add_option("capture", o.capture, "pcap or pcapng file")->required();
  sub->add_flag("--json", o.json, "One JSON object per message, as a JSON array");
  sub->add_option("--filter", o.filter, "BPF filter applied while reading");
  add_ulp_option(*sub, o.ulps);
  sub->final_callback([&exit_code] { exit_code = run_decode(o); });
}

}  // namespace

RDMACONF_COMMAND(decode, add_decode_command);

}  // namespace rdmaconf::cli
