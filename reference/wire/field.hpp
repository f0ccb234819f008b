// One declaration per wire header.
//
// Every header rdmaconf speaks is declared exactly once, as data: a HeaderDecl
// listing its fields (name in the RFC's words, bit offset, width, meaning, RFC
// section, value names). The codec (Header<Spec>), the pretty-printer
// (describe()), the capture analyzer and the Wireshark dissector all read that
// one table; no layout is written twice.
//
// Bit offsets count from the first bit on the wire (the most significant bit
// of the first octet), exactly as the RFC figures number them. Fields are
// big-endian (network order, as every IETF header) unless declared
// little-endian (ByteOrder::kLittle: MS-SMBD's SMB Direct messages, whose
// integers are little-endian); a little-endian field is whole octets at an
// octet boundary, which tiles_exactly() proves at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "wire/bytes.hpp"
#include "wire/result.hpp"

namespace rdmaconf::wire {

// A 64-bit field that is not octet-aligned can touch 9 octets; a 128-bit
// accumulator keeps every bit. (__extension__ keeps -Wpedantic quiet about the
// GCC/Clang builtin type.)
__extension__ typedef unsigned __int128 BitAccumulator;

// A named value of a field (an opcode, an error code, a flag's meaning).
struct ValueName {
  std::uint64_t value;
  std::string_view name;
};

// How a field is best shown: the dissector maps these to Wireshark field types.
enum class Display : std::uint8_t {
  kDecimal,  // lengths, counts, sequence numbers
  kHex,      // STags, offsets, codes
  kFlag,     // one-bit flags
  kBytes,    // octet strings wider than 64 bits (MPA key, GIDs)
  kAscii,    // printable keys and eyecatchers shown as text
};

// What a receiver must do with a field whose value is fixed by the RFC.
enum class Rule : std::uint8_t {
  kAny,             // any value is legal
  kMustBeZero,      // reserved: sent as zero; receiver checks it
  kIgnoredOnReceive,// reserved: sent as zero, not checked on receipt
};

// The order of a field's octets on the wire. Only whole-octet, octet-aligned
// fields may be little-endian (tiles_exactly() refuses others): a bit field's
// position inside reversed octets has no meaning any spec here gives it.
enum class ByteOrder : std::uint8_t {
  kBig,     // most significant octet first: every IETF and IBTA header
  kLittle,  // least significant octet first: MS-SMBD (SMB Direct)
};

struct FieldDecl {
  std::string_view name;         // RFC name: "PD_Length", "STag", "MSN"
  std::string_view abbrev;       // filter-name component: "pd_length"
  std::uint32_t bit_offset;      // from the first bit of the header
  std::uint32_t bit_width;
  std::string_view meaning;      // one line, our words
  std::string_view rfc_section;  // "RFC 5044 §7.1"
  Display display = Display::kDecimal;
  std::span<const ValueName> value_names = {};
  Rule rule = Rule::kAny;
  ByteOrder order = ByteOrder::kBig;  // last, so every big-endian declaration leaves it out

  constexpr std::uint32_t octet_offset() const { return bit_offset / 8; }
  constexpr bool little_endian() const { return order == ByteOrder::kLittle; }
  constexpr bool is_octet_string() const { return bit_width > 64; }
  constexpr std::uint64_t max_value() const {
    return bit_width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bit_width) - 1;
  }
};

// The same field, little-endian: `wire::little_endian({"CreditsRequested",
// ...})` in a declaration whose integers are little-endian (MS-SMBD).
constexpr FieldDecl little_endian(FieldDecl f) {
  f.order = ByteOrder::kLittle;
  return f;
}

struct HeaderDecl {
  std::string_view name;         // "DDP Tagged Buffer Model header"
  std::string_view abbrev;       // "ddp.tagged"
  std::uint32_t size_octets;
  std::span<const FieldDecl> fields;
  std::string_view rfc_section;
};

// The name `v` has in a table of named values, or empty.
constexpr std::string_view value_name(std::span<const ValueName> names, std::uint64_t v) {
  for (const ValueName& n : names)
    if (n.value == v) return n.name;
  return {};
}

// The name a value has in a field's table, or empty.
constexpr std::string_view value_name(const FieldDecl& f, std::uint64_t v) { return value_name(f.value_names, v); }

// A little-endian field is whole octets at an octet boundary, at most 64 bits
// wide (an octet string has no byte order: leave it big-endian).
constexpr bool byte_order_fits(const FieldDecl& f) {
  return !f.little_endian() || (f.bit_offset % 8 == 0 && f.bit_width % 8 == 0 && f.bit_width <= 64);
}

