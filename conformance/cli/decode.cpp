// rdmaconf decode CAPTURE [--json FILE|-]: every MPA, DDP/RDMAP and CLC
// message of a capture and every RoCEv2 packet (with the SMC-R LLC or CDC
// message an RC Send carries), one per line, with violations and
// resynchronisation events interleaved; --json writes one JSON object per
// message inside a JSON array. With --json - the array holds standard output
// and the text, which says the same line for line, is left out.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "analysis/analyzer.hpp"
#include "analysis/decode_text.hpp"
#include "cli/command.hpp"
#include "cli/output.hpp"

namespace rdmaconf::cli {
namespace {

struct DecodeOptions {
  std::string capture;
  std::string filter;
  std::vector<std::string> ulps;
  std::string json;
};

class Printer : public analysis::AnalysisListener {
 public:
  // `json_path`: empty for text only, "-" for JSON only on standard output.
  explicit Printer(const std::string& json_path) : json_path_(json_path), text_(!is_stdout(json_path)) {}
  void on_message(const analysis::ConnectionInfo& c, const analysis::Message& m) override {
    if (std::ostream* j = json()) {
      *j << (first_ ? "[\n  " : ",\n  ") << analysis::describe_json(c, m);
      first_ = false;
    }
    if (text_) std::cout << analysis::describe_line(c, m) << "\n";
  }
  void on_violation(const analysis::ConnectionInfo& c, const analysis::Violation& v) override {
    if (text_)
      std::cout << "  ! frame " << v.frame << "  " << c.stream(v.side) << "  " << v.rule->id << " "
                << analysis::name(v.rule->level) << ": " << v.text << "\n"
                << (v.hint.empty() ? "" : "    hint: " + v.hint + "\n");
  }
  void on_event(const analysis::ConnectionInfo& c, const analysis::Event& e) override {
    if (text_ && e.kind != analysis::EventKind::kDetected)
      std::cout << "  # frame " << e.frame << "  " << c.stream(e.side) << "  " << e.text << "\n";
  }
  // Closes the array; false with `error` when the JSON could not be written.
  bool finish(std::string& error) {
    std::ostream* j = json();
    if (!j) return true;
    *j << (first_ ? "[]\n" : "\n]\n");
    j->flush();
    if (file_.is_open()) file_.close();
    if (*j) return true;
    error = "cannot write " + (is_stdout(json_path_) ? std::string("to standard output") : json_path_);
    return false;
  }

 private:
  // The file is opened with the first message, so that a capture that
  // cannot be read leaves no JSON file behind.
  std::ostream* json() {
    if (json_path_.empty()) return nullptr;
    if (is_stdout(json_path_)) return &std::cout;
    if (!file_.is_open() && file_.good()) file_.open(json_path_, std::ios::binary | std::ios::trunc);
    return &file_;
  }

  std::string json_path_;
  std::ofstream file_;
  bool text_;
  bool first_ = true;
};

int run_decode(const DecodeOptions& o) {
  if (o.capture.empty()) {
    std::cerr << "rdmaconf decode: give a capture file (--json takes the file the JSON goes to, or - for standard "
                 "output: rdmaconf decode CAPTURE --json -)\n";
    return 2;
  }
  std::error_code ec;
  if (!o.json.empty() && std::filesystem::equivalent(o.json, o.capture, ec)) {
    std::cerr << "rdmaconf decode: --json " << o.json << " is the capture being read; give another file\n";
    return 2;
  }
  std::string error;
  if (!prepare_output(o.json, OutputKind::kFile, error)) {
    std::cerr << "rdmaconf decode: --json: " << error << "\n";
    return 2;
  }
  analysis::AnalysisOptions options;
  options.bpf_filter = o.filter;
  for (const std::string& u : o.ulps) options.ulps.push_back(*analysis::parse_ulp_choice(u));
  Printer printer(o.json);
  auto result = analysis::analyze_file(o.capture, options, &printer, error);
  if (!result) {
    std::cerr << "rdmaconf decode: " << error << "\n";
    return 2;
  }
  if (!printer.finish(error)) {
    std::cerr << "rdmaconf decode: --json: " << error << "\n";
    return 2;
  }
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
  CLI::App* sub = app.add_subcommand("decode", "Print every MPA, DDP/RDMAP and CLC message and every RoCEv2 packet (SMC-R LLC/CDC) of a capture");
  sub->add_option("capture", o.capture, "pcap or pcapng file");
  add_json_option(*sub, o.json, "Write every message as a JSON object, in an array (with '-', instead of the text),");
  sub->add_option("--filter", o.filter, "BPF filter applied while reading");
  add_ulp_option(*sub, o.ulps);
  sub->final_callback([&exit_code] { exit_code = run_decode(o); });
}

}  // namespace

RDMACONF_COMMAND(decode, add_decode_command);

}  // namespace rdmaconf::cli
