// The static HTML report for `run --html` and `report --html` (html_report.hpp).
#include "cli/html_report.hpp"
#include "cli/output.hpp"

#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>

#include "dashboard/static_report.hpp"

namespace rdmaconf::cli {
namespace {
namespace cf = conformance;

// The scripts of the cases that ran, for the HTML report's case pages (read
// from the catalogue's folder, at most 256 KiB each, as `serve` does).
std::map<std::string, std::string> report_scripts(const std::string& cases_dir, const std::vector<cf::CaseResult>& results) {
  std::map<std::string, std::string> scripts;
  for (const cf::CaseResult& r : results) {
    if (scripts.count(r.c->id)) continue;
    std::ifstream f(std::filesystem::path(cases_dir) / r.c->file, std::ios::binary);
    if (!f) continue;
    std::string text(256 * 1024, '\0');
    f.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(f.gcount()));
    scripts.emplace(r.c->id, std::move(text));
  }
  return scripts;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

bool write_html_report(const std::string& dir, const std::vector<cf::CaseResult>& results, const cf::RunInfo& info,
                       const nlohmann::json& config, const nlohmann::json& capabilities, const std::string& cases_dir,
                       std::string& error) {
  const dashboard::ReportContext context{config, capabilities, report_scripts(cases_dir, results), utc_now()};
  return write_output((std::filesystem::path(dir) / "index.html").string(),
                      [&](std::ostream& f) { dashboard::write_static_report(f, results, info, context); }, error);
}

}  // namespace rdmaconf::cli
