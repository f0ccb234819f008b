// The hook through which a capture writer records each case's exchange
// (`rdmaconf run --pcap DIR`). The capture layer (pcap/, TcpRecorder)
// registers a writer; the engine hands it every CaseResult, whose
// ExchangeRecord holds both endpoints and the TCP payload in order.
#pragma once

#include <functional>
#include <string>

#include "engine/engine.hpp"

namespace rdmaconf::conformance {

// Returns false when the capture could not be written (the writer says why
// on stderr).
using PcapWriter = std::function<bool(const std::string& dir, const CaseResult& result)>;

// The registered writer, or an empty function.
PcapWriter& pcap_writer();

struct PcapWriterRegistration {
  explicit PcapWriterRegistration(PcapWriter w) { pcap_writer() = std::move(w); }
};

}  // namespace rdmaconf::conformance
