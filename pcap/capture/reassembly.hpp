// TCP reassembly for passive analysis: turns the segments of a capture into
// two ordered octet streams per connection, the way the receiving TCP saw
// them (RFC 9293 §3.10.7.4), and says exactly where the capture fails to:
// gaps (loss, snaplen, limits), conflicting retransmissions, data after FIN.
//
// - In-order data is handed to the consumer as a view into the frame (no
//   copy); only out-of-order data is copied, into a per-stream buffer.
// - Memory is bounded: per-stream and total held octets, per-stream history
//   for retransmission checks, and the number of connections. Hitting a bound
//   is reported and the oldest held data is delivered after a gap.
// - Offsets are 64-bit and counted from the stream's first octet, so 32-bit
//   sequence wrap (RFC 9293 §3.4) is invisible to the consumer.
// - A capture that starts mid-connection starts the stream at the first
//   captured octet and says so (StreamStart::kMidStream): the consumer
//   resynchronises on its own protocol (MPA markers, FPDU CRCs).
// - Loss is detected from the other direction's ACKs: octets the peer has
//   acknowledged but the capture never showed will not come again, so they
//   are reported as a gap at once rather than at the end of the capture.
//
// Standard library only.
#pragma once

#include <array>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "capture/decode.hpp"
#include "capture/report.hpp"
#include "capture/types.hpp"

namespace rdmaconf::capture {

struct ReassemblyLimits {
  std::size_t max_held_per_stream = std::size_t{4} << 20;  // out-of-order octets one direction may hold
  std::size_t max_held_total = std::size_t{32} << 20;      // out-of-order octets all directions may hold
  std::size_t history_per_stream = std::size_t{16} << 10;  // delivered octets kept to verify retransmissions
  std::size_t max_history_total = std::size_t{16} << 20;   // history octets over all directions
  std::size_t max_connections = 1u << 16;
  bool gaps_from_acks = true;  // declare a gap once the peer acknowledged octets we never saw
};

enum class StreamStart : std::uint8_t { kSyn, kMidStream };
enum class StreamEnd : std::uint8_t {
  kFin,           // every octet up to the FIN was delivered (or reported missing)
  kReset,         // RST from either side
  kEndOfCapture,  // the capture ended first
  kEvicted,       // the connection limit pushed it out
  kReplaced,      // a SYN with a new ISN started another connection on the same ports
};
std::string_view stream_end_name(StreamEnd e);

// A consumer's per-stream state (the analyzer's MPA parser, say), owned by
// the stream and destroyed with it.
struct StreamUser {
  virtual ~StreamUser() = default;
};

// One direction of a TCP connection, as the consumer sees it.
class Stream {
 public:
  const StreamKey& key() const { return key_; }
  std::uint64_t connection_id() const { return connection_id_; }
  // True for the direction whose SYN (without ACK) opened the connection;
  // for mid-connection captures, the direction seen first.
  bool from_initiator() const { return from_initiator_; }
  StreamStart start() const { return start_; }
  // Options of this direction's SYN (or SYN-ACK): the SMC-R option shows up here.
  const TcpOptions& syn_options() const { return syn_options_; }
  bool syn_seen() const { return start_ == StreamStart::kSyn; }
  // The frame the stream started with: its SYN when syn_seen().
  FrameNumber start_frame() const { return start_frame_; }
  // The frame that ended it (its FIN's, a reset's, the last one): set
  // before on_stream_end.
  FrameNumber end_frame() const { return end_frame_; }
  // Octets delivered or reported missing so far: the next offset.
  StreamOffset next_offset() const { return next_; }
  Stream* reverse() const { return reverse_; }

  // Copies what a consumer sees of `from` (key, connection, direction,
  // start, SYN options, frames, next offset), none of its octets or links:
  // a stand-in for a consumer that runs on another thread
  // (analysis/parallel.hpp hands each worker such copies).
  void copy_view(const Stream& from) {
    key_ = from.key_;
    connection_id_ = from.connection_id_;
    from_initiator_ = from.from_initiator_;
    start_ = from.start_;
    syn_options_ = from.syn_options_;
    start_frame_ = from.start_frame_;
    end_frame_ = from.end_frame_;
    next_ = from.next_;
  }

