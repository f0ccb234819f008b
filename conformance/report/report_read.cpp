// Reads a JSON report (write_json's format, report_json.cpp) back into
// results: runs split across several invocations (ci/interop.sh reboots the
// IUT's host between cases) are written as one report by the same writers,
// and `rdmaconf findings` groups an earlier run's failures. A report is a
// file someone hands over: every member is checked for its type, and what
// a member says never sizes anything beyond the text itself.
#include <nlohmann/json.hpp>

#include "report/report.hpp"

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

// Optional members (a report of an older rdmaconf has none of them).
std::string opt_string(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}
bool opt_bool(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}
std::vector<std::string> opt_strings(const json& j, const char* key) {
  std::vector<std::string> out;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const json& s : *it)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

// Hex digits as octets; false on anything else.
bool from_hex(const std::string& text, std::vector<std::uint8_t>& out) {
  if (text.size() % 2) return false;
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  out.clear();
  out.reserve(text.size() / 2);
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const int hi = digit(text[i]), lo = digit(text[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
  }
  return true;
}

bool opt_hex(const json& j, const char* key, std::vector<std::uint8_t>& out, std::string& error, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end()) return true;
  if (!it->is_string() || !from_hex(it->get<std::string>(), out))
    return error = where + ": \"" + key + "\" is not a string of hex digits", false;
  return true;
}

bool read_failure(const json& j, Failure& f, std::string& error, const std::string& where) {
  if (!j.is_object()) return error = where + ": \"failure\" is not an object", false;
  const auto kind = parse_failure_kind(opt_string(j, "kind"));
  if (!kind) return error = where + ": failure \"kind\" is not one of rdmaconf's", false;
  f.kind = *kind;
  if (const auto it = j.find("line"); it != j.end() && it->is_number_integer()) f.line = it->get<int>();
  f.step = opt_string(j, "step");
  f.expected = opt_string(j, "expected");
  f.expected_class = opt_string(j, "expected_class");
  f.got = opt_string(j, "got");
  f.field = opt_string(j, "field");
  f.want = opt_string(j, "want");
  f.have = opt_string(j, "have");
  f.mistake = opt_string(j, "mistake");
  f.mistake_rule = opt_string(j, "mistake_rule");
  f.hint = opt_string(j, "hint");
  f.meant = opt_string(j, "meant");
  f.explained = opt_bool(j, "explained");
  if (const auto o = j.find("received_offset"); o != j.end() && o->is_number_unsigned()) f.received_offset = o->get<std::uint64_t>();
  if (const auto n = j.find("received_length"); n != j.end() && n->is_number_unsigned()) f.received_length = n->get<std::size_t>();
  f.stimulus = opt_string(j, "stimulus");
  f.stimulus_fields = opt_strings(j, "stimulus_fields");
  return opt_hex(j, "received", f.received, error, where + " failure") &&
         opt_hex(j, "stimulus_octets", f.stimulus_octets, error, where + " failure");
}

bool read_in_passing(const json& j, std::vector<InPassing>& out, std::string& error, const std::string& where) {
  if (!j.is_array()) return error = where + ": \"in_passing\" is not a list", false;
  for (const json& e : j) {
    InPassing p;
    if (!e.is_object() || !get_string(e, "rule", p.rule, error, where + " in_passing") ||
        !get_string(e, "level", p.level, error, where + " in_passing"))
      return error.empty() ? (error = where + ": an in_passing entry is not an object", false) : false;
    p.section = opt_string(e, "section");
    p.summary = opt_string(e, "summary");
    p.text = opt_string(e, "text");
    p.mistake = opt_string(e, "mistake");
    p.hint = opt_string(e, "hint");
    if (const auto c = e.find("count"); c != e.end() && c->is_number_unsigned()) p.count = c->get<std::uint32_t>();
    if (const auto o = e.find("stream_offset"); o != e.end() && o->is_number_unsigned()) p.stream_offset = o->get<std::uint64_t>();
    if (const auto os = e.find("offsets"); os != e.end() && os->is_array())
      for (const json& o : *os)
        if (o.is_number_unsigned() && p.offsets.size() < 64) p.offsets.push_back(o.get<std::uint64_t>());
    if (!opt_hex(e, "octets", p.octets, error, where + " in_passing")) return false;
    out.push_back(std::move(p));
  }
  return true;
}

