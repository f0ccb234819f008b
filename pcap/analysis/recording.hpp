// Recording a byte exchange as a capture: what `rdmaconf run --pcap DIR`
// calls for each conformance case. The engine hands over the octets each side
// sent, in the order they crossed the wire, and gets a pcapng file with
// synthesized Ethernet/IPv4/TCP framing (handshake, data cut at `mss` octets
// and acknowledged, FIN) that Wireshark and `rdmaconf analyze` open like any
// capture. The SYNs announce no MSS: the segments are the recorder's, not the
// senders', so analyze does not judge how they segmented (RFC 5044 §5.1). Standard library only (no libpcap: the writer is ours).
//
//   ExchangeRecorder rec(case_capture_path(dir, "rfc5044-7.1.1-pd-length-max"));
//   rec.add(Side::kInitiator, request_octets, "MPA Request with PD_Length 513");
//   rec.add(Side::kResponder, reply_octets);
//   rec.close();
#pragma once

#include <cstdint>
#include <fstream>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/observer.hpp"
#include "capture/synth.hpp"
#include "capture/writer.hpp"

namespace rdmaconf::analysis {

struct RecordingOptions {
  capture::FileFormat format = capture::FileFormat::kPcapng;
  std::uint16_t initiator_port = 40000;
  std::uint16_t responder_port = 20000;  // no well-known port: detection is by content
  std::uint16_t mss = 1460;  // where data is cut (not announced in the SYNs)
  bool smc_option = false;  // both SYNs offer SMC (RFC 7609 §3.1), for CLC cases
};

// One chunk of an exchange: octets one side sent, with an optional comment
// for the first frame that carries them (Wireshark's frame.comment).
struct RecordedChunk {
  Side from = Side::kInitiator;
  std::vector<std::uint8_t> octets;
  std::string comment;
  double at_ms = -1;  // when it crossed the wire, since the connection opened; < 0: not known
};

// Writes the capture as chunks arrive. Thread-safe: an endpoint's I/O
// thread and the engine may both add. The file is complete after close()
// (or destruction); a write failure shows in ok().
class ExchangeRecorder {
 public:
  explicit ExchangeRecorder(const std::string& path, RecordingOptions options = {});
  ~ExchangeRecorder();
  ExchangeRecorder(const ExchangeRecorder&) = delete;
  ExchangeRecorder& operator=(const ExchangeRecorder&) = delete;

  // `at_ms` >= 0 stamps the frames that many milliseconds after the
  // handshake (times never go backwards); otherwise frames are 10 µs apart.
  void add(Side from, wire::Bytes octets, std::string_view comment = {}, double at_ms = -1);
  // Writes the FIN exchange (once) and flushes; returns ok().
  bool close(Side first = Side::kInitiator);
  // Ends the connection with a RST from `from` instead (once); returns ok().
  bool abort(Side from);
  bool ok() const;

 private:
  std::mutex mu_;
  std::ofstream out_;
  std::unique_ptr<capture::CaptureWriter> writer_;
  std::unique_ptr<capture::TcpRecorder> tcp_;
  capture::Timestamp opened_;
  bool closed_ = false;
};

// The whole exchange at once.
bool write_exchange(const std::string& path, std::span<const RecordedChunk> chunks, const RecordingOptions& options = {});

// One SCTP packet of a recorded association: what `rdmaconf run --pcap DIR`
// writes for a case over SCTP (RFC 5043), whose packets the engine puts
// back together from its record (conformance/engine/sctp_packets.hpp).
struct RecordedSctpPacket {
  Side from = Side::kInitiator;  // the initiator sent the INIT
  std::vector<std::uint8_t> octets;  // the SCTP packet whole, common header on
  std::string comment;
  double at_ms = -1;  // since the INIT; < 0: not known
};

// The association as raw IP frames (LINKTYPE_RAW) between the documentation
// addresses of the TCP recordings, each packet in IP protocol 132: Wireshark
// and `rdmaconf analyze` read it as SCTP on any port, with no decode-as
// (docs/sctp-ddp.md says why not in UDP). Frames 1 µs apart unless their
// times say later.
bool write_sctp_association(const std::string& path, std::span<const RecordedSctpPacket> packets,
                            capture::FileFormat format = capture::FileFormat::kPcapng);

// DIR/<case id>.pcapng, with characters other than [A-Za-z0-9._-] replaced by '_'.
std::string case_capture_path(const std::string& dir, std::string_view case_id);

}  // namespace rdmaconf::analysis
