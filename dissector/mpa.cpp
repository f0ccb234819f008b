// The MPA dissector (RFC 5044, RFC 6581) over any TCP port.
//
// Found by content: a heuristic on "tcp" claims a connection whose data
// starts with an MPA key ("MPA ID Req Frame" / "MPA ID Rep Frame") and makes
// itself the conversation's dissector. From then on each TCP payload comes
// here with the TCP sequence number of its first octet; the stream position
// of that octet in full operation (RFC 5044 §4.3: Markers sit at multiples
// of 512 from the first octet after the Request or Reply, per direction) is
// seq minus the sequence number recorded when the frame was seen. The
// reference Deframer, configured with that position and the negotiated
// Markers and CRC, does the framing: it finds FPDUs whatever the segment
// and Marker layout, removes the Markers, checks each FPDUPTR and the CRC
// (least significant octet first, RFC 5044 §4.4). When it needs more octets,
// Wireshark's TCP desegmentation (pinfo->desegment_*) brings them.
#include <cstring>
#include <new>
#include <string>

#include "generated_fields.hpp"
#include "mpa/deframer.hpp"
#include "mpa/headers.hpp"
#include "mpa/req_rep.hpp"
#include "plugin.hpp"
#include "violations.hpp"

extern "C" {
#include <epan/dissectors/packet-tcp.h>
}

