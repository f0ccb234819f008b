// Where the logical octets of one FPDU (ULPDU_Length, ULPDU, PAD, CRC;
// RFC 5044 §4.1) lie in the stream octets that carry it, sent from stream
// position `position`, with a Marker at every multiple of 512 when Markers
// are on (RFC 5044 §4.3). The framer writes through it and the deframer
// reads through it, so both agree on the arithmetic by construction.
//
// Offsets are counted from the FPDU's first stream octet, which is a
// Marker when the FPDU starts on a Marker position.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "mpa/headers.hpp"

namespace rdmaconf::mpa {

class MarkerLayout {
 public:
  static constexpr std::size_t kNone = SIZE_MAX;

  constexpr MarkerLayout(std::uint64_t position, bool markers)
      : markers_(markers),
        first_marker_(static_cast<std::size_t>((kMarkerInterval - position % kMarkerInterval) % kMarkerInterval)) {}

  // Stream offset of logical octet `i` (after a Marker placed right before it).
  constexpr std::size_t offset_of(std::size_t i) const { return i + kMarkerSize * markers_before(i + 1); }
  // Stream octets the first `logical` logical octets take, Markers among them
  // included. A Marker due right after the last of them belongs to whatever
  // is sent next.
  constexpr std::size_t span_of(std::size_t logical) const { return logical + kMarkerSize * markers_before(logical); }
  // Markers that go in front of one of the first `logical` logical octets.
  constexpr std::size_t markers_before(std::size_t logical) const {
    if (!markers_ || logical <= first_marker_) return 0;
    return 1 + (logical - first_marker_ - 1) / (kMarkerInterval - kMarkerSize);
  }
  // Stream offset of the first Marker (kNone without Markers); the next ones
  // follow every kMarkerInterval octets.
  constexpr std::size_t first_marker() const { return markers_ ? first_marker_ : kNone; }

  // Calls f(piece) for the pieces of `stream` (a span of its octets from
  // the FPDU's first one) that hold logical octets [from, to), in order.
  template <typename Span, typename F>
  void for_each_piece(Span stream, std::size_t from, std::size_t to, F&& f) const {
    if (from >= to) return;
    std::size_t s = offset_of(from);
    std::size_t left = to - from;
    // One division to find the first Marker, then a step of 512 per piece.
    std::size_t m = next_marker(s);
    while (left > 0) {
      const std::size_t n = m == kNone ? left : std::min(left, m - s);
      f(stream.subspan(s, n));
      s += n;
      left -= n;
      if (s == m) {
        s += kMarkerSize;
        m += kMarkerInterval;
      }
    }
  }

 private:
  // The first Marker at or after stream offset `s`.
  constexpr std::size_t next_marker(std::size_t s) const {
    if (!markers_) return kNone;
    if (s <= first_marker_) return first_marker_;
    return first_marker_ + (s - first_marker_ + kMarkerInterval - 1) / kMarkerInterval * kMarkerInterval;
  }

  bool markers_;
  std::size_t first_marker_;
};

// RFC 5044 §4.3: the FPDUPTR a Marker at stream offset `marker` carries:
// its distance back to ULPDU_Length (at `header_at`), or 0 for a Marker in
// front of the header. A distance beyond 16 bits cannot be carried.
constexpr std::size_t fpdu_ptr_distance(std::size_t marker, std::size_t header_at) {
  return marker < header_at ? 0 : marker - header_at;
}

}  // namespace rdmaconf::mpa
