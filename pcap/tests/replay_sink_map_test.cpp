// The replayer's Data Sink map (replay/sink_map.hpp): a recorded RDMA Read Response is rewritten to
// the Sink STag and Sink TO of the live peer's Read Request (RFC 5040 §4.4), its CRC recomputed
// when the recorded one was valid (RFC 5044 §4.4), and left alone otherwise.
#include <gtest/gtest.h>

#include <vector>

#include "mpa/headers.hpp"
#include "replay/sink_map.hpp"
#include "wire/bytes.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::replay {
namespace {

// A Read Response FPDU: ULPDU_Length 16 (tagged DDP header, 2 payload octets), PAD 2, CRC.
std::vector<std::uint8_t> read_response(std::uint32_t stag, std::uint64_t to, bool with_crc) {
  std::vector<std::uint8_t> f = {
      0x00, 0x10,                                      // ULPDU_Length 16
      0xc1, 0x42,                                      // DDP T=1 L=1 DV=1; RDMAP RV=1 opcode 2 (Read Response)
      0, 0, 0, 0,                                      // STag
      0, 0, 0, 0, 0, 0, 0, 0,                          // TO
      0xde, 0xad,                                      // payload
      0x00, 0x00,                                      // PAD
      0, 0, 0, 0};                                     // CRC
  wire::store_be(wire::MutableBytes(f).subspan(4, 4), stag);
  wire::store_be(wire::MutableBytes(f).subspan(8, 8), to);
  if (with_crc) {
    const auto crc = wire::crc32c_wire_octets(wire::crc32c(wire::Bytes(f).first(f.size() - 4)));
    std::copy(crc.begin(), crc.end(), f.end() - 4);
  }
  return f;
}

TEST(ReplaySinkMap, RewritesTheResponseToTheLiveSinkKeepingItsOffset) {
  SinkMap map;
  map.learn({0xe2e5a400, 0x1000}, {0x12345600, 0x7f0000002000});
  std::vector<std::uint8_t> f = read_response(0xe2e5a400, 0x1010, true);
  ASSERT_EQ(map.rewrite({0xe2e5a400, 0x1010, 16, false, true}, f), RewriteResult::kRewritten);
  EXPECT_EQ(f, read_response(0x12345600, 0x7f0000002010, true));  // STag, TO + 0x10, fresh CRC
}

TEST(ReplaySinkMap, LeavesAnInvalidOrAbsentCrcAsRecorded) {
  SinkMap map;
  map.learn({0xe2e5a400, 0x1000}, {0x12345600, 0x2000});
  std::vector<std::uint8_t> f = read_response(0xe2e5a400, 0x1000, false);  // CRC off: field zero
  ASSERT_EQ(map.rewrite({0xe2e5a400, 0x1000, 16, false, false}, f), RewriteResult::kRewritten);
  EXPECT_EQ(f, read_response(0x12345600, 0x2000, false));
}

TEST(ReplaySinkMap, OtherStagsSameValuesAndMarkersAreNotTouched) {
  SinkMap map;
  map.learn({0x11111100, 0x0}, {0x11111100, 0x0});  // the live peer chose the recorded values
  map.learn({0xe2e5a400, 0x1000}, {0x12345600, 0x2000});
  std::vector<std::uint8_t> f = read_response(0x11111100, 0x0, false);
  const std::vector<std::uint8_t> before = f;
  EXPECT_EQ(map.rewrite({0x11111100, 0x0, 16, false, false}, f), RewriteResult::kUnchanged);
  EXPECT_EQ(map.rewrite({0x22222200, 0x0, 16, false, false}, f), RewriteResult::kUnchanged);
  EXPECT_EQ(f, before);
  std::vector<std::uint8_t> g = read_response(0xe2e5a400, 0x1000, false);
  EXPECT_EQ(map.rewrite({0xe2e5a400, 0x1000, 16, true, false}, g), RewriteResult::kNotRewritable);
  EXPECT_EQ(map.rewrite({0xe2e5a400, 0x1000, 20, false, false}, g), RewriteResult::kNotRewritable);  // length disagrees
  EXPECT_EQ(g, read_response(0xe2e5a400, 0x1000, false));
}

}  // namespace
}  // namespace rdmaconf::replay
