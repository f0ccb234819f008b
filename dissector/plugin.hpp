// What the plugin's dissectors share: protocol ids, the fields that are not
// header fields (generated items: CRC status, links, negotiated options), and
// the per-conversation state of an MPA connection.
//
// Header fields are not listed here: they are generated from the reference
// declarations (generated_fields.hpp).
#pragma once

#include <cstdint>

extern "C" {
#include <epan/conversation.h>
#include <epan/expert.h>
#include <epan/packet.h>
#include <epan/proto_data.h>
#include <epan/wmem_scopes.h>
}

namespace rdmaconf::dissector {

struct Ids {
  int proto_mpa = -1;
  int proto_ddp = -1;
  int proto_rdmap = -1;
  int proto_clc = -1;

  // MPA
  int mpa_fpdu_length = -1;       // stream octets of the FPDU, Markers included
  int mpa_stream_position = -1;   // of the FPDU's first octet, from the start of full operation
  int mpa_pad = -1;
  int mpa_crc_computed = -1;
  int mpa_crc_status = -1;
  int mpa_marker_expected = -1;
  int mpa_marker_status = -1;
  int mpa_private_data = -1;
  int mpa_negotiated = -1;        // FT_FRAMENUM: frame of the Reply that set the options
  int mpa_neg_revision = -1;
  int mpa_neg_crc = -1;
  int mpa_neg_markers = -1;       // this direction's FPDUs carry Markers
  int mpa_neg_p2p = -1;
  int mpa_neg_ird = -1;
  int mpa_neg_ord = -1;
  int mpa_neg_rtr = -1;
  int mpa_rr_frame = -1;          // FT_FRAMENUM: the other frame of the Request/Reply pair
  // DDP
  int ddp_payload = -1;
  int ddp_payload_length = -1;
  int ddp_msn_expected = -1;
  // RDMAP
  int rdmap_data = -1;
  int rdmap_read_response_in = -1;
  int rdmap_read_request_in = -1;
  int rdmap_read_response_offset = -1;
  int rdmap_term_error = -1;
  int rdmap_term_copied_opcode = -1;
  // CLC
  int clc_decline_category = -1;
  int clc_decline_linux_name = -1;
  int clc_smc_option = -1;
  int clc_raw = -1;
  // Violations (shared by all four protocols)
  int violation = -1;
  int violation_rule = -1;
  int violation_level = -1;
  int violation_section = -1;

  int ett_mpa = -1, ett_ddp = -1, ett_rdmap = -1, ett_clc = -1, ett_violation = -1, ett_negotiated = -1,
      ett_marker = -1, ett_payload = -1;

  dissector_handle_t mpa_handle = nullptr;
  dissector_handle_t clc_handle = nullptr;
};

Ids& ids();

// Registration, called from plugin.cpp.
void register_mpa(void);
void register_ddp_rdmap(void);
void register_clc(void);
void register_violations(void);
void handoff_mpa(void);
void handoff_clc(void);

// ---------------------------------------------------------------- MPA state

inline constexpr int kQueues = 4;  // RDMAP untagged queues 0-3 (RFC 5040 §4.1, RFC 7306)

// A Read Request and the Read Response that answers it (RFC 5040 §5.2: the
// responses come back in the order of the requests).
struct ReadLink {
  std::uint32_t request_frame = 0;
  std::uint32_t response_first_frame = 0;
  std::uint32_t response_last_frame = 0;
  std::uint32_t sink_stag = 0;
  std::uint64_t sink_to = 0;
  std::uint32_t read_size = 0;
  std::uint32_t received = 0;  // Read Response octets seen so far (first pass)
};

// What the first pass found out about one DDP segment, kept for re-dissection.
struct SegmentRecord {
  std::uint32_t expected_msn = 0;  // untagged only
  bool msn_checked = false;
  ReadLink* read = nullptr;        // Read Request or Read Response
  bool unexpected_response = false;
};

struct MpaDirection {
  bool frame_seen = false;             // Request (0) or Reply (1) seen
  std::uint32_t frame_number = 0;
  std::uint32_t full_operation_seq = 0;  // TCP seq of the first octet of full operation
  bool markers = false;                // FPDUs in this direction carry Markers (receiver's M)
  // First pass only: next MSN per untagged queue, outstanding Read Requests.
  std::uint32_t next_msn[kQueues] = {1, 1, 1, 1};
  wmem_list_t* outstanding_reads = nullptr;
  ReadLink* current_response = nullptr;  // a multi-segment Read Response in progress
};

struct MpaConversation {
  address initiator{};  // sender of the Request
  std::uint32_t initiator_port = 0;
  MpaDirection dir[2];  // 0: initiator -> responder, 1: responder -> initiator
  bool negotiated = false;  // both frames seen
  bool rejected = false;
  bool crc = false;
  std::uint8_t revision = 0;
  bool enhanced = false;
  bool p2p = false;
  std::uint16_t ird[2] = {0, 0};
  std::uint16_t ord[2] = {0, 0};
  std::uint8_t rtr_offered = 0;  // bits: 1 Send, 2 Write, 4 Read
  std::uint8_t rtr_chosen = 0;
  wmem_tree_t* segments = nullptr;  // (frame, stream position) -> SegmentRecord
};

// Which direction a packet of the conversation travels.
int direction_of(const MpaConversation& c, const packet_info* pinfo);

// The DDP/RDMAP dissector, on one ULPDU (Markers removed).
struct UlpduContext {
  MpaConversation* conv = nullptr;
  int dir = 0;
  std::uint32_t stream_position = 0;  // of the FPDU; with the frame number, the segment's key
};
void dissect_ulpdu(tvbuff_t* ulpdu, packet_info* pinfo, proto_tree* tree, const UlpduContext& ctx);

}  // namespace rdmaconf::dissector
