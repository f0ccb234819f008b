// The header-declaration machinery: bit access at every alignment, the
// tiling proof, and the printer reading the same declaration.
#include "wire/field.hpp"

#include <vector>

#include <gtest/gtest.h>

namespace rdmaconf::wire {
namespace {

constexpr ValueName kColours[] = {{1, "red"}, {2, "green"}};

// A made-up 12-octet header exercising unaligned and 64-bit fields.
struct ToySpec {
  enum class Field : std::uint8_t { A, B, Colour, Wide, Tail };
  static constexpr FieldDecl fields[] = {
      {"A", "a", 0, 1, "a flag", "toy §1", Display::kFlag},
      {"B", "b", 1, 5, "five bits", "toy §1"},
      {"Colour", "colour", 6, 2, "a colour", "toy §1", Display::kDecimal, kColours},
      {"Wide", "wide", 8, 64, "64 bits, octet aligned", "toy §2", Display::kHex},
      {"Tail", "tail", 72, 24, "the rest", "toy §3", Display::kDecimal, {}, Rule::kMustBeZero},
  };
  static constexpr HeaderDecl decl{"Toy header", "toy", 12, fields, "toy §0"};
};
using Toy = Header<ToySpec>;

TEST(Field, ReadWriteBitsAtEveryAlignment) {
  for (std::uint32_t width = 1; width <= 64; ++width) {
    for (std::uint32_t off = 0; off + width <= 9 * 8; ++off) {
      std::vector<std::uint8_t> buf(9, 0xa5);
      const std::uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
      const std::uint64_t v = 0x0123456789abcdefull & mask;
      write_bits(buf, off, width, v);
      ASSERT_EQ(read_bits(buf, off, width), v) << off << "/" << width;
      // Bits outside the field are untouched.
      std::vector<std::uint8_t> expect(9, 0xa5);
      write_bits(expect, off, width, read_bits(buf, off, width));
      ASSERT_EQ(buf, expect);
    }
  }
}

TEST(Field, TilingProofRejectsGapsAndOverlaps) {
  static constexpr FieldDecl gap[] = {{"X", "x", 0, 4, "", ""}, {"Y", "y", 5, 3, "", ""}};
  static constexpr FieldDecl overlap[] = {{"X", "x", 0, 4, "", ""}, {"Y", "y", 3, 5, "", ""}};
  static constexpr FieldDecl exact[] = {{"X", "x", 0, 4, "", ""}, {"Y", "y", 4, 4, "", ""}};
  static_assert(!tiles_exactly(HeaderDecl{"g", "g", 1, gap, ""}));
  static_assert(!tiles_exactly(HeaderDecl{"o", "o", 1, overlap, ""}));
  static_assert(tiles_exactly(HeaderDecl{"e", "e", 1, exact, ""}));
  static_assert(!tiles_exactly(HeaderDecl{"short", "s", 2, exact, ""}));
}

TEST(Field, HeaderSetGetEncodeDecode) {
  Toy t;
  t.set(Toy::Field::A, 1).set(Toy::Field::B, 0x15).set(Toy::Field::Colour, 2);
  t.set(Toy::Field::Wide, 0x1122334455667788ull).set(Toy::Field::Tail, 0xabcdef);
  const std::vector<std::uint8_t> expect = {0xd6, 0x11, 0x22, 0x33, 0x44, 0x55,
                                            0x66, 0x77, 0x88, 0xab, 0xcd, 0xef};
  EXPECT_EQ(std::vector<std::uint8_t>(t.bytes().begin(), t.bytes().end()), expect);

  ByteReader r(expect);
  auto back = Toy::decode(r);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, t);
  EXPECT_TRUE(r.empty());
}

TEST(Field, SetDropsBitsBeyondWidth) {
  Toy t;
  t.set(Toy::Field::B, 0xff);
  EXPECT_EQ(t.get(Toy::Field::B), 0x1fu);
  EXPECT_EQ(t.get(Toy::Field::A), 0u);
  EXPECT_EQ(t.get(Toy::Field::Colour), 0u);
}

TEST(Field, DecodeOfShortInputIsATypedError) {
  const std::vector<std::uint8_t> short_input(11, 0);
  ByteReader r(short_input, 100);
  auto res = Toy::decode(r);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().field, "Toy header");
  EXPECT_EQ(res.error().rfc_section, "toy §0");
  EXPECT_EQ(res.error().offset, 100u);
  EXPECT_EQ(r.remaining(), 11u) << "a failed decode consumes nothing";
}

TEST(Field, DescribeUsesNamesMeaningsAndValueNames) {
  Toy t;
  t.set(Toy::Field::Colour, 1).set(Toy::Field::Wide, 0xff);
  const std::string d = describe(Toy::decl, t.bytes());
  EXPECT_NE(d.find("Colour: 1 (red)"), std::string::npos) << d;
  EXPECT_NE(d.find("Wide: 0x00000000000000ff"), std::string::npos) << d;
  EXPECT_NE(d.find("-- a colour"), std::string::npos) << d;
  EXPECT_EQ(summarize(Toy::decl, t.bytes()), "A=0 B=0 Colour=1 (red) Wide=0x00000000000000ff");
}

TEST(Field, FindFieldByRfcNameOrAbbrev) {
  EXPECT_EQ(find_field(Toy::decl, "Colour"), &ToySpec::fields[2]);
  EXPECT_EQ(find_field(Toy::decl, "wide"), &ToySpec::fields[3]);
  EXPECT_EQ(find_field(Toy::decl, "nope"), nullptr);
}

}  // namespace
}  // namespace rdmaconf::wire
