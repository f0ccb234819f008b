// One TCP connection as the plugin sees it: the observer that frames and
// checks it, and what the first pass recorded per frame.
//
// Each TCP segment of a claimed connection comes here in frame order (the
// plugin asks TCP for no desegmentation: the observer reassembles itself,
// and it must see every octet once, in the frame it arrived in, as
// `rdmaconf analyze` feeds it). The first pass feeds the octets not fed yet
// (a retransmission's old part is skipped, missing octets are a gap) and
// records, per frame, the messages that end in it, the violations and the
// resynchronisation events. Every pass then shows the frame's record: a
// message whose octets all arrived in this segment is shown from it; one
// that spans segments is shown from a copy, as its own data source, as
// Wireshark shows a reassembled PDU.
//
// How a sender cut its stream into segments is judged by the observer too
// (RFC 5044 §4.5, §5.1): a segment fed whole, new and in order, is handed to
// it as one (on_segment), with the MSS each SYN announced (the option hook
// below), as `rdmaconf analyze` hands its reassembler's. Retransmitted
// octets are skipped, not compared: a retransmission that differs
// (rfc5044-5.1-retransmit-same) is analyze's alone.
//
// Found by content on any port, like the observer: an MPA key or a CLC
// header at the start of a direction's data, or the SMC TCP option in both
// SYNs (clc.cpp); Decode As for the rest (a capture that starts
// mid-connection, where the observer hunts for FPDU framing).
#include <algorithm>
#include <array>
#include <type_traits>
#include <cstring>
#include <deque>
#include <memory>
#include <new>
#include <optional>
#include <unordered_map>

#include "clc/headers.hpp"
#include "clc/messages.hpp"
#include "mpa/req_rep.hpp"
#include "plugin.hpp"
#include "rdmap/opcodes.hpp"
#include "violations.hpp"

extern "C" {
#include <epan/dissectors/packet-tcp.h>
#include <epan/prefs.h>
#include <epan/range.h>
}