// A whole number up to `max` at `key`; false with `error` when it is
// missing or out of range.
template <typename T>
bool get_whole(const json& j, const char* key, T& out, std::uint64_t max, std::string& error, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() > max)
    return error = where + ": \"" + key + "\" is missing or not a whole number up to " + std::to_string(max), false;
  out = static_cast<T>(it->get<std::uint64_t>());
  return true;
}

// An Adaptation Layer Indication: a 32-bit number, or null for none.
bool get_indication(const json& j, std::optional<std::uint32_t>& out, std::string& error, const std::string& where) {
  const auto it = j.find("indication");
  if (it != j.end() && it->is_null()) return out.reset(), true;
  std::uint32_t v = 0;
  if (!get_whole(j, "indication", v, 0xffffffffu, error, where)) return false;
  out = v;
  return true;
}

// The association of a case over SCTP (report_json.cpp, sctp_json).
bool read_sctp(const json& j, SctpExchange& a, std::string& error, const std::string& where) {
  if (!j.is_object()) return error = where + ": exchange \"sctp\" is not an object", false;
  const std::string at = where + " exchange sctp";
  if (!get_whole(j, "tester_port", a.tester_port, 0xffff, error, at) ||
      !get_whole(j, "iut_port", a.iut_port, 0xffff, error, at))
    return false;
  const auto ti = j.find("tester_init"), ii = j.find("iut_init");
  if (ti == j.end() || !ti->is_object() || ii == j.end() || !ii->is_object())
    return error = at + ": \"tester_init\" or \"iut_init\" is not an object", false;
  if (!get_indication(*ti, a.tester_init.indication, error, at + " tester_init") ||
      !get_whole(*ti, "streams", a.tester_init.streams, 0xffff, error, at + " tester_init") ||
      !get_indication(*ii, a.iut_init.indication, error, at + " iut_init") ||
      !get_whole(*ii, "outbound_streams", a.iut_init.outbound_streams, 0xffff, error, at + " iut_init") ||
      !get_whole(*ii, "inbound_streams", a.iut_init.inbound_streams, 0xffff, error, at + " iut_init"))
    return false;
  a.tester_init.hold_acks = opt_bool(*ti, "hold_acks");
  const auto messages = j.find("messages");
  if (messages == j.end() || !messages->is_array()) return error = at + ": \"messages\" is not a list", false;
  for (const json& m : *messages) {
    if (!m.is_object()) return error = at + ": a message is not an object", false;
    SctpExchange::Message msg;
    msg.from_tester = opt_string(m, "from") == "tester";
    if (const auto t = m.find("at_ms"); t != m.end() && t->is_number()) msg.at_ms = t->get<double>();
    if (!get_whole(m, "stream", msg.chunk.stream, 0xffff, error, at + " message") ||
        !get_whole(m, "ppid", msg.chunk.ppid, 0xffffffffu, error, at + " message") ||
        !opt_hex(m, "octets", msg.chunk.octets, error, at + " message"))
      return false;
    msg.chunk.unordered = opt_bool(m, "unordered");
    a.messages.push_back(std::move(msg));
  }
  return true;
}

bool read_exchange(const json& j, ExchangeRecord& e, std::string& error, const std::string& where) {
  if (!j.is_object()) return error = where + ": \"exchange\" is not an object", false;
  e.tester_address = opt_string(j, "tester_address");
  e.iut_address = opt_string(j, "iut_address");
  e.closed_by_iut = opt_bool(j, "closed_by_iut");
  e.reset_by_iut = opt_bool(j, "reset_by_iut");
  const auto chunks = j.find("chunks");
  if (chunks == j.end() || !chunks->is_array()) return error = where + ": exchange \"chunks\" is not a list", false;
  for (const json& c : *chunks) {
    StreamChunk ch;
    if (!c.is_object()) return error = where + ": an exchange chunk is not an object", false;
    ch.from_tester = opt_string(c, "from") == "tester";
    if (const auto t = c.find("at_ms"); t != c.end() && t->is_number()) ch.at_ms = t->get<double>();
    if (!opt_hex(c, "octets", ch.octets, error, where + " exchange")) return false;
    e.chunks.push_back(std::move(ch));
  }
  if (const auto a = j.find("sctp"); a != j.end())
    if (!read_sctp(*a, e.sctp.emplace(), error, where)) return false;
  return true;
}

