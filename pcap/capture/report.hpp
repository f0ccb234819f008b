// What the capture layer tells its user about input it could not use as-is.
// Nothing is dropped silently: a frame that is skipped, octets that are
// missing, data that disagrees with itself, a limit that was hit: each is one
// Report naming the frame(s) and, for stream problems, the stream and offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "capture/types.hpp"
#include "wire/result.hpp"

namespace rdmaconf::capture {

enum class ReportKind : std::uint8_t {
  // Per frame, from the decoder (detail says which field and rule).
  kMalformedFrame,        // a header is broken; the frame is skipped
  kUnsupportedLinkType,   // the capture's link type is not one we decode
  kNotTcp,                // IP traffic other than TCP (or non-IP), skipped
  kIpFragment,            // an IP fragment; fragments are not reassembled
  kSnaplenCut,            // the capture stored fewer octets than the frame had
  kMalformedTcpOptions,   // the options area is broken; the segment is still used
  // Per stream, from the reassembler.
  kMidStreamStart,        // no SYN seen: the stream starts at the first captured octet
  kRetransmission,        // octets seen before and identical (counted, not an error)
  kConflictingOverlap,    // octets seen twice with different values
  kGap,                   // octets that were sent but are not in the capture
  kBufferLimit,           // a memory bound was hit; held data was flushed early
  kConnectionLimit,       // too many connections; the least recently active was closed
  kDataBeforeStreamStart, // octets before the first one the stream began with
  kDataAfterFin,          // octets beyond the sender's FIN, or after its RST
  kLateData,              // octets for a range already reported as a gap
  kReset,                 // RST seen; the connection ends
  // Per file, from the reader.
  kTruncatedFile,         // the file ends inside a record
  kReadError,             // the reader could not continue
  // Per live capture, at its end.
  kKernelDrop,            // frames the kernel dropped before we read them (value: how many)
};
std::string_view report_kind_name(ReportKind k);

// Why a stretch of stream octets is absent.
enum class GapCause : std::uint8_t {
  kNotCaptured,   // the peer acknowledged it, or the capture ended, but we never saw it
  kSnaplen,       // the frame was captured only partly
  kBufferLimit,   // held data was flushed because a memory bound was hit
};
std::string_view gap_cause_name(GapCause c);

struct StreamKey {
  Endpoint source;
  Endpoint destination;
  friend auto operator<=>(const StreamKey&, const StreamKey&) = default;
  std::string to_string() const;  // "192.0.2.1:5000 -> 192.0.2.2:80"
};

// A TCP connection whichever way a segment runs: its two endpoints in
// order, so both directions give one key. The reassembler's table and the
// table that shares a capture's connections among threads (analysis/
// parallel_file.cpp) use it.
struct ConnectionKey {
  Endpoint a, b;  // a <= b
  // True when `k` runs from a to b.
  static bool forward(const StreamKey& k) { return k.source < k.destination; }
  static ConnectionKey of(const StreamKey& k) {
    return forward(k) ? ConnectionKey{k.source, k.destination} : ConnectionKey{k.destination, k.source};
  }
  friend bool operator==(const ConnectionKey&, const ConnectionKey&) = default;
  struct Hash {
    std::size_t operator()(const ConnectionKey& k) const;
  };
};

struct Report {
  ReportKind kind = ReportKind::kMalformedFrame;
  FrameNumber frame;        // the frame that showed the problem (0: none, e.g. end of capture)
  FrameNumber other_frame;  // kConflictingOverlap: the frame that carried the first copy
  bool has_stream = false;
  StreamKey stream;         // when has_stream
  StreamOffset offset = 0;  // stream offset (stream reports) or octet offset in the frame
  std::uint64_t length = 0; // octets concerned
  GapCause gap_cause = GapCause::kNotCaptured;  // kGap
  std::uint64_t value = 0;  // kNotTcp: the EtherType or IP protocol; kUnsupportedLinkType: the link type
  wire::DecodeError detail; // decoder reports: field, rule and section

  std::string to_string() const;
};

}  // namespace rdmaconf::capture