namespace rdmaconf::dissector {
namespace {

constexpr std::size_t kKeyProbe = 8;  // "MPA ID R": enough to claim a connection that starts with a key

MpaConversation* new_conversation() {
  void* p = wmem_alloc0(wmem_file_scope(), sizeof(MpaConversation));
  MpaConversation* c = new (p) MpaConversation{};
  c->segments = wmem_tree_new(wmem_file_scope());
  for (MpaDirection& d : c->dir) d.outstanding_reads = wmem_list_new(wmem_file_scope());
  return c;
}

MpaConversation* conversation_state(packet_info* pinfo, bool create) {
  conversation_t* conv = create ? find_or_create_conversation(pinfo) : find_conversation_pinfo(pinfo, 0);
  if (!conv) return nullptr;
  auto* c = static_cast<MpaConversation*>(conversation_get_proto_data(conv, ids().proto_mpa));
  if (!c && create) {
    c = new_conversation();
    conversation_add_proto_data(conv, ids().proto_mpa, c);
  }
  return c;
}

wire::Bytes bytes_of(tvbuff_t* tvb, int offset, int length) {
  if (length <= 0) return {};
  return wire::Bytes(tvb_get_ptr(tvb, offset, length), static_cast<std::size_t>(length));
}

bool starts_with_key(tvbuff_t* tvb, int offset, mpa::FrameKind* kind) {
  const int available = tvb_captured_length_remaining(tvb, offset);
  if (available < static_cast<int>(kKeyProbe)) return false;
  const int n = available < static_cast<int>(mpa::kKeySize) ? available : static_cast<int>(mpa::kKeySize);
  if (tvb_memeql(tvb, offset, mpa::kRequestKey.data(), static_cast<std::size_t>(n)) == 0) {
    *kind = mpa::FrameKind::kRequest;
    return true;
  }
  if (tvb_memeql(tvb, offset, mpa::kReplyKey.data(), static_cast<std::size_t>(n)) == 0) {
    *kind = mpa::FrameKind::kReply;
    return true;
  }
  return false;
}

void add_negotiated(proto_tree* tree, tvbuff_t* tvb, const MpaConversation& c, int dir) {
  if (!tree || !c.negotiated) return;
  const Ids& i = ids();
  proto_item* it = proto_tree_add_uint(tree, i.mpa_negotiated, tvb, 0, 0, c.dir[1].frame_number);
  proto_item_set_generated(it);
  proto_tree* sub = proto_item_add_subtree(it, i.ett_negotiated);
  proto_item_set_generated(proto_tree_add_uint(sub, i.mpa_neg_revision, tvb, 0, 0, c.revision));
  proto_item_set_generated(proto_tree_add_boolean(sub, i.mpa_neg_crc, tvb, 0, 0, c.crc));
  proto_item_set_generated(proto_tree_add_boolean(sub, i.mpa_neg_markers, tvb, 0, 0, c.dir[dir].markers));
  if (c.enhanced) {
    proto_item_set_generated(proto_tree_add_boolean(sub, i.mpa_neg_p2p, tvb, 0, 0, c.p2p));
    proto_item_set_generated(proto_tree_add_uint(sub, i.mpa_neg_ird, tvb, 0, 0, c.ird[dir]));
    proto_item_set_generated(proto_tree_add_uint(sub, i.mpa_neg_ord, tvb, 0, 0, c.ord[dir]));
    if (c.p2p) proto_item_set_generated(proto_tree_add_uint(sub, i.mpa_neg_rtr, tvb, 0, 0, c.rtr_chosen));
  }
}

// ------------------------------------------------------ Request / Reply

// Checks RFC 6581 §9.2 between the Request's offer and the Reply's choice.
void check_enhanced_reply(MpaConversation& c, packet_info* pinfo, proto_tree* tree, tvbuff_t* tvb, int offset,
                          int length) {
  if (!c.enhanced || !c.p2p || c.rejected) return;
  const int chosen = c.rtr_chosen;
  const bool one = chosen == 1 || chosen == 2 || chosen == 4;
  if (!one)
    report(ids().proto_mpa, pinfo, tree, tvb, offset, length,
           {"rfc6581-9.2-p2p-echo", "RTR control flags", "a peer-to-peer Reply chooses exactly one ready-to-receive kind",
            mpa::cite::kPeerToPeer, Level::kMust});
  else if ((chosen & c.rtr_offered) == 0)
    report(ids().proto_mpa, pinfo, tree, tvb, offset, length,
           {"rfc6581-9.2-p2p-echo", "RTR control flags", "a peer-to-peer Reply chooses a ready-to-receive kind the Request offered",
            mpa::cite::kPeerToPeer, Level::kMust});
}

int dissect_req_rep(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, int offset, MpaConversation& c, int dir,
                    const tcpinfo* tcp) {
  const Ids& i = ids();
  const int available = tvb_captured_length_remaining(tvb, offset);
  const mpa::FrameKind expected = dir == 0 ? mpa::FrameKind::kRequest : mpa::FrameKind::kReply;
  auto need = mpa::required_frame_size(bytes_of(tvb, offset, available), expected);
  proto_item* ti = proto_tree_add_item(tree, i.proto_mpa, tvb, offset, -1, ENC_NA);
  proto_tree* mt = proto_item_add_subtree(ti, i.ett_mpa);
  if (!need) {
    // The key (or PD_Length) is wrong: what follows cannot be framed.
    add_header(mt, tvb, offset, mpa::ReqRepSpec::decl);
    report(i.proto_mpa, pinfo, mt, tvb, offset + static_cast<int>(need.error().offset), -1, from(Source::kMpaReqRep, need.error()));
    col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "MPA: invalid Request/Reply");
    return tvb_captured_length(tvb);
  }
  if (static_cast<int>(*need) > available) {
    pinfo->desegment_offset = offset;
    // Below 20 octets PD_Length is not known yet: take the next segment whole.
    pinfo->desegment_len = available < static_cast<int>(mpa::kReqRepHeaderSize)
                               ? DESEGMENT_ONE_MORE_SEGMENT
                               : static_cast<guint32>(*need - static_cast<std::size_t>(available));
    proto_item_append_text(ti, " [incomplete Request/Reply]");
    return -1;
  }
  const int size = static_cast<int>(*need);
  proto_item_set_len(ti, size);
  const wire::Bytes frame = bytes_of(tvb, offset, size);
  auto strict = mpa::decode_req_rep(frame, {expected, true});
  auto lenient = strict ? strict : mpa::decode_req_rep(frame, {expected, false});

  proto_item_append_text(ti, ", %s", dir == 0 ? "Request" : "Reply");
  col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", dir == 0 ? "MPA Request" : "MPA Reply");
  add_header(mt, tvb, offset, mpa::ReqRepSpec::decl, dir == 0 ? "MPA Request frame" : "MPA Reply frame");
  int pd_offset = offset + static_cast<int>(mpa::kReqRepHeaderSize);
  if (lenient && lenient->enhanced_data) {
    add_header(mt, tvb, pd_offset, mpa::EnhancedDataSpec::decl);
    pd_offset += static_cast<int>(mpa::kEnhancedDataSize);
  }
  if (offset + size > pd_offset)
    proto_tree_add_item(mt, i.mpa_private_data, tvb, pd_offset, offset + size - pd_offset, ENC_NA);
  if (!strict)
    report(i.proto_mpa, pinfo, mt, tvb, offset + static_cast<int>(strict.error().offset), 1, from(Source::kMpaReqRep, strict.error()));

