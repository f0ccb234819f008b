// One SMC-R connection past CLC, sans-IO (RFC 7609 §4.2-§4.8, App. A.4):
// the two RMBEs, the producer and consumer cursors with their wrap counts,
// the window, urgent data and the close state machines. No sockets, no
// clocks, no queue pairs: every call returns what to put on the wire.
//
//   send(octets)        the application's data: RDMA Writes into the peer's
//   send_urgent(octets)   RMBE (split where it wraps), then one CDC message
//   receive(out)        the application reads from the own RMBE; may return
//                       a CDC message (the consumer cursor update, §4.5.1)
//   on_cdc(message)     the peer's CDC message, judged by the rule layer
//                       (check/smcr.hpp, the same functions the capture
//                       observer calls) before anything is taken from it
//   on_rdma_write(...)  optional: a Write the transport is about to place in
//                       the own RMBE, judged the same way
//   shutdown_write(), close(), abort(), close_timeout()   §4.8.1, §4.8.2
//
// Two RMBEs (§4.2): the own one, where the peer writes and this side reads,
// and the peer's, where this side writes. Both sizes come from CLC (the
// Accept and Confirm's compressed RMBE size, App. A.2.3/A.2.4), never from a
// CDC message: a peer's cursor is checked against them before it is used, so
// no read or copy ever leaves the own RMBE. An RMBE starts with a 4-octet
// eyecatcher and the cursors start and wrap at 4 (A.4); Linux announces
// SMC_LLC_FLAG_NO_RMBE_EYEC in CONFIRM LINK and its cursors start and wrap at
// 0: RmbeGeometry::eyecatcher says which.
//
// Close states (§4.8.1 Figure 22, §4.8.2 Figure 23), named as the RFC does:
//
//   Active --shutdown_write()/close(): D or C--> PeerCloseWait1 --peer D--> PeerCloseWait2
//   PeerCloseWait1/2 --peer C--> Closed (this side sent C) | AppFinCloseWait --close(): C--> Closed
//   Active --peer D or C--> AppCloseWait1 --shutdown_write(): D--> AppCloseWait2
//   AppCloseWait1/2 --close(): C--> Closed (peer sent C) | PeerFinCloseWait --peer C--> Closed
//   any state before this side's C --abort() or a peer's broken rule: A--> PeerAbortWait --peer A--> Closed
//   any state before this side's C --peer A: A--> Closed (passive abort, Process Abort)
//
// A peer that breaks a rule gets what RFC 7609 or, where it is silent, Linux
// gives: an old sequence number is discarded (A.4), a cursor outside the RMBE
// or a consumer cursor ahead of the data, a producer cursor past the window,
// data after D and a failed failover validation (§4.6.1) abort the connection
// (A), a message after the peer's own C or A is ignored.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "check/rule.hpp"
#include "smcr/messages.hpp"
#include "wire/bytes.hpp"
#include "wire/fault_set.hpp"

namespace rdmaconf::smcr {

// ---------------------------------------------------------------- RMBE geometry

// One RMBE as CLC announced it. §4.2: a 4-octet eyecatcher, then the data
// area; the cursors of A.4 are offsets in the RMBE and skip the eyecatcher.
struct RmbeGeometry {
  std::uint32_t size = 0;   // octets of the whole element (App. A.2.3: 2^(x+4) KiB)
  bool eyecatcher = true;   // false: Linux SMC_LLC_FLAG_NO_RMBE_EYEC, cursors from 0

