// CaseResult <-> JSON (case_json.hpp).
#include "case_json.hpp"

#include <algorithm>

namespace rdmaconf::dashboard {

using nlohmann::json;
namespace cf = conformance;

bool is_verdict(std::string_view v) {
  return std::any_of(std::begin(kVerdicts), std::end(kVerdicts), [&](const char* k) { return v == k; });
}

json case_json(const cf::CaseResult& r) {
  json frames = json::array();
  for (const cf::FrameRecord& f : r.frames)
    frames.push_back({{"from", f.from_tester ? "tester" : "iut"}, {"at_ms", f.at_ms}, {"headline", f.headline}, {"detail", f.detail}});
  json agent = json::array();
  for (const cf::AgentEvent& e : r.agent)
    agent.push_back({{"at_ms", e.at_ms}, {"kind", e.kind}, {"name", e.name}, {"status", e.status}, {"byte_len", e.byte_len},
                     {"detail", e.detail}});
  return {{"id", r.c->id},
          {"protocol", r.c->protocol},
          {"configuration", r.configuration},
          {"title", r.c->title},
          {"requirements", r.c->requirements},
          {"rfc", r.c->rfc},
          {"level", std::string(cf::to_string(r.c->level))},
          {"role", std::string(cf::to_string(r.c->role))},
          {"verdict", std::string(cf::to_string(r.verdict))},
          {"reason", r.reason},
          {"script", r.c->file},
          {"failed_line", r.failed_line},
          {"duration_ms", r.duration_ms},
          {"tester_address", r.exchange.tester_address},
          {"iut_address", r.exchange.iut_address},
          {"frames", std::move(frames)},
          {"agent", std::move(agent)}};
}

namespace {

constexpr std::size_t kMaxShort = 256;      // ids, names, levels
constexpr std::size_t kMaxText = 64 * 1024;  // reasons, frame details
constexpr std::size_t kMaxItems = 4096;      // frames, agent events, requirements

bool text(const json& j, const char* key, std::size_t max, json& out, std::string& error, bool required = false) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) {
      error = std::string("'") + key + "' is required";
      return false;
    }
    out[key] = "";
    return true;
  }
  if (!it->is_string() || it->get_ref<const std::string&>().size() > max) {
    error = std::string("'") + key + "' must be a string of at most " + std::to_string(max) + " octets";
    return false;
  }
  out[key] = *it;
  return true;
}

bool number(const json& j, const char* key, json& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    out[key] = 0;
    return true;
  }
  if (!it->is_number()) {
    error = std::string("'") + key + "' must be a number";
    return false;
  }
  out[key] = *it;
  return true;
}

bool list(const json& j, const char* key, json& out, std::string& error) {
  const auto it = j.find(key);
  out[key] = json::array();
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_array() || it->size() > kMaxItems) {
    error = std::string("'") + key + "' must be a list of at most " + std::to_string(kMaxItems) + " items";
    return false;
  }
  return true;
}

}  // namespace

json checked_case(const json& j, std::string& error) {
  if (!j.is_object()) {
    error = "a case must be a JSON object";
    return nullptr;
  }
  json out = json::object();
  for (const char* k : {"id", "protocol", "level", "role", "verdict"})
    if (!text(j, k, kMaxShort, out, error, k == std::string_view("id") || k == std::string_view("verdict"))) return nullptr;
  for (const char* k : {"configuration", "rfc", "script", "tester_address", "iut_address"})
    if (!text(j, k, kMaxShort, out, error)) return nullptr;
  for (const char* k : {"title", "reason"})
    if (!text(j, k, kMaxText, out, error)) return nullptr;
  for (const char* k : {"failed_line", "duration_ms"})
    if (!number(j, k, out, error)) return nullptr;
  if (!is_verdict(out["verdict"].get<std::string>())) {
    error = "'verdict' must be one of pass, non-strict, informational, unimplemented, fail, error";
    return nullptr;
  }
  if (!list(j, "requirements", out, error)) return nullptr;
  for (const json& r : j.value("requirements", json::array())) {
    if (!r.is_string() || r.get_ref<const std::string&>().size() > kMaxShort) {
      error = "'requirements' must hold strings";
      return nullptr;
    }
    out["requirements"].push_back(r);
  }
  if (!list(j, "frames", out, error)) return nullptr;
  for (const json& f : j.value("frames", json::array())) {
    json g = json::object();
    if (!f.is_object() || !text(f, "from", kMaxShort, g, error) || !number(f, "at_ms", g, error) ||
        !text(f, "headline", kMaxText, g, error) || !text(f, "detail", kMaxText, g, error)) {
      if (error.empty()) error = "a frame must be an object";
      error = "frames: " + error;
      return nullptr;
    }
    if (g["from"] != "tester" && g["from"] != "iut") {
      error = "frames: 'from' must be tester or iut";
      return nullptr;
    }
    out["frames"].push_back(std::move(g));
  }
  if (!list(j, "agent", out, error)) return nullptr;
  for (const json& e : j.value("agent", json::array())) {
    json g = json::object();
    if (!e.is_object() || !number(e, "at_ms", g, error) || !text(e, "kind", kMaxShort, g, error) ||
        !text(e, "name", kMaxShort, g, error) || !text(e, "status", kMaxShort, g, error) ||
        !number(e, "byte_len", g, error) || !text(e, "detail", kMaxText, g, error)) {
      if (error.empty()) error = "an agent event must be an object";
      error = "agent: " + error;
      return nullptr;
    }
    out["agent"].push_back(std::move(g));
  }
  return out;
}

}  // namespace rdmaconf::dashboard
