// Test support for hand-made DDP-over-SCTP captures (RFC 5043; SCTP RFC
// 9260, I-DATA RFC 8260, UDP encapsulation RFC 6951): chunk builders with
// the defaults the crafted captures share, and a raw-IP capture file of one
// association between two hosts. Used by pcap/tests/sctp_captures_test.cpp
// and dissector/tests/make_sctp_captures.cpp; the octets come from the
// reference codecs (reference/sctp/), the IP and UDP around them from
// capture::SctpRecorder, which `rdmaconf run --pcap` writes with too.
// Standard library, rdmaconf_codec and rdmaconf_capture_core only (no
// GoogleTest: a plain program includes it).
#pragma once

#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "capture/synth.hpp"
#include "capture/writer.hpp"
#include "sctp/messages.hpp"
#include "sctp/packet.hpp"

namespace rdmaconf::capture::testing::sctp_build {

using Octets = std::vector<std::uint8_t>;

inline constexpr std::uint32_t kDdp = sctp::kPpidDdpSegment, kControl = sctp::kPpidSessionControl;

// A DDP Segment Chunk (RFC 5043 §5.2.2): the DDP-SSN, then the segment.
inline Octets segment_chunk(std::uint16_t ssn, const Octets& ddp) {
  Octets out;
  sctp::encode_segment_chunk({.ddp_ssn = ssn, .ddp_segment = wire::Chunks(ddp)}, out);
  return out;
}
// A Session Control message (RFC 5043 §5.2.3).
inline Octets control(std::uint16_t ssn, sctp::FunctionCode f, const Octets& private_data = {}) {
  return sctp::encode_session_control(
      {.ddp_ssn = ssn, .function = f, .private_data = private_data, .raw_function_code = {}});
}

// A DATA or I-DATA chunk's flags: a whole unordered message unless said.
struct Flags {
  bool b = true, e = true, u = true;
};
// A DATA chunk (RFC 9260 §3.3.1) on stream 0, SSN 0.
inline Octets data(std::uint32_t tsn, std::uint32_t ppid, const Octets& user, Flags f = {}) {
  Octets out;
  sctp::encode_data_chunk({.tsn = tsn, .stream = 0, .ssn = 0, .ppid = ppid, .unordered = f.u, .beginning = f.b,
                           .ending = f.e, .user_data = user, .length = {}},
                          out);
  return out;
}
// An I-DATA chunk (RFC 8260 §2.1) on stream 0: `ppid` on a first fragment, `fsn` on the others.
inline Octets idata(std::uint32_t tsn, std::uint32_t mid, std::uint32_t ppid, std::uint32_t fsn, const Octets& user,
                    Flags f = {}) {
  Octets out;
  sctp::encode_idata_chunk({.tsn = tsn, .stream = 0, .mid = mid, .ppid = ppid, .fsn = fsn, .unordered = f.u,
                            .beginning = f.b, .ending = f.e, .user_data = user, .length = {}},
                           out);
  return out;
}
// An INIT or INIT ACK with one stream each way and, unless told otherwise,
// DDP's Adaptation Layer Indication (RFC 5043 §5.1) and Initiate Tag 7.
inline Octets init(bool ack, std::optional<std::uint32_t> indication = sctp::kAdaptationIndicationDdp,
                   std::uint32_t initiate_tag = 7) {
  Octets out;
  sctp::encode_init_chunk({.ack = ack, .initiate_tag = initiate_tag, .a_rwnd = 65536, .outbound_streams = 1,
                           .inbound_streams = 1, .initial_tsn = 0, .indication = indication},
                          out);
  return out;
}
// Chunks bundled in one packet (RFC 9260 §6.10).
inline Octets cat(std::initializer_list<Octets> parts) {
  Octets out;
  for (const Octets& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// Where a SctpCapture's packets travel.
struct Carriage {
  bool v6 = false;
  // The hosts' UDP ports (RFC 6951); 0 on both: IP protocol 132.
  std::uint16_t udp_initiator = 0, udp_responder = 0;
};

// A pcapng file of raw IP frames (LINKTYPE_RAW) holding SCTP packets
// between two documentation hosts.
class SctpCapture {
 public:
  static constexpr std::uint16_t kInitiatorPort = 40000, kResponderPort = 40001;

  SctpCapture(const std::string& path, Carriage how = {})
      : path_(path), out_(path, std::ios::binary), writer_(out_, FileFormat::kPcapng, LinkType::kRaw),
        sctp_(writer_, {host(how.v6, 1), how.udp_initiator}, {host(how.v6, 2), how.udp_responder}) {}
  // The writer and recorder hold references into the object: it stays where it was made.
  SctpCapture(const SctpCapture&) = delete;
  SctpCapture& operator=(const SctpCapture&) = delete;

  // One packet from the initiator (0) or the responder (1) with verification
  // tag 7; `checksum` forces the common header's CRC32c; `initiator_port`:
  // the initiator's SCTP port, when not the usual one.
  void packet(int from, const Octets& chunks, std::optional<std::uint32_t> checksum = std::nullopt,
              std::uint16_t initiator_port = kInitiatorPort) {
    const std::uint16_t source = from == 0 ? initiator_port : kResponderPort;
    const std::uint16_t destination = from == 0 ? kResponderPort : initiator_port;
    sctp_.send(from == 0, sctp::encode_packet({.source_port = source, .destination_port = destination,
                                               .verification_tag = 7, .chunks = chunks, .checksum = checksum}));
  }
  // The association's start: INIT and INIT ACK, each with the DDP indication.
  void start() {
    packet(0, init(false));
    packet(1, init(true));
  }
  // INIT and INIT ACK, then the Initiate and its Accept.
  void accepted() {
    start();
    packet(0, data(0, kControl, control(0, sctp::FunctionCode::kInitiate)));
    packet(1, data(0, kControl, control(0, sctp::FunctionCode::kAccept)));
  }
  // Closes the file; its path.
  std::string finish() {
    out_.close();
    return path_;
  }

 private:
  // 192.0.2.N or 2001:db8::N (RFC 5737, RFC 3849).
  static IpAddress host(bool v6, std::uint8_t n) {
    return v6 ? ipv6({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n}) : ipv4(192, 0, 2, n);
  }

  std::string path_;
  std::ofstream out_;
  CaptureWriter writer_;
  SctpRecorder sctp_;
};

}  // namespace rdmaconf::capture::testing::sctp_build
