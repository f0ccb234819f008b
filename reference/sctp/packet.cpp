#include "sctp/packet.hpp"

#include <algorithm>
#include <array>

#include "sctp/messages.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::sctp {
namespace {

using CF = CommonHeaderSpec::Field;
using K = ChunkHeaderSpec::Field;
using D = DataChunkSpec::Field;
using ID = IDataChunkSpec::Field;
using I = InitChunkSpec::Field;
using P = ParameterHeaderSpec::Field;

// RFC 9260 §3.2, §3.2.1: chunks and parameters are padded to 4 octets.
constexpr std::size_t kPadTo = 4;
constexpr std::size_t padded(std::size_t n) { return (n + kPadTo - 1) / kPadTo * kPadTo; }

}  // namespace

wire::Result<PacketHeader> decode_packet_header(wire::Bytes packet) {
  wire::ByteReader r(packet);
  auto h = CommonHeader::decode(r);
  if (!h) return h.error();
  PacketHeader p;
  p.source_port = static_cast<std::uint16_t>(h->get(CF::Source_Port));
  p.destination_port = static_cast<std::uint16_t>(h->get(CF::Destination_Port));
  p.verification_tag = static_cast<std::uint32_t>(h->get(CF::Verification_Tag));
  p.checksum = static_cast<std::uint32_t>(h->get(CF::Checksum));
  // RFC 9260 §6.8: the CRC32c of the whole packet with the Checksum field
  // taken as zero, computed over the views without a copy.
  const auto& field = CommonHeader::field_decl(CF::Checksum);
  static constexpr std::array<std::uint8_t, CommonHeaderSpec::fields[3].bit_width / 8> kZero{};
  wire::Crc32c crc;
  crc.update(packet.first(field.octet_offset()));
  crc.update(kZero);
  crc.update(packet.subspan(field.octet_offset() + kZero.size()));
  // The field reads least significant octet first (its declaration): the
  // same order crc32c_wire_octets writes, so both compare as numbers.
  p.computed_checksum = crc.value();
  p.chunks = r.rest();
  return p;
}

wire::Result<std::optional<ChunkView>> ChunkWalker::next() {
  if (failed_ || r_.empty()) return std::optional<ChunkView>{};
  const std::size_t at = r_.offset();
  const wire::Bytes rest = r_.rest();
  wire::ByteReader head(rest, at);
  auto h = ChunkHeader::decode(head);
  if (!h) {
    failed_ = true;
    return h.error();
  }
  const std::size_t length = h->get(K::Length);
  if (length < ChunkHeader::kSize || length > rest.size()) {
    failed_ = true;
    return wire::field_error(ChunkHeader::field_decl(K::Length), "below 4 or past the packet's end", at);
  }
  ChunkView c;
  c.type = static_cast<std::uint8_t>(h->get(K::Type));
  c.flags = static_cast<std::uint8_t>(h->get(K::Flags));
  c.length = static_cast<std::uint16_t>(length);
  c.offset = at;
  c.octets = rest.first(length);
  // The last chunk's padding may be left out of a packet; we take what is there.
  r_.skip(std::min(padded(length), rest.size()));
  return std::optional<ChunkView>{c};
}

wire::Result<DataChunk> decode_data_chunk(const ChunkView& c) {
  wire::ByteReader r(c.octets, c.offset);
  auto h = DataChunkHeader::decode(r);
  if (!h) return h.error();
  if (h->get(D::Type) != chunk_type::kData)
    return wire::field_error(DataChunkHeader::field_decl(D::Type), "is not 0 (DATA)", c.offset);
  DataChunk d;
  d.tsn = static_cast<std::uint32_t>(h->get(D::TSN));
  d.stream = static_cast<std::uint16_t>(h->get(D::Stream_Identifier));
  d.ssn = static_cast<std::uint16_t>(h->get(D::SSN));
  d.ppid = static_cast<std::uint32_t>(h->get(D::PPID));
  d.unordered = h->flag(D::U);
  d.beginning = h->flag(D::B);
  d.ending = h->flag(D::E);
  d.user_data = r.rest();
  if (d.user_data.empty())
    return wire::field_error(DataChunkHeader::field_decl(D::Length), "a DATA chunk carries at least one octet",
                             c.offset);
  return d;
}

wire::Result<IDataChunk> decode_idata_chunk(const ChunkView& c) {
  wire::ByteReader r(c.octets, c.offset);
  auto h = IDataChunkHeader::decode(r);
  if (!h) return h.error();
  if (h->get(ID::Type) != chunk_type::kIData)
    return wire::field_error(IDataChunkHeader::field_decl(ID::Type), "is not 64 (I-DATA)", c.offset);
  IDataChunk d;
  d.tsn = static_cast<std::uint32_t>(h->get(ID::TSN));
  d.stream = static_cast<std::uint16_t>(h->get(ID::Stream_Identifier));
  d.mid = static_cast<std::uint32_t>(h->get(ID::MID));
  d.unordered = h->flag(ID::U);
  d.beginning = h->flag(ID::B);
  d.ending = h->flag(ID::E);
  // RFC 8260 §2.1: one field, read by the B bit.
  const auto ppid_fsn = static_cast<std::uint32_t>(h->get(ID::PPID_FSN));
  if (d.beginning)
    d.ppid = ppid_fsn;
  else
    d.fsn = ppid_fsn;
  d.user_data = r.rest();
  if (d.user_data.empty())
    return wire::field_error(IDataChunkHeader::field_decl(ID::Length), "an I-DATA chunk carries at least one octet",
                             c.offset);
  return d;
}