  std::unique_ptr<StreamUser> user;

 private:
  friend class Reassembler;
  struct Held {
    std::vector<std::uint8_t> data;  // empty for a range lost to the snaplen
    std::uint64_t length = 0;
    FrameNumber frame;
    Timestamp time;
    bool lost() const { return data.empty(); }
  };
  struct Range {
    StreamOffset begin = 0, end = 0;
  };

  StreamKey key_;
  std::uint64_t connection_id_ = 0;
  bool from_initiator_ = false;
  StreamStart start_ = StreamStart::kSyn;
  TcpOptions syn_options_;
  Stream* reverse_ = nullptr;
  FrameNumber start_frame_;
  FrameNumber end_frame_;

  bool started_ = false;
  bool ended_ = false;
  SeqNum base_seq_;  // sequence number of stream offset 0
  StreamOffset next_ = 0;
  bool fin_known_ = false;
  StreamOffset fin_at_ = 0;

  std::map<StreamOffset, Held> held_;  // non-overlapping, beyond next_
  std::size_t held_octets_ = 0;        // data octets plus a fixed cost per entry

  // The last delivered octets (a ring of history_reserved_ octets, granted
  // from the shared budget) and which frame each run came from, to compare
  // retransmissions with what was delivered. Offset `at` is kept at
  // (at - history_begin_) % history_reserved_; the vector grows to that only
  // as octets arrive, so a short stream holds what it delivered, not the
  // whole reservation.
  std::vector<std::uint8_t> history_;
  std::size_t history_reserved_ = 0;  // 0: no ring (none granted yet)
  StreamOffset history_begin_ = 0;    // history covers [history_begin_, next_)
  std::size_t history_index(StreamOffset at) const {
    return static_cast<std::size_t>((at - history_begin_) % history_reserved_);
  }
  std::array<std::pair<StreamOffset, FrameNumber>, 16> run_frames_{};
  std::size_t run_frames_count_ = 0;
  std::array<Range, 8> recent_gaps_{};
  std::size_t recent_gaps_count_ = 0;
};

struct StreamData {
  StreamOffset offset = 0;
  wire::Bytes bytes;  // valid during the callback only
  FrameNumber frame;
  Timestamp time;
  // The octets are one TCP segment's whole payload, in order and seen for
  // the first time: how its sender cut the stream (RFC 5044 §5.1 judges
  // that). False for what was held out of order, trimmed of octets seen
  // before, or cut by the snaplen.
  bool whole_segment = false;
};

// Octets seen twice at one sequence number with different values: the first
// that differs (further ones in the same segment are not looked for).
struct StreamConflict {
  StreamOffset offset = 0;
  SeqNum sequence;
  std::uint8_t first = 0;  // as the copy seen first carried it
  std::uint8_t again = 0;  // as this copy carries it
  FrameNumber frame;        // this copy
  FrameNumber first_frame;  // the first copy (0: no longer known)
};

struct StreamGap {
  StreamOffset offset = 0;
  std::uint64_t length = 0;
  GapCause cause = GapCause::kNotCaptured;
  FrameNumber frame;  // the frame that made the gap certain (0: end of capture)
};

// What a user of the reassembler implements. Every Report (decoder and
// reassembler) goes to on_report; the stream callbacks come in stream order.
class StreamConsumer : public ReportSink {
 public:
  virtual void on_stream_start(Stream&) {}
  virtual void on_data(Stream& s, const StreamData& d) = 0;
  virtual void on_gap(Stream& s, const StreamGap& g) = 0;
  virtual void on_stream_end(Stream&, StreamEnd) {}
  // Beside its kConflictingOverlap report: which octet differs, and how.
  virtual void on_conflict(Stream&, const StreamConflict&) {}
  void on_report(const Report&) override {}
};

struct ReassemblyStats {
  std::uint64_t frames = 0;
  std::uint64_t segments = 0;
  std::uint64_t connections = 0;
  std::uint64_t delivered_octets = 0;
  std::uint64_t copied_octets = 0;         // held out of order, then delivered
  std::uint64_t retransmitted_octets = 0;  // duplicates dropped
  std::uint64_t unverified_retransmitted_octets = 0;  // duplicates older than the history
  std::uint64_t gap_octets = 0;
  std::uint64_t conflicts = 0;
  std::uint64_t limit_hits = 0;
  std::size_t held_octets = 0;        // now
  std::size_t peak_held_octets = 0;
  std::size_t history_octets = 0;     // now
  // Times a shared budget bound (max_history_total: a stream went without
  // history; max_held_total: the held octets of all streams over it).
  // analyze -j gives each worker's reassembler a share of each budget: as
  // long as no share binds, the whole would not have either.
  std::uint64_t history_denied = 0;
  std::uint64_t held_total_hits = 0;
};

class Reassembler {
 public:
  explicit Reassembler(StreamConsumer& consumer, ReassemblyLimits limits = {});
  ~Reassembler();
  Reassembler(const Reassembler&) = delete;
  Reassembler& operator=(const Reassembler&) = delete;

