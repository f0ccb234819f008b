// MPA receive-path throughput (RFC 5044): the deframer's cost next to the
// CRC32c it cannot avoid. Three numbers from one run, in bytes/s:
//   BM_Crc32cRaw               CRC32c over one 4 KiB buffer (stays in L1)
//   BM_Crc32cRawStream         CRC32c over 4 KiB blocks of a 64-FPDU stream,
//                              the same memory the deframer walks (L2)
//   BM_Crc32cMarkerStream      CRC32c alone over what the deframer CRCs in the
//                              Marker stream (bytes/s counts ULPDU octets)
//   BM_DeframeValidate         deframe + CRC-check 4 KiB FPDUs, no Markers
//   BM_DeframeValidateMarkers  the same with Markers every 512 octets
// Target: deframing at >= 70% of raw CRC32c speed. bytes/s counts ULPDU
// octets for the deframer, CRC'd octets for the CRC rows.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "wire/crc32c.hpp"

namespace {

using rdmaconf::mpa::DeframeResult;
using rdmaconf::mpa::Deframer;
using rdmaconf::mpa::DeframerConfig;
using rdmaconf::mpa::Fpdu;
using rdmaconf::mpa::Framer;
using rdmaconf::mpa::FramerConfig;

constexpr std::size_t kUlpdu = 4096;
constexpr std::size_t kFpdusPerStream = 64;

std::vector<std::uint8_t> payload() {
  std::vector<std::uint8_t> p(kUlpdu);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>(i * 31 + 7);
  return p;
}

void BM_Crc32cRaw(benchmark::State& state) {
  const auto data = payload();
  for (auto _ : state) benchmark::DoNotOptimize(rdmaconf::wire::crc32c(data));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(kUlpdu));
}

std::vector<std::uint8_t> framed_stream(bool markers) {
  const auto p = payload();
  std::vector<std::uint8_t> stream;
  Framer framer(FramerConfig{markers, true, 0});
  for (std::size_t i = 0; i < kFpdusPerStream; ++i) framer.frame(p, stream);
  return stream;
}

void BM_Crc32cRawStream(benchmark::State& state) {
  const auto stream = framed_stream(false);
  std::size_t octets = 0;
  for (auto _ : state) {
    for (std::size_t at = 0; at + kUlpdu <= stream.size(); at += kUlpdu) {
      benchmark::DoNotOptimize(rdmaconf::wire::crc32c(rdmaconf::wire::Bytes(stream).subspan(at, kUlpdu)));
      octets += kUlpdu;
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(octets));
}

void deframe(benchmark::State& state, bool markers) {
  const auto stream = framed_stream(markers);
  std::size_t ulpdu_octets = 0;
  for (auto _ : state) {
    DeframerConfig c;
    c.markers = markers;
    Deframer d(c);
    rdmaconf::wire::Bytes rest(stream);
    while (!rest.empty()) {
      DeframeResult r = d.next(rest);
      const Fpdu* f = std::get_if<Fpdu>(&r);
      if (!f) {
        state.SkipWithError("deframing failed");
        return;
      }
      benchmark::DoNotOptimize(f->ulpdu().piece(0).data());
      ulpdu_octets += f->ulpdu_length;
      rest = rest.subspan(f->consumed);
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(ulpdu_octets));
}


// CRC32c alone over exactly the octets the deframer CRCs in the Marker
// stream (each FPDU up to its CRC field, Markers included): separates the
// deframer's own cost from the extra and unaligned octets Markers bring.
void BM_Crc32cMarkerStream(benchmark::State& state) {
  const auto stream = framed_stream(true);
  std::vector<rdmaconf::wire::Bytes> covered;
  DeframerConfig c;
  c.markers = true;
  Deframer d(c);
  for (rdmaconf::wire::Bytes rest(stream); !rest.empty();) {
    DeframeResult r = d.next(rest);
    const Fpdu* f = std::get_if<Fpdu>(&r);
    if (!f) {
      state.SkipWithError("deframing failed");
      return;
    }
    covered.push_back(rest.first(f->consumed - rdmaconf::mpa::kCrcSize));
    rest = rest.subspan(f->consumed);
  }
  std::size_t ulpdu_octets = 0;
  for (auto _ : state) {
    for (rdmaconf::wire::Bytes b : covered) {
      benchmark::DoNotOptimize(rdmaconf::wire::crc32c(b));
      ulpdu_octets += kUlpdu;
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(ulpdu_octets));
}

void BM_DeframeValidate(benchmark::State& state) { deframe(state, false); }
void BM_DeframeValidateMarkers(benchmark::State& state) { deframe(state, true); }

BENCHMARK(BM_Crc32cRaw);
BENCHMARK(BM_Crc32cRawStream);
BENCHMARK(BM_Crc32cMarkerStream);
BENCHMARK(BM_DeframeValidate);
BENCHMARK(BM_DeframeValidateMarkers);

}  // namespace

BENCHMARK_MAIN();