// Compile-time proof that a declaration tiles its header exactly: fields are
// in wire order, contiguous, and end at the header's last bit; and that every
// little-endian field is whole octets at an octet boundary. Used in a
// static_assert beside every declaration, so a typo in an offset fails the
// build rather than a test.
constexpr bool tiles_exactly(const HeaderDecl& h) {
  std::uint32_t next = 0;
  for (const FieldDecl& f : h.fields) {
    if (f.bit_offset != next || f.bit_width == 0) return false;
    if (f.bit_width > 64 && (f.bit_width % 8 != 0 || f.bit_offset % 8 != 0)) return false;
    if (!byte_order_fits(f)) return false;
    next += f.bit_width;
  }
  return next == h.size_octets * 8;
}

// A little-endian field's value: whole octets at an octet boundary
// (byte_order_fits()); given another, the whole octets the field starts in,
// least significant first (defined, never past the field's last octet). Out
// of line on purpose: inlined, its loop made the inliner's size estimate of
// every big-endian read grow, and GCC stopped inlining small helpers of the
// analyzer's per-frame path (1.4 % more instructions on a generated capture).
[[gnu::noinline]] inline std::uint64_t read_le_octets(Bytes header, std::uint32_t bit_offset,
                                                      std::uint32_t width) {
  std::uint64_t v = 0;
  const std::uint32_t first = bit_offset / 8;
  for (std::uint32_t i = first + (width < 64 ? width : 64) / 8; i-- > first;) v = (v << 8) | header[i];
  return v;
}

// Reads a field of up to 64 bits at any bit position. The header bytes have
// been length-checked by the caller (Header<Spec> guarantees it). Always
// inlined: with the declaration a compile-time constant (every Header<Spec>
// read) the loops fold into one load and a shift, which the capture analyzer's
// per-FPDU path depends on (docs/performance.md); the byte-order test folds
// away the same way, leaving a big-endian read exactly as it was.
[[gnu::always_inline]] inline std::uint64_t read_bits(Bytes header, std::uint32_t bit_offset, std::uint32_t width,
                                                      ByteOrder order = ByteOrder::kBig) {
  if (order == ByteOrder::kLittle) return read_le_octets(header, bit_offset, width);
  // Fast path for octet-aligned fields (every DDP and RDMAP field but the
  // control bits): with a declaration known at compile time the branch folds
  // away and the loop becomes one big-endian load.
  if (bit_offset % 8 == 0 && width % 8 == 0 && width <= 64) {
    std::uint64_t v = 0;
    for (std::uint32_t i = bit_offset / 8; i < (bit_offset + width) / 8; ++i) v = (v << 8) | header[i];
    return v;
  }
  std::uint32_t first = bit_offset / 8;
  std::uint32_t last = (bit_offset + width - 1) / 8;
  BitAccumulator acc = 0;
  for (std::uint32_t i = first; i <= last; ++i) acc = (acc << 8) | header[i];
  std::uint32_t trailing = (last + 1) * 8 - (bit_offset + width);
  acc >>= trailing;
  std::uint64_t mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  return static_cast<std::uint64_t>(acc) & mask;
}

// Writes a field; bits of `value` beyond its width are dropped. A
// little-endian field (whole octets at an octet boundary) is written least
// significant octet first; given another, the whole octets it starts in.
inline void write_bits(MutableBytes header, std::uint32_t bit_offset, std::uint32_t width, std::uint64_t value,
                       ByteOrder order = ByteOrder::kBig) {
  if (order == ByteOrder::kLittle) {
    const std::uint32_t first = bit_offset / 8;
    const std::uint32_t octets = (width < 64 ? width : 64) / 8;
    for (std::uint32_t i = 0; i < octets; ++i, value >>= 8) header[first + i] = static_cast<std::uint8_t>(value);
    return;
  }
  std::uint32_t first = bit_offset / 8;
  std::uint32_t last = (bit_offset + width - 1) / 8;
  std::uint32_t trailing = (last + 1) * 8 - (bit_offset + width);
  BitAccumulator mask = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  BitAccumulator acc = 0;
  for (std::uint32_t i = first; i <= last; ++i) acc = (acc << 8) | header[i];
  acc &= ~(mask << trailing);
  acc |= (static_cast<BitAccumulator>(value) & mask) << trailing;
  for (std::uint32_t i = last + 1; i-- > first;) {
    header[i] = static_cast<std::uint8_t>(acc);
    acc >>= 8;
  }
}