  static constexpr std::uint32_t kEyecatcherSize = 4;
  constexpr std::uint32_t data_start() const { return eyecatcher ? kEyecatcherSize : 0; }
  // Octets the data area holds: the largest window.
  constexpr std::uint32_t capacity() const { return size > data_start() ? size - data_start() : 0; }
  // A geometry a connection can use: a data area of at least one octet and
  // cursor positions that fit the arithmetic (sizes up to 2^31).
  constexpr bool valid() const { return capacity() > 0 && size <= (std::uint32_t{1} << 31); }
};

// Cursor arithmetic of A.4. A cursor's stream position counts the octets
// written since the connection began, modulo 2^16 wraps of the data area
// (the wrap count is 16 bits and wraps too).
std::uint64_t position(Cursor c, const RmbeGeometry& g);
// Octets from `from` forward to `to`, in the 2^16-wrap position space
// (serial arithmetic): below half of that space `to` is not behind `from`.
std::uint64_t forward_distance(Cursor from, Cursor to, const RmbeGeometry& g);
// True when `to` is behind `from` (serial arithmetic on positions).
bool behind(Cursor from, Cursor to, const RmbeGeometry& g);
// A.4: `octets` further; a cursor that reaches the end of the RMBE wraps to
// the first data octet and its wrap count grows by one.
Cursor advance(Cursor c, std::uint64_t octets, const RmbeGeometry& g);

// ---------------------------------------------------------------- policy, faults

// §4.5.1: when the receiver tells the sender what it consumed. A consumer
// cursor update goes out on its own when the sender's window (as the sender
// sees it) is below `window_percent` of the data area and the update opens
// it by at least `increase_percent`; when the peer said it is blocked (B),
// asked for one (R) or has urgent data pending (P, §4.7.6), on any
// consumption; after the last urgent octet was consumed (§4.7.5), always.
// Every CDC message carries the consumer cursor anyway. Linux
// (smc_tx_consumer_update) uses the same test with a floor of about 2 KiB
// under its 10 % (SOCK_MIN_SNDBUF / 2) and only after at least that much on B.
struct ConsumerUpdatePolicy {
  std::uint32_t window_percent = 50;
  std::uint32_t increase_percent = 10;
};

// Deviations a conformance case may switch on, to prove it can fail
// (mutation). Switching one on never makes the connection read or copy
// outside its RMBEs.
enum class Fault : std::uint8_t {
  kWritePastWindow,      // against §4.3/A.4: writes what it has, ignoring the peer's consumer cursor
  kNoConsumerUpdate,     // against §4.5.1: never sends a consumer cursor update on its own
  kSkipReceiveChecks,    // takes the peer's CDC messages and Writes unjudged, but for the data area's bounds
  kRepeatSequenceNumber, // against A.4: every CDC message carries sequence number 1
  kCloseIgnoresUnread,   // against §4.8.1: close() with unread data sends C, not A
  kStaleConsumerCursor,  // against §4.5.1: a CDC message announcing data carries the consumer cursor last sent
  kEyecatcherUnchecked,  // against §4.4.1: an overlaid eyecatcher goes unnoticed
  kUpdateRequestIgnored, // against §4.5.1: the peer's R (consumer cursor update requested) changes nothing
  kWritePastUrgent,      // against §4.7.5: writes on after urgent data before the peer consumed it
  kCount
};
using Faults = wire::FaultSet<Fault>;

struct ConnectionConfig {
  RmbeGeometry own;                     // the RMBE this side announced in CLC (the peer writes here)
  RmbeGeometry peer;                    // the RMBE the peer announced (this side writes there)
  std::uint32_t own_alert_token = 0;    // this side's token: the peer's CDC messages carry it
  std::uint32_t peer_alert_token = 0;   // the peer's token: this side's CDC messages carry it
  std::size_t send_buffer = 64 * 1024;  // octets send() holds while the window is closed (Linux: sndbuf)
  ConsumerUpdatePolicy update;
  Faults faults;
};

// §4.8.1: how long a side that closed waits for the peer to finish the
// close (its PeerConnectionClosed, or A) before its timer resets the
// connection (close_timeout()). RFC 7609 leaves the value to the
// implementation and likens the wait to TCP's FIN-WAIT-2; the reference
// takes 60 s, the FIN-WAIT-2 time Linux's TCP uses by default
// (tcp_fin_timeout). The owner keeps the time: the machine has no clock.
inline constexpr std::chrono::milliseconds kCloseWaitTime{60000};

// ---------------------------------------------------------------- what to do

// One RDMA Write into the peer's RMBE: `rmbe_offset` counts from the RMBE's
// first octet (the eyecatcher included); the transport adds the RMBE's place
// in the RMB. A piece never crosses the end of the RMBE.
struct RdmaWrite {
  std::uint32_t rmbe_offset = 0;
  std::vector<std::uint8_t> octets;
};

// What a call wants sent, in this order: the Writes, then the CDC message
// (44 octets: cdc->header.bytes()) that announces them.
struct Output {
  std::vector<RdmaWrite> writes;
  std::optional<CdcMessage> cdc;
  bool empty() const { return writes.empty() && !cdc; }
};

// ---------------------------------------------------------------- outcomes

// What the peer got wrong. A rule with a registry row also yields its
// check::Violation; the others name what RFC 7609 says without a row yet.
enum class PeerError : std::uint8_t {
  kWrongAlertToken,        // not this connection's token (the link group routes by token)
  kSequenceNumber,         // A.4: not one more than the last (rfc7609-a.4-sequence-number)
  kUrgentPresentPending,   // A.4: U without P (rfc7609-a.4-urgent-present-pending)
  kCursorOutsideRmbe,      // A.4: a cursor not in the RMBE's data area (rfc7609-a.4-cursor-within-rmbe)
  kConsumerAhead,          // A.4: consumed what was not written (rfc7609-a.4-consumer-not-ahead)
  kProducerPastConsumer,   // A.4, §4.3: wrote past this side's consumer cursor (data lost; no row yet)
  kWritesAfterDone,        // A.4: data after D, C or A (rfc7609-a.4-no-writes-after-done)
  kProducerNotWrites,      // A.4: the cursor is not where the Writes ended (rfc7609-a.4-producer-tracks-writes)
  kWriteOutsideRmbe,       // §4.4.1: a Write not inside the own RMBE (rfc7609-4.4.1-write-inside-rmbe)
  kAfterClosed,            // A.4: a CDC message after the peer's C or A (rfc7609-a.4-nothing-after-closed)
  kFailoverDataLost,       // §4.6.1: validation names a message this side never processed (no row yet)
  kEyecatcherOverlaid,     // §4.4.1: the own RMBE's eyecatcher changed (no row yet)
  kClosedWithDataPending,  // §4.8.1 4A: C while this side still had data to write (reset, not an error row)
};
std::string_view name(PeerError e);

struct Finding {
  PeerError error;
  std::optional<check::Violation> violation;  // when a registry row states the rule
};

enum class CdcVerdict : std::uint8_t {
  kAccepted,   // processed
  kDiscarded,  // A.4: an old sequence number; nothing taken from it
  kIgnored,    // the connection takes no more CDC messages (Closed, PeerAbortWait, after the peer's C or A)
  kAborted,    // a broken rule (or §4.8.1 4A): this side aborts, `out` carries its A
};
std::string_view name(CdcVerdict v);

struct CdcOutcome {
  CdcVerdict verdict = CdcVerdict::kAccepted;
  std::vector<Finding> findings;   // every rule the message broke, in check order
  std::uint64_t new_octets = 0;    // octets the producer cursor made readable
  Output out;                      // what this side sends in answer
};

// A Write the transport is about to place in the own RMBE.
struct WriteOutcome {
  bool place = true;                 // false: outside the own RMBE, do not place it
  std::vector<Finding> findings;
  Output out;                        // this side's A when the Write broke a rule
};

enum class SendStatus : std::uint8_t {
  kOk,          // `accepted` octets taken (may be fewer than offered: the send buffer is full)
  kShutdown,    // this side already sent D, C or A: no more data (Linux EPIPE)
  kPeerClosed,  // the peer sent C or A (Linux ECONNRESET)
  kUrgentWait,  // send_urgent(): the last urgent data is not confirmed yet (§4.7.5); plain send() buffers
};
std::string_view name(SendStatus s);

struct SendResult {
  SendStatus status = SendStatus::kOk;
  std::size_t accepted = 0;
  Output out;
};

struct ReceiveResult {
  std::size_t octets = 0;  // copied into the caller's buffer
  Output out;              // a consumer cursor update, when §4.5.1 calls for one
};

// §4.8.1 Figure 22 and §4.8.2 Figure 23.
enum class ConnectionState : std::uint8_t {
  kActive,
  kPeerCloseWait1,    // active close: this side sent D or C
  kPeerCloseWait2,    // active close: and the peer sent D
  kAppFinCloseWait,   // active close: the peer sent C, this side has only sent D
  kAppCloseWait1,     // passive close: the peer sent D or C
  kAppCloseWait2,     // passive close: and this side sent D
  kPeerFinCloseWait,  // passive close: this side sent C, waiting for the peer's
  kPeerAbortWait,     // active abort: this side sent A, waiting for the peer's
  kClosed,
};
std::string_view name(ConnectionState s);

// ---------------------------------------------------------------- the machine

class Connection {
 public:
  // `own_rmbe` is this side's RMBE (config.own.size octets, normally a slice
  // of a registered RMB); the connection zeroes it and writes the eyecatcher
  // (§4.4.1) and reads only inside it. It must outlive the connection.
  // Starts Active (§4.8.1 state 2: CLC and the link are done).
  Connection(const ConnectionConfig& config, std::span<std::uint8_t> own_rmbe);
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // ---- the application's side
  SendResult send(wire::Bytes octets);
  // §4.7.5/§4.7.6: `octets` end with urgent data; the CDC message that
  // announces its last octet sets U (and P), its producer cursor one past it.
  SendResult send_urgent(wire::Bytes octets);
  // Copies readable octets into `out`; stops at the urgent mark, so the
  // application sees where the urgent data ends.
  ReceiveResult receive(std::span<std::uint8_t> out);
  Output shutdown_write();  // D (§4.8.1 3A, 4B); after queued data is written
  Output close();           // C (§4.8.1 3A, 3D, 4C); A when unread data remains (3A)
  Output abort();           // A (§4.8.2 1A)
  // The owner's close timer popped (§4.8.1, §4.8.2): the connection ends,
  // with an A if this side has not sent C or A yet.
  Output close_timeout();
  // §4.6.1: the CDC message to send first on a new link after failover, F set,
  // carrying the sequence number of the last CDC message whose Writes the
  // old link completed (SS); by default the last one sent.
  CdcMessage failover_validation(std::optional<std::uint16_t> sequence_sent = std::nullopt) const;
  // A CDC message the owner put on the wire itself (a conformance script's)
  // carried sequence number `n`: when `n` is ahead of the last one this
  // machine sent, its next message follows `n` (A.4: one more than the last
  // sent), where repeating `n` would have the peer discard it as old.
  void sequence_taken(std::uint16_t n);