// A case the catalogue does not hold, made from what the report says of it.
bool case_from_report(const json& j, const std::string& id, Case& c, std::string& error, const std::string& where) {
  c.id = id;
  c.title = opt_string(j, "title");
  c.protocol = opt_string(j, "protocol");
  c.rfc = opt_string(j, "rfc");
  c.file = opt_string(j, "script");
  c.requirements = opt_strings(j, "requirements");
  const auto level = parse_level(opt_string(j, "level"));
  if (!level) return error = where + " (" + id + "): \"level\" is not one of MUST, MUST NOT, SHOULD, SHOULD NOT, MAY", false;
  c.level = *level;
  c.role = opt_string(j, "role") == "initiator" ? Role::kInitiator : Role::kResponder;
  return true;
}

bool read_case(const json& j, const std::vector<Case>& cases, std::deque<Case>* unknown, CaseResult& r,
               std::string& error, const std::string& where) {
  if (!j.is_object()) return error = where + ": not an object", false;
  std::string id, verdict;
  if (!get_string(j, "id", id, error, where) || !get_string(j, "verdict", verdict, error, where)) return false;
  for (const Case& c : cases)
    if (c.id == id) r.c = &c;
  if (!r.c && unknown) {
    for (const Case& c : *unknown)
      if (c.id == id) r.c = &c;
    if (!r.c) {
      Case c;
      if (!case_from_report(j, id, c, error, where)) return false;
      unknown->push_back(std::move(c));
      r.c = &unknown->back();
    }
  }
  if (!r.c) return error = where + ": case \"" + id + "\" is not in the catalogue", false;
  const auto v = parse_verdict(verdict);
  if (!v) return error = where + " (" + id + "): verdict \"" + verdict + "\" is not one of rdmaconf's", false;
  r.verdict = *v;
  r.script_verdict = parse_verdict(opt_string(j, "script_verdict")).value_or(r.verdict);
  double line = 0;
  if (!get_string(j, "reason", r.reason, error, where) || !get_number(j, "failed_line", line, error, where) ||
      !get_number(j, "duration_ms", r.duration_ms, error, where) ||
      !get_string(j, "configuration", r.configuration, error, where))
    return false;
  r.failed_line = static_cast<int>(line);
  const std::string at = where + " (" + id + ")";
  // Reports before it have no "negotiated"; null when nothing was negotiated.
  if (const auto n = j.find("negotiated"); n != j.end() && !n->is_null()) {
    const std::string neg_at = at + ": \"negotiated\"";
    if (!n->is_object()) return error = neg_at + " is not an object", false;
    Negotiated neg;
    const auto rev = n->find("revision");
    if (rev == n->end() || !rev->is_number_unsigned() || rev->get<std::uint64_t>() > 15)
      return error = neg_at + ": \"revision\" is missing or not a revision", false;
    neg.revision = static_cast<int>(rev->get<std::uint64_t>());
    for (auto [key, flag] : {std::pair{"crc", &neg.crc}, std::pair{"markers_to_iut", &neg.markers_to_iut},
                             std::pair{"markers_to_tester", &neg.markers_to_tester},
                             std::pair{"peer_to_peer", &neg.peer_to_peer}}) {
      const auto it = n->find(key);
      if (it == n->end() || !it->is_boolean()) return error = neg_at + ": \"" + key + "\" is missing or not true/false", false;
      *flag = it->get<bool>();
    }
    r.negotiated = neg;
  }
  if (const auto f = j.find("failure"); f != j.end() && !f->is_null())
    if (!read_failure(*f, r.failure.emplace(), error, at)) return false;
  if (const auto p = j.find("in_passing"); p != j.end())
    if (!read_in_passing(*p, r.in_passing, error, at)) return false;
  if (const auto e = j.find("exchange"); e != j.end())
    if (!read_exchange(*e, r.exchange, error, at)) return false;
  // Every case names its connection's ends (the octets only when it did not pass).
  if (r.exchange.tester_address.empty()) r.exchange.tester_address = opt_string(j, "tester_address");
  if (r.exchange.iut_address.empty()) r.exchange.iut_address = opt_string(j, "iut_address");
  const auto frames = j.find("frames");
  if (frames == j.end() || !frames->is_array()) return error = at + ": \"frames\" is not a list", false;
  for (const json& f : *frames) {
    FrameRecord fr;
    std::string from;
    if (!f.is_object() || !get_string(f, "from", from, error, at + " frame") ||
        !get_number(f, "at_ms", fr.at_ms, error, at + " frame") ||
        !get_string(f, "headline", fr.headline, error, at + " frame") ||
        !get_string(f, "detail", fr.detail, error, at + " frame"))
      return error.empty() ? (error = at + ": a frame is not an object", false) : false;
    fr.from_tester = from == "tester";
    r.frames.push_back(std::move(fr));
  }
  const auto agent = j.find("agent");
  if (agent == j.end() || !agent->is_array()) return error = at + ": \"agent\" is not a list", false;
  for (const json& e : *agent) {
    AgentEvent ev;
    double len = 0;
    const std::string ev_at = at + " agent event";
    if (!e.is_object()) return error = ev_at + ": not an object", false;
    if (!get_number(e, "at_ms", ev.at_ms, error, ev_at) || !get_string(e, "kind", ev.kind, error, ev_at) ||
        !get_string(e, "name", ev.name, error, ev_at) || !get_string(e, "status", ev.status, error, ev_at) ||
        !get_number(e, "byte_len", len, error, ev_at) || !get_string(e, "detail", ev.detail, error, ev_at))
      return false;
    ev.byte_len = static_cast<std::uint32_t>(len);
    r.agent.push_back(std::move(ev));
  }
  return true;
}

