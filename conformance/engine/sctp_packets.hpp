// A case's SCTP association as the runner records it (SctpExchange), and
// its packets put back together from that record: what the capture
// observer judges in passing (in_passing.hpp).
//
// The tester's INIT and the IUT's INIT ACK first (each with the Adaptation
// Layer Indication it carried, RFC 5043 §5.1), then every message in DATA
// chunks of its own packets: TSNs counting up from each side's initial TSN,
// ordered chunks numbered per stream, a message longer than one chunk cut
// into fragments (B and E bits, RFC 9260 §6.9), CRC32c filled in. The SCTP
// ports are the record's when it names them. SACKs and the association's
// end are not shown: the runner does not see them.
// Standard library and rdmaconf_codec only.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/sctp_transport.hpp"

namespace rdmaconf::conformance {

// What a case's association carried (runner_sctp.cpp records it): what the
// tester's INIT asked and the IUT's INIT-ACK announced, and every DATA
// chunk's message both ways in order, with what SCTP carried beside it.
struct SctpExchange {
  struct Message {
    bool from_tester = true;
    double at_ms = 0;
    SctpChunk chunk;
  };
  SctpInit tester_init;
  SctpPeerInit iut_init;
  std::vector<Message> messages;
  // The SCTP ports the packets show; 0: kRecordedTesterPort and the next.
  std::uint16_t tester_port = 0;
  std::uint16_t iut_port = 0;
};

struct SctpPacket {
  bool from_tester = true;
  double at_ms = 0;
  std::vector<std::uint8_t> octets;  // the SCTP packet whole, common header on
};

// The tester's SCTP port in the packets when the record names none; the
// IUT's is the next one.
inline constexpr std::uint16_t kRecordedTesterPort = 40000;
// User data per DATA chunk at most: longer messages are fragmented.
inline constexpr std::size_t kRecordedFragment = 1200;

std::vector<SctpPacket> sctp_packets(const SctpExchange& record);

}  // namespace rdmaconf::conformance