  if (!PINFO_FD_VISITED(pinfo) && !c.dir[dir].frame_seen) {
    MpaDirection& d = c.dir[dir];
    d.frame_seen = true;
    d.frame_number = pinfo->num;
    d.full_operation_seq = tcp->seq + static_cast<std::uint32_t>(size);
    if (lenient) {
      const mpa::ReqRepFrame& f = *lenient;
      // RFC 5044 §7.1.1: M asks for Markers in the FPDUs its sender receives.
      c.dir[1 - dir].markers = f.markers;
      c.crc = c.crc || f.crc;
      if (dir == 0) {
        c.revision = f.revision;
        if (f.enhanced_data) {
          c.enhanced = true;
          c.p2p = f.enhanced_data->peer_to_peer;
          c.rtr_offered = static_cast<std::uint8_t>((f.enhanced_data->rtr_send ? 1 : 0) |
                                                    (f.enhanced_data->rtr_write ? 2 : 0) |
                                                    (f.enhanced_data->rtr_read ? 4 : 0));
          c.ird[0] = f.enhanced_data->ird;
          c.ord[0] = f.enhanced_data->ord;
        }
      } else {
        c.rejected = f.reject;
        c.revision = f.revision;
        c.enhanced = c.enhanced && f.enhanced_data.has_value();
        if (f.enhanced_data) {
          c.rtr_chosen = static_cast<std::uint8_t>((f.enhanced_data->rtr_send ? 1 : 0) |
                                                   (f.enhanced_data->rtr_write ? 2 : 0) |
                                                   (f.enhanced_data->rtr_read ? 4 : 0));
          c.ird[1] = f.enhanced_data->ird;
          c.ord[1] = f.enhanced_data->ord;
        }
        c.negotiated = true;
      }
    }
  }
  if (dir == 1 && c.dir[0].frame_seen) {
    proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_rr_frame, tvb, 0, 0, c.dir[0].frame_number));
    if (lenient) check_enhanced_reply(c, pinfo, mt, tvb, offset, size);
  } else if (dir == 0 && c.dir[1].frame_seen) {
    proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_rr_frame, tvb, 0, 0, c.dir[1].frame_number));
  }
  if (dir == 1) add_negotiated(mt, tvb, c, 0);
  return size;
}

// ------------------------------------------------------------- FPDUs

// The FPDU without its Markers (ULPDU_Length, ULPDU, PAD, CRC): a subset of
// the segment when no Marker falls inside, else a copy shown as its own
// data source.
tvbuff_t* logical_fpdu(tvbuff_t* tvb, packet_info* pinfo, int offset, const mpa::Fpdu& f) {
  const int consumed = static_cast<int>(f.consumed);
  if (f.markers.empty()) return tvb_new_subset_length(tvb, offset, consumed);
  const std::size_t logical = f.consumed - f.markers.size() * mpa::kMarkerSize;
  auto* buf = static_cast<std::uint8_t*>(wmem_alloc(pinfo->pool, logical));
  std::size_t out = 0;
  std::size_t next_marker = 0;
  std::size_t marker_at = f.markers.size() ? static_cast<std::size_t>(f.markers[0].stream_position - f.stream_position)
                                           : f.consumed;
  for (std::size_t k = 0; k < f.consumed;) {
    if (k == marker_at) {
      k += mpa::kMarkerSize;
      ++next_marker;
      marker_at = next_marker < f.markers.size()
                      ? static_cast<std::size_t>(f.markers[next_marker].stream_position - f.stream_position)
                      : f.consumed;
      continue;
    }
    const std::size_t run = (marker_at < f.consumed ? marker_at : f.consumed) - k;
    tvb_memcpy(tvb, buf + out, offset + static_cast<int>(k), run);
    out += run;
    k += run;
  }
  tvbuff_t* child = tvb_new_child_real_data(tvb, buf, static_cast<guint>(out), static_cast<gint>(out));
  add_new_data_source(pinfo, child, "FPDU (Markers removed)");
  return child;
}