namespace rdmaconf::dissector {

namespace {

using analysis::Side;

// "MPA ID ": the start of both keys (RFC 5044 §7.1.1) up to the word that
// tells them apart; a frame with another word there is still an MPA frame,
// whose key the observer reports.
constexpr std::size_t kKeyStem = 7;
static_assert(std::equal(mpa::kRequestKey.begin(), mpa::kRequestKey.begin() + kKeyStem, mpa::kReplyKey.begin()));
constexpr std::size_t kKeyProbe = kKeyStem + 1;  // the stem and one more octet: enough to claim a direction
// Octets kept per direction for messages that span segments: well above
// what the observer itself holds (ObserverConfig::max_buffer).
constexpr std::size_t kMaxWindow = std::size_t{1} << 20;
// Read Requests remembered per side for linking their responses back (the
// observer's own bound on outstanding requests).
constexpr std::size_t kMaxReads = std::size_t{1} << 16;
// Wireshark 4.0's tcp_analysis::conversation_completeness bits.
constexpr std::uint8_t kSynSeen = 0x01;
constexpr std::uint8_t kSynAckSeen = 0x02;

int idx(Side s) { return static_cast<int>(s); }

// The sides: the SYN's sender is the initiator; without a SYN, the sender
// of the first data seen (as the capture layer decides).
bool sent_by_initiator(packet_info* pinfo) {
  const tcp_analysis* tcpd = get_tcp_conversation_data(nullptr, pinfo);
  const std::uint8_t seen = tcpd ? tcpd->conversation_completeness : 0;
  if ((seen & (kSynSeen | kSynAckSeen)) && tcpd->server_port != 0) return pinfo->srcport != tcpd->server_port;
  return true;
}

// The user's word on the ULP per responder port (the preferences
// rdmaconf.mpa.rpcrdma_ports and rdmaconf.mpa.iser_ports, the plugin's
// `--ulp NAME:PORT`, as Wireshark's Decode As): it wins over recognition.
struct UlpPorts {
  range_t* rpcrdma = nullptr;
  range_t* iser = nullptr;
};
// The MSS each endpoint's SYN announced (RFC 9293 §3.7.1), per
// conversation: recorded by the MSS option hook, read when a connection is
// claimed.
struct SynMss {
  address from[2]{};
  std::uint32_t port[2] = {0, 0};
  std::uint16_t mss[2] = {0, 0};
  int count = 0;
};
wmem_map_t* g_syn_mss = nullptr;                // conversation index -> SynMss, emptied with each file
dissector_handle_t g_tcp_mss_option = nullptr;  // Wireshark's own MSS option dissector
// The option's octets: kind, length, then the MSS (RFC 9293 §3.2).
constexpr std::uint32_t kTcpOptionKindMss = 2;
constexpr int kMssValueOffset = 2;
constexpr int kMssOptionLength = 4;

SynMss* syn_mss(packet_info* pinfo, bool create) {
  conversation_t* conv = create ? find_or_create_conversation(pinfo) : find_conversation_pinfo(pinfo, 0);
  if (!conv || !g_syn_mss) return nullptr;
  void* key = GUINT_TO_POINTER(conv->conv_index);
  auto* m = static_cast<SynMss*>(wmem_map_lookup(g_syn_mss, key));
  if (!m && create) {
    m = new (wmem_alloc0(wmem_file_scope(), sizeof(SynMss))) SynMss{};
    wmem_map_insert(g_syn_mss, key, m);
  }
  return m;
}

// Wireshark shows the option as ever; the value is kept for the observer.
int dissect_tcp_mss_option(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
  const int used = g_tcp_mss_option ? call_dissector_with_data(g_tcp_mss_option, tvb, pinfo, tree, data) : 0;
  if (!PINFO_FD_VISITED(pinfo) && tvb_captured_length(tvb) >= static_cast<unsigned>(kMssOptionLength)) {
    SynMss* m = syn_mss(pinfo, true);
    int k = 0;
    while (k < m->count && !(addresses_equal(&m->from[k], &pinfo->src) && m->port[k] == pinfo->srcport)) ++k;
    if (k < 2) {
      if (k == m->count) {
        copy_address_wmem(wmem_file_scope(), &m->from[k], &pinfo->src);
        m->port[k] = pinfo->srcport;
        ++m->count;
      }
      m->mss[k] = tvb_get_ntohs(tvb, kMssValueOffset);
    }
  }
  return used > 0 ? used : static_cast<int>(tvb_captured_length(tvb));
}

UlpPorts& ulp_ports() {
  static UlpPorts p;
  return p;
}
analysis::ObserverConfig config_for(packet_info* pinfo) {
  analysis::ObserverConfig config;
  const std::uint32_t port = sent_by_initiator(pinfo) ? pinfo->destport : pinfo->srcport;
  const UlpPorts& p = ulp_ports();
  if (p.rpcrdma && value_is_in_range(p.rpcrdma, port)) config.ulp = analysis::Ulp::kRpcRdma;
  else if (p.iser && value_is_in_range(p.iser, port)) config.ulp = analysis::Ulp::kIser;
  return config;
}

class Connection final : public analysis::ObserverSink {
 public:
  explicit Connection(const analysis::ObserverConfig& config) : observer_(*this, config) {}