void read_identity(const json& j, RunIdentity& id) {
  if (!j.is_object()) return;
  id.version = opt_string(j, "version");
  id.commit = opt_string(j, "commit");
  if (const auto c = j.find("catalogue"); c != j.end() && c->is_object()) {
    id.catalogue_sha256 = opt_string(*c, "sha256");
    if (const auto n = c->find("cases"); n != c->end() && n->is_number_unsigned()) id.catalogue_cases = n->get<std::size_t>();
  }
  id.started_at = opt_string(j, "started_at");
  id.finished_at = opt_string(j, "finished_at");
  id.command_line = opt_strings(j, "command_line");
  for (const char* map : {"iut", "labels"})
    if (const auto m = j.find(map); m != j.end() && m->is_object())
      for (const auto& [k, v] : m->items())
        if (v.is_string()) (std::string_view(map) == "iut" ? id.iut : id.labels)[k] = v.get<std::string>();
}

}  // namespace

bool read_json(std::string_view text, const std::vector<Case>& cases, std::vector<CaseResult>& results, RunInfo& info,
               std::string& error, std::deque<Case>* unknown) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return error = "not JSON", false;
  if (opt_string(j, "tool") != "rdmaconf") return error = "\"tool\" is not \"rdmaconf\": not an rdmaconf report", false;
  if (const auto f = j.find("format"); f != j.end() && (!f->is_number_integer() || f->get<int>() > kReportFormat))
    return error = "the report's \"format\" is newer than this rdmaconf reads (" + std::to_string(kReportFormat) + ")", false;
  const auto list = j.find("cases");
  if (list == j.end() || !list->is_array()) return error = "\"cases\" is missing or not a list", false;
  std::vector<CaseResult> read;
  for (std::size_t k = 0; k < list->size(); ++k) {
    CaseResult r;
    if (!read_case((*list)[k], cases, unknown, r, error, "case " + std::to_string(k + 1))) return false;
    read.push_back(std::move(r));
  }
  // The run: the first report's target, faults and identity, strict if any
  // run was, the wall times added.
  double wall = 0;
  std::string target;
  if (!get_string(j, "target", target, error, "report") || !get_number(j, "duration_ms", wall, error, "report"))
    return false;
  if (info.target.empty()) info.target = target;
  if (info.faults.empty()) info.faults = opt_string(j, "faults");
  if (info.identity.started_at.empty())
    if (const auto run = j.find("run"); run != j.end()) read_identity(*run, info.identity);
  info.strict = info.strict || opt_bool(j, "strict");
  info.wall_ms += wall;
  if (const auto sk = j.find("skipped"); sk != j.end() && sk->is_array())
    for (const json& s : *sk)
      if (s.is_string()) info.skipped.push_back(s.get<std::string>());
  for (CaseResult& r : read) results.push_back(std::move(r));
  return true;
}

}  // namespace rdmaconf::conformance
