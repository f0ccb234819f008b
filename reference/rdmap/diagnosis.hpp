// Diagnosis of RDMAP fields that break a rule the way a known encoding
// mistake would (see wire/hint.hpp).
//
// The Terminate Control field (RFC 5040 §4.8) is a 32-bit word whose
// sub-fields are numbered from the most significant bit: Layer in the high
// nibble of the first octet, EType in its low nibble, the Error Code in the
// second octet, M, D and R in the top three bits of the third octet, the
// 13 reserved bits after them. Declared as a C bitfield and compiled for a
// little-endian host, each sub-field lands from the least significant bit
// instead: Layer in the low nibble of octet 0, EType in its high nibble,
// M/D/R in the low three bits of octet 2 (Linux siw's struct
// iwarp_terminate does this). Read as the RFC lays it out, such a word has
// reserved bits set and M/D/R clear; read the other way it is a plausible
// Terminate.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ddp/errors.hpp"
#include "rdmap/terminate.hpp"
#include "wire/bytes.hpp"
#include "wire/hint.hpp"

namespace rdmaconf::rdmap {

// "RDMAP / Remote Protection Error / Invalid STag" (hex values where a name
// is unknown): the names of RFC 5040 §4.8, RFC 5041 §7.2 and RFC 5044 §8.
std::string describe_code(ddp::TerminateCode code);

// " (Layer 1, EType 0, Error Code 0x00, M/D/R 000, Reserved 0x0700)": the
// control word's sub-fields as RFC 5040 §4.8 lays them out; empty when the
// body is shorter than the word.
std::string describe_control(wire::Bytes body);

// The Terminate Control word as RFC 5040 §4.8 encodes these values.
std::array<std::uint8_t, kTerminateControlSize> encode_control(ddp::TerminateCode code, bool m, bool d, bool r);

// The mistake itself, for conformance faults: a control word written per
// RFC 5040 §4.8 (`rfc`, 4 octets) rewritten as a little-endian C bitfield.
std::array<std::uint8_t, kTerminateControlSize> encode_control_as_le_bitfield(wire::Bytes rfc);

// The Terminate body read with the control word as a little-endian C
// bitfield: a value only when that reading decodes cleanly (reserved zero,
// M/D/R consistent with the octets that follow) to a registered error code.
std::optional<TerminateMessage> read_as_le_bitfield(wire::Bytes body);

// A hint for a Terminate body that does not decode (decode_terminate fails)
// but reads cleanly as a little-endian bitfield; nullopt otherwise.
std::optional<wire::Hint> diagnose_terminate(wire::Bytes body);

// The rule a mistake of this layer breaks by itself (wire::Hint::rule): a
// control word in the little-endian bitfield layout (wire::kLeBitfield)
// breaks RFC 5040 §4.8's whatever it meant. Empty for a mistake of another
// layer; for reports that kept only the id.
std::string_view rule_broken_by(std::string_view mistake);

// The same hint for any body that reads cleanly as a little-endian bitfield,
// whether or not it also decodes as RFC 5040 §4.8 lays it out: an LLP error
// (Layer 2, EType 0) written that way reads as a well-formed RDMAP Terminate
// (`02 02 00 00`), so only what the peer expected tells the two apart (the
// conformance engine knows it; an observer does not).
std::optional<wire::Hint> le_bitfield_reading(wire::Bytes body);

}  // namespace rdmaconf::rdmap
