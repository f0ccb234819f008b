// DDP over SCTP (RFC 5043): Wireshark's own SCTP dissector finds the DATA
// chunks (and puts fragmented ones back together); ours registers on its
// `sctp.ppi` table for the adaptation layer's two PPIDs. A DDP Segment Chunk
// (PPID 16) shows its DDP-SSN from the declaration and hands the DDP segment
// after it to the same DDP/RDMAP dissection MPA's FPDUs get (show_ulpdu); a
// Session Control message (PPID 17) shows its header and private data.
//
// Not yet: the session rules (analyze's SctpObserver) as expert infos, and
// the observer's per-segment state (expected MSN, Read matching) here.
#include "generated_fields.hpp"
#include "plugin.hpp"
#include "sctp/headers.hpp"

namespace rdmaconf::dissector {
namespace {

constexpr int kSegmentChunkHeader = static_cast<int>(sctp::kSegmentChunkHeaderSize);
constexpr int kSessionControlHeader = static_cast<int>(sctp::kSessionControlHeaderSize);

proto_tree* layer(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, int header) {
  const Ids& i = ids();
  col_set_str(pinfo->cinfo, COL_PROTOCOL, "DDP/SCTP");
  col_clear(pinfo->cinfo, COL_INFO);
  proto_item* ti = proto_tree_add_item(tree, i.proto_ddp_sctp, tvb, 0, header, ENC_NA);
  return proto_item_add_subtree(ti, i.ett_ddp_sctp);
}

int dissect_segment_chunk(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void*) {
  proto_tree* t = layer(tvb, pinfo, tree, kSegmentChunkHeader);
  add_header(t, tvb, 0, sctp::SegmentChunkSpec::decl);
  col_append_str(pinfo->cinfo, COL_INFO, "DDP Segment Chunk");
  if (const auto ssn = read_field<sctp::SegmentChunkHeader>(tvb, 0, sctp::SegmentChunkSpec::Field::DDP_SSN))
    col_append_fstr(pinfo->cinfo, COL_INFO, " DDP-SSN=%u", static_cast<unsigned>(*ssn));
  if (tvb_captured_length(tvb) <= static_cast<guint>(kSegmentChunkHeader)) return tvb_captured_length(tvb);
  // No observer state travels with it yet: the record is empty.
  static const MessageRecord kNone{};
  show_ulpdu(tvb_new_subset_remaining(tvb, kSegmentChunkHeader), pinfo, tree, kNone);
  return tvb_captured_length(tvb);
}

int dissect_session_control(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void*) {
  const Ids& i = ids();
  proto_tree* t = layer(tvb, pinfo, tree, -1);
  add_header(t, tvb, 0, sctp::SessionControlSpec::decl);
  std::string_view what = "DDP Stream Session Control";
  if (const auto code = read_field<sctp::SessionControlHeader>(tvb, 0, sctp::SessionControlSpec::Field::Function_Code))
    for (const wire::ValueName& n : sctp::names::kFunctionCode)
      if (n.value == *code) what = n.name;
  col_append_str(pinfo->cinfo, COL_INFO, std::string(what).c_str());
  const int length = static_cast<int>(tvb_captured_length(tvb));
  if (length > kSessionControlHeader && t)
    proto_tree_add_item(t, i.ddp_sctp_private_data, tvb, kSessionControlHeader, length - kSessionControlHeader,
                        ENC_NA);
  return length;
}

}  // namespace

void register_ddp_sctp(void) {
  Ids& i = ids();
  static hf_register_info hf[] = {
      {&i.ddp_sctp_private_data,
       {"Private Data", "rdmaconf.ddp_sctp.private_data", FT_BYTES, BASE_NONE, nullptr, 0x0,
        "The ULP's private data of an Initiate, Accept or Reject (RFC 5043 §5.2.3)", HFILL}},
  };
  proto_register_field_array(i.proto_ddp_sctp, hf, static_cast<int>(G_N_ELEMENTS(hf)));
}

void handoff_ddp_sctp(void) {
  const Ids& i = ids();
  // RFC 5043 §5.2: the PPIDs IANA assigned to the adaptation layer.
  dissector_add_uint("sctp.ppi", sctp::kPpidDdpSegment, create_dissector_handle(dissect_segment_chunk, i.proto_ddp_sctp));
  dissector_add_uint("sctp.ppi", sctp::kPpidSessionControl,
                     create_dissector_handle(dissect_session_control, i.proto_ddp_sctp));
}

}  // namespace rdmaconf::dissector
