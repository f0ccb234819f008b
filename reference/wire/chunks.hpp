// An octet string that arrives in pieces: an MPA FPDU's ULPDU interrupted by
// markers, or split across the end of a receive buffer. Chunks is a short
// list of views, never a copy; headers that straddle a piece are gathered into
// a small caller-provided array with copy_prefix() (headers are copied, payload
// never is).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "wire/bytes.hpp"

namespace rdmaconf::wire {

class Chunks {
 public:
  Chunks() = default;
  explicit Chunks(Bytes whole) { append(whole); }

  // Empty views are dropped so that iteration sees only octets.
  void append(Bytes b) {
    if (b.empty()) return;
    size_ += b.size();
    if (count_ < kInline) {
      inline_[count_++] = b;
    } else {
      // More than kInline pieces happens only for FPDUs longer than
      // kInline * 512 octets with markers on; the list grows with the octets
      // actually received, never with a length field.
      overflow_.push_back(b);
    }
  }

  // Empties the list, keeping the overflow list's capacity for reuse.
  void clear() {
    count_ = 0;
    size_ = 0;
    overflow_.clear();
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t pieces() const { return count_ + overflow_.size(); }
  Bytes piece(std::size_t i) const { return i < count_ ? inline_[i] : overflow_[i - count_]; }

  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < pieces(); ++i) f(piece(i));
  }

  // Copies the first dst.size() octets into dst; false if there are fewer.
  bool copy_prefix(MutableBytes dst) const {
    if (dst.size() > size_) return false;
    std::size_t done = 0;
    for (std::size_t i = 0; i < pieces() && done < dst.size(); ++i) {
      Bytes p = piece(i);
      std::size_t n = std::min(p.size(), dst.size() - done);
      for (std::size_t k = 0; k < n; ++k) dst[done + k] = p[k];
      done += n;
    }
    return true;
  }

  // The views from octet `from` onwards (for the payload after a header).
  Chunks subrange(std::size_t from) const { return subrange(from, size_ - std::min(from, size_)); }
  Chunks subrange(std::size_t from, std::size_t len) const {
    Chunks out;
    std::size_t pos = 0;
    for (std::size_t i = 0; i < pieces() && len > 0; ++i) {
      Bytes p = piece(i);
      if (from >= pos + p.size()) {
        pos += p.size();
        continue;
      }
      std::size_t skip = from > pos ? from - pos : 0;
      std::size_t n = std::min(p.size() - skip, len);
      out.append(p.subspan(skip, n));
      len -= n;
      pos += p.size();
    }
    return out;
  }

  // Contiguous copy, for tests and printing only.
  std::vector<std::uint8_t> to_vector() const {
    std::vector<std::uint8_t> v;
    v.reserve(size_);
    for_each([&](Bytes p) { v.insert(v.end(), p.begin(), p.end()); });
    return v;
  }

 private:
  static constexpr std::size_t kInline = 6;
  std::array<Bytes, kInline> inline_{};
  std::size_t count_ = 0;
  std::vector<Bytes> overflow_;
  std::size_t size_ = 0;
};

}  // namespace rdmaconf::wire