  // Decodes one frame and, if it carries TCP, adds the segment.
  void add_frame(const RawFrame& frame);
  void add_segment(const TcpSegment& seg);
  // End of capture: every stream delivers what it holds (with gaps for the
  // holes) and ends with kEndOfCapture.
  void finish();

  const ReassemblyStats& stats() const { return stats_; }
  // Numbers each new connection (Stream::connection_id) with the frame of
  // the segment that created it, instead of 1, 2, ...: the same order (one
  // frame creates at most one connection), but numbers that several
  // reassemblers, each given some of a capture's connections, share
  // (analysis/parallel.hpp). Before the first frame.
  void number_connections_by_frame() { ids_from_frames_ = true; }
  const ReassemblyLimits& limits() const { return limits_; }

 private:
  struct Connection;

  Connection& connection_for(const TcpSegment& seg, bool& forward);
  void end_connection(Connection& c, StreamEnd why, FrameNumber frame);
  void erase_connection(const ConnectionKey& key);

  void start_stream(Stream& s, const TcpSegment& seg, StreamStart how);
  void end_stream(Stream& s, StreamEnd why, FrameNumber frame);
  void take_data(Stream& s, std::int64_t offset, wire::Bytes data, std::uint64_t length,
                 FrameNumber frame, Timestamp time);
  void check_old(Stream& s, StreamOffset offset, wire::Bytes data, FrameNumber frame);
  void deliver(Stream& s, wire::Bytes data, FrameNumber frame, Timestamp time, bool whole_segment = false);
  void gap(Stream& s, std::uint64_t length, GapCause cause, FrameNumber frame);
  void hold(Stream& s, StreamOffset offset, wire::Bytes data, std::uint64_t length,
            FrameNumber frame, Timestamp time);
  void compare_with_held(Stream& s, StreamOffset offset, wire::Bytes data, FrameNumber frame);
  void drain(Stream& s);
  void flush_until(Stream& s, StreamOffset target, GapCause cause, FrameNumber frame);
  void enforce_limits(Stream& s, FrameNumber frame);
  void release_held(Stream& s, std::map<StreamOffset, Stream::Held>::iterator it);
  void release_memory(Stream& s);
  void maybe_finish_fin(Stream& s, FrameNumber frame);
  void report_stream(const Stream& s, ReportKind kind, FrameNumber frame, StreamOffset offset,
                     std::uint64_t length, FrameNumber other = {});

  StreamConsumer& consumer_;
  ReassemblyLimits limits_;
  ReassemblyStats stats_;
  std::unordered_map<ConnectionKey, std::unique_ptr<Connection>, ConnectionKey::Hash> connections_;
  std::list<Connection*> lru_;  // most recently active first
  std::uint64_t next_connection_id_ = 1;
  bool ids_from_frames_ = false;
};

}  // namespace rdmaconf::capture
