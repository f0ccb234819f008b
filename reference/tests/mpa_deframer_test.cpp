// The streaming deframer (RFC 5044 §4.1, §4.3, §4.4) under every TCP split:
// each split point, one octet at a time, several FPDUs per read; PAD 0-3;
// Markers in front of the header, inside it, inside the CRC and exactly at
// an FPDU's end; every error with the LLP code it asks to send; and long
// framer -> deframer streams (fixed seed).
#include "mpa/deframer.hpp"

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "mpa/framer.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes pattern(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

DeframerConfig rx(bool markers, std::uint64_t position = 0, bool crc = true) {
  DeframerConfig c;
  c.markers = markers;
  c.crc = crc;
  c.stream_position = position;
  return c;
}

struct Stream {
  Bytes octets;
  std::vector<Bytes> ulpdus;
};

Stream build(const std::vector<std::size_t>& sizes, bool markers, std::uint64_t position) {
  Stream s;
  Framer f(FramerConfig{markers, true, position});
  std::uint8_t seed = 1;
  for (std::size_t n : sizes) {
    s.ulpdus.push_back(pattern(n, seed++));
    f.frame(s.ulpdus.back(), s.octets);
  }
  return s;
}

struct Outcome {
  std::vector<Bytes> ulpdus;
  std::vector<Fpdu> fpdus;  // views are dead after the run; scalars only
  std::optional<DeframeError> error;
  std::size_t left_over = 0;
};

// Plays a receiver: appends each read to its buffer, deframes all it can,
// drops consumed octets. NeedMore must ask for more than it was given.
Outcome run(const Bytes& stream, const std::vector<std::size_t>& cuts, DeframerConfig config) {
  Deframer d(config);
  Outcome out;
  Bytes buffer;
  std::size_t from = 0;
  auto feed_and_drain = [&](std::size_t to) {
    buffer.insert(buffer.end(), stream.begin() + static_cast<std::ptrdiff_t>(from),
                  stream.begin() + static_cast<std::ptrdiff_t>(to));
    from = to;
    for (;;) {
      DeframeResult r = d.next(buffer);
      if (auto* need = std::get_if<NeedMore>(&r)) {
        EXPECT_GT(need->at_least, buffer.size());
        return;
      }
      if (auto* e = std::get_if<DeframeError>(&r)) {
        out.error = *e;
        return;
      }
      Fpdu& f = std::get<Fpdu>(r);
      EXPECT_EQ(f.ulpdu().size(), f.ulpdu_length);
      out.ulpdus.push_back(f.ulpdu().to_vector());
      out.fpdus.push_back(f);
      buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(f.consumed));
    }
  };
  for (std::size_t cut : cuts) {
    if (out.error) break;
    feed_and_drain(cut);
  }
  if (!out.error) feed_and_drain(stream.size());
  out.left_over = buffer.size();
  return out;
}

void expect_clean(const Stream& s, const Outcome& o, const std::string& what) {
  ASSERT_FALSE(o.error) << what << ": " << o.error->detail.to_string();
  ASSERT_EQ(o.ulpdus, s.ulpdus) << what;
  EXPECT_EQ(o.left_over, 0u) << what;
  for (const Fpdu& f : o.fpdus) {
    EXPECT_EQ(f.crc_status, CrcStatus::kMatch) << what;
    EXPECT_FALSE(f.pad_nonzero) << what;
  }
}

// --- single FPDUs --------------------------------------------------------

TEST(MpaDeframer, KnownAnswerFpduAndZeroCopyViews) {
  const Bytes fpdu = {0x00, 0x05, 0x01, 0x02, 0x03, 0x04, 0x05, 0x00, 0x5a, 0x3b, 0x0d, 0x7f};
  Deframer d(rx(false));
  DeframeResult r = d.next(fpdu);
  ASSERT_TRUE(std::holds_alternative<Fpdu>(r));
  const Fpdu& f = std::get<Fpdu>(r);
  EXPECT_EQ(f.ulpdu_length, 5);
  EXPECT_EQ(f.pad_length, 1u);
  EXPECT_EQ(f.consumed, fpdu.size());
  EXPECT_EQ(f.received_crc, 0x7f0d3b5au);
  EXPECT_EQ(f.computed_crc, 0x7f0d3b5au);
  EXPECT_EQ(f.crc_status, CrcStatus::kMatch);
  ASSERT_EQ(f.ulpdu().pieces(), 1u);
  EXPECT_EQ(f.ulpdu().piece(0).data(), fpdu.data() + 2);  // a view, not a copy
  EXPECT_EQ(d.stream_position(), fpdu.size());
}

