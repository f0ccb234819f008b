// SMC-R past the handshake, in Wireshark: the LLC and CDC messages that RC
// Send Only packets carry over RoCEv2 (rdmaconf.smcr.llc, rdmaconf.smcr.cdc),
// the RDMA Writes of RMB data, and the transport headers rdmaconf read
// (rdmaconf.roce).
//
// Wireshark's infiniband dissector takes UDP port 4791 (RoCEv2) and offers
// each packet's payload to the heuristics of its "infiniband.payload" list;
// rdmaconf registers one there. Wireshark 4.0 puts every heuristic added to
// a list in front of those already in it, and calls a plugin's handoff after
// the built-in ones, so rdmaconf's runs before Wireshark's smcr_infiniband
// and rpcrdma_infiniband (the latter calls SMC-R v2 LLC messages malformed).
//
// One source of truth, as for TCP (connection.cpp): per pair of RoCE peers,
// on the first pass, every RoCEv2 packet the list offers goes, in frame
// order, to a pcap/analysis RoceObserver (the code behind `rdmaconf analyze`
// and `decode`), tied to the SMC-R connections whose CLC Accept and Confirm
// the TCP side saw (note_smcr_link: QP numbers, RMB rkeys and sizes, alert
// tokens; the peers found by the GIDs there). What it says per frame
// (message, retransmission, violations) is recorded and shown on every pass.
// The plugin checks nothing itself: what the observer learnt about a packet
// (RoceInfo, RoceObserver::notes) is shown as generated fields: the link it
// flows on and that link's state (RFC 7609 §3.5.1.5, §3.5.5.1), the request
// an LLC reply answers on its link (§3.3), and where an RDMA Write's rkey was
// announced (CLC, CONFIRM RKEY, ADD LINK RTokens; §3.5.5.2).
//
// Claimed: an LLC or CDC message on a link learnt from CLC; without CLC, one
// whose layout is exact (a v1 LLC or CDC message of 44 octets, a v2 LLC
// message whose Length is the Send's size); any RoCEv2 packet with payload
// on a link learnt from CLC (the RMB data of RDMA Writes); any packet the
// observer found a violation in. Other RoCE traffic (NFS, iSER, ...) is left
// to the dissectors after rdmaconf's.
#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>

#include "analysis/link_groups.hpp"
#include "capture/headers.hpp"
#include "generated_fields.hpp"
#include "plugin.hpp"
#include "smcr/messages.hpp"
#include "smcr/roce.hpp"
#include "violations.hpp"

extern "C" {
#include <epan/dissectors/packet-infiniband.h>
}

