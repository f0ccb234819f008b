#include "analysis/observer.hpp"

#include "mpa/diagnosis.hpp"
#include "rdmap/diagnosis.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "check/segment.hpp"
#include "clc/decline_codes.hpp"
#include "mpa/diagnosis.hpp"
#include "mpa/headers.hpp"
#include "rdmap/diagnosis.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/terminate.hpp"
#include "wire/crc32c.hpp"

namespace rdmaconf::analysis {

std::string_view name(Side s) { return s == Side::kInitiator ? "initiator" : "responder"; }
std::string_view name(Protocol p) {
  switch (p) {
    case Protocol::kMpa: return "MPA";
    case Protocol::kClc: return "SMC CLC";
    case Protocol::kOther: return "other";
    default: return "unknown";
  }
}
std::string_view name(MessageKind k) {
  switch (k) {
    case MessageKind::kMpaRequest: return "MPA Request";
    case MessageKind::kMpaReply: return "MPA Reply";
    case MessageKind::kFpdu: return "FPDU";
    default: return "CLC";
  }
}

namespace {

using wire::Bytes;

// Every header is read through its declaration (wire/field.hpp): `rest`
// holds at least the header's size from `at` wherever these are called.
std::uint32_t ulpdu_length_at(Bytes b, std::size_t at) {
  return static_cast<std::uint32_t>(mpa::FpduHeader::read(b.subspan(at), mpa::FpduHeaderSpec::Field::ULPDU_Length));
}
std::uint32_t marker_field(Bytes b, std::size_t at, mpa::MarkerSpec::Field f) {
  return static_cast<std::uint32_t>(mpa::MarkerHeader::read(b.subspan(at), f));
}
template <typename H>
std::uint32_t u32(Bytes b, typename H::Field f) { return static_cast<std::uint32_t>(H::read(b, f)); }

bool all_zero(Bytes b) { return std::all_of(b.begin(), b.end(), [](std::uint8_t o) { return o == 0; }); }
bool unicast_mac(Bytes mac) { return !all_zero(mac) && (mac[0] & 0x01) == 0; }

// The octets a hunt must see of a candidate before judging its header: the
// ULPDU_Length and the larger DDP header.
constexpr std::size_t kCandidateHead = mpa::kUlpduLengthSize + ddp::kUntaggedHeaderSize;
// How far back of a candidate Marker a hunt looks for the FPDU it points
// into. The first Marker inside an FPDU is fewer than 512 octets after the
// FPDU's header (RFC 5044 §4.3: a Marker every 512 octets of the stream), and
// the hunt meets that Marker before any later one of the same FPDU, so a
// longer FPDUPTR never finds an FPDU a shorter one did not.
constexpr std::size_t kHuntLookback = mpa::kMarkerInterval - 1;
// The smallest ULPDU is a tagged DDP header with no payload.
constexpr std::size_t kMinUlpdu = ddp::kTaggedHeaderSize;
// Octets of a DDP header and the largest RDMAP header a check reads.
constexpr std::size_t kHeadCopy = ddp::kUntaggedHeaderSize + rdmap::kMaxTerminateSize;
// Outstanding requests remembered per side; a peer that keeps more than
// this many unanswered turns the matching off (reported) rather than growing.
constexpr std::size_t kMaxOutstanding = 1u << 16;

// Which field of a Request/Reply decode error names which rule.
const Rule& rule_for_req_rep(const wire::DecodeError& e) {
  if (e.field == "Res") return rules::kReqRepReserved;
  if (e.field == "Rev") return rules::kReqRepRevision;
  if (e.field == "R") return rules::kRequestReject;
  if (e.field == "PD_Length") return rules::kPdLengthMax;
  if (e.field == "IRD") return rules::kEnhancedDataShort;
  return rules::kReqRepKey;
}

bool key_prefix(Bytes b, const std::array<std::uint8_t, mpa::kKeySize>& key) {
  const std::size_t n = std::min(b.size(), key.size());
  return std::equal(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n), key.begin());
}

bool eyecatcher_prefix(Bytes b) {
  static constexpr std::array<std::uint8_t, 4> kSmcr = {0xE2, 0xD4, 0xC3, 0xD9};
  static constexpr std::array<std::uint8_t, 4> kSmcd = {0xE2, 0xD4, 0xC3, 0xC4};
  const std::size_t n = std::min<std::size_t>(b.size(), 4);
  return std::equal(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n), kSmcr.begin()) ||
         std::equal(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n), kSmcd.begin());
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string hex_octets(Bytes b) {
  std::string out;
  char buf[4];
  for (std::uint8_t o : b) {
    std::snprintf(buf, sizeof buf, "%s%02x", out.empty() ? "" : ":", o);
    out += buf;
  }
  return out;
}

}  // namespace

// ------------------------------------------------------------ per direction

struct ConnectionObserver::Consumed {
  std::size_t used = 0;  // octets consumed from the front
  std::size_t need = 0;  // octets (after `used`) needed before more can be said; 0: any more
};

struct ConnectionObserver::Direction {
  enum class Mode : std::uint8_t {
    kDetect,          // first octets of the stream: which protocol?
    kMpaStartup,      // this side's Request or Reply
    kAwaitPeerFrame,  // own frame done; full operation needs the peer's frame
    kFull,            // FPDUs
    kHunt,            // looking for FPDU framing after a gap or mid-connection
    kClc,             // CLC messages
    kRejected,        // the Reply rejected the connection
    kOpaque,          // nothing of ours (any more): octets counted, not decoded
  };
  Side side = Side::kInitiator;
  Mode mode = Mode::kDetect;
  bool mid_stream = false;

  // Octets not consumed yet (a partial message, a hunt window) and the stream
  // offset of their first octet; `need` is what the current unit waits for.
  std::vector<std::uint8_t> buf;
  FrameNo buf_first_frame = 0;
  std::size_t need = 0;
  std::uint64_t consumed_to = 0;  // stream offset of the first unconsumed octet

  // MPA startup
  std::vector<std::uint8_t> frame_octets;
  std::optional<mpa::ReqRepFrame> frame;
  FrameNo frame_number = 0;
  bool resync_after_startup = false;  // octets were lost while waiting for the peer's frame
  bool feeding = false;               // feed() is consuming from buf: pump() must leave it alone

  // Full operation. `position_base` maps a stream offset to an MPA stream
  // position (octets since full operation began): position = offset - base,
  // modulo 2^64, which keeps Marker phase right even when inferred.
  std::optional<mpa::Deframer> deframer;
  bool params_known = false;  // markers, crc and position_base are known
  bool markers = false;
  bool crc = false;
  bool crc_known = false;
  std::uint64_t position_base = 0;
  bool first_fpdu_seen = false;

  // Hunting (stream offsets). A hunt looks at candidate FPDU starts in
  // stream order, `hunt_scan` being the next one; a Marker candidate may
  // point back to octets before it, but never before `hunt_from` (where the
  // hunt's octets begin) nor more than kHuntLookback octets. Every decision
  // depends on the octets around its candidate only and waits for them, so a
  // hunt ends the same however TCP cut the stream.
  bool hunt_fresh = false;  // set by start_hunt(): hunt() takes its window from there
  std::uint64_t hunt_began = 0;
  std::uint64_t hunt_from = 0;
  std::uint64_t hunt_scan = 0;
  // With CRC on and no Markers: candidates whose FPDU is not all here yet,
  // as (stream offset of the candidate, stream offset its FPDU ends at).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> hunt_pending;

