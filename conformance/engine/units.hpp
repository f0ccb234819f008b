// Units: what a script sends and receives, as blocks of declared headers.
//
// A unit is a list of Blocks (a header declaration over some octets) and a
// payload. Sending, every `field=value` of a step is written through the
// declaration of the block that declares that field (scapy style: any value
// that fits); receiving, every matcher reads through the same declarations.
// So a script can name every field reference/ declares, and nothing here
// repeats a layout.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/script.hpp"
#include "wire/field.hpp"

namespace rdmaconf::conformance {

// One declared header inside a unit, read and written through accessors (so
// that blocks of clc::Message objects and raw octet buffers look the same).
struct Block {
  const wire::HeaderDecl* decl = nullptr;
  std::span<const wire::FieldDecl> fields;  // decl->fields, or an overlay (CLC type bits)
  std::function<std::uint64_t(const wire::FieldDecl&)> get;
  std::function<void(const wire::FieldDecl&, std::uint64_t)> set;
  std::function<wire::Bytes(const wire::FieldDecl&)> octets;
  std::function<void(const wire::FieldDecl&, wire::Bytes)> set_octets;
};

// Blocks over a contiguous octet buffer at `offset`.
Block raw_block(const wire::HeaderDecl& decl, std::vector<std::uint8_t>& buffer, std::size_t offset);
Block raw_block(const wire::HeaderDecl& decl, const std::vector<std::uint8_t>& buffer, std::size_t offset);

struct FieldHit {
  const Block* block = nullptr;
  const wire::FieldDecl* field = nullptr;
};

// Finds a field by RFC name or filter abbrev; "prefix.field" narrows to the
// blocks whose abbrev starts with prefix ("ddp.rsvd", "rdmap.rsvd").
std::optional<FieldHit> find_field(const std::vector<Block>& blocks, std::string_view name);

// Variables a script can use ($rw.stag): the IUT's advertisement.
using Variables = std::map<std::string, std::uint64_t, std::less<>>;

// A resolved value: a number, or octets for an octet-string field.
struct Resolved {
  std::optional<std::uint64_t> number;
  std::vector<std::uint8_t> octets;
  bool is_octets = false;

  static Resolved of(std::uint64_t n) {
    Resolved r;
    r.number = n;
    return r;
  }
};

// Values the IUT sent earlier in a case (`field=@name` binds, docs/conformance.md).
using Captures = std::map<std::string, Resolved, std::less<>>;

// Resolves a script value for a field (named values of its declaration,
// variables, captures, numbers, strings). Error text says what was expected.
std::variant<Resolved, std::string> resolve(const Value& v, const wire::FieldDecl* field, const Variables& vars,
                                            const Captures* captures = nullptr);

// Writes `v` into the field; octet strings pad with zeros or truncate.
void store(const FieldHit& hit, const Resolved& v);
// Whether the field holds `v`.
bool holds(const FieldHit& hit, const Resolved& v);
// The field's value, for messages ("0x1f").
std::string show(const FieldHit& hit);
// The field's value as a number: numeric fields, and octet strings of at most
// eight octets read big-endian (a MAC); nullopt for longer octet strings.
std::optional<std::uint64_t> numeric_value(const FieldHit& hit);
// The field's value as a capture keeps it (octets or number).
Resolved capture(const FieldHit& hit);
// `have OP want` for the comparisons of a matcher.
bool compare(std::uint64_t have, Op op, std::uint64_t want);

// The payload a `payload=` argument asks for.
std::variant<std::vector<std::uint8_t>, std::string> payload_octets(const Value& v, const Variables& vars);

// ---------------------------------------------------------------- FPDUs

// The RDMAP messages a script names, and which table row they use.
struct MessageName {
  std::string_view name;
  std::uint8_t opcode;
};
std::span<const MessageName> message_names();
std::optional<std::uint8_t> opcode_for(std::string_view name);
std::string_view message_name(std::uint8_t opcode);

// A DDP segment under construction: DDP header (+ RDMAP control overlay) +
// RDMAP header + payload, with the blocks that reach each header.
struct Segment {
  std::vector<std::uint8_t> octets;
  std::size_t header_size = 0;  // octets before the payload
  std::vector<Block> blocks;
  void rebuild_blocks();
};

// The segment a message name starts from: valid headers for that opcode,
// QN from the opcode table, `msn` for untagged ones, no payload.
Segment default_segment(std::string_view unit, std::uint32_t msn_for_queue[4]);

// The RDMAP opcode of a DDP segment of at least ddp::kControlSize octets,
// read through the declarations (RFC 5040 §4.2: the RsvdULP octet).
std::uint8_t segment_opcode(wire::Bytes segment);

// Blocks of a received ULPDU (DDP segment), by its own T bit and opcode.
Segment decode_segment(std::vector<std::uint8_t> ulpdu);

// The names an FPDU-carrying unit accepts besides its declared fields: its
// payload and the framing the MPA framer computes unless forced (RFC 5044 §4).
bool is_framing_arg(std::string_view name);
// The options of a `>` step that shape how any unit goes on the wire rather
// than what it is: truncate, append, split, pause, more (docs/conformance.md).
bool is_send_option(std::string_view name);

}  // namespace rdmaconf::conformance
