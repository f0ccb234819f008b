// The IUT's host through its agent (fuzz_agent.hpp).
#include "cli/fuzz_agent.hpp"

#include <chrono>
#include <thread>

namespace rdmaconf::cli {

namespace wf = conformance::wirefuzz;

AgentHealth::AgentHealth(agent::AgentUrl url, std::string token)
    : url_(url), client_(url, std::move(token), std::chrono::milliseconds(5000)) {}

bool AgentHealth::open(std::string& note, std::string& error) {
  // From nothing: a second open (after the host was restored) starts from
  // what the agent holds then, whatever it held before.
  events_after_ = log_after_ = 0;
  boot_id_.clear();
  recent_.clear();
  kernel_crashed_.reset();
  try {
    return start(note, error);
  } catch (const nlohmann::json::exception& e) {
    error = std::string("the agent's answer does not parse: ") + e.what();
    return false;
  }
}

bool AgentHealth::start(std::string& note, std::string& error) {
  const auto info = client_.get("/v1/info");
  if (!info || !info.body.is_object()) {
    error = info.error.empty() ? "the agent did not answer /v1/info" : info.error;
    return false;
  }
  if (info.body.contains("last_event") && info.body["last_event"].is_number_unsigned())
    events_after_ = info.body["last_event"].get<std::uint64_t>();
  // Skip what the kernel logged before this run: read to the end.
  for (int pages = 0; pages < 64; ++pages) {
    const auto r = client_.get("/v1/kernel-log?after=" + std::to_string(log_after_));
    if (!r || !r.body.is_object() || r.body.value("available", false) != true) {
      note = "no kernel log from the agent";
      if (r && r.body.is_object() && r.body.contains("reason") && r.body["reason"].is_string())
        note += " (" + r.body["reason"].get<std::string>() + ")";
      else if (r.status == 404)
        note += " (an agent without GET /v1/kernel-log)";
      log_offered_ = false;
      return true;
    }
    log_offered_ = true;
    boot_id_ = r.body.value("boot_id", "");
    const std::uint64_t next = r.body.value("next", log_after_);
    if (next == log_after_) break;
    log_after_ = next;
  }
  note = "reading the host's kernel log through the agent";
  return true;
}

std::optional<wf::HostProblem> AgentHealth::read_kernel_log() {
  for (int pages = 0; pages < 16; ++pages) {
    const auto r = client_.get("/v1/kernel-log?after=" + std::to_string(log_after_));
    if (!r || !r.body.is_object() || r.body.value("available", false) != true) break;
    const std::string boot = r.body.value("boot_id", "");
    if (boot != boot_id_) {
      // The host booted again: its log starts over, and so does its health.
      boot_id_ = boot;
      kernel_crashed_.reset();
      recent_.clear();
      if (log_after_ != 0) {
        log_after_ = 0;
        continue;
      }
    }
    if (!r.body.contains("lines") || !r.body["lines"].is_array() || r.body["lines"].empty()) break;
    const auto& lines = r.body["lines"];
    for (const auto& l : lines)
      if (l.is_object() && l.contains("text") && l["text"].is_string()) recent_.push_back(l["text"].get<std::string>());
    log_after_ = r.body.value("next", log_after_);
  }
  // A splat takes a moment to be logged whole: keep enough to hold one.
  if (recent_.size() > 400) recent_.erase(recent_.begin(), recent_.end() - 400);
  if (kernel_crashed_) return kernel_crashed_;
  auto crash = wf::kernel_crash(recent_);
  if (!crash) return std::nullopt;
  // Its stack may not be logged yet: look again once, a moment later.
  if (crash->log.back().find("---[ end trace") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto r = client_.get("/v1/kernel-log?after=" + std::to_string(log_after_));
    if (r && r.body.is_object() && r.body.contains("lines") && r.body["lines"].is_array() &&
        r.body.value("boot_id", "") == boot_id_) {
      for (const auto& l : r.body["lines"])
        if (l.is_object() && l.contains("text") && l["text"].is_string()) recent_.push_back(l["text"].get<std::string>());
      log_after_ = r.body.value("next", log_after_);
      crash = wf::kernel_crash(recent_);
    }
  }
  recent_.clear();
  kernel_crashed_ = crash;
  return kernel_crashed_;
}

std::optional<wf::HostProblem> AgentHealth::check() {
  // Every read checks its type; an answer of the wrong shape still must not
  // end the run.
  try {
    return look();
  } catch (const nlohmann::json::exception& e) {
    return wf::HostProblem{std::string("the agent's answer does not parse: ") + e.what(), "agent answer malformed", {}};
  }
}

std::optional<wf::HostProblem> AgentHealth::look() {
  const std::string where = url_.host + ":" + std::to_string(url_.port);
  const auto info = client_.get("/v1/info");
  if (info.status == 0)
    return wf::HostProblem{"the agent at " + where + " does not answer (" + info.error + "): its host or the agent is gone",
                           "agent gone", {}};
  std::optional<wf::HostProblem> restarted;
  if (info && info.body.is_object() && info.body.contains("last_event") && info.body["last_event"].is_number_unsigned() &&
      info.body["last_event"].get<std::uint64_t>() < events_after_) {
    // Its numbering started over: a new agent process (its host may have
    // booted again; then the kernel log says so too).
    events_after_ = 0;
    restarted = wf::HostProblem{"the agent at " + where + " started over (a new process)", "agent restarted", {}};
  }
  if (log_offered_)
    if (auto k = read_kernel_log()) return k;
  std::optional<wf::HostProblem> device;
  for (int pages = 0; pages < 16; ++pages) {
    const auto r = client_.get("/v1/events?after=" + std::to_string(events_after_));
    if (!r || !r.body.is_object() || !r.body.contains("events") || !r.body["events"].is_array()) break;
    for (const auto& e : r.body["events"]) {
      if (!e.is_object() || e.value("kind", "") != "async") continue;
      const std::string name = e.value("name", "");
      if (!device && wf::device_unhealthy(name)) {
        std::string what = "the device reported " + name;
        if (e.contains("detail") && e["detail"].is_string() && !e["detail"].get<std::string>().empty())
          what += " (" + e["detail"].get<std::string>() + ")";
        device = wf::HostProblem{what, "device: " + name, {}};
      }
    }
    const std::uint64_t next = r.body.value("next", events_after_);
    if (next == events_after_) break;
    events_after_ = next;
  }
  if (device) return device;
  return restarted;
}

}  // namespace rdmaconf::cli
