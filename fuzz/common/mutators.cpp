#include "common/mutators.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "clc/headers.hpp"
#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "wire/bytes.hpp"

namespace rdmaconf::fuzz {
namespace {

using Octets = std::vector<std::uint8_t>;

// Mutates `v` in place with libFuzzer's own byte mutator, letting it grow by
// at most `grow` octets.
void byte_mutate(Octets& v, std::size_t grow) {
  const std::size_t size = v.size();
  v.resize(size + grow);
  v.resize(LLVMFuzzerMutate(v.data(), size, v.size()));
}

std::size_t emit(const Octets& out, std::uint8_t* data, std::size_t size, std::size_t max_size) {
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

// Duplicate, drop or swap whole units (ULPDUs, CLC messages); true if done.
bool shuffle_units(std::vector<Octets>& units, Rng& rng) {
  if (units.empty()) return false;
  switch (rng.below(3)) {
    case 0: {
      std::size_t i = rng.below(units.size());
      units.insert(units.begin() + static_cast<std::ptrdiff_t>(rng.below(units.size() + 1)), units[i]);
      return true;
    }
    case 1:
      if (units.size() < 2) return false;
      units.erase(units.begin() + static_cast<std::ptrdiff_t>(rng.below(units.size())));
      return true;
    default:
      if (units.size() < 2) return false;
      std::swap(units[rng.below(units.size())], units[rng.below(units.size())]);
      return true;
  }
}

// ------------------------------------------------------------ FPDU stream

// The ULPDUs of a framed stream, in order; `tail` gets what does not deframe.
std::vector<Octets> ulpdus_of(Bytes stream, const mpa::FramerConfig& framing, Octets& tail) {
  mpa::DeframerConfig dc;
  dc.markers = framing.markers;
  // The CRC field is there either way (RFC 5044 §4.4: zero when CRCs are
  // off); cutting ULPDUs out needs no CRC computed, and nothing fails here.
  dc.crc = false;
  dc.stream_position = framing.stream_position;
  dc.fail_on_error = false;
  mpa::Deframer d(dc);
  std::vector<Octets> out;
  std::size_t at = 0;
  while (at < stream.size()) {
    mpa::DeframeResult r = d.next(stream.subspan(at));
    auto* f = std::get_if<mpa::Fpdu>(&r);
    if (!f) break;
    out.push_back(f->ulpdu().to_vector());
    at += f->consumed;
  }
  tail.assign(stream.begin() + static_cast<std::ptrdiff_t>(at), stream.end());
  return out;
}

// One integrity field of one FPDU forced wrong (RFC 5044 §4.1, §4.3, §4.4).
mpa::FramerOverrides break_one(Rng& rng, std::size_t ulpdu_size) {
  mpa::FramerOverrides o;
  switch (rng.below(5)) {
    case 0: o.ulpdu_length = static_cast<std::uint16_t>(ulpdu_size + 1 + rng.below(8)); break;
    case 1: o.crc = rng.next(); break;
    case 2: o.pad_octet = 0xa5; break;
    case 3: o.fpdu_ptr = static_cast<std::uint16_t>(rng.next()); break;
    default: o.omit_markers = true; break;
  }
  return o;
}

}  // namespace

std::size_t mutate_fpdu_stream(std::uint8_t* data, std::size_t size, std::size_t max_size,
                               unsigned int seed, FpduLayoutFn layout) {
  Rng rng(seed);
  const Bytes input(data, size);
  FpduLayout l = layout(input);
  l.prefix = std::min(l.prefix, size);
  Octets prefix(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(l.prefix));
  Octets tail;
  std::vector<Octets> units = ulpdus_of(input.subspan(l.prefix), l.framing, tail);
  if (units.empty()) {
    // Nothing deframes yet: take the octets as one ULPDU, so that the
    // next round starts from a well-formed FPDU.
    units.emplace_back(tail.begin(), tail.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(tail.size(), 1024)));
    tail.clear();
  }

  switch (rng.below(8)) {
    case 0:
    case 1:
    case 2:
    case 3: {  // the common case: new content in one ULPDU
      Octets& u = units[rng.below(units.size())];
      byte_mutate(u, std::min<std::size_t>(64, 0xffff - std::min<std::size_t>(u.size(), 0xffff)));
      break;
    }
    case 4:
      if (!shuffle_units(units, rng)) byte_mutate(units[0], 16);
      break;
    case 5: {  // split a ULPDU in two
      std::size_t i = rng.below(units.size());
      if (units[i].size() >= 2) {
        std::size_t cut = 1 + rng.below(units[i].size() - 1);
        Octets second(units[i].begin() + static_cast<std::ptrdiff_t>(cut), units[i].end());
        units[i].resize(cut);
        units.insert(units.begin() + static_cast<std::ptrdiff_t>(i + 1), std::move(second));
      }
      break;
    }
    case 6:  // configuration, read cuts, Request/Reply: plain bytes
      if (prefix.empty()) break;  // a layout without a prefix keeps none
      byte_mutate(prefix, 8);
      l = layout(prefix);
      break;
    default:  // keep the structure, keep the tail: NeedMore paths
      byte_mutate(tail, 16);
      break;
  }

