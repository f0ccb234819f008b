// DDP over SCTP (RFC 5043): Wireshark's own SCTP dissector finds the DATA
// chunks (and puts fragmented ones back together); ours registers on its
// `sctp.ppi` table for the adaptation layer's two PPIDs. A DDP Segment Chunk
// (PPID 16) shows its DDP-SSN from the declaration and hands the DDP segment
// after it to the same DDP/RDMAP dissection MPA's FPDUs get (show_ulpdu); a
// Session Control message (PPID 17) shows its header and private data.
//
// One source of truth for the rules, as over TCP (connection.cpp): a
// postdissector hands, on the first pass, every SCTP packet of the capture
// (over IP protocol 132, or in a UDP datagram that carries one, RFC 6951) to
// the SctpObserver of its association, the code behind `rdmaconf analyze`
// over SCTP. The frame is read by the capture layer analyze reads files with
// (capture/decode.hpp) and UDP is judged by the same udp_carries_sctp
// (analysis/udp_sctp.hpp), so that the plugin and analyze take the same
// packets whatever Wireshark's Decode As says. What the observer reports per
// frame (violations of RFC 5043's session rules and of the DDP and RDMAP
// rules on the segments it hands on; findings of the carrying layer, such as
// a bad SCTP checksum) is recorded and shown on every pass under
// `rdmaconf.ddp_sctp`, violations as expert infos with analyze's rule ids,
// levels and sections.
//
// Not shown yet: the observer's per-segment state (expected MSN, Read
// matching) under the DDP/RDMAP headers of a DDP Segment Chunk.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/observer_sctp.hpp"
#include "analysis/udp_sctp.hpp"
#include "capture/decode.hpp"
#include "generated_fields.hpp"
#include "plugin.hpp"
#include "sctp/headers.hpp"
#include "smcr/headers.hpp"
#include "violations.hpp"

extern "C" {
#include <wiretap/wtap.h>
}

namespace rdmaconf::dissector {
namespace {

constexpr int kSegmentChunkHeader = static_cast<int>(sctp::kSegmentChunkHeaderSize);
constexpr int kSessionControlHeader = static_cast<int>(sctp::kSessionControlHeaderSize);

// ---------------------------------------------------------------- observer

// What the observer said in one frame.
struct SctpFrame {
  std::vector<ViolationRecord> violations;
  std::vector<std::string> events;  // carrying-layer findings and limits
};

struct State;

// One SCTP association (its two ends: address and SCTP port), as analyze
// keys them: the side whose packet comes first is the initiator.
class Association final : public analysis::ObserverSink {
 public:
  Association(State& state, const capture::Endpoint& initiator) : state_(state), initiator(initiator) {}
  void on_violation(const analysis::Violation& v) override;
  void on_event(const analysis::Event& e) override;

 private:
  State& state_;

 public:
  capture::Endpoint initiator;
  analysis::SctpObserver observer{*this};  // last: its sink (this) is complete before it runs
};

struct State {
  std::map<std::pair<capture::Endpoint, capture::Endpoint>, std::unique_ptr<Association>> associations;
  std::unordered_map<std::uint32_t, SctpFrame> frames;

  void observe(const capture::IpAddress& src, const capture::IpAddress& dst, std::uint64_t frame,
               wire::Bytes packet) {
    // The association's ends are the addresses and SCTP ports (RFC 9260
    // §3.1); a packet too short for them counts against its addresses.
    const auto h = sctp::decode_packet_header(packet);
    const capture::Endpoint from{src, h ? h->source_port : std::uint16_t{0}};
    const capture::Endpoint to{dst, h ? h->destination_port : std::uint16_t{0}};
    const auto key = from < to ? std::make_pair(from, to) : std::make_pair(to, from);
    auto it = associations.find(key);
    // A new association on a finished one's ports starts afresh, as in analyze.
    if (it != associations.end() && it->second->observer.begins_new_association(packet)) {
      associations.erase(it);
      it = associations.end();
    }
    if (it == associations.end()) it = associations.emplace(key, std::make_unique<Association>(*this, from)).first;
    Association& a = *it->second;
    const analysis::Side side = a.initiator == from ? analysis::Side::kInitiator : analysis::Side::kResponder;
    a.observer.on_packet(side, frame, packet);
  }
};

void Association::on_violation(const analysis::Violation& v) {
  state_.frames[static_cast<std::uint32_t>(v.frame)].violations.push_back(
      {v.rule, v.side, v.stream_offset, v.text, v.hint, v.hint_mistake});
}

void Association::on_event(const analysis::Event& e) {
  if (e.kind == analysis::EventKind::kFinding || e.kind == analysis::EventKind::kLimit)
    state_.frames[static_cast<std::uint32_t>(e.frame)].events.push_back(e.text);
}

State& state() { return per_capture<State>(); }

// The capture layer's link type for Wireshark's encapsulation of the frame:
// the link layers capture/decode.hpp walks.
std::optional<capture::LinkType> link_of(int encapsulation) {
  switch (encapsulation) {
    case WTAP_ENCAP_ETHERNET: return capture::LinkType::kEthernet;
    case WTAP_ENCAP_RAW_IP: return capture::LinkType::kRaw;
    case WTAP_ENCAP_RAW_IP4: return capture::LinkType::kIpv4;
    case WTAP_ENCAP_RAW_IP6: return capture::LinkType::kIpv6;
    case WTAP_ENCAP_NULL: return capture::LinkType::kNull;
    case WTAP_ENCAP_LOOP: return capture::LinkType::kLoop;
    case WTAP_ENCAP_SLL: return capture::LinkType::kLinuxSll;
    case WTAP_ENCAP_SLL2: return capture::LinkType::kLinuxSll2;
    default: return std::nullopt;
  }
}

// Takes what the frame decoder finds: SCTP over IP, and UDP datagrams that
// carry SCTP, the way analyze's Analyzer::on_udp routes them (port 4791 is
// RoCEv2's, IBTA Annex A17).
class Feed final : public capture::ReportSink {
 public:
  explicit Feed(State& s) : s_(s) {}
  void on_report(const capture::Report&) override {}
  bool wants_udp() const override { return true; }
  bool on_udp(const capture::UdpDatagram& d) override {
    if (d.key.destination.port == smcr::kRoceV2UdpPort ||
        !analysis::udp_carries_sctp(d.key.source.port, d.key.destination.port, d.payload))
      return false;
    s_.observe(d.key.source.address, d.key.destination.address, d.frame.value, d.payload);
    return true;
  }
  bool wants_sctp() const override { return true; }
  bool on_sctp(const capture::SctpPacket& p) override {
    s_.observe(p.key.source.address, p.key.destination.address, p.frame.value, p.packet);
    return true;
  }

