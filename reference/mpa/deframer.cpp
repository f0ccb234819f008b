#include "mpa/deframer.hpp"

#include <array>

#include "mpa/marker_layout.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::mpa {
namespace {

// A Marker's fields, read through its declaration (RFC 5044 §4.3).
std::uint16_t marker_field(wire::Bytes fpdu, std::size_t marker, MarkerSpec::Field f) {
  return static_cast<std::uint16_t>(MarkerHeader::read(fpdu.subspan(marker, kMarkerSize), f));
}

// The FPDUPTR a Marker must carry (fpdu_ptr_distance), capped at 2^16: a
// distance beyond 16 bits can never match.
std::uint32_t expected_fpdu_ptr(std::size_t marker, std::size_t header_at) {
  return static_cast<std::uint32_t>(std::min<std::size_t>(fpdu_ptr_distance(marker, header_at), 0x10000));
}

}  // namespace

MarkerSeen MarkerList::operator[](std::size_t i) const {
  const std::size_t m = first_ + i * kMarkerInterval;
  MarkerSeen seen;
  seen.stream_position = position_ + m;
  seen.reserved = marker_field(fpdu_, m, MarkerSpec::Field::Reserved);
  seen.fpdu_ptr = marker_field(fpdu_, m, MarkerSpec::Field::FPDUPTR);
  const std::uint32_t expected = expected_fpdu_ptr(m, header_at_);
  seen.expected_fpdu_ptr = static_cast<std::uint16_t>(expected);
  seen.valid = seen.fpdu_ptr == expected;
  return seen;
}

DeframeResult Deframer::fail(DeframeError e) {
  error_ = e;
  return e;
}

