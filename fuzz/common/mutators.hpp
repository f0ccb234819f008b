// Structure-aware mutators (libFuzzer's LLVMFuzzerCustomMutator) that keep
// the integrity fields valid, so that mutation reaches what lies behind them:
//
//   FPDU stream  the ULPDUs are taken out of the stream (deframed without
//                failing on errors), one of them is mutated (or duplicated,
//                dropped, swapped, split), and the stream is framed again by
//                mpa::Framer: ULPDU_Length, PAD, CRC32c and Markers are right
//                by construction. Now and then one FPDU is framed with one
//                integrity field forced wrong, so the error paths stay in play.
//   CLC stream   the messages are cut out by their Length field, one is
//                mutated (or duplicated, dropped, swapped), and its Length and
//                trailer eyecatcher are set to match again.
//
// Both leave the target-specific prefix of an input (configuration octets,
// read cuts, an MPA Request/Reply) to a LayoutFn that says where the framed
// part starts and how it is framed. Plain byte mutation stays half of the
// work: each target's LLVMFuzzerCustomMutator alternates on a seed bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/input.hpp"
#include "mpa/framer.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace rdmaconf::fuzz {

// Where the framed octets of an input start, and how they are framed.
struct FpduLayout {
  std::size_t prefix = 0;
  mpa::FramerConfig framing;
};
using FpduLayoutFn = FpduLayout (*)(Bytes input);

// Where the CLC messages of an input start.
using ClcLayoutFn = std::size_t (*)(Bytes input);

std::size_t mutate_fpdu_stream(std::uint8_t* data, std::size_t size, std::size_t max_size,
                               unsigned int seed, FpduLayoutFn layout);
std::size_t mutate_clc_stream(std::uint8_t* data, std::size_t size, std::size_t max_size,
                              unsigned int seed, ClcLayoutFn layout);

// Small deterministic random source from libFuzzer's seed.
class Rng {
 public:
  explicit Rng(unsigned int seed) : state_(seed * 2654435761u | 1u) {}
  std::uint32_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : next() % n; }
  bool one_in(std::uint32_t n) { return next() % n == 0; }

 private:
  std::uint32_t state_;
};

}  // namespace rdmaconf::fuzz
