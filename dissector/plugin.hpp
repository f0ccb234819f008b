// What the plugin's dissectors share: protocol ids, the fields that are not
// header fields (generated items: CRC status, links, negotiated options), and
// what the first pass recorded per frame.
//
// One source of truth: each TCP connection's octets go, once, in stream
// order, to pcap/analysis's ConnectionObserver (connection.cpp). The
// observer frames the messages (Request/Reply, FPDUs, CLC messages; after a
// gap or a mid-connection start it resynchronises), checks them and names
// every violation by its catalogue rule. The plugin records what it said per
// frame and shows it: each message through the header declarations
// (generated_fields.hpp), each violation as an expert info.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "analysis/observer.hpp"
#include "analysis/observer_roce.hpp"
#include "analysis/rules.hpp"
#include "clc/tcp_option.hpp"
#include "mpa/deframer.hpp"
#include "ulp_state.hpp"

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
  int proto_rpcrdma = -1;
  int proto_iser = -1;
  int proto_roce = -1;      // the RoCEv2 transport headers of the packets smcr.cpp claims
  int proto_smcr_llc = -1;
  int proto_smcr_cdc = -1;
  int proto_ddp_sctp = -1;  // the DDP/SCTP adaptation layer (RFC 5043), on SCTP's PPIDs 16 and 17

  // MPA
  int mpa_fpdu_length = -1;       // stream octets of the FPDU, Markers included
  int mpa_stream_position = -1;   // of the FPDU's first octet, from the start of full operation
  int mpa_stream_offset = -1;     // of the message's first octet, from the first octet seen
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
  int mpa_first_frame = -1;       // FT_FRAMENUM: frame of a reassembled message's first octet
  int mpa_continued = -1;         // octets of a message that ends in a later frame
  int mpa_event = -1;             // resynchronisation, gaps, skipped octets
  // DDP
  int ddp_payload_length = -1;
  int ddp_msn_expected = -1;
  // RDMAP
  int rdmap_data = -1;
  // DDP/SCTP: a Session Control message's private data (RFC 5043 §5.2.3)
  int ddp_sctp_private_data = -1;
  int ddp_sctp_event = -1;  // the SCTP observer's findings of the carrying layer (a bad checksum, ...)
  int rdmap_read_response_in = -1;
  int rdmap_read_request_in = -1;
  int rdmap_read_response_offset = -1;
  int rdmap_term_error = -1;
  // CLC
  int clc_decline_category = -1;
  int clc_decline_linux_name = -1;
  int clc_smc_option = -1;
  int clc_raw = -1;
  // ULPs (ulp.cpp): RPC-over-RDMA's XDR list words, the RPC message's
  // place, and for both ULPs the ties between advertised regions and the
  // RDMA operations that use them.
  int rpcrdma_item_follows = -1;
  int rpcrdma_segment_count = -1;
  int rpcrdma_err = -1;
  int rpcrdma_call_in = -1;
  int rpcrdma_reply_in = -1;
  int rpcrdma_rpc_completed_in = -1;
  int rpcrdma_rpc_call_from = -1;
  int rpcrdma_rpc_length = -1;
  int rpcrdma_note = -1;
  struct TieFields {
    int advertised_in = -1, region = -1, offset = -1;       // on the RDMA operation
    int used_first = -1, used_last = -1, used_octets = -1;  // on the advertising Send
    int invalidated_in = -1, invalidates = -1;
  } rpcrdma_tie, iser_tie;
  // SMC-R over RoCEv2 (smcr.cpp)
  int roce_retransmission = -1;   // the same request PSN again on this QP
  int roce_note = -1;             // a Send that is not SMC-R, a Write's place
  int llc_request_in = -1;        // FT_FRAMENUM: on a reply, its request
  int llc_response_in = -1;       // FT_FRAMENUM: on a request, its reply
  int llc_entry = -1;             // index of a v2 variable-part entry
  int roce_link_number = -1;      // the link a packet flows on (its destination QP names it)
  int roce_link_state = -1;       // that link's state before the packet
  int roce_rkey_announced_in = -1;  // FT_FRAMENUM: an RDMA Write's rkey, announced in (LLC)
  int roce_rkey_announced_by = -1;  // CLC, CONFIRM RKEY, ADD LINK RTokens
  int cdc_producer = -1, cdc_consumer = -1;            // wrap:count
  int cdc_receiver_rmbe = -1, cdc_sender_rmbe = -1;    // RMBE sizes from CLC
  // Violations (shared by all protocols)
  int violation = -1;
  int violation_rule = -1;
  int violation_level = -1;
  int violation_section = -1;
  int violation_hint = -1;

  int ett_mpa = -1, ett_ddp = -1, ett_rdmap = -1, ett_clc = -1, ett_violation = -1, ett_negotiated = -1,
      ett_marker = -1, ett_payload = -1, ett_rpcrdma = -1, ett_iser = -1, ett_chunk = -1, ett_region = -1,
      ett_roce = -1, ett_smcr_llc = -1, ett_smcr_cdc = -1, ett_ddp_sctp = -1;

  dissector_handle_t mpa_handle = nullptr;
  dissector_handle_t clc_handle = nullptr;
  // Wireshark's own dissectors the ULP messages are handed to.
  dissector_handle_t rpc_handle = nullptr;
  dissector_handle_t iscsi_handle = nullptr;
};

