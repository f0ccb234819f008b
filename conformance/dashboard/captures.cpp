// Capture analysis for the dashboard (captures.hpp).
#include "dashboard/captures.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "analysis/analyzer.hpp"
#include "analysis/decode_text.hpp"

namespace rdmaconf::dashboard {

using nlohmann::json;
namespace an = rdmaconf::analysis;

namespace {

// A file removed when the scope ends (the analyzer reads files by name).
class TempFile {
 public:
  explicit TempFile(const char* suffix) {
    std::string pattern = (std::filesystem::temp_directory_path() / "rdmaconf-capture-XXXXXX").string() + suffix;
    const int fd = ::mkstemps(pattern.data(), static_cast<int>(std::char_traits<char>::length(suffix)));
    if (fd >= 0) {
      ::close(fd);
      path_ = pattern;
    }
  }
  ~TempFile() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Collector : an::AnalysisListener {
  explicit Collector(const CaptureLimits& l) : limits(l) {}
  struct Conn {
    std::string stream;
    json messages = json::array();
    std::uint64_t more = 0;
  };
  void on_message(const an::ConnectionInfo& c, const an::Message& m) override {
    if (conns.size() >= limits.max_connections && !conns.count(c.id)) return;
    Conn& k = conns[c.id];
    if (k.stream.empty()) k.stream = c.stream(an::Side::kInitiator);
    if (k.messages.size() >= limits.max_messages_per_connection) {
      ++k.more;
      return;
    }
    std::string detail;
    for (const auto& [name, value] : an::describe_fields(m)) detail += name + " = " + value + "\n";
    k.messages.push_back({{"from", m.side == an::Side::kInitiator ? "initiator" : "responder"},
                          {"frame", m.frame},
                          {"headline", an::message_type_name(m) + ", " + std::to_string(m.octets) + " octets"},
                          {"detail", detail}});
  }
  const CaptureLimits& limits;
  std::map<std::uint64_t, Conn> conns;
};

}  // namespace

json analyze_capture(const std::string& octets, std::string& annotated, std::string& error, const CaptureLimits& limits) {
  TempFile in(".pcap"), out(".pcapng");
  if (in.path().empty() || out.path().empty()) {
    error = "cannot create a temporary file";
    return nullptr;
  }
  {
    std::ofstream f(in.path(), std::ios::binary);
    f.write(octets.data(), static_cast<std::streamsize>(octets.size()));
    if (!f) {
      error = "cannot write a temporary file";
      return nullptr;
    }
  }
  an::AnalysisOptions options;
  options.max_violations_kept = 10000;
  Collector collector(limits);
  const auto result = an::analyze_file(in.path(), options, &collector, error);
  if (!result) return nullptr;
  const an::AnalysisSummary& s = result->summary;
  json connections = json::object();
  auto conn = [&](std::uint64_t id) -> json& {
    json& c = connections[std::to_string(id)];
    if (c.is_null()) c = {{"id", id}, {"stream", ""}, {"messages", json::array()}, {"more_messages", 0}, {"violations", json::array()}};
    return c;
  };
  for (auto& [id, k] : collector.conns) {
    json& c = conn(id);
    c["stream"] = k.stream;
    c["messages"] = std::move(k.messages);
    c["more_messages"] = k.more;
  }
  for (const an::ViolationRecord& v : result->violations) {
    json& c = conn(v.connection);
    if (c["stream"] == "") c["stream"] = v.stream;
    c["violations"].push_back({{"frame", v.frame},
                               {"rule", std::string(v.rule->id)},
                               {"level", std::string(an::name(v.rule->level))},
                               {"section", std::string(v.rule->section)},
                               {"side", std::string(an::name(v.side))},
                               {"text", v.text},
                               {"hint", v.hint}});
  }
  json list = json::array();
  for (auto& [k, c] : connections.items()) list.push_back(std::move(c));
  std::sort(list.begin(), list.end(), [](const json& a, const json& b) { return a["id"] < b["id"]; });
  std::string annotate_error;
  if (an::write_annotated(in.path(), out.path(), *result, annotate_error)) {
    std::ifstream f(out.path(), std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    annotated = ss.str();
  }
  return {{"summary",
           {{"frames", s.frames},
            {"streams", s.streams},
            {"mpa_connections", s.mpa_connections},
            {"clc_connections", s.clc_connections},
            {"mpa_fpdus", s.mpa_fpdus},
            {"clc_messages", s.clc_messages},
            {"violations", s.violations},
            {"must_violations", s.must_violations}}},
          {"clean_end", result->clean_end},
          {"annotated", !annotated.empty()},
          {"connections", std::move(list)}};
}

}  // namespace rdmaconf::dashboard