TEST(MpaDeframer, NeedMoreNamesTheOctetsRequired) {
  const Stream s = build({100}, false, 0);
  Deframer d(rx(false));
  EXPECT_EQ(std::get<NeedMore>(d.next(wire::Bytes(s.octets).first(0))).at_least, 2u);
  EXPECT_EQ(std::get<NeedMore>(d.next(wire::Bytes(s.octets).first(1))).at_least, 2u);
  EXPECT_EQ(std::get<NeedMore>(d.next(wire::Bytes(s.octets).first(2))).at_least, 108u);
  EXPECT_EQ(std::get<NeedMore>(d.next(wire::Bytes(s.octets).first(107))).at_least, 108u);
  EXPECT_TRUE(std::holds_alternative<Fpdu>(d.next(s.octets)));
}

// Markers split the header: the header's second octet lies after the Marker.
TEST(MpaDeframer, NeedMoreCountsAMarkerInsideTheHeader) {
  const Stream s = build({2}, true, 511);
  Deframer d(rx(true, 511));
  EXPECT_EQ(std::get<NeedMore>(d.next(wire::Bytes(s.octets).first(1))).at_least, 6u);
  EXPECT_EQ(std::get<NeedMore>(d.next(wire::Bytes(s.octets).first(5))).at_least, 6u);
  EXPECT_EQ(std::get<NeedMore>(d.next(wire::Bytes(s.octets).first(6))).at_least, 12u);
}

TEST(MpaDeframer, PadLengthsZeroToThree) {
  for (std::size_t n : {2u, 5u, 4u, 3u}) {
    const Stream s = build({n}, false, 0);
    const Outcome o = run(s.octets, {}, rx(false));
    expect_clean(s, o, "ulpdu " + std::to_string(n));
    EXPECT_EQ(o.fpdus.at(0).pad_length, (4 - (2 + n) % 4) % 4);
  }
}

// --- Marker positions (RFC 5044 §4.3) ---------------------------------

struct Placement {
  const char* what;
  std::uint64_t position;
  std::size_t ulpdu;
};

// Each case puts the Marker at 512 where the name says, for a 2-octet ULPDU
// (8 logical octets) unless noted.
const Placement kPlacements[] = {
    {"leading: FPDU starts on a Marker", 512, 2},
    {"inside ULPDU_Length", 511, 2},
    {"between header and ULPDU", 510, 2},
    {"inside the ULPDU", 509, 2},
    {"inside the PAD", 512 - 6, 3},       // 2 + 3 ULPDU, then PAD 3: Marker after 1 PAD octet
    {"right before the CRC", 512 - 4, 2},
    {"inside the CRC", 512 - 6, 2},
    {"before the last CRC octet", 512 - 7, 2},
};

TEST(MpaDeframer, MarkerAtEveryPlaceOfTheFpdu) {
  for (const Placement& p : kPlacements) {
    const Stream s = build({p.ulpdu}, true, p.position);
    const Outcome o = run(s.octets, {}, rx(true, p.position));
    expect_clean(s, o, p.what);
    ASSERT_EQ(o.fpdus.size(), 1u) << p.what;
    EXPECT_EQ(o.fpdus[0].consumed, s.octets.size()) << p.what;
  }
}