  // ---- the peer's side
  CdcOutcome on_cdc(const CdcMessage& m);
  WriteOutcome on_rdma_write(std::uint64_t rmbe_offset, std::uint64_t length);

  // ---- what the connection knows
  ConnectionState state() const { return state_; }
  const ConnectionConfig& config() const { return config_; }
  std::size_t readable() const;            // octets receive() can return now (up to the mark)
  std::size_t unread() const;              // octets written by the peer and not consumed
  std::size_t queued() const;              // octets accepted by send() not yet written
  std::uint64_t window() const;            // free octets in the peer's RMBE as this side knows it
  std::uint64_t octets_received() const { return received_; }  // announced by the peer, in total
  std::uint64_t octets_consumed() const { return consumed_; }
  std::uint64_t octets_written() const { return written_; }    // this side's Writes, in total
  bool urgent_pending() const { return urgent_pending_; }      // the peer's P (§4.7.6)
  // Where the peer's urgent data ends, in octets of the stream (octets_consumed()
  // reaches it after the last urgent octet), while it is not consumed.
  std::optional<std::uint64_t> urgent_mark() const { return urgent_mark_; }
  bool peer_done_writing() const { return peer_done_; }        // D, C or A received
  bool aborted() const { return aborted_; }                    // ended by A, either side
  bool write_blocked() const { return blocked_; }              // B in this side's last CDC message
  // Cursors: this side's producer in the peer's RMBE and consumer in its own,
  // and the last ones the peer announced.
  Cursor producer() const { return producer_; }
  Cursor consumer() const { return consumer_; }
  Cursor peer_producer() const { return peer_producer_; }
  Cursor peer_consumer() const { return peer_consumer_; }
  std::uint16_t last_sequence_sent() const { return sequence_; }
  std::optional<std::uint16_t> last_sequence_received() const { return peer_sequence_; }

