// The JSON report (report.hpp; its schema: docs/schema/results.schema.json;
// report_read.cpp reads it back). One top-level member per line and one case
// per line, so two reports diff line by line.
#include <algorithm>
#include <cstdio>
#include <ctime>

#include <nlohmann/json.hpp>

#include "report/baseline.hpp"
#include "report/findings.hpp"
#include "report/report.hpp"
#include "report/report_json.hpp"

namespace rdmaconf::conformance {
namespace {

using Json = nlohmann::ordered_json;

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

// A report keeps at most this much of one case's exchange (the cases are
// small; a flooding IUT is cut off by the runner at 4 MiB).
constexpr std::size_t kMaxExchangeOctets = 256 * 1024;

Json failure_json(const Failure& f) {
  Json j{{"kind", to_string(f.kind)},
         {"line", f.line},
         {"step", f.step},
         {"expected", f.expected},
         {"expected_class", f.expected_class},
         {"got", f.got}};
  if (!f.field.empty()) {
    j["field"] = f.field;
    j["want"] = f.want;
    j["have"] = f.have;
  }
  if (!f.received.empty()) j["received"] = hex_string(f.received);
  if (f.received_length) {
    j["received_offset"] = f.received_offset;
    j["received_length"] = f.received_length;
  }
  if (!f.mistake.empty()) {
    j["mistake"] = f.mistake;
    j["mistake_rule"] = f.mistake_rule;
    j["hint"] = f.hint;
    j["meant"] = f.meant;
    j["explained"] = f.explained;
  }
  j["stimulus"] = f.stimulus;
  j["stimulus_fields"] = f.stimulus_fields;
  if (!f.stimulus_octets.empty()) j["stimulus_octets"] = hex_string(f.stimulus_octets);
  return j;
}

Json in_passing_json(const InPassing& p) {
  Json j{{"rule", p.rule}, {"level", p.level}, {"section", p.section}, {"summary", p.summary},
         {"text", p.text}, {"count", p.count}, {"stream_offset", p.stream_offset}, {"offsets", p.offsets}};
  if (!p.mistake.empty()) {
    j["mistake"] = p.mistake;
    j["hint"] = p.hint;
  }
  if (!p.octets.empty()) j["octets"] = hex_string(p.octets);
  return j;
}

// A connection over SCTP: its association as the runner recorded it
// (SctpExchange, engine/sctp_packets.hpp), what the INIT and INIT-ACK said
// and every message with the stream, PPID and U flag SCTP carried it with,
// from which the case's capture is put back together. `total` is the
// octets the exchange keeps so far; past kMaxExchangeOctets the rest is
// left out and `truncated` set.
Json sctp_json(const SctpExchange& a, std::size_t& total, bool& truncated) {
  const auto indication = [](const std::optional<std::uint32_t>& i) { return i ? Json(*i) : Json(nullptr); };
  Json messages = Json::array();
  for (const SctpExchange::Message& m : a.messages) {
    if (total + m.chunk.octets.size() > kMaxExchangeOctets) {
      truncated = true;
      break;
    }
    total += m.chunk.octets.size();
    messages.push_back(Json{{"from", m.from_tester ? "tester" : "iut"},
                            {"at_ms", static_cast<long long>(m.at_ms)},
                            {"stream", m.chunk.stream},
                            {"ppid", m.chunk.ppid},
                            {"unordered", m.chunk.unordered},
                            {"octets", hex_string(m.chunk.octets)}});
  }
  return Json{{"tester_port", a.tester_port},
              {"iut_port", a.iut_port},
              {"tester_init", Json{{"indication", indication(a.tester_init.indication)},
                                   {"streams", a.tester_init.streams},
                                   {"hold_acks", a.tester_init.hold_acks}}},
              {"iut_init", Json{{"indication", indication(a.iut_init.indication)},
                                {"outbound_streams", a.iut_init.outbound_streams},
                                {"inbound_streams", a.iut_init.inbound_streams}}},
              {"messages", std::move(messages)}};
}

Json exchange_json(const ExchangeRecord& e) {
  Json chunks = Json::array();
  std::size_t total = 0;
  bool truncated = false;
  for (const StreamChunk& ch : e.chunks) {
    if (total + ch.octets.size() > kMaxExchangeOctets) {
      truncated = true;
      break;
    }
    total += ch.octets.size();
    chunks.push_back(Json{{"from", ch.from_tester ? "tester" : "iut"},
                          {"at_ms", static_cast<long long>(ch.at_ms)},
                          {"octets", hex_string(ch.octets)}});
  }
  Json sctp = e.sctp ? sctp_json(*e.sctp, total, truncated) : Json();
  Json j{{"tester_address", e.tester_address}, {"iut_address", e.iut_address},
         {"closed_by_iut", e.closed_by_iut},   {"reset_by_iut", e.reset_by_iut},
         {"truncated", truncated},             {"chunks", std::move(chunks)}};
  if (e.sctp) j["sctp"] = std::move(sctp);
  return j;
}

std::string finding_source(findings::Finding::Source s) { return s == findings::Finding::Source::kRule ? "rule" : "step"; }

}  // namespace

std::string hex_string(const std::vector<std::uint8_t>& octets) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(octets.size() * 2);
  for (std::uint8_t b : octets) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

nlohmann::ordered_json case_json(const CaseResult& r, const std::vector<std::string>& finding_keys,
                                 std::string_view baseline_status) {
  Json frames = Json::array();
  for (const FrameRecord& f : r.frames)
    frames.push_back(Json{{"from", f.from_tester ? "tester" : "iut"},
                          {"at_ms", static_cast<long long>(f.at_ms)},
                          {"headline", f.headline},
                          {"detail", f.detail}});
  Json agent = Json::array();
  for (const AgentEvent& e : r.agent)
    agent.push_back(Json{{"at_ms", static_cast<long long>(e.at_ms)},
                         {"kind", e.kind},
                         {"name", e.name},
                         {"status", e.status},
                         {"byte_len", e.byte_len},
                         {"detail", e.detail}});
  // What was in effect on the case's connection (null: it never reached
  // MPA full operation), beside the pass's label.
  Json negotiated = nullptr;
  if (r.negotiated)
    negotiated = Json{{"revision", r.negotiated->revision},
                      {"crc", r.negotiated->crc},
                      {"markers_to_iut", r.negotiated->markers_to_iut},
                      {"markers_to_tester", r.negotiated->markers_to_tester},
                      {"peer_to_peer", r.negotiated->peer_to_peer}};
  Json j{{"id", r.c->id},
         {"protocol", r.c->protocol},
         {"configuration", r.configuration},
         {"negotiated", std::move(negotiated)},
         {"title", r.c->title},
         {"requirements", r.c->requirements},
         {"rfc", r.c->rfc},
         {"level", to_string(r.c->level)},
         {"role", to_string(r.c->role)},
         {"verdict", to_string(r.verdict)},
         {"script_verdict", to_string(r.script_verdict)},
         {"reason", r.reason},
         {"script", r.c->file},
         {"failed_line", r.failed_line},
         {"duration_ms", static_cast<long long>(r.duration_ms)},
         {"findings", finding_keys},
         {"tester_address", r.exchange.tester_address},
         {"iut_address", r.exchange.iut_address}};
  if (!baseline_status.empty()) j["baseline"] = baseline_status;
  if (r.failure) j["failure"] = failure_json(*r.failure);
  Json passing = Json::array();
  for (const InPassing& p : r.in_passing) passing.push_back(in_passing_json(p));
  j["in_passing"] = std::move(passing);
  j["frames"] = std::move(frames);
  j["agent"] = std::move(agent);
  // The octets of every case that did not pass, so a bug report can carry
  // its capture (rdmaconf findings --report): its TCP connection's, or its
  // SCTP association's.
  if (r.verdict != Verdict::kPass && (!r.exchange.chunks.empty() || r.exchange.sctp))
    j["exchange"] = exchange_json(r.exchange);
  return j;
}

nlohmann::ordered_json finding_json(const findings::Finding& f, const RunInfo& info, std::string_view baseline_status) {
  Json rules = Json::array();
  for (const findings::RuleRef& r : f.rules)
    rules.push_back(Json{{"id", r.id}, {"level", r.level}, {"section", r.section}, {"summary", r.summary}});
  Json cases = Json::array();
  for (const CaseResult* r : f.cases)
    cases.push_back(Json{{"id", r->c->id}, {"configuration", r->configuration}, {"verdict", to_string(r->verdict)}});
  Json j{{"id", f.id},
         {"key", f.key},
         {"source", finding_source(f.source)},
         {"title", f.title},
         {"verdict", to_string(f.verdict)},
         {"level", f.level},
         {"rules", std::move(rules)},
         {"sections", f.sections},
         {"expected", f.expected},
         {"got", f.got}};
  if (!f.mistake.empty()) j["diagnosis"] = Json{{"mistake", f.mistake}, {"hint", f.hint}, {"meant", f.meant}};
  if (f.example) {
    Json ex{{"case", f.example->c->id}, {"configuration", f.example->configuration}};
    if (!f.sent.empty()) ex["sent"] = hex_string(f.sent);
    if (!f.received.empty()) ex["received"] = hex_string(f.received);
    j["example"] = std::move(ex);
    j["reproducer"] = findings::reproducer(info.identity.command_line, info.target, *f.example);
  }
  if (!baseline_status.empty()) j["baseline"] = baseline_status;
  j["cases"] = std::move(cases);
  return j;
}

nlohmann::ordered_json identity_json(const RunIdentity& id) {
  Json iut = Json::object();
  for (const auto& [k, v] : id.iut) iut[k] = v;
  Json labels = Json::object();
  for (const auto& [k, v] : id.labels) labels[k] = v;
  return Json{{"version", id.version},
              {"commit", id.commit},
              {"catalogue", Json{{"sha256", id.catalogue_sha256}, {"cases", id.catalogue_cases}}},
              {"started_at", id.started_at},
              {"finished_at", id.finished_at},
              {"command_line", id.command_line},
              {"iut", std::move(iut)},
              {"labels", std::move(labels)}};
}

int exit_code(const std::vector<CaseResult>& results, const RunInfo& info) {
  const Summary s = summarize(results);
  if (info.baseline) {
    const auto found = findings::group(results);
    const auto cmp = baseline::compare(*info.baseline, results, found);
    if (cmp.has_new_failure()) return 1;
    return s.counts.contains(Verdict::kError) ? 2 : 0;
  }
  return s.exit_code();
}

void write_json(std::ostream& out, const std::vector<CaseResult>& results, const RunInfo& info) {
  const Summary s = summarize(results);
  const auto found = findings::group(results);
  std::optional<baseline::Comparison> cmp;
  if (info.baseline) cmp = baseline::compare(*info.baseline, results, found);
  Json summary = Json::object();
  for (Verdict v : {Verdict::kPass, Verdict::kNonStrict, Verdict::kInformational, Verdict::kUnimplemented,
                    Verdict::kFail, Verdict::kError}) {
    auto it = s.counts.find(v);
    summary[std::string(to_string(v))] = it == s.counts.end() ? 0 : it->second;
  }
  summary["findings"] = found.size();
  std::vector<std::pair<std::string_view, Json>> members = {
      {"tool", "rdmaconf"},
      {"format", kReportFormat},
      {"run", identity_json(info.identity)},
      {"target", info.target},
      {"faults", info.faults},
      {"strict", info.strict},
      {"duration_ms", static_cast<long long>(info.wall_ms)},
      {"skipped", info.skipped},
      {"summary", std::move(summary)},
      {"exit_code", exit_code(results, info)},
  };
  if (cmp) {
    Json fixed = Json::array();
    for (const auto& [id, config] : cmp->fixed_cases) fixed.push_back(Json{{"id", id}, {"configuration", config}});
    Json fixed_findings = Json::array();
    for (const auto& [key, title] : cmp->fixed_findings) fixed_findings.push_back(Json{{"key", key}, {"title", title}});
    members.emplace_back("baseline", Json{{"source", cmp->source},
                                          {"known_cases", cmp->known_cases},
                                          {"new_cases", cmp->new_cases},
                                          {"known_findings", cmp->known_findings},
                                          {"new_findings", cmp->new_findings},
                                          {"fixed_cases", std::move(fixed)},
                                          {"fixed_findings", std::move(fixed_findings)}});
  }
  out << "{\n";
  for (const auto& [key, value] : members) out << "  " << dump(Json(key)) << ": " << dump(value) << ",\n";
  out << "  \"findings\": [\n";
  for (std::size_t i = 0; i < found.size(); ++i) {
    const std::string_view status = cmp ? baseline::to_string(cmp->findings.at(found[i].key)) : std::string_view();
    out << "    " << dump(finding_json(found[i], info, status)) << (i + 1 < found.size() ? "," : "") << "\n";
  }
  out << "  ],\n  \"cases\": [\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::string_view status;
    if (cmp)
      if (auto it = cmp->cases.find(&results[i]); it != cmp->cases.end()) status = baseline::to_string(it->second);
    out << "    " << dump(case_json(results[i], findings::keys_of(results[i]), status)) << (i + 1 < results.size() ? "," : "")
        << "\n";
  }
  out << "  ]\n}\n";
}

std::vector<std::string> redact_command_line(int argc, const char* const* argv) {
  std::vector<std::string> out;
  bool secret_next = false;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i] ? argv[i] : "";
    if (secret_next) {
      out.push_back("<redacted>");
      secret_next = false;
      continue;
    }
    for (const char* opt : {"--token", "--publish-token"}) {
      if (a == opt) secret_next = true;
      else if (a.starts_with(std::string(opt) + "=")) a = std::string(opt) + "=<redacted>";
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::string iso_time(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace rdmaconf::conformance