namespace rdmaconf::dissector {

namespace {

using analysis::Side;

// An IP address as RoCEv2 GIDs carry it: IPv4 mapped into IPv6 (RFC 4291
// §2.5.5.2: 80 zero bits, 16 one bits, the IPv4 address).
using Ip = std::array<std::uint8_t, 16>;
constexpr std::array<std::uint8_t, 12> kIpv4MappedPrefix = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
constexpr std::size_t kIpv4Octets = 4;

std::optional<Ip> ip_of(const address& a) {
  Ip r{};
  if (a.type == AT_IPv4 && a.len == static_cast<int>(kIpv4Octets)) {
    std::copy(kIpv4MappedPrefix.begin(), kIpv4MappedPrefix.end(), r.begin());
    std::memcpy(r.data() + kIpv4MappedPrefix.size(), a.data, kIpv4Octets);
    return r;
  }
  if (a.type == AT_IPv6 && a.len == static_cast<int>(r.size())) {
    std::memcpy(r.data(), a.data, r.size());
    return r;
  }
  return std::nullopt;
}

// A GID as an address for routing: nullopt when all zero (none given).
std::optional<Ip> gid_address(const Ip& gid) {
  if (std::all_of(gid.begin(), gid.end(), [](std::uint8_t o) { return o == 0; })) return std::nullopt;
  return gid;
}

// What the first pass recorded of one RoCEv2 frame.
struct RoceFrame {
  Side side = Side::kInitiator;
  bool smcr = false;            // an LLC or CDC message
  bool llc = false;
  bool exact = false;           // its layout is exact: claimed without CLC
  bool retransmission = false;
  bool claimed = false;
  std::string note;             // a Send that is not SMC-R: why
  std::uint32_t request_in = 0, response_in = 0;  // LLC reply <-> request, on the same link
  std::uint8_t link_number = 0;                   // 0: not named yet
  std::string_view link_state;                    // before this packet
  bool rkey_announced = false;                    // an RDMA Write's rkey was announced ...
  std::uint32_t rkey_announced_in = 0;            // ... in this frame (0: CLC)
  std::string_view rkey_announced_by;
  // CDC: the RMBE sizes CLC announced for the connection its alert token
  // names (the receiver's bounds the producer cursor, the sender's the
  // consumer cursor; RFC 7609 App. A.4); 0 when CLC was not seen.
  std::uint64_t receiver_rmbe = 0, sender_rmbe = 0;
  std::vector<ViolationRecord> violations;
};

struct ClcLink {
  Ip client;
  analysis::ClcRmbe client_rmbe, server_rmbe;
};

struct State;
class Link;
using Routes = analysis::LinkGroupRoutes<Link, Ip>;
using IpPair = Routes::Pair;
IpPair ordered(const Ip& a, const Ip& b) { return Routes::ordered(a, b); }

// One pair of RoCE peers: its observer and what it said.
class Link final : public analysis::ObserverSink {
 public:
  Link(State& state, const Ip& initiator) : state_(state), initiator(initiator) {}

  void on_message(const analysis::Message& m) override;
  void on_violation(const analysis::Violation& v) override;

  // The SMC-R connection a CLC exchange announced, oriented as the link's sides.
  void add(const ClcLink& l) {
    from_clc = true;
    const bool client_initiates = l.client == initiator;
    const analysis::ClcRmbe& i = client_initiates ? l.client_rmbe : l.server_rmbe;
    const analysis::ClcRmbe& r = client_initiates ? l.server_rmbe : l.client_rmbe;
    observer.add_connection(i, r);
    rmbes.push_back({i, r});
  }

 private:
  State& state_;

 public:
  Ip initiator;
  IpPair pair{};               // its own addresses
  bool from_clc = false;
  std::vector<std::array<analysis::ClcRmbe, 2>> rmbes;  // per connection: initiator's, responder's
  analysis::RoceObserver observer{*this};  // last: its sink (this) is complete before it runs
};

// Everything per capture file.
struct State {
  std::map<IpPair, std::unique_ptr<Link>> links;
  std::map<IpPair, std::vector<ClcLink>> clc_links;
  std::map<IpPair, Ip> clc_clients;
  std::unordered_map<std::uint32_t, RoceFrame> frames;

  Link& link_for(const Ip& src, const Ip& dst) {
    const IpPair pair = ordered(src, dst);
    auto it = links.find(pair);
    if (it != links.end()) return *it->second;
    // The CLC client is the initiator when its handshake was seen; else the first sender.
    const auto client = clc_clients.find(pair);
    auto link = std::make_unique<Link>(*this, client == clc_clients.end() ? src : client->second);
    if (const auto known = clc_links.find(pair); known != clc_links.end())
      for (const ClcLink& l : known->second) link->add(l);
    link->pair = pair;
    return *links.emplace(pair, std::move(link)).first->second;
  }