Ids& ids();

// Registration, called from plugin.cpp.
void register_mpa(void);
void register_ddp_rdmap(void);
void register_clc(void);
void register_violations(void);
void register_connection(void);
void handoff_connection(void);
void handoff_clc(void);
void register_ulp(void);
void handoff_ulp(void);
void register_smcr(void);
void handoff_smcr(void);
void register_ddp_sctp(void);
void handoff_ddp_sctp(void);

// What one side announced of an SMC-R connection in its CLC Accept or
// Confirm (connection.cpp, from the observer's CLC messages), for the RoCEv2
// side (smcr.cpp): `client` and `server` are the TCP endpoints' addresses,
// used when a GID is not an IP address (as rdmaconf analyze does).
void note_smcr_link(const address* client, const address* server, const analysis::ClcRmbe& client_rmbe,
                    const analysis::ClcRmbe& server_rmbe);

// The connection dissector (connection.cpp): feeds the observer, shows the frame.
int dissect_connection(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data);

// The endpoints whose SYN carried the SMC TCP option (RFC 7609 §3.1),
// recorded by clc.cpp's option hook, read when a connection is claimed.
struct SmcOptions {
  address from[2]{};
  std::uint32_t port[2] = {0, 0};
  int count = 0;
  // Each endpoint's experimental options (kind 254, the kind Wireshark hands
  // this hook) of the first frame that carried any, its SYN, and that frame:
  // the observer judges the SMC option's form and CLC against them.
  struct Syn {
    address from{};
    std::uint32_t port = 0;
    std::uint32_t frame = 0;
    clc::SynExperimentalOptions experimental;
  };
  Syn syn[2];
  int syns = 0;
};
SmcOptions* smc_options(packet_info* pinfo, bool create);
// The observer's violations of a SYN's frame (the SMC option's form), shown
// under its option by clc.cpp's option hook once the connection exists.
void show_syn_violations(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree);

// ------------------------------------------------ what the first pass kept

// A Read Request and the Read Response that answers it, as the observer
// matched them (analysis::ReadMatch), linked both ways for random access.
struct ReadLink {
  std::uint32_t request_frame = 0;
  std::uint32_t response_first_frame = 0;
  std::uint32_t response_last_frame = 0;
};

// What MPA startup settled, when an FPDU was seen (observer's MpaParameters).
struct Negotiated {
  analysis::MpaParameters params;
  std::uint32_t reply_frame = 0;
};