[[gnu::always_inline]] inline std::uint64_t read_field(Bytes header, const FieldDecl& f) {
  return read_bits(header, f.bit_offset, f.bit_width, f.order);
}
inline void write_field(MutableBytes header, const FieldDecl& f, std::uint64_t v) {
  write_bits(header, f.bit_offset, f.bit_width, v, f.order);
}

// Error helpers shared by every decoder, so that the same situation is always
// reported the same way.
constexpr DecodeError truncated(const HeaderDecl& h, std::size_t offset) {
  return DecodeError{h.name, "fewer octets received than the header's fixed size", h.rfc_section,
                     offset};
}
constexpr DecodeError field_error(const FieldDecl& f, std::string_view rule, std::size_t base) {
  return DecodeError{f.name, rule, f.rfc_section, base + f.octet_offset()};
}

// The bytes of one header, read and written through its declaration; the
// scapy habit: any field can be set to any value that fits its width,
// including values the RFC forbids, so the same type builds valid frames for
// the reference stack and malformed ones for conformance cases and fuzzers.
//
// Spec provides `enum class Field` (fields in declaration order) and
// `static constexpr HeaderDecl decl`.
template <typename Spec>
class Header {
 public:
  using Field = typename Spec::Field;
  static constexpr const HeaderDecl& decl = Spec::decl;
  static constexpr std::size_t kSize = Spec::decl.size_octets;

  static_assert(tiles_exactly(Spec::decl), "header declaration does not tile its header");

  Header() = default;
  explicit Header(std::span<const std::uint8_t, kSize> bytes) {
    for (std::size_t i = 0; i < kSize; ++i) bytes_[i] = bytes[i];
  }

  // Reads exactly kSize octets. Only the length is checked here: which values
  // are legal is a rule of the protocol layer, checked where the RFC says.
  static Result<Header> decode(ByteReader& r) {
    std::size_t at = r.offset();
    auto b = r.take(kSize);
    if (!b) return truncated(decl, at);
    return Header(b->template first<kSize>());
  }

  static constexpr const FieldDecl& field_decl(Field f) {
    return decl.fields[static_cast<std::size_t>(f)];
  }

  [[gnu::always_inline]] std::uint64_t get(Field f) const { return read_field(bytes(), field_decl(f)); }
  // Reads a field straight from received octets, without copying the header
  // first (the capture analyzer's path). `octets` must hold at least kSize.
  [[gnu::always_inline]] static std::uint64_t read(Bytes octets, Field f) {
    return read_field(octets, field_decl(f));
  }
  bool flag(Field f) const { return get(f) != 0; }
  // Writes a field straight into octets that hold the header (at least
  // kSize of them), without a copy in and out: the fault injectors and
  // corpus builders that patch one field of a frame in place.
  static void write(MutableBytes octets, Field f, std::uint64_t v) {
    write_field(octets, field_decl(f), v);
  }

  // Sets a field; bits beyond the field's width are dropped, which is what a
  // conformance script asking for "PD_Length = 70000" on a 16-bit field gets
  // (and the script layer warns about it before calling here).
  Header& set(Field f, std::uint64_t v) {
    write_field(bytes_, field_decl(f), v);
    return *this;
  }

  // Octet-string fields (wider than 64 bits, octet aligned).
  Bytes octets(Field f) const {
    const FieldDecl& d = field_decl(f);
    return Bytes(bytes_).subspan(d.octet_offset(), d.bit_width / 8);
  }
  Header& set_octets(Field f, Bytes v) {
    const FieldDecl& d = field_decl(f);
    for (std::size_t i = 0; i < d.bit_width / 8; ++i) bytes_[d.octet_offset() + i] = i < v.size() ? v[i] : 0;
    return *this;
  }

  Bytes bytes() const { return Bytes(bytes_); }
  void encode(ByteWriter& w) const { w.put(bytes()); }

  friend bool operator==(const Header&, const Header&) = default;

 private:
  std::array<std::uint8_t, kSize> bytes_{};
};

// Generic access by field name, for conformance scripts and tests that name
// fields as the RFC does. Returns nullptr when the header has no such field.
constexpr const FieldDecl* find_field(const HeaderDecl& h, std::string_view name) {
  for (const FieldDecl& f : h.fields)
    if (f.name == name || f.abbrev == name) return &f;
  return nullptr;
}

// The pretty-printer: one line per field, "  Name: value (meaning) [RFC §]".
// `header` must hold at least h.size_octets octets.
std::string describe(const HeaderDecl& h, Bytes header, std::string_view indent = "  ");

// One line, "Name=value Name=value ...", for logs and the loopback transcript.
std::string summarize(const HeaderDecl& h, Bytes header);

}  // namespace rdmaconf::wire
