// Kernel crashes and unhealthy devices as the fuzzer's host oracle
// (host_health.hpp).
#include "wirefuzz/host_health.hpp"

#include <array>
#include <cctype>
#include <string_view>

namespace rdmaconf::conformance::wirefuzz {
namespace {

// "[   12.345678] text" -> "text".
std::string_view without_time(std::string_view line) {
  std::size_t at = 0;
  while (at < line.size() && line[at] == ' ') ++at;
  if (at < line.size() && line[at] == '[') {
    const auto close = line.find(']', at);
    if (close != std::string_view::npos) {
      line.remove_prefix(close + 1);
      if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      return line;
    }
  }
  return line;
}

bool is_headline(std::string_view text) {
  constexpr std::array<std::string_view, 5> kMarks{"BUG:", "kernel BUG at", "Oops:", "general protection fault",
                                                   "Kernel panic"};
  for (std::string_view m : kMarks)
    if (text.find(m) != std::string_view::npos) return true;
  return false;
}

// The headline without what differs between two crashes of one bug: the
// faulting address, the CPU and the time of a lockup, the task.
std::string headline_key(std::string_view text) {
  for (std::string_view cut : {std::string_view(", address:"), std::string_view(" - CPU#"), std::string_view(": 0000 ["),
                               std::string_view(" [#")})
    if (const auto at = text.find(cut); at != std::string_view::npos) text = text.substr(0, at);
  // "watchdog: BUG: soft lockup" -> "BUG: soft lockup"
  if (const auto bug = text.find("BUG:"); bug != std::string_view::npos && text.find("kernel BUG at") == std::string_view::npos)
    text = text.substr(bug);
  while (!text.empty() && (text.back() == ' ' || text.back() == ',' || text.back() == '!')) text.remove_suffix(1);
  return std::string(text);
}

// "cm_work_handler+0x5a4/0x5b0 [iw_cm]" -> "cm_work_handler" (a compiler's
// suffix such as ".isra.0" or ".cold" dropped); empty when the line is no
// stack entry.
std::string function_of(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  if (text.rfind("RIP: ", 0) == 0) {
    text.remove_prefix(5);
    if (const auto colon = text.find(':'); colon != std::string_view::npos && colon <= 4) text.remove_prefix(colon + 1);
  }
  const auto plus = text.find("+0x");
  if (plus == std::string_view::npos || plus == 0) return {};
  std::string_view name = text.substr(0, plus);
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return {};
  if (const auto dot = name.find('.'); dot != std::string_view::npos) name = name.substr(0, dot);
  return std::string(name);
}

}  // namespace

std::optional<HostProblem> kernel_crash(const std::vector<std::string>& lines) {
  std::size_t at = 0;
  while (at < lines.size() && !is_headline(without_time(lines[at]))) ++at;
  if (at == lines.size()) return std::nullopt;
  HostProblem p;
  const std::string headline(without_time(lines[at]));
  std::string rip;
  std::vector<std::string> calls;
  bool in_trace = false;
  // The splat: up to its end marker, or 80 lines.
  for (std::size_t i = at; i < lines.size() && i < at + 80; ++i) {
    const std::string_view text = without_time(lines[i]);
    p.log.emplace_back(lines[i]);
    if (i > at && text.find("---[ end trace") != std::string_view::npos) break;
    if (text.find("RIP: ") != std::string_view::npos && rip.empty()) rip = function_of(text.substr(text.find("RIP: ")));
    if (text.find("Call Trace:") != std::string_view::npos) {
      in_trace = true;
      continue;
    }
    if (!in_trace) continue;
    std::string_view entry = text;
    while (!entry.empty() && entry.front() == ' ') entry.remove_prefix(1);
    if (entry.rfind("? ", 0) == 0 || entry.rfind("<", 0) == 0) continue;  // unwinder guesses, <TASK>, <IRQ>
    std::string f = function_of(entry);
    if (f.empty()) {
      if (!calls.empty()) in_trace = false;  // past the trace (registers, modules)
      continue;
    }
    if (calls.size() < 3) calls.push_back(std::move(f));
  }
  p.what = "the host's kernel logged " + headline;
  p.signature = "kernel: " + headline_key(headline);
  if (!rip.empty()) p.signature += " in " + rip;
  for (const std::string& c : calls) p.signature += " <- " + c;
  return p;
}

bool device_unhealthy(const std::string& name) {
  return name == "device_fatal" || name == "port_error" || name == "cq_error";
}

}  // namespace rdmaconf::conformance::wirefuzz
