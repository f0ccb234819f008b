#include "analysis/observer.hpp"

#include "analysis/observer_internal.hpp"
#include "check/mpa_startup.hpp"
#include "mpa/diagnosis.hpp"
#include "rdmap/diagnosis.hpp"

namespace rdmaconf::analysis {

using namespace observer_detail;
using wire::Bytes;

std::string_view name(Side s) { return s == Side::kInitiator ? "initiator" : "responder"; }
std::string_view name(Protocol p) {
  switch (p) {
    case Protocol::kMpa: return "MPA";
    case Protocol::kClc: return "SMC CLC";
    case Protocol::kOther: return "other";
    case Protocol::kDdpSctp: return "DDP/SCTP";
    default: return "unknown";
  }
}
std::string_view name(MessageKind k) {
  switch (k) {
    case MessageKind::kMpaRequest: return "MPA Request";
    case MessageKind::kMpaReply: return "MPA Reply";
    case MessageKind::kFpdu: return "FPDU";
    case MessageKind::kRoce: return "RoCEv2";
    case MessageKind::kDdpSegment: return "DDP segment";
    case MessageKind::kSctpControl: return "DDP Stream Session Control";
    default: return "CLC";
  }
}


// ------------------------------------------------------------------- setup

ConnectionObserver::ConnectionObserver(ObserverSink& sink, ObserverConfig config)
    : sink_(sink), config_(config) {
  if (config_.ulp) ulp_.set_user(*config_.ulp);
  for (int i = 0; i < 2; ++i) {
    dirs_[i] = std::make_unique<Direction>();
    dirs_[i]->side = static_cast<Side>(i);
  }
}
ConnectionObserver::~ConnectionObserver() = default;

const DirectionStats& ConnectionObserver::stats(Side s) const { return dirs_[static_cast<int>(s)]->stats; }
const std::array<std::uint64_t, 16>& ConnectionObserver::rdmap_messages(Side s) const {
  return dirs_[static_cast<int>(s)]->rdmap_messages;
}
const std::array<std::uint64_t, 5>& ConnectionObserver::clc_types(Side s) const {
  return dirs_[static_cast<int>(s)]->clc_types;
}

void ConnectionObserver::violate(const Rule& rule, Side side, FrameNo frame, std::uint64_t offset, std::string text,
                                 std::optional<wire::Hint> hint) {
  Violation v;
  v.rule = &rule;
  v.side = side;
  v.frame = frame;
  v.stream_offset = offset;
  v.text = std::move(text);
  if (hint) {
    v.hint_mistake = hint->mistake;
    v.hint = std::move(hint->text);
  }
  sink_.on_violation(v);
}

void ConnectionObserver::event(EventKind kind, Side side, FrameNo frame, std::uint64_t offset, std::uint64_t length,
                               std::string text) {
  Event e;
  e.kind = kind;
  e.side = side;
  e.frame = frame;
  e.stream_offset = offset;
  e.length = length;
  e.text = std::move(text);
  sink_.on_event(e);
}

void ConnectionObserver::on_syn(Side side, bool smc_option, std::optional<std::uint16_t> mss) {
  syn_seen_[static_cast<int>(side)] = true;
  syn_smc_[static_cast<int>(side)].option = smc_option;
  syn_mss_[static_cast<int>(side)] = mss;
}

void ConnectionObserver::on_mid_stream(Side side) {
  Direction& d = dir(side);
  d.mid_stream = true;
  reads_synced_ = false;  // requests sent before the capture began are unknown
}

void ConnectionObserver::on_end(Side side) {
  Direction& d = dir(side);
  if (!d.buf.empty()) {
    // A message cut off by the end of the stream: its octets were seen but
    // never formed a unit.
    d.stats.skipped_octets += d.buf.size();
    event(EventKind::kSkipped, side, d.buf_first_frame, d.consumed_to, d.buf.size(),
          "stream ended inside a message");
    d.consumed_to += d.buf.size();
    d.buf.clear();
  }
}

void ConnectionObserver::on_gap(Side side, std::uint64_t length, FrameNo frame) {
  Direction& d = dir(side);
  d.stats.skipped_octets += length + d.buf.size();
  event(EventKind::kGap, side, frame, d.consumed_to + d.buf.size(), length,
        std::to_string(length) + " octets missing from the capture");
  d.consumed_to += d.buf.size() + length;
  d.buf.clear();
  d.forget_segments();
  d.hunt_fresh = true;  // a hunt in progress starts over past the gap
  d.need = 0;
  // A gap loses messages, so request/response matching cannot be trusted
  // for the rest of the connection (both directions: a lost request or a
  // lost response look alike from here).
  for (auto& x : dirs_) {
    x->reads.clear();
    x->atomics.clear();
  }
  reads_synced_ = false;
  using Mode = Direction::Mode;
  switch (d.mode) {
    case Mode::kDetect:
    case Mode::kMpaStartup:
      d.mid_stream = true;
      d.params_known = false;
      start_hunt(d, frame, "lost the start of the stream");
      break;
    case Mode::kAwaitPeerFrame: d.resync_after_startup = true; break;
    case Mode::kFull: start_hunt(d, frame, "gap in full operation"); break;
    case Mode::kClc:
      d.mode = Mode::kOpaque;
      event(EventKind::kSkipped, side, frame, d.consumed_to, 0, "gap in the CLC exchange: no further CLC checks");
      break;
    default: break;
  }
}

// ------------------------------------------------------------- detection

ConnectionObserver::Consumed ConnectionObserver::detect(Direction& d, FrameNo frame, wire::Bytes rest) {
  using Mode = Direction::Mode;
  const bool maybe_req = key_prefix(rest, mpa::kRequestKey);
  const bool maybe_rep = key_prefix(rest, mpa::kReplyKey);
  const bool maybe_clc = eyecatcher_prefix(rest);
  if (maybe_clc && rest.size() >= 4) {
    protocol_ = Protocol::kClc;
    d.mode = Mode::kClc;
    event(EventKind::kDetected, d.side, frame, d.consumed_to, 0, "SMC CLC (eyecatcher)");
    return {};
  }
  if ((maybe_req || maybe_rep) && rest.size() >= mpa::kKeySize) {
    protocol_ = Protocol::kMpa;
    d.mode = Mode::kMpaStartup;
    event(EventKind::kDetected, d.side, frame, d.consumed_to, 0,
          maybe_req ? "MPA (Request key)" : "MPA (Reply key)");
    return {};
  }
  // Still a prefix: look again at the next octet, not only once the whole
  // key is there, so that a stream that stops matching is decided at the
  // same octet however it was cut (a gap may come before the key's end).
  if (maybe_req || maybe_rep || maybe_clc) return {0, rest.size() + 1};

  if (d.mid_stream) {
    start_hunt(d, frame, "capture starts mid-connection");
    return {};
  }
  // The seven octets both keys start with, then something else: an MPA
  // Request or Reply with a wrong key (RFC 5044 §7.1.1), not another protocol.
  static constexpr std::string_view kKeyStem = "MPA ID ";
  const std::size_t stem = std::min(rest.size(), kKeyStem.size());
  if (std::equal(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(stem), kKeyStem.begin())) {
    if (rest.size() < mpa::kKeySize) return {0, mpa::kKeySize};
    protocol_ = Protocol::kMpa;
    std::string key;
    for (std::uint8_t o : rest.first(mpa::kKeySize)) key += (o >= 0x20 && o < 0x7f) ? static_cast<char>(o) : '.';
    violate(check::kReqRepKey, d.side, frame, d.consumed_to,
            "key \"" + key + "\" is neither the Request key nor the Reply key");
    d.mode = Mode::kOpaque;
    return {};
  }
  if (protocol_ == Protocol::kMpa && d.side == Side::kResponder && dir(Side::kInitiator).frame) {
    violate(check::kReqRepKey, d.side, frame, d.consumed_to, "the answer to an MPA Request does not start with the Reply key");
  } else if (protocol_ == Protocol::kUnknown) {
    protocol_ = Protocol::kOther;
  }
  d.mode = Mode::kOpaque;
  return {};
}

// ----------------------------------------------------------- MPA startup

ConnectionObserver::Consumed ConnectionObserver::mpa_startup(Direction& d, FrameNo frame, wire::Bytes rest,
                                                             FrameNo first_frame) {
  using Mode = Direction::Mode;
  auto size = mpa::required_frame_size(rest);
  if (!size) {
    std::optional<wire::Hint> hint;
    if (size.error().field == "PD_Length" && rest.size() >= mpa::kReqRepHeaderSize) {
      wire::ByteReader hr(rest);
      if (auto h = mpa::ReqRepHeader::decode(hr))
        hint = mpa::diagnose_pd_length(static_cast<std::uint16_t>(h->get(mpa::ReqRepSpec::Field::PD_Length)));
    }
    violate(check::req_rep_rule(size.error()), d.side, frame, d.consumed_to, size.error().to_string(), std::move(hint));
    d.mid_stream = true;
    start_hunt(d, frame, "unusable MPA Request/Reply");
    return {};
  }
  if (rest.size() < *size) return {0, *size};

  d.frame_octets.assign(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(*size));
  // A conformance observer reports reserved bits a receiver would ignore.
  mpa::ReqRepDecodeOptions strict;
  strict.check_reserved = true;
  auto r = mpa::decode_req_rep(d.frame_octets, strict);
  if (!r) {
    violate(check::req_rep_rule(r.error()), d.side, frame, d.consumed_to, r.error().to_string());
    mpa::ReqRepDecodeOptions lenient;
    lenient.check_reserved = false;
    r = mpa::decode_req_rep(d.frame_octets, lenient);
  }
  if (!r) {
    // Still unusable (an unknown revision, R in a Request): the parameters
    // of full operation are unknown, so resynchronise on the FPDUs.
    d.mid_stream = true;
    d.consumed_to += *size;
    start_hunt(d, frame, "MPA frame not decodable");
    d.consumed_to -= *size;
    return {*size, 0};
  }
  const bool is_request = r->kind == mpa::FrameKind::kRequest;
  if (is_request != (d.side == Side::kInitiator))
    violate(check::kReqRepKey, d.side, frame, d.consumed_to,
            is_request ? "the TCP responder sent an MPA Request" : "the TCP initiator sent an MPA Reply");
  d.frame = *r;
  d.frame_number = frame;

  Message m;
  m.kind = is_request ? MessageKind::kMpaRequest : MessageKind::kMpaReply;
  m.side = d.side;
  m.first_frame = first_frame;
  m.frame = frame;
  m.stream_offset = d.consumed_to;
  m.octets = *size;
  m.req_rep = &*d.frame;
  sink_.on_message(m);
  ulp_.on_private_data(d.frame->ulp_private_data);

  // Full operation starts right after the frame (RFC 5044 §4.3 counts
  // Marker positions from there).
  d.consumed_to += *size;
  d.position_base = d.consumed_to;
  d.mode = Mode::kAwaitPeerFrame;
  settle_mpa(frame);
  d.consumed_to -= *size;
  return {*size, 0};
}

// Both frames seen: what full operation uses in each direction.
void ConnectionObserver::settle_mpa(FrameNo frame) {
  Direction& ini = dir(Side::kInitiator);
  Direction& rsp = dir(Side::kResponder);
  if (mpa_.known || !ini.frame || !rsp.frame) return;
  const mpa::ReqRepFrame& req = *ini.frame;
  const mpa::ReqRepFrame& rep = *rsp.frame;
  if (req.kind != mpa::FrameKind::kRequest || rep.kind != mpa::FrameKind::kReply) {
    // RFC 5044 §7.1.1, §8 (code 4): a side that gets the other's key where
    // its own belongs has no Request or Reply to settle on and closes; what
    // either sends after it is no FPDU of full operation (the key was
    // reported above), so it is counted, not judged.
    for (Direction* d : {&ini, &rsp}) {
      if (d->mode != Direction::Mode::kAwaitPeerFrame) continue;
      d->mode = Direction::Mode::kOpaque;
      event(EventKind::kSkipped, d->side, frame, d->consumed_to, 0,
            "MPA startup failed (a Request or Reply in the other's place): what follows is not judged");
    }
    return;
  }
  mpa_.known = true;
  mpa_.revision = rep.revision;
  // RFC 5044 §7.1.2: CRC is used when either frame asks for it; each side
  // receives Markers when its own frame asked for them.
  mpa_.crc = req.crc || rep.crc;
  mpa_.markers[static_cast<int>(Side::kInitiator)] = rep.markers;
  mpa_.markers[static_cast<int>(Side::kResponder)] = req.markers;
  mpa_.rejected = rep.reject;
  // The rules between the two frames are the rule layer's
  // (check/mpa_startup.hpp), which the initiator's negotiation terminates on.
  if (auto v = check::reply_revision(req.revision, rep))
    violate(*v->rule, Side::kResponder, rsp.frame_number, 0,
            "Reply Rev " + std::to_string(rep.revision) + " above the Request's " + std::to_string(req.revision));
  if (auto v = check::reply_enhanced(req.enhanced_data.has_value(), rep))
    violate(*v->rule, Side::kResponder, rsp.frame_number, 0,
            std::string(rep.enhanced_data ? "Reply carries the IRD/ORD block, the Request does not"
                                          : "Request carries the IRD/ORD block, the Reply does not"));
  if (req.enhanced_data && rep.enhanced_data) {
    mpa_.enhanced = true;
    mpa_.ird[0] = req.enhanced_data->ird;
    mpa_.ord[0] = req.enhanced_data->ord;
    mpa_.ird[1] = rep.enhanced_data->ird;
    mpa_.ord[1] = rep.enhanced_data->ord;
    const mpa::EnhancedData& q = *req.enhanced_data;
    const mpa::EnhancedData& p = *rep.enhanced_data;
    // RFC 6581 §9.2: an initiator asking for peer-to-peer offers at least
    // one RTR kind.
    if (auto v = check::p2p_offer(q))
      violate(*v->rule, Side::kInitiator, ini.frame_number, 0, "Request sets A but offers no RTR kind");
    // RFC 6581 §9.2: A is echoed. A peer-to-peer Reply sets at least one
    // RTR kind; it may set several, and kinds not offered. The initiator
    // offered every kind it can send, so it can send one of the Reply's
    // kinds exactly when one was offered (checked at its first FPDU).
    // RFC 6581 §9.1: an accepting Reply's ORD is not above the Request's
    // IRD, and 0x3FFF is answered with 0x3FFF.
    if (!rep.reject) {
      if (auto v = check::responder_ord(q, p))
        violate(*v->rule, Side::kResponder, rsp.frame_number, 0,
                "Reply ORD " + std::to_string(p.ord) + " above the Request's IRD " + std::to_string(q.ird));
      if (auto v = check::no_negotiation(q, p))
        violate(*v->rule, Side::kResponder, rsp.frame_number, 0,
                std::string("Request ") + (v->field == "IRD" ? "ORD" : "IRD") + " 0x3FFF answered with " +
                    std::string(v->field) + " " + std::to_string(v->seen) + ", not 0x3FFF");
    }
    if (!rep.reject) {
      if (auto v = check::p2p_echo(q, p))
        violate(*v->rule, Side::kResponder, rsp.frame_number, 0,
                std::string("Reply ") + (p.peer_to_peer ? "sets" : "clears") + " A, the Request " +
                    (q.peer_to_peer ? "sets" : "clears") + " it",
                mpa::diagnose_ird_ord_swapped(q, p));
      else if (auto w = check::reply_rtr_at_least_one(q, p))
        violate(*w->rule, Side::kResponder, rsp.frame_number, 0, "peer-to-peer Reply sets none of B, C, D",
                mpa::diagnose_ird_ord_swapped(q, p));
    }
    if (q.peer_to_peer && !rep.reject) {
      mpa_.peer_to_peer = true;
      mpa_.rtr_send = p.rtr_send;
      mpa_.rtr_write = p.rtr_write;
      mpa_.rtr_read = p.rtr_read;
      mpa_.rtr_sendable = (p.rtr_send && q.rtr_send) || (p.rtr_write && q.rtr_write) || (p.rtr_read && q.rtr_read);
    }
  }
  for (Direction* d : {&ini, &rsp}) {
    if (d->mode != Direction::Mode::kAwaitPeerFrame) continue;
    if (mpa_.rejected) {
      d->mode = Direction::Mode::kRejected;
    } else {
      d->markers = mpa_.markers[static_cast<int>(d->side)];
      d->crc = mpa_.crc;
      d->crc_known = true;
      d->params_known = true;
      // RFC 5041 §4.3: every queue's first message carries MSN 1.
      for (auto& q : d->queues) q = check::QueueSequence{true, false, ddp::value(ddp::kFirstMsn), 0};
      if (d->resync_after_startup) start_hunt(*d, frame, "octets lost before full operation");
      else enter_full_operation(*d);
    }
  }
  // The initiator may have sent FPDUs before the Reply reached it: they are
  // kept until now. RFC 5044 §7.1.2 forbids that (frame order shows it).
  if (!ini.buf.empty() && ini.buf_first_frame < rsp.frame_number)
    violate(rules::kFpduBeforeReply, Side::kInitiator, ini.buf_first_frame, ini.consumed_to,
            "full-operation octets in frame " + std::to_string(ini.buf_first_frame) + " before the Reply (frame " +
                std::to_string(rsp.frame_number) + ")");
  pump(ini, frame);
  // A Reply captured before the Request may have FPDUs kept behind it too.
  pump(rsp, frame);
}

void ConnectionObserver::enter_full_operation(Direction& d) {
  mpa::DeframerConfig c;
  c.markers = d.markers;
  c.crc = d.crc;
  c.stream_position = d.position(d.consumed_to);
  c.fail_on_error = false;
  d.deframer.emplace(c);
  d.mode = Direction::Mode::kFull;
  arm_segmentation(d);
}

}  // namespace rdmaconf::analysis
