// DDP (RFC 5041) and RDMAP (RFC 5040, RFC 7306) inside one ULPDU, shown.
//
// The DDP header is chosen by its T bit; RDMAP's control field is the DDP
// header's RsvdULP octet; what follows in the payload is chosen by the
// opcode table (rdmap/opcodes.hpp, one row per opcode). Every header is
// shown through its declaration (generated_fields.hpp). The checks are the
// observer's (connection.cpp shows its violations); what the first pass
// kept adds the expected MSN and the Read Request <-> Read Response links;
// the ULP's part (a Send's header, the region a transfer used) is ulp.cpp's.
#include <optional>
#include <span>
#include <string>

#include "ddp/headers.hpp"
#include "generated_fields.hpp"
#include "plugin.hpp"
#include "rdmap/error_codes.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/terminate.hpp"

namespace rdmaconf::dissector {
namespace {

// The DDP header copied into a Terminate, then the RDMAP request header
// copied after it: sizes come from the copied header itself (its T bit, its
// opcode), which Wireshark 4.0 does not look at.
void show_terminate(tvbuff_t* tvb, packet_info* pinfo, proto_tree* rt, int at) {
  const Ids& i = ids();
  proto_tree* tt = add_header(rt, tvb, at, rdmap::TerminateControlSpec::decl);
  if (tvb_captured_length_remaining(tvb, at) < static_cast<int>(rdmap::kTerminateControlSize)) return;
  using TF = rdmap::TerminateControlSpec::Field;
  const rdmap::TerminateControlHeader control(std::span<const std::uint8_t, rdmap::kTerminateControlSize>(
      tvb_get_ptr(tvb, at, static_cast<int>(rdmap::kTerminateControlSize)), rdmap::kTerminateControlSize));
  const ddp::TerminateCode code{static_cast<ddp::Layer>(control.get(TF::Layer)),
                                static_cast<std::uint8_t>(control.get(TF::EType)),
                                static_cast<std::uint8_t>(control.get(TF::ErrorCode))};
  const rdmap::ErrorRow* row = rdmap::find_error(code);
  const std::string name = row ? std::string(row->name) : "undefined error code";
  if (tt)
    proto_item_set_generated(proto_tree_add_string(tt, i.rdmap_term_error, tvb, at,
                                                   static_cast<int>(rdmap::kTerminateControlSize), name.c_str()));
  col_append_fstr(pinfo->cinfo, COL_INFO, " (%s)", name.c_str());
  const bool m = control.flag(TF::M), d = control.flag(TF::D), r = control.flag(TF::R);
  int off = at + static_cast<int>(rdmap::kTerminateControlSize);
  const auto& length_decl = rdmap::TerminateSegmentLengthSpec::decl;
  if ((m || d) && tvb_captured_length_remaining(tvb, off) >= static_cast<int>(length_decl.size_octets)) {
    add_header(rt, tvb, off, length_decl);
    off += static_cast<int>(length_decl.size_octets);
  }
  // The copied DDP header's T bit chooses its layout; its RsvdULP octet is
  // the copied RDMAP control field, whose opcode says what follows.
  using DF = ddp::TaggedSpec::Field;
  std::optional<std::uint8_t> copied_opcode;
  if (const auto t = d ? read_field<ddp::TaggedHeader>(tvb, off, DF::T) : std::nullopt) {
    const wire::HeaderDecl& decl = *t ? ddp::TaggedSpec::decl : ddp::UntaggedSpec::decl;
    proto_tree* ct = add_header(rt, tvb, off, decl, "Terminated DDP Header");
    if (const auto control = read_field<ddp::TaggedHeader>(tvb, off, DF::RsvdULP)) {
      copied_opcode = rdmap::Control::from_octet(static_cast<std::uint8_t>(*control)).opcode;
      add_header(ct, tvb, off + field_offset(ddp::TaggedHeader::field_decl(DF::RsvdULP)), rdmap::ControlSpec::decl,
                 "Terminated RDMAP control field");
    }
    off += static_cast<int>(decl.size_octets);
  }
  if (r && copied_opcode) {
    const std::size_t size = rdmap::copied_rdma_header_size(*copied_opcode);
    if (size == rdmap::kReadRequestHeaderSize)
      add_header(rt, tvb, off, rdmap::ReadRequestSpec::decl, "Terminated RDMA Read Request Header");
    else if (size == rdmap::kAtomicRequestHeaderSize)
      add_header(rt, tvb, off, rdmap::AtomicRequestSpec::decl, "Terminated Atomic Request Header");
  }
}

}  // namespace

void show_ulpdu(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const MessageRecord& m) {
  const Ids& i = ids();
  const int length = static_cast<int>(tvb_captured_length(tvb));
  proto_item* di = proto_tree_add_item(tree, i.proto_ddp, tvb, 0, -1, ENC_NA);
  proto_tree* dt = proto_item_add_subtree(di, i.ett_ddp);
  if (length < static_cast<int>(ddp::kControlSize)) {
    col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "DDP: truncated");
    return;
  }
  const ddp::Control control =
      ddp::Control::read(wire::Bytes(tvb_get_ptr(tvb, 0, static_cast<int>(ddp::kControlSize)), ddp::kControlSize));
  const wire::HeaderDecl& ddecl = control.tagged ? ddp::TaggedSpec::decl : ddp::UntaggedSpec::decl;
  const int hdr = static_cast<int>(ddecl.size_octets);
  add_header(dt, tvb, 0, ddecl);
  if (length < hdr) {
    col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "DDP: truncated header");
    return;
  }
  proto_item_set_len(di, hdr);
  using UF = ddp::UntaggedSpec::Field;
  using TF = ddp::TaggedSpec::Field;
  if (m.msn_expected_known && !control.tagged && dt) {
    const wire::FieldDecl& msn = ddp::UntaggedHeader::field_decl(UF::MSN);
    proto_item_set_generated(
        proto_tree_add_uint(dt, i.ddp_msn_expected, tvb, field_offset(msn), field_length(msn), m.msn_expected));
  }
  const int payload = length - hdr;
  if (dt)
    proto_item_set_generated(
        proto_tree_add_uint(dt, i.ddp_payload_length, tvb, hdr, payload, static_cast<guint32>(payload)));

  // RDMAP: the control field is the DDP header's RsvdULP octet (RFC 5040 §4.2).
  const rdmap::Control rc = rdmap::Control::from_octet(control.rsvd_ulp);
  const rdmap::OpcodeInfo* op = rdmap::find_opcode(rc.opcode);
  proto_item* ri = proto_tree_add_item(tree, i.proto_rdmap, tvb, 0, -1, ENC_NA);
  proto_tree* rt = proto_item_add_subtree(ri, i.ett_rdmap);
  add_header(rt, tvb, field_offset(ddp::TaggedHeader::field_decl(TF::RsvdULP)), rdmap::ControlSpec::decl);
  const char* op_name = op ? op->name.data() : "reserved opcode";
  proto_item_append_text(ri, ", %s", op_name);
  col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", op_name);
  if (!op) return;
  // RFC 5040 §4.4: the Invalidate STag is the untagged header's other RsvdULP bits.
  if (op->carries_invalidate_stag && !control.tagged)
    add_header(rt, tvb, field_offset(ddp::UntaggedHeader::field_decl(UF::RsvdULP32)), rdmap::InvalidateStagSpec::decl);

  switch (op->opcode) {
    case rdmap::Opcode::kRdmaReadRequest:
      add_header(rt, tvb, hdr, rdmap::ReadRequestSpec::decl);
      if (m.read && m.read->response_first_frame && rt)
        proto_item_set_generated(
            proto_tree_add_uint(rt, i.rdmap_read_response_in, tvb, 0, 0, m.read->response_first_frame));
      break;
    case rdmap::Opcode::kRdmaReadResponse:
      if (m.read && rt && control.tagged) {
        proto_item_set_generated(proto_tree_add_uint(rt, i.rdmap_read_request_in, tvb, 0, 0, m.read->request_frame));
        const wire::FieldDecl& to = ddp::TaggedHeader::field_decl(TF::TO);
        proto_item_set_generated(proto_tree_add_uint64(rt, i.rdmap_read_response_offset, tvb, field_offset(to),
                                                       field_length(to), m.read_offset));
      }
      break;
    case rdmap::Opcode::kTerminate:
      show_terminate(tvb, pinfo, rt, hdr);
      break;
    case rdmap::Opcode::kImmediateData:
    case rdmap::Opcode::kImmediateDataWithSe:
      add_header(rt, tvb, hdr, rdmap::ImmediateDataSpec::decl);
      break;
    case rdmap::Opcode::kAtomicRequest:
      add_header(rt, tvb, hdr, rdmap::AtomicRequestSpec::decl);
      break;
    case rdmap::Opcode::kAtomicResponse:
      add_header(rt, tvb, hdr, rdmap::AtomicResponseSpec::decl);
      break;
    default:
      break;
  }
  const int data_at = hdr + static_cast<int>(op->rdmap_header_size);
  if (op->payload_allowed && length > data_at && rt)
    proto_tree_add_item(rt, i.rdmap_data, tvb, data_at, length - data_at, ENC_NA);
  if (length >= data_at) show_ulp(tvb_new_subset_remaining(tvb, data_at), pinfo, tree, m);
}

