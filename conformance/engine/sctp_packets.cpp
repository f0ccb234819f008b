// sctp_packets (sctp_packets.hpp).
#include "engine/sctp_packets.hpp"

#include <algorithm>
#include <map>

#include "sctp/packet.hpp"

namespace rdmaconf::conformance {
namespace {

// Each side's Initiate Tag and initial TSN in the synthesized INIT and INIT ACK.
constexpr std::uint32_t kTesterTag = 0x7e57e401, kIutTag = 0x1a7e0001;
constexpr std::uint32_t kTesterTsn = 1000, kIutTsn = 5000;

struct Direction {
  std::uint16_t source = 0, destination = 0;
  std::uint32_t tag = 0;  // the peer's Initiate Tag
  std::uint32_t tsn = 0;  // the next TSN
  std::map<std::uint16_t, std::uint16_t> ssn;  // the next SSN per stream, ordered chunks
};

std::vector<std::uint8_t> packet(const Direction& d, std::uint32_t tag, const std::vector<std::uint8_t>& chunks) {
  sctp::PacketFields f;
  f.source_port = d.source;
  f.destination_port = d.destination;
  f.verification_tag = tag;
  f.chunks = wire::Bytes(chunks);
  return sctp::encode_packet(f);
}

}  // namespace

std::vector<SctpPacket> sctp_packets(const SctpExchange& rec) {
  std::vector<SctpPacket> out;
  Direction tester, iut;
  tester.source = iut.destination = rec.tester_port ? rec.tester_port : kRecordedTesterPort;
  iut.source = tester.destination = rec.iut_port ? rec.iut_port : static_cast<std::uint16_t>(tester.source + 1);
  tester.tag = kIutTag, tester.tsn = kTesterTsn;
  iut.tag = kTesterTag, iut.tsn = kIutTsn;

  std::vector<std::uint8_t> chunk;
  sctp::InitChunkFields init;
  init.initiate_tag = kTesterTag;
  init.outbound_streams = init.inbound_streams = rec.tester_init.streams;
  init.initial_tsn = kTesterTsn;
  init.indication = rec.tester_init.indication;
  sctp::encode_init_chunk(init, chunk);
  // RFC 9260 §8.5.1: an INIT's Verification Tag is zero.
  out.push_back({true, 0, packet(tester, 0, chunk)});
  chunk.clear();
  init.ack = true;
  init.initiate_tag = kIutTag;
  init.outbound_streams = rec.iut_init.outbound_streams;
  init.inbound_streams = rec.iut_init.inbound_streams;
  init.initial_tsn = kIutTsn;
  init.indication = rec.iut_init.indication;
  sctp::encode_init_chunk(init, chunk);
  out.push_back({false, 0, packet(iut, kTesterTag, chunk)});

  for (const SctpExchange::Message& m : rec.messages) {
    Direction& d = m.from_tester ? tester : iut;
    const std::vector<std::uint8_t>& data = m.chunk.octets;
    // A DATA chunk carries at least one octet (RFC 9260 §3.3.1): an empty
    // message is shown as one chunk of none all the same.
    const std::uint16_t ssn = m.chunk.unordered ? 0 : d.ssn[m.chunk.stream]++;
    std::size_t at = 0;
    do {
      const std::size_t n = std::min(kRecordedFragment, data.size() - at);
      chunk.clear();
      sctp::DataChunkFields f;
      f.tsn = d.tsn++;
      f.stream = m.chunk.stream;
      f.ssn = ssn;
      f.ppid = m.chunk.ppid;
      f.unordered = m.chunk.unordered;
      f.beginning = at == 0;
      f.ending = at + n == data.size();
      f.user_data = wire::Bytes(data.data() + at, n);
      sctp::encode_data_chunk(f, chunk);
      out.push_back({m.from_tester, m.at_ms, packet(d, d.tag, chunk)});
      at += n;
    } while (at < data.size());
  }
  return out;
}

}  // namespace rdmaconf::conformance
