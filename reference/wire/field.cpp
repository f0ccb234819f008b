#include "wire/field.hpp"

#include <cstdio>

namespace rdmaconf::wire {
namespace {

std::string hex_octets(Bytes b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (std::uint8_t o : b) {
    s.push_back(kDigits[o >> 4]);
    s.push_back(kDigits[o & 0xf]);
  }
  return s;
}

std::string ascii_octets(Bytes b) {
  std::string s = "\"";
  for (std::uint8_t o : b) s.push_back(o >= 0x20 && o < 0x7f ? static_cast<char>(o) : '.');
  s.push_back('"');
  return s;
}

std::string format_value(const FieldDecl& f, Bytes header) {
  if (f.is_octet_string()) {
    Bytes b = header.subspan(f.octet_offset(), f.bit_width / 8);
    return f.display == Display::kAscii ? ascii_octets(b) : hex_octets(b);
  }
  std::uint64_t v = read_field(header, f);
  std::string s;
  if (f.display == Display::kHex) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%0*llx", static_cast<int>((f.bit_width + 3) / 4),
                  static_cast<unsigned long long>(v));
    s = buf;
  } else if (f.display == Display::kAscii) {
    std::array<std::uint8_t, 8> raw{};
    std::size_t n = f.bit_width / 8;
    store_be(MutableBytes(raw).first(n), v);
    // Text is shown in wire order: a little-endian field is whole octets, as sent.
    s = ascii_octets(f.little_endian() ? header.subspan(f.octet_offset(), n) : Bytes(raw).first(n));
  } else {
    s = std::to_string(v);
  }
  std::string_view name = value_name(f, v);
  if (!name.empty()) s.append(" (").append(name).append(")");
  return s;
}

}  // namespace

std::string describe(const HeaderDecl& h, Bytes header, std::string_view indent) {
  std::string out;
  out.append(h.name).append(" [").append(h.rfc_section).append("]\n");
  for (const FieldDecl& f : h.fields) {
    out.append(indent).append(f.name).append(": ").append(format_value(f, header));
    out.append("  -- ").append(f.meaning).append("\n");
  }
  return out;
}

std::string summarize(const HeaderDecl& h, Bytes header) {
  std::string out;
  for (const FieldDecl& f : h.fields) {
    if (f.rule != Rule::kAny && read_field(header, f) == 0 && !f.is_octet_string()) continue;
    if (!out.empty()) out.push_back(' ');
    out.append(f.name).append("=").append(format_value(f, header));
  }
  return out;
}

}  // namespace rdmaconf::wire
