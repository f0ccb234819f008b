// Bounds-checked views over received bytes (the picotls / s2n "stuffer" habit):
// every decoder walks a ByteReader, every read is checked against what was
// received, and a nested length-prefixed block becomes a sub-reader that must
// be consumed exactly. Readers hand out views, never copies of payload.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "wire/result.hpp"

namespace rdmaconf::wire {

using Bytes = std::span<const std::uint8_t>;
using MutableBytes = std::span<std::uint8_t>;

// Big-endian (network order) loads and stores on spans whose size the caller
// has already checked; the span overloads keep raw pointer arithmetic here.
inline std::uint64_t load_be(Bytes b) {
  std::uint64_t v = 0;
  for (std::uint8_t octet : b) v = (v << 8) | octet;
  return v;
}
inline void store_be(MutableBytes b, std::uint64_t v) {
  for (std::size_t i = b.size(); i-- > 0;) {
    b[i] = static_cast<std::uint8_t>(v);
    v >>= 8;
  }
}

class ByteReader {
 public:
  ByteReader() = default;
  explicit ByteReader(Bytes bytes, std::size_t base_offset = 0)
      : bytes_(bytes), base_(base_offset) {}

  std::size_t remaining() const { return bytes_.size() - pos_; }
  bool empty() const { return remaining() == 0; }
  // Offset of the next octet, counted from the start of the outermost unit.
  std::size_t offset() const { return base_ + pos_; }
  bool can_read(std::size_t n) const { return n <= remaining(); }
  Bytes rest() const { return bytes_.subspan(pos_); }

  // Takes n octets as a view; nullopt (and nothing consumed) if fewer remain.
  std::optional<Bytes> take(std::size_t n) {
    if (!can_read(n)) return std::nullopt;
    Bytes out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  std::optional<std::uint64_t> take_be(std::size_t n) {
    auto b = take(n);
    if (!b) return std::nullopt;
    return load_be(*b);
  }
  bool skip(std::size_t n) { return take(n).has_value(); }

  // A length-prefixed (or otherwise delimited) nested block of n octets. The
  // caller decodes it with the returned reader and checks that it is empty.
  std::optional<ByteReader> sub(std::size_t n) {
    std::size_t at = offset();
    auto b = take(n);
    if (!b) return std::nullopt;
    return ByteReader(*b, at);
  }

 private:
  Bytes bytes_{};
  std::size_t pos_ = 0;
  std::size_t base_ = 0;
};

// Appends to a caller-owned buffer. Encoders allocate only from values we
// chose, never from lengths a peer sent. A length or CRC that depends on what
// follows is reserved first and back-filled (the picotls habit).
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}

  std::size_t size() const { return out_.size(); }
  void put(Bytes b) {
    // resize + copy rather than vector::insert: GCC 12 at -O3 reports a
    // false -Wstringop-overflow inside insert's range path.
    if (b.empty()) return;
    std::size_t at = reserve(b.size());
    std::copy(b.begin(), b.end(), out_.begin() + static_cast<std::ptrdiff_t>(at));
  }
  void put_be(std::uint64_t v, std::size_t n) {
    std::size_t at = reserve(n);
    store_be(MutableBytes(out_).subspan(at, n), v);
  }
  void put_zeros(std::size_t n) { out_.insert(out_.end(), n, 0); }
  // Reserves n zero octets and returns their position for back_fill().
  std::size_t reserve(std::size_t n) {
    std::size_t at = out_.size();
    out_.resize(at + n);
    return at;
  }
  void back_fill_be(std::size_t at, std::uint64_t v, std::size_t n) {
    store_be(MutableBytes(out_).subspan(at, n), v);
  }
  MutableBytes span_at(std::size_t at, std::size_t n) { return MutableBytes(out_).subspan(at, n); }

 private:
  std::vector<std::uint8_t>& out_;
};

}  // namespace rdmaconf::wire
