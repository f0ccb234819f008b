// CRC32c against the RFC 3720 Appendix B.4 test vectors, and the octet order
// MPA peers put on the wire (RFC 5044 §4.4 uses the iSCSI CRC).
#include "wire/crc32c.hpp"

#include <array>
#include <numeric>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace rdmaconf::wire {
namespace {

// RFC 3720 B.4 gives each vector's CRC as the four octets sent on the wire.
std::array<std::uint8_t, 4> wire(std::uint32_t crc) { return crc32c_wire_octets(crc); }

TEST(Crc32c, Rfc3720_B4_32OctetsOfZeros) {
  std::vector<std::uint8_t> data(32, 0x00);
  EXPECT_EQ(wire(crc32c(data)), (std::array<std::uint8_t, 4>{0xaa, 0x36, 0x91, 0x8a}));
}

TEST(Crc32c, Rfc3720_B4_32OctetsOfOnes) {
  std::vector<std::uint8_t> data(32, 0xff);
  EXPECT_EQ(wire(crc32c(data)), (std::array<std::uint8_t, 4>{0x43, 0xab, 0xa8, 0x62}));
}

TEST(Crc32c, Rfc3720_B4_IncrementingOctets) {
  std::vector<std::uint8_t> data(32);
  std::iota(data.begin(), data.end(), 0);
  EXPECT_EQ(wire(crc32c(data)), (std::array<std::uint8_t, 4>{0x4e, 0x79, 0xdd, 0x46}));
}

TEST(Crc32c, Rfc3720_B4_DecrementingOctets) {
  std::vector<std::uint8_t> data(32);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(31 - i);
  EXPECT_EQ(wire(crc32c(data)), (std::array<std::uint8_t, 4>{0x5c, 0xdb, 0x3f, 0x11}));
}

TEST(Crc32c, Rfc3720_B4_IscsiReadCommandPdu) {
  const std::vector<std::uint8_t> pdu = {
      0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
      0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(wire(crc32c(pdu)), (std::array<std::uint8_t, 4>{0x56, 0x3a, 0x96, 0xd9}));
}

// The well-known check value of CRC-32C over "123456789".
TEST(Crc32c, CheckValue) {
  const std::string s = "123456789";
  EXPECT_EQ(crc32c(Bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size())), 0xe3069283u);
}

TEST(Crc32c, IncrementalOverAnySplitEqualsOneShot) {
  std::vector<std::uint8_t> data(300);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 3);
  const std::uint32_t whole = crc32c(data);
  for (std::size_t split = 0; split <= data.size(); ++split) {
    Crc32c c;
    c.update(Bytes(data).first(split));
    c.update(Bytes(data).subspan(split));
    ASSERT_EQ(c.value(), whole) << "split at " << split;
  }
}

TEST(Crc32c, WireOctetsRoundTrip) {
  const auto octets = crc32c_wire_octets(0x8a9136aau);
  EXPECT_EQ(crc32c_from_wire(octets), 0x8a9136aau);
}

#if defined(__x86_64__)
// XINUSE (XGETBV with ECX = 1, Intel SDM vol. 1 §13.6): which register state
// components are not in their initial state. Bit 2 is the upper halves of
// YMM0-15, bit 6 the upper 256 bits of ZMM0-15: the state legacy-SSE code waits on.
// nullopt where the CPU cannot say.
std::optional<std::uint64_t> upper_vector_state_in_use() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX)) return std::nullopt;
  if (!__get_cpuid_count(0xd, 1, &a, &b, &c, &d) || !(a & (1u << 2))) return std::nullopt;  // XGETBV ECX=1
  unsigned lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (static_cast<std::uint64_t>(hi) << 32 | lo) & ((1u << 2) | (1u << 6));
}

// ISA-L's widest CRC routine leaves the upper vector halves set; update()
// clears them, or every SSE instruction after it is slowed (crc32c.cpp). An
// FPDU-sized input takes that routine where the CPU has it.
TEST(Crc32c, LeavesTheUpperVectorRegisterHalvesClear) {
  if (!upper_vector_state_in_use()) GTEST_SKIP() << "this CPU does not report XINUSE";
  std::vector<std::uint8_t> fpdu(4096, 0x5a);
  Crc32c c;
  c.update(fpdu);
  const std::uint64_t in_use = *upper_vector_state_in_use();
  EXPECT_EQ(in_use, 0u);
  EXPECT_NE(c.value(), 0u);
}
#endif

}  // namespace
}  // namespace rdmaconf::wire
