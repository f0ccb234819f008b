// Baselines (baseline.hpp).
#include "report/baseline.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace rdmaconf::baseline {
namespace {

using nlohmann::json;

std::string text_of(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A results.json: its failing cases and the keys the report gave them.
bool read_results(const json& j, Baseline& out, std::string& error) {
  const auto cases = j.find("cases");
  if (cases == j.end() || !cases->is_array()) return error = "\"cases\" is missing or not a list", false;
  std::size_t n = 0;
  for (const json& c : *cases) {
    ++n;
    if (!c.is_object()) return error = "case " + std::to_string(n) + " is not an object", false;
    const std::string id = text_of(c, "id"), verdict = text_of(c, "verdict");
    const auto v = cf::parse_verdict(verdict);
    if (id.empty() || !v) return error = "case " + std::to_string(n) + " has no id or no known verdict", false;
    if (*v != cf::Verdict::kFail && *v != cf::Verdict::kNonStrict && *v != cf::Verdict::kInformational &&
        !(*v == cf::Verdict::kUnimplemented && c.contains("in_passing") && c["in_passing"].is_array() &&
          !c["in_passing"].empty()))
      continue;
    std::vector<std::string> keys;
    if (const auto f = c.find("findings"); f != c.end() && f->is_array())
      for (const json& k : *f)
        if (k.is_string()) keys.push_back(findings::current_key(k.get<std::string>()));
    // A report of an rdmaconf before findings: the case alone is known.
    if (keys.empty()) keys.push_back("case " + id + " " + text_of(c, "reason"));
    out.failing[{id, text_of(c, "configuration")}] = std::move(keys);
  }
  if (const auto fs = j.find("findings"); fs != j.end() && fs->is_array())
    for (const json& f : *fs)
      if (f.is_object() && !text_of(f, "key").empty()) out.titles[findings::current_key(text_of(f, "key"))] = text_of(f, "title");
  return true;
}

// A findings file (rdmaconf findings --json): each finding with its cases.
bool read_findings(const json& j, Baseline& out, std::string& error) {
  std::size_t n = 0;
  for (const json& f : j["findings"]) {
    ++n;
    const std::string where = "finding " + std::to_string(n);
    if (!f.is_object()) return error = where + " is not an object", false;
    const std::string key = findings::current_key(text_of(f, "key"));
    if (key.empty()) return error = where + " has no \"key\"", false;
    out.titles[key] = text_of(f, "title");
    const auto cases = f.find("cases");
    if (cases == f.end() || !cases->is_array()) return error = where + " (" + key + ") has no \"cases\" list", false;
    for (const json& c : *cases) {
      if (!c.is_object() || text_of(c, "id").empty()) return error = where + " (" + key + "): a case has no \"id\"", false;
      auto& keys = out.failing[{text_of(c, "id"), text_of(c, "configuration")}];
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  return true;
}

}  // namespace

std::string_view to_string(Status s) { return s == Status::kKnown ? "known" : "new"; }

bool read(std::string_view text, Baseline& out, std::string& error) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return error = "not a JSON object", false;
  if (text_of(j, "tool") != "rdmaconf")
    return error = "\"tool\" is not \"rdmaconf\": neither an rdmaconf results.json nor a findings file", false;
  // A results.json has its cases; a findings file has its findings only.
  if (j.contains("cases")) return read_results(j, out, error);
  if (j.contains("findings") && j["findings"].is_array()) return read_findings(j, out, error);
  return error = "neither \"cases\" (a results.json) nor \"findings\" (a findings file)", false;
}

bool Comparison::has_new_failure() const {
  for (const auto& [r, s] : cases)
    if (s == Status::kNew && r->verdict == cf::Verdict::kFail) return true;
  return false;
}

std::optional<Status> status_of(const Baseline& known, const cf::CaseResult& r) {
  const std::vector<std::string> keys = findings::keys_of(r);
  if (keys.empty()) return std::nullopt;
  const auto before = known.failing.find({r.c->id, r.configuration});
  if (before == known.failing.end()) return Status::kNew;
  const bool all_known = std::all_of(keys.begin(), keys.end(), [&](const std::string& key) {
    return std::find(before->second.begin(), before->second.end(), key) != before->second.end();
  });
  return all_known ? Status::kKnown : Status::kNew;
}

Comparison compare(const Baseline& known, const std::vector<cf::CaseResult>& results,
                   const std::vector<findings::Finding>& found) {
  Comparison out;
  out.source = known.source;
  std::set<std::string> known_keys;
  for (const auto& [k, keys] : known.failing) known_keys.insert(keys.begin(), keys.end());
  std::set<std::string> keys_now;
  std::set<CaseKey> ran, failing_now;
  for (const cf::CaseResult& r : results) {
    const CaseKey k{r.c->id, r.configuration};
    ran.insert(k);
    const std::vector<std::string> keys = findings::keys_of(r);
    if (keys.empty()) continue;
    failing_now.insert(k);
    keys_now.insert(keys.begin(), keys.end());
    const bool known_case = status_of(known, r) == Status::kKnown;
    out.cases[&r] = known_case ? Status::kKnown : Status::kNew;
    ++(known_case ? out.known_cases : out.new_cases);
  }
  for (const findings::Finding& f : found) {
    const Status s = known_keys.contains(f.key) ? Status::kKnown : Status::kNew;
    out.findings[f.key] = s;
    ++(s == Status::kKnown ? out.known_findings : out.new_findings);
  }
  // Fixed: failed in the baseline, ran now, and passed (a case the run left
  // out, or one that is unimplemented now, fixes nothing).
  std::set<std::string> still;
  for (const auto& entry : known.failing) {
    const CaseKey& k = entry.first;
    const std::vector<std::string>& keys = entry.second;
    if (!ran.contains(k)) {
      still.insert(keys.begin(), keys.end());
      continue;
    }
    if (failing_now.contains(k)) continue;
    const auto it = std::find_if(results.begin(), results.end(),
                                 [&](const cf::CaseResult& r) { return r.c->id == k.first && r.configuration == k.second; });
    if (it != results.end() && it->verdict == cf::Verdict::kPass) out.fixed_cases.push_back(k);
    else still.insert(keys.begin(), keys.end());
  }
  for (const std::string& key : known_keys)
    if (!keys_now.contains(key) && !still.contains(key)) {
      const auto t = known.titles.find(key);
      out.fixed_findings.emplace_back(key, t == known.titles.end() ? std::string() : t->second);
    }
  return out;
}

}  // namespace rdmaconf::baseline
