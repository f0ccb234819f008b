// Frame decoding: from the octets a capture stored for one frame to the TCP
// segment it carries. Walks the link layer (Ethernet II with stacked VLAN
// tags, Linux cooked v1/v2, raw IP, BSD loopback), IPv4 (options skipped,
// fragments reported) or IPv6 (extension headers walked with bounds), and TCP
// (options walked; the SMC-R experimental option recognised).
//
// Pure parsing: standard library only, no allocation, every read bounds-checked,
// so it runs under a fuzzer as is. A frame that cannot be used is reported
// (ReportSink) and skipped; one that is usable but imperfect (snaplen cut in
// the payload, broken TCP options) is reported AND returned.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "capture/headers.hpp"
#include "clc/tcp_option.hpp"
#include "capture/report.hpp"
#include "capture/types.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::capture {

// One frame as the capture stored it. `captured` is a view into the reader's
// buffer, valid until the reader's next call.
struct RawFrame {
  FrameNumber number;
  Timestamp time;
  LinkType link = LinkType::kEthernet;
  wire::Bytes captured;
  std::uint32_t original_length = 0;  // the frame's length on the wire
};

struct UdpDatagram;
struct SctpPacket;

class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual void on_report(const Report& r) = 0;
  // A sink that wants UDP datagrams (the SMC-R analysis: RoCEv2 is UDP)
  // says so; the decoder then hands each one to on_udp, and reports it as
  // "not TCP" only when on_udp does not take it. Other sinks see UDP as
  // before: reported and skipped.
  virtual bool wants_udp() const { return false; }
  virtual bool on_udp(const UdpDatagram&) { return false; }
  // The same for SCTP over IP (protocol 132: iWARP's DDP/SCTP adaptation
  // layer, RFC 5043): a sink that wants it takes each packet in on_sctp.
  virtual bool wants_sctp() const { return false; }
  virtual bool on_sctp(const SctpPacket&) { return false; }
};

// The TCP options the reassembler and the protocol detectors care about.
struct TcpOptions {
  std::optional<std::uint16_t> mss;
  std::optional<std::uint8_t> window_scale;
  bool sack_permitted = false;
  bool timestamps = false;
  bool smc = false;  // kind 254, ExID 0xE2D4C3D9: the sender offers SMC (RFC 7609)
  // Every experimental option (kinds 253, 254) as sent, the first two: the
  // SMC option's form is judged from them (check/smc_tcp.hpp).
  clc::SynExperimentalOptions experimental;
};

struct TcpFlags {
  bool cwr = false, ece = false, urg = false, ack = false, psh = false, rst = false, syn = false,
       fin = false;
};

inline constexpr std::size_t kMaxVlanTags = 4;

struct TcpSegment {
  FrameNumber frame;
  Timestamp time;
  StreamKey key;  // source -> destination of this segment
  std::array<std::uint16_t, kMaxVlanTags> vlan_ids{};  // outermost first
  std::uint8_t vlan_count = 0;
  SeqNum seq;
  SeqNum ack;
  TcpFlags flags;
  std::uint16_t window = 0;
  TcpOptions options;
  // The payload octets the capture holds (a view into the frame) and the
  // number the IP header says the segment carried; they differ when the
  // frame was cut by the snaplen, and the difference is a gap downstream.
  wire::Bytes payload;
  std::uint32_t payload_length = 0;
};

// One UDP datagram whose octets the capture holds completely (a datagram
// cut by the snaplen is reported as kSnaplenCut instead). `payload` is a
// view into the frame.
struct UdpDatagram {
  FrameNumber frame;
  Timestamp time;
  StreamKey key;  // source -> destination
  std::array<std::uint16_t, kMaxVlanTags> vlan_ids{};
  std::uint8_t vlan_count = 0;
  wire::Bytes payload;
};

// One SCTP packet over IP, common header on (RFC 9260 §3), that the capture
// holds completely. `key` holds the IP addresses (ports 0: SCTP's are in
// the packet); `packet` is a view into the frame.
struct SctpPacket {
  FrameNumber frame;
  Timestamp time;
  StreamKey key;
  std::array<std::uint16_t, kMaxVlanTags> vlan_ids{};
  std::uint8_t vlan_count = 0;
  wire::Bytes packet;
};

// Decodes one frame. Returns the TCP segment it carries, or nullopt when it
// carries none (reported to `sink` with the reason, except for nothing).
std::optional<TcpSegment> decode_frame(const RawFrame& frame, ReportSink& sink);

// The connection a frame's TCP segment belongs to, read from the headers
// alone, without decoding the frame (analyze -j: the reader keys every
// frame to hand it to its connection's worker, analysis/parallel.hpp): the segment's
// key as decode_frame would return it, for the common frames only
// (Ethernet or Linux cooked v1/v2, with up to four VLAN tags, or raw IP;
// IPv4 not fragmented, or IPv6 without extension headers; TCP). nullopt for
// any other frame, which
// decode_frame then decides. A frame this keys may still be one that
// decode_frame rejects (a bad length, a short TCP header): the key is that
// of the segment only when there is one.
std::optional<StreamKey> tcp_key_of(const RawFrame& frame);

// What tcp_key_of reads, left in the frame: the two addresses (source then
// destination, as the IP header carries them) and the two ports (the TCP
// header's first four octets), for a caller that compares frames' keys
// without making one (the walk of analyze -j, which sees runs of one
// connection's frames). tcp_key_of(frame) is stream_key_of(*tcp_key_octets(frame)).
struct TcpKeyOctets {
  IpVersion version = IpVersion::kV4;
  wire::Bytes addresses;  // 2 x address_octets(version)
  wire::Bytes ports;      // 4
};
std::optional<TcpKeyOctets> tcp_key_octets(const RawFrame& frame);
StreamKey stream_key_of(const TcpKeyOctets& k);

// The TCP options walk on its own (RFC 9293 §3.1, RFC 6994 §3), for tests and
// for the printer: fills `out`, returns the first malformation if any.
wire::Status parse_tcp_options(wire::Bytes options, TcpOptions& out);

}  // namespace rdmaconf::capture
