#include "analysis/analyzer.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "analysis/hex.hpp"
#include "analysis/parallel.hpp"
#include "analysis/udp_sctp.hpp"
#include "capture/source.hpp"
#include "capture/writer.hpp"
#include "check/smc_tcp.hpp"

namespace rdmaconf::analysis {

std::string ConnectionInfo::stream(Side from) const {
  if (from == Side::kInitiator) return initiator_to_responder.to_string();
  if (datagram) return responder_to_initiator.to_string();
  return capture::StreamKey{initiator_to_responder.destination, initiator_to_responder.source}.to_string();
}

// One connection: its observer and the sink that forwards what it says.
struct Analyzer::Connection : ObserverSink {
  Connection(Analyzer& a, ConnectionInfo i, const ObserverConfig& config)
      : analyzer(a), info(std::move(i)), observer(*this, config) {}

  void on_message(const Message& m) override {
    if (m.kind == MessageKind::kMpaRequest || m.kind == MessageKind::kMpaReply) ++analyzer.result_.summary.mpa_frames;
    if (m.kind == MessageKind::kClc) note_token(*m.clc, m.frame);
    if (analyzer.listener_) analyzer.listener_->on_message(info, m);
  }
  // RFC 7609 App. A.2.3/A.2.4: the server's Accept and the client's Confirm
  // each announce the sender's end of the connection (QP, GID, RMB, RMBE
  // alert token and size); CDC messages and RDMA Writes on RoCE use them.
  void note_token(const clc::Message& msg, FrameNo frame) {
    const auto* ac = std::get_if<clc::AcceptConfirm>(&msg);
    if (!ac || !ac->smcr) return;
    ClcRmbe r = ClcRmbe::from(*ac->smcr);
    r.frame = frame;
    if (ac->type() == clc::MessageType::kAccept) server = r;
    else client = r;
    if (!server || !client || link_noted) return;
    link_noted = true;
    // The RoCE peers are the GIDs' addresses (RoCEv2: a GID is the port's IP
    // address, IPv4 ones mapped into IPv6); the TCP peers when a GID is not one.
    const capture::StreamKey& k = info.initiator_to_responder;
    const capture::IpAddress a = gid_address(client->gid).value_or(k.source.address);
    const capture::IpAddress b = gid_address(server->gid).value_or(k.destination.address);
    link_pair = a < b ? IpPair{a, b} : IpPair{b, a};
    client_address = a;
    analyzer.add_clc_link(link_pair, {a, *client, *server});
  }
  static std::optional<capture::IpAddress> gid_address(const std::array<std::uint8_t, 16>& gid) {
    static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    if (std::equal(gid.begin(), gid.begin() + 12, kMapped)) return capture::ipv4(gid[12], gid[13], gid[14], gid[15]);
    if (std::all_of(gid.begin(), gid.end(), [](std::uint8_t o) { return o == 0; })) return std::nullopt;
    return capture::ipv6(gid);
  }
  // The other way: a RoCEv2 packet's address as its GID (IPv4 mapped).
  static std::array<std::uint8_t, 16> address_gid(const capture::IpAddress& a) {
    if (a.version != capture::IpVersion::kV4) return a.octets;
    std::array<std::uint8_t, 16> gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    std::copy(a.octets.begin(), a.octets.begin() + 4, gid.begin() + 12);
    return gid;
  }
  void on_violation(const Violation& v) override { analyzer.record(info, v); }
  void on_event(const Event& e) override {
    if (analyzer.listener_) analyzer.listener_->on_event(info, e);
  }

