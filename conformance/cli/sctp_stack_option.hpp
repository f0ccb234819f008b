// --sctp-stack usrsctp|kernel: which SCTP carries `--transport sctp` in
// `rdmaconf loopback`, `responder` and `run --target`. Declared here once
// for the three (reference/endpoint/sctp_link.hpp says what each stack is).
//   usrsctp  SCTP in the tester's process, its packets in UDP datagrams
//            (RFC 6951): PORT is a UDP port, the SCTP port the same number
//            unless said otherwise. Needs no kernel support. The default.
//   kernel   the kernel's own SCTP (Linux: lksctp, CONFIG_IP_SCTP): PORT is
//            the SCTP port on IP itself.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace rdmaconf::cli {

void add_sctp_stack_option(CLI::App& sub, std::string& stack);

// " over usrsctp in UDP (RFC 6951)" or " over the kernel's SCTP": what a
// command's first line says.
std::string sctp_stack_words(const std::string& stack);

}  // namespace rdmaconf::cli
