#include "engine/units.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "ddp/headers.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"

namespace rdmaconf::conformance {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

template <typename Buffer>
Block make_raw(const wire::HeaderDecl& decl, Buffer& buffer, std::size_t offset) {
  Block b;
  b.decl = &decl;
  b.fields = decl.fields;
  auto* buf = &buffer;
  b.get = [buf, offset, &decl](const wire::FieldDecl& f) -> std::uint64_t {
    if (buf->size() < offset + decl.size_octets) return 0;
    return wire::read_field(wire::Bytes(*buf).subspan(offset, decl.size_octets), f);
  };
  b.octets = [buf, offset, &decl](const wire::FieldDecl& f) -> wire::Bytes {
    if (buf->size() < offset + decl.size_octets) return {};
    return wire::Bytes(*buf).subspan(offset + f.octet_offset(), f.bit_width / 8);
  };
  if constexpr (!std::is_const_v<Buffer>) {
    b.set = [buf, offset, &decl](const wire::FieldDecl& f, std::uint64_t v) {
      if (buf->size() < offset + decl.size_octets) return;
      wire::write_field(wire::MutableBytes(*buf).subspan(offset, decl.size_octets), f, v);
    };
    b.set_octets = [buf, offset, &decl](const wire::FieldDecl& f, wire::Bytes v) {
      if (buf->size() < offset + decl.size_octets) return;
      for (std::size_t i = 0; i < f.bit_width / 8; ++i) (*buf)[offset + f.octet_offset() + i] = i < v.size() ? v[i] : 0;
    };
  } else {
    b.set = [](const wire::FieldDecl&, std::uint64_t) {};
    b.set_octets = [](const wire::FieldDecl&, wire::Bytes) {};
  }
  return b;
}

constexpr MessageName kMessageNames[] = {
    {"write", 0x0},          {"read_request", 0x1}, {"read_response", 0x2}, {"send", 0x3},
    {"send_inv", 0x4},       {"send_se", 0x5},      {"send_se_inv", 0x6},   {"terminate", 0x7},
    {"immediate", 0x8},      {"immediate_se", 0x9}, {"atomic", 0xa},        {"atomic_response", 0xb},
};

// Word aliases for values that read better than numbers.
struct WordValue {
  std::string_view field_abbrev;  // empty: any field
  std::string_view word;
  std::uint64_t value;
};
constexpr WordValue kWords[] = {
    {"layer", "rdmap", 0}, {"layer", "ddp", 1}, {"layer", "llp", 2}, {"layer", "mpa", 2},
    {"atomic_opcode", "fetchadd", 0}, {"atomic_opcode", "swap", 1}, {"atomic_opcode", "cmpswap", 2},
    {"", "true", 1}, {"", "false", 0}, {"", "on", 1}, {"", "off", 0},
};

const wire::HeaderDecl* rdmap_header_for(std::uint8_t opcode) {
  switch (static_cast<rdmap::Opcode>(opcode)) {
    case rdmap::Opcode::kRdmaReadRequest: return &rdmap::ReadRequestSpec::decl;
    case rdmap::Opcode::kTerminate: return &rdmap::TerminateControlSpec::decl;
    case rdmap::Opcode::kAtomicRequest: return &rdmap::AtomicRequestSpec::decl;
    case rdmap::Opcode::kAtomicResponse: return &rdmap::AtomicResponseSpec::decl;
    case rdmap::Opcode::kImmediateData:
    case rdmap::Opcode::kImmediateDataWithSe: return &rdmap::ImmediateDataSpec::decl;
    default: return nullptr;
  }
}

}  // namespace

Block raw_block(const wire::HeaderDecl& decl, std::vector<std::uint8_t>& buffer, std::size_t offset) {
  return make_raw(decl, buffer, offset);
}
Block raw_block(const wire::HeaderDecl& decl, const std::vector<std::uint8_t>& buffer, std::size_t offset) {
  return make_raw(decl, buffer, offset);
}

std::optional<FieldHit> find_field(const std::vector<Block>& blocks, std::string_view name) {
  for (const Block& b : blocks)
    for (const wire::FieldDecl& f : b.fields)
      if (f.abbrev == name || f.name == name) return FieldHit{&b, &f};
  const std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view prefix = name.substr(0, dot), field = name.substr(dot + 1);
  for (const Block& b : blocks) {
    if (!b.decl->abbrev.starts_with(prefix)) continue;
    for (const wire::FieldDecl& f : b.fields)
      if (f.abbrev == field || f.name == field) return FieldHit{&b, &f};
  }
  return std::nullopt;
}

