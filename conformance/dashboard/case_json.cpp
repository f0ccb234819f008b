// A case's result as JSON, and the checks of what arrives over the network
// (case_json.hpp).
#include "dashboard/case_json.hpp"

#include <algorithm>

#include "report/findings.hpp"
#include "report/report_json.hpp"

namespace rdmaconf::dashboard {

using nlohmann::json;
namespace cf = conformance;

bool is_verdict(std::string_view v) {
  return std::any_of(std::begin(kVerdicts), std::end(kVerdicts), [&](const char* k) { return v == k; });
}

json result_json(const cf::CaseResult& r) { return json(cf::case_json(r, findings::keys_of(r))); }

namespace {

constexpr std::size_t kMaxShort = 256;        // ids, names, levels, addresses
constexpr std::size_t kMaxText = 64 * 1024;   // reasons, frame details, steps
constexpr std::size_t kMaxItems = 4096;       // frames, agent events, requirements
constexpr std::size_t kMaxKey = kMaxText + 1024;  // a finding key holds a reason or an expectation
constexpr std::size_t kMaxKeys = 256;         // finding keys of one case
constexpr std::size_t kMaxRules = 1024;       // rules broken in passing by one case
constexpr std::size_t kMaxOffsets = 64;       // offsets of one rule's messages (the engine keeps 64)
// Octets as hex: a unit or a stimulus (an FPDU is at most 64 KiB), one
// rule's offending message, and a case's whole exchange (the JSON report
// keeps 256 KiB of it; a published case may carry up to 1 MiB).
constexpr std::size_t kMaxUnitHex = 2 * 128 * 1024;
constexpr std::size_t kMaxExchangeHex = 2 * 1024 * 1024;
constexpr std::size_t kMaxChunks = 65536;

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

// A string member kept only when present (the JSON report leaves them out
// when they say nothing).
bool optional_text(const json& j, const char* key, std::size_t max, json& out, std::string& error) {
  if (!j.contains(key) || j[key].is_null()) return true;
  return text(j, key, max, out, error);
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

bool whole(const json& j, const char* key, json& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_number_unsigned()) {
    error = std::string("'") + key + "' must be a whole number";
    return false;
  }
  out[key] = *it;
  return true;
}

bool boolean(const json& j, const char* key, json& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_boolean()) {
    error = std::string("'") + key + "' must be true or false";
    return false;
  }
  out[key] = *it;
  return true;
}

// Octets written as hex digits, an even number of them.
bool hex(const json& j, const char* key, std::size_t max, json& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_string() || it->get_ref<const std::string&>().size() > max || it->get_ref<const std::string&>().size() % 2 ||
      it->get_ref<const std::string&>().find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    error = std::string("'") + key + "' must be octets as hex digits, at most " + std::to_string(max / 2) + " octets";
    return false;
  }
  out[key] = *it;
  return true;
}

bool list(const json& j, const char* key, std::size_t max, json& out, std::string& error) {
  const auto it = j.find(key);
  out[key] = json::array();
  if (it == j.end() || it->is_null()) return true;
  if (!it->is_array() || it->size() > max) {
    error = std::string("'") + key + "' must be a list of at most " + std::to_string(max) + " items";
    return false;
  }
  return true;
}

bool strings(const json& j, const char* key, std::size_t max_items, std::size_t max_each, json& out, std::string& error) {
  if (!list(j, key, max_items, out, error)) return false;
  for (const json& s : j.value(key, json::array())) {
    if (!s.is_string() || s.get_ref<const std::string&>().size() > max_each) {
      error = std::string("'") + key + "' must hold strings of at most " + std::to_string(max_each) + " octets";
      return false;
    }
    out[key].push_back(s);
  }
  return true;
}

// Prefixes `error` with where it happened and fails.
bool in(const char* where, std::string& error) {
  if (error.empty()) error = "must be an object";
  error = std::string(where) + ": " + error;
  return false;
}

