#include "mpa/framer.hpp"

#include <array>

#include "wire/crc32c.hpp"

namespace rdmaconf::mpa {
namespace {

// Appends logical FPDU octets to the stream, inserting a Marker wherever the
// stream position reaches a multiple of 512 (RFC 5044 §4.3).
class MarkedWriter {
 public:
  MarkedWriter(std::vector<std::uint8_t>& out, std::uint64_t& position, bool markers,
               const FramerOverrides& o)
      : out_(out), position_(position), markers_(markers && !o.omit_markers), o_(o),
        fpdu_start_(out.size()) {}

  void put(wire::Bytes b) {
    while (!b.empty()) {
      marker_if_due();
      std::size_t n = b.size();
      if (markers_) n = std::min<std::size_t>(n, kMarkerInterval - position_ % kMarkerInterval);
      if (!header_at_) header_at_ = position_;
      out_.insert(out_.end(), b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
      position_ += n;
      b = b.subspan(n);
    }
  }

  // A Marker due at the current position is sent before the next octet.
  void marker_if_due() {
    if (!markers_ || position_ % kMarkerInterval != 0) return;
    // RFC 5044 §4.3: FPDUPTR counts back to ULPDU_Length; a Marker in front
    // of the header (the FPDU starts on a Marker position) carries 0.
    const std::uint64_t distance = header_at_ ? position_ - *header_at_ : 0;
    MarkerHeader m;
    m.set(MarkerSpec::Field::Reserved, o_.marker_reserved);
    m.set(MarkerSpec::Field::FPDUPTR, o_.fpdu_ptr.value_or(static_cast<std::uint16_t>(distance)));
    out_.insert(out_.end(), m.bytes().begin(), m.bytes().end());
    position_ += kMarkerSize;
  }

  // The FPDU octets sent so far, Markers included.
  wire::Bytes so_far() const { return wire::Bytes(out_).subspan(fpdu_start_); }

 private:
  std::vector<std::uint8_t>& out_;
  std::uint64_t& position_;
  bool markers_;
  const FramerOverrides& o_;
  std::size_t fpdu_start_;
  std::optional<std::uint64_t> header_at_;
};

}  // namespace

std::size_t Framer::frame(wire::Bytes ulpdu, std::vector<std::uint8_t>& out, const FramerOverrides& o) {
  return frame(wire::Chunks(ulpdu), out, o);
}

std::size_t Framer::frame(const wire::Chunks& ulpdu, std::vector<std::uint8_t>& out, const FramerOverrides& o) {
  const std::size_t start = out.size();
  const std::size_t pad = o.pad_length.value_or(pad_length(ulpdu.size()));
  out.reserve(start + fpdu_size(ulpdu.size()) + pad);
  MarkedWriter w(out, position_, config_.markers, o);

  FpduHeader h;
  h.set(FpduHeaderSpec::Field::ULPDU_Length, o.ulpdu_length.value_or(static_cast<std::uint16_t>(ulpdu.size())));
  w.put(h.bytes());
  ulpdu.for_each([&](wire::Bytes piece) { w.put(piece); });
  const std::array<std::uint8_t, 4> pad_octets = {o.pad_octet, o.pad_octet, o.pad_octet, o.pad_octet};
  for (std::size_t left = pad; left > 0;) {
    const std::size_t n = std::min(left, pad_octets.size());
    w.put(wire::Bytes(pad_octets).first(n));
    left -= n;
  }
  // RFC 5044 §4.4: the CRC covers every octet of the FPDU before the CRC
  // field, Markers included (also one that falls right before the CRC).
  w.marker_if_due();
  std::uint32_t crc = 0;
  if (o.crc)
    crc = *o.crc;
  else if (config_.crc)
    crc = wire::crc32c(w.so_far());
  w.put(wire::crc32c_wire_octets(crc));
  return out.size() - start;
}

std::size_t Framer::fpdu_size(std::size_t ulpdu_length) const {
  const std::size_t logical = fpdu_length_without_markers(ulpdu_length);
  return logical + (config_.markers ? kMarkerSize * markers_within(position_, logical) : 0);
}

std::size_t Framer::max_ulpdu_length(std::size_t fpdu_budget) const {
  const std::size_t overhead = kUlpduLengthSize + kCrcSize;
  if (fpdu_budget < overhead) return 0;
  std::size_t n = std::min<std::size_t>(fpdu_budget - overhead, 0xffff);
  // Markers and PAD cost at most 4 octets per 508 plus 3; walk down from the
  // marker-free bound (a few hundred steps at most).
  while (n > 0 && fpdu_size(n) > fpdu_budget) --n;
  return fpdu_size(n) <= fpdu_budget ? n : 0;
}

}  // namespace rdmaconf::mpa