void dissect_fpdu(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, int offset, const mpa::Fpdu& f,
                  MpaConversation& c, int dir) {
  const Ids& i = ids();
  const int consumed = static_cast<int>(f.consumed);
  proto_item* ti = proto_tree_add_item(tree, i.proto_mpa, tvb, offset, consumed, ENC_NA);
  proto_tree* mt = proto_item_add_subtree(ti, i.ett_mpa);
  proto_item_append_text(ti, ", FPDU, ULPDU_Length %u", f.ulpdu_length);
  if (mt) {
    proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_fpdu_length, tvb, offset, consumed, static_cast<guint32>(f.consumed)));
    proto_item_set_generated(proto_tree_add_uint64(mt, i.mpa_stream_position, tvb, offset, 0, f.stream_position));
    add_negotiated(mt, tvb, c, dir);
  }

  // Markers, where they sit in the segment (RFC 5044 §4.3).
  for (std::size_t k = 0; k < f.markers.size(); ++k) {
    const mpa::MarkerSeen m = f.markers[k];
    const int at = offset + static_cast<int>(m.stream_position - f.stream_position);
    proto_tree* st = add_header(mt, tvb, at, mpa::MarkerSpec::decl);
    if (st) {
      proto_item_set_generated(proto_tree_add_uint(st, i.mpa_marker_expected, tvb, at + 2, 2, m.expected_fpdu_ptr));
      proto_item_set_generated(proto_tree_add_uint(st, i.mpa_marker_status, tvb, at + 2, 2,
                                                   m.valid ? PROTO_CHECKSUM_E_GOOD : PROTO_CHECKSUM_E_BAD));
    }
    if (!m.valid)
      report(i.proto_mpa, pinfo, mt, tvb, at + 2, 2,
             {"rfc5044-4.3-marker-fpduptr", "FPDUPTR", "points back to the ULPDU_Length of the FPDU the Marker falls in", mpa::cite::kMarkers,
              Level::kMust});
  }

  tvbuff_t* lt = logical_fpdu(tvb, pinfo, offset, f);
  add_header(mt, lt, 0, mpa::FpduHeaderSpec::decl);
  const int ulpdu_at = static_cast<int>(mpa::kUlpduLengthSize);
  const int pad_at = ulpdu_at + f.ulpdu_length;
  const int crc_at = pad_at + static_cast<int>(f.pad_length);
  if (f.pad_length) proto_tree_add_item(mt, i.mpa_pad, lt, pad_at, static_cast<int>(f.pad_length), ENC_NA);
  if (f.pad_nonzero)
    report(i.proto_mpa, pinfo, mt, lt, pad_at, static_cast<int>(f.pad_length),
           {"rfc5044-4.1-pad-zero", "PAD", "PAD octets are sent as zero", mpa::cite::kPad, Level::kMust});

  // The CRC, least significant octet first (RFC 5044 §4.4).
  const wire::FieldDecl& crc_decl = mpa::CrcTrailer::field_decl(mpa::CrcTrailerSpec::Field::CRC);
  proto_item* crc_item = proto_tree_add_uint(mt, field_id(crc_decl), lt, crc_at, 4, f.received_crc);
  (void)crc_item;
  if (f.crc_status == mpa::CrcStatus::kNotChecked) {
    proto_item_set_generated(
        proto_tree_add_uint(mt, i.mpa_crc_status, lt, crc_at, 4, PROTO_CHECKSUM_E_UNVERIFIED));
  } else {
    proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_crc_computed, lt, crc_at, 4, f.computed_crc));
    const bool good = f.crc_status == mpa::CrcStatus::kMatch;
    proto_item_set_generated(proto_tree_add_uint(mt, i.mpa_crc_status, lt, crc_at, 4,
                                                 good ? PROTO_CHECKSUM_E_GOOD : PROTO_CHECKSUM_E_BAD));
    if (!good) {
      report(i.proto_mpa, pinfo, mt, lt, crc_at, 4,
             {"rfc5044-4.4-crc", "CRC", "matches the CRC32c of the FPDU as received", mpa::cite::kCrc, Level::kMust});
      col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", "[MPA CRC error]");
    }
  }

  UlpduContext ctx{&c, dir, static_cast<std::uint32_t>(f.stream_position)};
  tvbuff_t* ulpdu = tvb_new_subset_length(lt, ulpdu_at, f.ulpdu_length);
  dissect_ulpdu(ulpdu, pinfo, tree, ctx);
}