  void start(packet_info* pinfo) {
    const tcp_analysis* tcpd = get_tcp_conversation_data(nullptr, pinfo);
    const std::uint8_t seen = tcpd ? tcpd->conversation_completeness : 0;
    const bool from_initiator = sent_by_initiator(pinfo);
    copy_address_wmem(wmem_file_scope(), &initiator_, from_initiator ? &pinfo->src : &pinfo->dst);
    initiator_port_ = from_initiator ? pinfo->srcport : pinfo->destport;
    const address* responder = from_initiator ? &pinfo->dst : &pinfo->src;
    copy_address_wmem(wmem_file_scope(), &responder_, responder);
    const std::uint32_t responder_port = from_initiator ? pinfo->destport : pinfo->srcport;

    const SmcOptions* smc = smc_options(pinfo, false);
    auto smc_from = [smc](const address* a, std::uint32_t port) {
      if (!smc) return false;
      for (int k = 0; k < smc->count; ++k)
        if (addresses_equal(&smc->from[k], a) && smc->port[k] == port) return true;
      return false;
    };
    const SynMss* mss = syn_mss(pinfo, false);
    auto mss_from = [mss](const address* a, std::uint32_t port) -> std::optional<std::uint16_t> {
      if (!mss) return std::nullopt;
      for (int k = 0; k < mss->count; ++k)
        if (addresses_equal(&mss->from[k], a) && mss->port[k] == port) return mss->mss[k];
      return std::nullopt;
    };
    const bool syn[2] = {(seen & kSynSeen) != 0, (seen & kSynAckSeen) != 0};
    const bool option[2] = {smc_from(&initiator_, initiator_port_), smc_from(responder, responder_port)};
    const std::optional<std::uint16_t> announced[2] = {mss_from(&initiator_, initiator_port_),
                                                       mss_from(responder, responder_port)};
    std::array<const SmcOptions::Syn*, std::extent_v<decltype(syn)>> experimental{};
    for (int k = 0; smc && k < smc->syns; ++k) {
      const SmcOptions::Syn& e = smc->syn[k];
      if (addresses_equal(&e.from, &initiator_) && e.port == initiator_port_) experimental[0] = &e;
      else if (addresses_equal(&e.from, responder) && e.port == responder_port) experimental[1] = &e;
    }
    for (Side s : {Side::kInitiator, Side::kResponder}) {
      if (syn[idx(s)]) {
        observer_.on_syn(s, option[idx(s)], announced[idx(s)]);
        if (const SmcOptions::Syn* e = experimental[idx(s)]) observer_.on_syn_options(s, e->frame, e->experimental);
      } else {
        observer_.on_mid_stream(s);
      }
    }
  }

  Side side_of(const packet_info* pinfo) const {
    return addresses_equal(&pinfo->src, &initiator_) && pinfo->srcport == initiator_port_ ? Side::kInitiator
                                                                                           : Side::kResponder;
  }

  // The first pass: the segment's octets not fed yet go to the observer;
  // `whole`: the capture holds all of the segment's octets.
  void feed(Side side, std::uint32_t frame, std::uint32_t seq, const std::uint8_t* data, std::uint32_t length,
            bool whole) {
    Direction& d = dir_[idx(side)];
    if (!d.started) {
      d.started = true;
      d.next_seq = seq;
    }
    const auto delta = static_cast<std::int32_t>(seq - d.next_seq);
    std::uint32_t skip = 0;
    if (delta > 0) {
      // Octets the capture does not hold: the observer resynchronises, and
      // its request/response matching stops.
      observer_.on_gap(side, static_cast<std::uint64_t>(delta), frame);
      d.fed_to += static_cast<std::uint32_t>(delta);
      d.next_seq = seq;
      d.window.clear();
      d.window_start = d.fed_to;
      for (Direction& x : dir_) x.reads.clear();
    } else if (delta < 0) {
      skip = std::min(length, static_cast<std::uint32_t>(-delta));  // already fed (retransmission)
    }
    const std::uint64_t tvb_base = d.fed_to - skip;
    if (skip == length) return;
    data += skip;
    length -= skip;

    cur_ = {side, frame, data, d.fed_to, length, tvb_base, true};
    // New, in order and all captured: the segment as its sender cut it.
    if (whole && delta == 0) observer_.on_segment(side, frame, wire::Bytes(data, length));
    else observer_.on_data(side, frame, wire::Bytes(data, length));
    cur_.active = false;
    const std::uint64_t segment_at = d.fed_to;
    d.fed_to += length;
    d.next_seq += length;

    // Keep the octets no message has taken yet (the start of one that
    // continues in a later segment).
    const std::uint64_t keep_from = std::max(d.consumed_end, d.window_start);
    if (keep_from >= segment_at) {
      d.window.clear();
      d.window_start = std::min(keep_from, d.fed_to);
      const std::uint64_t from = d.window_start - segment_at;
      d.window.insert(d.window.end(), data + from, data + length);
    } else {
      const auto drop = static_cast<std::size_t>(std::min<std::uint64_t>(keep_from - d.window_start, d.window.size()));
      d.window.erase(d.window.begin(), d.window.begin() + static_cast<std::ptrdiff_t>(drop));
      d.window_start += drop;
      d.window.insert(d.window.end(), data, data + length);
    }
    if (d.window.size() > kMaxWindow) {
      const std::size_t drop = d.window.size() - kMaxWindow;
      d.window.erase(d.window.begin(), d.window.begin() + static_cast<std::ptrdiff_t>(drop));
      d.window_start += drop;
    }
  }

