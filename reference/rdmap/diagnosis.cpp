#include "rdmap/diagnosis.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "check/segment.hpp"
#include "rdmap/error_codes.hpp"

namespace rdmaconf::rdmap {
namespace {

std::string hex2(std::uint64_t v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string octets(wire::Bytes b) {
  std::string s;
  char buf[4];
  for (std::uint8_t o : b) {
    std::snprintf(buf, sizeof buf, "%s%02x", s.empty() ? "" : " ", o);
    s += buf;
  }
  return s;
}

}  // namespace

std::string describe_code(ddp::TerminateCode code) {
  std::string s(layer_name(code.layer));
  if (s == "reserved layer") s = "Layer " + hex2(static_cast<std::uint8_t>(code.layer));
  const ddp::ErrorRow* row = find_error(code);
  s += " / " + (row ? std::string(row->etype_name) : "EType " + hex2(code.etype));
  s += " / " + (row && !row->any_code ? std::string(row->name) : "Error Code " + hex2(code.code));
  return s;
}

std::string describe_control(wire::Bytes body) {
  if (body.size() < kTerminateControlSize) return {};
  wire::ByteReader r(body.first(kTerminateControlSize));
  auto c = TerminateControlHeader::decode(r);
  if (!c) return {};
  using F = TerminateControlSpec::Field;
  char buf[96];
  std::snprintf(buf, sizeof buf, " (Layer %u, EType %u, Error Code 0x%02x, M/D/R %u%u%u, Reserved 0x%04x)",
                static_cast<unsigned>(c->get(F::Layer)), static_cast<unsigned>(c->get(F::EType)),
                static_cast<unsigned>(c->get(F::ErrorCode)), static_cast<unsigned>(c->get(F::M)),
                static_cast<unsigned>(c->get(F::D)), static_cast<unsigned>(c->get(F::R)),
                static_cast<unsigned>(c->get(F::Reserved)));
  return buf;
}

std::array<std::uint8_t, kTerminateControlSize> encode_control(ddp::TerminateCode code, bool m, bool d, bool r) {
  using F = TerminateControlSpec::Field;
  TerminateControlHeader c;
  c.set(F::Layer, static_cast<std::uint8_t>(code.layer)).set(F::EType, code.etype).set(F::ErrorCode, code.code);
  c.set(F::M, m).set(F::D, d).set(F::R, r);
  std::array<std::uint8_t, kTerminateControlSize> out{};
  wire::Bytes b = c.bytes();
  std::copy(b.begin(), b.end(), out.begin());
  return out;
}

std::array<std::uint8_t, kTerminateControlSize> encode_control_as_le_bitfield(wire::Bytes rfc) {
  std::array<std::uint8_t, kTerminateControlSize> out{};
  if (rfc.size() < kTerminateControlSize) return out;
  // The RFC's layout through its declaration; the little-endian bitfield
  // it is written as is a layout no declaration describes (the mistake
  // this diagnoses), so it is spelled out here.
  using F = TerminateControlSpec::Field;
  auto get = [&](F f) { return static_cast<unsigned>(TerminateControlHeader::read(rfc, f)); };
  const unsigned layer = get(F::Layer), etype = get(F::EType);
  const unsigned m = get(F::M), d = get(F::D), r = get(F::R);
  out[0] = static_cast<std::uint8_t>(etype << 4 | layer);
  out[1] = static_cast<std::uint8_t>(get(F::ErrorCode));
  out[2] = static_cast<std::uint8_t>(m | d << 1 | r << 2);
  return out;
}

std::optional<TerminateMessage> read_as_le_bitfield(wire::Bytes body) {
  if (body.size() < kTerminateControlSize) return std::nullopt;
  // Bitfield members allocated from the least significant bit of a 32-bit
  // unit stored least significant octet first: layer:4, etype:4, ecode:8,
  // m:1, d:1, r:1, reserved:13.
  const ddp::TerminateCode code{static_cast<ddp::Layer>(body[0] & 0x0f), static_cast<std::uint8_t>(body[0] >> 4),
                                body[1]};
  const bool m = body[2] & 0x01, d = body[2] & 0x02, r = body[2] & 0x04;
  const unsigned reserved = (body[2] >> 3) | (unsigned{body[3]} << 5);
  if (reserved != 0 || find_error(code) == nullptr) return std::nullopt;
  std::vector<std::uint8_t> fixed(body.begin(), body.end());
  const auto word = encode_control(code, m, d, r);
  std::copy(word.begin(), word.end(), fixed.begin());
  auto t = decode_terminate(fixed);
  if (!t) return std::nullopt;
  return *t;
}

std::string_view rule_broken_by(std::string_view mistake) {
  return mistake == wire::kLeBitfield.id ? check::kTerminateFormat.id : std::string_view();
}

std::optional<wire::Hint> diagnose_terminate(wire::Bytes body) {
  if (decode_terminate(body)) return std::nullopt;
  return le_bitfield_reading(body);
}

std::optional<wire::Hint> le_bitfield_reading(wire::Bytes body) {
  const auto t = read_as_le_bitfield(body);
  if (!t) return std::nullopt;
  std::string flags;
  for (auto [set, n] : {std::pair{t->m, "M"}, std::pair{t->d, "D"}, std::pair{t->r, "R"}})
    if (set) flags += flags.empty() ? n : std::string(", ") + n;
  const auto right = encode_control(t->code, t->m, t->d, t->r);
  return wire::Hint{wire::kLeBitfield.id,
                    "the control field " + octets(body.first(kTerminateControlSize)) + " reads as " +
                        describe_code(t->code) + (flags.empty() ? "" : " with " + flags + " set") +
                        " when its sub-fields are taken as a little-endian C bitfield (Layer in the low nibble of "
                        "the first octet, M/D/R in the low bits of the third); RFC 5040 §4.8 numbers the bits from "
                        "the most significant one, which encodes that as " + octets(right),
                    rule_broken_by(wire::kLeBitfield.id)};
}

}  // namespace rdmaconf::rdmap
