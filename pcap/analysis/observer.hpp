// The passive observer: the reference stack watching both peers of one TCP
// connection, fed each direction's stream octets in order with the frame
// numbers they came in, answering with decoded messages and violations.
//
//   ConnectionObserver obs(sink);
//   obs.on_syn(Side::kInitiator, syn_had_smc_option, mss);  // optional
//   obs.on_syn_options(Side::kInitiator, syn_frame, experimental_options);  // optional
//   obs.on_data(Side::kInitiator, frame, octets);          // in stream order
//   obs.on_segment(Side::kInitiator, frame, payload);      // or: one whole TCP segment's
//   obs.on_gap(Side::kResponder, missing_octets, frame);   // loss: resynchronise
//   obs.on_end(Side::kInitiator);
//
// It knows no sockets, no libpcap and no TCP: the capture analyzer feeds it
// from the reassembler, the Wireshark dissector from its own reassembly, the
// fuzzers from raw octets. What TCP facts MPA's rules need (how a sender cut
// its stream into segments, octets retransmitted with other values: RFC 5044
// §4.5, §5.1) are told to it by a caller that has them (on_syn's MSS,
// on_segment, on_conflicting_retransmission); without them those rules
// judge nothing. Standard library plus rdmaconf_codec only, and
// deterministic: the same octets in the same pieces give the same answers,
// whatever the piece boundaries (tests split every input at every offset);
// the boundaries of the segments on_segment announces are the exception, as
// they are what the segmentation rules judge.
//
// What it tracks, per connection:
// - the protocol, by content (never by port): an MPA Request/Reply key at the
//   start of a direction, a CLC eyecatcher ("SMCR"/"SMCD" in EBCDIC), the SMC
//   TCP option in the SYNs;
// - MPA startup (RFC 5044 §7.1, RFC 6581): both frames, the revision, Markers
//   per direction (the receiver's M), CRC (either C), IRD/ORD, peer-to-peer RTR;
// - full operation: every FPDU through mpa::Deframer in non-failing mode (a bad
//   CRC or Marker is reported and the FPDU still decoded), then DDP and RDMAP:
//   versions, opcodes and T bits, queues, MSNs and MOs per queue, TO runs of
//   tagged messages, Read Requests against Read Responses (sink, size, order),
//   IRD/ORD, Atomic Requests against Responses, Terminates and silence after;
// - how each sender cut its FPDUs into TCP segments, where it is told the
//   segments and the receiver's MSS (check/mpa_tcp.hpp), and retransmitted
//   octets that differ from the first copy;
// - the CLC handshake: message format, order, and field consistency across
//   Proposal, Accept and Confirm, Decline rules;
// - resynchronisation: after a gap, or when a capture starts mid-connection, it
//   hunts for framing on an MPA Marker (when Markers are in use and their
//   positions are known) or on an FPDU whose CRC checks and whose DDP/RDMAP
//   header is plausible, with bounded work per octet and a bounded buffer.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/rules.hpp"
#include "analysis/ulp_observer.hpp"
#include "check/smc_tcp.hpp"
#include "clc/messages.hpp"
#include "ddp/headers.hpp"
#include "mpa/deframer.hpp"
#include "mpa/req_rep.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/terminate.hpp"
#include "wire/bytes.hpp"
#include "wire/hint.hpp"