  const FrameRecord* frame(std::uint32_t number) const {
    const auto it = frames_.find(number);
    return it == frames_.end() ? nullptr : &it->second;
  }
  analysis::Protocol protocol() const { return observer_.protocol(); }

  // ---- ObserverSink

  void on_message(const analysis::Message& m) override {
    FrameRecord& fr = record(static_cast<std::uint32_t>(m.frame));
    Direction& d = dir_[idx(m.side)];
    d.consumed_end = std::max(d.consumed_end, m.stream_offset + m.octets);
    MessageRecord r;
    r.kind = m.kind;
    r.side = m.side;
    r.first_frame = static_cast<std::uint32_t>(m.first_frame);
    r.stream_offset = m.stream_offset;
    r.octets = static_cast<std::uint32_t>(m.octets);
    r.in_segment = cur_.active && m.side == cur_.side && m.frame == cur_.frame && m.stream_offset >= cur_.offset &&
                   m.stream_offset + m.octets <= cur_.offset + cur_.length;
    if (!r.in_segment) r.copy = gather(m.side, m.stream_offset, r.octets);

    switch (m.kind) {
      case analysis::MessageKind::kMpaRequest:
      case analysis::MessageKind::kMpaReply: {
        d.req_rep = {static_cast<std::uint32_t>(m.frame), fr.messages.size(), true};
        const Direction& peer = dir_[idx(analysis::other(m.side))];
        if (peer.req_rep.known) {
          r.pair_frame = peer.req_rep.frame;
          FrameRecord& pf = frames_[peer.req_rep.frame];
          if (peer.req_rep.index < pf.messages.size()) pf.messages[peer.req_rep.index].pair_frame = static_cast<std::uint32_t>(m.frame);
        }
        if (m.kind == analysis::MessageKind::kMpaReply) reply_frame_ = static_cast<std::uint32_t>(m.frame);
        negotiated_ = nullptr;  // a new snapshot at the next FPDU
        break;
      }
      case analysis::MessageKind::kFpdu:
        on_fpdu(m, d, r);
        break;
      case analysis::MessageKind::kClc:
        if (m.clc) note_rmbe(*m.clc, m.frame);
        break;
      case analysis::MessageKind::kRoce:  // RoCEv2 packets do not come through a TCP connection
      case analysis::MessageKind::kDdpSegment:  // nor DDP over SCTP
      case analysis::MessageKind::kSctpControl:
        break;
    }
    fr.messages.push_back(std::move(r));
  }

  void on_violation(const analysis::Violation& v) override {
    record(static_cast<std::uint32_t>(v.frame)).violations.push_back({v.rule, v.side, v.stream_offset, v.text, v.hint, v.hint_mistake});
  }

  void on_event(const analysis::Event& e) override {
    if (e.kind == analysis::EventKind::kDetected) return;
    record(static_cast<std::uint32_t>(e.frame)).events.push_back({e.side, e.text});
  }