  Octets out;
  out.reserve(max_size);  // what can be returned: one allocation, not one per FPDU framed
  out = prefix;
  mpa::FramerConfig fc = l.framing;
  mpa::Framer framer(fc);
  const std::size_t broken = rng.one_in(8) ? rng.below(units.size()) : units.size();
  for (std::size_t i = 0; i < units.size(); ++i) {
    const Octets& u = units[i];
    if (u.size() > 0xffff) continue;
    framer.frame(wire::Bytes(u), out, i == broken ? break_one(rng, u.size()) : mpa::FramerOverrides{});
    if (out.size() > max_size) break;
  }
  if (rng.one_in(4)) out.insert(out.end(), tail.begin(), tail.end());
  return emit(out, data, size, max_size);
}

// ------------------------------------------------------------- CLC stream

namespace {

using clc::kHeaderSize;
using clc::kTrailerSize;
constexpr std::size_t kMinMessage = kHeaderSize + kTrailerSize;

using ClcHeader = wire::Header<clc::ClcHeaderSpec>;
using ClcTrailer = wire::Header<clc::TrailerSpec>;

// Splits at the header's Length field while it fits what follows.
std::vector<Octets> messages_of(Bytes stream, Octets& tail) {
  std::vector<Octets> out;
  std::size_t at = 0;
  while (stream.size() - at >= kHeaderSize) {
    const auto length = static_cast<std::size_t>(ClcHeader::read(stream.subspan(at), clc::ClcHeaderSpec::Field::Length));
    if (length < kMinMessage || length > stream.size() - at) break;
    out.emplace_back(stream.begin() + static_cast<std::ptrdiff_t>(at),
                     stream.begin() + static_cast<std::ptrdiff_t>(at + length));
    at += length;
  }
  tail.assign(stream.begin() + static_cast<std::ptrdiff_t>(at), stream.end());
  return out;
}

// RFC 7609 App. A.2: Length counts the whole message; the trailer repeats
// the header's eyecatcher.
void fix_message(Octets& m, Rng& rng) {
  if (m.size() < kMinMessage) m.resize(kMinMessage, 0);
  if (m.size() > clc::kMaxMessageLength) m.resize(clc::kMaxMessageLength);
  if (rng.one_in(8)) {
    const std::uint32_t eye = rng.one_in(2) ? clc::kEyecatcherSmcr : clc::kEyecatcherSmcd;
    ClcHeader::write(m, clc::ClcHeaderSpec::Field::Eyecatcher, eye);
  }
  ClcHeader::write(m, clc::ClcHeaderSpec::Field::Length, m.size());
  ClcTrailer::write(wire::MutableBytes(m).last(kTrailerSize), clc::TrailerSpec::Field::Eyecatcher,
                    ClcHeader::read(m, clc::ClcHeaderSpec::Field::Eyecatcher));
}

}  // namespace

std::size_t mutate_clc_stream(std::uint8_t* data, std::size_t size, std::size_t max_size,
                              unsigned int seed, ClcLayoutFn layout) {
  Rng rng(seed);
  const Bytes input(data, size);
  const std::size_t p = std::min(layout(input), size);
  Octets prefix(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(p));
  Octets tail;
  std::vector<Octets> units = messages_of(input.subspan(p), tail);
  if (units.empty()) {
    units.emplace_back(tail.begin(), tail.end());
    tail.clear();
  }
  switch (rng.below(6)) {
    case 0:
    case 1:
    case 2: {
      Octets& m = units[rng.below(units.size())];
      byte_mutate(m, 64);
      fix_message(m, rng);
      break;
    }
    case 3:
      if (!shuffle_units(units, rng)) fix_message(units[0], rng);
      break;
    case 4:
      if (!prefix.empty()) byte_mutate(prefix, 8);  // a layout without a prefix keeps none
      else fix_message(units[rng.below(units.size())], rng);
      break;
    default:
      for (Octets& m : units) fix_message(m, rng);
      break;
  }
  Octets out = prefix;
  for (const Octets& m : units) out.insert(out.end(), m.begin(), m.end());
  if (rng.one_in(4)) out.insert(out.end(), tail.begin(), tail.end());
  return emit(out, data, size, max_size);
}

}  // namespace rdmaconf::fuzz