namespace rdmaconf::analysis {

// A frame number as Wireshark counts them (from 1; 0: none).
using FrameNo = std::uint64_t;

// Which peer: the one that opened the TCP connection (its SYN had no ACK; for
// a capture that starts mid-connection, the side seen first) or the other.
enum class Side : std::uint8_t { kInitiator = 0, kResponder = 1 };
constexpr Side other(Side s) { return s == Side::kInitiator ? Side::kResponder : Side::kInitiator; }
std::string_view name(Side s);

// kDdpSctp: DDP segments told one by one by a lower layer that frames them
// itself (on_ddp_segment: RFC 5043's adaptation layer, observer_sctp.hpp).
enum class Protocol : std::uint8_t { kUnknown, kMpa, kClc, kOther, kDdpSctp };
std::string_view name(Protocol p);

// kRoce: one RoCEv2 packet (RoceObserver, observer_roce.hpp), not a TCP message.
// kDdpSegment: one DDP segment over SCTP, kSctpControl one DDP Stream Session
// Control message (SctpObserver, observer_sctp.hpp).
enum class MessageKind : std::uint8_t { kMpaRequest, kMpaReply, kFpdu, kClc, kRoce, kDdpSegment, kSctpControl };

struct RoceInfo;
struct SctpInfo;
std::string_view name(MessageKind k);

// The Read Request a Read Response segment answers (RFC 5040 §5.2.2: the
// responses come back in the order of the requests), as the observer matched
// it. Requests are numbered per requesting side, from 1, in the order sent.
struct ReadMatch {
  std::uint64_t request = 0;       // the Read Request's number (SegmentInfo::read_request)
  FrameNo request_frame = 0;       // frame of the Read Request's last octet
  std::uint32_t source_stag = 0;   // the Data Source it named: the responder's buffer
  std::uint64_t source_to = 0;
  std::uint64_t offset = 0;        // this segment's TO from the request's Data Sink TO
};

// The DDP and RDMAP headers of one FPDU's ULPDU, decoded, and what the
// observer's state says of them: what the plugin and decode show, never
// derive again.
struct SegmentInfo {
  bool has_header = false;  // the ULPDU holds a complete DDP header
  ddp::Control ddp;
  rdmap::Control rdmap;
  // Untagged (ddp.tagged false)
  std::uint32_t qn = 0, msn = 0, mo = 0;
  std::uint32_t invalidate_stag = 0;
  // Tagged
  std::uint32_t stag = 0;
  std::uint64_t to = 0;
  std::uint32_t payload_length = 0;  // DDP payload (RDMAP header included)
  // RFC 5041 §5.2: the MSN the segment's queue expects (the message in
  // progress, or the one after the last). Absent when the queue's place is
  // unknown: after a resynchronisation, until a segment of the queue is seen,
  // and on a queue number past the last (RFC 5040 §4.3).
  std::optional<std::uint32_t> expected_msn;
  // RDMA Read Request (opcode 1), when complete
  std::optional<rdmap::ReadRequestHeader> read_request;
  // Its number when the observer matches it with a Read Response; 0: not
  // matched (matching is off after a gap or on a mid-connection start).
  std::uint64_t read_request_number = 0;
  // A Read Response segment: the Read Request it answers, when matched.
  std::optional<ReadMatch> read;
  // Terminate (opcode 7), when it decodes
  std::optional<rdmap::TerminateMessage> terminate;
  // The ULP's view of a Send's first segment, once the ULP is recognised.
  const UlpMessage* ulp = nullptr;
  // RDMA Write segment or Read Request of the responder (target), and a
  // Read Response to such a Read Request: the chunk segment or STag of a
  // waiting call or open command it was tied to (ulp_rules.cpp).
  std::optional<UlpTie> ulp_tie;
};

// One decoded message. Pointers and views are valid during the callback only.
struct Message {
  MessageKind kind = MessageKind::kFpdu;
  Side side = Side::kInitiator;
  FrameNo first_frame = 0;  // frame of its first octet
  FrameNo frame = 0;        // frame of its last octet (where Wireshark shows a reassembled PDU)
  std::uint64_t stream_offset = 0;
  std::size_t octets = 0;   // on the wire (FPDU: Markers, PAD and CRC included)
  const mpa::ReqRepFrame* req_rep = nullptr;  // kMpaRequest, kMpaReply
  const mpa::Fpdu* fpdu = nullptr;            // kFpdu
  const SegmentInfo* segment = nullptr;       // kFpdu, kDdpSegment
  wire::Bytes ddp_segment;                    // kDdpSegment: the DDP segment, header and payload
  const SctpInfo* sctp = nullptr;             // kDdpSegment, kSctpControl
  const clc::Message* clc = nullptr;          // kClc
  wire::Bytes clc_octets;                     // kClc
  const RoceInfo* roce = nullptr;             // kRoce
};

struct Violation {
  const Rule* rule = nullptr;
  Side side = Side::kInitiator;  // the peer that broke the rule
  FrameNo frame = 0;
  std::uint64_t stream_offset = 0;
  std::string text;  // one line: what was seen
  // When a known encoding mistake explains the octets (wire/hint.hpp): its
  // id and the reading that makes sense; empty otherwise.
  std::string_view hint_mistake;
  std::string hint;
};

// Things worth knowing that are not violations: protocol detection, gaps,
// resynchronisation, octets skipped while hunting, limits.
// kFinding: a malformation of the carrying layer that no registry row names
// (an SCTP checksum, a broken fragment sequence): the typed error's words.
enum class EventKind : std::uint8_t { kDetected, kGap, kResynchronised, kSkipped, kLimit, kFinding };
struct Event {
  EventKind kind = EventKind::kDetected;
  Side side = Side::kInitiator;
  FrameNo frame = 0;
  std::uint64_t stream_offset = 0;
  std::uint64_t length = 0;
  std::string text;
};

class ObserverSink {
 public:
  virtual ~ObserverSink() = default;
  virtual void on_message(const Message&) {}
  virtual void on_violation(const Violation&) = 0;
  virtual void on_event(const Event&) {}
};

struct ObserverConfig {
  // Octets one direction may hold: a partial message, or the window a hunt
  // scans. Beyond it the oldest octets are skipped (reported as kSkipped).
  std::size_t max_buffer = std::size_t{256} << 10;
  // Emit on_message for FPDUs (off: violations and counts only, for speed).
  bool report_fpdus = true;
  // The ULP every connection carries, when the user says so (`--ulp`);
  // otherwise it is recognised per connection (ulp_observer.hpp).
  std::optional<Ulp> ulp;
};

// What MPA startup settled, as both frames said (nullopt fields: not seen).
struct MpaParameters {
  bool known = false;            // both frames seen (or inferred while resynchronising)
  std::uint8_t revision = 0;
  bool crc = false;
  bool markers[2] = {false, false};  // per sending side: the receiver asked for them
  bool enhanced = false;
  std::uint16_t ird[2] = {0, 0};     // per side, as advertised
  std::uint16_t ord[2] = {0, 0};
  bool peer_to_peer = false;
  bool rtr_send = false, rtr_write = false, rtr_read = false;  // the RTR kinds the Reply set
  bool rtr_sendable = false;  // one of them was offered: the initiator can send it (RFC 6581 §9.2)
  bool rejected = false;
};

struct DirectionStats {
  std::uint64_t octets = 0;
  std::uint64_t fpdus = 0;
  std::uint64_t clc_messages = 0;
  std::uint64_t skipped_octets = 0;  // not decoded: hunting, gaps, limits, other protocols
  std::uint64_t resyncs = 0;
};

class ConnectionObserver {
 public:
  explicit ConnectionObserver(ObserverSink& sink, ObserverConfig config = {});
  ~ConnectionObserver();
  ConnectionObserver(const ConnectionObserver&) = delete;
  ConnectionObserver& operator=(const ConnectionObserver&) = delete;

