// DDP (RFC 5041) and RDMAP (RFC 5040, RFC 7306) inside one ULPDU.
//
// The DDP header is chosen by its T bit; RDMAP's control field is the DDP
// header's RsvdULP octet; what follows in the payload is chosen by the
// opcode table (rdmap/opcodes.hpp, one row per opcode). Every header is
// shown through its declaration (generated_fields.hpp). The checks here are
// the ones a passive observer can make on one segment with the negotiated
// state: versions, the opcode's tagged/untagged model, queue and single-
// segment rules, exact header sizes, the Terminate body, MSN order per queue
// and each Read Response against the Read Request it answers.
#include <new>
#include <string>

#include "ddp/headers.hpp"
#include "generated_fields.hpp"
#include "plugin.hpp"
#include "rdmap/error_codes.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/terminate.hpp"
#include "violations.hpp"

namespace rdmaconf::dissector {
namespace {

SegmentRecord* segment_record(const UlpduContext& ctx, packet_info* pinfo, bool create) {
  std::uint32_t key[] = {pinfo->num, ctx.stream_position};
  wmem_tree_key_t k[] = {{2, key}, {0, nullptr}};
  auto* r = static_cast<SegmentRecord*>(wmem_tree_lookup32_array(ctx.conv->segments, k));
  if (!r && create) {
    r = new (wmem_alloc0(wmem_file_scope(), sizeof(SegmentRecord))) SegmentRecord{};
    wmem_tree_insert32_array(ctx.conv->segments, k, r);
  }
  return r;
}

// The DDP header copied into a Terminate, then the RDMAP request header
// copied after it: sizes come from the copied header itself (its T bit, its
// opcode), which Wireshark 4.0 does not look at.
void dissect_terminate(tvbuff_t* tvb, packet_info* pinfo, proto_tree* rt, int at) {
  const Ids& i = ids();
  const int length = tvb_captured_length_remaining(tvb, at);
  const wire::Bytes body(tvb_get_ptr(tvb, at, length), static_cast<std::size_t>(length));
  proto_tree* tt = add_header(rt, tvb, at, rdmap::TerminateControlSpec::decl);
  if (length < static_cast<int>(rdmap::kTerminateControlSize)) {
    report(i.proto_rdmap, pinfo, rt, tvb, at, -1,
           {"rfc5040-4.8-terminate-format", "Terminate Control", "a Terminate carries at least its 4-octet control field", "RFC 5040 §4.8",
            Level::kMust});
    return;
  }
  const rdmap::TerminateControlHeader ctl(body.first<rdmap::kTerminateControlSize>());
  using TF = rdmap::TerminateControlSpec::Field;
  const ddp::TerminateCode code{static_cast<ddp::Layer>(ctl.get(TF::Layer)), static_cast<std::uint8_t>(ctl.get(TF::EType)),
                                static_cast<std::uint8_t>(ctl.get(TF::ErrorCode))};
  const rdmap::ErrorRow* row = rdmap::find_error(code);
  if (tt) {
    proto_item* it = proto_tree_add_string(tt, i.rdmap_term_error, tvb, at, 4,
                                           row ? std::string(row->name).c_str() : "undefined error code");
    proto_item_set_generated(it);
  }
  col_append_fstr(pinfo->cinfo, COL_INFO, " (%s)", row ? std::string(row->name).c_str() : "undefined error code");
  const bool m = ctl.flag(TF::M), d = ctl.flag(TF::D), r = ctl.flag(TF::R);
  int off = at + static_cast<int>(rdmap::kTerminateControlSize);
  if ((m || d) && tvb_captured_length_remaining(tvb, off) >= 2) {
    add_header(rt, tvb, off, rdmap::TerminateSegmentLengthSpec::decl);
    off += 2;
  }
  std::uint8_t copied_opcode = 0xff;
  if (d && tvb_captured_length_remaining(tvb, off) >= 1) {
    const bool tagged = (tvb_get_guint8(tvb, off) & 0x80) != 0;
    const wire::HeaderDecl& decl = tagged ? ddp::TaggedSpec::decl : ddp::UntaggedSpec::decl;
    proto_tree* ct = add_header(rt, tvb, off, decl, "Terminated DDP Header");
    if (tvb_captured_length_remaining(tvb, off) >= 2) {
      copied_opcode = tvb_get_guint8(tvb, off + 1) & 0x0f;
      add_header(ct, tvb, off + 1, rdmap::ControlSpec::decl, "Terminated RDMAP control field");
    }
    off += static_cast<int>(decl.size_octets);
  }
  if (r && copied_opcode != 0xff) {
    const std::size_t size = rdmap::copied_rdma_header_size(copied_opcode);
    if (size == rdmap::kReadRequestHeaderSize)
      add_header(rt, tvb, off, rdmap::ReadRequestSpec::decl, "Terminated RDMA Read Request Header");
    else if (size == rdmap::kAtomicRequestHeaderSize)
      add_header(rt, tvb, off, rdmap::AtomicRequestSpec::decl, "Terminated Atomic Request Header");
  }
  auto decoded = rdmap::decode_terminate(body);
  if (!decoded)
    report(i.proto_rdmap, pinfo, rt, tvb, at + static_cast<int>(decoded.error().offset), 1, from(Source::kTerminate, decoded.error()));
}

void check_msn(const UlpduContext& ctx, packet_info* pinfo, proto_tree* dt, tvbuff_t* tvb, std::uint32_t qn,
               std::uint32_t msn, bool last) {
  const Ids& i = ids();
  if (qn >= static_cast<std::uint32_t>(kQueues)) return;  // an invalid QN is reported by the opcode checks
  SegmentRecord* rec = segment_record(ctx, pinfo, !PINFO_FD_VISITED(pinfo));
  if (!rec) return;
  if (!PINFO_FD_VISITED(pinfo) && !rec->msn_checked) {
    MpaDirection& d = ctx.conv->dir[ctx.dir];
    rec->expected_msn = d.next_msn[qn];
    rec->msn_checked = true;
    // RFC 5041 §5.3: every segment of a message carries its MSN; the next
    // message on the queue takes the next number. Resynchronise on what was
    // sent, so one bad MSN is reported once.
    d.next_msn[qn] = last ? msn + 1 : msn;
  }
  if (!rec->msn_checked) return;
  if (dt) proto_item_set_generated(proto_tree_add_uint(dt, i.ddp_msn_expected, tvb, 10, 4, rec->expected_msn));
  if (msn != rec->expected_msn)
    report(i.proto_ddp, pinfo, dt, tvb, 10, 4,
           {"rfc5041-4.3-msn-sequence", "MSN", "increases by one per message on its queue, starting at 1", "RFC 5041 §4.3", Level::kMust});
}

void link_read_request(const UlpduContext& ctx, packet_info* pinfo, proto_tree* rt, tvbuff_t* tvb, int at) {
  const Ids& i = ids();
  SegmentRecord* rec = segment_record(ctx, pinfo, !PINFO_FD_VISITED(pinfo));
  if (!rec) return;
  if (!PINFO_FD_VISITED(pinfo) && !rec->read && tvb_captured_length_remaining(tvb, at) >= 28) {
    auto* link = new (wmem_alloc0(wmem_file_scope(), sizeof(ReadLink))) ReadLink{};
    link->request_frame = pinfo->num;
    link->sink_stag = tvb_get_ntohl(tvb, at);
    link->sink_to = tvb_get_ntoh64(tvb, at + 4);
    link->read_size = tvb_get_ntohl(tvb, at + 12);
    rec->read = link;
    wmem_list_append(ctx.conv->dir[ctx.dir].outstanding_reads, link);
  }
  if (rec->read && rec->read->response_first_frame && rt) {
    proto_item* it = proto_tree_add_uint(rt, i.rdmap_read_response_in, tvb, 0, 0, rec->read->response_first_frame);
    proto_item_set_generated(it);
  }
}

void link_read_response(const UlpduContext& ctx, packet_info* pinfo, proto_tree* rt, tvbuff_t* tvb,
                        std::uint32_t stag, std::uint64_t to, std::uint32_t payload, bool last) {
  const Ids& i = ids();
  SegmentRecord* rec = segment_record(ctx, pinfo, !PINFO_FD_VISITED(pinfo));
  if (!rec) return;
  if (!PINFO_FD_VISITED(pinfo) && !rec->read && !rec->unexpected_response) {
    MpaDirection& d = ctx.conv->dir[ctx.dir];
    if (!d.current_response) {
      // RFC 5040 §5.2: Read Responses answer the peer's Read Requests in order.
      wmem_list_t* q = ctx.conv->dir[1 - ctx.dir].outstanding_reads;
      wmem_list_frame_t* head = wmem_list_head(q);
      if (head) {
        d.current_response = static_cast<ReadLink*>(wmem_list_frame_data(head));
        wmem_list_remove_frame(q, head);
        d.current_response->response_first_frame = pinfo->num;
      }
    }
    if (d.current_response) {
      rec->read = d.current_response;
      rec->read->received += payload;
      rec->read->response_last_frame = pinfo->num;
      if (last) d.current_response = nullptr;
    } else {
      rec->unexpected_response = true;
    }
  }
  if (rec->unexpected_response) {
    report(i.proto_rdmap, pinfo, rt, tvb, 0, 2,
           {"rfc5040-5.2.2-read-response-solicited", "Opcode", "an RDMA Read Response answers an outstanding RDMA Read Request", "RFC 5040 §5.2.2",
            Level::kMust});
    return;
  }
  if (!rec->read) return;
  if (rt) {
    proto_item_set_generated(proto_tree_add_uint(rt, i.rdmap_read_request_in, tvb, 0, 0, rec->read->request_frame));
    proto_item_set_generated(
        proto_tree_add_uint64(rt, i.rdmap_read_response_offset, tvb, 8, 8, to - rec->read->sink_to));
  }
  if (stag != rec->read->sink_stag)
    report(i.proto_rdmap, pinfo, rt, tvb, 2, 4,
           {"rfc5040-5.2.2-read-response-sink", "STag", "a Read Response targets the Data Sink STag of its Read Request", "RFC 5040 §5.2.2",
            Level::kMust});
}

}  // namespace

void dissect_ulpdu(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const UlpduContext& ctx) {
  const Ids& i = ids();
  const int length = static_cast<int>(tvb_captured_length(tvb));
  proto_item* di = proto_tree_add_item(tree, i.proto_ddp, tvb, 0, -1, ENC_NA);
  proto_tree* dt = proto_item_add_subtree(di, i.ett_ddp);
  if (length < static_cast<int>(ddp::kControlSize)) {
    report(i.proto_ddp, pinfo, dt, tvb, 0, -1,
           {"rfc5041-4-segment-header", "DDP header", "a ULPDU holds at least a whole DDP header", "RFC 5041 §4", Level::kMust});
    col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "DDP: truncated");
    return;
  }
  const ddp::Control control = ddp::Control::from_octets(tvb_get_guint8(tvb, 0), tvb_get_guint8(tvb, 1));
  const wire::HeaderDecl& ddecl = control.tagged ? ddp::TaggedSpec::decl : ddp::UntaggedSpec::decl;
  const int hdr = static_cast<int>(ddecl.size_octets);
  add_header(dt, tvb, 0, ddecl);
  if (length < hdr) {
    report(i.proto_ddp, pinfo, dt, tvb, 0, -1, Violation{"rfc5041-4-segment-header", ddecl.name, "a ULPDU holds at least a complete DDP header", "RFC 5041 §4", Level::kMust});
    col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "DDP: truncated header");
    return;
  }
  proto_item_set_len(di, hdr);
  if (control.dv != ddp::kDdpVersion)
    report(i.proto_ddp, pinfo, dt, tvb, 0, 1, {"rfc5041-4.1-dv", "DV", "is 1 for this version of DDP", "RFC 5041 §4.1", Level::kMust});

  // RDMAP: the control field is the DDP header's second octet.
  const rdmap::Control rc = rdmap::Control::from_octet(control.rsvd_ulp);
  const rdmap::OpcodeInfo* op = rdmap::find_opcode(rc.opcode);
  proto_item* ri = proto_tree_add_item(tree, i.proto_rdmap, tvb, 0, -1, ENC_NA);
  proto_tree* rt = proto_item_add_subtree(ri, i.ett_rdmap);
  add_header(rt, tvb, 1, rdmap::ControlSpec::decl);
  const char* op_name = op ? op->name.data() : "reserved opcode";
  proto_item_append_text(ri, ", %s", op_name);
  col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", op_name);
  if (rc.rv != rdmap::kRdmapVersion)
    report(i.proto_rdmap, pinfo, rt, tvb, 1, 1, {"rfc5040-4.2-rv", "RV", "is 1 for RDMAP (RFC 5040)", "RFC 5040 §4.2", Level::kMust});
  if (!op) {
    report(i.proto_rdmap, pinfo, rt, tvb, 1, 1,
           {"rfc5040-4.3-opcode-defined", "Opcode", "is one of the defined opcodes (0xC-0xF are reserved)", "RFC 5040 §4.3, RFC 7306 §4",
            Level::kMust});
    return;
  }

  // The opcode's row says how it uses DDP (RFC 5040 §4.3, RFC 7306 §4).
  std::uint32_t qn = 0, msn = 0;
  if (!control.tagged) {
    qn = tvb_get_ntohl(tvb, 6);
    msn = tvb_get_ntohl(tvb, 10);
  }
  if (op->tagged != control.tagged)
    report(i.proto_rdmap, pinfo, rt, tvb, 0, 1,
           {"rfc5040-4.3-opcode-t-bit", "T", op->tagged ? "this opcode uses the Tagged Buffer Model" : "this opcode uses the Untagged Buffer Model",
            op->rfc_section, Level::kMust});
  if (!control.tagged && op->queue && qn != static_cast<std::uint32_t>(*op->queue))
    report(i.proto_rdmap, pinfo, rt, tvb, 6, 4, {"rfc5041-4.3-qn-valid", "QN", "is the queue this opcode is sent on", op->rfc_section, Level::kMust});
  if (op->single_segment && !control.last)
    report(i.proto_rdmap, pinfo, rt, tvb, 0, 1,
           {"rfc5040-4.3-single-segment", "L", "this message is a single DDP segment with L set", op->rfc_section, Level::kMust});
  if (op->carries_invalidate_stag && !control.tagged && length >= 6)
    add_header(rt, tvb, 2, rdmap::InvalidateStagSpec::decl);

  const int payload = length - hdr;
  if (op->exact_size && payload != static_cast<int>(op->rdmap_header_size))
    report(i.proto_rdmap, pinfo, rt, tvb, hdr, -1,
           {"rfc5040-4.3-payload-size", "DDP payload", "holds exactly this message's RDMAP header", op->rfc_section, Level::kMust});
  else if (op->rdmap_header_size && payload < static_cast<int>(op->rdmap_header_size))
    report(i.proto_rdmap, pinfo, rt, tvb, hdr, -1,
           {"rfc5040-4.3-payload-size", "DDP payload", "holds at least this message's RDMAP header", op->rfc_section, Level::kMust});

  if (!control.tagged) check_msn(ctx, pinfo, dt, tvb, qn, msn, control.last);

  switch (op->opcode) {
    case rdmap::Opcode::kRdmaReadRequest:
      add_header(rt, tvb, hdr, rdmap::ReadRequestSpec::decl);
      link_read_request(ctx, pinfo, rt, tvb, hdr);
      break;
    case rdmap::Opcode::kRdmaReadResponse:
      if (control.tagged)
        link_read_response(ctx, pinfo, rt, tvb, tvb_get_ntohl(tvb, 2), tvb_get_ntoh64(tvb, 6),
                           static_cast<std::uint32_t>(payload), control.last);
      break;
    case rdmap::Opcode::kTerminate:
      dissect_terminate(tvb, pinfo, rt, hdr);
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
  if (op->payload_allowed && length > data_at && rt) {
    proto_tree_add_item(rt, i.rdmap_data, tvb, data_at, length - data_at, ENC_NA);
  }
  if (dt) {
    proto_item_set_generated(proto_tree_add_uint(dt, i.ddp_payload_length, tvb, hdr, payload,
                                                 static_cast<guint32>(payload)));
  }
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
