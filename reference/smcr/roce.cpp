#include "smcr/roce.hpp"

#include <cstdio>
#include <string>

namespace rdmaconf::smcr {
namespace {

// IBTA vol. 1 §9.2.1 Table 38 (RC rows) and §9.3: the headers each opcode carries.
constexpr OpcodeInfo kRcOpcodes[] = {
    {0x00, "RC Send First", false, false, 0, false},
    {0x01, "RC Send Middle", false, false, 0, false},
    {0x02, "RC Send Last", false, false, 0, false},
    {0x03, "RC Send Last with Immediate", false, false, 4, false},
    {0x04, "RC Send Only", false, false, 0, false},
    {0x05, "RC Send Only with Immediate", false, false, 4, false},
    {0x06, "RC RDMA Write First", true, false, 0, true},
    {0x07, "RC RDMA Write Middle", false, false, 0, true},
    {0x08, "RC RDMA Write Last", false, false, 0, true},
    {0x09, "RC RDMA Write Last with Immediate", false, false, 4, true},
    {0x0A, "RC RDMA Write Only", true, false, 0, true},
    {0x0B, "RC RDMA Write Only with Immediate", true, false, 4, true},
    {0x0C, "RC RDMA Read Request", true, false, 0, false},
    {0x0D, "RC RDMA Read Response First", false, true, 0, false},
    {0x0E, "RC RDMA Read Response Middle", false, false, 0, false},
    {0x0F, "RC RDMA Read Response Last", false, true, 0, false},
    {0x10, "RC RDMA Read Response Only", false, true, 0, false},
    {0x11, "RC Acknowledge", false, true, 0, false},
    {0x12, "RC Atomic Acknowledge", false, true, 8, false},
    {0x13, "RC Compare Swap", false, false, 28, false},
    {0x14, "RC Fetch Add", false, false, 28, false},
    {0x16, "RC Send Last with Invalidate", false, false, 4, false},
    {0x17, "RC Send Only with Invalidate", false, false, 4, false},
};

constexpr wire::DecodeError error(std::string_view field, std::string_view rule, std::string_view section,
                                  std::size_t offset) {
  return wire::DecodeError{field, rule, section, offset};
}

}  // namespace

const OpcodeInfo* find_opcode(std::uint8_t op) {
  for (const OpcodeInfo& i : kRcOpcodes)
    if (i.opcode == op) return &i;
  return nullptr;
}

std::string opcode_name(std::uint8_t op) {
  if (const OpcodeInfo* i = find_opcode(op)) return std::string(i->name);
  char buf[16];
  std::snprintf(buf, sizeof buf, "opcode 0x%02x", op);
  return buf;
}

wire::Result<RocePacket> decode_roce(wire::Bytes udp_payload) {
  wire::ByteReader r(udp_payload);
  RocePacket p;
  auto bth = Bth::decode(r);
  if (!bth) return bth.error();
  p.bth = *bth;
  // The ICRC is the last 4 octets of every packet (§7.8.1); nothing of the
  // transport may reach into it.
  if (r.remaining() < kIcrcSize) return error("ICRC", "packet ends before its 4-octet ICRC", cite::kIcrc, r.offset());
  p.icrc = static_cast<std::uint32_t>(wire::load_be(udp_payload.last(kIcrcSize)));
  wire::ByteReader body(r.rest().first(r.remaining() - kIcrcSize), r.offset());
  p.info = find_opcode(p.opcode());
  if (p.info) {
    if (p.info->reth) {
      auto reth = Reth::decode(body);
      if (!reth) return wire::truncated(RethSpec::decl, body.offset());
      p.reth = *reth;
    }
    if (p.info->aeth) {
      auto aeth = Aeth::decode(body);
      if (!aeth) return wire::truncated(AethSpec::decl, body.offset());
      p.aeth = *aeth;
    }
    if (!body.skip(p.info->other_octets))
      return error("OpCode", "the opcode's extended headers do not fit before the ICRC", cite::kOpcodes, 0);
  }
  // §9.2.3: PadCnt octets end the payload; they are not data.
  const std::size_t pad = p.bth.get(BthSpec::Field::PadCnt);
  if (body.remaining() < pad)
    return wire::field_error(Bth::field_decl(BthSpec::Field::PadCnt), "more pad octets than the payload holds", 0);
  p.payload = body.rest().first(body.remaining() - pad);
  return p;
}

}  // namespace rdmaconf::smcr
