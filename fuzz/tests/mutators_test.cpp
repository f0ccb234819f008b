// The structure-aware mutators keep what they promise: after a structured
// mutation of a well-framed FPDU stream, the stream still deframes with every
// CRC32c and Marker right (except the one FPDU in eight the mutator breaks on
// purpose); after a CLC mutation, every message's Length and trailer match.
#include "common/mutators.hpp"

#include <cstring>
#include <random>
#include <variant>
#include <vector>

#include <gtest/gtest.h>

#include "clc/headers.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"

namespace {

std::mt19937 g_rng(7);

}  // namespace

// libFuzzer's byte mutator, reduced to what the tests need: flip, insert, erase.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size) {
  switch (g_rng() % 3) {
    case 0:
      if (size) data[g_rng() % size] ^= 0x5a;
      return size;
    case 1:
      if (size < max_size) {
        std::size_t at = size ? g_rng() % (size + 1) : 0;
        std::memmove(data + at + 1, data + at, size - at);
        data[at] = static_cast<std::uint8_t>(g_rng());
        return size + 1;
      }
      return size;
    default:
      if (size > 1) {
        std::size_t at = g_rng() % size;
        std::memmove(data + at, data + at + 1, size - at - 1);
        return size - 1;
      }
      return size;
  }
}

namespace rdmaconf::fuzz {
namespace {

// A layout with a 1-octet prefix whose bit 0 says Markers.
FpduLayout one_octet_layout(Bytes input) {
  const bool markers = !input.empty() && (input[0] & 1);
  return {1, mpa::FramerConfig{markers, true, 0}};
}

// Deframes all of `stream`; true when every FPDU is intact and nothing is left.
bool intact(Bytes stream, bool markers, std::size_t* fpdus) {
  mpa::Deframer d(mpa::DeframerConfig{markers, true, 0xffff, 0, true});
  std::size_t at = 0;
  *fpdus = 0;
  while (at < stream.size()) {
    auto r = d.next(stream.subspan(at));
    auto* f = std::get_if<mpa::Fpdu>(&r);
    if (!f) return false;
    at += f->consumed;
    ++*fpdus;
  }
  return true;
}

TEST(FpduStreamMutator, KeepsLengthPadCrcAndMarkersValid) {
  for (bool markers : {false, true}) {
    std::vector<std::uint8_t> input{static_cast<std::uint8_t>(markers)};
    mpa::Framer f(mpa::FramerConfig{markers, true, 0});
    for (std::size_t n : {30u, 700u, 3u}) f.frame(std::vector<std::uint8_t>(n, 0x11), input);
    int ok = 0, runs = 400, changed = 0;
    std::vector<std::uint8_t> buf(input);
    buf.resize(8192);
    std::size_t size = input.size();
    for (int i = 0; i < runs; ++i) {
      std::vector<std::uint8_t> before(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(size));
      size = mutate_fpdu_stream(buf.data(), size, buf.size(), static_cast<unsigned>(i), one_octet_layout);
      ASSERT_LE(size, buf.size());
      changed += std::vector<std::uint8_t>(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(size)) != before;
      std::size_t fpdus = 0;
      const bool m = buf[0] & 1;
      if (intact(Bytes(buf).subspan(1, size - 1), m, &fpdus)) ++ok;
      if (!intact(Bytes(buf).subspan(1, size - 1), m, &fpdus) || size < 8) {
        // Start again from the valid stream so that one broken FPDU does
        // not carry into every later round.
        std::copy(input.begin(), input.end(), buf.begin());
        size = input.size();
      }
    }
    // RFC 5044 §4.1/§4.3/§4.4 fields are right by construction; the mutator
    // breaks one FPDU in about 1 of 8 rounds, and leaves a tail in 1 of 4.
    EXPECT_GT(ok, runs / 2) << "markers=" << markers;
    EXPECT_GT(changed, runs * 3 / 4);
  }
}

std::size_t no_prefix(Bytes) { return 0; }

TEST(ClcStreamMutator, KeepsLengthAndTrailer) {
  // A Decline v1: header (SMCR, type 4, Length 28, version 1), body, trailer.
  std::vector<std::uint8_t> decline(clc::kDeclineV1Length, 0);
  const std::uint8_t head[] = {0xe2, 0xd4, 0xc3, 0xd9, 4, 0, 28, 0x10};
  std::copy(std::begin(head), std::end(head), decline.begin());
  std::copy(head, head + 4, decline.end() - 4);
  std::vector<std::uint8_t> buf(4096);
  std::copy(decline.begin(), decline.end(), buf.begin());
  std::size_t size = decline.size();
  int chained = 0;
  for (unsigned i = 0; i < 300; ++i) {
    size = mutate_clc_stream(buf.data(), size, buf.size(), i, no_prefix);
    // Every whole message the Length fields chain through is consistent.
    std::size_t at = 0;
    while (size - at >= clc::kHeaderSize) {
      const std::size_t len = static_cast<std::size_t>(buf[at + 5] << 8 | buf[at + 6]);
      if (len < clc::kHeaderSize + clc::kTrailerSize || len > size - at) break;
      EXPECT_TRUE(std::equal(buf.begin() + static_cast<std::ptrdiff_t>(at), buf.begin() + static_cast<std::ptrdiff_t>(at + 4),
                             buf.begin() + static_cast<std::ptrdiff_t>(at + len - 4)));
      at += len;
    }
    chained += at > 0;
    if (size > 2000) {
      std::copy(decline.begin(), decline.end(), buf.begin());
      size = decline.size();
    }
  }
  // The first message is always whole again after a mutation.
  EXPECT_EQ(chained, 300);
}

}  // namespace
}  // namespace rdmaconf::fuzz
