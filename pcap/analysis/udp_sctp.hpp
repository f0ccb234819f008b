// Which UDP datagrams carry SCTP (RFC 6951): asked by `rdmaconf analyze`
// (Analyzer::on_udp, the -j workers) and by the Wireshark plugin, so that
// both take the same datagrams as SCTP. Standard library and
// rdmaconf_codec only; defined in observer_sctp.cpp.
#pragma once

#include <cstdint>

#include "wire/bytes.hpp"

namespace rdmaconf::analysis {

// True when either port is SCTP's registered encapsulation port, or when
// the payload's first octets read as an SCTP common header whose CRC32c
// checks and chunks follow (the encapsulation may use any port: usrsctp
// lets each side pick one).
bool udp_carries_sctp(std::uint16_t source_port, std::uint16_t destination_port, wire::Bytes payload);

}  // namespace rdmaconf::analysis
