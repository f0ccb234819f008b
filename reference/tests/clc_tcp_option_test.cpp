// The SMC TCP option (RFC 7609 §3.1, App. A.1; experimental option format
// RFC 6994): build, parse, detection inside raw TCP headers, malformed
// option lists, and the "both SYNs" rule.
#include "clc/tcp_option.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "clc_test_util.hpp"

namespace rdmaconf::clc {
namespace {

using test::hex;

// A TCP header: ports 40000 -> 12345, seq/ack, data offset from the options.
std::vector<std::uint8_t> tcp_header(std::uint8_t flags, const std::vector<std::uint8_t>& options) {
  std::vector<std::uint8_t> h = hex(R"(
  9c 40  30 39                # source port 40000, destination port 12345
  00 00 00 01  00 00 00 00    # sequence number 1, acknowledgment 0
  00  00  ff ff  00 00  00 00 # data offset (set below), flags (set below), window, checksum, urgent
)");
  h.insert(h.end(), options.begin(), options.end());
  h[12] = static_cast<std::uint8_t>((h.size() / 4) << 4);
  h[13] = flags;
  return h;
}

constexpr std::uint8_t kSyn = 0x02;
constexpr std::uint8_t kSynAck = 0x12;

TEST(ClcTcpOption, BuildKnownAnswer) {
  auto o = build_smc_option();
  EXPECT_EQ(std::vector<std::uint8_t>(o.begin(), o.end()), hex("fe 06 e2 d4 c3 d9"));  // kind 254, len 6, "SMCR"
  auto a = build_smc_option_aligned();
  EXPECT_EQ(std::vector<std::uint8_t>(a.begin(), a.end()), hex("01 01 fe 06 e2 d4 c3 d9"));  // NOP NOP + option
}

TEST(ClcTcpOption, ParseSmcAndForeignExperiments) {
  EXPECT_TRUE(*parse_smc_option(hex("fe 06 e2 d4 c3 d9")));
  EXPECT_FALSE(*parse_smc_option(hex("fe 04 78 9a"))) << "a 16-bit ExID of another experiment";
  EXPECT_FALSE(*parse_smc_option(hex("fe 06 12 34 56 78")));
  auto short_opt = parse_smc_option(hex("fe 03 e2"));
  ASSERT_FALSE(short_opt.ok());
  EXPECT_EQ(short_opt.error().rfc_section, "RFC 6994 §3");
  auto long_smc = parse_smc_option(hex("fe 08 e2 d4 c3 d9 00 00"));
  ASSERT_FALSE(long_smc.ok());
  EXPECT_EQ(long_smc.error().field, "Length");
  EXPECT_EQ(long_smc.error().rfc_section, cite::kTcpOption);
}

TEST(ClcTcpOption, DetectInSynAndSynAck) {
  // A Linux-like SYN: MSS, SACK permitted, timestamps, window scale, SMC.
  auto syn = tcp_header(kSyn, hex(R"(
  02 04 05 b4  04 02  08 0a 00 00 00 01 00 00 00 00  01 03 03 07  # MSS, SACK-perm, TS, NOP + wscale
  01 01 fe 06 e2 d4 c3 d9     # NOP NOP SMC option
)"));
  auto d = detect(syn);
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_TRUE(d->syn);
  EXPECT_FALSE(d->ack);
  EXPECT_TRUE(d->smc_option);

  auto synack = tcp_header(kSynAck, hex("02 04 05 b4 01 01 04 02"));
  auto d2 = detect(synack);
  ASSERT_TRUE(d2.ok());
  EXPECT_TRUE(d2->syn && d2->ack);
  EXPECT_FALSE(d2->smc_option);

  auto plain = tcp_header(kSyn, {});
  EXPECT_FALSE(detect(plain)->smc_option);
  auto after_eol = tcp_header(kSyn, hex("00 00 fe 06 e2 d4 c3 d9"));  // EOL ends the list
  EXPECT_FALSE(detect(after_eol)->smc_option);
}

TEST(ClcTcpOption, MalformedOptionListsAreTypedErrors) {
  struct Case {
    const char* what;
    std::vector<std::uint8_t> header;
    std::string_view field;
  };
  std::vector<Case> cases = {
      {"short header", hex("00 01 02"), "TCP header"},
      {"data offset below 5", [] { auto h = tcp_header(kSyn, {}); h[12] = 0x40; return h; }(), "Data Offset"},
      {"data offset past buffer", [] { auto h = tcp_header(kSyn, {}); h[12] = 0x60; return h; }(), "Data Offset"},
      {"option length 0", tcp_header(kSyn, hex("02 00 00 00")), "Option Length"},
      {"option length past header", tcp_header(kSyn, hex("01 02 09 05")), "Option Length"},
      {"no length octet", tcp_header(kSyn, hex("01 01 01 08")), "Option Length"},
      {"SMC ExID with wrong length", tcp_header(kSyn, hex("fe 08 e2 d4 c3 d9 00 00")), "Length"},
      {"experimental option too short", tcp_header(kSyn, hex("fe 02 01 01")), "Length"},
  };
  for (const auto& c : cases) {
    auto r = detect(c.header);
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.error().field, c.field) << c.what << ": " << r.error().to_string();
  }
}

TEST(ClcTcpOption, EveryTruncatedHeaderIsHandled) {
  auto syn = tcp_header(kSyn, hex("02 04 05 b4 01 01 fe 06 e2 d4 c3 d9"));
  for (std::size_t n = 0; n < syn.size(); ++n) {
    std::vector<std::uint8_t> part(syn.begin(), syn.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(detect(part).ok()) << n;  // data offset says 32 octets
  }
}

TEST(ClcTcpOption, ClcFollowsOnlyWhenBothSynsCarriedIt) {
  EXPECT_TRUE(clc_follows(true, true));
  EXPECT_FALSE(clc_follows(true, false));
  EXPECT_FALSE(clc_follows(false, true));
  EXPECT_FALSE(clc_follows(false, false));
}

}  // namespace
}  // namespace rdmaconf::clc