// RFC 5044 §4.3: a Marker due right after an FPDU's CRC belongs to the next
// FPDU, with FPDUPTR 0, and is covered by the next FPDU's CRC.
TEST(MpaDeframer, MarkerExactlyAtAnFpdusEndBelongsToTheNext) {
  // First FPDU: 8 logical octets from 504 ends at 512; the second starts
  // with the Marker.
  const Stream s = build({2, 2}, true, 504);
  ASSERT_EQ(s.octets.size(), 8u + 12u);
  EXPECT_EQ(Bytes(s.octets.begin() + 8, s.octets.begin() + 12), (Bytes{0, 0, 0, 0}));
  Deframer d(rx(true, 504));
  DeframeResult first = d.next(s.octets);
  ASSERT_TRUE(std::holds_alternative<Fpdu>(first));
  EXPECT_EQ(std::get<Fpdu>(first).consumed, 8u);
  EXPECT_TRUE(std::get<Fpdu>(first).markers.empty());
  DeframeResult second = d.next(wire::Bytes(s.octets).subspan(8));
  ASSERT_TRUE(std::holds_alternative<Fpdu>(second));
  const Fpdu& f = std::get<Fpdu>(second);
  EXPECT_EQ(f.stream_position, 512u);
  EXPECT_EQ(f.consumed, 12u);
  ASSERT_EQ(f.markers.size(), 1u);
  EXPECT_EQ(f.markers[0].stream_position, 512u);
  EXPECT_EQ(f.markers[0].fpdu_ptr, 0);
  EXPECT_TRUE(f.markers[0].valid);
  EXPECT_EQ(f.crc_status, CrcStatus::kMatch);
}

TEST(MpaDeframer, MarkersReportedWithFpduPtrAndUlpduViewsSkipThem) {
  const Stream s = build({1200}, true, 0);
  Deframer d(rx(true));
  DeframeResult r = d.next(s.octets);
  ASSERT_TRUE(std::holds_alternative<Fpdu>(r)) << std::get<DeframeError>(r).detail.to_string();
  const Fpdu& f = std::get<Fpdu>(r);
  ASSERT_EQ(f.markers.size(), 3u);  // at 0, 512, 1024
  EXPECT_EQ(f.markers[0].fpdu_ptr, 0);
  EXPECT_EQ(f.markers[1].fpdu_ptr, 508);
  EXPECT_EQ(f.markers[2].fpdu_ptr, 1020);
  EXPECT_EQ(f.ulpdu().pieces(), 3u);
  EXPECT_EQ(f.ulpdu().to_vector(), s.ulpdus[0]);
  f.ulpdu().for_each([&](wire::Bytes piece) {
    EXPECT_GE(piece.data(), s.octets.data());
    EXPECT_LE(piece.data() + piece.size(), s.octets.data() + s.octets.size());
  });
}

// --- every TCP split ---------------------------------------------------

void every_two_piece_split(const Stream& s, DeframerConfig c, const std::string& what) {
  for (std::size_t cut = 0; cut <= s.octets.size(); ++cut)
    expect_clean(s, run(s.octets, {cut}, c), what + " cut at " + std::to_string(cut));
}

TEST(MpaDeframer, EverySplitPointWithoutMarkers) {
  const Stream s = build({2, 5, 4, 3, 0, 300, 17}, false, 0);
  every_two_piece_split(s, rx(false), "no markers");
}

TEST(MpaDeframer, EverySplitPointWithMarkers) {
  for (std::uint64_t start : {0ull, 506ull, 511ull}) {
    const Stream s = build({2, 5, 4, 3, 700, 1, 600, 2, 2}, true, start);
    every_two_piece_split(s, rx(true, start), "markers from " + std::to_string(start));
  }
}

TEST(MpaDeframer, EveryPairOfSplitPoints) {
  const Stream s = build({3, 40, 2, 509, 1}, true, 500);
  for (std::size_t a = 0; a <= s.octets.size(); a += 3)
    for (std::size_t b = a; b <= s.octets.size(); b += 5)
      expect_clean(s, run(s.octets, {a, b}, rx(true, 500)), std::to_string(a) + "/" + std::to_string(b));
}

TEST(MpaDeframer, OneOctetAtATime) {
  for (bool markers : {false, true}) {
    const Stream s = build({2, 5, 4, 3, 1500, 0, 9}, markers, markers ? 509 : 0);
    std::vector<std::size_t> cuts(s.octets.size());
    for (std::size_t i = 0; i < cuts.size(); ++i) cuts[i] = i + 1;
    expect_clean(s, run(s.octets, cuts, rx(markers, markers ? 509 : 0)), markers ? "markers" : "plain");
  }
}

TEST(MpaDeframer, SeveralFpdusInOneRead) {
  const Stream s = build(std::vector<std::size_t>(50, 30), true, 0);
  const Outcome o = run(s.octets, {}, rx(true));
  expect_clean(s, o, "50 FPDUs at once");
  EXPECT_EQ(o.fpdus.size(), 50u);
}