  // DDP/RDMAP per-sender state (RFC 5041 §4.3, §5; RFC 5040 §5)
  std::array<check::QueueSequence, rdmap::kQueueCount> queues{};
  check::TaggedSequence tagged;
  struct OutstandingRead {
    std::uint32_t sink_stag = 0;
    std::uint64_t sink_to = 0;
    std::uint32_t size = 0;
    std::uint64_t received = 0;
    bool sink_reported = false;
  };
  std::deque<OutstandingRead> reads;      // Read Requests this side sent, unanswered
  std::deque<std::uint32_t> atomics;      // Request Identifiers this side sent
  bool terminated = false;
  std::optional<wire::Hint> length_hint;  // for the FPDU being reported: its ULPDU_Length looks byte-swapped
  bool after_terminate_reported = false;

  DirectionStats stats;
  std::array<std::uint64_t, 16> rdmap_messages{};
  std::array<std::uint64_t, 5> clc_types{};

  std::uint64_t position(std::uint64_t offset) const { return offset - position_base; }
  void forget_ddp_state() {
    for (check::QueueSequence& q : queues) q = check::QueueSequence{};
    tagged = check::TaggedSequence{};
  }
};

// ------------------------------------------------------------------- setup

ConnectionObserver::ConnectionObserver(ObserverSink& sink, ObserverConfig config)
    : sink_(sink), config_(config) {
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

void ConnectionObserver::on_syn(Side side, bool smc_option) {
  syn_seen_[static_cast<int>(side)] = true;
  syn_smc_[static_cast<int>(side)] = smc_option;
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

void ConnectionObserver::on_data(Side side, FrameNo frame, wire::Bytes octets) {
  Direction& d = dir(side);
  d.stats.octets += octets.size();
  feed(d, frame, octets);
}

// Zero copy where possible: whole units are decoded straight from the
// caller's octets; only a unit cut by the end of `octets` is kept, and a kept
// unit is topped up with just the octets it still needs.
void ConnectionObserver::feed(Direction& d, FrameNo frame, wire::Bytes octets) {
  while (!octets.empty()) {
    if (d.buf.empty()) {
      const Consumed c = consume(d, frame, octets, frame);
      octets = octets.subspan(c.used);
      if (octets.empty()) return;
      // The rest is kept below, in the same steps as if it came octet by
      // octet (so the buffer limit strikes at the same octet).
      d.buf_first_frame = frame;
      d.need = c.need;
    }
    std::size_t take = octets.size();
    if (d.need > d.buf.size()) take = std::min(take, d.need - d.buf.size());
    // Never more than one octet beyond the limit before it is applied.
    take = std::min(take, config_.max_buffer + 1 - std::min(d.buf.size(), config_.max_buffer));
    d.buf.insert(d.buf.end(), octets.begin(), octets.begin() + static_cast<std::ptrdiff_t>(take));
    octets = octets.subspan(take);
    if (d.need <= d.buf.size()) {
      // consume() reads a view of d.buf; the feeding flag keeps pump() (run
      // when this side's own MPA frame settles the startup) from taking the
      // buffer away underneath it: the ongoing consume() goes on in the new mode.
      d.feeding = true;
      const Consumed c = consume(d, frame, d.buf, d.buf_first_frame);
      d.feeding = false;
      if (c.used == d.buf.size()) {
        d.buf.clear();
        d.need = 0;
        continue;
      }
      if (c.used > 0) {
        d.buf.erase(d.buf.begin(), d.buf.begin() + static_cast<std::ptrdiff_t>(c.used));
        if (d.buf.size() <= take) d.buf_first_frame = frame;
      }
      d.need = c.need;
    }
    if (d.buf.size() > config_.max_buffer) apply_buffer_limit(d, frame);
  }
}

// Bounds what one direction holds: beyond max_buffer the oldest octets are
// given up, down to half of it.
void ConnectionObserver::apply_buffer_limit(Direction& d, FrameNo frame) {
  const std::size_t drop = d.buf.size() - config_.max_buffer / 2;
  d.stats.skipped_octets += drop;
  event(EventKind::kLimit, d.side, frame, d.consumed_to, drop, "buffer limit: octets skipped");
  d.buf.erase(d.buf.begin(), d.buf.begin() + static_cast<std::ptrdiff_t>(drop));
  d.consumed_to += drop;
  d.buf_first_frame = frame;
  d.need = 0;
  d.hunt_from = std::max(d.hunt_from, d.consumed_to);  // a hunt never looks back into dropped octets
  if (d.mode != Direction::Mode::kHunt && d.mode != Direction::Mode::kOpaque) start_hunt(d, frame, "buffer limit");
}

// Re-examines a side's kept octets (after the peer's frame settled MPA).
void ConnectionObserver::pump(Direction& d, FrameNo frame) {
  if (d.buf.empty() || d.feeding) return;
  std::vector<std::uint8_t> kept;
  kept.swap(d.buf);
  const FrameNo first = d.buf_first_frame;
  d.need = 0;
  const Consumed c = consume(d, frame, kept, first);
  if (c.used < kept.size()) {
    d.buf.assign(kept.begin() + static_cast<std::ptrdiff_t>(c.used), kept.end());
    d.buf_first_frame = c.used == 0 ? first : frame;
    d.need = c.need;
  }
}

ConnectionObserver::Consumed ConnectionObserver::consume(Direction& d, FrameNo frame, wire::Bytes octets,
                                                         FrameNo first_frame) {
  using Mode = Direction::Mode;
  Consumed total;
  for (;;) {
    const wire::Bytes rest = octets.subspan(total.used);
    if (rest.empty()) {
      total.need = 0;
      return total;
    }
    const FrameNo ff = total.used == 0 ? first_frame : frame;
    const Mode before = d.mode;
    Consumed c;
    switch (d.mode) {
      case Mode::kDetect: c = detect(d, frame, rest); break;
      case Mode::kMpaStartup: c = mpa_startup(d, frame, rest, ff); break;
      case Mode::kAwaitPeerFrame: c = Consumed{0, 0}; break;
      case Mode::kFull: c = full_operation(d, frame, rest, ff); break;
      case Mode::kHunt: c = hunt(d, frame, rest); break;
      case Mode::kClc: c = clc_stream(d, frame, rest, ff); break;
      case Mode::kRejected:
        violate(rules::kDataAfterReject, d.side, frame, d.consumed_to,
                std::to_string(rest.size()) + " octets after a rejecting Reply");
        d.mode = Mode::kOpaque;
        [[fallthrough]];
      case Mode::kOpaque:
        d.stats.skipped_octets += rest.size();
        c = Consumed{rest.size(), 0};
        break;
    }
    total.used += c.used;
    d.consumed_to += c.used;
    if (c.used == 0 && d.mode == before) {
      total.need = c.need;
      return total;
    }
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
    violate(rules::kReqRepKey, d.side, frame, d.consumed_to,
            "key \"" + key + "\" is neither the Request key nor the Reply key");
    d.mode = Mode::kOpaque;
    return {};
  }
  if (protocol_ == Protocol::kMpa && d.side == Side::kResponder && dir(Side::kInitiator).frame) {
    violate(rules::kReqRepKey, d.side, frame, d.consumed_to, "the answer to an MPA Request does not start with the Reply key");
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
    violate(rule_for_req_rep(size.error()), d.side, frame, d.consumed_to, size.error().to_string(), std::move(hint));
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
    violate(rule_for_req_rep(r.error()), d.side, frame, d.consumed_to, r.error().to_string());
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
    violate(rules::kReqRepKey, d.side, frame, d.consumed_to,
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
  mpa_.known = true;
  mpa_.revision = rep.revision;
  // RFC 5044 §7.1.2: CRC is used when either frame asks for it; each side
  // receives Markers when its own frame asked for them.
  mpa_.crc = req.crc || rep.crc;
  mpa_.markers[static_cast<int>(Side::kInitiator)] = rep.markers;
  mpa_.markers[static_cast<int>(Side::kResponder)] = req.markers;
  mpa_.rejected = rep.reject;
  if (rep.revision > req.revision)
    violate(rules::kReplyRevision, Side::kResponder, rsp.frame_number, 0,
            "Reply Rev " + std::to_string(rep.revision) + " above the Request's " + std::to_string(req.revision));
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
    if (q.peer_to_peer && !q.rtr_send && !q.rtr_write && !q.rtr_read)
      violate(rules::kP2pOffer, Side::kInitiator, ini.frame_number, 0, "Request sets A but offers no RTR kind");
    // RFC 6581 §9.2: A is echoed. A peer-to-peer Reply sets at least one
    // RTR kind; it may set several, and kinds not offered. The initiator
    // offered every kind it can send, so it can send one of the Reply's
    // kinds exactly when one was offered (checked at its first FPDU).
    if (!rep.reject && q.peer_to_peer != p.peer_to_peer)
      violate(rules::kP2pEcho, Side::kResponder, rsp.frame_number, 0,
              std::string("Reply ") + (p.peer_to_peer ? "sets" : "clears") + " A, the Request " +
                  (q.peer_to_peer ? "sets" : "clears") + " it",
              mpa::diagnose_ird_ord_swapped(q, p));
    else if (!rep.reject && q.peer_to_peer && !mpa::reply_sets_rtr(p))
      violate(rules::kReplyRtrAtLeastOne, Side::kResponder, rsp.frame_number, 0,
              "peer-to-peer Reply sets none of B, C, D", mpa::diagnose_ird_ord_swapped(q, p));
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
}

// ------------------------------------------------------- full operation

ConnectionObserver::Consumed ConnectionObserver::full_operation(Direction& d, FrameNo frame, wire::Bytes rest,
                                                                FrameNo first_frame) {
  std::size_t pos = 0;
  for (;;) {
    const mpa::DeframeResult r = d.deframer->next(rest.subspan(pos));
    if (const auto* more = std::get_if<mpa::NeedMore>(&r)) return {pos, more->at_least};
    if (std::get_if<mpa::DeframeError>(&r)) {
      d.consumed_to += pos;
      start_hunt(d, frame, "deframer error");
      d.consumed_to -= pos;
      return {pos, 0};
    }
    const mpa::Fpdu& f = std::get<mpa::Fpdu>(r);
    // A CRC that fails over a header that makes no sense means the framing
    // itself is lost (a wrong ULPDU_Length earlier): hunt rather than
    // report every following "FPDU".
    if (f.crc_status == mpa::CrcStatus::kMismatch) {
      std::array<std::uint8_t, kCandidateHead> head{};
      const std::size_t n = std::min(f.ulpdu().size(), ddp::kUntaggedHeaderSize);
      f.ulpdu().copy_prefix(wire::MutableBytes(head).first(n));
      if (!plausible_segment(wire::Bytes(head).first(n))) {
        violate(rules::kCrc, d.side, frame, d.consumed_to + pos,
                "CRC mismatch over an implausible DDP header: framing lost, resynchronising",
                f.markers.size() == 0 ? mpa::diagnose_ulpdu_length(rest.subspan(pos)) : std::nullopt);
        d.consumed_to += pos;
        start_hunt(d, frame, "framing lost");
        d.consumed_to -= pos;
        return {pos, 0};
      }
    }
    // A CRC that fails over a plausible header may be a length sent in the
    // wrong byte order (the CRC checks at the swapped length's end).
    if (f.crc_status == mpa::CrcStatus::kMismatch && f.markers.size() == 0)
      d.length_hint = mpa::diagnose_ulpdu_length(rest.subspan(pos));
    d.consumed_to += pos;
    on_fpdu(d, f, pos == 0 ? first_frame : frame, frame);
    d.length_hint.reset();
    d.consumed_to -= pos;
    pos += f.consumed;
  }
}

// A DDP/RDMAP header a real sender could have sent (RFC 5041 §4.1 DV,
// RFC 5040 §4.2 RV, §4.3 opcode and its T bit and queue).
bool ConnectionObserver::plausible_segment(wire::Bytes h) const {
  if (h.size() < 2) return false;
  const ddp::Control c = ddp::Control::from_octets(h[0], h[1]);
  const rdmap::Control r = rdmap::Control::from_octet(h[1]);
  if (c.dv != ddp::kDdpVersion || r.rv != rdmap::kRdmapVersion) return false;
  const rdmap::OpcodeInfo* info = rdmap::find_opcode(r.opcode);
  if (!info || info->tagged != c.tagged) return false;
  if (!c.tagged && h.size() >= ddp::kUntaggedHeaderSize && info->queue &&
      u32<ddp::UntaggedHeader>(h, ddp::UntaggedSpec::Field::QN) != static_cast<std::uint32_t>(*info->queue))
    return false;
  return true;
}

void ConnectionObserver::on_fpdu(Direction& d, const mpa::Fpdu& f, FrameNo first_frame, FrameNo frame) {
  ++d.stats.fpdus;
  const std::uint64_t offset = d.consumed_to;
  // Without CRC the field may hold anything and is not checked (RFC 5044
  // §4.1, §7.1.1 C bit): nothing to report then.
  if (f.crc_status == mpa::CrcStatus::kMismatch)
    violate(rules::kCrc, d.side, frame, offset, "CRC " + hex(f.received_crc) + ", computed " + hex(f.computed_crc),
            d.length_hint ? d.length_hint : mpa::diagnose_crc(f.received_crc, f.computed_crc));
  // A length read byte-swapped makes PAD and CRC fall elsewhere: only the
  // CRC violation (with its hint) says something about this FPDU.
  if (f.pad_nonzero && !d.length_hint)
    violate(rules::kPadZero, d.side, frame, offset,
            "PAD " + hex_octets(wire::Bytes(f.pad).first(f.pad_length)) + " after a " + std::to_string(f.ulpdu_length) +
                "-octet ULPDU: the " + std::to_string(f.pad_length) + " PAD octets must be sent as zero, these are not");
  for (std::size_t i = 0; i < f.markers.size(); ++i) {
    const mpa::MarkerSeen m = f.markers[i];
    if (!m.valid)
      violate(rules::kMarkerFpduPtr, d.side, frame, d.consumed_to + (m.stream_position - f.stream_position),
              "FPDUPTR " + std::to_string(m.fpdu_ptr) + ", expected " + std::to_string(m.expected_fpdu_ptr));
    if (m.reserved != 0)
      violate(rules::kMarkerReserved, d.side, frame, d.consumed_to + (m.stream_position - f.stream_position),
              "Marker Reserved " + hex(m.reserved));
  }
  SegmentInfo seg;
  check_segment(d, f, seg, frame, offset);
  if (config_.report_fpdus) {
    Message m;
    m.kind = MessageKind::kFpdu;
    m.side = d.side;
    m.first_frame = first_frame;
    m.frame = frame;
    m.stream_offset = offset;
    m.octets = f.consumed;
    m.fpdu = &f;
    m.segment = &seg;
    sink_.on_message(m);
  }
}

void ConnectionObserver::check_segment(Direction& d, const mpa::Fpdu& f, SegmentInfo& seg, FrameNo frame,
                                       std::uint64_t offset) {
  const wire::Chunks& u = f.ulpdu();
  std::array<std::uint8_t, kHeadCopy> head{};
  const std::size_t have = std::min(u.size(), head.size());
  u.copy_prefix(wire::MutableBytes(head).first(have));
  const wire::Bytes h = wire::Bytes(head).first(have);
  // Each rule is one function of the rule layer (check/segment.hpp), the
  // one the reference endpoint calls too; here a broken one is worded and
  // reported, and the observation goes on.
  if (check::segment_header(u.size(), ddp::kControlSize)) {
    violate(rules::kUlpduTooShort, d.side, frame, offset, "ULPDU of " + std::to_string(u.size()) + " octets");
    return;
  }
  seg.ddp = ddp::Control::from_octets(h[0], h[1]);
  seg.rdmap = rdmap::Control::from_octet(h[1]);
  const std::size_t hs = seg.ddp.header_size();
  if (check::segment_header(u.size(), hs)) {
    violate(rules::kUlpduTooShort, d.side, frame, offset,
            "ULPDU of " + std::to_string(u.size()) + " octets, DDP header needs " + std::to_string(hs));
    return;
  }
  seg.has_header = true;
  seg.payload_length = static_cast<std::uint32_t>(u.size() - hs);
  if (seg.ddp.tagged) {
    using F = ddp::TaggedSpec::Field;
    seg.stag = u32<ddp::TaggedHeader>(h, F::STag);
    seg.to = ddp::TaggedHeader::read(h, F::TO);
  } else {
    using F = ddp::UntaggedSpec::Field;
    seg.invalidate_stag = u32<ddp::UntaggedHeader>(h, F::RsvdULP32);
    seg.qn = u32<ddp::UntaggedHeader>(h, F::QN);
    seg.msn = u32<ddp::UntaggedHeader>(h, F::MSN);
    seg.mo = u32<ddp::UntaggedHeader>(h, F::MO);
  }
  // The RDMAP header after the DDP header, read through its declaration; the
  // copy is zero beyond `have`, and every read below is guarded by `have`.
  const wire::Bytes payload = wire::Bytes(head).subspan(hs);
  using TF = rdmap::TerminateControlSpec::Field;
  const std::uint8_t opcode = seg.rdmap.opcode;
  if (seg.ddp.last) ++d.rdmap_messages[opcode];

  if (!d.after_terminate_reported && check::after_terminate(d.terminated)) {
    d.after_terminate_reported = true;
    violate(rules::kAfterTerminate, d.side, frame, offset, "FPDU after this side's Terminate");
  }
  if (check::ddp_version(seg.ddp))
    violate(rules::kDdpVersion, d.side, frame, offset, "DV " + std::to_string(seg.ddp.dv));
  if (check::rdmap_version(seg.rdmap))
    violate(rules::kRdmapVersion, d.side, frame, offset, "RV " + std::to_string(seg.rdmap.rv));
  const rdmap::OpcodeInfo* info = rdmap::find_opcode(opcode);
  if (check::opcode_defined(seg.rdmap, info)) violate(rules::kOpcodeDefined, d.side, frame, offset, "opcode " + hex(opcode));
  if (info && check::opcode_buffer_model(*info, seg.ddp))
    violate(rules::kOpcodeTagged, d.side, frame, offset,
            std::string(info->name) + " with T=" + std::to_string(seg.ddp.tagged));

  if (!seg.ddp.tagged) {
    if (auto v = check::queue_number(info, seg.qn))
      violate(rules::kQueueNumber, d.side, frame, offset,
              info && info->queue ? std::string(info->name) + " on QN " + std::to_string(seg.qn) + ", expected " +
                                        std::to_string(v->expected)
                                  : "QN " + std::to_string(seg.qn));
    if (seg.qn < rdmap::kQueueCount) {
      check::QueueSequence& q = d.queues[seg.qn];
      if (!q.known) {
        // After a resynchronisation the queue's place is learnt from here.
        q.known = true;
        q.msn = seg.msn;
        q.in_message = seg.mo != 0;
        q.next_mo = seg.mo;
      }
      if (auto v = check::untagged_sequence(q, seg.msn, seg.mo)) {
        if (v->rule == &check::kMsnSequence)
          violate(rules::kMsnSequence, d.side, frame, offset,
                  "MSN " + std::to_string(seg.msn) + " on QN " + std::to_string(seg.qn) + ", expected " +
                      std::to_string(v->expected));
        else
          violate(rules::kMoSequence, d.side, frame, offset,
                  "MO " + std::to_string(seg.mo) + ", expected " + std::to_string(v->expected));
      }
      check::advance(q, seg.msn, seg.mo, seg.ddp.last, seg.payload_length);
    }
  } else {
    check::TaggedSequence& t = d.tagged;
    if (check::tagged_sequence(t, seg.stag, seg.to))
      violate(rules::kToSequence, d.side, frame, offset,
              "STag " + hex(seg.stag) + " TO " + hex(seg.to) + ", expected STag " + hex(t.stag) + " TO " +
                  hex(t.next_to));
    check::advance(t, seg.stag, seg.to, seg.ddp.last, seg.payload_length);
  }
  if (!info) return;
  if (check::single_segment(*info, seg.ddp.last))
    violate(rules::kSingleSegment, d.side, frame, offset, std::string(info->name) + " without L");
  // A Terminate shorter than its Terminate Control is worded below by its
  // decoder, which names what is missing and what the sender may have meant.
  if (auto v = check::payload_size(*info, seg.payload_length); v && v->rule == &check::kExactSize)
    violate(rules::kExactSize, d.side, frame, offset,
            std::string(info->name) + " payload " + std::to_string(seg.payload_length) + " octets, expected " +
                std::to_string(info->rdmap_header_size));

  // RFC 6581 §9.2: the initiator's first FPDU in peer-to-peer mode is the
  // RTR of a kind the Reply set; one that can send none of them (none was
  // offered) sends a Terminate with LLP error 0x07 instead.
  if (!d.first_fpdu_seen) {
    d.first_fpdu_seen = true;
    if (mpa_.peer_to_peer && d.side == Side::kInitiator && d.params_known) {
      const bool zero_send = info->opcode == rdmap::Opcode::kSend && seg.payload_length == 0;
      const bool zero_write = info->opcode == rdmap::Opcode::kRdmaWrite && seg.payload_length == 0;
      const bool zero_read = info->opcode == rdmap::Opcode::kRdmaReadRequest && have >= hs + 16 &&
                             u32<rdmap::ReadRequestHeader>(payload, rdmap::ReadRequestSpec::Field::ReadSize) == 0;
      const bool rtr = (mpa_.rtr_send && zero_send) || (mpa_.rtr_write && zero_write) || (mpa_.rtr_read && zero_read);
      const bool llp_no_match = info->opcode == rdmap::Opcode::kTerminate && have >= hs + 2 &&
                                u32<rdmap::TerminateControlHeader>(payload, TF::Layer) ==
                                    static_cast<std::uint8_t>(ddp::Layer::kLlp) &&
                                u32<rdmap::TerminateControlHeader>(payload, TF::ErrorCode) == 0x07;
      if (!rtr && !mpa_.rtr_sendable && !llp_no_match)
        violate(rules::kNoMatchingRtr, d.side, frame, offset,
                "the Reply sets no RTR kind the Request offered, but the first FPDU is " + std::string(info->name) +
                    " rather than a Terminate with LLP error 0x07");
      else if (!rtr && mpa_.rtr_sendable)
        violate(rules::kRtrFirst, d.side, frame, offset,
                "first FPDU is " + std::string(info->name) + " of " + std::to_string(seg.payload_length) +
                    " octets, not the RTR of a kind the Reply set");
    }
  }

  Direction& peer = dir(other(d.side));
  switch (info->opcode) {
    case rdmap::Opcode::kRdmaReadRequest:
      if (have >= hs + rdmap::kReadRequestHeaderSize) {
        seg.read_request = rdmap::ReadRequestHeader(
            std::span<const std::uint8_t, rdmap::kReadRequestHeaderSize>(h.subspan(hs).first<rdmap::kReadRequestHeaderSize>()));
        if (reads_synced_) {
          using RF = rdmap::ReadRequestSpec::Field;
          d.reads.push_back({static_cast<std::uint32_t>(seg.read_request->get(RF::SinkSTag)),
                             seg.read_request->get(RF::SinkTO),
                             static_cast<std::uint32_t>(seg.read_request->get(RF::ReadSize)), 0, false});
          if (d.reads.size() > kMaxOutstanding) {
            reads_synced_ = false;
            event(EventKind::kLimit, d.side, frame, offset, d.reads.size(), "too many outstanding Read Requests to match");
            for (auto& x : dirs_) x->reads.clear(), x->atomics.clear();
          } else if (mpa_.enhanced && check::inbound_requests(d.reads.size(), mpa_.ird[static_cast<int>(peer.side)])) {
            violate(rules::kOrdExceeded, d.side, frame, offset,
                    std::to_string(d.reads.size()) + " Read Requests outstanding, peer IRD " +
                        std::to_string(mpa_.ird[static_cast<int>(peer.side)]));
          }
        }
      }
      break;
    case rdmap::Opcode::kRdmaReadResponse:
      if (!reads_synced_) break;
      if (check::read_response_solicited(peer.reads.size())) {
        violate(rules::kReadUnsolicited, d.side, frame, offset, "Read Response with no Read Request outstanding");
        break;
      } else {
        Direction::OutstandingRead& r = peer.reads.front();
        if (!r.sink_reported && check::read_response_sink(seg.stag, seg.to, r.sink_stag, r.sink_to + r.received)) {
          r.sink_reported = true;
          violate(rules::kReadResponseSink, d.side, frame, offset,
                  "STag " + hex(seg.stag) + " TO " + hex(seg.to) + ", requested STag " + hex(r.sink_stag) + " TO " +
                      hex(r.sink_to + r.received));
        }
        r.received += seg.payload_length;
        if (seg.ddp.last || r.received > r.size) {
          if (check::read_response_size(r.received, r.size))
            violate(rules::kReadResponseSize, d.side, frame, offset,
                    std::to_string(r.received) + " octets answered, " + std::to_string(r.size) + " requested");
          peer.reads.pop_front();
          // A response longer than asked would go on matching the next
          // request; its remaining segments are not attributed.
          if (!seg.ddp.last) d.tagged.in_message = false;
        }
      }
      break;
    case rdmap::Opcode::kAtomicRequest:
      if (have >= hs + rdmap::kAtomicRequestHeaderSize && reads_synced_) d.atomics.push_back(u32<rdmap::AtomicRequestHeader>(payload, rdmap::AtomicRequestSpec::Field::RequestIdentifier));
      break;
    case rdmap::Opcode::kAtomicResponse:
      if (have >= hs + rdmap::kAtomicResponseHeaderSize && reads_synced_) {
        const std::uint32_t id =
            u32<rdmap::AtomicResponseHeader>(payload, rdmap::AtomicResponseSpec::Field::OriginalRequestIdentifier);
        if (check::atomic_response_order(peer.atomics.empty() ? std::nullopt : std::optional(peer.atomics.front()), id))
          violate(rules::kAtomicUnsolicited, d.side, frame, offset,
                  "Atomic Response for Request Identifier " + hex(id) +
                      (peer.atomics.empty() ? ", none outstanding" : ", oldest outstanding " + hex(peer.atomics.front())));
        if (!peer.atomics.empty()) peer.atomics.pop_front();
      }
      break;
    case rdmap::Opcode::kTerminate: {
      std::vector<std::uint8_t> body = u.subrange(hs).to_vector();
      auto t = rdmap::decode_terminate(body);
      if (!t)
        violate(rules::kTerminateFormat, d.side, frame, offset,
                "Terminate Control " + hex_octets(wire::Bytes(body).first(std::min<std::size_t>(body.size(), 4))) +
                    rdmap::describe_control(body) + ": " + t.error().to_string(),
                rdmap::diagnose_terminate(body));
      else seg.terminate = *t;
      d.terminated = true;
      break;
    }
    default: break;
  }
}

// ---------------------------------------------------------------- hunting

void ConnectionObserver::start_hunt(Direction& d, FrameNo frame, std::string_view why) {
  d.mode = Direction::Mode::kHunt;
  d.hunt_fresh = true;
  d.deframer.reset();
  d.forget_ddp_state();
  event(EventKind::kSkipped, d.side, frame, d.consumed_to, 0, "hunting for FPDU framing: " + std::string(why));
}

// Looks for the next FPDU the stream can be resynchronised on. With known
// parameters and Markers, only Marker positions are candidates (RFC 5044
// §4.3: FPDUPTR leads back to an FPDU header, 0 when the FPDU starts right
// after the Marker). Otherwise every offset is a candidate whose header must
// be plausible and whose CRC must check; when the parameters are unknown
// (mid-connection start), Marker hypotheses are tried too, and a run of
// three plausible FPDUs with zero CRC fields says CRC is off.
ConnectionObserver::Consumed ConnectionObserver::hunt(Direction& d, FrameNo frame, wire::Bytes rest) {
  const std::uint64_t base = d.consumed_to;  // stream offset of rest[0]
  if (d.hunt_fresh) {
    d.hunt_fresh = false;
    d.hunt_began = d.hunt_from = d.hunt_scan = base;
    d.hunt_pending.clear();
  }
  d.hunt_from = std::max(d.hunt_from, base);
  d.hunt_scan = std::max(d.hunt_scan, base);

  struct Try {
    bool found = false;
    bool need_more = false;
    std::size_t need = 0;  // with need_more: octets of rest needed
  };
  // Deframes one candidate FPDU at `start` under a hypothesis.
  auto attempt = [&](std::size_t start, bool markers, bool crc, std::uint64_t position) -> Try {
    mpa::DeframerConfig c;
    c.markers = markers;
    c.crc = crc;
    c.stream_position = position;
    c.fail_on_error = false;
    mpa::Deframer probe(c);
    const mpa::DeframeResult r = probe.next(rest.subspan(start));
    if (const auto* more = std::get_if<mpa::NeedMore>(&r)) return {false, true, start + more->at_least};
    const auto* f = std::get_if<mpa::Fpdu>(&r);
    if (!f) return {};
    if (f->ulpdu_length < kMinUlpdu) return {};
    if (crc) return {f->crc_status == mpa::CrcStatus::kMatch, false, 0};
    return {f->received_crc == 0, false, 0};
  };
  auto resync = [&](std::size_t at, std::string_view how) -> Consumed {
    d.stats.skipped_octets += at;
    ++d.stats.resyncs;
    protocol_ = Protocol::kMpa;
    d.consumed_to += at;
    event(EventKind::kResynchronised, d.side, frame, d.consumed_to, at,
          std::string("resynchronised ") + std::string(how) + " after skipping " +
              std::to_string(d.consumed_to - d.hunt_began) + " octets");
    enter_full_operation(d);
    d.consumed_to -= at;
    return {at, 0};
  };
  auto header_plausible = [&](std::size_t c) {
    const std::uint32_t len = ulpdu_length_at(rest, c);
    if (len < kMinUlpdu) return false;
    return plausible_segment(rest.subspan(c + mpa::kUlpduLengthSize, ddp::kUntaggedHeaderSize));
  };

  // Known parameters with Markers: only Marker positions.
  if (d.params_known && d.markers) {
    const std::uint64_t p0 = d.position(d.consumed_to);
    std::size_t k = static_cast<std::size_t>((mpa::kMarkerInterval - p0 % mpa::kMarkerInterval) % mpa::kMarkerInterval);
    if (k + mpa::kMarkerSize > rest.size()) return {0, k + mpa::kMarkerSize};
    const std::uint32_t ptr = marker_field(rest, k, mpa::MarkerSpec::Field::FPDUPTR);
    // FPDUPTR 0: the FPDU starts with this Marker; otherwise its header is
    // FPDUPTR octets back, which must be octets we have.
    if (ptr == 0 || ptr <= k) {
      const std::size_t start = ptr == 0 ? k : k - ptr;
      const Try t = attempt(start, true, d.crc, p0 + start);
      if (t.found) return resync(start, "on a Marker");
      if (t.need_more) return {0, t.need};
    }
    // Nothing before the next Marker can start a usable FPDU any more.
    const std::size_t drop = k + mpa::kMarkerSize;
    d.stats.skipped_octets += drop;
    return {drop, 0};
  }

  const char* const checked = "on an FPDU whose CRC checks";

  // Known parameters, CRC on, no Markers: every offset whose header is
  // plausible is a candidate, and its CRC must check. A candidate whose FPDU
  // is not all here yet is not waited for: a false one (a plausible header
  // inside payload or CRC octets) may claim tens of kilooctets, and a true
  // FPDU follows it much sooner. Of the candidates whose CRC checks, the one
  // that ends first wins. Every candidate that could end before it is
  // complete by then, and the hunt is asked again at each new candidate
  // header and whenever a pending FPDU is complete, so the choice does not
  // depend on how TCP cut the stream. Each candidate is looked at once, and
  // once more when its octets are all here.
  if (d.params_known && d.crc) {
    const std::uint64_t avail = base + rest.size();
    std::optional<std::pair<std::uint64_t, std::uint64_t>> best;  // (candidate, where it ends)
    auto consider = [&](std::uint64_t at) {
      const std::size_t c = static_cast<std::size_t>(at - base);
      const Try t = attempt(c, false, true, 0);
      if (t.need_more) {
        d.hunt_pending.emplace_back(at, base + t.need);
      } else if (t.found) {
        const std::uint64_t end = at + mpa::fpdu_length_without_markers(ulpdu_length_at(rest, c));
        if (!best || end < best->second) best.emplace(at, end);
      }
    };
    std::vector<std::pair<std::uint64_t, std::uint64_t>> waiting;
    waiting.swap(d.hunt_pending);
    for (const auto& [at, until] : waiting) {
      if (at < base) continue;  // its octets were given up (buffer limit)
      if (until <= avail) consider(at);
      else d.hunt_pending.emplace_back(at, until);
    }
    std::uint64_t at = d.hunt_scan;
    for (; at + kCandidateHead <= avail && !(best && at >= best->second); ++at) {
      if (header_plausible(static_cast<std::size_t>(at - base))) consider(at);
    }
    d.hunt_scan = at;
    if (best) {
      d.hunt_pending.clear();
      return resync(static_cast<std::size_t>(best->first - base), checked);
    }
    // Wait for the next candidate's header or the first pending FPDU to be
    // complete, keeping the octets from the first pending candidate on.
    std::uint64_t keep_from = d.hunt_scan;
    std::uint64_t until = d.hunt_scan + kCandidateHead;
    for (const auto& [p, u] : d.hunt_pending) {
      keep_from = std::min(keep_from, p);
      until = std::min(until, u);
    }
    const std::size_t drop = static_cast<std::size_t>(keep_from - base);
    d.stats.skipped_octets += drop;
    return {drop, static_cast<std::size_t>(until - keep_from)};
  }

  // Otherwise every offset is a candidate, from hunt_scan on, and the hunt
  // waits at the first one whose octets are not all here. Waiting for
  // octets keeps the ones a later Marker candidate may point back to
  // (kHuntLookback) and gives up the older ones.
  auto wait = [&](std::size_t c, std::size_t need_from_c) -> Consumed {
    d.hunt_scan = base + c;
    const std::uint64_t keep_from = std::max(d.hunt_from, d.hunt_scan - std::min<std::uint64_t>(d.hunt_scan, kHuntLookback));
    const std::size_t drop = static_cast<std::size_t>(std::max(keep_from, base) - base);
    d.stats.skipped_octets += drop;
    return {drop, need_from_c == 0 ? 0 : c - drop + need_from_c};
  };
  const bool known = d.params_known;  // (and then CRC is off)
  for (std::size_t c = static_cast<std::size_t>(d.hunt_scan - base);; ++c) {
    if (c + kCandidateHead > rest.size()) return wait(c, kCandidateHead);
    if (header_plausible(c)) {
      if (!known) {
        const Try t = attempt(c, false, true, 0);
        // The other hypotheses at this offset need the same octets.
        if (t.need_more) return wait(c, t.need - c);
        if (t.found) {
          d.markers = false;
          d.crc = true;
          d.crc_known = true;
          d.params_known = true;
          d.position_base = d.consumed_to + c;  // phase irrelevant without Markers
          return resync(c, checked);
        }
      }
      if ((!known || !d.crc) && !d.markers) {
        // CRC off: three plausible FPDUs in a row with zero CRC fields.
        // A run that needs more octets than half the buffer from its start
        // is not waited for.
        std::size_t at = c;
        int run = 0;
        std::size_t need_end = 0;  // octets of rest the run still needs
        while (run < 3) {
          if (at + kCandidateHead > rest.size()) {
            need_end = at + kCandidateHead;
            break;
          }
          if (!header_plausible(at)) break;
          const Try t = attempt(at, false, false, 0);
          if (t.need_more) {
            need_end = t.need;
            break;
          }
          if (!t.found) break;
          at += mpa::fpdu_length_without_markers(ulpdu_length_at(rest, at));
          ++run;
        }
        if (run == 3) {
          if (!d.params_known) {
            d.markers = false;
            d.crc = false;
            d.crc_known = true;
            d.params_known = true;
            d.position_base = d.consumed_to + c;
          }
          return resync(c, "on three FPDUs without CRC");
        }
        if (need_end != 0 && need_end - c <= config_.max_buffer / 2) return wait(c, need_end - c);
      }
    }
    // Unknown parameters: could `c` be a Marker (Reserved zero)? Then the
    // FPDU it points into starts FPDUPTR octets back (or at c for 0).
    if (!d.params_known && marker_field(rest, c, mpa::MarkerSpec::Field::Reserved) == 0) {
      const std::uint32_t ptr = marker_field(rest, c, mpa::MarkerSpec::Field::FPDUPTR);
      const bool reachable = ptr == 0 || (ptr <= c && ptr <= kHuntLookback && base + c - ptr >= d.hunt_from);
      if (reachable) {
        const std::size_t start = ptr == 0 ? c : c - ptr;
        // Position such that a Marker falls on `c`.
        const std::uint64_t position = (mpa::kMarkerInterval - (c - start) % mpa::kMarkerInterval) % mpa::kMarkerInterval;
        const std::size_t header = ptr == 0 ? c + mpa::kMarkerSize : start;
        if (header + kCandidateHead > rest.size()) return wait(c, header + kCandidateHead - c);
        if (header_plausible(header)) {
          const Try t = attempt(start, true, true, position);
          if (t.need_more) return wait(c, t.need - c);
          if (t.found) {
            d.markers = true;
            d.crc = true;
            d.crc_known = true;
            d.params_known = true;
            d.position_base = d.consumed_to + start - position;
            return resync(start, "on a Marker (Markers inferred)");
          }
        }
      }
    }
  }
}

// --------------------------------------------------------------------- CLC

ConnectionObserver::Consumed ConnectionObserver::clc_stream(Direction& d, FrameNo frame, wire::Bytes rest,
                                                            FrameNo first_frame) {
  if (clc_done_) {
    // After a Confirm nothing more is CLC; after a Decline the connection
    // falls back to plain TCP (RFC 7609 App. C.1).
    d.mode = Direction::Mode::kOpaque;
    return {};
  }
  if (rest.size() < clc::kHeaderSize) return {0, clc::kHeaderSize};
  auto len = clc::message_length(rest.first(clc::kHeaderSize));
  if (!len) {
    violate(rules::kClcFormat, d.side, frame, d.consumed_to, len.error().to_string());
    d.mode = Direction::Mode::kOpaque;
    return {};
  }
  if (rest.size() < *len) return {0, *len};
  const wire::Bytes octets = rest.first(*len);
  ++d.stats.clc_messages;
  auto m = clc::decode(octets);
  if (!m) {
    violate(rules::kClcFormat, d.side, frame, d.consumed_to, m.error().to_string());
    // The peer takes what a receiver's rules allow (a Decline's reserved
    // bits, a v2 Accept's surplus octets, clc::DecodeRules): the exchange
    // goes on as the peer sees it.
    m = clc::decode(octets, clc::DecodeRules::kReceiver);
  }
  if (m) on_clc(d, *m, octets, first_frame, frame, d.consumed_to);
  return {*len, 0};
}

void ConnectionObserver::on_clc(Direction& d, const clc::Message& m, wire::Bytes octets, FrameNo first_frame,
                                FrameNo frame, std::uint64_t offset) {
  using clc::MessageType;
  const MessageType type = clc::message_type(m);
  ++d.clc_types[static_cast<std::size_t>(type) % d.clc_types.size()];
  if (!clc_option_checked_ && syn_seen_[0] && syn_seen_[1]) {
    clc_option_checked_ = true;
    if (!(syn_smc_[0] && syn_smc_[1]))
      violate(rules::kClcWithoutOption, d.side, frame, offset,
              std::string("SMC option in SYN: ") + (syn_smc_[0] ? "yes" : "no") + ", in SYN-ACK: " +
                  (syn_smc_[1] ? "yes" : "no"));
  }
  Message msg;
  msg.kind = MessageKind::kClc;
  msg.side = d.side;
  msg.first_frame = first_frame;
  msg.frame = frame;
  msg.stream_offset = offset;
  msg.octets = octets.size();
  msg.clc = &m;
  msg.clc_octets = octets;
  sink_.on_message(msg);

  const bool client = d.side == Side::kInitiator;
  auto order = [&](std::string what) { violate(rules::kClcOrder, d.side, frame, offset, std::move(what)); };
  switch (type) {
    case MessageType::kProposal: {
      const auto& p = std::get<clc::Proposal>(m);
      if (!client || proposal_) order(client ? "a second Proposal" : "a Proposal from the server");
      using PF = clc::ProposalBodySpec::Field;
      // Peer ID, GID and MAC are the client's identity only on a v1 SMC-R
      // offer; a v2-only Proposal leaves them zero (clc::Proposal::v1_smcr_identity).
      if (p.v1_smcr_identity()) {
        if (p.body.get(PF::PeerId) == 0)
          violate(rules::kProposalPeerId, d.side, frame, offset,
                  "Proposal offers SMC-R v1 with peer ID 0 (the Peer ID names the client's SMC-R instance)");
        if (all_zero(p.body.octets(PF::Gid)) || !unicast_mac(p.body.octets(PF::Mac)))
          violate(rules::kProposalGidMac, d.side, frame, offset,
                  "Proposal offers SMC-R v1 with GID " + std::string(all_zero(p.body.octets(PF::Gid)) ? "zero" : "set") +
                      " and MAC " + hex_octets(p.body.octets(PF::Mac)) + " (GID must be set, MAC unicast)");
      }
      if (!proposal_) proposal_ = p;
      break;
    }
    case MessageType::kAccept: {
      const auto& a = std::get<clc::AcceptConfirm>(m);
      if (client || !proposal_ || accept_) order(client ? "an Accept from the client" : "an Accept out of order");
      if (proposal_ && !accept_) check_accept(d, a, frame, offset);
      if (!accept_) accept_ = a;
      break;
    }
    case MessageType::kConfirm: {
      const auto& c = std::get<clc::AcceptConfirm>(m);
      if (!client || !accept_) order(!client ? "a Confirm from the server" : "a Confirm before any Accept");
      if (accept_ && proposal_) check_confirm(d, c, frame, offset);
      clc_done_ = true;
      break;
    }
    case MessageType::kDecline: {
      const auto& dc = std::get<clc::Decline>(m);
      if (dc.out_of_sync() != clc::requires_out_of_sync(dc.diagnosis()))
        violate(rules::kDeclineOutOfSync, d.side, frame, offset,
                "diagnosis " + hex(dc.diagnosis()) + " with Out of Sync " + std::to_string(dc.out_of_sync()));
      if (const clc::DeclineCode* code = clc::find_decline_code(dc.diagnosis()); code && !code->on_wire)
        violate(rules::kDeclineCodeOnWire, d.side, frame, offset,
                "diagnosis " + std::string(code->linux_name) + " is a local reason");
      clc_done_ = true;
      break;
    }
  }
}

namespace {
using RF = clc::SmcrAcceptConfirmSpec::Field;
bool same(Bytes a, Bytes b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }
}  // namespace

void ConnectionObserver::check_accept(Direction& d, const clc::AcceptConfirm& a, FrameNo frame, std::uint64_t offset) {
  const clc::Proposal& p = *proposal_;
  const std::uint8_t v = a.version();
  const clc::SmcType offered =
      v == clc::kVersion1 ? p.smcv1_type() : v == clc::kVersion2 ? p.smcv2_type() : clc::SmcType::kNone;
  auto bad = [&](const Rule& r, std::string text) { violate(r, d.side, frame, offset, std::move(text)); };
  if (offered == clc::SmcType::kNone) bad(rules::kAcceptVersion, "Accept version " + std::to_string(v) + " not offered");
  const clc::SmcType path = a.smc_type();
  const bool path_ok = (path == clc::SmcType::kR && clc::offers_r(offered)) ||
                       (path == clc::SmcType::kD && clc::offers_d(offered));
  if (offered != clc::SmcType::kNone && !path_ok) bad(rules::kAcceptPath, "Accept path not offered for its version");
  // What follows compares the Accept with the offer for its version and
  // path; an Accept outside the offer has nothing there to compare with.
  if (offered == clc::SmcType::kNone || !path_ok) return;
  if (a.smcr) {
    const clc::SmcrBody& b = *a.smcr;
    if (b.get(RF::PeerId) == 0 || all_zero(b.octets(RF::Gid)) || !unicast_mac(b.octets(RF::Mac)))
      bad(rules::kAcceptPeer, "Accept peer ID or GID zero, or MAC not unicast");
    if (b.get(RF::QpNumber) < 2) bad(rules::kAcceptQp, "Accept QP " + std::to_string(b.get(RF::QpNumber)));
    if (!clc::rmb_valid(b)) bad(rules::kAcceptRmb, "Accept RMBE index 0 or RMB wraps");
  }
  if (v == clc::kVersion2 && a.smcr_v2) {
    const Bytes eid = a.smcr_v2->octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid);
    const bool offered_eid = std::any_of(p.user_eids.begin(), p.user_eids.end(), [&](const clc::EidEntry& e) {
      return same(e.octets(clc::EidSpec::Field::Eid), eid);
    });
    if (!offered_eid) bad(rules::kAcceptEid, "Accept EID not among the Proposal's");
  }
  if (v == clc::kVersion2 && a.fce && p.v2_ext) {
    const auto release = a.fce->get(clc::FirstContactExtSpec::Field::Release);
    if (release > p.v2_ext->get(clc::V2ExtensionSpec::Field::Release))
      bad(rules::kAcceptRelease, "Accept release " + std::to_string(release) + " above the Proposal's");
    if (release >= clc::kRelease1 && a.fce_v2x) {
      const auto conns = a.fce_v2x->get(clc::FirstContactExtV2xSpec::Field::MaxConns);
      const auto links = a.fce_v2x->get(clc::FirstContactExtV2xSpec::Field::MaxLinks);
      if (conns < 16) bad(rules::kAcceptMaxConns, "Max Conns " + std::to_string(conns));
      if (links < 1 || links > 2) bad(rules::kAcceptMaxLinks, "Max Links " + std::to_string(links));
    }
  }
}

void ConnectionObserver::check_confirm(Direction& d, const clc::AcceptConfirm& c, FrameNo frame, std::uint64_t offset) {
  const clc::AcceptConfirm& a = *accept_;
  auto bad = [&](const Rule& r, std::string text) { violate(r, d.side, frame, offset, std::move(text)); };
  if (c.version() != a.version())
    bad(rules::kConfirmVersion, "Confirm version " + std::to_string(c.version()) + ", Accept's " + std::to_string(a.version()));
  if (c.smc_type() != a.smc_type()) bad(rules::kConfirmPath, "Confirm path differs from the Accept's");
  if (c.first_contact() != a.first_contact()) bad(rules::kConfirmFirstContact, "First Contact differs from the Accept's");
  if (c.smcr) {
    const clc::SmcrBody& b = *c.smcr;
    if (proposal_->v1_smcr_identity() && b.get(RF::PeerId) != proposal_->body.get(clc::ProposalBodySpec::Field::PeerId))
      bad(rules::kConfirmPeerId, "Confirm peer ID " + hex(b.get(RF::PeerId)) + " differs from the Proposal's " +
                                     hex(proposal_->body.get(clc::ProposalBodySpec::Field::PeerId)));
    if (all_zero(b.octets(RF::Gid)) || !unicast_mac(b.octets(RF::Mac)))
      bad(rules::kConfirmPeer, "Confirm GID zero or MAC not unicast");
    if (b.get(RF::QpNumber) < 2) bad(rules::kConfirmQp, "Confirm QP " + std::to_string(b.get(RF::QpNumber)));
    if (!clc::rmb_valid(b)) bad(rules::kConfirmRmb, "Confirm RMBE index 0 or RMB wraps");
    if (a.smcr && b.get(RF::QpMtu) > a.smcr->get(RF::QpMtu))
      bad(rules::kConfirmMtu, "Confirm QP MTU " + std::to_string(b.get(RF::QpMtu)) + " above the Accept's " +
                                  std::to_string(a.smcr->get(RF::QpMtu)));
  }
  if (c.smcr_v2 && a.smcr_v2 &&
      !same(c.smcr_v2->octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid),
            a.smcr_v2->octets(clc::SmcrV2AcceptConfirmSpec::Field::Eid)))
    bad(rules::kConfirmEid, "Confirm EID differs from the Accept's");
  if (c.fce && a.fce) {
    const auto release = a.fce->get(clc::FirstContactExtSpec::Field::Release);
    if (c.fce->get(clc::FirstContactExtSpec::Field::Release) != release)
      bad(rules::kConfirmRelease, "Confirm release differs from the Accept's");
    if (release >= clc::kRelease1 && c.fce_v2x && a.fce_v2x) {
      using XF = clc::FirstContactExtV2xSpec::Field;
      if (c.fce_v2x->get(XF::MaxConns) != a.fce_v2x->get(XF::MaxConns))
        bad(rules::kConfirmMaxConns, "Confirm Max Conns differs from the Accept's");
      if (c.fce_v2x->get(XF::MaxLinks) != a.fce_v2x->get(XF::MaxLinks))
        bad(rules::kConfirmMaxLinks, "Confirm Max Links differs from the Accept's");
    }
  }
}

}  // namespace rdmaconf::analysis
