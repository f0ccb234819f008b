// `rdmaconf analyze --json`: an AnalysisResult as JSON (analyzer.hpp,
// write_json), apart from the analyzer that makes it.
#include <nlohmann/json.hpp>

#include "analysis/analyzer.hpp"
#include "rdmap/headers.hpp"

namespace rdmaconf::analysis {

// ------------------------------------------------------------------ JSON
//
// Built with nlohmann-json (escaping, invalid UTF-8 in paths or texts
// replaced rather than passed through), one top-level member per line as
// before; the violations, the one part that grows with the capture, are
// written one object at a time instead of as one document in memory.

namespace {
using Json = nlohmann::ordered_json;

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

Json counts(const std::map<std::string, std::uint64_t>& m) {
  Json o = Json::object();
  for (const auto& [k, n] : m) o[k] = n;
  return o;
}

Json summary_json(const AnalysisResult& result) {
  const AnalysisSummary& s = result.summary;
  return Json{{"frames", s.frames},
              {"streams", s.streams},
              {"mpa_connections", s.mpa_connections},
              {"clc_connections", s.clc_connections},
              {"mpa_frames", s.mpa_frames},
              {"mpa_fpdus", s.mpa_fpdus},
              {"clc_messages", s.clc_messages},
              {"violations", s.violations},
              {"must_violations", s.must_violations},
              {"resyncs", s.resyncs},
              {"octets", s.octets},
              {"skipped_octets", s.skipped_octets},
              {"capture_reports", s.capture_reports},
              {"kernel_drops", s.kernel_drops},
              {"clean_end", result.clean_end}};
}

// Every opcode is listed, zero or not, so consumers can index.
Json rdmap_json(const AnalysisSummary& s) {
  Json o = Json::object();
  for (std::size_t op = 0; op < 16; ++op) {
    const std::string_view known = wire::value_name(rdmap::names::kOpcodes, op);
    const std::string name = known.empty() ? "reserved opcode " + std::to_string(op) : std::string(known);
    o[name] = s.rdmap_messages[op];
  }
  return o;
}

Json clc_json(const AnalysisSummary& s) {
  static constexpr std::string_view kClcNames[] = {"Proposal", "Accept", "Confirm", "Decline"};
  Json o = Json::object();
  for (std::size_t t = 1; t <= 4; ++t) o[std::string(kClcNames[t - 1])] = s.clc_types[t];
  return o;
}

// SMC-R over RoCEv2: totals, opcodes seen, LLC messages per name.
Json smcr_json(const AnalysisSummary& s) {
  Json opcodes = Json::object();
  for (std::size_t op = 0; op < s.roce_opcodes.size(); ++op)
    if (s.roce_opcodes[op] != 0) opcodes[smcr::opcode_name(static_cast<std::uint8_t>(op))] = s.roce_opcodes[op];
  return Json{{"roce_links", s.roce_links},
              {"roce_packets", s.roce_packets},
              {"retransmissions", s.roce_retransmissions},
              {"undecoded", s.roce_undecoded},
              {"psn_gaps", s.roce_psn_gaps},
              {"cdc_messages", s.cdc_messages},
              {"rdma_writes", s.rdma_writes},
              {"opcodes", opcodes},
              {"llc_messages", counts(s.llc_messages)},
              // The link lifecycle the LLC messages told (RFC 7609 §3.5.1.5-3.5.5).
              {"lifecycle",
               {{"links_confirmed", s.links_confirmed},
                {"links_added", s.links_added},
                {"links_rejected", s.links_rejected},
                {"links_deleted", s.links_deleted},
                {"rkeys_announced", s.rkeys_announced},
                {"rkeys_confirmed", s.rkeys_confirmed},
                {"rkeys_deleted", s.rkeys_deleted},
                {"llc_pairs", s.llc_pairs},
                {"test_link_pairs", s.test_link_pairs}}}};
}

// DDP over SCTP (RFC 5043): associations, SCTP's packets and chunks, the
// adaptation layer's messages.
Json sctp_json(const AnalysisSummary& s) {
  return Json{{"associations", s.sctp_associations},
              {"ddp_associations", s.sctp_ddp_associations},
              {"over_udp", s.sctp_over_udp},
              {"packets", s.sctp_packets},
              {"chunks", s.sctp_chunks},
              {"data_chunks", s.sctp_data_chunks},
              {"bad_checksums", s.sctp_bad_checksums},
              {"malformed", s.sctp_malformed},
              {"retransmissions", s.sctp_retransmissions},
              {"fragmented_messages", s.sctp_fragmented_messages},
              {"fragment_findings", s.sctp_fragment_findings},
              {"ddp_segments", s.ddp_sctp_segments},
              {"session_control", s.ddp_sctp_session_control}};
}

Json ulps_json(const AnalysisSummary& s) {
  Json o = Json::object();
  for (const auto& [ulp, t] : s.ulps) {
    o[ulp] = Json{{"connections", t.connections},
                  {"recognised_by", counts(t.by_source)},
                  {"messages", counts(t.messages)},
                  {"read_segments", t.read_segments},
                  {"write_chunks", t.write_chunks},
                  {"reply_chunks", t.reply_chunks},
                  {"write_stags", t.write_stags},
                  {"read_stags", t.read_stags},
                  {"undecoded", t.undecoded},
                  {"operations", counts(t.operations)},
                  {"transfers",
                   {{"rdma_reads", t.transfers.reads},
                    {"read_octets", t.transfers.read_octets},
                    {"reads_tied", t.transfers.reads_tied},
                    {"rdma_writes", t.transfers.writes},
                    {"write_octets", t.transfers.write_octets},
                    {"writes_tied", t.transfers.writes_tied},
                    {"writes_to_write_chunks", t.transfers.writes_to_write_chunks},
                    {"writes_to_reply_chunks", t.transfers.writes_to_reply_chunks},
                    {"send_invalidates", t.transfers.invalidations},
                    {"send_invalidates_tied", t.transfers.invalidations_tied},
                    {"replies_matched", t.transfers.replies_matched}}}};
  }
  return o;
}

Json violation_json(const ViolationRecord& v) {
  Json o = v.capture.empty() ? Json::object() : Json{{"capture", v.capture}};
  o.update(Json{{"frame", v.frame},
         {"connection", v.connection},
         {"stream", v.stream},
         {"side", name(v.side)},
         {"stream_offset", v.stream_offset},
         {"rule", v.rule->id},
         {"level", name(v.rule->level)},
         {"section", v.rule->section},
         {"text", v.text}});
  if (!v.hint.empty()) {
    o["mistake"] = v.hint_mistake;
    o["hint"] = v.hint;
  }
  return o;
}
}  // namespace

void write_json(std::ostream& out, const AnalysisResult& result, const std::string& capture_path) {
  write_json(out, result, std::vector<std::string>{capture_path});
}

void write_json(std::ostream& out, const AnalysisResult& result, const std::vector<std::string>& capture_paths) {
  const AnalysisSummary& s = result.summary;
  const std::pair<std::string_view, Json> members[] = {
      capture_paths.size() == 1 ? std::pair<std::string_view, Json>{"capture", capture_paths.front()}
                                : std::pair<std::string_view, Json>{"captures", capture_paths},
      {"summary", summary_json(result)},
      {"rdmap_messages", rdmap_json(s)},
      {"clc_messages", clc_json(s)},
      {"smcr", smcr_json(s)},
      {"sctp", sctp_json(s)},
      {"ulps", ulps_json(s)},
      {"capture_report_kinds", counts(s.report_kinds)},
      {"violations_per_rule", counts(s.violations_per_rule)},
  };
  out << "{\n";
  for (const auto& [key, value] : members) out << "  " << dump(Json(key)) << ": " << dump(value) << ",\n";
  out << "  \"violations\": [";
  bool first = true;
  for (const ViolationRecord& v : result.violations) {
    out << (first ? "\n    " : ",\n    ") << dump(violation_json(v));
    first = false;
  }
  out << (first ? "]\n}\n" : "\n  ]\n}\n");
}

}  // namespace rdmaconf::analysis