// The failing step (report_json.cpp, failure_json).
bool checked_failure(const json& f, json& out, std::string& error) {
  if (!f.is_object()) return in("failure", error);
  json g = json::object();
  if (!text(f, "kind", kMaxShort, g, error, true)) return in("failure", error);
  if (!cf::parse_failure_kind(g["kind"].get<std::string>())) {
    error = "'kind' is not one of rdmaconf's failure kinds";
    return in("failure", error);
  }
  for (const char* k : {"step", "expected", "expected_class", "got", "field", "want", "have"})
    if (!text(f, k, kMaxText, g, error)) return in("failure", error);
  for (const char* k : {"mistake", "mistake_rule", "hint", "meant", "stimulus"})
    if (!optional_text(f, k, kMaxText, g, error)) return in("failure", error);
  if (!number(f, "line", g, error) || !whole(f, "received_offset", g, error) || !whole(f, "received_length", g, error) ||
      !boolean(f, "explained", g, error) || !hex(f, "received", kMaxUnitHex, g, error) ||
      !hex(f, "stimulus_octets", kMaxUnitHex, g, error) || !strings(f, "stimulus_fields", kMaxItems, kMaxShort, g, error))
    return in("failure", error);
  out["failure"] = std::move(g);
  return true;
}

// The rules the IUT broke in passing (report_json.cpp, in_passing_json).
bool checked_in_passing(const json& j, json& out, std::string& error) {
  if (!list(j, "in_passing", kMaxRules, out, error)) return false;
  for (const json& p : j.value("in_passing", json::array())) {
    json g = json::object();
    if (!p.is_object() || !text(p, "rule", kMaxShort, g, error, true) || !text(p, "level", kMaxShort, g, error, true) ||
        !text(p, "section", kMaxShort, g, error) || !text(p, "summary", kMaxText, g, error) ||
        !text(p, "text", kMaxText, g, error) || !optional_text(p, "mistake", kMaxShort, g, error) ||
        !optional_text(p, "hint", kMaxText, g, error) || !whole(p, "count", g, error) ||
        !whole(p, "stream_offset", g, error) || !hex(p, "octets", kMaxUnitHex, g, error) ||
        !list(p, "offsets", kMaxOffsets, g, error))
      return in("in_passing", error);
    for (const json& o : p.value("offsets", json::array())) {
      if (!o.is_number_unsigned()) {
        error = "'offsets' must hold whole numbers";
        return in("in_passing", error);
      }
      g["offsets"].push_back(o);
    }
    out["in_passing"].push_back(std::move(g));
  }
  return true;
}

// A whole number up to `max`, required: SCTP's 16-bit ports, stream
// counts and streams, its 32-bit PPID and Adaptation Layer Indication
// (the report's reader asks for every one).
bool up_to(const json& j, const char* key, std::uint64_t max, json& out, std::string& error) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > max) {
    error = std::string("'") + key + "' must be a whole number up to " + std::to_string(max);
    return false;
  }
  out[key] = *it;
  return true;
}

// An Adaptation Layer Indication: a 32-bit number, or null for none.
bool indication(const json& j, json& out, std::string& error) {
  if (j.contains("indication") && j["indication"].is_null()) {
    out["indication"] = nullptr;
    return true;
  }
  return up_to(j, "indication", 0xffffffffu, out, error);
}

// One chunk of an exchange or one SCTP message: who sent it, when, and its
// octets as hex, counted into `total` (the exchange's hex digits so far),
// bounded as a whole.
bool checked_piece(const json& c, json& k, std::size_t& total, std::string& error) {
  if (!c.is_object() || !text(c, "from", kMaxShort, k, error) || !number(c, "at_ms", k, error) ||
      !hex(c, "octets", kMaxExchangeHex, k, error))
    return false;
  if (k["from"] != "tester" && k["from"] != "iut") {
    error = "'from' must be tester or iut";
    return false;
  }
  total += k.value("octets", std::string()).size();
  if (total > kMaxExchangeHex) {
    error = "more than " + std::to_string(kMaxExchangeHex / 2) + " octets";
    return false;
  }
  return true;
}

