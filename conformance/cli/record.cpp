// `rdmaconf run --pcap DIR`: the capture writer the engine calls for every
// finished case (conformance/engine/pcap_hook.hpp). Not a subcommand: it
// registers the writer that turns a case's ExchangeRecord into
// DIR/<case id>.pcapng (its connection N from 2 on: DIR/<case id>-N.pcapng)
// through pcap/'s ExchangeRecorder (synthesized
// Ethernet/IPv4/TCP; docs/capture.md says what the capture shows and how
// `rdmaconf analyze` verdicts relate to the case's), or, for a connection
// over SCTP, its association's packets in raw IP (docs/sctp-ddp.md).
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "analysis/recording.hpp"
#include "engine/engine.hpp"
#include "engine/pcap_hook.hpp"
#include "engine/sctp_packets.hpp"

namespace rdmaconf::cli {
namespace {

namespace cf = conformance;

std::uint16_t port_of(const std::string& address, std::uint16_t fallback) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) return fallback;
  unsigned long p = 0;
  for (char ch : address.substr(colon + 1)) {
    if (ch < '0' || ch > '9') return fallback;
    p = p * 10 + static_cast<unsigned long>(ch - '0');
    if (p > 65535) return fallback;
  }
  return p == 0 ? fallback : static_cast<std::uint16_t>(p);
}

// What the capture's first frame says of the case.
std::string case_note(const cf::CaseResult& r, std::size_t number) {
  std::string note = "rdmaconf case " + r.c->id + " (" + r.c->title + "); requirement";
  for (const std::string& q : r.c->requirements) note += " " + q;
  note += "; verdict " + std::string(cf::to_string(r.verdict));
  if (!r.reason.empty()) note += ": " + r.reason;
  if (!r.other_connections.empty()) note += "; connection " + std::to_string(number);
  return note;
}

// A connection over SCTP: its association's packets as the engine puts
// them back together from its record (the packets the rules in passing
// judged), the tester's INIT first.
bool record_association(const std::string& path, const cf::CaseResult& r, const cf::SctpExchange& association,
                        std::size_t number) {
  std::vector<analysis::RecordedSctpPacket> packets;
  for (cf::SctpPacket& p : cf::sctp_packets(association))
    packets.push_back({p.from_tester ? analysis::Side::kInitiator : analysis::Side::kResponder, std::move(p.octets),
                       packets.empty() ? case_note(r, number) : std::string(), p.at_ms});
  return analysis::write_sctp_association(path, packets);
}

// One connection of the case into `path`; `number` counts from 1.
bool record_connection(const std::string& path, const cf::CaseResult& r, const cf::ExchangeRecord& ex, std::size_t number) {
  if (ex.sctp) return record_association(path, r, *ex.sctp, number);
  // The TCP initiator: the tester when the IUT is the MPA responder / CLC
  // server, the IUT when it connects to the tester (role initiator).
  const bool tester_initiates = r.c->role == cf::Role::kResponder;
  const analysis::Side tester = tester_initiates ? analysis::Side::kInitiator : analysis::Side::kResponder;
  const analysis::Side iut = tester_initiates ? analysis::Side::kResponder : analysis::Side::kInitiator;
  analysis::RecordingOptions options;
  // The real ports, so a capture can be matched with the run's report.
  const std::string& client = tester_initiates ? ex.tester_address : ex.iut_address;
  const std::string& server = tester_initiates ? ex.iut_address : ex.tester_address;
  options.initiator_port = port_of(client, options.initiator_port);
  options.responder_port = port_of(server, options.responder_port);
  // The engine's CLC cases model a connection on which both peers offered
  // SMC-R (RFC 7609 §3.1); user-space sockets cannot set the option, so the
  // synthesized SYNs carry it.
  options.smc_option = cf::uses_clc(r.c->protocol);
  analysis::ExchangeRecorder rec(path, options);
  const std::string note = case_note(r, number);
  bool first = true;
  for (const cf::StreamChunk& ch : ex.chunks) {
    rec.add(ch.from_tester ? tester : iut, ch.octets, first ? std::string_view(note) : std::string_view(), ch.at_ms);
    first = false;
  }
  return ex.reset_by_iut ? rec.abort(iut) : rec.close(ex.closed_by_iut ? iut : tester);
}

// Whether the case opened its connection: a TCP connection names its ends,
// an association over SCTP leaves its record (the in-memory one names no
// addresses). A case that never ran (unimplemented before its first step:
// the IUT lacks what it needs, it rests on MPA over SCTP) opened neither.
bool opened(const cf::ExchangeRecord& ex) { return ex.sctp || !ex.tester_address.empty() || !ex.chunks.empty(); }

// DIR/<case>.pcapng, and DIR/<case>-N.pcapng for its connection N from 2
// on; nothing for a case that opened no connection.
bool record_case(const std::string& dir, const cf::CaseResult& r) {
  if (!r.c || !opened(r.exchange)) return true;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  bool ok = record_connection(analysis::case_capture_path(dir, r.c->id), r, r.exchange, 1);
  for (std::size_t k = 0; k < r.other_connections.size(); ++k)
    ok = record_connection(analysis::case_capture_path(dir, r.c->id + "-" + std::to_string(k + 2)), r,
                           r.other_connections[k], k + 2) && ok;
  if (!ok) std::cerr << "rdmaconf run: --pcap: cannot write the capture of " << r.c->id << " into " << dir << "\n";
  return ok;
}

const cf::PcapWriterRegistration kRecorder{record_case};

}  // namespace
}  // namespace rdmaconf::cli
