// The FPDU framer (RFC 5044 §4.1, §4.3, §4.4): known-answer FPDUs with CRCs
// computed by hand (a bitwise CRC32c, independent of ISA-L), PAD 0-3,
// Markers in front of the header, inside it and inside the CRC, and every
// override a conformance case can force.
#include "mpa/framer.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "wire/crc32c.hpp"

namespace rdmaconf::mpa {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes iota_bytes(std::size_t n) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i + 1);
  return b;
}

Bytes frame_one(FramerConfig config, const Bytes& ulpdu, const FramerOverrides& o = {}) {
  Framer f(config);
  Bytes out;
  const std::size_t n = f.frame(ulpdu, out, o);
  EXPECT_EQ(n, out.size());
  EXPECT_EQ(f.stream_position(), config.stream_position + out.size());
  return out;
}

FramerConfig no_markers() { return FramerConfig{false, true, 0}; }
FramerConfig markers_at(std::uint64_t position) { return FramerConfig{true, true, position}; }

// RFC 5044 §4.1: ULPDU_Length, ULPDU, PAD to a multiple of 4, CRC32c least
// significant octet first (RFC 5044 §4.4).
TEST(MpaFramer, KnownAnswerPad0) {
  EXPECT_EQ(frame_one(no_markers(), iota_bytes(2)),
            (Bytes{0x00, 0x02,                // ULPDU_Length 2
                   0x01, 0x02,                // ULPDU
                   0x4a, 0xf1, 0x91, 0xf5}));  // CRC, no PAD
}

TEST(MpaFramer, KnownAnswerPad1) {
  EXPECT_EQ(frame_one(no_markers(), iota_bytes(5)),
            (Bytes{0x00, 0x05, 0x01, 0x02, 0x03, 0x04, 0x05,  //
                   0x00,                                      // PAD 1
                   0x5a, 0x3b, 0x0d, 0x7f}));
}

TEST(MpaFramer, KnownAnswerPad2) {
  EXPECT_EQ(frame_one(no_markers(), iota_bytes(4)),
            (Bytes{0x00, 0x04, 0x01, 0x02, 0x03, 0x04,  //
                   0x00, 0x00,                          // PAD 2
                   0x39, 0xee, 0x26, 0x4a}));
}

TEST(MpaFramer, KnownAnswerPad3) {
  EXPECT_EQ(frame_one(no_markers(), iota_bytes(3)),
            (Bytes{0x00, 0x03, 0x01, 0x02, 0x03,  //
                   0x00, 0x00, 0x00,              // PAD 3
                   0xaa, 0xfa, 0x1d, 0xc9}));
}

// RFC 5044 §4.3: at the start of full operation (a multiple of 512) a
// Marker precedes the FPDU with FPDUPTR 0; the CRC covers it.
TEST(MpaFramer, KnownAnswerLeadingMarker) {
  EXPECT_EQ(frame_one(markers_at(0), iota_bytes(2)),
            (Bytes{0x00, 0x00, 0x00, 0x00,  // Marker: Reserved 0, FPDUPTR 0
                   0x00, 0x02, 0x01, 0x02,  // ULPDU_Length 2, ULPDU
                   0x07, 0x08, 0xde, 0x31}));
}

// A Marker between the two octets of ULPDU_Length points 1 octet back.
TEST(MpaFramer, KnownAnswerMarkerInsideHeader) {
  EXPECT_EQ(frame_one(markers_at(511), iota_bytes(2)),
            (Bytes{0x00,                    // ULPDU_Length, first octet (stream 511)
                   0x00, 0x00, 0x00, 0x01,  // Marker at 512: FPDUPTR 1
                   0x02, 0x01, 0x02,        // ULPDU_Length second octet, ULPDU
                   0xbf, 0xa2, 0x9b, 0xec}));
}

// A Marker inside the CRC field: the CRC covers the octets before the
// field only, so it equals the marker-free CRC of the same FPDU.
TEST(MpaFramer, KnownAnswerMarkerInsideCrc) {
  EXPECT_EQ(frame_one(markers_at(506), iota_bytes(2)),
            (Bytes{0x00, 0x02, 0x01, 0x02,  // stream 506-509
                   0x4a, 0xf1,              // CRC octets 1-2
                   0x00, 0x00, 0x00, 0x06,  // Marker at 512: FPDUPTR 6
                   0x91, 0xf5}));           // CRC octets 3-4
}

