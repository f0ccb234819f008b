// iSER message decoding (iser.hpp).
#include "ulp/iser.hpp"

namespace rdmaconf::ulp::iser {

std::string_view iscsi_opcode_name(std::uint8_t opcode) { return wire::value_name(names::kIscsiOpcode, opcode); }

namespace {
// SPC-4 and SBC-3 operation codes a Linux initiator sends to a disk.
constexpr wire::ValueName kScsiOpcodes[] = {
    {0x00, "TEST UNIT READY"},     {0x03, "REQUEST SENSE"},     {0x08, "READ(6)"},
    {0x0a, "WRITE(6)"},            {0x12, "INQUIRY"},           {0x1a, "MODE SENSE(6)"},
    {0x1b, "START STOP UNIT"},     {0x25, "READ CAPACITY(10)"}, {0x28, "READ(10)"},
    {0x2a, "WRITE(10)"},           {0x35, "SYNCHRONIZE CACHE(10)"}, {0x5a, "MODE SENSE(10)"},
    {0x88, "READ(16)"},            {0x8a, "WRITE(16)"},         {0x9e, "SERVICE ACTION IN(16)"},
    {0xa0, "REPORT LUNS"},         {0xa3, "MAINTENANCE IN"},
};
}  // namespace

std::string_view scsi_opcode_name(std::uint8_t opcode) { return wire::value_name(kScsiOpcodes, opcode); }

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
      m.reserved = static_cast<std::uint32_t>(header->get(C::Reserved));
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
      if (m.iscsi_opcode == kScsiCommand) {
        using S = ScsiCommandSpec::Field;
        m.scsi_read = ScsiCommandHeader::read(*bhs, S::R) != 0;
        m.scsi_write = ScsiCommandHeader::read(*bhs, S::W) != 0;
        m.expected_data_transfer_length =
            static_cast<std::uint32_t>(ScsiCommandHeader::read(*bhs, S::ExpectedDataTransferLength));
        m.cdb_opcode = static_cast<std::uint8_t>(ScsiCommandHeader::read(*bhs, S::CdbOpcode));
      }
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

void encode(const Message& m, wire::ByteWriter& w) {
  switch (static_cast<Opcode>(m.opcode)) {
    case Opcode::kHello: {
      using H = HelloSpec::Field;
      HelloHeader h;
      h.set(H::Opcode, m.opcode).set(H::MaxVer, m.max_ver).set(H::MinVer, m.min_or_cur_ver);
      h.set(H::IRD, m.ird_or_ord);
      h.encode(w);
      return;
    }
    case Opcode::kHelloReply: {
      using H = HelloReplySpec::Field;
      HelloReplyHeader h;
      h.set(H::Opcode, m.opcode).set(H::REJ, m.rej).set(H::MaxVer, m.max_ver);
      h.set(H::CurVer, m.min_or_cur_ver).set(H::ORD, m.ird_or_ord);
      h.encode(w);
      return;
    }
    case Opcode::kControl:
      break;
    default: {
      ControlHeader h;
      h.set(ControlSpec::Field::Opcode, m.opcode);
      h.encode(w);
      return;
    }
  }
  using C = ControlSpec::Field;
  ControlHeader header;
  header.set(C::Opcode, m.opcode).set(C::WSV, m.wsv).set(C::RSV, m.rsv).set(C::Reserved, m.reserved);
  header.set(C::WriteSTag, m.write_stag).set(C::WriteBaseOffset, m.write_base_offset);
  header.set(C::ReadSTag, m.read_stag).set(C::ReadBaseOffset, m.read_base_offset);
  header.encode(w);
  if (m.iscsi_opcode == kScsiCommand) {
    using S = ScsiCommandSpec::Field;
    ScsiCommandHeader c;
    c.set(S::I, m.immediate).set(S::Opcode, m.iscsi_opcode).set(S::F, m.final);
    c.set(S::R, m.scsi_read).set(S::W, m.scsi_write).set(S::DataSegmentLength, m.data_segment_length);
    c.set(S::ITT, m.itt).set(S::ExpectedDataTransferLength, m.expected_data_transfer_length);
    c.set(S::CdbOpcode, m.cdb_opcode);
    c.encode(w);
    return;
  }
  using B = BhsSpec::Field;
  Bhs bhs;
  bhs.set(B::I, m.immediate).set(B::Opcode, m.iscsi_opcode).set(B::F, m.final);
  bhs.set(B::DataSegmentLength, m.data_segment_length).set(B::ITT, m.itt);
  bhs.encode(w);
}

std::vector<std::uint8_t> encode(const Message& m) {
  std::vector<std::uint8_t> out;
  wire::ByteWriter w(out);
  encode(m, w);
  return out;
}

}  // namespace rdmaconf::ulp::iser
