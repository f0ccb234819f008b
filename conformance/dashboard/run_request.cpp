// The start request (run_request.hpp).
#include "dashboard/run_request.hpp"

#include <algorithm>
#include <initializer_list>
#include <utility>

namespace rdmaconf::dashboard {

using nlohmann::json;

namespace {

bool string_list(const json& j, const char* key, std::size_t max_items, json& out, std::string& error) {
  const auto it = j.find(key);
  out[key] = json::array();
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_array() || it->size() > max_items) {
    error = std::string("'") + key + "' must be a list of at most " + std::to_string(max_items) + " strings";
    return false;
  }
  for (const json& s : *it) {
    if (!s.is_string() || s.get_ref<const std::string&>().empty() || s.get_ref<const std::string&>().size() > 200) {
      error = std::string("'") + key + "' must hold strings of 1 to 200 characters";
      return false;
    }
    out[key].push_back(s);
  }
  return true;
}

bool short_string(const json& j, const char* key, json& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_string() || it->get_ref<const std::string&>().size() > 256) {
    error = std::string("'") + key + "' must be a string of at most 256 characters";
    return false;
  }
  if (!it->get_ref<const std::string&>().empty()) out[key] = *it;
  return true;
}

// "labels": {"fw": "1.2.3"}: what --label KEY=VALUE gives a command-line
// run (conformance/cli/run.cpp checks the same words).
bool labels(const json& j, json& out, std::string& error) {
  const auto it = j.find("labels");
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_object() || it->size() > 32) {
    error = "'labels' must be an object of at most 32 members";
    return false;
  }
  for (const auto& [k, v] : it->items()) {
    const bool key_ok = !k.empty() && k.size() <= 64 &&
                        k.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == std::string::npos;
    const bool value_ok = v.is_string() && v.get_ref<const std::string&>().size() <= 256 &&
                          std::all_of(v.get_ref<const std::string&>().begin(), v.get_ref<const std::string&>().end(),
                                      [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
    if (!key_ok || !value_ok) {
      error = "'labels' maps names (letters, digits, '_', '.', '-'; at most 64) to printable strings of at most 256 octets";
      return false;
    }
  }
  out["labels"] = *it;
  return true;
}

// The strings of a list member; anything else in it is left out.
std::vector<std::string> texts(const json& j, const char* key) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& s : *it)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