DeframeResult Deframer::next(wire::Bytes u) {
  if (error_) return *error_;
  const MarkerLayout layout(position_, config_.markers);

  // The ULPDU_Length field: two logical octets, possibly split by a Marker.
  const std::size_t header_at = layout.offset_of(0);
  const std::size_t header_second = layout.offset_of(1);
  if (u.size() <= header_second) return NeedMore{header_second + 1};
  const std::uint8_t length_octets[kUlpduLengthSize] = {u[header_at], u[header_second]};
  const std::uint16_t ulpdu_length = static_cast<std::uint16_t>(
      FpduHeader::read(wire::Bytes(length_octets), FpduHeaderSpec::Field::ULPDU_Length));

  if (ulpdu_length > config_.max_ulpdu_length) {
    const wire::FieldDecl& d = FpduHeader::field_decl(FpduHeaderSpec::Field::ULPDU_Length);
    return fail({LlpErrorCode::kMarkerFpduStartMismatch,
                 wire::DecodeError{d.name, "exceeds the receive limit (MULPDU)", d.rfc_section, header_at},
                 position_});
  }

  const std::size_t pad = pad_length(ulpdu_length);
  const std::size_t logical = fpdu_length_without_markers(ulpdu_length);
  const std::size_t total = layout.span_of(logical);
  if (u.size() < total) return NeedMore{total};
  const wire::Bytes fpdu = u.first(total);

  Fpdu out;
  out.stream_position = position_;
  out.consumed = total;
  out.ulpdu_length = ulpdu_length;
  out.pad_length = pad;

  // Where the Markers are is arithmetic; where the CRC field starts follows:
  // at the end unless a Marker falls among the PAD and CRC octets.
  const std::size_t marker_count = layout.markers_before(logical);
  const std::size_t last_marker = marker_count ? layout.first_marker() + (marker_count - 1) * kMarkerInterval : 0;
  const std::size_t tail = pad + kCrcSize;
  const bool tail_contiguous = marker_count == 0 || last_marker + kMarkerSize <= total - tail;
  const std::size_t crc_at = tail_contiguous ? total - kCrcSize : layout.offset_of(logical - kCrcSize);

  // RFC 5044 §4.4: the CRC covers the FPDU's octets before its first CRC
  // octet, Markers included. Computed first: it streams the FPDU through
  // the cache, so the Marker and tail reads below hit it.
  if (config_.crc) out.computed_crc = wire::crc32c(fpdu.first(crc_at));

  // One walk over the Markers (RFC 5044 §4.3) does two things: each Marker
  // must point back to this FPDU's ULPDU_Length field (only a Marker in
  // front of the header carries 0; every later one its distance back), and
  // the ULPDU's views are cut at the Markers that interrupt it.
  std::optional<std::size_t> bad_marker;
  ulpdu_.clear();
  std::size_t piece_at = layout.offset_of(kUlpduLengthSize);
  std::size_t ulpdu_left = ulpdu_length;
  for (std::size_t i = 0, m = layout.first_marker(); i < marker_count; ++i, m += kMarkerInterval) {
    const std::uint32_t expected = expected_fpdu_ptr(m, header_at);
    if (!bad_marker && marker_field(fpdu, m, MarkerSpec::Field::FPDUPTR) != expected) bad_marker = m;
    if (ulpdu_left > 0 && m >= piece_at) {
      const std::size_t n = std::min(ulpdu_left, m - piece_at);
      ulpdu_.append(fpdu.subspan(piece_at, n));
      ulpdu_left -= n;
      piece_at = m + kMarkerSize;
    }
  }
  if (ulpdu_left > 0) ulpdu_.append(fpdu.subspan(piece_at, ulpdu_left));
  out.markers.fpdu_ = fpdu;
  out.markers.first_ = layout.first_marker();
  out.markers.header_at_ = header_at;
  out.markers.position_ = position_;
  out.markers.count_ = marker_count;
  out.ulpdu_ = &ulpdu_;

  // PAD (sent as zero, not checked on receipt: reported) and the CRC field,
  // carried least significant octet first.
  std::array<std::uint8_t, kCrcSize> crc_octets{};
  if (tail_contiguous) {
    for (std::size_t i = total - tail, k = 0; i < crc_at; ++i, ++k) {
      out.pad_nonzero |= fpdu[i] != 0;
      if (k < out.pad.size()) out.pad[k] = fpdu[i];
    }
    for (std::size_t i = 0; i < kCrcSize; ++i) crc_octets[i] = fpdu[crc_at + i];
  } else {
    std::size_t k = 0;
    layout.for_each_piece(fpdu, kUlpduLengthSize + ulpdu_length, logical - kCrcSize, [&](wire::Bytes piece) {
      for (std::uint8_t o : piece) {
        out.pad_nonzero |= o != 0;
        if (k < out.pad.size()) out.pad[k++] = o;
      }
    });
    std::size_t filled = 0;
    layout.for_each_piece(fpdu, logical - kCrcSize, logical, [&](wire::Bytes piece) {
      for (std::uint8_t o : piece) crc_octets[filled++] = o;
    });
  }
  out.received_crc = wire::crc32c_from_wire(crc_octets);
  if (config_.crc) out.crc_status = out.computed_crc == out.received_crc ? CrcStatus::kMatch : CrcStatus::kMismatch;

  if (config_.fail_on_error) {
    if (bad_marker) {
      const wire::FieldDecl& d = MarkerHeader::field_decl(MarkerSpec::Field::FPDUPTR);
      return fail({LlpErrorCode::kMarkerFpduStartMismatch,
                   wire::DecodeError{d.name, "does not point back to the FPDU's ULPDU_Length", d.rfc_section,
                                     *bad_marker + 2},
                   position_});
    }
    if (out.crc_status == CrcStatus::kMismatch) {
      const wire::FieldDecl& d = CrcTrailer::field_decl(CrcTrailerSpec::Field::CRC);
      return fail({LlpErrorCode::kCrcError,
                   wire::DecodeError{d.name, "does not match the CRC32c of the received FPDU", d.rfc_section,
                                     crc_at},
                   position_});
    }
  }
  position_ += total;
  return out;
}

}  // namespace rdmaconf::mpa
