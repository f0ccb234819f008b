// Reads a JSON report (write_json's format) back into results, so that runs
// split across several invocations (ci/interop.sh reboots the IUT's host
// between cases) can be written as one report by the same writers.
#include <nlohmann/json.hpp>

#include "report.hpp"

namespace rdmaconf::conformance {
namespace {

using nlohmann::json;

// The key as a string, or empty with `error` naming it.
bool get_string(const json& j, const char* key, std::string& out, std::string& error, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return error = where + ": \"" + key + "\" is missing or not a string", false;
  out = it->get<std::string>();
  return true;
}

bool get_number(const json& j, const char* key, double& out, std::string& error, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return error = where + ": \"" + key + "\" is missing or not a number", false;
  out = it->get<double>();
  return true;
}

bool read_case(const json& j, const std::vector<Case>& cases, CaseResult& r, std::string& error, const std::string& where) {
  if (!j.is_object()) return error = where + ": not an object", false;
  std::string id, verdict;
  if (!get_string(j, "id", id, error, where) || !get_string(j, "verdict", verdict, error, where)) return false;
  for (const Case& c : cases)
    if (c.id == id) r.c = &c;
  if (!r.c) return error = where + ": case \"" + id + "\" is not in the catalogue", false;
  bool known = false;
  for (Verdict v : {Verdict::kPass, Verdict::kNonStrict, Verdict::kInformational, Verdict::kUnimplemented,
                    Verdict::kFail, Verdict::kError})
    if (to_string(v) == verdict) r.verdict = v, known = true;
  if (!known) return error = where + " (" + id + "): verdict \"" + verdict + "\" is not one of rdmaconf's", false;
  double line = 0;
  if (!get_string(j, "reason", r.reason, error, where) || !get_number(j, "failed_line", line, error, where) ||
      !get_number(j, "duration_ms", r.duration_ms, error, where) ||
      !get_string(j, "configuration", r.configuration, error, where))
    return false;
  r.failed_line = static_cast<int>(line);
  // Reports before it have no "negotiated"; null when nothing was negotiated.
  if (const auto n = j.find("negotiated"); n != j.end() && !n->is_null()) {
    const std::string at = where + " (" + id + "): \"negotiated\"";
    if (!n->is_object()) return error = at + " is not an object", false;
    Negotiated neg;
    const auto rev = n->find("revision");
    if (rev == n->end() || !rev->is_number_unsigned() || rev->get<std::uint64_t>() > 15)
      return error = at + ": \"revision\" is missing or not a revision", false;
    neg.revision = static_cast<int>(rev->get<std::uint64_t>());
    for (auto [key, flag] : {std::pair{"crc", &neg.crc}, std::pair{"markers_to_iut", &neg.markers_to_iut},
                             std::pair{"markers_to_tester", &neg.markers_to_tester},
                             std::pair{"peer_to_peer", &neg.peer_to_peer}}) {
      const auto it = n->find(key);
      if (it == n->end() || !it->is_boolean()) return error = at + ": \"" + key + "\" is missing or not true/false", false;
      *flag = it->get<bool>();
    }
    r.negotiated = neg;
  }
  const auto frames = j.find("frames");
  if (frames == j.end() || !frames->is_array()) return error = where + " (" + id + "): \"frames\" is not a list", false;
  for (const json& f : *frames) {
    FrameRecord fr;
    std::string from;
    if (!f.is_object() || !get_string(f, "from", from, error, where + " (" + id + ") frame") ||
        !get_number(f, "at_ms", fr.at_ms, error, where + " (" + id + ") frame") ||
        !get_string(f, "headline", fr.headline, error, where + " (" + id + ") frame") ||
        !get_string(f, "detail", fr.detail, error, where + " (" + id + ") frame"))
      return error.empty() ? (error = where + " (" + id + "): a frame is not an object", false) : false;
    fr.from_tester = from == "tester";
    r.frames.push_back(std::move(fr));
  }
  const auto agent = j.find("agent");
  if (agent == j.end() || !agent->is_array()) return error = where + " (" + id + "): \"agent\" is not a list", false;
  for (const json& e : *agent) {
    AgentEvent ev;
    double len = 0;
    const std::string at = where + " (" + id + ") agent event";
    if (!e.is_object()) return error = at + ": not an object", false;
    if (!get_number(e, "at_ms", ev.at_ms, error, at) || !get_string(e, "kind", ev.kind, error, at) ||
        !get_string(e, "name", ev.name, error, at) || !get_string(e, "status", ev.status, error, at) ||
        !get_number(e, "byte_len", len, error, at) || !get_string(e, "detail", ev.detail, error, at))
      return false;
    ev.byte_len = static_cast<std::uint32_t>(len);
    r.agent.push_back(std::move(ev));
  }
  return true;
}

}  // namespace

bool read_json(std::string_view text, const std::vector<Case>& cases, std::vector<CaseResult>& results, RunInfo& info,
               std::string& error) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return error = "not JSON", false;
  if (j.value("tool", "") != "rdmaconf") return error = "\"tool\" is not \"rdmaconf\": not an rdmaconf report", false;
  const auto list = j.find("cases");
  if (list == j.end() || !list->is_array()) return error = "\"cases\" is missing or not a list", false;
  std::vector<CaseResult> read;
  for (std::size_t k = 0; k < list->size(); ++k) {
    CaseResult r;
    if (!read_case((*list)[k], cases, r, error, "case " + std::to_string(k + 1))) return false;
    read.push_back(std::move(r));
  }
  // The run: the first report's target and faults, strict if any run was, the wall times added.
  double wall = 0;
  std::string target;
  if (!get_string(j, "target", target, error, "report") || !get_number(j, "duration_ms", wall, error, "report"))
    return false;
  if (info.target.empty()) info.target = target;
  if (info.faults.empty()) info.faults = j.value("faults", "");
  info.strict = info.strict || j.value("strict", false);
  info.wall_ms += wall;
  if (const auto sk = j.find("skipped"); sk != j.end() && sk->is_array())
    for (const json& s : *sk)
      if (s.is_string()) info.skipped.push_back(s.get<std::string>());
  for (CaseResult& r : read) results.push_back(std::move(r));
  return true;
}

}  // namespace rdmaconf::conformance
