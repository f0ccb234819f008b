// The streaming FPDU deframer (RFC 5044 §4.1, §4.3, §4.4) under arbitrary
// TCP chunking, Markers on and off, CRC on and off.
//
// Input layout (the FPDU-stream mutator keeps it):
//   octet 0     bit 0 Markers, bit 1 CRC, bit 2 report errors instead of
//               failing, bits 3-4 where the stream starts (0, a small
//               offset, just below 2^32, beyond 2^32), bits 5-7 = 7: a
//               64-octet MULPDU limit
//   octets 1-2  the offset for bits 3-4
//   octet 3     number of read cuts k (mod 16), then k cut octets
//   rest        the stream octets
// Properties:
//  - NeedMore always asks for more than the buffer holds; consumed > 0;
//  - a ULPDU's views hold exactly ULPDU_Length octets;
//  - the same stream delivered in one read or cut into the fuzzer's reads
//    yields the same FPDUs and the same error (split invariance; checked
//    whenever the reads cut the stream at all);
//  - in failing mode, a delivered FPDU has a matching CRC and valid Markers;
//  - an FPDU without any irregularity re-frames (mpa::Framer, same stream
//    position) to exactly the octets it was received as.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "common/input.hpp"
#include "common/mutators.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"

using namespace rdmaconf;

namespace {

struct Layout {
  mpa::DeframerConfig config;
  fuzz::Bytes cuts;
  fuzz::Bytes stream;
  std::size_t prefix = 0;
};

Layout parse(fuzz::Bytes input) {
  fuzz::FuzzInput in(input);
  Layout l;
  const std::uint8_t flags = in.u8();
  const std::uint16_t offset = in.u16();
  l.config.markers = (flags & 1) != 0;
  l.config.crc = (flags & 2) != 0;
  l.config.fail_on_error = (flags & 4) == 0;
  switch ((flags >> 3) & 3) {
    case 0: l.config.stream_position = 0; break;
    case 1: l.config.stream_position = offset; break;
    case 2: l.config.stream_position = 0xffffffffull - offset; break;
    default: l.config.stream_position = (std::uint64_t{1} << 40) + offset; break;
  }
  if ((flags >> 5) == 7) l.config.max_ulpdu_length = 64;
  l.cuts = in.take(in.u8() % 16);
  l.prefix = in.position();
  l.stream = in.rest();
  return l;
}

struct Seen {
  // Where the ULPDU's views lie, as (offset from the FPDU's first octet,
  // length) per piece folded into one value. Both runs hand the deframer
  // the same stream octets from the FPDU's first octet on, so equal
  // placements mean equal content; the re-frame property checks the content
  // itself. Cheaper than hashing the octets, and stricter about the cuts.
  std::uint64_t ulpdu_placement;
  std::uint16_t ulpdu_length;
  std::size_t consumed;
  std::size_t pad_length;
  bool pad_nonzero;
  mpa::CrcStatus crc;
  std::size_t markers;
  bool markers_valid;
  bool markers_reserved_zero;
  bool operator==(const Seen&) const = default;
};

struct Run {
  std::vector<Seen> fpdus;
  std::optional<mpa::LlpErrorCode> error;
};

Seen record(const mpa::Fpdu& f, const mpa::DeframerConfig& c, fuzz::Bytes from_fpdu_start) {
  FUZZ_CHECK(f.consumed > 0);
  FUZZ_CHECK(f.ulpdu().size() == f.ulpdu_length);
  FUZZ_CHECK(f.ulpdu_length <= c.max_ulpdu_length);
  FUZZ_CHECK((f.ulpdu_length + 2 + f.pad_length) % 4 == 0 && f.pad_length < 4);
  FUZZ_CHECK(c.crc ? f.crc_status != mpa::CrcStatus::kNotChecked : f.crc_status == mpa::CrcStatus::kNotChecked);
  std::uint64_t placement = 0;
  f.ulpdu().for_each([&](wire::Bytes p) {
    // Every piece lies inside this FPDU, after its ULPDU_Length field (a
    // piece in front of the FPDU wraps to a huge offset and fails too).
    const auto offset = static_cast<std::size_t>(p.data() - from_fpdu_start.data());
    FUZZ_CHECK(offset >= mpa::kUlpduLengthSize && offset + p.size() <= f.consumed);
    placement = (placement * 0x100000001b3ull) ^ (offset << 17 | p.size());
  });
  Seen s{placement, f.ulpdu_length, f.consumed, f.pad_length, f.pad_nonzero,
         f.crc_status, f.markers.size(), true, true};
  for (std::size_t i = 0; i < f.markers.size(); ++i) {
    const mpa::MarkerSeen m = f.markers[i];
    FUZZ_CHECK(m.stream_position % mpa::kMarkerInterval == 0);
    s.markers_valid = s.markers_valid && m.valid;
    s.markers_reserved_zero = s.markers_reserved_zero && m.reserved == 0;
  }
  if (!c.markers) FUZZ_CHECK(f.markers.empty());
  if (c.fail_on_error) FUZZ_CHECK(f.crc_status != mpa::CrcStatus::kMismatch && s.markers_valid);
  return s;
}

// What one input's runs keep, reused from input to input so that the
// oracles allocate nothing once the vectors have grown (cleared per input).
struct Scratch {
  Run whole;
  Run reads;
  std::vector<std::uint8_t> buffer;    // deframe_in_reads' receive buffer
  std::vector<std::uint8_t> reframed;  // deframe_whole's re-framed FPDU
};

void reset(Run& run) {
  run.fpdus.clear();
  run.error.reset();
}

void deframe_in_reads(const Layout& l, Run& run, std::vector<std::uint8_t>& buffer) {
  mpa::Deframer d(l.config);
  reset(run);
  buffer.clear();
  // The receive buffer: octets from `start` on are unconsumed (dropping
  // consumed octets from the front each time would cost O(n^2)).
  std::size_t start = 0;
  bool stop = false;
  fuzz::for_each_read(l.stream, l.cuts, [&](fuzz::Bytes read) {
    if (stop) return;
    if (start > 0) {
      buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(start));
      start = 0;
    }
    buffer.insert(buffer.end(), read.begin(), read.end());
    for (;;) {
      const fuzz::Bytes unconsumed = fuzz::Bytes(buffer).subspan(start);
      mpa::DeframeResult r = d.next(unconsumed);
      if (auto* need = std::get_if<mpa::NeedMore>(&r)) {
        FUZZ_CHECK(need->at_least > unconsumed.size());
        return;
      }
      if (auto* e = std::get_if<mpa::DeframeError>(&r)) {
        run.error = e->terminate_code;
        FUZZ_CHECK(d.failed());
        stop = true;
        return;
      }
      const mpa::Fpdu& f = std::get<mpa::Fpdu>(r);
      FUZZ_CHECK(f.consumed <= unconsumed.size());
      run.fpdus.push_back(record(f, l.config, unconsumed));
      start += f.consumed;
    }
  });
}