  // The side's SYN (or SYN-ACK) was seen, with or without the SMC option,
  // and the MSS option's value when it carried one: the most the other side
  // may put in a segment (RFC 9293 §3.7.1), which bounds its EMSS.
  void on_syn(Side side, bool smc_option, std::optional<std::uint16_t> mss = std::nullopt);
  // The experimental options of that SYN, in frame `frame`: the SMC option's
  // form is judged at once, whether CLC may flow when CLC does
  // (check/smc_tcp.hpp). Call after on_syn.
  void on_syn_options(Side side, FrameNo frame, const clc::SynExperimentalOptions& experimental);
  // The side's stream starts mid-connection (no SYN seen): the first octets
  // are not a stream start, so the observer hunts for framing.
  void on_mid_stream(Side side);
  // The next octets of a side's stream, in order, from frame `frame`.
  void on_data(Side side, FrameNo frame, wire::Bytes octets);
  // The same for octets that are one TCP segment's whole payload, sent for
  // the first time as far as the capture shows: on_data, and the segment's
  // edges for the segmentation rules (RFC 5044 §4.5, §5.1).
  void on_segment(Side side, FrameNo frame, wire::Bytes payload);
  // Octets the side sent again at sequence numbers it had sent before, with
  // another value there: the first that differs.
  struct Retransmission {
    std::uint64_t stream_offset = 0;
    std::uint32_t sequence_number = 0;
    std::uint8_t first_sent = 0, resent = 0;
    FrameNo first_frame = 0;  // the first copy (0: not known)
  };
  void on_conflicting_retransmission(Side side, FrameNo frame, const Retransmission& r);
  // The seam for a lower layer that frames DDP segments itself (RFC 5043's
  // DDP/SCTP adaptation layer, observer_sctp.hpp): one whole DDP segment the
  // side sent, in the order its sender numbered them, carried from frame
  // `first_frame` to `frame`. The same DDP and RDMAP rules judge it as an
  // FPDU's ULPDU; `sctp` is handed on with its message.
  void on_ddp_segment(Side side, FrameNo first_frame, FrameNo frame, wire::Bytes segment,
                      const SctpInfo* sctp = nullptr);
  // `length` octets of the side's stream are missing (not captured).
  void on_gap(Side side, std::uint64_t length, FrameNo frame);
  // The side's stream ended (FIN, RST, end of capture).
  void on_end(Side side);

  Protocol protocol() const { return protocol_; }
  const MpaParameters& mpa() const { return mpa_; }
  const DirectionStats& stats(Side s) const;
  // Complete RDMAP messages (segments with L set) a side sent, per opcode
  // value, and CLC messages per type (index = the Type field, 1-4).
  const std::array<std::uint64_t, 16>& rdmap_messages(Side s) const;
  const std::array<std::uint64_t, 5>& clc_types(Side s) const;
  // The upper-layer protocol over RDMAP and what it said.
  const UlpStats& ulp() const { return ulp_.stats(); }