// A case's SCTP association (report_json.cpp, sctp_json); `total` counts
// the exchange's hex digits so far, bounded as the TCP chunks are.
bool checked_sctp(const json& a, json& out, std::size_t& total, std::string& error) {
  if (!a.is_object()) {
    error = "'sctp' must be an object";
    return false;
  }
  json g = json::object(), tester = json::object(), iut = json::object();
  const json none = json::object();
  const json& ti = a.contains("tester_init") && a["tester_init"].is_object() ? a["tester_init"] : none;
  const json& ii = a.contains("iut_init") && a["iut_init"].is_object() ? a["iut_init"] : none;
  if (!up_to(a, "tester_port", 0xffff, g, error) || !up_to(a, "iut_port", 0xffff, g, error) ||
      !indication(ti, tester, error) || !up_to(ti, "streams", 0xffff, tester, error) ||
      !boolean(ti, "hold_acks", tester, error) || !indication(ii, iut, error) ||
      !up_to(ii, "outbound_streams", 0xffff, iut, error) || !up_to(ii, "inbound_streams", 0xffff, iut, error) ||
      !list(a, "messages", kMaxChunks, g, error))
    return false;
  g["tester_init"] = std::move(tester);
  g["iut_init"] = std::move(iut);
  for (const json& m : a.value("messages", json::array())) {
    json k = json::object();
    if (!checked_piece(m, k, total, error) || !up_to(m, "stream", 0xffff, k, error) ||
        !up_to(m, "ppid", 0xffffffffu, k, error) || !boolean(m, "unordered", k, error))
      return false;
    g["messages"].push_back(std::move(k));
  }
  out["sctp"] = std::move(g);
  return true;
}

// The octets of the exchange (report_json.cpp, exchange_json): bounded in
// chunks and in octets altogether, over TCP or SCTP.
bool checked_exchange(const json& e, json& out, std::string& error) {
  if (!e.is_object()) return in("exchange", error);
  json g = json::object();
  if (!text(e, "tester_address", kMaxShort, g, error) || !text(e, "iut_address", kMaxShort, g, error) ||
      !boolean(e, "closed_by_iut", g, error) || !boolean(e, "reset_by_iut", g, error) ||
      !boolean(e, "truncated", g, error) || !list(e, "chunks", kMaxChunks, g, error))
    return in("exchange", error);
  std::size_t total = 0;
  for (const json& c : e.value("chunks", json::array())) {
    json k = json::object();
    if (!checked_piece(c, k, total, error)) return in("exchange", error);
    g["chunks"].push_back(std::move(k));
  }
  if (e.contains("sctp") && !e["sctp"].is_null() && !checked_sctp(e["sctp"], g, total, error))
    return in("exchange", error);
  out["exchange"] = std::move(g);
  return true;
}

// What the case's connection negotiated (report_json.cpp): a revision and
// four flags, each required (the report's reader asks for every one).
bool checked_negotiated(const json& n, json& out, std::string& error) {
  if (!n.is_object()) return in("negotiated", error);
  const auto rev = n.find("revision");
  if (rev == n.end() || !rev->is_number_integer() || rev->get<std::int64_t>() < 0 || rev->get<std::int64_t>() > 15) {
    error = "'revision' must be an MPA revision (0 to 15)";
    return in("negotiated", error);
  }
  json g = {{"revision", *rev}};
  for (const char* k : {"crc", "markers_to_iut", "markers_to_tester", "peer_to_peer"}) {
    if (!n.contains(k)) {
      error = std::string("'") + k + "' is required";
      return in("negotiated", error);
    }
    if (!boolean(n, k, g, error)) return in("negotiated", error);
  }
  out["negotiated"] = std::move(g);
  return true;
}

}  // namespace

