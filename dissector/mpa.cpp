// The MPA dissector's display (RFC 5044, RFC 6581): the Request/Reply and
// the FPDUs the observer framed (connection.cpp), with the deframer's
// findings: Markers wherever they fall, each FPDUPTR with the value it
// should have, the CRC (least significant octet first, RFC 5044 §4.4) with
// the one computed, and the negotiated options the FPDU was read with.
// Violations are the observer's; nothing is checked here.
#include <string>

#include "generated_fields.hpp"
#include "mpa/deframer.hpp"
#include "mpa/headers.hpp"
#include "mpa/req_rep.hpp"
#include "plugin.hpp"
#include "ulp/rpcrdma.hpp"

namespace rdmaconf::dissector {
namespace {

void add_negotiated(proto_tree* tree, tvbuff_t* tvb, const Negotiated& n, analysis::Side side) {
  if (!tree) return;
  const Ids& i = ids();
  const analysis::MpaParameters& p = n.params;
  const int s = static_cast<int>(side);
  proto_item* it = proto_tree_add_uint(tree, i.mpa_negotiated, tvb, 0, 0, n.reply_frame);
  proto_item_set_generated(it);
  proto_tree* sub = proto_item_add_subtree(it, i.ett_negotiated);
  proto_item_set_generated(proto_tree_add_uint(sub, i.mpa_neg_revision, tvb, 0, 0, p.revision));
  proto_item_set_generated(proto_tree_add_boolean(sub, i.mpa_neg_crc, tvb, 0, 0, p.crc));
  proto_item_set_generated(proto_tree_add_boolean(sub, i.mpa_neg_markers, tvb, 0, 0, p.markers[s]));
  if (p.enhanced) {
    proto_item_set_generated(proto_tree_add_boolean(sub, i.mpa_neg_p2p, tvb, 0, 0, p.peer_to_peer));
    proto_item_set_generated(proto_tree_add_uint(sub, i.mpa_neg_ird, tvb, 0, 0, p.ird[s]));
    proto_item_set_generated(proto_tree_add_uint(sub, i.mpa_neg_ord, tvb, 0, 0, p.ord[s]));
    if (p.peer_to_peer) {
      const unsigned rtr = (p.rtr_send ? 1u : 0u) | (p.rtr_write ? 2u : 0u) | (p.rtr_read ? 4u : 0u);
      proto_item_set_generated(proto_tree_add_uint(sub, i.mpa_neg_rtr, tvb, 0, 0, rtr));
    }
  }
}

// The FPDU without its Markers (ULPDU_Length, ULPDU, PAD, CRC): the FPDU
// itself when no Marker falls inside, else a copy shown as its own data
// source.
tvbuff_t* logical_fpdu(tvbuff_t* tvb, packet_info* pinfo, const MessageRecord& m) {
  const FpduFindings& f = m.fpdu;
  if (m.markers.empty()) return tvb;
  const std::size_t logical = f.consumed - m.markers.size() * mpa::kMarkerSize;
  auto* buf = static_cast<std::uint8_t*>(wmem_alloc(pinfo->pool, logical ? logical : 1));
  std::size_t out = 0;
  std::size_t k = 0;
  for (const mpa::MarkerSeen& marker : m.markers) {
    const auto at = static_cast<std::size_t>(marker.stream_position - f.stream_position);
    if (at > k) {
      tvb_memcpy(tvb, buf + out, static_cast<int>(k), at - k);
      out += at - k;
    }
    k = at + mpa::kMarkerSize;
  }
  if (f.consumed > k) {
    tvb_memcpy(tvb, buf + out, static_cast<int>(k), f.consumed - k);
    out += f.consumed - k;
  }
  tvbuff_t* child = tvb_new_child_real_data(tvb, buf, static_cast<guint>(out), static_cast<gint>(out));
  add_new_data_source(pinfo, child, "FPDU (Markers removed)");
  return child;
}

}  // namespace

proto_tree* show_req_rep(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const MessageRecord& m) {
  const Ids& i = ids();
  const bool request = m.kind == analysis::MessageKind::kMpaRequest;
  const int size = static_cast<int>(tvb_captured_length(tvb));
  proto_item* ti = proto_tree_add_item(tree, i.proto_mpa, tvb, 0, size, ENC_NA);
  proto_tree* mt = proto_item_add_subtree(ti, i.ett_mpa);
  proto_item_append_text(ti, ", %s", request ? "Request" : "Reply");
  col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", request ? "MPA Request" : "MPA Reply");
  add_header(mt, tvb, 0, mpa::ReqRepSpec::decl, request ? "MPA Request frame" : "MPA Reply frame");
  // The observer decoded it leniently; so does the display (violations are
  // the observer's).
  const wire::Bytes frame(tvb_get_ptr(tvb, 0, size), static_cast<std::size_t>(size));
  auto decoded =
      mpa::decode_req_rep(frame, {request ? mpa::FrameKind::kRequest : mpa::FrameKind::kReply, false});
  int pd_offset = static_cast<int>(mpa::kReqRepHeaderSize);
  if (decoded && decoded->enhanced_data) {
    add_header(mt, tvb, pd_offset, mpa::EnhancedDataSpec::decl);
    pd_offset += static_cast<int>(mpa::kEnhancedDataSize);
  }
  if (size > pd_offset) proto_tree_add_item(mt, i.mpa_private_data, tvb, pd_offset, size - pd_offset, ENC_NA);
  // The ULP's part of it: RPC-over-RDMA's connection parameters (RFC 8797),
  // which Linux's NFS client and server send, through their declaration.
  if (size > pd_offset &&
      ulp::rpcrdma::read_private_data(wire::Bytes(tvb_get_ptr(tvb, pd_offset, size - pd_offset),
                                                  static_cast<std::size_t>(size - pd_offset))))
    add_header(mt, tvb, pd_offset, ulp::rpcrdma::PrivateDataSpec::decl);
  if (m.pair_frame) proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_rr_frame, tvb, 0, 0, m.pair_frame));
  return mt;
}