TEST(MpaDeframer, LongRandomStreamsRoundTrip) {
  std::mt19937 rng(20240601);
  for (int round = 0; round < 20; ++round) {
    const bool markers = round % 2 == 1;
    const std::uint64_t start = rng() % 2048;
    std::vector<std::size_t> sizes(200);
    for (auto& n : sizes) n = rng() % 5000;
    const Stream s = build(sizes, markers, start);
    std::vector<std::size_t> cuts;
    for (std::size_t at = 0; at < s.octets.size(); at += 1 + rng() % 3000) cuts.push_back(at);
    expect_clean(s, run(s.octets, cuts, rx(markers, start)), "round " + std::to_string(round));
  }
}

// --- errors and the Terminate code each asks for (RFC 5044 §8) -----------

DeframeError expect_error(const Bytes& stream, DeframerConfig c, LlpErrorCode code, std::string_view field) {
  const Outcome o = run(stream, {}, c);
  EXPECT_TRUE(o.error.has_value());
  if (!o.error) return {};
  EXPECT_EQ(o.error->terminate_code, code) << o.error->detail.to_string();
  EXPECT_EQ(o.error->detail.field, field) << o.error->detail.to_string();
  return *o.error;
}

TEST(MpaDeframerErrors, BadCrcAsksForCrcErrorTerminate) {
  Framer f(FramerConfig{false, true, 0});
  Bytes stream;
  f.frame(pattern(10, 1), stream);
  FramerOverrides bad;
  bad.crc = 0x12345678;
  f.frame(pattern(10, 2), stream, bad);
  const DeframeError e = expect_error(stream, rx(false), LlpErrorCode::kCrcError, "CRC");
  EXPECT_EQ(e.detail.rfc_section, "RFC 5044 §4.4");
  EXPECT_EQ(e.stream_position, 16u);
  EXPECT_EQ(e.detail.offset, 12u);  // the CRC field of the second FPDU
}

// No flipped bit gets through: it fails the CRC (Marker octets included,
// Reserved too) or the FPDUPTR check, or, in ULPDU_Length, makes the
// deframer wait for octets that never come.
TEST(MpaDeframerErrors, NoCorruptedOctetIsDelivered) {
  const Stream s = build({64, 300}, true, 460);
  const std::size_t first_size = Framer(FramerConfig{true, true, 460}).fpdu_size(64);
  ASSERT_EQ(first_size, 72u + 4);  // one Marker at 512
  for (std::size_t i = 0; i < s.octets.size(); ++i) {
    Bytes bad = s.octets;
    bad[i] ^= 0x01;
    const Outcome o = run(bad, {i}, rx(true, 460));
    const bool first = i < first_size;
    EXPECT_TRUE(o.error.has_value() || o.fpdus.size() < (first ? 1u : 2u)) << "flip at " << i;
    if (o.error) {
      EXPECT_TRUE(o.error->terminate_code == LlpErrorCode::kCrcError ||
                  o.error->terminate_code == LlpErrorCode::kMarkerFpduStartMismatch);
    }
  }
}

TEST(MpaDeframerErrors, WrongFpduPtr) {
  Framer f(FramerConfig{true, true, 500});
  Bytes stream;
  FramerOverrides wrong;
  wrong.fpdu_ptr = 7;
  f.frame(pattern(40, 1), stream, wrong);
  const DeframeError e = expect_error(stream, rx(true, 500), LlpErrorCode::kMarkerFpduStartMismatch, "FPDUPTR");
  EXPECT_EQ(e.detail.rfc_section, "RFC 5044 §4.3");
  EXPECT_EQ(e.detail.offset, 12u + 2);  // Marker at stream 512 = FPDU offset 12
}

TEST(MpaDeframerErrors, MissingMarker) {
  Framer f(FramerConfig{true, true, 500});
  Bytes stream;
  FramerOverrides omit;
  omit.omit_markers = true;
  f.frame(pattern(40, 1), stream, omit);
  f.frame(pattern(40, 2), stream);  // enough octets follow to read the Marker slot
  const Outcome o = run(stream, {}, rx(true, 500));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->terminate_code, LlpErrorCode::kMarkerFpduStartMismatch);
}