json checked_case(const json& j, std::string& error) {
  if (!j.is_object()) {
    error = "a case must be a JSON object";
    return nullptr;
  }
  json out = json::object();
  for (const char* k : {"id", "protocol", "role", "verdict"})
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
  // Findings are grouped from the stored cases (conformance::read_json):
  // a level the catalogue does not know would leave the run without them.
  if (!text(j, "level", kMaxShort, out, error, true)) return nullptr;
  if (!cf::parse_level(out["level"].get<std::string>())) {
    error = "'level' must be one of MUST, MUST NOT, SHOULD, SHOULD NOT, MAY";
    return nullptr;
  }
  if (j.contains("script_verdict") && !j["script_verdict"].is_null()) {
    if (!text(j, "script_verdict", kMaxShort, out, error)) return nullptr;
    if (!is_verdict(out["script_verdict"].get<std::string>())) {
      error = "'script_verdict' must be a verdict";
      return nullptr;
    }
  }
  // The publisher's own --baseline said known or new; kept as it was said.
  if (j.contains("baseline") && !j["baseline"].is_null()) {
    if (!text(j, "baseline", kMaxShort, out, error)) return nullptr;
    if (out["baseline"] != "known" && out["baseline"] != "new") {
      error = "'baseline' must be known or new";
      return nullptr;
    }
  }
  if (!strings(j, "requirements", kMaxItems, kMaxShort, out, error) || !strings(j, "findings", kMaxKeys, kMaxKey, out, error))
    return nullptr;
  out["negotiated"] = nullptr;
  if (j.contains("negotiated") && !j["negotiated"].is_null() && !checked_negotiated(j["negotiated"], out, error))
    return nullptr;
  if (j.contains("failure") && !j["failure"].is_null() && !checked_failure(j["failure"], out, error)) return nullptr;
  if (!checked_in_passing(j, out, error)) return nullptr;
  if (j.contains("exchange") && !j["exchange"].is_null() && !checked_exchange(j["exchange"], out, error)) return nullptr;
  if (!list(j, "frames", kMaxItems, out, error)) return nullptr;
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
  if (!list(j, "agent", kMaxItems, out, error)) return nullptr;
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

json checked_identity(const json& j, std::string& error) {
  if (!j.is_object()) {
    error = "'identity' must be an object";
    return nullptr;
  }
  json out = json::object();
  for (const char* k : {"version", "commit", "started_at", "finished_at"})
    if (!text(j, k, kMaxShort, out, error)) return nullptr;
  json cat = json::object();
  if (const auto c = j.find("catalogue"); c != j.end() && !c->is_null()) {
    if (!c->is_object() || !text(*c, "sha256", kMaxShort, cat, error) || !whole(*c, "cases", cat, error)) {
      if (error.empty()) error = "must be an object";
      error = "catalogue: " + error;
      return nullptr;
    }
  }
  out["catalogue"] = cat;
  if (!strings(j, "command_line", 256, 4096, out, error)) return nullptr;
  // The IUT's description and the lab's labels: a few short words each.
  for (const char* map : {"iut", "labels"}) {
    json m = json::object();
    if (const auto it = j.find(map); it != j.end() && !it->is_null()) {
      if (!it->is_object() || it->size() > 64) {
        error = std::string("'") + map + "' must be an object of at most 64 members";
        return nullptr;
      }
      for (const auto& [k, v] : it->items()) {
        if (k.empty() || k.size() > 64 || !v.is_string() || v.get_ref<const std::string&>().size() > kMaxShort) {
          error = std::string("'") + map + "' maps names of 1 to 64 octets to strings of at most 256";
          return nullptr;
        }
        m[k] = v;
      }
    }
    out[map] = std::move(m);
  }
  return out;
}

}  // namespace rdmaconf::dashboard
