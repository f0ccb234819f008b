// A capture uploaded to the dashboard, through `rdmaconf analyze`'s analyzer
// (pcap/analysis/): violations and the decoded exchange per connection, and
// the annotated pcapng to download.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace rdmaconf::dashboard {

struct CaptureLimits {
  std::size_t max_messages_per_connection = 2000;  // drawn in the sequence diagram; counted beyond
  std::size_t max_connections = 200;
};

// `octets` is a pcap or pcapng file. The result JSON (docs/dashboard.md,
// "Captures"), or null with `error`; `annotated` receives the pcapng with a
// comment on every violating frame.
nlohmann::json analyze_capture(const std::string& octets, std::string& annotated, std::string& error,
                               const CaptureLimits& limits = {});

}  // namespace rdmaconf::dashboard
