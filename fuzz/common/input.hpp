// FuzzInput: takes typed values from the front of a fuzzer's input (the
// FuzzedDataProvider habit, small and standard-library only so the same
// targets build with g++ for the corpus replay and with clang + libFuzzer).
//
// Every take succeeds: once the input is exhausted, values are zero and
// views are empty, so a target never has to check lengths before it decides
// what to do. Inputs are consumed front to back; rest() hands the remaining
// octets to the parser under test as one view.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>

namespace rdmaconf::fuzz {

using Bytes = std::span<const std::uint8_t>;

// A property the code under test must keep. On failure the fuzzer sees a
// crash (abort) and the message names the broken property.
#define FUZZ_CHECK(cond)                                                                   \
  do {                                                                                     \
    if (!(cond)) {                                                                         \
      std::fprintf(stderr, "%s:%d: fuzz property violated: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                        \
    }                                                                                      \
  } while (0)

// Whether a text target runs its rechecks on this input: parsing again to
// see that parsing is deterministic, and computing again what the parser
// stored from its own output. They run on one input in eight, those whose
// size is a multiple of eight (the mutators change sizes all the time, and a
// crash file reproduces on its own). A text parser is a pure function of its
// input, so state kept from one parse to the next, a read of uninitialised
// memory or a value stored from the wrong text would show on inputs of any
// size; running them on every input doubled the target's own work for no
// more than that (docs/fuzzing.md, "The 100k target").
constexpr bool rechecked(std::size_t size) { return size % 8 == 0; }

class FuzzInput {
 public:
  FuzzInput(const std::uint8_t* data, std::size_t size) : bytes_(data, size) {}
  explicit FuzzInput(Bytes bytes) : bytes_(bytes) {}

  std::size_t remaining() const { return bytes_.size() - pos_; }
  bool empty() const { return remaining() == 0; }
  std::size_t position() const { return pos_; }

  std::uint8_t u8() { return empty() ? 0 : bytes_[pos_++]; }
  bool flag() { return (u8() & 1) != 0; }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() << 8 | u8()); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(u16()) << 16 | u16(); }
  std::uint64_t u64() { return static_cast<std::uint64_t>(u32()) << 32 | u32(); }

  // A value in [lo, hi] (hi - lo < 2^32), from as few octets as it needs.
  std::uint32_t range(std::uint32_t lo, std::uint32_t hi) {
    std::uint64_t span = std::uint64_t{hi} - lo + 1;
    std::uint64_t v = span <= 0x100 ? u8() : span <= 0x10000 ? u16() : u32();
    return static_cast<std::uint32_t>(lo + v % span);
  }

  // Up to n octets (fewer when the input ends).
  Bytes take(std::size_t n) {
    if (n > remaining()) n = remaining();
    Bytes out = bytes_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  // A length-prefixed block: one octet of length (scaled), then that many.
  Bytes block(std::size_t max = 255) { return take(u8() % (max + 1)); }
  Bytes rest() { return take(remaining()); }

 private:
  Bytes bytes_;
  std::size_t pos_ = 0;
};

// Cuts `total` octets into TCP-like reads: each cut octet c gives a read of
// 1 + c octets (a cut of 0xff means "everything left"); the last read takes
// what remains. Used by every stream target so that the fuzzer chooses where
// the segment boundaries fall.
template <typename F>
void for_each_read(Bytes stream, Bytes cuts, F&& f) {
  std::size_t at = 0;
  std::size_t i = 0;
  while (at < stream.size()) {
    std::size_t n = stream.size() - at;
    if (i < cuts.size() && cuts[i] != 0xff) n = std::min<std::size_t>(n, std::size_t{cuts[i]} + 1);
    ++i;
    f(stream.subspan(at, n));
    at += n;
  }
}

}  // namespace rdmaconf::fuzz
