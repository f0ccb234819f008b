// One decoded message as text: a line for `rdmaconf decode`, or a JSON
// object for `rdmaconf decode --json`. Field names follow the header
// declarations (and so the RFCs).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "analysis/analyzer.hpp"
#include "analysis/observer.hpp"

namespace rdmaconf::analysis {

// Short name of the message: "MPA Request", "RDMA Read Request", "CLC Accept", ...
std::string message_type_name(const Message& m);

// The message's fields as (name, value) pairs, the values as text; the
// names are the ones decode --json prints (replay compares these).
std::vector<std::pair<std::string, std::string>> describe_fields(const Message& m);

std::string describe_line(const ConnectionInfo& c, const Message& m);
std::string describe_json(const ConnectionInfo& c, const Message& m);

}  // namespace rdmaconf::analysis