proto_tree* show_fpdu(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const MessageRecord& m) {
  const Ids& i = ids();
  const FpduFindings& f = m.fpdu;
  const int consumed = static_cast<int>(tvb_captured_length(tvb));
  proto_item* ti = proto_tree_add_item(tree, i.proto_mpa, tvb, 0, consumed, ENC_NA);
  proto_tree* mt = proto_item_add_subtree(ti, i.ett_mpa);
  proto_item_append_text(ti, ", FPDU, ULPDU_Length %u", f.ulpdu_length);
  if (mt) {
    proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_fpdu_length, tvb, 0, consumed, f.consumed));
    proto_item_set_generated(proto_tree_add_uint64(mt, i.mpa_stream_position, tvb, 0, 0, f.stream_position));
    proto_item_set_generated(proto_tree_add_uint64(mt, i.mpa_stream_offset, tvb, 0, 0, m.stream_offset));
    if (m.negotiated) add_negotiated(mt, tvb, *m.negotiated, m.side);
  }

  // Markers, where they sit (RFC 5044 §4.3).
  for (const mpa::MarkerSeen& marker : m.markers) {
    const int at = static_cast<int>(marker.stream_position - f.stream_position);
    proto_tree* st = add_header(mt, tvb, at, mpa::MarkerSpec::decl);
    if (st) {
      // Over the received FPDUPTR: the value it should hold, and the verdict.
      const wire::FieldDecl& ptr = mpa::MarkerHeader::field_decl(mpa::MarkerSpec::Field::FPDUPTR);
      const int ptr_at = at + field_offset(ptr), ptr_length = field_length(ptr);
      proto_item_set_generated(
          proto_tree_add_uint(st, i.mpa_marker_expected, tvb, ptr_at, ptr_length, marker.expected_fpdu_ptr));
      proto_item_set_generated(proto_tree_add_uint(st, i.mpa_marker_status, tvb, ptr_at, ptr_length,
                                                   marker.valid ? PROTO_CHECKSUM_E_GOOD : PROTO_CHECKSUM_E_BAD));
    }
  }

  tvbuff_t* lt = logical_fpdu(tvb, pinfo, m);
  add_header(mt, lt, 0, mpa::FpduHeaderSpec::decl);
  const int ulpdu_at = static_cast<int>(mpa::kUlpduLengthSize);
  const int pad_at = ulpdu_at + f.ulpdu_length;
  const int crc_at = pad_at + static_cast<int>(f.pad_length);
  if (f.pad_length) proto_tree_add_item(mt, i.mpa_pad, lt, pad_at, static_cast<int>(f.pad_length), ENC_NA);

  // The CRC, least significant octet first (RFC 5044 §4.4).
  const wire::FieldDecl& crc_decl = mpa::CrcTrailer::field_decl(mpa::CrcTrailerSpec::Field::CRC);
  const int crc_length = field_length(crc_decl);
  proto_tree_add_uint(mt, field_id(crc_decl), lt, crc_at, crc_length, f.received_crc);
  if (f.crc_status == mpa::CrcStatus::kNotChecked) {
    proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_crc_status, lt, crc_at, crc_length, PROTO_CHECKSUM_E_UNVERIFIED));
  } else {
    proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_crc_computed, lt, crc_at, crc_length, f.computed_crc));
    const bool good = f.crc_status == mpa::CrcStatus::kMatch;
    proto_item_set_generated(
        proto_tree_add_uint(mt, i.mpa_crc_status, lt, crc_at, crc_length, good ? PROTO_CHECKSUM_E_GOOD : PROTO_CHECKSUM_E_BAD));
    if (!good) col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "[MPA CRC error]");
  }

  tvbuff_t* ulpdu = tvb_new_subset_length(lt, ulpdu_at, f.ulpdu_length);
  show_ulpdu(ulpdu, pinfo, tree, m);
  return mt;
}