std::string text(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

json shown_config(const json& request) {
  json c = request;
  if (c.contains("agent") && c["agent"].is_object()) c["agent"].erase("token");
  return c;
}

json checked_run_request(const json& j, std::string& error) {
  if (!j.is_object()) {
    error = "the body must be a JSON object";
    return nullptr;
  }
  static const char* const known[] = {"reference", "target",    "clc_target", "listen", "agent", "suites",
                                      "cases",     "strict",    "iut_lacks",  "time_scale", "jobs", "labels"};
  for (const auto& item : j.items()) {
    const std::string& k = item.key();
    if (std::find_if(std::begin(known), std::end(known), [&k](const char* n) { return k == n; }) == std::end(known)) {
      error = "unknown key '" + k.substr(0, 64) + "'";
      return nullptr;
    }
  }
  json out = json::object();
  if (const auto it = j.find("reference"); it != j.end() && !it->is_null() && *it != false) {
    json ref = json::object();
    if (!it->is_boolean() && (!it->is_object() || !string_list(*it, "faults", 32, ref, error))) {
      if (error.empty()) error = "'reference' must be true or {\"faults\": [...]}";
      return nullptr;
    }
    if (!ref.contains("faults")) ref["faults"] = json::array();
    out["reference"] = ref;
  }
  for (const char* k : {"target", "clc_target", "listen"})
    if (!short_string(j, k, out, error)) return nullptr;
  if (const auto it = j.find("agent"); it != j.end() && !it->is_null()) {
    json a = json::object();
    if (!it->is_object() || !short_string(*it, "url", a, error) || !short_string(*it, "token", a, error) ||
        !string_list(*it, "configs", 16, a, error)) {
      if (error.empty()) error = "'agent' must be {\"url\": ..., \"token\": ..., \"configs\": [...]}";
      return nullptr;
    }
    if (!a.contains("url")) {
      error = "'agent' needs a 'url'";
      return nullptr;
    }
    out["agent"] = a;
  }
  if (out.contains("reference") && out.contains("agent")) {
    error = "'reference' and 'agent' exclude each other";
    return nullptr;
  }
  if (!out.contains("reference") && !out.contains("agent") && !out.contains("target") && !out.contains("clc_target") &&
      !out.contains("listen")) {
    error = "say what to test: 'reference', 'target', 'clc_target', 'listen' or 'agent'";
    return nullptr;
  }
  if (!string_list(j, "suites", 4, out, error) || !string_list(j, "cases", 1000, out, error) ||
      !string_list(j, "iut_lacks", 16, out, error))
    return nullptr;
  for (const json& s : out["suites"])
    if (s != "mpa" && s != "ddp" && s != "rdmap" && s != "clc") {
      error = "'suites' holds mpa, ddp, rdmap or clc";
      return nullptr;
    }
  out["strict"] = false;
  if (const auto it = j.find("strict"); it != j.end() && !it->is_null()) {
    if (!it->is_boolean()) {
      error = "'strict' must be true or false";
      return nullptr;
    }
    out["strict"] = *it;
  }
  out["time_scale"] = 1.0;
  if (const auto it = j.find("time_scale"); it != j.end() && !it->is_null()) {
    if (!it->is_number() || it->get<double>() < 0.05 || it->get<double>() > 20.0) {
      error = "'time_scale' must be a number from 0.05 to 20";
      return nullptr;
    }
    out["time_scale"] = *it;
  }
  out["jobs"] = 8;
  if (const auto it = j.find("jobs"); it != j.end() && !it->is_null()) {
    if (!it->is_number_unsigned() || it->get<std::uint64_t>() < 1 || it->get<std::uint64_t>() > 64) {
      error = "'jobs' must be a whole number from 1 to 64";
      return nullptr;
    }
    out["jobs"] = *it;
  }
  if (!labels(j, out, error)) return nullptr;
  return out;
}

std::vector<std::string> equivalent_command_line(const json& request) {
  std::vector<std::string> w{"rdmaconf", "run"};
  if (!request.is_object()) return w;
  auto add = [&w](const char* option, const std::vector<std::string>& values) {
    for (const std::string& v : values) w.insert(w.end(), {option, v});
  };
  if (const auto ref = request.find("reference"); ref != request.end() && !ref->is_null() && *ref != false) {
    w.push_back("--reference");
    if (ref->is_object()) add("--fault", texts(*ref, "faults"));
  }
  using Option = std::pair<const char*, const char*>;  // request key, option
  for (const auto& [key, option] : std::initializer_list<Option>{{"target", "--target"}, {"clc_target", "--clc-target"}, {"listen", "--listen"}})
    if (const std::string v = text(request, key); !v.empty()) w.insert(w.end(), {option, v});
  if (const auto agent = request.find("agent"); agent != request.end() && agent->is_object()) {
    if (const std::string url = text(*agent, "url"); !url.empty()) w.insert(w.end(), {"--agent", url});
    add("--agent-config", texts(*agent, "configs"));
  }
  add("--suite", texts(request, "suites"));
  add("--case", texts(request, "cases"));
  if (request.value("strict", json(false)) == true) w.push_back("--strict");
  add("--iut-lacks", texts(request, "iut_lacks"));
  if (const auto t = request.find("time_scale"); t != request.end() && t->is_number() && t->get<double>() != 1.0)
    w.insert(w.end(), {"--time-scale", t->dump()});
  if (const auto n = request.find("jobs"); n != request.end() && n->is_number_unsigned() && n->get<std::uint64_t>() != 8)
    w.insert(w.end(), {"--jobs", n->dump()});
  if (const auto l = request.find("labels"); l != request.end() && l->is_object())
    for (const auto& [k, v] : l->items())
      if (v.is_string()) w.insert(w.end(), {"--label", k + "=" + v.get<std::string>()});
  return w;
}

}  // namespace rdmaconf::dashboard