 private:
  struct Direction;
  struct Consumed;
  struct Hunt;  // one call of hunt() (observer_hunt.cpp)
  Direction& dir(Side s) { return *dirs_[static_cast<int>(s)]; }

  void feed(Direction& d, FrameNo frame, wire::Bytes octets);
  Consumed consume(Direction& d, FrameNo frame, wire::Bytes octets, FrameNo first_frame);
  Consumed detect(Direction& d, FrameNo frame, wire::Bytes octets);
  Consumed mpa_startup(Direction& d, FrameNo frame, wire::Bytes octets, FrameNo first_frame);
  Consumed full_operation(Direction& d, FrameNo frame, wire::Bytes octets, FrameNo first_frame);
  Consumed hunt(Direction& d, FrameNo frame, wire::Bytes octets);
  Consumed clc_stream(Direction& d, FrameNo frame, wire::Bytes octets, FrameNo first_frame);

  void pump(Direction& d, FrameNo frame);
  // TCP segmentation (observer_tcp.cpp)
  void arm_segmentation(Direction& d);
  void note_split(Direction& d, std::uint64_t at);
  void check_fpdu_segments(Direction& d, const mpa::Fpdu& f, FrameNo first_frame, std::uint64_t offset);
  void settle_mpa(FrameNo frame);
  void enter_full_operation(Direction& d);
  void start_hunt(Direction& d, FrameNo frame, std::string_view why);
  void apply_buffer_limit(Direction& d, FrameNo frame);
  bool plausible_segment(wire::Bytes ulpdu_start) const;
  void on_fpdu(Direction& d, const mpa::Fpdu& f, FrameNo first_frame, FrameNo frame);
  // What follows MPA (or another lower layer): one DDP segment through the
  // DDP/RDMAP rules and the ULP, and its message. `f`: its FPDU, if any.
  struct Ulpdu {
    const wire::Chunks& octets;
    const mpa::Fpdu* fpdu;
    std::size_t wire_octets;
    wire::Bytes whole;  // the segment in one view, when it is one (SCTP)
    const SctpInfo* sctp;
  };
  void on_ulpdu(Direction& d, const Ulpdu& u, FrameNo first_frame, FrameNo frame);
  void check_segment(Direction& d, const wire::Chunks& u, SegmentInfo& seg, FrameNo frame, std::uint64_t offset);
  void check_first_fpdu(Direction& d, const rdmap::OpcodeInfo& info, const SegmentInfo& seg, wire::Bytes rdmap_octets,
                        std::size_t have, FrameNo frame, std::uint64_t offset);
  void on_clc(Direction& d, const clc::Message& m, wire::Bytes octets, FrameNo first_frame, FrameNo frame,
              std::uint64_t offset);
  void check_accept(Direction& d, const clc::AcceptConfirm& a, FrameNo frame, std::uint64_t offset);
  void check_confirm(Direction& d, const clc::AcceptConfirm& c, FrameNo frame, std::uint64_t offset);
  void fce_absent(Direction& d, const clc::AcceptConfirm& m, wire::Bytes octets, FrameNo frame, std::uint64_t offset);
  void judge_option(Direction& d, FrameNo frame, std::uint64_t offset);

  void violate(const Rule& rule, Side side, FrameNo frame, std::uint64_t offset, std::string text,
               std::optional<wire::Hint> hint = std::nullopt);
  void event(EventKind kind, Side side, FrameNo frame, std::uint64_t offset, std::uint64_t length,
             std::string text);

  ObserverSink& sink_;
  ObserverConfig config_;
  std::unique_ptr<Direction> dirs_[2];
  Protocol protocol_ = Protocol::kUnknown;
  MpaParameters mpa_;
  bool syn_seen_[2] = {false, false};
  // CLC exchange so far
  std::optional<clc::Proposal> proposal_;
  std::optional<clc::AcceptConfirm> accept_;
  bool clc_done_ = false;
  // Request/response matching holds while no octet of either direction was
  // lost (a gap or a mid-connection start turns it off for the connection).
  bool reads_synced_ = true;
  UlpObserver ulp_;
  // The MSS each SYN announced (on_syn). Last: the members above are read
  // per FPDU, and where they sit moved analyze's time by 3 % (performance.md).
  std::optional<std::uint16_t> syn_mss_[2];
  // What each SYN said of SMC (on_syn, on_syn_options) and whose CLC was
  // judged against it: the first CLC message of the connection, of each side.
  check::SynSmc syn_smc_[2];
  bool clc_sent_[2] = {false, false};
};

}  // namespace rdmaconf::analysis
