// The SCTP association observer (observer_sctp.hpp): SCTP's packets and
// chunks (RFC 9260), fragments put back together, the adaptation layer's
// session rules judged by the reference's own session machine (RFC 5043 §6)
// and the DDP segments handed to the DDP/RDMAP observer.
#include "analysis/observer_sctp.hpp"

#include "analysis/hex.hpp"
#include "analysis/udp_sctp.hpp"
#include "sctp/messages.hpp"

namespace rdmaconf::analysis {

namespace {

namespace cite = sctp::cite;

// The registry rows of RFC 5043 this observer reports.
constexpr const Rule& kIndicationInInit = check::rule<"rfc5043-5.1-indication-in-init">;
constexpr const Rule& kPrivateDataMax = check::rule<"rfc5043-5.2.3-private-data-max">;
constexpr const Rule& kTerminateNoPrivateData = check::rule<"rfc5043-5.2.3-terminate-no-private-data">;
constexpr const Rule& kNoSsnGaps = check::rule<"rfc5043-6-no-ssn-gaps">;
constexpr const Rule& kLegalPattern = check::rule<"rfc5043-6.1-legal-pattern">;
constexpr const Rule& kNoSegmentBeforeInitiate = check::rule<"rfc5043-6.6-no-segment-before-initiate">;
constexpr const Rule& kUnordered = check::rule<"rfc5043-10-unordered">;

// The witness's words for what the peer did wrong, as the registry row that
// names it. One place: the session machine cites sections, the registry
// names rows. nullptr: not the sender's fault as far as a capture can tell
// (the receiver's announced maximum segment size is not on the wire).
const Rule* rule_for(const wire::DecodeError& e) {
  if (e.field == "Private Data")
    return e.rule.find("Terminate") != std::string_view::npos ? &kTerminateNoPrivateData : &kPrivateDataMax;
  if (e.rfc_section == cite::kFragmentation) return nullptr;
  if (e.rfc_section == cite::kSequencing) return &kNoSegmentBeforeInitiate;
  if (e.field == "DDP-SSN") return &kNoSsnGaps;
  return &kLegalPattern;
}

}  // namespace

bool udp_carries_sctp(std::uint16_t source_port, std::uint16_t destination_port, wire::Bytes payload) {
  if (source_port == sctp::kUdpEncapsulationPort || destination_port == sctp::kUdpEncapsulationPort) return true;
  auto h = sctp::decode_packet_header(payload);
  return h && h->checksum_ok() && !h->chunks.empty();
}

// A user message SCTP fragmented, being put back together (RFC 9260
// §6.9): its fragments carry consecutive TSNs from B to E; an I-DATA
// message's (RFC 8260 §2.1) consecutive FSNs from 0.
struct SctpObserver::Partial {
  sctp::DataChunk first;  // the B fragment's header values (its user_data view is not kept)
  std::vector<std::uint8_t> octets;
  std::uint32_t next = 0;  // the next fragment's TSN (DATA) or FSN (I-DATA)
  std::uint32_t fragments = 0;
  FrameNo first_frame = 0;
};

// What reassembly needs of one fragment, DATA's or I-DATA's: DATA's
// fragments follow each other in TSN order on a stream (RFC 9260 §6.9),
// I-DATA's in FSN order within their MID, the first one's FSN 0 (RFC 8260
// §2.1), so several messages of a stream may be in reassembly at once.
struct SctpObserver::Fragment {
  std::string_view chunk;  // "DATA" or "I-DATA"
  std::string_view cite;   // the chunk's section
  std::string_view order;  // "TSN" or "FSN"
  std::string where;       // the stream and the TSN, or MID and FSN, for the findings
  std::uint32_t number = 0;
  std::uint32_t next_after_first = 0;
  const sctp::DataChunk* first = nullptr;  // the header values a B fragment names
  wire::Bytes user_data;
  bool beginning = false;
  bool ending = false;
};

template <typename Key>
std::unique_ptr<SctpObserver::Partial> SctpObserver::reassemble(std::map<Key, std::unique_ptr<Partial>>& partials,
                                                                const Key& key, const Fragment& f, Side side,
                                                                FrameNo frame) {
  const std::string head = "SCTP " + std::string(f.chunk) + ": ";
  const std::string cite = " (" + std::string(f.cite) + ")";
  auto it = partials.find(key);
  if (f.beginning) {
    if (it != partials.end()) {
      ++stats_.fragment_findings;
      finding(EventKind::kFinding, side, frame, 0,
              head + "a message began (B) before the previous one on " + f.where + " ended (E); its " +
                  std::to_string(it->second->octets.size()) + " octets are let go" + cite);
      partials.erase(it);
    }
    // One bound for DATA's and I-DATA's messages in reassembly.
    const int s = static_cast<int>(side);
    if (partial_[s].size() + ipartial_[s].size() >= limits_.max_partial) {
      ++stats_.fragment_findings;
      finding(EventKind::kLimit, side, frame, 0,
              head + "more than " + std::to_string(limits_.max_partial) +
                  " fragmented messages at once; this one is not reassembled (" + f.where + ")");
      return nullptr;
    }
    auto p = std::make_unique<Partial>();
    p->first = *f.first;
    p->first.user_data = {};
    p->octets.assign(f.user_data.begin(), f.user_data.end());
    p->next = f.next_after_first;
    p->fragments = 1;
    p->first_frame = frame;
    partials.emplace(key, std::move(p));
    return nullptr;
  }
  if (it == partials.end() || it->second->next != f.number) {
    ++stats_.fragment_findings;
    finding(EventKind::kFinding, side, frame, 0,
            head + "a fragment without its beginning (B) or out of " + std::string(f.order) + " sequence on " +
                f.where + cite);
    if (it != partials.end()) partials.erase(it);
    return nullptr;
  }
  Partial& p = *it->second;
  if (p.octets.size() + f.user_data.size() > limits_.max_message) {
    ++stats_.fragment_findings;
    finding(EventKind::kLimit, side, frame, 0,
            head + "a fragmented message longer than " + std::to_string(limits_.max_message) +
                " octets is let go (" + f.where + ")");
    partials.erase(it);
    return nullptr;
  }
  p.octets.insert(p.octets.end(), f.user_data.begin(), f.user_data.end());
  ++p.next;
  ++p.fragments;
  if (!f.ending) return nullptr;
  ++stats_.fragmented_messages;
  std::unique_ptr<Partial> whole = std::move(it->second);
  partials.erase(it);
  return whole;
}

// One DDP stream: the witness of each side's chunks and the DDP/RDMAP
// observer of both sides' segments.
struct SctpObserver::DdpStream {
  DdpStream(ObserverSink& sink, const ObserverConfig& config, Side active_side)
      : active(active_side), ddp(sink, config) {
    // RFC 5043 §6.2: the active side's chunks are received by a passive
    // session, the passive side's by an active one that sent the Initiate.
    sctp::SessionConfig c;
    c.max_segment_size = kWitnessMaxSegment;
    c.role = sctp::Role::kPassive;
    witness[static_cast<int>(active)] = std::make_unique<sctp::Session>(c);
    c.role = sctp::Role::kActive;
    witness[static_cast<int>(other(active))] = std::make_unique<sctp::Session>(c);
    (void)witness[static_cast<int>(other(active))]->initiate({});
    discard_outgoing();
  }
  void discard_outgoing() {
    for (auto& w : witness)
      while (w->take_outgoing()) {
      }
  }
  // The receiver's maximum is not in the capture (RFC 5043 §9): the witness
  // takes segments up to the largest message the observer reassembles.
  static constexpr std::size_t kWitnessMaxSegment = std::size_t{64} << 10;
  Side active;
  std::unique_ptr<sctp::Session> witness[2];
  ConnectionObserver ddp;
};

SctpObserver::SctpObserver(ObserverSink& sink, ObserverConfig config, SctpLimits limits)
    : sink_(sink), config_(std::move(config)), limits_(limits) {}
SctpObserver::~SctpObserver() = default;

std::array<std::uint64_t, 16> SctpObserver::rdmap_messages(Side side) const {
  std::array<std::uint64_t, 16> out{};
  for (const auto& [id, s] : streams_)
    for (std::size_t i = 0; i < out.size(); ++i) out[i] += s->ddp.rdmap_messages(side)[i];
  return out;
}

void SctpObserver::finding(EventKind kind, Side side, FrameNo frame, std::uint64_t offset, std::string text) {
  Event e;
  e.kind = kind;
  e.side = side;
  e.frame = frame;
  e.stream_offset = offset;
  e.text = std::move(text);
  sink_.on_event(e);
}

void SctpObserver::violate(const Rule& rule, Side side, FrameNo frame, std::string text) {
  Violation v;
  v.rule = &rule;
  v.side = side;
  v.frame = frame;
  v.text = std::move(text);
  sink_.on_violation(v);
}

void SctpObserver::on_packet(Side side, FrameNo frame, wire::Bytes packet) {
  auto h = sctp::decode_packet_header(packet);
  if (!h) {
    ++stats_.malformed;
    finding(EventKind::kFinding, side, frame, 0, "SCTP packet: " + h.error().to_string());
    return;
  }
  ++stats_.packets;
  // RFC 9260 §6.8: reported as analyze reports MPA's CRC; the chunks are
  // read all the same (a capture on the sending host shows the checksum a
  // NIC would have filled in).
  if (!h->checksum_ok()) {
    ++stats_.bad_checksums;
    finding(EventKind::kFinding, side, frame, 0,
            "SCTP Checksum " + hex(h->checksum) + ", computed " + hex(h->computed_checksum) + " (" +
                std::string(sctp::packet_cite::kChecksum) + ")");
  }
  sctp::ChunkWalker walker(h->chunks);
  for (;;) {
    auto c = walker.next();
    if (!c) {
      ++stats_.malformed;
      finding(EventKind::kFinding, side, frame, c.error().offset, "SCTP chunk: " + c.error().to_string());
      return;
    }
    if (!*c) return;
    ++stats_.chunks;
    switch ((*c)->type) {
      case sctp::chunk_type::kData: on_data(side, frame, **c); break;
      case sctp::chunk_type::kIData: on_idata(side, frame, **c); break;
      case sctp::chunk_type::kInit:
      case sctp::chunk_type::kInitAck: on_init(side, frame, **c); break;
      default: break;  // SACK, HEARTBEAT, COOKIE, SHUTDOWN...: SCTP's own business
    }
  }
}

void SctpObserver::on_init(Side side, FrameNo frame, const sctp::ChunkView& c) {
  auto init = sctp::decode_init_chunk(c);
  if (!init) {
    ++stats_.malformed;
    finding(EventKind::kFinding, side, frame, init.error().offset, "SCTP INIT: " + init.error().to_string());
    return;
  }
  const int s = static_cast<int>(side);
  stats_.init_seen[s] = true;
  stats_.indication[s] = init->adaptation_indication;
  if (initiate_tags_.size() < 16) initiate_tags_.insert(init->initiate_tag);  // bounded: a capture may lie
  init_ack_seen_ = init_ack_seen_ || init->ack;
}

bool SctpObserver::begins_new_association(wire::Bytes packet) const {
  if (!init_ack_seen_) return false;
  auto h = sctp::decode_packet_header(packet);
  if (!h) return false;
  sctp::ChunkWalker walker(h->chunks);
  // RFC 9260 §6.10: an INIT is alone in its packet; the first chunk decides.
  auto c = walker.next();
  if (!c || !*c || (*c)->type != sctp::chunk_type::kInit) return false;
  auto init = sctp::decode_init_chunk(**c);
  return init && !initiate_tags_.contains(init->initiate_tag);
}

void SctpObserver::on_data(Side side, FrameNo frame, const sctp::ChunkView& c) {
  auto d = sctp::decode_data_chunk(c);
  if (!d) {
    ++stats_.malformed;
    finding(EventKind::kFinding, side, frame, d.error().offset, "SCTP DATA: " + d.error().to_string());
    return;
  }
  ++stats_.data_chunks;
  const int s = static_cast<int>(side);
  if (retransmitted(s, d->tsn)) return;
  // RFC 5043 §5.2: the adaptation layer's messages are recognised by their PPID.
  if (d->ppid != sctp::kPpidDdpSegment && d->ppid != sctp::kPpidSessionControl) {
    ++stats_.other_ppid;
    return;
  }
  if (!d->unordered)
    violate(kUnordered, side, frame,
            "DATA chunk TSN " + std::to_string(d->tsn) + " on stream " + std::to_string(d->stream) +
                " without the U flag");
  if (d->beginning && d->ending) {
    deliver(side, frame, frame, *d, d->user_data, 1);
    return;
  }
  Fragment f;
  f.chunk = "DATA";
  f.cite = sctp::packet_cite::kData;
  f.order = "TSN";
  f.where = "stream " + std::to_string(d->stream) + ", TSN " + std::to_string(d->tsn);
  f.number = d->tsn;
  f.next_after_first = d->tsn + 1;
  f.first = &*d;
  f.user_data = d->user_data;
  f.beginning = d->beginning;
  f.ending = d->ending;
  const std::pair<std::uint16_t, bool> key{d->stream, d->unordered};
  if (auto whole = reassemble(partial_[s], key, f, side, frame))
    deliver(side, whole->first_frame, frame, whole->first, whole->octets, whole->fragments);
}

bool SctpObserver::retransmitted(int s, std::uint32_t tsn) {
  // A TSN seen before is a retransmission: its message was taken already.
  if (!tsns_[s].insert(tsn).second) {
    ++stats_.retransmissions;
    return true;
  }
  tsn_order_[s].push_back(tsn);
  if (tsn_order_[s].size() > limits_.tsn_window) {
    tsns_[s].erase(tsn_order_[s].front());
    tsn_order_[s].pop_front();
  }
  return false;
}

void SctpObserver::on_idata(Side side, FrameNo frame, const sctp::ChunkView& c) {
  auto d = sctp::decode_idata_chunk(c);
  if (!d) {
    ++stats_.malformed;
    finding(EventKind::kFinding, side, frame, d.error().offset, "SCTP I-DATA: " + d.error().to_string());
    return;
  }
  ++stats_.data_chunks;
  ++stats_.idata_chunks;
  const int s = static_cast<int>(side);
  if (retransmitted(s, d->tsn)) return;
  const std::string where = "stream " + std::to_string(d->stream) + ", MID " + std::to_string(d->mid);
  // A whole message, as DATA's are taken: only the adaptation layer's PPIDs
  // (RFC 5043 §5.2), each unordered (§10). Only the first fragment names
  // the PPID, so an I-DATA message is judged whole.
  const auto whole = [&](const sctp::DataChunk& first, FrameNo first_frame, wire::Bytes user_data,
                         std::uint32_t fragments) {
    if (first.ppid != sctp::kPpidDdpSegment && first.ppid != sctp::kPpidSessionControl) {
      ++stats_.other_ppid;
      return;
    }
    if (!first.unordered) violate(kUnordered, side, frame, "I-DATA message on " + where + " without the U flag");
    deliver(side, first_frame, frame, first, user_data, fragments);
  };
  sctp::DataChunk first;
  first.tsn = d->tsn;
  first.stream = d->stream;
  first.ppid = d->ppid.value_or(0);
  first.unordered = d->unordered;
  first.beginning = d->beginning;
  first.ending = d->ending;
  if (d->beginning && d->ending) {
    whole(first, frame, d->user_data, 1);
    return;
  }
  Fragment f;
  f.chunk = "I-DATA";
  f.cite = sctp::packet_cite::kIData;
  f.order = "FSN";
  f.where = where + ", FSN " + std::to_string(d->fsn);
  f.number = d->fsn;
  f.next_after_first = 1;  // the first fragment's FSN is 0
  f.first = &first;
  f.user_data = d->user_data;
  f.beginning = d->beginning;
  f.ending = d->ending;
  const std::tuple<std::uint16_t, bool, std::uint32_t> key{d->stream, d->unordered, d->mid};
  if (auto done = reassemble(ipartial_[s], key, f, side, frame))
    whole(done->first, done->first_frame, done->octets, done->fragments);
}

void SctpObserver::deliver(Side side, FrameNo first_frame, FrameNo frame, const sctp::DataChunk& d,
                           wire::Bytes user_data, std::uint32_t fragments) {
  const int s = static_cast<int>(side);
  // RFC 5043 §11.1: DDP runs only where both INIT and INIT ACK announced it.
  // Judged once per side, when its INIT or INIT ACK is in the capture.
  if (stats_.init_seen[s] && !indication_judged_[s] && stats_.indication[s] != sctp::kAdaptationIndicationDdp) {
    indication_judged_[s] = true;
    violate(kIndicationInInit, side, frame,
            stats_.indication[s] ? "DDP messages on an association whose INIT or INIT ACK announced adaptation " +
                                       hex(*stats_.indication[s])
                                 : "DDP messages on an association whose INIT or INIT ACK carried no Adaptation "
                                   "Layer Indication");
  }
  (d.ppid == sctp::kPpidDdpSegment ? stats_.ddp_segments : stats_.session_control) += 1;
  auto it = streams_.find(d.stream);
  if (it == streams_.end()) {
    if (streams_.size() >= limits_.max_streams) {
      finding(EventKind::kLimit, side, frame, 0,
              "more than " + std::to_string(limits_.max_streams) + " DDP streams: stream " +
                  std::to_string(d.stream) + " is not observed");
      return;
    }
    // The side that sends first on a stream is its active side (RFC 5043
    // §6.2: the Initiate opens the session); a DDP segment first is then
    // the active side's segment before its Initiate, which its witness reports.
    it = streams_.emplace(d.stream, std::make_unique<DdpStream>(sink_, config_, side)).first;
  }
  DdpStream& st = *it->second;
  SctpInfo info;
  info.stream = d.stream;
  info.ppid = d.ppid;
  info.tsn = d.tsn;
  info.unordered = d.unordered;
  info.fragments = fragments;
  auto m = sctp::decode_message(d.ppid, user_data);
  if (m) info.ddp_ssn = m->ddp_ssn;
  if (m && m->kind == sctp::MessageKind::kControl) {
    info.function = m->function;
    info.private_data = m->private_data;
    if (config_.report_fpdus) {
      Message msg;
      msg.kind = MessageKind::kSctpControl;
      msg.side = side;
      msg.first_frame = first_frame;
      msg.frame = frame;
      msg.octets = user_data.size();
      msg.sctp = &info;
      sink_.on_message(msg);
    }
  }
  sctp::Session& w = *st.witness[s];
  w.receive(d.ppid, d.unordered, user_data);
  sctp::Session& peer = *st.witness[static_cast<int>(other(side))];
  while (auto e = w.take_event()) {
    switch (e->kind) {
      case sctp::EventKind::kViolation:
        if (const Rule* r = rule_for(*e->violation))
          violate(*r, side, frame, "stream " + std::to_string(d.stream) + ": " + e->violation->to_string());
        else
          finding(EventKind::kLimit, side, frame, 0,
                  "stream " + std::to_string(d.stream) + ": " + e->violation->to_string() + "; not judged");
        break;
      // The passive side's answer, in DDP-SSN order: the witness of the
      // active side's chunks takes the same decision.
      case sctp::EventKind::kAccepted: (void)peer.accept({}); break;
      case sctp::EventKind::kRejected: (void)peer.reject({}); break;
      default: break;
    }
  }
  st.discard_outgoing();
  // The segment of this message, when it is the next in DDP-SSN order (and
  // segments held until now): one view of the chunk it came in.
  const bool own = m && m->kind == sctp::MessageKind::kSegment;
  drain(st, side, first_frame, frame, own ? &info : nullptr);
  drain(st, other(side), frame, frame, nullptr);
}

void SctpObserver::drain(DdpStream& s, Side side, FrameNo first_frame, FrameNo frame, const SctpInfo* info) {
  std::vector<std::vector<std::uint8_t>> segments;
  while (auto seg = s.witness[static_cast<int>(side)]->take_segment()) segments.push_back(std::move(*seg));
  SctpInfo held;
  if (info) {
    held = *info;
    held.ddp_ssn.reset();
  }
  for (std::size_t i = 0; i < segments.size(); ++i) {
    // Only a lone segment is surely this chunk's; earlier ones came before.
    const SctpInfo* shown = info && segments.size() == 1 ? info : info ? &held : nullptr;
    s.ddp.on_ddp_segment(side, i + 1 == segments.size() ? first_frame : frame, frame, segments[i], shown);
  }
}

}  // namespace rdmaconf::analysis
