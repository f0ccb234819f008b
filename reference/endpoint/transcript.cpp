#include "endpoint/transcript.hpp"

#include <array>
#include <cstdio>

#include "ddp/headers.hpp"
#include "mpa/headers.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "sctp/messages.hpp"

namespace rdmaconf::endpoint {
namespace {

std::string hex_preview(const wire::Chunks& payload, std::size_t max_octets) {
  std::array<std::uint8_t, 16> head{};
  std::size_t n = std::min({payload.size(), max_octets, head.size()});
  payload.copy_prefix(wire::MutableBytes(head).first(n));
  std::string s;
  char buf[4];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", head[i]);
    if (i) s.push_back(' ');
    s.append(buf);
  }
  if (payload.size() > n) s.append(" ...");
  return s;
}

void add_header_line(std::string& out, const wire::HeaderDecl& decl, wire::Bytes octets) {
  out.append("    ").append(decl.name).append(": ").append(wire::summarize(decl, octets)).append("\n");
}

// The header an opcode carries at the start of its DDP payload, if any
// (RFC 5040 §4.4, §4.8; RFC 7306 §4).
const wire::HeaderDecl* rdmap_header_decl(rdmap::Opcode op) {
  switch (op) {
    case rdmap::Opcode::kRdmaReadRequest: return &rdmap::ReadRequestSpec::decl;
    case rdmap::Opcode::kTerminate: return &rdmap::TerminateControlSpec::decl;
    case rdmap::Opcode::kAtomicRequest: return &rdmap::AtomicRequestSpec::decl;
    case rdmap::Opcode::kAtomicResponse: return &rdmap::AtomicResponseSpec::decl;
    case rdmap::Opcode::kImmediateData:
    case rdmap::Opcode::kImmediateDataWithSe: return &rdmap::ImmediateDataSpec::decl;
    default: return nullptr;
  }
}

std::string_view arrow(Direction d) { return d == Direction::kSent ? "-->" : "<--"; }

}  // namespace

WireEvent describe_req_rep(Direction d, const mpa::ReqRepFrame& frame) {
  WireEvent e;
  e.direction = d;
  e.unit = frame.kind == mpa::FrameKind::kRequest ? "MPA Request" : "MPA Reply";
  e.octets = frame.frame_size;
  e.headline = std::string(arrow(d)) + " " + std::string(e.unit) + (frame.reject ? " (reject)" : "") +
               ", Rev " + std::to_string(frame.revision) + ", " + std::to_string(frame.frame_size) +
               " octets";
  add_header_line(e.detail, mpa::ReqRepSpec::decl, frame.header.bytes());
  if (frame.enhanced_data) {
    auto h = frame.enhanced_data->to_header();
    add_header_line(e.detail, mpa::EnhancedDataSpec::decl, h.bytes());
  }
  if (!frame.ulp_private_data.empty())
    e.detail.append("    private data: " + std::to_string(frame.ulp_private_data.size()) + " octets: " +
                    hex_preview(wire::Chunks(frame.ulp_private_data), 16) + "\n");
  return e;
}