TEST(MpaFramer, FpduSizeAndStreamPositionCountMarkers) {
  Framer f(markers_at(0));
  Bytes out;
  const Bytes ulpdu = iota_bytes(1000);
  const std::size_t predicted = f.fpdu_size(ulpdu.size());
  EXPECT_EQ(f.frame(ulpdu, out), predicted);
  // 2 + 1000 + 2 PAD + 4 CRC = 1008 logical octets; Markers at 0 and 512,
  // and the FPDU ends at 1016, before the next one is due.
  EXPECT_EQ(predicted, 1008u + 2 * 4);
  EXPECT_EQ(f.stream_position(), predicted);
  // Every Marker sits on a multiple of 512 and points back to the header at 4.
  for (std::size_t m = 0; m < out.size(); m += 512) {
    const std::uint16_t fpduptr = static_cast<std::uint16_t>(out[m + 2] << 8 | out[m + 3]);
    EXPECT_EQ(fpduptr, m == 0 ? 0 : m - 4) << m;
  }
}

TEST(MpaFramer, MaxUlpduLengthFitsTheBudget) {
  std::vector<std::size_t> budgets = {6, 7, 12, 100, 1460, 9000, 65541, 65542, 66100, 70000};
  for (std::size_t b = 500; b < 1600; ++b) budgets.push_back(b);  // across one and two Markers
  for (std::uint64_t pos : {0ull, 4ull, 508ull, 510ull, 511ull, 1000ull}) {
    for (bool markers : {false, true}) {
      Framer f(FramerConfig{markers, true, pos});
      for (std::size_t budget : budgets) {
        const std::size_t n = f.max_ulpdu_length(budget);
        if (f.fpdu_size(0) > budget) {
          EXPECT_EQ(n, 0u);  // not even an empty ULPDU fits
          continue;
        }
        EXPECT_LE(f.fpdu_size(n), budget);
        // The largest: one octet more no longer fits, or ULPDU_Length is full.
        if (n < 0xffff) {
          EXPECT_GT(f.fpdu_size(n + 1), budget) << pos << " " << markers << " " << budget;
        }
      }
      EXPECT_EQ(f.max_ulpdu_length(5), 0u);
    }
  }
}

TEST(MpaFramer, ChunksAndBytesFrameTheSame) {
  const Bytes ulpdu = iota_bytes(777);
  wire::Chunks pieces;
  pieces.append(wire::Bytes(ulpdu).first(14));
  pieces.append(wire::Bytes(ulpdu).subspan(14, 500));
  pieces.append(wire::Bytes(ulpdu).subspan(514));
  Framer a(markers_at(100)), b(markers_at(100));
  Bytes out_a, out_b;
  a.frame(ulpdu, out_a);
  b.frame(pieces, out_b);
  EXPECT_EQ(out_a, out_b);
}

TEST(MpaFramer, CrcOffSendsZero) {
  const Bytes out = frame_one(FramerConfig{false, false, 0}, iota_bytes(2));
  EXPECT_EQ(out, (Bytes{0x00, 0x02, 0x01, 0x02, 0, 0, 0, 0}));
}

// --- overrides -------------------------------------------------------------

TEST(MpaFramer, ForcedUlpduLengthPadAndCrc) {
  FramerOverrides o;
  o.ulpdu_length = 0x1234;
  o.pad_length = 1;
  o.pad_octet = 0xee;
  o.crc = 0xdeadbeef;
  EXPECT_EQ(frame_one(no_markers(), iota_bytes(2), o),
            (Bytes{0x12, 0x34, 0x01, 0x02, 0xee, 0xef, 0xbe, 0xad, 0xde}));
}

TEST(MpaFramer, NonZeroPadIsCoveredByTheComputedCrc) {
  FramerOverrides o;
  o.pad_octet = 0x55;
  const Bytes out = frame_one(no_markers(), iota_bytes(3), o);
  const Bytes body(out.begin(), out.end() - 4);
  EXPECT_EQ(body, (Bytes{0x00, 0x03, 0x01, 0x02, 0x03, 0x55, 0x55, 0x55}));
  const auto crc = wire::crc32c_wire_octets(wire::crc32c(body));
  EXPECT_TRUE(std::equal(crc.begin(), crc.end(), out.end() - 4));
}

TEST(MpaFramer, WrongFpduPtrAndMissingMarker) {
  FramerOverrides wrong;
  wrong.fpdu_ptr = 0x0bad;
  wrong.marker_reserved = 0xffff;
  const Bytes out = frame_one(markers_at(511), iota_bytes(2), wrong);
  EXPECT_EQ(Bytes(out.begin() + 1, out.begin() + 5), (Bytes{0xff, 0xff, 0x0b, 0xad}));

  FramerOverrides omit;
  omit.omit_markers = true;
  Framer f(markers_at(0));
  Bytes missing;
  f.frame(iota_bytes(2), missing, omit);
  EXPECT_EQ(missing, frame_one(FramerConfig{false, true, 0}, iota_bytes(2)));
  EXPECT_EQ(f.stream_position(), 8u);  // the stream moved on by what was sent
}

}  // namespace
}  // namespace rdmaconf::mpa
