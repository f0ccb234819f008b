// Capture cases: a case whose subject is a capture, not a live IUT
// (docs/conformance.md, "Capture cases"). Some rules are observable on the
// wire, but the live tester cannot make its peer show them: the peer would
// have to run NFS or iSER over RDMA (RFC 8166, RFC 7145), or the rule is on
// the TCP segments the tester's socket never sees (RFC 5044 §4.5, §5.1). The
// capture analyzer judges those rules in captures; a capture case names one
// row, a capture that keeps the rule and one that breaks it:
//
//   id:          capture-rpcrdma-credit-limit
//   title:       A requester sends no call beyond the credits granted
//   requirement: rfc8166-3.3.1-credit-limit
//   rfc:         RFC 8166 §3.3.1
//   level:       MUST
//   passes:      crafted/ulp-rpc-keeps-every-rule.pcapng
//   fails:       crafted/ulp-rpc-credit-limit.pcapng
//
// The capture paths are relative to the project's test captures
// (pcap/tests/captures). A test (pcap/tests/capture_cases_test.cpp) analyzes
// both captures of every capture case: the row must be kept in the first
// and broken in the second, so each case is proven both ways; the trace
// (`rdmaconf requirements`) counts a row as having a case through it.
//
// Files `*.capture` under the catalogue folder (conformance/cases/capture/);
// `run` does not load them. Standard C++ only; bad input yields an error
// naming file:line, never a crash.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/script.hpp"

namespace rdmaconf::conformance {

struct CaptureCase {
  std::string file;
  std::string id;
  std::string title;
  std::string requirement;  // one registry id
  std::string rfc;
  Level level = Level::kMust;
  std::string passes;  // a capture that keeps the rule
  std::string fails;   // a capture that breaks it
};

std::variant<CaptureCase, SyntaxError> parse_capture_case(std::string_view text, std::string_view file);

struct CaptureCatalogue {
  std::vector<CaptureCase> cases;
  std::vector<SyntaxError> errors;
};

// Every *.capture under dir (sorted by path); ids must be unique.
CaptureCatalogue load_capture_cases(const std::string& dir);

}  // namespace rdmaconf::conformance