int dissect_full_operation(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, int offset, MpaConversation& c,
                           int dir, const tcpinfo* tcp) {
  const Ids& i = ids();
  const int length = static_cast<int>(tvb_captured_length(tvb));
  if (dir == 0 && !c.dir[1].frame_seen) {
    // RFC 5044 §7.1.2: the initiator waits for the Reply before sending FPDUs.
    proto_tree* mt = proto_item_add_subtree(proto_tree_add_item(tree, i.proto_mpa, tvb, offset, -1, ENC_NA), i.ett_mpa);
    report(i.proto_mpa, pinfo, mt, tvb, offset, -1,
           {"rfc5044-7.1.2-no-fpdu-before-reply", "FPDU", "the initiator sends no FPDU before it has received the Reply", mpa::cite::kStartupRules,
            Level::kMustNot});
    return length;
  }
  if (c.rejected) {
    proto_tree* mt = proto_item_add_subtree(proto_tree_add_item(tree, i.proto_mpa, tvb, offset, -1, ENC_NA), i.ett_mpa);
    report(i.proto_mpa, pinfo, mt, tvb, offset, -1,
           {"rfc5044-7.1.2-no-fpdu-after-reject", "FPDU", "no full operation follows a Reply with R set", mpa::cite::kStartupRules, Level::kMustNot});
    return length;
  }
  const std::uint32_t position = tcp->seq + static_cast<std::uint32_t>(offset) - c.dir[dir].full_operation_seq;
  mpa::DeframerConfig cfg;
  cfg.markers = c.dir[dir].markers;
  cfg.crc = c.crc;
  cfg.stream_position = position;
  cfg.fail_on_error = false;
  mpa::Deframer deframer(cfg);
  const wire::Bytes all = bytes_of(tvb, 0, length);
  while (offset < length) {
    mpa::DeframeResult r = deframer.next(all.subspan(static_cast<std::size_t>(offset)));
    if (auto* more = std::get_if<mpa::NeedMore>(&r)) {
      pinfo->desegment_offset = offset;
      // While ULPDU_Length itself is incomplete the FPDU's length is unknown:
      // ask for the next segment. Asking for the missing header octet alone
      // makes Wireshark 4.0's TCP grow the PDU inside the next segment, which
      // loses the FPDU; a whole segment does not.
      pinfo->desegment_len = more->at_least <= mpa::kUlpduLengthSize + mpa::kMarkerSize
                                 ? DESEGMENT_ONE_MORE_SEGMENT
                                 : static_cast<guint32>(more->at_least - static_cast<std::size_t>(length - offset));
      return -1;
    }
    if (auto* err = std::get_if<mpa::DeframeError>(&r)) {
      proto_tree* mt =
          proto_item_add_subtree(proto_tree_add_item(tree, i.proto_mpa, tvb, offset, -1, ENC_NA), i.ett_mpa);
      report(i.proto_mpa, pinfo, mt, tvb, offset + static_cast<int>(err->detail.offset), -1, from(Source::kMpaDeframer, err->detail));
      return length;
    }
    const mpa::Fpdu& f = std::get<mpa::Fpdu>(r);
    dissect_fpdu(tvb, pinfo, tree, offset, f, c, dir);
    offset += static_cast<int>(f.consumed);
  }
  return length;
}

MpaConversation* claim(tvbuff_t* tvb, packet_info* pinfo) {
  mpa::FrameKind kind;
  if (!starts_with_key(tvb, 0, &kind)) return nullptr;
  conversation_t* conv = find_or_create_conversation(pinfo);
  auto* c = static_cast<MpaConversation*>(conversation_get_proto_data(conv, ids().proto_mpa));
  if (!c) {
    c = new_conversation();
    // The Request's sender is the initiator; a capture that starts with the
    // Reply makes the other side the initiator.
    if (kind == mpa::FrameKind::kRequest) {
      copy_address_wmem(wmem_file_scope(), &c->initiator, &pinfo->src);
      c->initiator_port = pinfo->srcport;
    } else {
      copy_address_wmem(wmem_file_scope(), &c->initiator, &pinfo->dst);
      c->initiator_port = pinfo->destport;
    }
    conversation_add_proto_data(conv, ids().proto_mpa, c);
  }
  conversation_set_dissector(conv, ids().mpa_handle);
  return c;
}