 private:
  struct Flags {
    bool d = false, c = false, a = false;  // A.4: D, C and A of the message
  };
  // Writes what the window and the send buffer allow; a CDC message when
  // anything was written, a close flag is due or `force`.
  Output push(bool force);
  CdcMessage build_cdc(std::uint16_t sequence, bool p, bool u, Flags flags, bool failover) const;
  CdcMessage make_cdc(bool p, bool u, Flags flags);  // the next sequence number; state changes of D, C, A
  void finish(Flags flags);
  Output send_abort();
  bool eyecatcher_intact() const;
  bool consumer_update_due(bool consumed) const;  // `consumed`: the application just read
  SendResult take(wire::Bytes octets, bool urgent);
  CdcOutcome aborting(CdcOutcome& r);
  CdcOutcome on_failover_validation(const CdcMessage& m, CdcOutcome& r);
  void apply_cdc(const CdcMessage& m, bool take_consumer, bool take_producer, std::uint64_t fresh, CdcOutcome& r);
  void peer_closing(bool closed);

  ConnectionConfig config_;
  std::span<std::uint8_t> own_rmbe_;
  ConnectionState state_ = ConnectionState::kActive;

  // sending: the send buffer is a ring of config_.send_buffer octets
  std::vector<std::uint8_t> send_ring_;
  std::size_t send_head_ = 0, send_queued_ = 0;
  Cursor producer_;                       // next octet this side writes in the peer's RMBE
  Cursor peer_consumer_;                  // the peer's last consumer cursor
  std::uint16_t sequence_ = 0;            // last sequence number sent
  std::uint64_t written_ = 0;
  bool blocked_ = false;
  std::optional<std::uint64_t> urgent_end_;   // stream octet after our urgent data, until written
  bool urgent_wait_ = false;                  // U sent, waiting until the peer consumed it all
  bool urgent_announced_ = false;             // P went out for the urgent data not yet written
  bool sent_done_ = false, sent_closed_ = false, sent_abort_ = false;
  bool close_pending_ = false, done_pending_ = false;

  // receiving
  Cursor consumer_;                       // next octet this side consumes in its own RMBE
  Cursor peer_producer_;                  // the peer's last producer cursor
  Cursor confirmed_;                      // the consumer cursor this side last sent
  std::uint64_t written_announced_ = 0;   // written_ when the last CDC message went out
  std::optional<std::uint16_t> peer_sequence_;
  std::optional<Cursor> written_to_;      // where the peer's Writes end (on_rdma_write)
  std::uint64_t received_ = 0, consumed_ = 0;
  bool peer_blocked_ = false, peer_update_requested_ = false;
  bool urgent_pending_ = false;
  std::optional<std::uint64_t> urgent_mark_;
  bool urgent_consumed_ = false;          // the mark was reached: the update is due (§4.7.5)
  bool peer_done_ = false, peer_closed_ = false, peer_aborted_ = false;
  std::optional<Cursor> peer_final_producer_;  // the producer cursor that came with D
  bool aborted_ = false;
};

}  // namespace rdmaconf::smcr