 private:
  struct Direction {
    bool started = false;
    std::uint32_t next_seq = 0;      // TCP sequence number of the next octet to feed
    std::uint64_t fed_to = 0;        // stream offset of the next octet to feed
    std::uint64_t consumed_end = 0;  // stream offset after the last message
    std::vector<std::uint8_t> window;  // octets [window_start, fed_to) no message has taken
    std::uint64_t window_start = 0;
    struct {
      std::uint32_t frame = 0;
      std::size_t index = 0;
      bool known = false;
    } req_rep;  // where this side's Request or Reply is recorded
    // The Read Requests this side sent that the observer matched and no
    // Response has ended yet, by the observer's number: where the first
    // Response frame is noted for the Request's "Response in".
    std::deque<std::pair<std::uint64_t, ReadLink*>> reads;
  };

  FrameRecord& record(std::uint32_t number) {
    FrameRecord& fr = frames_[number];
    if (cur_.active && number == cur_.frame) {
      fr.side = cur_.side;
      fr.segment_offset = cur_.tvb_base;
    }
    return fr;
  }

  // A copy of [offset, offset + n) of a side's stream, from what is kept and
  // the segment being fed; nullptr when it is no longer held.
  const std::uint8_t* gather(Side side, std::uint64_t offset, std::uint32_t n) {
    const Direction& d = dir_[idx(side)];
    auto* out = static_cast<std::uint8_t*>(wmem_alloc(wmem_file_scope(), n ? n : 1));
    std::size_t done = 0;
    if (offset >= d.window_start && offset < d.window_start + d.window.size()) {
      const auto from = static_cast<std::size_t>(offset - d.window_start);
      done = std::min<std::size_t>(n, d.window.size() - from);
      std::memcpy(out, d.window.data() + from, done);
    }
    if (done < n && cur_.active && side == cur_.side) {
      const std::uint64_t at = offset + done;
      if (at >= cur_.offset && at < cur_.offset + cur_.length) {
        const std::size_t k = std::min<std::size_t>(n - done, static_cast<std::size_t>(cur_.offset + cur_.length - at));
        std::memcpy(out + done, cur_.data + (at - cur_.offset), k);
        done += k;
      }
    }
    return done == n ? out : nullptr;
  }

  // RFC 7609 App. A.2.3/A.2.4: the server's Accept and the client's Confirm
  // each announce the sender's end of the SMC-R connection; the RoCEv2 side
  // (smcr.cpp) judges the link group's CDC messages and Writes with them.
  // The CLC client is the TCP initiator (§3.5).
  void note_rmbe(const clc::Message& msg, analysis::FrameNo frame) {
    const auto* ac = std::get_if<clc::AcceptConfirm>(&msg);
    if (!ac || !ac->smcr) return;
    analysis::ClcRmbe r = analysis::ClcRmbe::from(*ac->smcr);
    r.frame = frame;
    (ac->type() == clc::MessageType::kAccept ? server_ : client_) = r;
    if (!server_ || !client_ || link_noted_) return;
    link_noted_ = true;
    note_smcr_link(&initiator_, &responder_, *client_, *server_);
  }