 private:
  State& s_;
};

void observe_frame(tvbuff_t* tvb, packet_info* pinfo) {
  // Only frames Wireshark found SCTP or UDP in can hold an SCTP packet.
  if (!proto_is_frame_protocol(pinfo->layers, "sctp") && !proto_is_frame_protocol(pinfo->layers, "udp")) return;
  if (!pinfo->rec) return;
  const std::optional<capture::LinkType> link = link_of(pinfo->rec->rec_header.packet_header.pkt_encap);
  if (!link) return;
  const int length = static_cast<int>(tvb_captured_length(tvb));
  capture::RawFrame frame;
  frame.number = capture::FrameNumber{pinfo->num};
  frame.link = *link;
  frame.captured = wire::Bytes(tvb_get_ptr(tvb, 0, length), static_cast<std::size_t>(length));
  frame.original_length = tvb_reported_length(tvb);
  Feed feed(state());
  (void)capture::decode_frame(frame, feed);
}

// The postdissector: observes on the first pass, shows on every pass.
int findings(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void*) {
  State& s = state();
  if (!PINFO_FD_VISITED(pinfo)) observe_frame(tvb, pinfo);
  const auto it = s.frames.find(pinfo->num);
  if (it == s.frames.end()) return 0;
  const Ids& i = ids();
  proto_item* ti = proto_tree_add_item(tree, i.proto_ddp_sctp, tvb, 0, 0, ENC_NA);
  proto_item_append_text(ti, ": the association's observer");
  proto_item_set_generated(ti);
  proto_tree* t = proto_item_add_subtree(ti, i.ett_ddp_sctp);
  for (const std::string& e : it->second.events)
    proto_item_set_generated(proto_tree_add_string(t, i.ddp_sctp_event, tvb, 0, 0, e.c_str()));
  for (const ViolationRecord& v : it->second.violations)
    report(proto_of_rule(*v.rule), pinfo, t, tvb, 0, 0, *v.rule, v.text, v.hint, v.mistake);
  return 0;
}

// ----------------------------------------------------------------- display

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
  // The observer's per-segment state is not carried here yet: the record is empty.
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
    if (const std::string_view name = wire::value_name(sctp::names::kFunctionCode, *code); !name.empty()) what = name;
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
      {&i.ddp_sctp_event,
       {"Observer finding", "rdmaconf.ddp_sctp.event", FT_STRING, BASE_NONE, nullptr, 0x0,
        "What the SCTP observer found in this frame that no rule row names: a bad checksum, a broken "
        "fragment sequence, a limit",
        HFILL}},
  };
  proto_register_field_array(i.proto_ddp_sctp, hf, static_cast<int>(G_N_ELEMENTS(hf)));
  register_cleanup_routine(reset_per_capture<State>);
}

void handoff_ddp_sctp(void) {
  const Ids& i = ids();
  // RFC 5043 §5.2: the PPIDs IANA assigned to the adaptation layer. Each
  // handle has a description of its own, the PPID's name in the declaration
  // (sctp::names::kPpid): two handles of one protocol in a Decode As table
  // would otherwise both be "rdmaconf DDP/SCTP", which the user could not
  // tell apart (and tshark warns of at every start). Wireshark keeps the
  // description's pointer: one string per PPID, as long as the plugin.
  static std::map<std::uint32_t, std::string> descriptions;
  const auto handle = [&](dissector_t dissect, std::uint32_t ppid, const char* name) {
    std::string& description = descriptions[ppid];
    description = "rdmaconf " + std::string(wire::value_name(sctp::names::kPpid, ppid)) + " (SCTP)";
    return create_dissector_handle_with_name_and_description(dissect, i.proto_ddp_sctp, name, description.c_str());
  };
  dissector_add_uint("sctp.ppi", sctp::kPpidDdpSegment,
                     handle(dissect_segment_chunk, sctp::kPpidDdpSegment, "rdmaconf.ddp_sctp.segment"));
  dissector_add_uint("sctp.ppi", sctp::kPpidSessionControl,
                     handle(dissect_session_control, sctp::kPpidSessionControl, "rdmaconf.ddp_sctp.session_control"));
  register_postdissector(create_dissector_handle(findings, i.proto_ddp_sctp));
}

}  // namespace rdmaconf::dissector
