// A streaming FPDU deframer (RFC 5044 §4.1, §4.3, §4.4), zero-copy and
// incremental in the Boost.Beast parser style.
//
// The caller owns a receive buffer of the stream octets not yet consumed
// and calls next() with all of them. next() returns one of:
//   NeedMore      the buffer must hold at least `at_least` octets (counted
//                 from its start) before next() can say more; call again
//                 with the same octets plus new ones;
//   Fpdu          one complete FPDU: its ULPDU as views into the buffer
//                 (Markers removed), the PAD, both CRCs, every Marker with
//                 its FPDUPTR and validity, and `consumed`, the stream
//                 octets it occupied; the next call must start at
//                 buffer + consumed (the deframer has moved on);
//   DeframeError  a violation, with the LLP error code the RFC wants sent
//                 in a Terminate. The deframer stays failed.
// The views in an Fpdu stay valid while the buffer does and until the next
// call to next(). Nothing is copied but the 2-octet header and 4-octet CRC,
// nothing is allocated per FPDU once the scratch lists have grown to the
// FPDU size in use, and the CRC is computed over the received octets as
// they lie (the octets it covers, Markers included, are contiguous).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "mpa/errors.hpp"
#include "mpa/headers.hpp"
#include "wire/bytes.hpp"
#include "wire/chunks.hpp"
#include "wire/result.hpp"

namespace rdmaconf::mpa {

struct DeframerConfig {
  bool markers = false;  // negotiated: our own M
  bool crc = true;       // negotiated: C in either frame
  // Limit on ULPDU_Length (our MULPDU); larger values are a framing error
  // before any octet of that FPDU is awaited.
  std::uint16_t max_ulpdu_length = 0xffff;
  // Octets of full operation already consumed (0 for a new connection).
  std::uint64_t stream_position = 0;
  // true: a bad CRC or Marker is a DeframeError. false: it is reported in
  // the Fpdu (crc_status, markers[i].valid) and deframing goes on, for
  // analyzers and conformance runs that want to see everything.
  bool fail_on_error = true;
};

struct MarkerSeen {
  std::uint64_t stream_position = 0;  // of the Marker's first octet
  std::uint16_t reserved = 0;         // ignored on receipt, reported
  std::uint16_t fpdu_ptr = 0;
  std::uint16_t expected_fpdu_ptr = 0;
  bool valid = false;
};

// The Markers inside one FPDU, decoded on demand from the received octets
// (the deframer validates every FPDUPTR but records nothing per Marker, so
// the common path stays free of per-Marker bookkeeping).
class MarkerList {
 public:
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  MarkerSeen operator[](std::size_t i) const;

 private:
  friend class Deframer;
  wire::Bytes fpdu_;             // the FPDU's stream octets
  std::size_t first_ = 0;        // offset of the first Marker in them
  std::size_t header_at_ = 0;    // offset of ULPDU_Length's first octet
  std::uint64_t position_ = 0;   // stream position of fpdu_[0]
  std::size_t count_ = 0;
};

enum class CrcStatus : std::uint8_t { kNotChecked, kMatch, kMismatch };

struct Fpdu {
  std::uint64_t stream_position = 0;  // of the FPDU's first octet (a leading Marker if any)
  std::size_t consumed = 0;           // stream octets, Markers included
  std::uint16_t ulpdu_length = 0;
  std::size_t pad_length = 0;
  bool pad_nonzero = false;           // PAD is sent as zero, ignored on receipt (reported)
  std::array<std::uint8_t, 3> pad{};  // the PAD octets as received (first pad_length)
  std::uint32_t received_crc = 0;
  std::uint32_t computed_crc = 0;     // 0 when CRC is off
  CrcStatus crc_status = CrcStatus::kNotChecked;
  MarkerList markers;

  const wire::Chunks& ulpdu() const { return *ulpdu_; }

 private:
  friend class Deframer;
  const wire::Chunks* ulpdu_ = nullptr;
};

struct NeedMore {
  std::size_t at_least = 0;
};

struct DeframeError {
  LlpErrorCode terminate_code = LlpErrorCode::kMarkerFpduStartMismatch;
  wire::DecodeError detail;           // offset counts from the FPDU's first octet
  std::uint64_t stream_position = 0;  // of the FPDU's first octet
};

using DeframeResult = std::variant<NeedMore, Fpdu, DeframeError>;

class Deframer {
 public:
  explicit Deframer(DeframerConfig config = {}) : config_(config), position_(config.stream_position) {}
  Deframer(const Deframer&) = delete;  // Fpdu views point into this object
  Deframer& operator=(const Deframer&) = delete;

  DeframeResult next(wire::Bytes unconsumed);

  std::uint64_t stream_position() const { return position_; }
  bool failed() const { return error_.has_value(); }
  const DeframerConfig& config() const { return config_; }

 private:
  DeframeResult fail(DeframeError e);

  DeframerConfig config_;
  std::uint64_t position_;
  std::optional<DeframeError> error_;
  // Scratch list reused from FPDU to FPDU (its capacity is kept).
  wire::Chunks ulpdu_;
};

}  // namespace rdmaconf::mpa