  Analyzer& analyzer;
  ConnectionInfo info;
  ConnectionObserver observer;
  int streams_open = 0;
  bool clc_recorded = false;
  std::optional<ClcRmbe> client, server;
  bool link_noted = false;
  IpPair link_pair;                  // the link group's RoCE peers (once link_noted)
  capture::IpAddress client_address;  // the CLC client's among them
};

// One pair of RoCE peers: its RoCEv2 observer and the sink that forwards what it says.
struct Analyzer::RoceLink : ObserverSink {
  RoceLink(Analyzer& a, ConnectionInfo i) : analyzer(a), info(std::move(i)), observer(*this) {}
  // What the observer says about a packet is shown under the addresses the
  // packet flowed between: the group's own pair, or a further link's.
  void on_message(const Message& m) override {
    if (analyzer.listener_) analyzer.listener_->on_message(*current, m);
  }
  void on_violation(const Violation& v) override { analyzer.record(*current, v); }
  Analyzer& analyzer;
  ConnectionInfo info;
  RoceObserver observer;
  capture::IpAddress initiator;
  bool responder_seen = false;
  IpPair pair;                  // its own addresses, lower first
  std::map<IpPair, ConnectionInfo> alias_info;  // theirs: the group's id, their own keys
  const ConnectionInfo* current = &info;        // the packet being observed
};

// One SCTP association: its observer and the sink that forwards what it says.
struct Analyzer::Association : ObserverSink {
  Association(Analyzer& a, ConnectionInfo i, const ObserverConfig& config)
      : analyzer(a), info(std::move(i)), observer(*this, config) {}
  void on_message(const Message& m) override {
    if (analyzer.listener_) analyzer.listener_->on_message(info, m);
  }
  void on_violation(const Violation& v) override { analyzer.record(info, v); }
  void on_event(const Event& e) override {
    if (analyzer.listener_) analyzer.listener_->on_event(info, e);
  }
  Analyzer& analyzer;
  ConnectionInfo info;
  SctpObserver observer;
  bool over_udp = false;
  FrameNo last_frame = 0;
};

namespace {
// SCTP associations followed at once (Analyzer::on_sctp_packet).
constexpr std::size_t kMaxSctpAssociations = 1024;
}  // namespace

// Every observer's violations, TCP or RoCE, are counted and kept the same way.
void Analyzer::record(const ConnectionInfo& info, const Violation& v) {
  AnalysisSummary& s = result_.summary;
  ++s.violations;
  if (v.rule->level == Level::kMust) ++s.must_violations;
  ++s.violations_per_rule[std::string(v.rule->id)];
  const std::size_t keep = options_.max_violations_kept;
  if (result_.violations.size() < keep || (by_sequence_ && keep > 0)) {
    result_.violations.push_back({v.rule, v.frame, info.id, info.stream(v.side), v.side, v.stream_offset, v.text,
                                  std::string(v.hint_mistake), v.hint, {}, sequence_});
    if (by_sequence_ && result_.violations.size() >= 2 * keep) trim_by_sequence();
  }
  if (listener_) listener_->on_violation(info, v);
}

void Analyzer::trim_by_sequence() {
  auto& v = result_.violations;
  std::stable_sort(v.begin(), v.end(),
                   [](const ViolationRecord& a, const ViolationRecord& b) { return a.sequence < b.sequence; });
  if (v.size() > options_.max_violations_kept) v.resize(options_.max_violations_kept);
}

Analyzer::Analyzer(const AnalysisOptions& options, AnalysisListener* listener)
    : options_(options), listener_(listener) {}
Analyzer::~Analyzer() = default;

Analyzer::Connection& Analyzer::connection_for(capture::Stream& s) {
  auto it = connections_.find(s.connection_id());
  if (it != connections_.end()) return *it->second;
  ConnectionInfo info;
  info.id = new_id();
  info.initiator_to_responder =
      s.from_initiator() ? s.key() : capture::StreamKey{s.key().destination, s.key().source};
  ++result_.summary.streams;
  ObserverConfig config = options_.observer;
  for (const UlpChoice& u : options_.ulps)
    if (!u.port || *u.port == info.initiator_to_responder.destination.port) config.ulp = u.ulp;
  auto c = std::make_unique<Connection>(*this, std::move(info), config);
  Connection& ref = *c;
  connections_.emplace(s.connection_id(), std::move(c));
  return ref;
}

namespace {
Side side_of(const capture::Stream& s) { return s.from_initiator() ? Side::kInitiator : Side::kResponder; }
}  // namespace

void Analyzer::on_stream_start(capture::Stream& s) {
  Connection& c = connection_for(s);
  ++c.streams_open;
  if (s.syn_seen()) {
    c.observer.on_syn(side_of(s), s.syn_options().smc, s.syn_options().mss);
    c.observer.on_syn_options(side_of(s), s.start_frame().value, s.syn_options().experimental);
  } else c.observer.on_mid_stream(side_of(s));
}

void Analyzer::on_data(capture::Stream& s, const capture::StreamData& d) {
  result_.summary.octets += d.bytes.size();
  Connection& c = connection_for(s);
  // A whole segment as its sender cut it: MPA's segmentation rules judge it.
  if (d.whole_segment) c.observer.on_segment(side_of(s), d.frame.value, d.bytes);
  else c.observer.on_data(side_of(s), d.frame.value, d.bytes);
  if (!c.clc_recorded && c.observer.protocol() == Protocol::kClc) {
    // RFC 7609 §3.5: the CLC client (the TCP initiator) is the client of the link group.
    c.clc_recorded = true;
    const capture::StreamKey& k = c.info.initiator_to_responder;
    const capture::IpAddress& a = k.source.address;
    const capture::IpAddress& b = k.destination.address;
    clc_clients_[a < b ? IpPair{a, b} : IpPair{b, a}] = a;
  }
}

void Analyzer::add_clc_link(const IpPair& pair, const ClcLink& l) {
  clc_links_[pair].push_back(l);
  // The GIDs may name other addresses than the TCP connection's: the CLC
  // client is the RoCE link's initiator there too.
  clc_clients_.try_emplace(pair, l.client);
  if (auto it = roce_links_.find(pair); it != roce_links_.end()) {
    RoceLink& r = *it->second;
    const bool client_initiates = r.initiator == l.client;
    r.observer.add_connection(client_initiates ? l.client_rmbe : l.server_rmbe,
                              client_initiates ? l.server_rmbe : l.client_rmbe);
  }
}

bool sctp_over_udp(const capture::UdpDatagram& d) {
  return udp_carries_sctp(d.key.source.port, d.key.destination.port, d.payload);
}

bool Analyzer::on_sctp(const capture::SctpPacket& p) {
  on_sctp_packet(p.key.source.address, p.key.destination.address, std::nullopt, p.frame.value, p.packet);
  return true;
}

void Analyzer::on_sctp_packet(const capture::IpAddress& src, const capture::IpAddress& dst,
                              std::optional<std::uint16_t> udp_port, FrameNo frame, wire::Bytes packet) {
  // The association's ends are the addresses and SCTP ports (RFC 9260 §3.1);
  // a packet too short for them still counts against its addresses.
  auto h = sctp::decode_packet_header(packet);
  const capture::Endpoint from{src, h ? h->source_port : std::uint16_t{0}};
  const capture::Endpoint to{dst, h ? h->destination_port : std::uint16_t{0}};
  const EndpointPair pair = from < to ? EndpointPair{from, to} : EndpointPair{to, from};
  auto it = associations_.find(pair);
  // A new association on a finished one's ports: the old one is retired
  // (its counts kept), the INIT's sender is the new one's initiator.
  if (it != associations_.end() && it->second->observer.begins_new_association(packet)) {
    retire(*it->second);
    associations_.erase(it);
    it = associations_.end();
  }
  if (it == associations_.end()) {
    // Bounded like the reassembler's connections: past the limit, the
    // association seen least recently is retired (its counts kept) and said.
    if (associations_.size() >= kMaxSctpAssociations) {
      auto oldest = std::min_element(associations_.begin(), associations_.end(), [](const auto& x, const auto& y) {
        return x.second->last_frame < y.second->last_frame;
      });
      capture::Report r;
      r.kind = capture::ReportKind::kConnectionLimit;
      r.frame = capture::FrameNumber{frame};
      r.has_stream = true;
      r.stream = oldest->second->info.initiator_to_responder;
      on_report(r);
      retire(*oldest->second);
      associations_.erase(oldest);
    }
    ConnectionInfo info;
    info.id = new_id();
    // The side whose packet comes first is the initiator: an INIT's sender
    // when the capture holds the association's start (RFC 9260 §5.1).
    info.initiator_to_responder = capture::StreamKey{from, to};
    ++result_.summary.sctp_associations;
    auto a = std::make_unique<Association>(*this, std::move(info), options_.observer);
    a->over_udp = udp_port.has_value();
    it = associations_.emplace(pair, std::move(a)).first;
  }
  Association& a = *it->second;
  a.last_frame = frame;
  const Side side = a.info.initiator_to_responder.source == from ? Side::kInitiator : Side::kResponder;
  a.observer.on_packet(side, frame, packet);
}

bool Analyzer::on_udp(const capture::UdpDatagram& d) {
  if (d.key.destination.port != smcr::kRoceV2UdpPort) {
    if (!sctp_over_udp(d)) return false;
    on_sctp_packet(d.key.source.address, d.key.destination.address, d.key.source.port, d.frame.value, d.payload);
    return true;
  }
  const capture::IpAddress& src = d.key.source.address;
  const capture::IpAddress& dst = d.key.destination.address;
  if (last_roce_ && ((src == last_roce_src_ && dst == last_roce_dst_) || (src == last_roce_dst_ && dst == last_roce_src_))) {
    on_roce(*last_roce_, last_roce_initiator_, d);
    return true;
  }
  const IpPair pair = src < dst ? IpPair{src, dst} : IpPair{dst, src};
  // A further link of a group (its ADD LINK came first): the group's observer.
  if (const auto* a = roce_aliases_.find(pair)) {
    last_roce_ = a->group;
    last_roce_initiator_ = a->initiator;
  } else {
    auto it = roce_links_.find(pair);
    if (it == roce_links_.end()) {
      ConnectionInfo info;
      info.id = new_id();
      info.datagram = true;
      // The CLC client is the initiator when its handshake was seen; else the first sender.
      auto client = clc_clients_.find(pair);
      const bool src_initiates = client == clc_clients_.end() || client->second == src;
      info.initiator_to_responder = src_initiates ? d.key : capture::StreamKey{{dst, 0}, {src, smcr::kRoceV2UdpPort}};
      info.responder_to_initiator = src_initiates ? capture::StreamKey{{dst, 0}, {src, smcr::kRoceV2UdpPort}} : d.key;
      auto link = std::make_unique<RoceLink>(*this, std::move(info));
      link->initiator = src_initiates ? src : dst;
      link->pair = pair;
      for (const ClcLink& l : clc_links_[pair]) {
        const bool client_initiates = link->initiator == l.client;
        link->observer.add_connection(client_initiates ? l.client_rmbe : l.server_rmbe,
                                      client_initiates ? l.server_rmbe : l.client_rmbe);
      }
      it = roce_links_.emplace(pair, std::move(link)).first;
    }
    last_roce_ = it->second.get();
    last_roce_initiator_ = last_roce_->initiator;
  }
  last_roce_src_ = src;
  last_roce_dst_ = dst;
  on_roce(*last_roce_, last_roce_initiator_, d);
  return true;
}

void Analyzer::on_roce(RoceLink& l, const capture::IpAddress& initiator, const capture::UdpDatagram& d) {
  const Side side = d.key.source.address == initiator ? Side::kInitiator : Side::kResponder;
  // Each side's own ports, as its latest datagram on that address pair
  // shows them: the group's own pair, or a further link's (its own info,
  // the group's connection id).
  const capture::IpAddress& src = d.key.source.address;
  const capture::IpAddress& dst = d.key.destination.address;
  const IpPair pair = src < dst ? IpPair{src, dst} : IpPair{dst, src};
  ConnectionInfo* info = &l.info;
  if (pair != l.pair) {
    auto [it, fresh] = l.alias_info.try_emplace(pair, l.info);
    info = &it->second;
    if (fresh) {
      // Until the other side sends, its key is this one reversed.
      const capture::StreamKey reverse{{dst, 0}, {src, smcr::kRoceV2UdpPort}};
      info->initiator_to_responder = side == Side::kInitiator ? d.key : reverse;
      info->responder_to_initiator = side == Side::kInitiator ? reverse : d.key;
    }
  }
  (side == Side::kInitiator ? info->initiator_to_responder : info->responder_to_initiator) = d.key;
  l.current = info;
  l.observer.on_packet(side, d.frame.value, d.payload, Connection::address_gid(dst));
  // RFC 7609 §3.5.1.6.1: the accepted ADD LINK gave both ends of the new
  // link; its CONFIRM LINK and data flow between the GIDs' addresses.
  if (!l.observer.added_links().empty() &&
      roce_aliases_.add(l, l.pair, l.observer.added_links(), &Connection::gid_address))
    last_roce_ = nullptr;  // the pair may be the cached one
}

void Analyzer::on_conflict(capture::Stream& s, const capture::StreamConflict& c) {
  ConnectionObserver::Retransmission r;
  r.stream_offset = c.offset;
  r.sequence_number = c.sequence.value;
  r.first_sent = c.first;
  r.resent = c.again;
  r.first_frame = c.first_frame.value;
  connection_for(s).observer.on_conflicting_retransmission(side_of(s), c.frame.value, r);
}

void Analyzer::on_gap(capture::Stream& s, const capture::StreamGap& g) {
  connection_for(s).observer.on_gap(side_of(s), g.length, g.frame.value);
}

void Analyzer::on_stream_end(capture::Stream& s, capture::StreamEnd why) {
  auto it = connections_.find(s.connection_id());
  if (it == connections_.end()) return;
  Connection& c = *it->second;
  if (why == capture::StreamEnd::kFin) judge_fin(c, side_of(s), s.end_frame().value, s.next_offset());
  c.observer.on_end(side_of(s));
  if (--c.streams_open <= 0) {
    retire(c);
    connections_.erase(it);
  }
}

// RFC 7609 §4.8.1: a side's FIN on a connection that moved to SMC-R comes
// after it ended its writing on the SMC-R connection (PeerDoneWriting,
// PeerConnectionClosed or PeerConnAbort). The TCP connection is tied
// to its SMC-R connection by the alert tokens its Accept and Confirm
// announced, and to the link group by their GIDs' addresses, as the CDC
// messages were routed; the frames come in capture order, so the CDC
// messages sent before the FIN are the ones the link group's observer saw.
void Analyzer::judge_fin(Connection& c, Side side, FrameNo frame, std::uint64_t offset) {
  if (!c.link_noted) return;
  const auto it = roce_links_.find(c.link_pair);
  if (it == roce_links_.end()) return;  // the capture holds none of the link group's packets
  const RoceLink& l = *it->second;
  // The CLC client (the TCP initiator) is the RoCE link's initiator unless
  // the link's first packets said otherwise.
  const bool client_initiates = l.initiator == c.client_address;
  const std::uint32_t initiator_token = client_initiates ? c.client->alert_token : c.server->alert_token;
  const std::uint32_t responder_token = client_initiates ? c.server->alert_token : c.client->alert_token;
  const Side roce_side = (side == Side::kInitiator) == client_initiates ? Side::kInitiator : Side::kResponder;
  const auto done = l.observer.done_writing(initiator_token, responder_token, roce_side);
  if (!done) return;
  if (auto v = check::fin_after_smc_close(*done)) {
    Violation out;
    out.rule = v->rule;
    out.side = side;
    out.frame = frame;
    out.stream_offset = offset;
    out.text = "FIN before this side's PeerDoneWriting, PeerConnectionClosed or PeerConnAbort on its SMC-R connection "
               "(alert tokens " +
               hex(c.client->alert_token) + " client, " + hex(c.server->alert_token) + " server)";
    c.on_violation(out);
  }
}

void Analyzer::on_report(const capture::Report& r) {
  ++result_.summary.capture_reports;
  ++result_.summary.report_kinds[std::string(capture::report_kind_name(r.kind))];
  if (r.kind == capture::ReportKind::kKernelDrop) result_.summary.kernel_drops += r.value;
  if (listener_) listener_->on_report(r);
}

// The ULP transfers of one connection (or one capture's totals) added to a
// total: one place for both sums.
static void add_transfers(UlpTransfers& to, const UlpTransfers& y) {
  to.reads += y.reads, to.read_octets += y.read_octets, to.reads_tied += y.reads_tied;
  to.writes += y.writes, to.write_octets += y.write_octets, to.writes_tied += y.writes_tied;
  to.writes_to_write_chunks += y.writes_to_write_chunks, to.writes_to_reply_chunks += y.writes_to_reply_chunks;
  to.invalidations += y.invalidations, to.invalidations_tied += y.invalidations_tied;
  to.replies_matched += y.replies_matched;
}

// Adds a finished connection's counts to the totals.
void Analyzer::retire(Connection& c) {
  AnalysisSummary& s = result_.summary;
  const Protocol p = c.observer.protocol();
  if (p == Protocol::kMpa) ++s.mpa_connections;
  if (p == Protocol::kClc) ++s.clc_connections;
  for (Side side : {Side::kInitiator, Side::kResponder}) {
    const DirectionStats& d = c.observer.stats(side);
    s.mpa_fpdus += d.fpdus;
    s.clc_messages += d.clc_messages;
    s.resyncs += d.resyncs;
    s.skipped_octets += d.skipped_octets;
    for (std::size_t i = 0; i < 16; ++i) s.rdmap_messages[i] += c.observer.rdmap_messages(side)[i];
    for (std::size_t i = 0; i < 5; ++i) s.clc_types[i] += c.observer.clc_types(side)[i];
  }
  const UlpStats& u = c.observer.ulp();
  if (u.ulp != Ulp::kUnknown) {
    UlpTotals& t = s.ulps[std::string(name(u.ulp))];
    ++t.connections;
    ++t.by_source[std::string(name(u.source))];
    for (const auto& [k, n] : u.messages) t.messages[k] += n;
    t.read_segments += u.read_segments;
    t.write_chunks += u.write_chunks;
    t.reply_chunks += u.reply_chunks;
    t.write_stags += u.write_stags;
    t.read_stags += u.read_stags;
    t.undecoded += u.undecoded;
    for (const auto& [k, n] : u.operations) t.operations[k] += n;
    add_transfers(t.transfers, u.transfers);
  }
}

void Analyzer::retire(Association& a) {
  AnalysisSummary& s = result_.summary;
  const SctpStats& t = a.observer.stats();
  if (t.ddp_segments + t.session_control > 0) {
    ++s.sctp_ddp_associations;
    if (a.over_udp) ++s.sctp_over_udp;
  }
  s.sctp_packets += t.packets, s.sctp_chunks += t.chunks, s.sctp_data_chunks += t.data_chunks;
  s.sctp_bad_checksums += t.bad_checksums, s.sctp_malformed += t.malformed;
  s.sctp_retransmissions += t.retransmissions, s.sctp_fragmented_messages += t.fragmented_messages;
  s.sctp_fragment_findings += t.fragment_findings;
  s.ddp_sctp_segments += t.ddp_segments, s.ddp_sctp_session_control += t.session_control;
  for (Side side : {Side::kInitiator, Side::kResponder}) {
    const auto counts = a.observer.rdmap_messages(side);
    for (std::size_t i = 0; i < counts.size(); ++i) s.rdmap_messages[i] += counts[i];
  }
}

void Analyzer::retire(RoceLink& l) {
  AnalysisSummary& s = result_.summary;
  const RoceStats& r = l.observer.stats();
  ++s.roce_links;
  s.roce_packets += r.packets;
  s.roce_retransmissions += r.retransmissions;
  s.roce_undecoded += r.undecoded;
  s.roce_psn_gaps += r.psn_gaps;
  s.cdc_messages += r.cdc_messages;
  s.rdma_writes += r.rdma_writes;
  for (std::size_t i = 0; i < r.opcodes.size(); ++i) s.roce_opcodes[i] += r.opcodes[i];
  for (const auto& [name, n] : r.llc_messages) s.llc_messages[name] += n;
  s.links_confirmed += r.links_confirmed;
  s.links_added += r.links_added;
  s.links_rejected += r.links_rejected;
  s.links_deleted += r.links_deleted;
  s.rkeys_announced += r.rkeys_announced;
  s.rkeys_confirmed += r.rkeys_confirmed;
  s.rkeys_deleted += r.rkeys_deleted;
  s.llc_pairs += r.llc_pairs;
  s.test_link_pairs += r.test_link_pairs;
}

AnalysisResult Analyzer::take_result(std::uint64_t frames) {
  for (auto& [id, c] : connections_) retire(*c);
  connections_.clear();
  for (auto& [pair, l] : roce_links_) retire(*l);
  for (auto& [pair, a] : associations_) retire(*a);
  associations_.clear();
  roce_aliases_.clear();
  roce_links_.clear();
  last_roce_ = nullptr;
  if (by_sequence_) trim_by_sequence();
  result_.summary.frames = frames;
  return std::move(result_);
}

void add_summary(AnalysisSummary& into, const AnalysisSummary& s) {
  AnalysisSummary& t = into;
  t.frames += s.frames, t.streams += s.streams, t.mpa_connections += s.mpa_connections;
  t.clc_connections += s.clc_connections, t.mpa_frames += s.mpa_frames, t.mpa_fpdus += s.mpa_fpdus;
  t.clc_messages += s.clc_messages, t.violations += s.violations, t.must_violations += s.must_violations;
  t.resyncs += s.resyncs, t.octets += s.octets, t.skipped_octets += s.skipped_octets;
  t.kernel_drops += s.kernel_drops, t.capture_reports += s.capture_reports;
  for (std::size_t i = 0; i < t.rdmap_messages.size(); ++i) t.rdmap_messages[i] += s.rdmap_messages[i];
  for (std::size_t i = 0; i < t.clc_types.size(); ++i) t.clc_types[i] += s.clc_types[i];
  t.roce_links += s.roce_links, t.roce_packets += s.roce_packets, t.roce_retransmissions += s.roce_retransmissions;
  t.roce_undecoded += s.roce_undecoded, t.roce_psn_gaps += s.roce_psn_gaps, t.cdc_messages += s.cdc_messages;
  t.rdma_writes += s.rdma_writes;
  for (std::size_t i = 0; i < t.roce_opcodes.size(); ++i) t.roce_opcodes[i] += s.roce_opcodes[i];
  for (const auto& [k, n] : s.llc_messages) t.llc_messages[k] += n;
  t.links_confirmed += s.links_confirmed, t.links_added += s.links_added, t.links_rejected += s.links_rejected;
  t.links_deleted += s.links_deleted, t.rkeys_announced += s.rkeys_announced, t.rkeys_confirmed += s.rkeys_confirmed;
  t.rkeys_deleted += s.rkeys_deleted, t.llc_pairs += s.llc_pairs, t.test_link_pairs += s.test_link_pairs;
  for (const auto& [k, n] : s.report_kinds) t.report_kinds[k] += n;
  for (const auto& [k, n] : s.violations_per_rule) t.violations_per_rule[k] += n;
  t.sctp_associations += s.sctp_associations, t.sctp_ddp_associations += s.sctp_ddp_associations;
  t.sctp_over_udp += s.sctp_over_udp, t.sctp_packets += s.sctp_packets, t.sctp_chunks += s.sctp_chunks;
  t.sctp_data_chunks += s.sctp_data_chunks, t.sctp_bad_checksums += s.sctp_bad_checksums;
  t.sctp_malformed += s.sctp_malformed, t.sctp_retransmissions += s.sctp_retransmissions;
  t.sctp_fragmented_messages += s.sctp_fragmented_messages, t.sctp_fragment_findings += s.sctp_fragment_findings;
  t.ddp_sctp_segments += s.ddp_sctp_segments, t.ddp_sctp_session_control += s.ddp_sctp_session_control;
  for (const auto& [ulp, u] : s.ulps) {
    UlpTotals& x = t.ulps[ulp];
    x.connections += u.connections;
    for (const auto& [k, n] : u.by_source) x.by_source[k] += n;
    for (const auto& [k, n] : u.messages) x.messages[k] += n;
    x.read_segments += u.read_segments, x.write_chunks += u.write_chunks, x.reply_chunks += u.reply_chunks;
    x.write_stags += u.write_stags, x.read_stags += u.read_stags, x.undecoded += u.undecoded;
    for (const auto& [k, n] : u.operations) x.operations[k] += n;
    add_transfers(x.transfers, u.transfers);
  }
}

namespace {
// One source through reassembly and the observers: on this thread, or with
// `jobs` workers (parallel.hpp) when nothing listens.
template <class Consumer>
AnalysisResult run_with(Consumer& consumer, capture::PacketSource& source, const AnalysisOptions& options,
                        const capture::RunLimits& limits) {
  capture::Reassembler reassembler(consumer, options.limits);
  const capture::RunSummary run = capture::run_capture(source, reassembler, consumer, limits);
  AnalysisResult r = consumer.take_result(run.frames);
  r.clean_end = run.clean_end;
  return r;
}

AnalysisResult run(capture::PacketSource& source, const AnalysisOptions& options, AnalysisListener* listener,
                   const capture::RunLimits& limits) {
  if (options.jobs > 1 && !listener) {
    // A classic pcap file: the reading and reassembly split over the
    // workers too, unless the capture holds what they cannot split
    // (parallel.hpp, analyze_shared_file); then as below, from the start.
    if (!source.live())
      if (const auto file = source.share_file())
        if (auto r = analyze_shared_file(*file, options)) return std::move(*r);
    ShardedAnalyzer sharded(options, options.jobs);
    if (source.live() || !source.window()) return run_with(sharded, source, options, limits);
    // Mapped, not read: the kernel copies nothing on the reading thread,
    // which then only walks the record headers (parallel.hpp).
    source.map_file();
    capture::Reassembler reassembler(sharded, options.limits);
    const capture::RunSummary run = sharded.run_file(source, reassembler);
    AnalysisResult r = sharded.take_result(run.frames);
    r.clean_end = run.clean_end;
    return r;
  }
  Analyzer analyzer(options, listener);
  return run_with(analyzer, source, options, limits);
}
}  // namespace

std::optional<AnalysisResult> analyze_file(const std::string& path, const AnalysisOptions& options,
                                           AnalysisListener* listener, std::string& error) {
  auto source = capture::PacketSource::open_file(path, options.bpf_filter, error);
  if (!source) return std::nullopt;
  if (!source->link_supported()) {
    error = path + ": link type " + std::to_string(static_cast<unsigned>(source->link_type())) +
            " is not one rdmaconf reads (Ethernet, Linux cooked, raw IP, BSD loopback)";
    return std::nullopt;
  }
  return run(*source, options, listener, {});
}

std::optional<AnalysisResult> analyze_live(const LiveAnalysis& live, const AnalysisOptions& options,
                                           AnalysisListener* listener, std::string& error) {
  capture::LiveOptions live_options;
  live_options.buffer_mib = live.buffer_mib;
  auto source = capture::PacketSource::open_live(live.interface, options.bpf_filter, live_options, error);
  if (!source) return std::nullopt;
  if (!source->link_supported()) {
    error = live.interface + ": unsupported link type " + std::to_string(static_cast<unsigned>(source->link_type()));
    return std::nullopt;
  }
  capture::RunLimits limits;
  limits.max_frames = live.max_frames;
  limits.stop = live.stop;
  if (live.duration.count() > 0) limits.deadline = std::chrono::steady_clock::now() + live.duration;
  if (live.on_capturing) live.on_capturing();
  return run(*source, options, listener, limits);
}

// ------------------------------------------------------------- annotation

bool write_annotated(const std::string& in_path, const std::string& out_path, const AnalysisResult& result,
                     std::string& error) {
  std::map<std::uint64_t, std::string> comments;
  for (const ViolationRecord& v : result.violations) {
    std::string& c = comments[v.frame];
    if (!c.empty()) c += "\n";
    c += std::string(v.rule->id) + " " + std::string(name(v.rule->level)) + " (" + std::string(v.rule->section) +
         "): " + v.text;
    if (!v.hint.empty()) c += " (hint: " + v.hint + ")";
  }
  auto source = capture::PacketSource::open_file(in_path, "", error);
  if (!source) return false;
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "cannot write " + out_path;
    return false;
  }
  capture::CaptureWriter writer(out, capture::FileFormat::kPcapng, source->link_type());
  capture::RawFrame frame;
  while (source->next(frame) == capture::PacketSource::Next::kFrame) {
    auto it = comments.find(frame.number.value);
    writer.write(frame.time, frame.captured, it == comments.end() ? std::string_view{} : std::string_view(it->second),
                 frame.original_length);
  }
  if (!writer.ok()) {
    error = "write error on " + out_path;
    return false;
  }
  return true;
}

}  // namespace rdmaconf::analysis