  void on_fpdu(const analysis::Message& m, Direction& d, MessageRecord& r) {
    const mpa::Fpdu& f = *m.fpdu;
    r.fpdu = {f.stream_position, static_cast<std::uint32_t>(f.consumed), f.ulpdu_length,
              static_cast<std::uint32_t>(f.pad_length), f.pad_nonzero, f.received_crc, f.computed_crc, f.crc_status};
    r.markers.reserve(f.markers.size());
    for (std::size_t k = 0; k < f.markers.size(); ++k) r.markers.push_back(f.markers[k]);
    if (!negotiated_ && observer_.mpa().known) {
      auto* n = new (wmem_alloc(wmem_file_scope(), sizeof(Negotiated))) Negotiated{observer_.mpa(), reply_frame_};
      negotiated_ = n;
    }
    r.negotiated = negotiated_;

    const analysis::SegmentInfo* s = m.segment;
    if (!s || !s->has_header) return;
    // What the observer knows of the segment, kept for every pass: the MSN
    // its queue expects, the Read Request a Read Response answers.
    if (!s->ddp.tagged && s->expected_msn) {
      r.msn_expected_known = true;
      r.msn_expected = *s->expected_msn;
    }
    if (s->read_request_number && d.reads.size() < kMaxReads) {
      auto* link = new (wmem_alloc0(wmem_file_scope(), sizeof(ReadLink))) ReadLink{};
      link->request_frame = static_cast<std::uint32_t>(m.frame);
      d.reads.emplace_back(s->read_request_number, link);
      r.read = link;
    } else if (s->read && s->ddp.tagged) {
      // Requests the observer matched before this one are answered.
      Direction& requester = dir_[idx(analysis::other(m.side))];
      while (!requester.reads.empty() && requester.reads.front().first < s->read->request)
        requester.reads.pop_front();
      if (!requester.reads.empty() && requester.reads.front().first == s->read->request) {
        ReadLink* link = requester.reads.front().second;
        if (!link->response_first_frame) link->response_first_frame = static_cast<std::uint32_t>(m.frame);
        link->response_last_frame = static_cast<std::uint32_t>(m.frame);
        r.read = link;
        r.read_offset = s->read->offset;
      }
    }
    r.ulp = ulp_.on_segment(m, *s);
  }

