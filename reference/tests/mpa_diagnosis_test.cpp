// mpa/diagnosis.hpp: fields sent in the other byte order, IRD and ORD
// exchanged. Each hint appears exactly when the other reading repairs the rule.
#include <gtest/gtest.h>

#include <vector>

#include "mpa/diagnosis.hpp"
#include "mpa/framer.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::mpa {
namespace {

TEST(MpaDiagnosis, CrcInTheOtherByteOrder) {
  const auto h = diagnose_crc(0x9b7c9573, 0x73957c9b);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->mistake, "byte-swapped");
  EXPECT_EQ(h->rule, "");  // it explains the CRC rule's violation, breaks none of its own
  EXPECT_FALSE(diagnose_crc(0x12345678, 0x87654321).has_value());  // reversed nibbles, not octets
  EXPECT_FALSE(diagnose_crc(0x11111111, 0x11111111).has_value());  // no mismatch
}

TEST(MpaDiagnosis, UlpduLengthSentLittleEndian) {
  std::vector<std::uint8_t> ulpdu(34, 0x5a), out;
  Framer f({false, true, 0});
  FramerOverrides o;
  o.ulpdu_length = 0x2200;  // 34 with its octets swapped; the CRC covers the field as sent
  f.frame(wire::Bytes(ulpdu), out, o);
  const auto h = diagnose_ulpdu_length(out);
  ASSERT_TRUE(h.has_value());
  EXPECT_NE(h->text.find("is 34"), std::string::npos) << h->text;
  // A right length (the CRC checks at its own end) or a wrong CRC: no hint.
  out.clear();
  f.frame(wire::Bytes(ulpdu), out);
  EXPECT_FALSE(diagnose_ulpdu_length(out).has_value());
  out.clear();
  o.crc = 0x1234;
  f.frame(wire::Bytes(ulpdu), out, o);
  EXPECT_FALSE(diagnose_ulpdu_length(out).has_value());
  EXPECT_FALSE(diagnose_ulpdu_length(wire::Bytes(out).first(1)).has_value());
}

TEST(MpaDiagnosis, PdLengthSentLittleEndian) {
  EXPECT_TRUE(diagnose_pd_length(0x0400).has_value());   // 4
  EXPECT_FALSE(diagnose_pd_length(0x0004).has_value());  // within the limit
  EXPECT_FALSE(diagnose_pd_length(0xffff).has_value());  // too long either way
}

TEST(MpaDiagnosis, IrdAndOrdExchanged) {
  const EnhancedData request{true, false, false, true, 4, 4};  // A, offers the Read RTR
  const EnhancedData meant{true, false, false, true, 8, 2};
  const EnhancedData sent{false, true, true, false, 2, 8};     // meant, words exchanged
  EXPECT_TRUE(reply_p2p_valid(request, meant));
  EXPECT_FALSE(reply_p2p_valid(request, sent));
  const auto h = diagnose_ird_ord_swapped(request, sent);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->mistake, "ird-ord-swapped");
  EXPECT_NE(h->text.find("IRD 8, ORD 2"), std::string::npos) << h->text;
  EXPECT_FALSE(diagnose_ird_ord_swapped(request, meant).has_value());
  // Wrong in both readings: A missing either way.
  EXPECT_FALSE(diagnose_ird_ord_swapped(request, EnhancedData{false, false, false, false, 1, 1}).has_value());
}

}  // namespace
}  // namespace rdmaconf::mpa
