// Wireshark fields generated from the reference stack's header declarations.
//
// Every wire header rdmaconf knows is declared once, as a wire::HeaderDecl
// (reference/wire/field.hpp). At registration time this file turns each
// declaration into an hf_register_info array: one Wireshark field per
// FieldDecl, with
//   abbrev   <filter prefix>.<field abbrev>   e.g. rdmaconf.rdmap.opcode
//   type     FT_UINT8..FT_UINT64 by the octets the field touches, FT_BYTES or
//            FT_STRING for octet strings (Display::kBytes / kAscii)
//   bitmask  from the bit offset and width, so sub-octet fields show as bits
//   strings  value_string built from the declaration's value_names
//   blurb    the declaration's meaning and RFC section
// The dissector never writes a layout: it says "this header starts here" and
// add_header() adds every field of the declaration.
//
// The only thing the dissector decides is the filter prefix of each header
// (the binding table in generated_fields.cpp): declarations in one protocol
// that share a field abbrev with the same meaning (DDP's T, L, DV in both
// DDP headers) share one Wireshark field; a clash with a different layout is
// a registration error, caught by the test that lists the plugin's fields.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "wire/field.hpp"

extern "C" {
#include <epan/packet.h>
}

namespace rdmaconf::dissector {

// The protocol a header belongs to (the plugin registers ten).
enum class Protocol : std::uint8_t { kMpa, kDdp, kRdmap, kClc, kRpcRdma, kIser, kRoce, kSmcrLlc, kSmcrCdc, kDdpSctp };
constexpr int kProtocols = 10;

// Registers the fields of every bound header with its protocol. Called once
// from the plugin's proto_register routine, after the protocols exist;
// `protos` holds their ids in Protocol order.
void register_generated_fields(std::span<const int, kProtocols> protos);

// Adds a subtree named after the header and every field of `decl` at
// `offset` (the header's first octet) in `tvb`. `label` replaces the
// header's name in the subtree (e.g. "Terminated DDP Header"). Returns the
// subtree (NULL when tree is NULL). The tvb must hold decl.size_octets octets
// at offset; when it does not, the header is shown as truncated.
proto_tree* add_header(proto_tree* tree, tvbuff_t* tvb, int offset, const wire::HeaderDecl& decl,
                       const char* label = nullptr);

// Adds the fields of an overlay (a FieldDecl list whose offsets count from
// the first bit of `decl`'s header, such as the CLC header's per-type bits).
void add_overlay(proto_tree* tree, tvbuff_t* tvb, int offset, std::span<const wire::FieldDecl> overlay);

// Where a field lies, in octets from its header's first octet: the octets
// its bits touch. An item generated over a field (an expected value beside
// the received one) spans these, never a number written here.
constexpr int field_offset(const wire::FieldDecl& f) { return static_cast<int>(f.octet_offset()); }
constexpr std::uint32_t kOctetBits = 8;
constexpr int field_length(const wire::FieldDecl& f) {
  return static_cast<int>((f.bit_offset % kOctetBits + f.bit_width + kOctetBits - 1) / kOctetBits);
}

// A field of the header at `offset` in `tvb`, read through its declaration;
// nullopt when the octets the field touches were not captured.
std::optional<std::uint64_t> read_field(tvbuff_t* tvb, int offset, const wire::FieldDecl& f);
template <typename H>
std::optional<std::uint64_t> read_field(tvbuff_t* tvb, int offset, typename H::Field f) {
  return read_field(tvb, offset, H::field_decl(f));
}

// The Wireshark field generated for one FieldDecl (-1 if not registered).
int field_id(const wire::FieldDecl& f);

// The full filter name of a FieldDecl's field, for tests and docs.
std::string_view field_abbrev(const wire::FieldDecl& f);

}  // namespace rdmaconf::dissector