namespace {

// One DDP segment with its RDMAP meaning: the headline names the message and
// then `carrier` (the FPDU or the SCTP chunk around it); one detail line per
// header. Returns false when the octets hold no DDP header.
bool describe_segment(WireEvent& e, Direction d, const wire::Chunks& ulpdu, const std::string& carrier) {
  std::array<std::uint8_t, ddp::kUntaggedHeaderSize> ddp_octets{};
  std::array<std::uint8_t, 2> first{};
  if (!ulpdu.copy_prefix(first)) {
    e.headline = std::string(arrow(d)) + " " + carrier + " with a " + std::to_string(ulpdu.size()) +
                 "-octet DDP segment (too short for a DDP header)";
    return false;
  }
  const bool tagged = ddp::Control::read(first).tagged;  // RFC 5041 §4.1
  const wire::HeaderDecl& ddp_decl = tagged ? ddp::TaggedSpec::decl : ddp::UntaggedSpec::decl;
  const std::size_t ddp_size = ddp_decl.size_octets;
  if (!ulpdu.copy_prefix(wire::MutableBytes(ddp_octets).first(ddp_size))) {
    e.headline = std::string(arrow(d)) + " " + carrier + " with a truncated DDP header";
    return false;
  }
  rdmap::ControlHeader control(wire::Bytes(ddp_octets).subspan(1).first<1>());
  const auto opcode_value = static_cast<std::uint8_t>(control.get(rdmap::ControlHeader::Field::Opcode));
  const rdmap::OpcodeInfo* op = rdmap::find_opcode(opcode_value);

  std::string name = op ? std::string(op->name) : "unknown opcode " + std::to_string(opcode_value);
  e.headline = std::string(arrow(d)) + " " + name + ", " + carrier;

  add_header_line(e.detail, ddp_decl, wire::Bytes(ddp_octets).first(ddp_size));
  add_header_line(e.detail, rdmap::ControlSpec::decl, control.bytes());

  std::size_t consumed = ddp_size;
  if (op) {
    if (const wire::HeaderDecl* h = rdmap_header_decl(op->opcode)) {
      std::array<std::uint8_t, rdmap::kAtomicRequestHeaderSize> octets{};
      auto rest = ulpdu.subrange(consumed);
      if (rest.copy_prefix(wire::MutableBytes(octets).first(h->size_octets))) {
        add_header_line(e.detail, *h, wire::Bytes(octets).first(h->size_octets));
        consumed += h->size_octets;
      }
    }
  }
  const wire::Chunks payload = ulpdu.subrange(consumed);
  if (!payload.empty())
    e.detail.append("    payload: " + std::to_string(payload.size()) + " octets: " + hex_preview(payload, 16) +
                    "\n");
  return true;
}

}  // namespace

WireEvent describe_fpdu(Direction d, const wire::Chunks& ulpdu, std::size_t fpdu_octets,
                        mpa::CrcStatus crc, std::size_t markers) {
  WireEvent e;
  e.direction = d;
  e.unit = "FPDU";
  e.octets = fpdu_octets;
  if (!describe_segment(e, d, ulpdu, "FPDU " + std::to_string(fpdu_octets) + " octets")) return e;
  if (markers) e.headline += ", " + std::to_string(markers) + " marker(s)";
  if (crc == mpa::CrcStatus::kMismatch) e.headline += ", CRC MISMATCH";
  return e;
}

WireEvent describe_sctp_message(Direction d, std::uint16_t stream, std::uint32_t ppid, wire::Bytes user_data) {
  WireEvent e;
  e.direction = d;
  e.octets = user_data.size();
  const std::string carrier = "SCTP stream " + std::to_string(stream) + ", PPID " + std::to_string(ppid) + ", " +
                              std::to_string(user_data.size()) + " octets";
  auto m = sctp::decode_message(ppid, user_data);
  if (!m) {
    e.unit = "SCTP message";
    e.headline = std::string(arrow(d)) + " " + carrier + ": " + m.error().to_string();
    return e;
  }
  if (m->kind == sctp::MessageKind::kSegment) {
    e.unit = "DDP Segment Chunk";
    add_header_line(e.detail, sctp::SegmentChunkSpec::decl, user_data.first(sctp::kSegmentChunkHeaderSize));
    describe_segment(e, d, wire::Chunks(m->ddp_segment), carrier);
    return e;
  }
  e.unit = "DDP Stream Session Control";
  e.headline = std::string(arrow(d)) + " DDP Stream Session " + std::string(sctp::name(m->function)) + ", " + carrier;
  add_header_line(e.detail, sctp::SessionControlSpec::decl, user_data.first(sctp::kSessionControlHeaderSize));
  if (!m->private_data.empty())
    e.detail.append("    private data: " + std::to_string(m->private_data.size()) + " octets: " +
                    hex_preview(wire::Chunks(m->private_data), 16) + "\n");
  return e;
}

}  // namespace rdmaconf::endpoint
