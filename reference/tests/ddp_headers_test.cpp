// DDP headers (RFC 5041 §4): known-answer bytes derived by hand from the RFC
// figures, with the decoded meaning beside them, and round trips.
#include "ddp/headers.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "ddp/errors.hpp"

namespace rdmaconf::ddp {
namespace {

std::vector<std::uint8_t> vec(wire::Bytes b) { return {b.begin(), b.end()}; }

// RFC 5041 §4.1 + §4.2: a tagged segment, last of its message.
TEST(DdpHeaders, TaggedKnownAnswer) {
  const std::vector<std::uint8_t> wire_bytes = {
      0xc1,                    // T=1 L=1 Rsvd=0000 DV=01
      0x40,                    // RsvdULP (RDMAP: RV=01 Rsvd=00 Opcode=0000, RDMA Write)
      0x12, 0x34, 0x56, 0x78,  // STag 0x12345678
      0x00, 0x00, 0x00, 0x00,  // TO (high half)
      0x00, 0x00, 0x10, 0x00,  // TO 0x1000
  };
  wire::ByteReader r(wire_bytes);
  auto h = TaggedHeader::decode(r);
  ASSERT_TRUE(h.ok());
  using F = TaggedSpec::Field;
  EXPECT_EQ(h->get(F::T), 1u);
  EXPECT_EQ(h->get(F::L), 1u);
  EXPECT_EQ(h->get(F::Rsvd), 0u);
  EXPECT_EQ(h->get(F::DV), kDdpVersion);
  EXPECT_EQ(h->get(F::RsvdULP), 0x40u);
  EXPECT_EQ(h->get(F::STag), 0x12345678u);
  EXPECT_EQ(h->get(F::TO), 0x1000u);

  TaggedHeader built;
  built.set(F::T, 1).set(F::L, 1).set(F::DV, 1).set(F::RsvdULP, 0x40);
  built.set(F::STag, 0x12345678).set(F::TO, 0x1000);
  EXPECT_EQ(vec(built.bytes()), wire_bytes);
}

// RFC 5041 §4.1 + §4.3: an untagged segment in the middle of a message.
TEST(DdpHeaders, UntaggedKnownAnswer) {
  const std::vector<std::uint8_t> wire_bytes = {
      0x01,                    // T=0 L=0 Rsvd=0000 DV=01
      0x43,                    // RsvdULP[0:7] (RDMAP: RV=01, Opcode=0011 Send)
      0xaa, 0xbb, 0xcc, 0xdd,  // RsvdULP[8:39]
      0x00, 0x00, 0x00, 0x00,  // QN 0
      0x00, 0x00, 0x00, 0x07,  // MSN 7
      0x00, 0x00, 0x05, 0xc8,  // MO 1480
  };
  wire::ByteReader r(wire_bytes);
  auto h = UntaggedHeader::decode(r);
  ASSERT_TRUE(h.ok());
  using F = UntaggedSpec::Field;
  EXPECT_EQ(h->get(F::T), 0u);
  EXPECT_EQ(h->get(F::L), 0u);
  EXPECT_EQ(h->get(F::DV), 1u);
  EXPECT_EQ(h->get(F::RsvdULP), 0x43u);
  EXPECT_EQ(h->get(F::RsvdULP32), 0xaabbccddu);
  EXPECT_EQ(h->get(F::QN), 0u);
  EXPECT_EQ(h->get(F::MSN), 7u);
  EXPECT_EQ(h->get(F::MO), 1480u);
  EXPECT_TRUE(r.empty());

  UntaggedHeader built;
  built.set(F::DV, 1).set(F::RsvdULP, 0x43).set(F::RsvdULP32, 0xaabbccdd);
  built.set(F::MSN, 7).set(F::MO, 1480);
  EXPECT_EQ(vec(built.bytes()), wire_bytes);
}

TEST(DdpHeaders, ControlOctetsSelectTheHeader) {
  Control c = Control::from_octets(0xbd, 0x43);  // T=1 L=0 Rsvd=1111 DV=01
  EXPECT_TRUE(c.tagged);
  EXPECT_FALSE(c.last);
  EXPECT_EQ(c.rsvd, 0xfu);
  EXPECT_EQ(c.dv, 1u);
  EXPECT_EQ(c.header_size(), kTaggedHeaderSize);
  EXPECT_EQ(Control::from_octets(0x42, 0).header_size(), kUntaggedHeaderSize);  // DV=2
  EXPECT_EQ(Control::from_octets(0x42, 0).dv, 2u);
}

TEST(DdpHeaders, TruncatedHeaderIsATypedError) {
  const std::vector<std::uint8_t> short_bytes(kUntaggedHeaderSize - 1, 0);
  wire::ByteReader r(short_bytes);
  auto h = UntaggedHeader::decode(r);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().rfc_section, "RFC 5041 §4.3");
}

TEST(DdpHeaders, DescribeNamesEveryField) {
  UntaggedHeader h;
  h.set(UntaggedSpec::Field::DV, 1).set(UntaggedSpec::Field::L, 1);
  const std::string d = wire::describe(UntaggedHeader::decl, h.bytes());
  for (const wire::FieldDecl& f : UntaggedSpec::fields)
    EXPECT_NE(d.find(std::string(f.name) + ":"), std::string::npos) << f.name;
  EXPECT_NE(d.find("L: 1 (last segment)"), std::string::npos) << d;
}

// RFC 5041 §7.2: the DDP error numbers.
TEST(DdpErrors, CodesMatchRfc5041Section7_2) {
  EXPECT_EQ(code_of(TaggedError::kInvalidStag), (TerminateCode{Layer::kDdp, 1, 0x00}));
  EXPECT_EQ(code_of(TaggedError::kInvalidDdpVersion), (TerminateCode{Layer::kDdp, 1, 0x04}));
  EXPECT_EQ(code_of(UntaggedError::kInvalidQn), (TerminateCode{Layer::kDdp, 2, 0x01}));
  EXPECT_EQ(code_of(UntaggedError::kMessageTooLong), (TerminateCode{Layer::kDdp, 2, 0x05}));
  EXPECT_EQ(code_of(UntaggedError::kInvalidDdpVersion), (TerminateCode{Layer::kDdp, 2, 0x06}));
  EXPECT_EQ(std::size(kDdpErrorRows), 12u);
}

}  // namespace
}  // namespace rdmaconf::ddp