void register_ddp_rdmap(void) {
  Ids& i = ids();
  static hf_register_info ddp_hf[] = {
      {&i.ddp_payload_length,
       {"Payload length", "rdmaconf.ddp.payload_length", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "Octets of DDP payload in this segment", HFILL}},
      {&i.ddp_msn_expected,
       {"Expected MSN", "rdmaconf.ddp.msn_expected", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "The MSN this queue's next message takes (RFC 5041 §5.3)", HFILL}},
  };
  proto_register_field_array(i.proto_ddp, ddp_hf, static_cast<int>(G_N_ELEMENTS(ddp_hf)));
  static hf_register_info rdmap_hf[] = {
      {&i.rdmap_data,
       {"ULP data", "rdmaconf.rdmap.data", FT_BYTES, BASE_NONE, nullptr, 0x0, "The message's ULP payload", HFILL}},
      {&i.rdmap_read_response_in,
       {"Read Response in", "rdmaconf.rdmap.read.response_in", FT_FRAMENUM, BASE_NONE,
        FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0, "First frame of the RDMA Read Response to this request", HFILL}},
      {&i.rdmap_read_request_in,
       {"Read Request in", "rdmaconf.rdmap.read.request_in", FT_FRAMENUM, BASE_NONE,
        FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0, "The RDMA Read Request this response answers", HFILL}},
      {&i.rdmap_read_response_offset,
       {"Offset in the read", "rdmaconf.rdmap.read.offset", FT_UINT64, BASE_DEC, nullptr, 0x0,
        "Tagged Offset minus the request's Data Sink Tagged Offset", HFILL}},
      {&i.rdmap_term_error,
       {"Error", "rdmaconf.rdmap.term.error", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Name of the Layer/EType/Error Code triple (RFC 5040 §4.8, RFC 6580)", HFILL}},
  };
  proto_register_field_array(i.proto_rdmap, rdmap_hf, static_cast<int>(G_N_ELEMENTS(rdmap_hf)));
}

}  // namespace rdmaconf::dissector