wire::Result<InitChunk> decode_init_chunk(const ChunkView& c) {
  wire::ByteReader r(c.octets, c.offset);
  auto h = InitChunkHeader::decode(r);
  if (!h) return h.error();
  const auto type = h->get(I::Type);
  if (type != chunk_type::kInit && type != chunk_type::kInitAck)
    return wire::field_error(InitChunkHeader::field_decl(I::Type), "is neither 1 (INIT) nor 2 (INIT ACK)", c.offset);
  InitChunk init;
  init.ack = type == chunk_type::kInitAck;
  init.initiate_tag = static_cast<std::uint32_t>(h->get(I::Initiate_Tag));
  init.outbound_streams = static_cast<std::uint16_t>(h->get(I::Outbound_Streams));
  init.inbound_streams = static_cast<std::uint16_t>(h->get(I::Inbound_Streams));
  init.initial_tsn = static_cast<std::uint32_t>(h->get(I::Initial_TSN));
  // RFC 9260 §3.2.1: the parameters follow, each padded to 4 octets.
  for (std::size_t n = 0; !r.empty() && n < kMaxParameters; ++n) {
    const std::size_t at = r.offset();
    const wire::Bytes rest = r.rest();
    wire::ByteReader head(rest, at);
    auto p = ParameterHeader::decode(head);
    if (!p) return p.error();
    const std::size_t length = p->get(P::Length);
    if (length < ParameterHeader::kSize || length > rest.size())
      return wire::field_error(ParameterHeader::field_decl(P::Length), "below 4 or past the chunk's end", at);
    if (p->get(P::Type) == kAdaptationLayerIndicationType) {
      auto a = decode_adaptation_layer_indication(rest.first(length));
      if (!a) {
        wire::DecodeError e = a.error();
        e.offset += at;
        return e;
      }
      init.adaptation_indication = *a;
    }
    r.skip(std::min(padded(length), rest.size()));
  }
  return init;
}

// ---- building ----

namespace {
void pad(std::vector<std::uint8_t>& out, std::size_t from) {
  out.resize(from + padded(out.size() - from), 0);
}
}  // namespace

void encode_data_chunk(const DataChunkFields& f, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  DataChunkHeader h;
  h.set(D::Type, chunk_type::kData)
      .set(D::U, f.unordered)
      .set(D::B, f.beginning)
      .set(D::E, f.ending)
      .set(D::Length, f.length.value_or(static_cast<std::uint16_t>(DataChunkHeader::kSize + f.user_data.size())))
      .set(D::TSN, f.tsn)
      .set(D::Stream_Identifier, f.stream)
      .set(D::SSN, f.ssn)
      .set(D::PPID, f.ppid);
  wire::ByteWriter w(out);
  h.encode(w);
  w.put(f.user_data);
  pad(out, start);
}

void encode_idata_chunk(const IDataChunkFields& f, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  IDataChunkHeader h;
  h.set(ID::Type, chunk_type::kIData)
      .set(ID::U, f.unordered)
      .set(ID::B, f.beginning)
      .set(ID::E, f.ending)
      .set(ID::Length, f.length.value_or(static_cast<std::uint16_t>(IDataChunkHeader::kSize + f.user_data.size())))
      .set(ID::TSN, f.tsn)
      .set(ID::Stream_Identifier, f.stream)
      .set(ID::MID, f.mid)
      .set(ID::PPID_FSN, f.beginning ? f.ppid : f.fsn);
  wire::ByteWriter w(out);
  h.encode(w);
  w.put(f.user_data);
  pad(out, start);
}

void encode_init_chunk(const InitChunkFields& f, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  const std::vector<std::uint8_t> ali =
      f.indication ? encode_adaptation_layer_indication(*f.indication) : std::vector<std::uint8_t>{};
  InitChunkHeader h;
  h.set(I::Type, f.ack ? chunk_type::kInitAck : chunk_type::kInit)
      .set(I::Length, InitChunkHeader::kSize + ali.size())
      .set(I::Initiate_Tag, f.initiate_tag)
      .set(I::A_Rwnd, f.a_rwnd)
      .set(I::Outbound_Streams, f.outbound_streams)
      .set(I::Inbound_Streams, f.inbound_streams)
      .set(I::Initial_TSN, f.initial_tsn);
  wire::ByteWriter w(out);
  h.encode(w);
  w.put(ali);
  pad(out, start);
}

std::vector<std::uint8_t> encode_packet(const PacketFields& f) {
  CommonHeader h;
  h.set(CF::Source_Port, f.source_port).set(CF::Destination_Port, f.destination_port);
  h.set(CF::Verification_Tag, f.verification_tag);
  std::vector<std::uint8_t> out;
  wire::ByteWriter w(out);
  h.encode(w);
  w.put(f.chunks);
  // RFC 9260 §6.8: over the whole packet with the field zero, as it is now.
  const std::uint32_t crc = f.checksum.value_or(wire::crc32c(out));
  CommonHeader::write(wire::MutableBytes(out).first(CommonHeader::kSize), CF::Checksum, crc);
  return out;
}

}  // namespace rdmaconf::sctp
