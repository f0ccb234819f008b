// Publisher (publish.hpp).
#include "cli/publish.hpp"

#include <chrono>

#include "dashboard/case_json.hpp"
#include "report/report_json.hpp"
#include "cli/run.hpp"

namespace rdmaconf::cli {

using nlohmann::json;

namespace {
// Cases per request, and octets: a request stays well under the
// dashboard's 8 MiB limit on a batch, however large some cases' exchanges
// are (a case alone may be larger; the dashboard bounds it by itself).
constexpr std::size_t kBatch = 200;
constexpr std::size_t kBatchOctets = 4 * 1024 * 1024;
}

json publish_config(const RunArgs& a) {
  json c = {{"suites", a.suites},         {"cases", a.ids},           {"strict", a.strict},
            {"iut_lacks", a.iut_lacks},   {"time_scale", a.time_scale}, {"jobs", a.jobs}};
  if (a.reference) c["reference"] = {{"faults", a.faults}};
  if (!a.target.empty()) c["target"] = a.target;
  if (!a.clc_target.empty()) c["clc_target"] = a.clc_target;
  if (!a.listen.empty()) c["listen"] = a.listen;
  if (!a.agent.url.empty()) c["agent"] = {{"url", a.agent.url}, {"configs", a.agent.configs}};
  return c;
}

Publisher::Publisher(std::string url, std::string token) : url_(std::move(url)), token_(std::move(token)) {}

Publisher::~Publisher() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Publisher::open(const std::string& target, const json& config, const json& capabilities,
                     const conformance::RunIdentity& identity, std::string& error) {
  agent::AgentUrl u;
  if (!agent::parse_agent_url(url_, u)) {
    error = "expects http://HOST:PORT, got '" + url_ + "'";
    return false;
  }
  client_ = std::make_unique<agent::AgentClient>(u, token_);
  const auto reply = client_->post("/api/runs", {{"publish", {{"target", target},
                                                                {"config", config},
                                                                {"capabilities", capabilities},
                                                                {"identity", json(conformance::identity_json(identity))}}}});
  if (reply.status != 201 || !reply.body.is_object() || !reply.body.contains("id") || !reply.body["id"].is_number_integer()) {
    error = "the dashboard did not create the run (" +
            (reply.status ? "HTTP " + std::to_string(reply.status) + (reply.error.empty() ? "" : ": " + reply.error)
                          : reply.error) +
            ")";
    return false;
  }
  run_id_ = reply.body["id"].get<std::int64_t>();
  thread_ = std::thread([this] { loop(); });
  return true;
}

void Publisher::add(const conformance::CaseResult& r) {
  {
    std::lock_guard lock(mu_);
    pending_.push_back(dashboard::result_json(r));
  }
  cv_.notify_all();
}

bool Publisher::flush(std::vector<json>& batch) {
  for (std::size_t at = 0; at < batch.size();) {
    json cases = json::array();
    std::size_t octets = 0;
    while (at < batch.size() && cases.size() < kBatch) {
      const std::size_t size = batch[at].dump(-1, ' ', false, json::error_handler_t::replace).size();
      if (!cases.empty() && octets + size > kBatchOctets) break;
      octets += size;
      cases.push_back(std::move(batch[at++]));
    }
    const auto reply = client_->post("/api/runs/" + std::to_string(run_id_) + "/cases", {{"cases", std::move(cases)}});
    if (!reply) {
      std::lock_guard lock(mu_);
      if (error_.empty())
        error_ = "cases not delivered (" + (reply.status ? "HTTP " + std::to_string(reply.status) + ": " : "") + reply.error + ")";
      return false;
    }
  }
  return true;
}

void Publisher::loop() {
  for (;;) {
    std::vector<json> batch;
    bool last = false;
    {
      std::unique_lock lock(mu_);
      // Batches of what arrived within a quarter second: live, but not a
      // request per case.
      cv_.wait_for(lock, std::chrono::milliseconds(250), [&] { return closing_; });
      batch.swap(pending_);
      last = closing_;
    }
    if (!batch.empty()) flush(batch);
    if (last) return;
  }
}

bool Publisher::finish(const std::string& status, const std::string& message, const conformance::RunInfo& info,
                       std::string& error) {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  const auto reply = client_->post("/api/runs/" + std::to_string(run_id_) + "/finish",
                                   {{"status", status},
                                    {"message", message},
                                    {"duration_ms", static_cast<std::int64_t>(info.wall_ms)},
                                    {"skipped", info.skipped},
                                    {"identity", json(conformance::identity_json(info.identity))}});
  std::lock_guard lock(mu_);
  if (!error_.empty()) {
    error = error_;
    return false;
  }
  if (!reply) {
    error = "the end of the run was not delivered (" + (reply.status ? "HTTP " + std::to_string(reply.status) + ": " : "") +
            reply.error + ")";
    return false;
  }
  return true;
}

}  // namespace rdmaconf::cli
