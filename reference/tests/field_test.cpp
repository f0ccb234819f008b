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

// A made-up 16-octet little-endian header (MS-SMBD's habit), fields of 16, 32
// and 64 bits at octet-aligned offsets, and a big-endian field beside them.
struct LeToySpec {
  enum class Field : std::uint8_t { Short, Word, Long, Big, Text };
  static constexpr FieldDecl fields[] = {
      little_endian({"Short", "short", 0, 16, "16 bits LE", "toy §4", Display::kHex}),
      little_endian({"Word", "word", 16, 32, "32 bits LE", "toy §4", Display::kHex}),
      little_endian({"Long", "long", 48, 64, "64 bits LE", "toy §4", Display::kHex}),
      {"Big", "big", 112, 8, "8 bits BE", "toy §4"},
      little_endian({"Text", "text", 120, 8, "one character", "toy §4", Display::kAscii}),
  };
  static constexpr HeaderDecl decl{"LE toy header", "le_toy", 16, fields, "toy §4"};
};
using LeToy = Header<LeToySpec>;

TEST(Field, LittleEndianFieldsReadAndWriteLeastSignificantOctetFirst) {
  // Octets written out by hand: each integer's least significant octet first.
  const std::vector<std::uint8_t> wire = {0x34, 0x12,                                      // Short 0x1234
                                          0x78, 0x56, 0x34, 0x12,                          // Word 0x12345678
                                          0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01,  // Long
                                          0x9a, 'S'};
  LeToy t;
  t.set(LeToy::Field::Short, 0x1234).set(LeToy::Field::Word, 0x12345678);
  t.set(LeToy::Field::Long, 0x0123456789abcdefull).set(LeToy::Field::Big, 0x9a).set(LeToy::Field::Text, 'S');
  EXPECT_EQ(std::vector<std::uint8_t>(t.bytes().begin(), t.bytes().end()), wire);
  EXPECT_EQ(LeToy::read(wire, LeToy::Field::Short), 0x1234u);
  EXPECT_EQ(LeToy::read(wire, LeToy::Field::Word), 0x12345678u);
  EXPECT_EQ(LeToy::read(wire, LeToy::Field::Long), 0x0123456789abcdefull);
  EXPECT_EQ(LeToy::read(wire, LeToy::Field::Big), 0x9au);
  // In place, and through read_field/write_field on the declaration.
  std::vector<std::uint8_t> buf(16, 0);
  LeToy::write(buf, LeToy::Field::Word, 0xa1b2c3d4);
  EXPECT_EQ(buf[2], 0xd4);
  EXPECT_EQ(buf[5], 0xa1);
  EXPECT_EQ(read_field(buf, LeToySpec::fields[1]), 0xa1b2c3d4u);
  write_field(buf, LeToySpec::fields[0], 0x1ffff);  // beyond 16 bits: dropped
  EXPECT_EQ(buf[0], 0xff);
  EXPECT_EQ(buf[1], 0xff);
  EXPECT_EQ(buf[2], 0xd4) << "the next field is untouched";
  // The printer reads the same order.
  EXPECT_EQ(summarize(LeToy::decl, wire),
            "Short=0x1234 Word=0x12345678 Long=0x0123456789abcdef Big=154 Text=\"S\"");
  EXPECT_NE(describe(LeToy::decl, wire).find("Long: 0x0123456789abcdef  -- 64 bits LE"), std::string::npos);
}

TEST(Field, LittleEndianAtEveryOctetOffsetAndWidth) {
  for (std::uint32_t width : {16u, 32u, 64u}) {
    for (std::uint32_t octet = 0; octet * 8 + width <= 12 * 8; ++octet) {
      std::vector<std::uint8_t> buf(12, 0xa5);
      const std::uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
      const std::uint64_t v = 0x0123456789abcdefull & mask;
      write_bits(buf, octet * 8, width, v, ByteOrder::kLittle);
      ASSERT_EQ(read_bits(buf, octet * 8, width, ByteOrder::kLittle), v) << octet << "/" << width;
      ASSERT_EQ(buf[octet], 0xef) << "least significant octet first";
      ASSERT_EQ(read_bits(buf, octet * 8, width), __builtin_bswap64(v) >> (64 - width)) << "the same octets, BE";
      for (std::uint32_t i = 0; i < 12; ++i) {
        if (i < octet || i >= octet + width / 8) {
          ASSERT_EQ(buf[i], 0xa5) << "octet " << i << " untouched";
        }
      }
    }
  }
}

TEST(Field, TilingProofRejectsLittleEndianBitFields) {
  static constexpr FieldDecl unaligned[] = {{"X", "x", 0, 4, "", ""}, little_endian({"Y", "y", 4, 16, "", ""}),
                                            {"Z", "z", 20, 4, "", ""}};
  static constexpr FieldDecl partial[] = {little_endian({"X", "x", 0, 12, "", ""}), {"Y", "y", 12, 4, "", ""}};
  static constexpr FieldDecl string[] = {little_endian({"X", "x", 0, 128, "", "", Display::kBytes})};
  static constexpr FieldDecl whole[] = {little_endian({"X", "x", 0, 8, "", ""}),
                                        little_endian({"Y", "y", 8, 24, "", ""})};
  static_assert(!tiles_exactly(HeaderDecl{"u", "u", 3, unaligned, ""}));
  static_assert(!tiles_exactly(HeaderDecl{"p", "p", 2, partial, ""}));
  static_assert(!tiles_exactly(HeaderDecl{"s", "s", 16, string, ""}));
  static_assert(tiles_exactly(HeaderDecl{"w", "w", 4, whole, ""}));
  static_assert(tiles_exactly(LeToySpec::decl));
}

}  // namespace
}  // namespace rdmaconf::wire