  // A link group's further links (RFC 7609 §3.5.1.6.1), routed to the
  // group's observer as `rdmaconf analyze` routes them (link_groups.hpp).
  Routes aliases;
};

State& state() { return per_capture<State>(); }

void Link::on_message(const analysis::Message& m) {
  const auto frame = static_cast<std::uint32_t>(m.frame);
  RoceFrame& f = state_.frames[frame];
  f.side = m.side;
  if (!m.roce) return;
  const analysis::RoceInfo& info = *m.roce;
  f.retransmission = info.retransmission;
  f.link_number = info.link_number;
  f.link_state = check::name(info.link_state);
  if (info.smcr) {
    f.smcr = true;
    if (const auto* l = std::get_if<smcr::LlcMessage>(info.smcr)) {
      f.llc = true;
      f.exact = l->surplus == 0;
    } else {
      const auto& c = std::get<smcr::CdcMessage>(*info.smcr);
      f.exact = c.surplus == 0;
      // The token is the receiver's; the latest CLC exchange that used it counts.
      const int s = static_cast<int>(m.side);
      for (const auto& k : rmbes)
        if (k[static_cast<std::size_t>(1 - s)].alert_token == c.alert_token()) {
          f.receiver_rmbe = k[static_cast<std::size_t>(1 - s)].rmbe_size;
          f.sender_rmbe = k[static_cast<std::size_t>(s)].rmbe_size;
        }
    }
  } else if (info.error && info.packet && info.packet->opcode() == smcr::opcode::kSendOnly) {
    f.note = "RC Send Only that is not SMC-R: " + info.error->to_string();
  }
}

void Link::on_violation(const analysis::Violation& v) {
  state_.frames[static_cast<std::uint32_t>(v.frame)].violations.push_back(
      {v.rule, v.side, v.stream_offset, v.text, v.hint, v.hint_mistake});
}

// The UDP payload (BTH first) around the payload the infiniband dissector
// offers: the BTH and extended headers lie before it (their sizes by the
// opcode, IBTA vol. 1 §9.2-9.3), the UDP header before them. Checked against
// the UDP port and the opcode octet; nullopt when the octets are not there.
struct Located {
  tvbuff_t* udp;   // BTH to the end of the UDP payload (pad and ICRC included)
  int payload_at;  // where the offered payload starts in it
};
std::optional<Located> locate(tvbuff_t* payload, const infinibandinfo& ib) {
  const smcr::OpcodeInfo* op = smcr::find_opcode(ib.opCode);
  if (!op) return std::nullopt;
  tvbuff_t* ds = tvb_get_ds_tvb(payload);
  if (!ds) return std::nullopt;
  using UF = capture::UdpSpec::Field;
  constexpr int kUdp = static_cast<int>(capture::UdpSpec::decl.size_octets);
  constexpr int kBth = static_cast<int>(smcr::BthSpec::decl.size_octets);
  const int at = tvb_raw_offset(payload) - tvb_raw_offset(ds);
  const int ext = (op->reth ? static_cast<int>(smcr::RethSpec::decl.size_octets) : 0) +
                  (op->aeth ? static_cast<int>(smcr::AethSpec::decl.size_octets) : 0) + op->other_octets;
  const int bth = at - ext - kBth;
  const int udp = bth - kUdp;
  if (udp < 0 || tvb_captured_length_remaining(ds, udp) < kUdp + kBth) return std::nullopt;
  const auto port = read_field<capture::UdpHeader>(ds, udp, UF::DestinationPort);
  const auto opcode = read_field<smcr::Bth>(ds, bth, smcr::BthSpec::Field::OpCode);
  if (port != smcr::kRoceV2UdpPort || opcode != ib.opCode) return std::nullopt;
  const int udp_length = static_cast<int>(read_field<capture::UdpHeader>(ds, udp, UF::Length).value_or(0));
  if (udp_length < kUdp + kBth + ext) return std::nullopt;
  const int length = std::min(udp_length - kUdp, tvb_captured_length_remaining(ds, bth));
  return Located{tvb_new_subset_length(ds, bth, length), at - bth};
}

const wire::HeaderDecl& entry_decl(smcr::LlcEntries e) {
  switch (e) {
    case smcr::LlcEntries::kAddLinkV2RTokens: return smcr::RkeyPairSpec::decl;
    case smcr::LlcEntries::kReqAddLinkV2Gids: return smcr::GidEntrySpec::decl;
    case smcr::LlcEntries::kDeleteRkeyV2Rkeys:
    case smcr::LlcEntries::kNone: break;
  }
  return smcr::RkeySpec::decl;
}

proto_tree* show_llc(tvbuff_t* tvb, proto_tree* tree, const smcr::LlcMessage& l, const RoceFrame& f) {
  const Ids& i = ids();
  proto_item* ti = proto_tree_add_item(tree, i.proto_smcr_llc, tvb, 0, static_cast<int>(l.octets.size()), ENC_NA);
  proto_item_append_text(ti, ", %s", smcr::message_name(l).c_str());
  proto_tree* t = proto_item_add_subtree(ti, i.ett_smcr_llc);
  const wire::HeaderDecl& header = l.version == 2 ? smcr::LlcHeaderV2Spec::decl : smcr::LlcHeaderV1Spec::decl;
  proto_tree* hdr = add_header(t, tvb, 0, header);
  add_overlay(hdr, tvb, 0, l.info->flags);
  add_header(t, tvb, static_cast<int>(header.size_octets), *l.info->body);
  std::size_t at = header.size_octets + l.info->body->size_octets;
  if (l.add_link_ext) {
    add_header(t, tvb, static_cast<int>(at), smcr::AddLinkV2ExtSpec::decl);
    at += smcr::AddLinkV2Ext::kSize;
  }
  const wire::HeaderDecl& entry = entry_decl(l.info->entries);
  for (std::size_t k = 0; k < l.entry_count; ++k) {
    proto_tree* e = add_header(t, tvb, static_cast<int>(at + k * entry.size_octets), entry);
    proto_item_set_generated(proto_tree_add_uint(e, i.llc_entry, tvb, 0, 0, static_cast<guint32>(k + 1)));
  }
  if (f.request_in) proto_item_set_generated(proto_tree_add_uint(t, i.llc_request_in, tvb, 0, 0, f.request_in));
  if (f.response_in) proto_item_set_generated(proto_tree_add_uint(t, i.llc_response_in, tvb, 0, 0, f.response_in));
  return t;
}

proto_tree* show_cdc(tvbuff_t* tvb, proto_tree* tree, const smcr::CdcMessage& c, const RoceFrame& f) {
  const Ids& i = ids();
  proto_item* ti = proto_tree_add_item(tree, i.proto_smcr_cdc, tvb, 0, static_cast<int>(smcr::kCdcMessageSize), ENC_NA);
  proto_tree* t = proto_item_add_subtree(ti, i.ett_smcr_cdc);
  add_header(t, tvb, 0, smcr::CdcSpec::decl);
  // The cursors as wrap:count (App. A.4), and the RMBE each must stay inside.
  const smcr::Cursor prod = c.producer(), cons = c.consumer();
  const auto text = [](smcr::Cursor k) { return std::to_string(k.wrap) + ":" + std::to_string(k.count); };
  proto_item_set_generated(proto_tree_add_string(t, i.cdc_producer, tvb, 0, 0, text(prod).c_str()));
  proto_item_set_generated(proto_tree_add_string(t, i.cdc_consumer, tvb, 0, 0, text(cons).c_str()));
  if (f.receiver_rmbe)
    proto_item_set_generated(proto_tree_add_uint64(t, i.cdc_receiver_rmbe, tvb, 0, 0, f.receiver_rmbe));
  if (f.sender_rmbe) proto_item_set_generated(proto_tree_add_uint64(t, i.cdc_sender_rmbe, tvb, 0, 0, f.sender_rmbe));
  return t;
}

// One claimed frame, shown: its transport headers, its LLC or CDC message,
// the observer's violations under it.
void show(tvbuff_t* payload, const Located& loc, packet_info* pinfo, proto_tree* tree, const RoceFrame& f) {
  const Ids& i = ids();
  const int n = static_cast<int>(tvb_captured_length(loc.udp));
  const wire::Bytes udp(tvb_get_ptr(loc.udp, 0, n), static_cast<std::size_t>(n));
  const auto p = smcr::decode_roce(udp);
  col_set_str(pinfo->cinfo, COL_PROTOCOL, "rdmaconf SMC-R");
  col_clear(pinfo->cinfo, COL_INFO);

  proto_item* ri = proto_tree_add_item(tree, i.proto_roce, loc.udp, 0, loc.payload_at, ENC_NA);
  proto_tree* rt = proto_item_add_subtree(ri, i.ett_roce);
  int at = 0;
  add_header(rt, loc.udp, at, smcr::BthSpec::decl);
  at += static_cast<int>(smcr::BthSpec::decl.size_octets);
  if (p && p->reth) {
    add_header(rt, loc.udp, at, smcr::RethSpec::decl);
    at += static_cast<int>(smcr::RethSpec::decl.size_octets);
  }
  if (p && p->aeth) add_header(rt, loc.udp, at, smcr::AethSpec::decl);
  proto_item_set_generated(proto_tree_add_uint(rt, i.roce_link_number, loc.udp, 0, 0, f.link_number));
  if (!f.link_state.empty())
    proto_item_set_generated(
        proto_tree_add_string(rt, i.roce_link_state, loc.udp, 0, 0, std::string(f.link_state).c_str()));
  if (f.rkey_announced) {
    proto_item_set_generated(proto_tree_add_string(rt, i.roce_rkey_announced_by, loc.udp, 0, 0,
                                                   std::string(f.rkey_announced_by).c_str()));
    if (f.rkey_announced_in)
      proto_item_set_generated(proto_tree_add_uint(rt, i.roce_rkey_announced_in, loc.udp, 0, 0, f.rkey_announced_in));
  }
  if (f.retransmission)
    proto_item_set_generated(proto_tree_add_boolean(rt, i.roce_retransmission, loc.udp, 0, 0, TRUE));
  if (!f.note.empty())
    proto_item_set_generated(proto_tree_add_string(rt, i.roce_note, loc.udp, 0, 0, f.note.c_str()));

  int proto = i.proto_roce;
  proto_tree* where = rt;
  tvbuff_t* where_tvb = loc.udp;
  std::string info = p ? smcr::opcode_name(p->opcode()) : std::string("RoCEv2");
  if (f.smcr && p) {
    const auto m = smcr::decode_send(p->payload);
    if (m) {
      info = std::holds_alternative<smcr::LlcMessage>(*m) ? smcr::message_name(*m) + ": " + smcr::summarize(*m)
                                                           : smcr::summarize(*m);
      if (const auto* l = std::get_if<smcr::LlcMessage>(&*m)) {
        where = show_llc(payload, tree, *l, f);
        proto = i.proto_smcr_llc;
      } else {
        where = show_cdc(payload, tree, std::get<smcr::CdcMessage>(*m), f);
        proto = i.proto_smcr_cdc;
      }
      where_tvb = payload;
    }
  } else if (p && p->info && p->info->rdma_write) {
    info += " (RMB data)";
  }
  col_add_str(pinfo->cinfo, COL_INFO, (info + (f.retransmission ? " [retransmission]" : "")).c_str());
  for (const ViolationRecord& v : f.violations)
    report(proto, pinfo, where, where_tvb, 0, -1, *v.rule, v.text, v.hint, v.mistake);
}

gboolean heuristic(tvbuff_t* tvb, packet_info* pinfo, proto_tree* tree, void* data) {
  const auto* ib = static_cast<const infinibandinfo*>(data);
  if (!ib) return FALSE;
  const std::optional<Located> loc = locate(tvb, *ib);
  if (!loc) return FALSE;
  State& s = state();
  if (!PINFO_FD_VISITED(pinfo) && !s.frames.contains(pinfo->num)) {
    const std::optional<Ip> src = ip_of(pinfo->net_src), dst = ip_of(pinfo->net_dst);
    if (!src || !dst) return FALSE;
    const Routes::Route* alias = s.aliases.find(ordered(*src, *dst));
    Link& link = alias ? *alias->group : s.link_for(*src, *dst);
    const Ip& initiator = alias ? alias->initiator : link.initiator;
    const Side side = *src == initiator ? Side::kInitiator : Side::kResponder;
    const int n = static_cast<int>(tvb_captured_length(loc->udp));
    link.observer.on_packet(side, pinfo->num, wire::Bytes(tvb_get_ptr(loc->udp, 0, n), static_cast<std::size_t>(n)), *dst);
    if (!link.observer.added_links().empty()) s.aliases.add(link, link.pair, link.observer.added_links(), gid_address);
    RoceFrame& f = s.frames[pinfo->num];
    // What the observer learnt after the message: the request this reply
    // answered on its link, the announcement of a Write's rkey.
    const analysis::RoceObserver::PacketNotes& notes = link.observer.notes();
    if (notes.request_in) {
      f.request_in = static_cast<std::uint32_t>(notes.request_in);
      s.frames[f.request_in].response_in = pinfo->num;
    }
    f.rkey_announced = notes.rkey_announced;
    f.rkey_announced_in = static_cast<std::uint32_t>(notes.rkey_announced_in);
    f.rkey_announced_by = notes.rkey_announced_by;
    f.claimed = f.smcr ? (link.from_clc || f.exact) : (link.from_clc || !f.violations.empty());
  }
  const auto it = s.frames.find(pinfo->num);
  if (it == s.frames.end() || !it->second.claimed) return FALSE;
  show(tvb, *loc, pinfo, tree, it->second);
  return TRUE;
}

}  // namespace

void note_smcr_link(const address* client, const address* server, const analysis::ClcRmbe& client_rmbe,
                    const analysis::ClcRmbe& server_rmbe) {
  // RoCEv2: a GID is its port's IP address (IPv4 mapped into IPv6); the TCP
  // peers' addresses when a GID is all zero.
  const auto gid_or = [](const std::array<std::uint8_t, 16>& gid, const address* tcp) -> std::optional<Ip> {
    if (std::any_of(gid.begin(), gid.end(), [](std::uint8_t o) { return o != 0; })) return gid;
    return ip_of(*tcp);
  };
  const std::optional<Ip> a = gid_or(client_rmbe.gid, client), b = gid_or(server_rmbe.gid, server);
  if (!a || !b) return;
  State& s = state();
  const IpPair pair = ordered(*a, *b);
  const ClcLink l{*a, client_rmbe, server_rmbe};
  s.clc_links[pair].push_back(l);
  s.clc_clients.try_emplace(pair, *a);
  if (const auto it = s.links.find(pair); it != s.links.end()) it->second->add(l);
}

void register_smcr(void) {
  Ids& i = ids();
  static hf_register_info roce[] = {
      {&i.roce_retransmission,
       {"Retransmission", "rdmaconf.roce.retransmission", FT_BOOLEAN, BASE_NONE, nullptr, 0x0,
        "The same request PSN was seen before on this QP (IBTA vol. 1 §9.7.1): shown, not judged again", HFILL}},
      {&i.roce_note,
       {"Note", "rdmaconf.roce.note", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Why a Send on an SMC-R link is not shown as LLC or CDC", HFILL}},
      {&i.roce_link_number,
       {"Link number", "rdmaconf.roce.link_number", FT_UINT8, BASE_DEC, nullptr, 0x0,
        "The SMC-R link the packet flows on (its destination QP names it), as CONFIRM LINK or ADD LINK numbered it; "
        "0 before (RFC 7609 §3.5.1.5)",
        HFILL}},
      {&i.roce_link_state,
       {"Link state", "rdmaconf.roce.link_state", FT_STRING, BASE_NONE, nullptr, 0x0,
        "That link's state before this packet: adding, confirming, up, deleting, deleted, or unknown when the "
        "capture joined it mid-life (RFC 7609 §3.5.1.5, §3.5.1.6, §3.5.5.1)",
        HFILL}},
      {&i.roce_rkey_announced_by,
       {"Rkey announced by", "rdmaconf.roce.rkey_announced_by", FT_STRING, BASE_NONE, nullptr, 0x0,
        "How the RMB's owner announced the rkey this RDMA Write uses for its link: CLC, CONFIRM RKEY, ADD LINK "
        "RTokens (RFC 7609 §3.5.5.2)",
        HFILL}},
      {&i.roce_rkey_announced_in,
       {"Rkey announced in", "rdmaconf.roce.rkey_announced_in", FT_FRAMENUM, BASE_NONE, nullptr, 0x0,
        "The LLC message that announced this RDMA Write's rkey for its link", HFILL}},
  };
  proto_register_field_array(i.proto_roce, roce, static_cast<int>(G_N_ELEMENTS(roce)));
  static hf_register_info llc[] = {
      {&i.llc_request_in,
       {"Reply to the request in", "rdmaconf.smcr.llc.request_in", FT_FRAMENUM, BASE_NONE,
        FRAMENUM_TYPE(FT_FRAMENUM_REQUEST), 0x0, "The peer's open request of this type this reply answers (RFC 7609 §3.5)",
        HFILL}},
      {&i.llc_response_in,
       {"Reply in", "rdmaconf.smcr.llc.response_in", FT_FRAMENUM, BASE_NONE, FRAMENUM_TYPE(FT_FRAMENUM_RESPONSE), 0x0,
        "The peer's reply to this request", HFILL}},
      {&i.llc_entry,
       {"Entry", "rdmaconf.smcr.llc.entry", FT_UINT32, BASE_DEC, nullptr, 0x0,
        "Which entry of a v2 message's variable part (RTokens, GIDs, RKeys)", HFILL}},
  };
  proto_register_field_array(i.proto_smcr_llc, llc, static_cast<int>(G_N_ELEMENTS(llc)));
  static hf_register_info cdc[] = {
      {&i.cdc_producer,
       {"Producer cursor", "rdmaconf.smcr.cdc.producer", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Wrap count and offset of the next octet this side writes into the peer's RMBE (RFC 7609 App. A.4)", HFILL}},
      {&i.cdc_consumer,
       {"Consumer cursor", "rdmaconf.smcr.cdc.consumer", FT_STRING, BASE_NONE, nullptr, 0x0,
        "Wrap count and offset of the next octet this side reads from its own RMBE (RFC 7609 App. A.4)", HFILL}},
      {&i.cdc_receiver_rmbe,
       {"Receiver's RMBE size (CLC)", "rdmaconf.smcr.cdc.receiver_rmbe_size", FT_UINT64, BASE_DEC, nullptr, 0x0,
        "The RMBE the receiver announced in its CLC Accept or Confirm: the producer cursor stays inside it", HFILL}},
      {&i.cdc_sender_rmbe,
       {"Sender's RMBE size (CLC)", "rdmaconf.smcr.cdc.sender_rmbe_size", FT_UINT64, BASE_DEC, nullptr, 0x0,
        "The RMBE the sender announced in its CLC Accept or Confirm: the consumer cursor stays inside it", HFILL}},
  };
  proto_register_field_array(i.proto_smcr_cdc, cdc, static_cast<int>(G_N_ELEMENTS(cdc)));
  register_cleanup_routine(reset_per_capture<State>);
}

void handoff_smcr(void) {
  heur_dissector_add("infiniband.payload", heuristic, "rdmaconf SMC-R LLC and CDC over RoCEv2", "rdmaconf_smcr",
                     ids().proto_smcr_llc, HEURISTIC_ENABLE);
}

}  // namespace rdmaconf::dissector