  address initiator_{};
  address responder_{};
  std::uint32_t initiator_port_ = 0;
  std::optional<analysis::ClcRmbe> client_, server_;
  bool link_noted_ = false;
  Direction dir_[2];
  const Negotiated* negotiated_ = nullptr;
  std::uint32_t reply_frame_ = 0;
  std::unordered_map<std::uint32_t, FrameRecord> frames_;
  UlpTracker ulp_;
  struct {
    Side side = Side::kInitiator;
    std::uint32_t frame = 0;
    const std::uint8_t* data = nullptr;
    std::uint64_t offset = 0;    // stream offset of data[0]
    std::uint32_t length = 0;
    std::uint64_t tvb_base = 0;  // stream offset of the TCP payload's first octet
    bool active = false;
  } cur_;
  analysis::ConnectionObserver observer_;  // last: its sink (this) is complete before it runs
};

gboolean destroy_connection(wmem_allocator_t*, wmem_cb_event_t, void* data) {
  delete static_cast<Connection*>(data);
  return FALSE;  // once
}

Connection* connection_of(packet_info* pinfo, bool create) {
  conversation_t* conv = create ? find_or_create_conversation(pinfo) : find_conversation_pinfo(pinfo, 0);
  if (!conv) return nullptr;
  auto* c = static_cast<Connection*>(conversation_get_proto_data(conv, ids().proto_mpa));
  if (!c && create) {
    c = new Connection(config_for(pinfo));
    wmem_register_callback(wmem_file_scope(), destroy_connection, c);
    conversation_add_proto_data(conv, ids().proto_mpa, c);
    c->start(pinfo);
  }
  return c;
}

// One frame's record, shown.
int show_frame(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, const Connection& c, const FrameRecord* fr) {
  const Ids& i = ids();
  const bool clc = c.protocol() == analysis::Protocol::kClc;
  const int length = static_cast<int>(tvb_captured_length(tvb));
  if (!fr) {
    // Octets of a message that ends in a later frame (or of nothing ours).
    if (c.protocol() != analysis::Protocol::kMpa && !clc) return 0;
    col_set_str(pinfo->cinfo, COL_PROTOCOL, clc ? "rdmaconf CLC" : "rdmaconf MPA");
    col_set_str(pinfo->cinfo, COL_INFO, "[continued in a later frame]");
    proto_item* ti = proto_tree_add_item(tree, clc ? i.proto_clc : i.proto_mpa, tvb, 0, -1, ENC_NA);
    proto_item_set_generated(proto_tree_add_uint(proto_item_add_subtree(ti, i.ett_mpa), i.mpa_continued, tvb, 0,
                                                 length, static_cast<guint32>(length)));
    return length;
  }
  col_set_str(pinfo->cinfo, COL_PROTOCOL, clc ? "rdmaconf CLC" : "rdmaconf MPA");
  col_clear(pinfo->cinfo, COL_INFO);

  struct Shown {
    std::uint64_t from, to;
    Side side;
    tvbuff_t* tvb;
    proto_tree* tree;
  };
  std::vector<Shown> shown;
  shown.reserve(fr->messages.size());
  for (const MessageRecord& m : fr->messages) {
    tvbuff_t* mt = nullptr;
    if (m.in_segment) {
      const std::uint64_t at = m.stream_offset - fr->segment_offset;
      if (at + m.octets > static_cast<std::uint64_t>(length)) continue;  // not this dissection's segment
      mt = tvb_new_subset_length(tvb, static_cast<int>(at), static_cast<int>(m.octets));
    } else if (m.copy) {
      mt = tvb_new_child_real_data(tvb, m.copy, m.octets, static_cast<gint>(m.octets));
      add_new_data_source(pinfo, mt,
                          m.kind == analysis::MessageKind::kFpdu   ? "Reassembled FPDU"
                          : m.kind == analysis::MessageKind::kClc ? "Reassembled CLC message"
                                                                  : "Reassembled MPA Request/Reply");
    } else {
      continue;  // its octets are no longer held (beyond the window)
    }
    proto_tree* t = nullptr;
    switch (m.kind) {
      case analysis::MessageKind::kMpaRequest:
      case analysis::MessageKind::kMpaReply: t = show_req_rep(mt, pinfo, tree, m); break;
      case analysis::MessageKind::kFpdu: t = show_fpdu(mt, pinfo, tree, m); break;
      case analysis::MessageKind::kClc: t = show_clc(mt, pinfo, tree, m); break;
      case analysis::MessageKind::kRoce:  // not a TCP message
      case analysis::MessageKind::kDdpSegment:
      case analysis::MessageKind::kSctpControl: break;
    }
    if (t && m.first_frame != pinfo->num)
      proto_item_set_generated(proto_tree_add_uint(t, i.mpa_first_frame, mt, 0, 0, m.first_frame));
    shown.push_back({m.stream_offset, m.stream_offset + m.octets, m.side, mt, t});
  }

  proto_tree* frame_tree = nullptr;
  auto fallback = [&]() {
    if (!frame_tree)
      frame_tree = proto_item_add_subtree(proto_tree_add_item(tree, clc ? i.proto_clc : i.proto_mpa, tvb, 0, -1, ENC_NA),
                                          i.ett_mpa);
    return frame_tree;
  };
  for (const EventRecord& e : fr->events) {
    proto_item_set_generated(proto_tree_add_string(fallback(), i.mpa_event, tvb, 0, 0, e.text.c_str()));
    col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ", "[%s]", e.text.c_str());
  }
  for (const ViolationRecord& v : fr->violations) {
    // Under the message the violation's offset falls in; else the frame's.
    const Shown* at = nullptr;
    for (const Shown& s : shown)
      if (s.side == v.side && v.stream_offset >= s.from && v.stream_offset < std::max(s.to, s.from + 1)) at = &s;
    if (at)
      report(proto_of_rule(*v.rule), pinfo, at->tree, at->tvb, static_cast<int>(v.stream_offset - at->from), -1,
             *v.rule, v.text, v.hint, v.mistake);
    else
      report(proto_of_rule(*v.rule), pinfo, fallback(), tvb, 0, 0, *v.rule, v.text, v.hint, v.mistake);
  }
  return length;
}

bool starts_with_key(tvbuff_t* tvb) {
  const int available = tvb_captured_length_remaining(tvb, 0);
  if (available < static_cast<int>(kKeyProbe)) return false;
  // The stem both keys share ("MPA ID "): a frame with a wrong key after it
  // is still an MPA Request/Reply, and the observer reports the key.
  return tvb_memeql(tvb, 0, mpa::kRequestKey.data(), kKeyStem) == 0;
}

bool looks_like_clc(tvbuff_t* tvb) {
  if (tvb_captured_length(tvb) < clc::kHeaderSize) return false;
  const wire::Bytes head(tvb_get_ptr(tvb, 0, static_cast<int>(clc::kHeaderSize)), clc::kHeaderSize);
  return clc::message_length(head).ok();
}

}  // namespace

void show_syn_violations(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree) {
  const Connection* c = connection_of(pinfo, false);
  const FrameRecord* fr = c ? c->frame(pinfo->num) : nullptr;
  if (!fr) return;
  for (const ViolationRecord& v : fr->violations)
    report(proto_of_rule(*v.rule), pinfo, tree, tvb, 0, -1, *v.rule, v.text, v.hint, v.mistake);
}

int dissect_connection(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
  auto* tcp = static_cast<tcpinfo*>(data);
  if (!tcp) return 0;
  Connection* c = connection_of(pinfo, true);
  if (!PINFO_FD_VISITED(pinfo)) {
    const auto length = static_cast<std::uint32_t>(tvb_captured_length(tvb));
    if (length)
      c->feed(c->side_of(pinfo), pinfo->num, tcp->seq, tvb_get_ptr(tvb, 0, static_cast<int>(length)), length,
              tvb_reported_length(tvb) == length);
  }
  return show_frame(tvb, pinfo, tree, *c, c->frame(pinfo->num));
}

namespace {

gboolean heuristic(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
  if (!data || !(starts_with_key(tvb) || looks_like_clc(tvb))) return FALSE;
  conversation_set_dissector(find_or_create_conversation(pinfo), ids().mpa_handle);
  dissect_connection(tvb, pinfo, tree, data);
  return TRUE;
}

}  // namespace

void register_connection(void) {
  Ids& i = ids();
  i.mpa_handle = create_dissector_handle(dissect_connection, i.proto_mpa);
  i.clc_handle = create_dissector_handle(dissect_connection, i.proto_clc);
  UlpPorts& p = ulp_ports();
  range_convert_str(wmem_epan_scope(), &p.rpcrdma, "", 65535);
  range_convert_str(wmem_epan_scope(), &p.iser, "", 65535);
  module_t* module = prefs_register_protocol(i.proto_mpa, nullptr);
  prefs_register_range_preference(module, "rpcrdma_ports", "RPC-over-RDMA (NFS) on these ports",
                                  "Connections to these TCP ports carry RPC-over-RDMA (RFC 8166), whatever "
                                  "recognition says (as rdmaconf analyze --ulp rpc-over-rdma:PORT)",
                                  &p.rpcrdma, 65535);
  prefs_register_range_preference(module, "iser_ports", "iSER on these ports",
                                  "Connections to these TCP ports carry iSER (RFC 7145), whatever recognition says "
                                  "(as rdmaconf analyze --ulp iser:PORT)",
                                  &p.iser, 65535);
}

void handoff_connection(void) {
  Ids& i = ids();
  // Watch the MSS option: wrap Wireshark's own dissector of it.
  g_syn_mss = wmem_map_new_autoreset(wmem_epan_scope(), wmem_file_scope(), g_direct_hash, g_direct_equal);
  g_tcp_mss_option = dissector_get_uint_handle(find_dissector_table("tcp.option"), kTcpOptionKindMss);
  dissector_add_uint("tcp.option", kTcpOptionKindMss, create_dissector_handle(dissect_tcp_mss_option, -1));
  // One heuristic for both: the observer tells MPA from CLC by content.
  heur_dissector_add("tcp", heuristic, "rdmaconf MPA and SMC CLC over TCP (MPA keys, CLC eyecatchers)",
                     "rdmaconf_tcp", i.proto_mpa, HEURISTIC_ENABLE);
  dissector_add_for_decode_as("tcp.port", i.mpa_handle);
  dissector_add_for_decode_as("tcp.port", i.clc_handle);
}

}  // namespace rdmaconf::dissector