void register_mpa(void) {
  Ids& i = ids();
  static const true_false_string tfs_yes_no = {"Yes", "No"};
  static const value_string marker_status[] = {
      {PROTO_CHECKSUM_E_BAD, "Bad"}, {PROTO_CHECKSUM_E_GOOD, "Good"}, {0, nullptr}};
  // The RTR kinds the Reply set (RFC 6581 §9.2: one or several).
  static const value_string rtr_kinds[] = {{0, "none"},
                                           {1, "zero-length Send"},
                                           {2, "zero-length RDMA Write"},
                                           {3, "zero-length Send, zero-length RDMA Write"},
                                           {4, "zero-length RDMA Read"},
                                           {5, "zero-length Send, zero-length RDMA Read"},
                                           {6, "zero-length RDMA Write, zero-length RDMA Read"},
                                           {7, "zero-length Send, RDMA Write, RDMA Read"},
                                           {0, nullptr}};
  static hf_register_info hf[] = {
      {&i.mpa_fpdu_length,
       {"FPDU length on the wire", "rdmaconf.mpa.fpdu_length", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "Stream octets of this FPDU: header, ULPDU, PAD, CRC and Markers", HFILL}},
      {&i.mpa_stream_position,
       {"Stream position", "rdmaconf.mpa.stream_position", FT_UINT64, BASE_DEC, nullptr, 0x0,
        "Octets of full operation in this direction before this FPDU (RFC 5044 §4.3)", HFILL}},
      {&i.mpa_stream_offset,
       {"Stream offset", "rdmaconf.mpa.stream_offset", FT_UINT64, BASE_DEC, nullptr, 0x0,
        "Octets of this direction before the message, from the first octet captured", HFILL}},
      {&i.mpa_first_frame,
       {"Reassembled from frame", "rdmaconf.first_frame", FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        "Frame of the message's first octet (the message spans segments)", HFILL}},
      {&i.mpa_continued,
       {"Octets continued in a later frame", "rdmaconf.continued", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "Octets of a message that ends in a later frame", HFILL}},
      {&i.mpa_event,
       {"Observer event", "rdmaconf.event", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Gap, resynchronisation or skipped octets, as rdmaconf decode reports them", HFILL}},
      {&i.mpa_pad, {"PAD", "rdmaconf.mpa.pad", FT_BYTES, BASE_NONE, nullptr, 0x0, "RFC 5044 §4.1", HFILL}},
      {&i.mpa_crc_computed,
       {"Computed CRC", "rdmaconf.mpa.crc.computed", FT_UINT32, BASE_HEX, nullptr, 0x0,
        "CRC32c of the FPDU as received (RFC 5044 §4.4)", HFILL}},
      {&i.mpa_crc_status,
       {"CRC status", "rdmaconf.mpa.crc.status", FT_UINT8, BASE_NONE, VALS(proto_checksum_vals), 0x0,
        "Good, Bad or Unverified (CRC not negotiated)", HFILL}},
      {&i.mpa_marker_expected,
       {"Expected FPDUPTR", "rdmaconf.mpa.marker.expected_fpduptr", FT_UINT16, BASE_DEC, nullptr, 0x0,
        "Octets back to the FPDU's ULPDU_Length (RFC 5044 §4.3)", HFILL}},
      {&i.mpa_marker_status,
       {"FPDUPTR status", "rdmaconf.mpa.marker.status", FT_UINT8, BASE_NONE, VALS(marker_status), 0x0, nullptr,
        HFILL}},
      {&i.mpa_private_data,
       {"Private data", "rdmaconf.mpa.private_data", FT_BYTES, BASE_NONE, nullptr, 0x0,
        "ULP private data of the Request or Reply (RFC 5044 §7.1.4)", HFILL}},
      {&i.mpa_negotiated,
       {"Negotiated in frame", "rdmaconf.mpa.negotiated", FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        "The Reply that completed MPA negotiation", HFILL}},
      {&i.mpa_neg_revision,
       {"Revision", "rdmaconf.mpa.negotiated.revision", FT_UINT8, BASE_DEC, nullptr, 0x0, nullptr, HFILL}},
      {&i.mpa_neg_crc,
       {"CRC in use", "rdmaconf.mpa.negotiated.crc", FT_BOOLEAN, BASE_NONE, TFS(&tfs_yes_no), 0x0,
        "C set in either frame (RFC 5044 §7.1.1)", HFILL}},
      {&i.mpa_neg_markers,
       {"Markers in this direction", "rdmaconf.mpa.negotiated.markers", FT_BOOLEAN, BASE_NONE, TFS(&tfs_yes_no), 0x0,
        "The receiver of this direction set M", HFILL}},
      {&i.mpa_neg_p2p,
       {"Peer-to-peer", "rdmaconf.mpa.negotiated.p2p", FT_BOOLEAN, BASE_NONE, TFS(&tfs_yes_no), 0x0,
        "RFC 6581 §9.2", HFILL}},
      {&i.mpa_neg_ird,
       {"Sender's IRD", "rdmaconf.mpa.negotiated.ird", FT_UINT16, BASE_DEC, nullptr, 0x0, "RFC 6581 §9", HFILL}},
      {&i.mpa_neg_ord,
       {"Sender's ORD", "rdmaconf.mpa.negotiated.ord", FT_UINT16, BASE_DEC, nullptr, 0x0, "RFC 6581 §9", HFILL}},
      {&i.mpa_neg_rtr,
       {"RTR kinds set in the Reply", "rdmaconf.mpa.negotiated.rtr", FT_UINT8, BASE_DEC, VALS(rtr_kinds), 0x0, "RFC 6581 §9.2",
        HFILL}},
      {&i.mpa_rr_frame,
       {"Other frame of the Request/Reply pair", "rdmaconf.mpa.rr.pair", FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        nullptr, HFILL}},
  };
  proto_register_field_array(i.proto_mpa, hf, static_cast<int>(G_N_ELEMENTS(hf)));
}

}  // namespace rdmaconf::dissector
