#include "mpa/framer.hpp"

#include <algorithm>

#include "mpa/marker_layout.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::mpa {

std::size_t Framer::frame(wire::Bytes ulpdu, std::vector<std::uint8_t>& out, const FramerOverrides& o) {
  return frame(wire::Chunks(ulpdu), out, o);
}

// The FPDU's size is known before its first octet is written, so it is laid
// out in place: the logical octets (RFC 5044 §4.1) around the places of the
// Markers, then the Markers (§4.3), then the CRC over all of that (§4.4).
std::size_t Framer::frame(const wire::Chunks& ulpdu, std::vector<std::uint8_t>& out, const FramerOverrides& o) {
  const std::size_t pad = o.pad_length.value_or(pad_length(ulpdu.size()));
  const std::size_t logical = kUlpduLengthSize + ulpdu.size() + pad + kCrcSize;
  const MarkerLayout layout(position_, config_.markers && !o.omit_markers);
  const std::size_t total = layout.span_of(logical);
  const std::size_t start = out.size();
  out.resize(start + total);
  const wire::MutableBytes fpdu = wire::MutableBytes(out).subspan(start);

  // Logical octets [from, from + octets.size()) go around the Markers' places.
  const auto place = [&](std::size_t from, wire::Bytes octets) {
    layout.for_each_piece(fpdu, from, from + octets.size(), [&](wire::MutableBytes piece) {
      std::copy_n(octets.begin(), piece.size(), piece.begin());
      octets = octets.subspan(piece.size());
    });
  };
  FpduHeader header;
  header.set(FpduHeaderSpec::Field::ULPDU_Length,
             o.ulpdu_length.value_or(static_cast<std::uint16_t>(ulpdu.size())));
  place(0, header.bytes());
  std::size_t at = kUlpduLengthSize;
  ulpdu.for_each([&](wire::Bytes piece) {
    place(at, piece);
    at += piece.size();
  });
  layout.for_each_piece(fpdu, at, at + pad, [&](wire::MutableBytes piece) {
    std::fill(piece.begin(), piece.end(), o.pad_octet);
  });

  // RFC 5044 §4.3: every Marker inside the FPDU points back to its
  // ULPDU_Length (fpdu_ptr_distance).
  const std::size_t header_at = layout.offset_of(0);
  for (std::size_t m = layout.first_marker(); m < total; m += kMarkerInterval) {
    MarkerHeader marker;
    marker.set(MarkerSpec::Field::Reserved, o.marker_reserved);
    marker.set(MarkerSpec::Field::FPDUPTR,
               o.fpdu_ptr.value_or(static_cast<std::uint16_t>(fpdu_ptr_distance(m, header_at))));
    std::copy_n(marker.bytes().begin(), kMarkerSize, fpdu.begin() + static_cast<std::ptrdiff_t>(m));
  }

  // RFC 5044 §4.4: the CRC covers every octet of the FPDU before the CRC
  // field, Markers included (also one that falls right before the CRC).
  const std::size_t crc_logical = logical - kCrcSize;
  std::uint32_t crc = 0;
  if (o.crc)
    crc = *o.crc;
  else if (config_.crc)
    crc = wire::crc32c(fpdu.first(layout.offset_of(crc_logical)));
  place(crc_logical, wire::crc32c_wire_octets(crc));
  position_ += total;
  return total;
}

std::size_t Framer::fpdu_size(std::size_t ulpdu_length) const {
  return MarkerLayout(position_, config_.markers).span_of(fpdu_length_without_markers(ulpdu_length));
}

std::size_t Framer::max_ulpdu_length(std::size_t fpdu_budget) const {
  const std::size_t overhead = kUlpduLengthSize + kCrcSize;
  // A ULPDU that leaves room for the most PAD (3) and for every Marker the
  // whole budget could hold fits; fpdu_size() never shrinks as the ULPDU
  // grows, so walk up from there (a few steps: PAD and a Marker or two).
  const std::size_t room = kMarkerSize * MarkerLayout(position_, config_.markers).markers_before(fpdu_budget);
  std::size_t n = fpdu_budget > overhead + 3 + room ? fpdu_budget - overhead - 3 - room : 0;
  n = std::min<std::size_t>(n, 0xffff);
  while (n < 0xffff && fpdu_size(n + 1) <= fpdu_budget) ++n;
  return n;
}

}  // namespace rdmaconf::mpa