std::variant<Resolved, std::string> resolve(const Value& v, const wire::FieldDecl* field, const Variables& vars,
                                            const Captures* captures) {
  Resolved r;
  const bool octet_field = field != nullptr && field->is_octet_string();
  switch (v.kind) {
    case Value::Kind::kNone:
      r.number = 1;  // a bare flag
      return r;
    case Value::Kind::kNumber:
      if (octet_field) return std::string("expected octets (\"text\" or hex:...) for ") + std::string(field->name);
      r.number = v.number;
      return r;
    case Value::Kind::kString:
    case Value::Kind::kBytes:
      if (octet_field) {
        r.is_octets = true;
        r.octets = v.bytes;
        return r;
      }
      if (v.bytes.size() > 8) return std::string("expected at most 8 octets for a numeric field");
      r.number = wire::load_be(v.bytes);
      return r;
    case Value::Kind::kVariable: {
      auto it = vars.find(v.text);
      if (it == vars.end()) return "the IUT advertised no $" + v.text;
      r.number = it->second + static_cast<std::uint64_t>(v.offset);
      return r;
    }
    case Value::Kind::kCapture: {
      if (captures == nullptr || !captures->contains(v.text)) return "nothing was captured as @" + v.text + " yet";
      const auto it = captures->find(v.text);
      r = it->second;
      if (octet_field && !r.is_octets) return "@" + v.text + " holds a number, " + std::string(field->name) + " takes octets";
      if (!octet_field && r.is_octets) {
        if (r.octets.size() > 8) return "@" + v.text + " holds more than 8 octets for a numeric field";
        r = Resolved::of(wire::load_be(r.octets));
      }
      return r;
    }
    case Value::Kind::kWord: {
      const std::string w = lower(v.text);
      if (field != nullptr) {
        for (const WordValue& wv : kWords)
          if ((wv.field_abbrev.empty() || wv.field_abbrev == field->abbrev) && wv.word == w) {
            r.number = wv.value;
            return r;
          }
        if (field->abbrev == "opcode")
          if (auto op = opcode_for(w)) {
            r.number = *op;
            return r;
          }
        for (const wire::ValueName& n : field->value_names)
          if (lower(n.name) == w) {
            r.number = n.value;
            return r;
          }
      }
      return "expected a number or a named value, got '" + v.text + "'";
    }
  }
  return std::string("unknown value");
}

void store(const FieldHit& hit, const Resolved& v) {
  if (hit.field->is_octet_string()) {
    if (v.is_octets) hit.block->set_octets(*hit.field, v.octets);
    return;
  }
  if (v.number) hit.block->set(*hit.field, *v.number);
}

bool holds(const FieldHit& hit, const Resolved& v) {
  if (hit.field->is_octet_string()) {
    const wire::Bytes have = hit.block->octets(*hit.field);
    if (!v.is_octets) return false;
    std::vector<std::uint8_t> want = v.octets;
    want.resize(have.size(), 0);
    return std::equal(have.begin(), have.end(), want.begin());
  }
  return v.number && hit.block->get(*hit.field) == (*v.number & hit.field->max_value());
}

std::string show(const FieldHit& hit) {
  char buf[32];
  if (hit.field->is_octet_string()) {
    std::string s;
    for (std::uint8_t b : hit.block->octets(*hit.field)) {
      std::snprintf(buf, sizeof buf, "%02x", b);
      s += buf;
    }
    return "hex:" + s;
  }
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(hit.block->get(*hit.field)));
  return buf;
}

std::optional<std::uint64_t> numeric_value(const FieldHit& hit) {
  if (!hit.field->is_octet_string()) return hit.block->get(*hit.field);
  const wire::Bytes o = hit.block->octets(*hit.field);
  if (o.size() > 8) return std::nullopt;
  return wire::load_be(o);
}

Resolved capture(const FieldHit& hit) {
  Resolved r;
  if (hit.field->is_octet_string()) {
    const wire::Bytes o = hit.block->octets(*hit.field);
    r.is_octets = true;
    r.octets.assign(o.begin(), o.end());
  } else {
    r.number = hit.block->get(*hit.field);
  }
  return r;
}

bool compare(std::uint64_t have, Op op, std::uint64_t want) {
  switch (op) {
    case Op::kNone:
    case Op::kEq: return have == want;
    case Op::kNe: return have != want;
    case Op::kLt: return have < want;
    case Op::kLe: return have <= want;
    case Op::kGt: return have > want;
    case Op::kGe: return have >= want;
  }
  return false;
}

std::variant<std::vector<std::uint8_t>, std::string> payload_octets(const Value& v, const Variables& vars) {
  std::uint64_t n = 0;
  switch (v.kind) {
    case Value::Kind::kString:
    case Value::Kind::kBytes:
      return v.bytes;
    case Value::Kind::kNumber:
      n = v.number;
      break;
    case Value::Kind::kVariable: {
      auto it = vars.find(v.text);
      if (it == vars.end()) return "the IUT advertised no $" + v.text;
      n = it->second + static_cast<std::uint64_t>(v.offset);
      break;
    }
    default:
      return std::string("expected payload=N, payload=hex:... or payload=\"text\"");
  }
  if (n > 65535) return std::string("expected a payload of at most 65535 octets");
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
  // A counting pattern that makes misplaced octets visible in a dump.
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return out;
}

