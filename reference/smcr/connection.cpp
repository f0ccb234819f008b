#include "smcr/connection.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "check/smcr.hpp"

namespace rdmaconf::smcr {
namespace {

using F = CdcSpec::Field;

// What this reference writes at the start of its own RMBE. §4.2 leaves the
// eyecatcher's contents to the implementation; §4.4.1 has the owner set it
// before the peer learns the RMBE and check it on every reference.
constexpr std::array<std::uint8_t, RmbeGeometry::kEyecatcherSize> kEyecatcher = {'R', 'M', 'B', 'E'};

// A.4: wrap counts are 16 bits.
constexpr std::uint64_t kWraps = std::uint64_t{1} << 16;

std::uint64_t space(const RmbeGeometry& g) { return kWraps * g.capacity(); }

// A.4: sequence numbers wrap at 16 bits; Linux orders them as serial numbers
// (smc_cdc_before): `a` is before `b` when b - a is in the lower half.
bool sequence_before(std::uint16_t a, std::uint16_t b) {
  const auto d = static_cast<std::uint16_t>(b - a);
  return d != 0 && d < 0x8000;
}

// memcpy with an empty source or target may see a null pointer, which it must not.
void copy(std::uint8_t* to, const std::uint8_t* from, std::size_t n) {
  if (n > 0) std::memcpy(to, from, n);
}

}  // namespace

// ---------------------------------------------------------------- cursor arithmetic (A.4)

std::uint64_t position(Cursor c, const RmbeGeometry& g) {
  // A cursor inside the eyecatcher or past the end is refused before it is
  // used (cursor_within_rmbe); clamped here so the arithmetic stays defined.
  const std::uint64_t offset = c.count > g.data_start() ? c.count - g.data_start() : 0;
  return std::uint64_t{c.wrap} * g.capacity() + std::min<std::uint64_t>(offset, g.capacity());
}

std::uint64_t forward_distance(Cursor from, Cursor to, const RmbeGeometry& g) {
  const std::uint64_t m = space(g);
  if (m == 0) return 0;
  return (position(to, g) % m + m - position(from, g) % m) % m;
}

bool behind(Cursor from, Cursor to, const RmbeGeometry& g) {
  return forward_distance(from, to, g) >= space(g) / 2 && space(g) > 0;
}

Cursor advance(Cursor c, std::uint64_t octets, const RmbeGeometry& g) {
  const std::uint64_t m = space(g);
  if (m == 0) return c;
  const std::uint64_t p = (position(c, g) + octets % m) % m;
  return {static_cast<std::uint16_t>(p / g.capacity()), static_cast<std::uint32_t>(p % g.capacity() + g.data_start())};
}

// ---------------------------------------------------------------- names

std::string_view name(PeerError e) {
  switch (e) {
    case PeerError::kWrongAlertToken: return "wrong alert token";
    case PeerError::kSequenceNumber: return "sequence number";
    case PeerError::kUrgentPresentPending: return "urgent present without pending";
    case PeerError::kCursorOutsideRmbe: return "cursor outside the RMBE";
    case PeerError::kConsumerAhead: return "consumer cursor ahead of the data";
    case PeerError::kProducerPastConsumer: return "producer cursor past the consumer cursor";
    case PeerError::kWritesAfterDone: return "data after done writing";
    case PeerError::kProducerNotWrites: return "producer cursor not where the Writes ended";
    case PeerError::kWriteOutsideRmbe: return "Write outside the RMBE";
    case PeerError::kAfterClosed: return "CDC message after the peer closed";
    case PeerError::kFailoverDataLost: return "failover validation: data lost";
    case PeerError::kEyecatcherOverlaid: return "RMBE eyecatcher overlaid";
    case PeerError::kClosedWithDataPending: return "peer closed while data was waiting to be written";
  }
  return "?";
}

std::string_view name(CdcVerdict v) {
  switch (v) {
    case CdcVerdict::kAccepted: return "accepted";
    case CdcVerdict::kDiscarded: return "discarded";
    case CdcVerdict::kIgnored: return "ignored";
    case CdcVerdict::kAborted: return "aborted";
  }
  return "?";
}

std::string_view name(SendStatus s) {
  switch (s) {
    case SendStatus::kOk: return "ok";
    case SendStatus::kShutdown: return "shut down";
    case SendStatus::kPeerClosed: return "peer closed";
    case SendStatus::kUrgentWait: return "urgent data unconfirmed";
  }
  return "?";
}

std::string_view name(ConnectionState s) {
  switch (s) {
    case ConnectionState::kActive: return "Active";
    case ConnectionState::kPeerCloseWait1: return "PeerCloseWait1";
    case ConnectionState::kPeerCloseWait2: return "PeerCloseWait2";
    case ConnectionState::kAppFinCloseWait: return "AppFinCloseWait";
    case ConnectionState::kAppCloseWait1: return "AppCloseWait1";
    case ConnectionState::kAppCloseWait2: return "AppCloseWait2";
    case ConnectionState::kPeerFinCloseWait: return "PeerFinCloseWait";
    case ConnectionState::kPeerAbortWait: return "PeerAbortWait";
    case ConnectionState::kClosed: return "Closed";
  }
  return "?";
}

// ---------------------------------------------------------------- construction

Connection::Connection(const ConnectionConfig& config, std::span<std::uint8_t> own_rmbe)
    : config_(config), own_rmbe_(own_rmbe) {
  // The eyecatcher choice is the link group's (CONFIRM LINK), so both RMBEs
  // agree; a configuration the arithmetic cannot serve leaves the connection
  // Closed rather than touching memory it was not given.
  const bool usable = config_.own.valid() && config_.peer.valid() &&
                      config_.own.eyecatcher == config_.peer.eyecatcher && own_rmbe_.size() >= config_.own.size &&
                      config_.send_buffer > 0;
  if (!usable) {
    own_rmbe_ = {};
    state_ = ConnectionState::kClosed;
    aborted_ = true;
    return;
  }
  own_rmbe_ = own_rmbe_.first(config_.own.size);
  // §4.4.1: zero the whole RMBE and set its eyecatcher before use.
  std::fill(own_rmbe_.begin(), own_rmbe_.end(), std::uint8_t{0});
  if (config_.own.eyecatcher) std::copy(kEyecatcher.begin(), kEyecatcher.end(), own_rmbe_.begin());
  send_ring_.resize(config_.send_buffer);
  // A.4: cursors begin at the first data octet (4, or 0 without eyecatcher).
  producer_ = peer_consumer_ = {0, config_.peer.data_start()};
  consumer_ = peer_producer_ = confirmed_ = {0, config_.own.data_start()};
}

// ---------------------------------------------------------------- what the connection knows

std::size_t Connection::unread() const { return static_cast<std::size_t>(received_ - consumed_); }

std::size_t Connection::readable() const {
  if (aborted_ || state_ == ConnectionState::kClosed) return 0;
  const std::uint64_t to_mark = urgent_mark_ ? *urgent_mark_ - consumed_ : received_ - consumed_;
  return static_cast<std::size_t>(std::min(received_ - consumed_, to_mark));
}

std::size_t Connection::queued() const { return send_queued_; }

std::uint64_t Connection::window() const {
  // §4.3, A.4: the peer's RMBE holds what was written and not yet consumed
  // as far as the peer told; the rest is free.
  const std::uint64_t in_use = forward_distance(peer_consumer_, producer_, config_.peer);
  return in_use >= config_.peer.capacity() ? 0 : config_.peer.capacity() - in_use;
}

bool Connection::eyecatcher_intact() const {
  if (!config_.own.eyecatcher || own_rmbe_.size() < kEyecatcher.size()) return true;
  if (config_.faults.has(Fault::kEyecatcherUnchecked)) return true;
  return std::equal(kEyecatcher.begin(), kEyecatcher.end(), own_rmbe_.begin());
}

// ---------------------------------------------------------------- sending

CdcMessage Connection::build_cdc(std::uint16_t sequence, bool p, bool u, Flags flags, bool failover) const {
  CdcMessage m;
  Cdc& h = m.header;
  // A.4, Figure 41.
  h.set(F::Type, kCdcType).set(F::Length, kCdcMessageSize).set(F::SequenceNumber, sequence);
  h.set(F::AlertToken, config_.peer_alert_token);
  h.set(F::ProducerWrap, producer_.wrap).set(F::ProducerCursor, producer_.count);
  // §4.5.1: every CDC message carries the consumer cursor.
  h.set(F::ConsumerWrap, consumer_.wrap).set(F::ConsumerCursor, consumer_.count);
  h.set(F::B, blocked_).set(F::P, p).set(F::U, u).set(F::F, failover);
  h.set(F::D, flags.d).set(F::C, flags.c).set(F::A, flags.a);
  return m;
}

void Connection::sequence_taken(std::uint16_t n) {
  if (sequence_before(sequence_, n)) sequence_ = n;
}

CdcMessage Connection::make_cdc(bool p, bool u, Flags flags) {
  // A.4: 1 first, one more for each message, wrapping to 0.
  sequence_ = config_.faults.has(Fault::kRepeatSequenceNumber) ? std::uint16_t{1}
                                                              : static_cast<std::uint16_t>(sequence_ + 1);
  CdcMessage m = build_cdc(sequence_, p, u, flags, false);
  // rfc7609-4.5.1-cursor-update-piggybacked: build_cdc put the consumer
  // cursor as it stands; the fault leaves the last one sent in a message
  // that announces data.
  if (config_.faults.has(Fault::kStaleConsumerCursor) && written_ > written_announced_)
    m.header.set(F::ConsumerWrap, confirmed_.wrap).set(F::ConsumerCursor, confirmed_.count);
  else
    confirmed_ = consumer_;
  written_announced_ = written_;
  urgent_consumed_ = false;
  if (p) urgent_announced_ = true;
  if (u) urgent_announced_ = false;
  finish(flags);
  return m;
}

void Connection::finish(Flags flags) {
  using S = ConnectionState;
  if (flags.a) {
    sent_abort_ = true;
    return;
  }
  if (flags.c && !sent_closed_) {
    // §4.8.1 3A (active close), 3D and 4C (passive close).
    sent_closed_ = sent_done_ = true;
    close_pending_ = done_pending_ = false;
    switch (state_) {
      case S::kActive: state_ = S::kPeerCloseWait1; break;
      case S::kAppCloseWait1:
      case S::kAppCloseWait2: state_ = peer_closed_ ? S::kClosed : S::kPeerFinCloseWait; break;
      case S::kAppFinCloseWait: state_ = S::kClosed; break;
      default: break;  // PeerCloseWait1/2: after D, waiting for the peer's C
    }
    return;
  }
  if (flags.d && !sent_done_) {
    // §4.8.1 3A (shutdown for write) and 4B.
    sent_done_ = true;
    done_pending_ = false;
    if (state_ == S::kActive) state_ = S::kPeerCloseWait1;
    else if (state_ == S::kAppCloseWait1) state_ = S::kAppCloseWait2;
  }
}

Output Connection::push(bool force) {
  Output out;
  // A.4: after C or A this side sends nothing more; after Closed nothing at all.
  if (sent_closed_ || sent_abort_ || state_ == ConnectionState::kClosed || state_ == ConnectionState::kPeerAbortWait)
    return out;
  const RmbeGeometry& g = config_.peer;
  std::uint64_t len = 0;
  // §4.7.5: after urgent data nothing more is written until the peer consumed it.
  if (send_queued_ > 0 && (!urgent_wait_ || config_.faults.has(Fault::kWritePastUrgent))) {
    // §4.3, A.4: never past the peer's consumer cursor (the fault writes a
    // whole data area regardless, still inside the peer's RMBE).
    const std::uint64_t room = config_.faults.has(Fault::kWritePastWindow) ? g.capacity() : window();
    len = std::min<std::uint64_t>(send_queued_, room);
    // Linux smc_tx_rdma_writes: B asks for an update once the data waiting
    // fills what is free (§4.7.4 step 3: the whole window written).
    blocked_ = send_queued_ >= room;
    std::uint64_t left = len;
    while (left > 0) {
      // §4.7.4 steps 1-2: one Write up to the RMBE's end, the rest from its first data octet.
      const std::uint64_t piece = std::min<std::uint64_t>(left, g.size - producer_.count);
      RdmaWrite w;
      w.rmbe_offset = producer_.count;
      w.octets.resize(static_cast<std::size_t>(piece));
      const std::size_t first = std::min<std::size_t>(w.octets.size(), send_ring_.size() - send_head_);
      copy(w.octets.data(), send_ring_.data() + send_head_, first);
      copy(w.octets.data() + first, send_ring_.data(), w.octets.size() - first);
      send_head_ = (send_head_ + w.octets.size()) % send_ring_.size();
      send_queued_ -= w.octets.size();
      producer_ = advance(producer_, piece, g);
      left -= piece;
      out.writes.push_back(std::move(w));
    }
    written_ += len;
  } else if (send_queued_ == 0) {
    blocked_ = false;
  }
  // §4.7.5 step 2, A.4: the message announcing the last urgent octet sets U
  // (its producer cursor one past that octet) and P.
  bool u = false;
  if (urgent_end_ && written_ == *urgent_end_) {
    u = true;
    urgent_wait_ = true;
    urgent_end_.reset();
  }
  const bool p = u || urgent_end_.has_value();
  // §4.7.6 step 1: urgent data the window holds back is announced by P alone.
  const bool announce_p = p && !urgent_announced_;
  Flags flags{sent_done_, false, false};
  if (send_queued_ == 0 && done_pending_) flags.d = true;
  if (send_queued_ == 0 && close_pending_) flags.c = true;
  const bool closing = flags.c || (flags.d && !sent_done_);
  if (len > 0 || force || announce_p || closing) out.cdc = make_cdc(p, u, flags);
  return out;
}

SendResult Connection::take(wire::Bytes octets, bool urgent) {
  SendResult r;
  if (sent_done_ || sent_closed_ || sent_abort_ || done_pending_ || close_pending_ ||
      state_ == ConnectionState::kClosed || state_ == ConnectionState::kPeerAbortWait) {
    r.status = SendStatus::kShutdown;
    return r;
  }
  if (peer_closed_ || peer_aborted_) {
    r.status = SendStatus::kPeerClosed;
    return r;
  }
  // One urgent mark at a time: new urgent data waits until the peer
  // confirmed the last (Linux holds every send then, urg_tx_pend; plain data
  // is only buffered here, as §4.7.5 step 4 has it).
  if (urgent && (urgent_end_ || urgent_wait_)) {
    r.status = SendStatus::kUrgentWait;
    return r;
  }
  r.accepted = std::min(octets.size(), send_ring_.size() - send_queued_);
  const std::size_t tail = (send_head_ + send_queued_) % send_ring_.size();
  const std::size_t first = std::min(r.accepted, send_ring_.size() - tail);
  copy(send_ring_.data() + tail, octets.data(), first);
  copy(send_ring_.data(), octets.data() + first, r.accepted - first);
  send_queued_ += r.accepted;
  // Urgent data ends where the whole send ends; a send the buffer could not
  // take whole is plain data so far (the caller offers the rest again).
  if (urgent && r.accepted > 0 && r.accepted == octets.size()) urgent_end_ = written_ + send_queued_;
  r.out = push(false);
  return r;
}

SendResult Connection::send(wire::Bytes octets) { return take(octets, false); }
SendResult Connection::send_urgent(wire::Bytes octets) { return take(octets, true); }

// ---------------------------------------------------------------- receiving

bool Connection::consumer_update_due(bool consumed) const {
  if (config_.faults.has(Fault::kNoConsumerUpdate)) return false;
  // A peer that sent C or A writes no more: its window no longer matters.
  if (peer_closed_ || peer_aborted_) return false;
  const RmbeGeometry& g = config_.own;
  const std::uint64_t to_confirm = forward_distance(confirmed_, consumer_, g);
  if (to_confirm == 0) return false;
  // §4.7.5 step 3: after the urgent data, regardless of the window. §4.5.1:
  // B and R ask for it; §4.7.6 step 2: so does urgent data pending.
  // rfc7609-4.5.1-update-on-request: R asks for the update at once, below
  // the thresholds, whether or not the application just consumed.
  const bool requested = peer_update_requested_ && !config_.faults.has(Fault::kUpdateRequestIgnored);
  if (urgent_consumed_ || peer_blocked_ || requested || urgent_pending_) return true;
  // The thresholds are looked at when the application consumed (Linux
  // smc_rx_update_consumer); a message from the peer alone does not move them.
  if (!consumed) return false;
  // §4.5.1: the sender's window (its producer against the consumer cursor it
  // knows) is below half, and the update opens it by at least a tenth.
  const std::uint64_t cap = g.capacity();
  const std::uint64_t in_use = forward_distance(confirmed_, peer_producer_, g);
  const std::uint64_t sender_window = in_use >= cap ? 0 : cap - in_use;
  return sender_window * 100 < cap * config_.update.window_percent &&
         to_confirm * 100 >= cap * config_.update.increase_percent;
}

ReceiveResult Connection::receive(std::span<std::uint8_t> out) {
  ReceiveResult r;
  // §4.8.2: an aborted connection's data is purged.
  if (aborted_ || state_ == ConnectionState::kClosed || state_ == ConnectionState::kPeerAbortWait) return r;
  // rfc7609-4.4.1-eyecatcher-overlay-reset: a Write landed on the RMBE's
  // eyecatcher; the connection is aborted (A), which resets its TCP
  // connection (§4.8.2).
  if (!eyecatcher_intact()) {
    r.out = send_abort();
    return r;
  }
  const RmbeGeometry& g = config_.own;
  const std::size_t n = std::min(out.size(), readable());
  // readable() never exceeds the data area (on_cdc refuses a producer
  // cursor past the window), so the copy wraps at most once.
  const std::size_t first = std::min<std::size_t>(n, g.size - consumer_.count);
  copy(out.data(), own_rmbe_.data() + consumer_.count, first);
  copy(out.data() + first, own_rmbe_.data() + g.data_start(), n - first);
  consumer_ = advance(consumer_, n, g);
  consumed_ += n;
  r.octets = n;
  if (urgent_mark_ && consumed_ >= *urgent_mark_) {
    urgent_mark_.reset();
    urgent_pending_ = false;
    urgent_consumed_ = true;
  }
  if (n > 0 && consumer_update_due(true)) r.out = push(true);
  return r;
}

// ---------------------------------------------------------------- closing

Output Connection::send_abort() {
  Output out;
  aborted_ = true;
  // §4.8.2 2A: in-flight data, to read or to send, is purged.
  send_queued_ = 0;
  urgent_end_.reset();
  urgent_wait_ = close_pending_ = done_pending_ = false;
  if (state_ == ConnectionState::kClosed || state_ == ConnectionState::kPeerAbortWait) return out;
  // A.4: after C nothing more (Linux: Closed at once, smc_close_active_abort).
  if (sent_closed_ || sent_abort_) {
    state_ = ConnectionState::kClosed;
    return out;
  }
  out.cdc = make_cdc(false, false, Flags{sent_done_, false, true});
  // §4.8.2 1A: wait for the peer's A, unless it sent A (2B) or C (it sends
  // nothing more) already.
  state_ = peer_aborted_ || peer_closed_ ? ConnectionState::kClosed : ConnectionState::kPeerAbortWait;
  return out;
}

Output Connection::shutdown_write() {
  if (sent_done_ || sent_closed_ || sent_abort_ || done_pending_ || close_pending_) return {};
  if (state_ != ConnectionState::kActive && state_ != ConnectionState::kAppCloseWait1) return {};
  // §4.8.1 3A: D goes out once the data queued before it is written.
  done_pending_ = true;
  return push(false);
}

Output Connection::close() {
  using S = ConnectionState;
  if (state_ == S::kClosed || state_ == S::kPeerAbortWait || state_ == S::kPeerFinCloseWait) return {};
  if (sent_closed_ || sent_abort_ || close_pending_) return {};
  // rfc7609-4.8.1-close-with-unread-data-aborts: closing with unread data
  // resets the connection.
  if (unread() > 0 && !config_.faults.has(Fault::kCloseIgnoresUnread)) return send_abort();
  close_pending_ = true;
  return push(false);
}

Output Connection::abort() {
  if (state_ == ConnectionState::kClosed || state_ == ConnectionState::kPeerAbortWait) return {};
  return send_abort();
}

Output Connection::close_timeout() {
  if (state_ == ConnectionState::kClosed) return {};
  Output out;
  // §4.8.1 (the closing timer), §4.8.2 1B: the connection ends; a side that
  // has not said C or A resets it with A.
  if (state_ != ConnectionState::kPeerAbortWait) out = send_abort();
  aborted_ = true;
  state_ = ConnectionState::kClosed;
  return out;
}

CdcMessage Connection::failover_validation(std::optional<std::uint16_t> sequence_sent) const {
  // §4.6.1, A.4: F set, the sequence number SS; the other cursors and flags
  // are not significant (sent as they stand, as Linux does).
  return build_cdc(sequence_sent.value_or(sequence_), false, false, Flags{sent_done_, false, false}, true);
}

// ---------------------------------------------------------------- the peer's CDC messages

CdcOutcome Connection::aborting(CdcOutcome& r) {
  r.verdict = CdcVerdict::kAborted;
  r.out = send_abort();
  return std::move(r);
}

CdcOutcome Connection::on_cdc(const CdcMessage& m) {
  CdcOutcome r;
  const bool judge = !config_.faults.has(Fault::kSkipReceiveChecks);
  const auto find = [&r](PeerError e, check::Outcome v = std::nullopt) { r.findings.push_back({e, v}); };
  if (state_ == ConnectionState::kClosed) {
    r.verdict = CdcVerdict::kIgnored;
    return r;
  }
  if (m.alert_token() != config_.own_alert_token) {
    find(PeerError::kWrongAlertToken);
    r.verdict = CdcVerdict::kIgnored;
    return r;
  }
  // §4.8.2 1A/1B: waiting for the peer's A, nothing else is looked at.
  if (state_ == ConnectionState::kPeerAbortWait) {
    r.verdict = CdcVerdict::kIgnored;
    if (m.flag(F::A) && !m.flag(F::F)) {
      peer_aborted_ = true;
      state_ = ConnectionState::kClosed;
      r.verdict = CdcVerdict::kAccepted;
    }
    return r;
  }
  if (auto v = check::nothing_after_closed(peer_closed_ || peer_aborted_)) {
    find(PeerError::kAfterClosed, v);
    r.verdict = CdcVerdict::kIgnored;
    return r;
  }
  if (judge && !eyecatcher_intact()) {
    find(PeerError::kEyecatcherOverlaid);
    return aborting(r);
  }
  if (m.flag(F::F)) return on_failover_validation(m, r);

  // A.4: an old sequence number is discarded; a gap is reported and processed.
  if (auto v = check::cdc_sequence_number(m, peer_sequence_)) {
    find(PeerError::kSequenceNumber, v);
    if (judge && peer_sequence_ && !sequence_before(*peer_sequence_, m.sequence_number())) {
      r.verdict = CdcVerdict::kDiscarded;
      return r;
    }
  }
  if (auto v = check::urgent_present_pending(m)) find(PeerError::kUrgentPresentPending, v);
  // The bounds come from CLC: no cursor outside the data areas is used.
  if (auto v = check::cursor_within_rmbe(m, config_.own.size, config_.peer.size, config_.own.data_start())) {
    find(PeerError::kCursorOutsideRmbe, v);
    return aborting(r);
  }
  // The consumer cursor in the peer's RMBE. One that went back is kept as it
  // was (Linux smc_cdc_cursor_to_host); one ahead of the data is a lie.
  const Cursor cons = m.consumer();
  bool take_consumer = !behind(peer_consumer_, cons, config_.peer);
  if (take_consumer)
    if (auto v = check::consumer_not_ahead(cons, producer_)) {
      find(PeerError::kConsumerAhead, v);
      if (judge) return aborting(r);
    }
  // The producer cursor in the own RMBE: what it adds must fit in the data
  // area beside what is unread (A.4, §4.3), whatever the faults.
  const Cursor prod = m.producer();
  const bool take_producer = !behind(peer_producer_, prod, config_.own);
  const std::uint64_t fresh = take_producer ? forward_distance(peer_producer_, prod, config_.own) : 0;
  if (unread() + fresh > config_.own.capacity()) {
    find(PeerError::kProducerPastConsumer);
    return aborting(r);
  }
  if (peer_final_producer_)
    if (auto v = check::no_writes_after_done(peer_done_, false, *peer_final_producer_, prod)) {
      find(PeerError::kWritesAfterDone, v);
      if (judge) return aborting(r);
    }
  if (written_to_)
    if (auto v = check::producer_tracks_writes(*written_to_, prod, false)) {
      find(PeerError::kProducerNotWrites, v);
      if (judge) return aborting(r);
    }
  apply_cdc(m, take_consumer, take_producer, fresh, r);
  return r;
}

CdcOutcome Connection::on_failover_validation(const CdcMessage& m, CdcOutcome& r) {
  // §4.6.1: the peer's SS must not be beyond what this side processed (SR);
  // otherwise data was lost and the connection is reset. Nothing else in
  // the message is significant (A.4).
  const std::uint16_t ss = m.sequence_number();
  const bool lost = peer_sequence_ ? sequence_before(*peer_sequence_, ss) : ss != 0;
  if (lost) {
    r.findings.push_back({PeerError::kFailoverDataLost, std::nullopt});
    return aborting(r);
  }
  return std::move(r);
}

void Connection::apply_cdc(const CdcMessage& m, bool take_consumer, bool take_producer, std::uint64_t fresh,
                           CdcOutcome& r) {
  peer_sequence_ = m.sequence_number();
  if (take_consumer) peer_consumer_ = m.consumer();
  if (take_producer) peer_producer_ = m.producer();
  if (written_to_) written_to_ = peer_producer_;
  received_ += fresh;
  r.new_octets = fresh;
  // §4.5.1: the latest B and R say whether the peer waits for an update.
  peer_blocked_ = m.flag(F::B);
  peer_update_requested_ = m.flag(F::R);
  // §4.7.5 step 3, §4.7.6 step 2: P says urgent data is coming; U that the
  // producer cursor is one past its last octet.
  if (m.flag(F::U) && fresh > 0) urgent_mark_ = received_;
  if (m.flag(F::P) || urgent_mark_) urgent_pending_ = true;
  else urgent_pending_ = false;
  // §4.7.5 step 4: this side's urgent data is confirmed once the peer consumed all of it.
  if (urgent_wait_ && peer_consumer_ == producer_) urgent_wait_ = false;

  // §4.8.1 3B-3D, 4A, 4D; §4.8.2 2A-2B.
  const bool d = m.flag(F::D) || m.flag(F::C) || m.flag(F::A);
  if (d && !peer_done_) {
    peer_done_ = true;
    peer_final_producer_ = peer_producer_;
  }
  if (m.flag(F::A)) {
    // §4.8.2 2A/2B: passive abort: purge, answer with A, Closed.
    peer_aborted_ = true;
    r.out = send_abort();
    state_ = ConnectionState::kClosed;
    return;
  }
  const bool closed = m.flag(F::C) && !peer_closed_;
  if (m.flag(F::C)) peer_closed_ = true;
  if (d) peer_closing(closed);
  // §4.8.1 4A: the peer closed while data waits to be written: reset.
  if (closed && send_queued_ > 0) {
    r.findings.push_back({PeerError::kClosedWithDataPending, std::nullopt});
    r.verdict = CdcVerdict::kAborted;
    r.out = send_abort();
    return;
  }
  // A window that opened lets queued data go; B, R or P with consumption not
  // yet confirmed call for the consumer cursor at once (§4.5.1; Linux
  // smc_cdc_msg_recv_action).
  r.out = push(consumer_update_due(false));
}

void Connection::peer_closing(bool closed) {
  using S = ConnectionState;
  switch (state_) {
    case S::kActive: state_ = S::kAppCloseWait1; break;  // §4.8.1 4A
    case S::kPeerCloseWait1:
      state_ = S::kPeerCloseWait2;  // §4.8.1 3B
      [[fallthrough]];
    case S::kPeerCloseWait2:
      // §4.8.1 3C/3D: Closed when this side said C too, else wait for its close().
      if (closed) state_ = sent_closed_ ? S::kClosed : S::kAppFinCloseWait;
      break;
    case S::kPeerFinCloseWait:
      if (closed) state_ = S::kClosed;  // §4.8.1 4D
      break;
    default: break;  // AppCloseWait1/2, AppFinCloseWait: the peer's C after its D
  }
}

// ---------------------------------------------------------------- the peer's Writes

WriteOutcome Connection::on_rdma_write(std::uint64_t rmbe_offset, std::uint64_t length) {
  WriteOutcome r;
  const bool judge = !config_.faults.has(Fault::kSkipReceiveChecks);
  // A closed RMBE, or one whose connection is being aborted, takes nothing
  // (§4.8.2 1A: incoming data is ignored).
  if (state_ == ConnectionState::kClosed || state_ == ConnectionState::kPeerAbortWait) {
    r.place = false;
    return r;
  }
  const auto refuse = [&](PeerError e, check::Outcome v, bool abort) {
    r.place = false;
    r.findings.push_back({e, v});
    if (abort) r.out = send_abort();
    return std::move(r);
  };
  if (auto v = check::write_inside_rmbe(rmbe_offset, length, 0, config_.own.size))
    return refuse(PeerError::kWriteOutsideRmbe, v, true);
  if (length == 0) return r;
  if (auto v = check::no_writes_after_done(peer_done_, true, {}, {}))
    return refuse(PeerError::kWritesAfterDone, v, judge);
  // A.4: Writes continue where the last producer cursor (or Write) ended.
  if (!written_to_) written_to_ = peer_producer_;
  const Cursor start{written_to_->wrap, static_cast<std::uint32_t>(rmbe_offset)};
  if (auto v = check::producer_tracks_writes(*written_to_, start, true))
    if (judge) return refuse(PeerError::kProducerNotWrites, v, true);
  // The Write must not reach unread data (A.4: past the consumer cursor the
  // data is lost), whatever the faults: it would overwrite what is readable.
  const Cursor end = advance(start, length, config_.own);
  if (start.count < config_.own.data_start() ||
      forward_distance(consumer_, end, config_.own) > config_.own.capacity() ||
      behind(consumer_, end, config_.own))
    return refuse(PeerError::kProducerPastConsumer, std::nullopt, true);
  written_to_ = end;
  return r;
}

}  // namespace rdmaconf::smcr
