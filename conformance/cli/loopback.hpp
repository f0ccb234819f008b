// `rdmaconf loopback`: two reference endpoints over real loopback TCP (or,
// with --transport sctp, SCTP over UDP). The initiator and the responder
// negotiate MPA (or set up a DDP Stream Session, RFC 5043), then exchange
// every RDMAP operation (RFC 5040 and RFC 7306) and end with a deliberate protection
// error that the responder answers with a Terminate; every frame that
// crossed the wire is printed, decoded through the header declarations.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace rdmaconf::cli {

struct LoopbackOptions {
  int revision = 2;
  bool markers = false;
  bool no_crc = false;
  bool verbose = false;
  std::size_t fpdu_budget = 1460;
  std::string transport = "tcp";  // "tcp": MPA; "sctp": RFC 5043 over SCTP
  std::string sctp_stack = "usrsctp";  // which SCTP (sctp_stack_option.hpp)
};

// Runs the session; returns the exit code (0: every operation completed as
// the RFCs say, 1: one did not, 2: setup error).
int run_loopback(const LoopbackOptions& options);

}  // namespace rdmaconf::cli