int dissect_mpa(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
  auto* tcp = static_cast<tcpinfo*>(data);
  if (!tcp) return 0;
  MpaConversation* c = conversation_state(pinfo, false);
  if (!c) c = claim(tvb, pinfo);  // Decode As on a connection not yet seen
  if (!c) return 0;
  col_set_str(pinfo->cinfo, COL_PROTOCOL, "rdmaconf MPA");
  col_clear(pinfo->cinfo, COL_INFO);
  const int dir = direction_of(*c, pinfo);
  const int length = static_cast<int>(tvb_captured_length(tvb));
  int offset = 0;
  while (offset < length) {
    const MpaDirection& d = c->dir[dir];
    const std::uint32_t at = tcp->seq + static_cast<std::uint32_t>(offset);
    // Octets before full operation: the Request or Reply (again, on later passes).
    if (!d.frame_seen || static_cast<std::int32_t>(at - d.full_operation_seq) < 0) {
      const int used = dissect_req_rep(tvb, pinfo, tree, offset, *c, dir, tcp);
      if (used < 0 || !d.frame_seen) return length;
      offset += used;
      continue;
    }
    dissect_full_operation(tvb, pinfo, tree, offset, *c, dir, tcp);
    return length;
  }
  return length;
}

gboolean heuristic_mpa(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
  if (!data || !claim(tvb, pinfo)) return FALSE;
  dissect_mpa(tvb, pinfo, tree, data);
  return TRUE;
}

}  // namespace

int direction_of(const MpaConversation& c, const packet_info* pinfo) {
  return addresses_equal(&pinfo->src, &c.initiator) && pinfo->srcport == c.initiator_port ? 0 : 1;
}

void register_mpa(void) {
  Ids& i = ids();
  static const true_false_string tfs_yes_no = {"Yes", "No"};
  static const value_string marker_status[] = {
      {PROTO_CHECKSUM_E_BAD, "Bad"}, {PROTO_CHECKSUM_E_GOOD, "Good"}, {0, nullptr}};
  static const value_string rtr_kinds[] = {
      {0, "none"}, {1, "zero-length Send"}, {2, "zero-length RDMA Write"}, {4, "zero-length RDMA Read"}, {0, nullptr}};
  static hf_register_info hf[] = {
      {&i.mpa_fpdu_length,
       {"FPDU length on the wire", "rdmaconf.mpa.fpdu_length", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "Stream octets of this FPDU: header, ULPDU, PAD, CRC and Markers", HFILL}},
      {&i.mpa_stream_position,
       {"Stream position", "rdmaconf.mpa.stream_position", FT_UINT64, BASE_DEC, nullptr, 0x0,
        "Octets of full operation in this direction before this FPDU (RFC 5044 §4.3)", HFILL}},
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
       {"RTR chosen", "rdmaconf.mpa.negotiated.rtr", FT_UINT8, BASE_DEC, VALS(rtr_kinds), 0x0, "RFC 6581 §9.2",
        HFILL}},
      {&i.mpa_rr_frame,
       {"Other frame of the Request/Reply pair", "rdmaconf.mpa.rr.pair", FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        nullptr, HFILL}},
  };
  proto_register_field_array(i.proto_mpa, hf, static_cast<int>(G_N_ELEMENTS(hf)));
  i.mpa_handle = create_dissector_handle(dissect_mpa, i.proto_mpa);
}

void handoff_mpa(void) {
  Ids& i = ids();
  heur_dissector_add("tcp", heuristic_mpa, "rdmaconf MPA over TCP (MPA keys)", "rdmaconf_mpa_tcp", i.proto_mpa,
                     HEURISTIC_ENABLE);
  dissector_add_for_decode_as("tcp.port", i.mpa_handle);
}

}  // namespace rdmaconf::dissector
