#include "sctp/messages.hpp"

namespace rdmaconf::sctp {
namespace {

using C = SessionControlSpec::Field;
using A = AdaptationLayerIndicationSpec::Field;

wire::DecodeError control_error(C field, std::string_view rule) {
  return wire::field_error(SessionControlHeader::field_decl(field), rule, 0);
}

}  // namespace

std::string_view name(FunctionCode code) {
  switch (code) {
    case FunctionCode::kInitiate: return "Initiate";
    case FunctionCode::kAccept: return "Accept";
    case FunctionCode::kReject: return "Reject";
    case FunctionCode::kTerminate: return "Terminate";
  }
  return {};
}

wire::Result<Message> decode_message(std::uint32_t ppid, wire::Bytes user_data, const DecodeOptions& options) {
  wire::ByteReader r(user_data);
  Message m;
  if (ppid == kPpidDdpSegment) {
    auto h = SegmentChunkHeader::decode(r);
    if (!h) return h.error();
    m.kind = MessageKind::kSegment;
    m.ddp_ssn = static_cast<std::uint16_t>(h->get(SegmentChunkSpec::Field::DDP_SSN));
    m.ddp_segment = r.rest();
    // RFC 5043 §5.2.2: the chunk carries a DDP segment, which has at least
    // its header; an empty one is no segment at all.
    if (m.ddp_segment.empty())
      return wire::DecodeError{"DDP Segment", "a DDP Segment Chunk carries no DDP segment", cite::kSegmentChunk,
                               kSegmentChunkHeaderSize};
    if (options.max_segment_size != 0 && m.ddp_segment.size() > options.max_segment_size)
      return wire::DecodeError{"DDP Segment", "is larger than the maximum DDP segment size the receiver announced",
                               cite::kFragmentation, kSegmentChunkHeaderSize};
    return m;
  }
  if (ppid != kPpidSessionControl)
    return wire::DecodeError{"PPID", "is neither 16 (DDP Segment) nor 17 (DDP Stream Session Control)",
                             cite::kPayloadChunks, 0};
  auto h = SessionControlHeader::decode(r);
  if (!h) return h.error();
  m.kind = MessageKind::kControl;
  m.ddp_ssn = static_cast<std::uint16_t>(h->get(C::DDP_SSN));
  const std::uint64_t code = h->get(C::Function_Code);
  if (code < 0x001 || code > 0x004) return control_error(C::Function_Code, "must be 1 (Initiate) to 4 (Terminate)");
  m.function = static_cast<FunctionCode>(code);
  m.private_data = r.rest();
  if (m.private_data.size() > kMaxPrivateDataLength)
    return wire::DecodeError{"Private Data", "must not exceed 512 octets", cite::kSessionControl,
                             kSessionControlHeaderSize};
  if (m.function == FunctionCode::kTerminate && !m.private_data.empty())
    return wire::DecodeError{"Private Data", "a Terminate carries none", cite::kSessionControl,
                             kSessionControlHeaderSize};
  return m;
}

wire::Result<std::uint32_t> decode_adaptation_layer_indication(wire::Bytes parameter) {
  wire::ByteReader r(parameter);
  auto h = AdaptationLayerIndicationHeader::decode(r);
  if (!h) return h.error();
  const auto& decl = AdaptationLayerIndicationHeader::decl;
  if (h->get(A::Type) != kAdaptationLayerIndicationType)
    return wire::field_error(decl.fields[0], "is not 0xC006 (Adaptation Layer Indication)", 0);
  if (h->get(A::Length) != kAdaptationLayerIndicationSize)
    return wire::field_error(decl.fields[1], "must be 8", 0);
  return static_cast<std::uint32_t>(h->get(A::Adaptation_Indication));
}

std::size_t encode_segment_chunk(const SegmentChunkFields& f, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  SegmentChunkHeader h;
  h.set(SegmentChunkSpec::Field::DDP_SSN, f.ddp_ssn);
  wire::ByteWriter w(out);
  h.encode(w);
  f.ddp_segment.for_each([&](wire::Bytes b) { w.put(b); });
  return out.size() - start;
}

std::size_t encode_session_control(const SessionControlFields& f, std::vector<std::uint8_t>& out) {
  const std::size_t start = out.size();
  SessionControlHeader h;
  h.set(C::DDP_SSN, f.ddp_ssn);
  h.set(C::Function_Code, f.raw_function_code.value_or(static_cast<std::uint16_t>(f.function)));
  wire::ByteWriter w(out);
  h.encode(w);
  w.put(f.private_data);
  return out.size() - start;
}

std::vector<std::uint8_t> encode_session_control(const SessionControlFields& fields) {
  std::vector<std::uint8_t> out;
  encode_session_control(fields, out);
  return out;
}

std::vector<std::uint8_t> encode_adaptation_layer_indication(std::uint32_t indication) {
  AdaptationLayerIndicationHeader h;
  h.set(A::Type, kAdaptationLayerIndicationType)
      .set(A::Length, kAdaptationLayerIndicationSize)
      .set(A::Adaptation_Indication, indication);
  return std::vector<std::uint8_t>(h.bytes().begin(), h.bytes().end());
}

}  // namespace rdmaconf::sctp