std::span<const MessageName> message_names() { return kMessageNames; }

std::optional<std::uint8_t> opcode_for(std::string_view name) {
  for (const MessageName& m : kMessageNames)
    if (m.name == name) return m.opcode;
  if (name == "atomic_request") return 0xa;
  return std::nullopt;
}

std::string_view message_name(std::uint8_t opcode) {
  for (const MessageName& m : kMessageNames)
    if (m.opcode == opcode) return m.name;
  return "fpdu";
}

std::uint8_t segment_opcode(wire::Bytes segment) {
  return rdmap::Control::from_octet(ddp::Control::read(segment).rsvd_ulp).opcode;
}

void Segment::rebuild_blocks() {
  blocks.clear();
  if (octets.size() < ddp::kControlSize) return;
  const bool tagged = ddp::Control::read(octets).tagged;
  const wire::HeaderDecl& d = tagged ? ddp::TaggedSpec::decl : ddp::UntaggedSpec::decl;
  blocks.push_back(raw_block(d, octets, 0));
  blocks.push_back(raw_block(rdmap::ControlSpec::decl, octets, ddp::kRsvdUlpOctet));
  const std::size_t ddp_size = d.size_octets;
  const std::uint8_t opcode = segment_opcode(octets);
  if (const wire::HeaderDecl* h = rdmap_header_for(opcode); h != nullptr && !tagged) {
    blocks.push_back(raw_block(*h, octets, ddp_size));
    if (opcode == static_cast<std::uint8_t>(rdmap::Opcode::kTerminate))
      blocks.push_back(raw_block(rdmap::TerminateSegmentLengthSpec::decl, octets, ddp_size + rdmap::kTerminateControlSize));
  }
}

Segment default_segment(std::string_view unit, std::uint32_t msn_for_queue[4]) {
  Segment s;
  std::uint8_t opcode = 0x3;
  bool tagged = false;
  if (unit == "ddp.tagged") {
    opcode = 0x0;
    tagged = true;
  } else if (unit == "ddp.untagged") {
    opcode = 0x3;
  } else if (auto op = opcode_for(unit)) {
    opcode = *op;
    tagged = rdmap::find_opcode(opcode)->tagged;
  }
  const rdmap::OpcodeInfo* info = rdmap::find_opcode(opcode);
  const wire::HeaderDecl& d = tagged ? ddp::TaggedSpec::decl : ddp::UntaggedSpec::decl;
  const wire::HeaderDecl* rh = tagged ? nullptr : rdmap_header_for(opcode);
  s.octets.assign(d.size_octets + (rh ? rh->size_octets : 0), 0);
  s.header_size = s.octets.size();
  // RFC 5041 §4.1: T, L=1 (one segment per unit), DV=1; RFC 5040 §4.2: RV=1.
  using TF = ddp::TaggedSpec::Field;
  const wire::MutableBytes o(s.octets);
  ddp::TaggedHeader::write(o, TF::T, tagged);
  ddp::TaggedHeader::write(o, TF::L, 1);
  ddp::TaggedHeader::write(o, TF::DV, ddp::kDdpVersion);
  ddp::TaggedHeader::write(o, TF::RsvdULP, rdmap::Control::octet(static_cast<rdmap::Opcode>(opcode)));
  if (!tagged) {
    const std::uint32_t q = info && info->queue ? static_cast<std::uint32_t>(*info->queue) : 0;
    ddp::UntaggedHeader::write(o, ddp::UntaggedSpec::Field::QN, q);
    ddp::UntaggedHeader::write(o, ddp::UntaggedSpec::Field::MSN, msn_for_queue[q & 3]);
  }
  s.rebuild_blocks();
  // Useful defaults of the RDMAP headers.
  if (opcode == static_cast<std::uint8_t>(rdmap::Opcode::kAtomicRequest)) {
    if (auto h = find_field(s.blocks, "request_id")) h->block->set(*h->field, 1);
    if (auto h = find_field(s.blocks, "compare_mask")) h->block->set(*h->field, ~std::uint64_t{0});
  }
  return s;
}

Segment decode_segment(std::vector<std::uint8_t> ulpdu) {
  Segment s;
  s.octets = std::move(ulpdu);
  s.rebuild_blocks();
  std::size_t h = 0;
  for (const Block& b : s.blocks)
    if (b.decl != &rdmap::ControlSpec::decl && b.decl != &rdmap::TerminateSegmentLengthSpec::decl) h += b.decl->size_octets;
  s.header_size = std::min(h, s.octets.size());
  return s;
}

bool is_framing_arg(std::string_view n) {
  static constexpr std::string_view kNames[] = {"payload", "ulpdu_length", "pad",      "pad_octet",
                                                "crc",     "fpduptr",      "marker_res", "omit_markers"};
  return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

bool is_send_option(std::string_view n) {
  static constexpr std::string_view kNames[] = {"truncate", "append", "split", "pause", "more"};
  return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

}  // namespace rdmaconf::conformance