// What a dissector keeps for one capture file: made on first use, dropped by
// Wireshark's cleanup routine when the file is closed
// (`register_cleanup_routine(reset_per_capture<S>)`).
template <typename S>
std::unique_ptr<S>& per_capture_slot() {
  static std::unique_ptr<S> s;
  return s;
}
template <typename S>
S& per_capture() {
  std::unique_ptr<S>& s = per_capture_slot<S>();
  if (!s) s = std::make_unique<S>();
  return *s;
}
template <typename S>
void reset_per_capture() {
  per_capture_slot<S>().reset();
}

// mpa::Fpdu's values, kept after the observer's callback (its views are not).
struct FpduFindings {
  std::uint64_t stream_position = 0;  // MPA stream position of the FPDU's first octet
  std::uint32_t consumed = 0;
  std::uint16_t ulpdu_length = 0;
  std::uint32_t pad_length = 0;
  bool pad_nonzero = false;
  std::uint32_t received_crc = 0;
  std::uint32_t computed_crc = 0;
  mpa::CrcStatus crc_status = mpa::CrcStatus::kNotChecked;
};

// One message the observer reported in a frame.
struct MessageRecord {
  analysis::MessageKind kind = analysis::MessageKind::kFpdu;
  analysis::Side side = analysis::Side::kInitiator;
  std::uint32_t first_frame = 0;
  std::uint64_t stream_offset = 0;
  std::uint32_t octets = 0;
  // The message's octets when they are not all in this frame's segment
  // (reassembled, file scope); nullptr: at stream_offset in the segment.
  const std::uint8_t* copy = nullptr;
  bool in_segment = false;
  // kMpaRequest / kMpaReply: the other frame of the pair.
  std::uint32_t pair_frame = 0;
  // kFpdu: the deframer's findings (mpa::Fpdu without its views).
  FpduFindings fpdu;
  std::vector<mpa::MarkerSeen> markers;
  const Negotiated* negotiated = nullptr;
  bool msn_expected_known = false;
  std::uint32_t msn_expected = 0;
  ReadLink* read = nullptr;  // a Read Request's or Read Response's link
  std::uint64_t read_offset = 0;  // a Read Response: its TO from the request's Data Sink TO
  UlpFindings ulp;           // the ULP's view (ulp_state.hpp)
};

struct ViolationRecord {
  const analysis::Rule* rule = nullptr;
  analysis::Side side = analysis::Side::kInitiator;
  std::uint64_t stream_offset = 0;
  std::string text;
  std::string hint;  // a known encoding mistake that explains it (wire/hint.hpp), or empty
  std::string_view mistake;  // that mistake's id
};

struct EventRecord {
  analysis::Side side = analysis::Side::kInitiator;
  std::string text;
};

// Everything the observer said in one frame.
struct FrameRecord {
  analysis::Side side = analysis::Side::kInitiator;
  std::uint64_t segment_offset = 0;  // stream offset of the segment's first octet
  std::vector<MessageRecord> messages;
  std::vector<ViolationRecord> violations;
  std::vector<EventRecord> events;
};

// ------------------------------------------------------------ display

// Each shows one message; `tvb` holds exactly its octets. Returns the
// subtree violations of the message go under.
proto_tree* show_req_rep(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const MessageRecord& m);
proto_tree* show_fpdu(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const MessageRecord& m);
proto_tree* show_clc(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const MessageRecord& m);
// The DDP/RDMAP headers of one ULPDU (Markers removed).
void show_ulpdu(tvbuff_t* ulpdu, packet_info* pinfo, proto_tree* tree, const MessageRecord& m);
// The ULP's part of one message (ulp.cpp): `payload` is the DDP payload
// after the RDMAP header.
void show_ulp(tvbuff_t* payload, packet_info* pinfo, proto_tree* tree, const MessageRecord& m);

}  // namespace rdmaconf::dissector