TEST(MpaDeframerErrors, ForcedUlpduLengthBreaksFraming) {
  Framer f(FramerConfig{false, true, 0});
  Bytes stream;
  FramerOverrides lie;
  lie.ulpdu_length = 6;  // 10 octets are sent
  f.frame(pattern(10, 1), stream, lie);
  f.frame(pattern(10, 2), stream);
  const Outcome o = run(stream, {}, rx(false));
  ASSERT_TRUE(o.error.has_value());
  EXPECT_EQ(o.error->terminate_code, LlpErrorCode::kCrcError);
}

TEST(MpaDeframerErrors, UlpduLengthAboveTheLimitFailsBeforeWaiting) {
  const Bytes header_only = {0x10, 0x00};  // ULPDU_Length 4096, nothing else yet
  DeframerConfig c = rx(false);
  c.max_ulpdu_length = 1024;
  Deframer d(c);
  DeframeResult r = d.next(header_only);
  ASSERT_TRUE(std::holds_alternative<DeframeError>(r));
  EXPECT_EQ(std::get<DeframeError>(r).terminate_code, LlpErrorCode::kMarkerFpduStartMismatch);
  EXPECT_EQ(std::get<DeframeError>(r).detail.field, "ULPDU_Length");
  EXPECT_TRUE(d.failed());
  // A failed deframer stays failed.
  EXPECT_TRUE(std::holds_alternative<DeframeError>(d.next(header_only)));
}

TEST(MpaDeframer, NonZeroPadIsReportedNotRejected) {
  Framer f(FramerConfig{false, true, 0});
  Bytes stream;
  FramerOverrides o;
  o.pad_octet = 0xaa;
  f.frame(pattern(3, 1), stream, o);
  const Outcome out = run(stream, {}, rx(false));
  ASSERT_FALSE(out.error);
  EXPECT_TRUE(out.fpdus.at(0).pad_nonzero);
  EXPECT_EQ(out.fpdus.at(0).crc_status, CrcStatus::kMatch);
}

TEST(MpaDeframer, CrcOffIgnoresTheCrcField) {
  Framer f(FramerConfig{false, true, 0});
  Bytes stream;
  FramerOverrides garbage;
  garbage.crc = 0xffffffff;
  f.frame(pattern(9, 1), stream, garbage);
  const Outcome o = run(stream, {}, rx(false, 0, false));
  ASSERT_FALSE(o.error);
  EXPECT_EQ(o.fpdus.at(0).crc_status, CrcStatus::kNotChecked);
  EXPECT_EQ(o.fpdus.at(0).received_crc, 0xffffffffu);
}

TEST(MpaDeframer, LenientModeReportsInsteadOfFailing) {
  Framer f(FramerConfig{true, true, 500});
  Bytes stream;
  FramerOverrides both;
  both.fpdu_ptr = 1;
  both.crc = 0;
  f.frame(pattern(40, 1), stream, both);
  f.frame(pattern(40, 2), stream);
  DeframerConfig c = rx(true, 500);
  c.fail_on_error = false;
  const Outcome o = run(stream, {}, c);
  ASSERT_FALSE(o.error);
  ASSERT_EQ(o.fpdus.size(), 2u);
  EXPECT_EQ(o.fpdus[0].crc_status, CrcStatus::kMismatch);
  EXPECT_EQ(o.fpdus[1].crc_status, CrcStatus::kMatch);
}

TEST(MpaDeframer, LenientMarkersCarryTheirExpectedFpduPtr) {
  Framer f(FramerConfig{true, true, 500});
  Bytes stream;
  FramerOverrides wrong;
  wrong.fpdu_ptr = 99;
  wrong.marker_reserved = 0xabcd;
  f.frame(pattern(40, 1), stream, wrong);
  DeframerConfig c = rx(true, 500);
  c.fail_on_error = false;
  Deframer d(c);
  DeframeResult r = d.next(stream);
  ASSERT_TRUE(std::holds_alternative<Fpdu>(r));
  const Fpdu& fp = std::get<Fpdu>(r);
  ASSERT_EQ(fp.markers.size(), 1u);
  EXPECT_FALSE(fp.markers[0].valid);
  EXPECT_EQ(fp.markers[0].fpdu_ptr, 99);
  EXPECT_EQ(fp.markers[0].expected_fpdu_ptr, 12);
  EXPECT_EQ(fp.markers[0].reserved, 0xabcd);
}

}  // namespace
}  // namespace rdmaconf::mpa