void deframe_whole(const Layout& l, Run& run, std::vector<std::uint8_t>* reframed) {
  mpa::Deframer d(l.config);
  mpa::Framer framer(mpa::FramerConfig{l.config.markers, l.config.crc, l.config.stream_position});
  reset(run);
  std::size_t at = 0;
  while (at < l.stream.size()) {
    const fuzz::Bytes unconsumed = l.stream.subspan(at);
    mpa::DeframeResult r = d.next(unconsumed);
    if (auto* need = std::get_if<mpa::NeedMore>(&r)) {
      FUZZ_CHECK(need->at_least > unconsumed.size());
      break;
    }
    if (auto* e = std::get_if<mpa::DeframeError>(&r)) {
      run.error = e->terminate_code;
      FUZZ_CHECK(d.failed());
      FUZZ_CHECK(!e->detail.to_string().empty());
      break;
    }
    const mpa::Fpdu& f = std::get<mpa::Fpdu>(r);
    FUZZ_CHECK(f.consumed <= unconsumed.size());
    Seen s = record(f, l.config, unconsumed);
    // RFC 5044 §4: an FPDU with nothing irregular is exactly what our framer
    // sends at that stream position.
    const bool regular = l.config.crc && f.crc_status == mpa::CrcStatus::kMatch && !f.pad_nonzero &&
                         s.markers_valid && s.markers_reserved_zero;
    if (regular) {
      reframed->clear();
      FUZZ_CHECK(framer.fpdu_size(f.ulpdu_length) == f.consumed);
      FUZZ_CHECK(framer.max_ulpdu_length(f.consumed) >= f.ulpdu_length);
      framer.frame(f.ulpdu(), *reframed);
      FUZZ_CHECK(reframed->size() == f.consumed);
      FUZZ_CHECK(std::equal(reframed->begin(), reframed->end(), l.stream.begin() + static_cast<std::ptrdiff_t>(at)));
    } else {
      // Keep the framer's stream position in step with what was consumed.
      framer = mpa::Framer(mpa::FramerConfig{l.config.markers, l.config.crc, d.stream_position()});
    }
    run.fpdus.push_back(std::move(s));
    at += f.consumed;
  }
}

fuzz::FpduLayout fpdu_layout(fuzz::Bytes input) {
  const Layout l = parse(input);
  return {l.prefix, mpa::FramerConfig{l.config.markers, l.config.crc, l.config.stream_position}};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const Layout l = parse(fuzz::Bytes(data, size));
  static Scratch scratch;
  deframe_whole(l, scratch.whole, &scratch.reframed);
  // Split invariance needs a split: when the fuzzer's first read holds the
  // whole stream (no cut octets, or a first cut covering it: 102 of the
  // 214 shipped inputs), the run in reads would hand the deframer the same
  // octets in the same calls as the run above, and its checks (NeedMore asks
  // for more, a failed deframer says so) are made there too.
  const bool cut = !l.cuts.empty() && l.cuts[0] != 0xff && std::size_t{l.cuts[0]} + 1 < l.stream.size();
  if (!cut) return 0;
  deframe_in_reads(l, scratch.reads, scratch.buffer);
  FUZZ_CHECK(scratch.whole.fpdus == scratch.reads.fpdus);
  FUZZ_CHECK(scratch.whole.error == scratch.reads.error);
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed & 1) return LLVMFuzzerMutate(data, size, max_size);
  return fuzz::mutate_fpdu_stream(data, size, max_size, seed >> 1, fpdu_layout);
}
