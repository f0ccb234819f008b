// What the RDMAP stream's tests share (rdmap_stream_test.cpp,
// rdmap_stream_errors_test.cpp): a test pattern, a segment handed over split
// in two views (as MPA's deframer may yield it), two streams wired back to
// back, the completions a stream has, and an Atomic request (RFC 7306).
#pragma once

#include <algorithm>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

#include "rdmap/stream.hpp"

namespace rdmaconf::rdmap::testing {

using ddp::Access;
using ddp::Stag;

inline std::vector<std::uint8_t> pattern(std::size_t n, std::uint8_t seed = 0) {
  std::vector<std::uint8_t> v(n);
  std::iota(v.begin(), v.end(), seed);
  return v;
}

inline void hand_over(Stream& to, const std::vector<std::uint8_t>& bytes) {
  wire::Chunks c;
  const std::size_t half = bytes.size() / 2;
  c.append(wire::Bytes(bytes).first(half));
  c.append(wire::Bytes(bytes).subspan(half));
  to.on_segment(c);
}

struct Pair {
  explicit Pair(StreamConfig ca = {}, StreamConfig cb = {}) : a(ca), b(cb) {}
  Stream a, b;
  std::size_t largest_segment = 0;
  void pump() {
    for (bool moved = true; moved;) {
      moved = false;
      while (auto s = a.take_outgoing()) {
        largest_segment = std::max(largest_segment, s->size());
        hand_over(b, s->to_vector());
        moved = true;
      }
      while (auto s = b.take_outgoing()) {
        largest_segment = std::max(largest_segment, s->size());
        hand_over(a, s->to_vector());
        moved = true;
      }
    }
  }
};

inline std::vector<Completion> drain(Stream& s) {
  std::vector<Completion> out;
  while (auto c = s.poll_completion()) out.push_back(*c);
  return out;
}

inline const Completion* find(const std::vector<Completion>& cs, WorkRequestId id, CompletionType t) {
  for (const Completion& c : cs)
    if (c.wr_id == id && c.type == t) return &c;
  return nullptr;
}

inline AtomicRequest atomic(AtomicOpcode op, Stag stag, std::uint64_t to, std::uint64_t data,
                     std::uint64_t mask = 0, std::uint64_t compare = 0,
                     std::uint64_t compare_mask = ~std::uint64_t{0}) {
  AtomicRequest a;
  a.op = op;
  a.remote_stag = stag;
  a.remote_to = to;
  a.add_or_swap_data = data;
  a.add_or_swap_mask = mask;
  a.compare_data = compare;
  a.compare_mask = compare_mask;
  return a;
}

}  // namespace rdmaconf::rdmap::testing
