// iSER message decoding (iser.hpp).
#include "ulp/iser.hpp"

namespace rdmaconf::ulp::iser {

std::string_view iscsi_opcode_name(std::uint8_t opcode) {
  for (const wire::ValueName& n : names::kIscsiOpcode)
    if (n.value == opcode) return n.name;
  return {};
}

wire::Result<Message> decode(wire::Bytes send_payload) {
  wire::ByteReader r(send_payload);
  // RFC 7145 §9.1: every Send carries the 28-octet header; its first four
  // bits are the opcode whichever layout follows.
  auto header = ControlHeader::decode(r);
  if (!header) return wire::DecodeError{"iSER header", "the Send is shorter than the 28-octet iSER header",
                                        "RFC 7145 §9.1", 0};
  Message m;
  using C = ControlSpec::Field;
  m.opcode = static_cast<std::uint8_t>(header->get(C::Opcode));
  switch (static_cast<Opcode>(m.opcode)) {
    case Opcode::kControl: {
      m.wsv = header->flag(C::WSV);
      m.rsv = header->flag(C::RSV);
      m.write_stag = static_cast<std::uint32_t>(header->get(C::WriteSTag));
      m.write_base_offset = header->get(C::WriteBaseOffset);
      m.read_stag = static_cast<std::uint32_t>(header->get(C::ReadSTag));
      m.read_base_offset = header->get(C::ReadBaseOffset);
      // RFC 7145 §9.2: an iSCSI control-type PDU follows the header.
      const std::size_t at = r.offset();
      const auto bhs = r.take(kBhsSize);
      if (!bhs) return wire::truncated(BhsSpec::decl, at);
      using B = BhsSpec::Field;
      m.iscsi_opcode = static_cast<std::uint8_t>(Bhs::read(*bhs, B::Opcode));
      m.immediate = Bhs::read(*bhs, B::I) != 0;
      m.final = Bhs::read(*bhs, B::F) != 0;
      m.data_segment_length = static_cast<std::uint32_t>(Bhs::read(*bhs, B::DataSegmentLength));
      m.itt = static_cast<std::uint32_t>(Bhs::read(*bhs, B::ITT));
      break;
    }
    case Opcode::kHello: {
      using H = HelloSpec::Field;
      const wire::Bytes b = header->bytes();
      m.max_ver = static_cast<std::uint8_t>(HelloHeader::read(b, H::MaxVer));
      m.min_or_cur_ver = static_cast<std::uint8_t>(HelloHeader::read(b, H::MinVer));
      m.ird_or_ord = static_cast<std::uint16_t>(HelloHeader::read(b, H::IRD));
      break;
    }
    case Opcode::kHelloReply: {
      using H = HelloReplySpec::Field;
      const wire::Bytes b = header->bytes();
      m.rej = HelloReplyHeader::read(b, H::REJ) != 0;
      m.max_ver = static_cast<std::uint8_t>(HelloReplyHeader::read(b, H::MaxVer));
      m.min_or_cur_ver = static_cast<std::uint8_t>(HelloReplyHeader::read(b, H::CurVer));
      m.ird_or_ord = static_cast<std::uint16_t>(HelloReplyHeader::read(b, H::ORD));
      break;
    }
    default:
      return wire::field_error(ControlHeader::field_decl(C::Opcode), "is no assigned iSER opcode (1, 2 or 3)", 0);
  }
  return m;
}

}  // namespace rdmaconf::ulp::iser
