// Synthesized Ethernet/IP/TCP framing for recorded byte exchanges: what
// `rdmaconf run --pcap DIR` wraps each case's exchange in, so that Wireshark
// sees an ordinary TCP connection (handshake, data, FIN) with correct
// checksums. The same builders make the hand-built frames of the tests.
// Standard library only.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "capture/decode.hpp"
#include "capture/types.hpp"
#include "capture/writer.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::capture {

using MacAddress = std::array<std::uint8_t, 6>;

// The Internet checksum (RFC 1071): ones' complement of the ones' complement
// sum of 16-bit words; `initial` carries a partial sum (a pseudo-header).
std::uint16_t internet_checksum(wire::Bytes data, std::uint32_t initial = 0);

struct TcpSegmentSpec {
  StreamKey key;
  SeqNum seq;
  SeqNum ack;
  TcpFlags flags;
  std::uint16_t window = 65535;
  wire::Bytes options;  // already encoded, a multiple of 4 octets
  wire::Bytes payload;
  std::uint8_t ttl = 64;
};

// An IPv4 or IPv6 packet (by the key's address version) carrying one TCP
// segment, IP header checksum (RFC 791 §3.1) and TCP checksum over the
// pseudo-header (RFC 9293 §3.1, RFC 8200 §8.1) filled in.
std::vector<std::uint8_t> build_ip_tcp(const TcpSegmentSpec& spec);
// An IPv4 or IPv6 packet (by the source's version) around `payload` of IP
// protocol `protocol` (an SCTP packet: 132), IPv4 header checksum filled in.
std::vector<std::uint8_t> build_ip(const IpAddress& source, const IpAddress& destination, std::uint8_t protocol,
                                   wire::Bytes payload, std::uint8_t ttl = 64);
// A UDP datagram in IP (RFC 768), its checksum filled in: SCTP's UDP
// encapsulation (RFC 6951) in the tests.
std::vector<std::uint8_t> build_ip_udp(const StreamKey& key, wire::Bytes payload);

// An Ethernet II frame around `payload`, with 802.1Q tags (outermost first)
// when vlan_ids is not empty.
std::vector<std::uint8_t> build_ethernet(const MacAddress& dst, const MacAddress& src, std::uint16_t ethertype,
                                         wire::Bytes payload, std::span<const std::uint16_t> vlan_ids = {});

// Options for a SYN: MSS, window scale, and SMC-R's experimental option
// (padded with two NOPs, as Linux sends it).
std::vector<std::uint8_t> encode_syn_options(const TcpOptions& options);

struct RecordedEndpoint {
  MacAddress mac{};
  IpAddress address;
  std::uint16_t port = 0;
  SeqNum isn;
};

// Records a byte exchange between two endpoints as a TCP connection:
// open() writes SYN, SYN-ACK, ACK; send() cuts data into MSS-sized segments
// and acknowledges them from the other side; close() writes FIN, FIN-ACK,
// ACK. Sequence and acknowledgment numbers track both directions.
class TcpRecorder {
 public:
  enum class Side : std::uint8_t { kClient, kServer };

  TcpRecorder(CaptureWriter& writer, RecordedEndpoint client, RecordedEndpoint server,
              Timestamp start = Timestamp{1'700'000'000'000'000'000}, std::uint16_t mss = 1460);

  // The SYNs announce the recorder's MSS unless an option says another, or
  // `announce_mss` is false: then a SYN carries an MSS option only when its
  // TcpOptions set one (a recording whose segments are the recorder's own
  // cut, not a sender's, announces none: docs/capture.md, "Recorded runs").
  void open(const TcpOptions& client_syn = {}, const TcpOptions& server_syn = {}, bool announce_mss = true);
  // `comment` goes on the first frame of this send.
  void send(Side from, wire::Bytes data, std::string_view comment = {});
  void close(Side first = Side::kClient);
  // `octets` that `from` sent and the capture missed: its sequence numbers
  // advance, no frame is written, and the peer's next ACK covers them (a
  // gap the analyzer sees as lost data, not as a retransmission to come).
  void lose(Side from, std::size_t octets);
  // An abortive close: `from` sends RST (RFC 9293 §3.5.2), nothing follows.
  void reset(Side from);
  // Moves the clock forward to `t` (never back), so that recorded frames can
  // carry the times they crossed the wire at.
  void advance_to(Timestamp t) {
    if (t.ns > now_.ns) now_ = t;
  }

  // Sequence number of the next octet each side sends.
  SeqNum next_seq(Side s) const { return side(s).next; }
  Timestamp now() const { return now_; }

 private:
  struct State {
    RecordedEndpoint ep;
    SeqNum next;
  };
  State& side(Side s) { return s == Side::kClient ? client_ : server_; }
  const State& side(Side s) const { return s == Side::kClient ? client_ : server_; }
  void emit(Side from, TcpFlags flags, wire::Bytes options, wire::Bytes payload, std::string_view comment);

  CaptureWriter& writer_;
  State client_, server_;
  Timestamp now_;
  std::uint16_t mss_;
};

// Records SCTP packets between two hosts as raw IP frames (the writer's
// link type LinkType::kRaw): each packet whole, common header on, in IP
// protocol 132 (RFC 9260 §1.1), or in a UDP datagram (RFC 6951 §5) when
// the hosts name their UDP ports. Host `a` is the one that sends the INIT.
// What goes in is already an SCTP packet (sctp::encode_packet): this adds
// only IP, UDP and the clock. What `rdmaconf run --pcap DIR` writes for an
// association, and the raw-IP captures of the tests.
class SctpRecorder {
 public:
  struct Host {
    IpAddress address;
    std::uint16_t udp_port = 0;  // the encapsulation's port; 0 on both hosts: IP protocol 132
  };
  // Frames are `step_ns` apart unless advance_to() moves the clock further.
  SctpRecorder(CaptureWriter& writer, Host a, Host b, Timestamp start = Timestamp{1'700'000'000'000'000'000},
               std::int64_t step_ns = 1'000);

  // One SCTP packet from host a (`from_a`) or b; `comment` on its frame.
  void send(bool from_a, wire::Bytes sctp_packet, std::string_view comment = {});
  void advance_to(Timestamp t) {
    if (t.ns > now_.ns) now_ = t;
  }
  Timestamp now() const { return now_; }
  bool over_udp() const { return a_.udp_port != 0 || b_.udp_port != 0; }

 private:
  CaptureWriter& writer_;
  Host a_, b_;
  Timestamp now_;
  std::int64_t step_ns_;
};

}  // namespace rdmaconf::capture
