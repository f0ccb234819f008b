// --sctp-stack (sctp_stack_option.hpp).
#include "cli/sctp_stack_option.hpp"

#include <CLI/CLI.hpp>

namespace rdmaconf::cli {

void add_sctp_stack_option(CLI::App& sub, std::string& stack) {
  sub.add_option("--sctp-stack", stack,
                 "With --transport sctp, which SCTP carries it: usrsctp (in this process, its packets in UDP "
                 "datagrams, RFC 6951; PORT is the UDP port) or kernel (the kernel's own SCTP sockets; PORT is the "
                 "SCTP port)")
      ->check(CLI::IsMember({"usrsctp", "kernel"}))
      ->default_str("usrsctp");
}

std::string sctp_stack_words(const std::string& stack) {
  return stack == "kernel" ? "the kernel's SCTP" : "usrsctp in UDP (RFC 6951)";
}

}  // namespace rdmaconf::cli
