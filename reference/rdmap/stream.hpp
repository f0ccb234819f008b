// A sans-IO RDMAP stream (RFC 5040 §5-§7, RFC 7306, RFC 5042 §5): the
// whole iWARP upper half for one connection, with no sockets and no clocks.
//
//   incoming:  on_segment(ulpdu)   one DDP segment, as MPA's deframer yields it
//   outgoing:  take_outgoing()     encoded DDP segments (header octets + payload
//                                  views, each <= MULPDU) for MPA's framer
//   ULP:       post_*()            Send, RDMA Write, RDMA Read, Atomic, Immediate
//              post_receive()      buffers for incoming Sends (QN 0)
//              poll_completion()   completion records
//              memory()            STag registrations (the Data Sink's table)
//
// State machine (RFC 5040 §6, §7):
//
//   kOperational --error detected--> kTerminateSent  --close()--> kClosed
//        |                                 ^
//        +--Terminate received--> kTerminateReceived --close()--> kClosed
//
// On every receive error after which the RFCs require a Terminate, the
// stream queues one Terminate (QN 2, L=1) with the exact layer, error type
// and code, copies the offending headers as RFC 5040 §4.8 says, discards
// what it had not yet handed to the LLP, flushes outstanding work and drops
// every later incoming segment except a peer's Terminate (RFC 5041 §7.1).
//
// Each receive rule is one check in stream_receive.cpp (a function of the
// rule layer, check/segment.hpp, where another tool checks it too), named by
// a Fault below that can switch it off, so the conformance engine can turn this reference into
// a deliberately faulty peer. Switching a check off never makes the stream
// touch memory outside the buffers it was given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ddp/errors.hpp"
#include "ddp/headers.hpp"
#include "ddp/placement.hpp"
#include "ddp/segmentation.hpp"
#include "mpa/errors.hpp"
#include "rdmap/error_codes.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/terminate.hpp"
#include "wire/chunks.hpp"
#include "wire/fault_set.hpp"
#include "wire/result.hpp"
#include "wire/ring.hpp"

namespace rdmaconf::rdmap {

using WorkRequestId = std::uint64_t;

// Receive rules that a conformance case may switch off (one per check).
enum class Fault : std::uint8_t {
  kSkipDdpVersionCheck,         // RFC 5041 §4.1: DV must be 1
  kSkipRdmapVersionCheck,       // RFC 5040 §4.2: RV must be 1
  kSkipOpcodeCheck,             // RFC 5040 §4.3: opcode known, on the right T bit and QN
  kSkipMessageShapeCheck,       // RFC 5040 §5 / RFC 7306: single-segment messages, header sizes
  kSkipStagCheck,               // RFC 5041 §7.1: STag valid
  kSkipStreamAssociationCheck,  // RFC 5042 §5.1: STag in the stream's protection domain
  kSkipAccessCheck,             // RFC 5040 §8: access rights
  kSkipBoundsCheck,             // RFC 5041 §7.1: base and bounds
  kSkipToWrapCheck,             // RFC 5041 §7.1: 64-bit TO wrap
  kSkipQnCheck,                 // RFC 5041 §7.1: queue number
  kSkipMsnCheck,                // RFC 5041 §7.1: MSN range and buffer
  kSkipMoCheck,                 // RFC 5041 §7.1: message offset
  kSkipMessageLengthCheck,      // RFC 5041 §7.1: message fits the buffer
  kSkipIrdCheck,                // RFC 5040 §5.2.1 / RFC 7306: inbound requests <= IRD
  kSkipOrdCheck,                // RFC 5040 §5.2.1: outbound requests <= ORD (local)
  kSkipInvalidateCheck,         // RFC 5040 §5.3 / RFC 5042 §5.2: which STags may be invalidated
  kSkipAtomicAlignmentCheck,    // RFC 7306 §5: 8-octet aligned target
  kSkipReadFence,               // RFC 5040 §5.5: a fenced message waits for Read/Atomic Responses (local)
  kCheckAtomicReserved,         // the opposite of RFC 7306 §5: terminates on reserved bits it must ignore
  kOmitTerminatedHeader,        // against RFC 5040 §4.8 Fig. 10: no DDP header for a bad version or opcode
  kSkipStagKeyCheck,            // RFC 5042 §6.1.1: an STag's key octet (another stream's STag of the same index)
  kCount
};

using Faults = wire::FaultSet<Fault>;

struct StreamConfig {
  std::size_t mulpdu = 1024;  // MPA's MULPDU: largest DDP segment the framer takes
  std::uint32_t ird = 4;      // inbound RDMA Read + Atomic Requests we answer at once
  std::uint32_t ord = 4;      // outbound ones we may have outstanding
  ddp::ProtectionDomain pd{1};
  // The key of the stream's first registration (ddp::MemoryTable): a device
  // gives each stream its own, so no two streams share an STag.
  std::uint8_t first_stag_key = 0;
  Faults faults;
};

enum class StreamState : std::uint8_t {
  kOperational,
  kTerminateSent,
  kTerminateReceived,
  kClosed,
};
std::string_view to_string(StreamState s);

enum class CompletionType : std::uint8_t {
  kSend,              // local: a Send variant was handed to the LLP
  kRdmaWrite,         // local: an RDMA Write was handed to the LLP
  kRdmaRead,          // local: the Read Response was placed (RFC 5040 §5.5)
  kAtomic,            // local: the Atomic Response arrived (RFC 7306 §7)
  kImmediateData,     // local: Immediate Data was handed to the LLP
  kReceive,           // remote Send delivered into a posted buffer
  kReceiveImmediate,  // remote Immediate Data delivered (consumed a posted buffer)
  kTerminateReceived, // the peer's Terminate, decoded
};
enum class CompletionStatus : std::uint8_t {
  kSuccess,
  kFlushed,  // the stream terminated before the work finished (RFC 5040 §6.2.2)
};

struct Completion {
  WorkRequestId wr_id = 0;
  CompletionType type = CompletionType::kSend;
  CompletionStatus status = CompletionStatus::kSuccess;
  std::uint32_t byte_len = 0;
  std::optional<ddp::Stag> invalidated_stag;  // Send with Invalidate at the Data Sink
  bool solicited_event = false;
  std::optional<std::uint64_t> immediate_data;
  std::optional<std::uint64_t> atomic_original;  // Original Remote Data Value
  std::optional<TerminateMessage> terminate;     // kTerminateReceived, if it decoded
  std::optional<wire::DecodeError> terminate_error;  // kTerminateReceived, if it did not
};

struct SendOptions {
  bool solicited_event = false;
  std::optional<ddp::Stag> invalidate;  // Send with Invalidate (RFC 5040 §5.3)
  // RFC 5040 §5.5 (RFC 7306 §7): the Read fence. The Send is not handed to
  // the LLP until every RDMA Read and Atomic Request posted before it has its
  // Response; Sends posted behind it wait in order behind it.
  bool read_fence = false;
};

struct ReadRequest {
  ddp::Stag sink_stag{};      // our buffer (needs local write access)
  std::uint64_t sink_to = 0;
  std::uint32_t size = 0;
  ddp::Stag source_stag{};    // the peer's buffer (needs its remote read access)
  std::uint64_t source_to = 0;
};

struct AtomicRequest {
  AtomicOpcode op = AtomicOpcode::kFetchAdd;
  ddp::Stag remote_stag{};
  std::uint64_t remote_to = 0;
  std::uint64_t add_or_swap_data = 0;
  std::uint64_t add_or_swap_mask = 0;  // FetchAdd: 0 is a plain 64-bit add
  std::uint64_t compare_data = 0;
  std::uint64_t compare_mask = ~std::uint64_t{0};
  std::uint8_t raw_opcode_override = 0xff;  // conformance: send this 4-bit value instead
};

class Stream {
 public:
  explicit Stream(StreamConfig config);
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // ---- memory (the Data Sink's STag table; RFC 5042 §5) ----
  ddp::MemoryTable& memory() { return memory_; }
  ddp::Stag register_memory(std::span<std::uint8_t> buffer, std::uint64_t base_to,
                            ddp::Access access, bool remote_invalidate = true);
  bool deregister_memory(ddp::Stag stag) { return memory_.deregister(stag); }
  // Local invalidation (the ULP's own, not a peer's).
  bool invalidate_local(ddp::Stag stag);

  // ---- posted receives: QN 0 buffers for Sends and Immediate Data ----
  void post_receive(WorkRequestId id, std::span<std::uint8_t> buffer);

  // ---- operations as initiator. Payload memory must stay alive until the
  // segments carrying it were taken with take_outgoing() (for a Send held
  // by a Read fence: until it completes). Errors are local (nothing goes on
  // the wire): stream not operational, ORD exhausted, message too large for
  // the MULPDU's segmentation, or work other than a Send posted while a
  // fenced Send waits (the reference keeps only Sends behind a fence). ----
  wire::Status post_send(WorkRequestId id, const wire::Chunks& payload, SendOptions options = {});
  wire::Status post_write(WorkRequestId id, const wire::Chunks& payload, ddp::Stag sink_stag,
                          std::uint64_t sink_to);
  wire::Status post_read(WorkRequestId id, const ReadRequest& read);
  wire::Status post_atomic(WorkRequestId id, const AtomicRequest& atomic);
  wire::Status post_immediate(WorkRequestId id, std::uint64_t data, bool solicited_event = false);

  // ---- incoming: exactly one DDP segment (an MPA ULPDU) per call ----
  void on_segment(const wire::Chunks& ulpdu);
  // The LLP (MPA) detected an error: Terminate with layer LLP (RFC 5044 §8).
  void report_llp_error(mpa::LlpErrorCode code);
  // The LLP connection is gone (RFC 5040 §6.2): everything outstanding is flushed.
  void close();

  // ---- outgoing segments, in order, for the MPA framer ----
  bool has_outgoing() const { return !outgoing_.empty(); }
  std::optional<ddp::Segment> take_outgoing();

  // ---- completions ----
  std::optional<Completion> poll_completion();

  StreamState state() const { return state_; }
  const std::optional<TerminateMessage>& terminate_sent() const { return terminate_sent_; }
  std::uint64_t dropped_segments() const { return dropped_; }
  const StreamConfig& config() const { return config_; }
  // RFC 5040 §6.1 / RFC 6581 §5: IRD and ORD are settled when the stream
  // starts (for MPA by the Request/Reply exchange) and hold for its life;
  // call before any work is posted or any segment arrives.
  void settle_ird_ord(std::uint32_t ird, std::uint32_t ord) {
    config_.ird = ird;
    config_.ord = ord;
  }
  // Sends waiting behind a Read fence.
  std::size_t fenced_waiting() const { return fenced_.size(); }

 private:
  struct Outgoing {
    ddp::Segment segment;
    std::optional<WorkRequestId> completes;  // on the last segment of a local WR
    CompletionType type = CompletionType::kSend;
    std::uint32_t byte_len = 0;
    bool releases_inbound = false;  // last segment of a Read/Atomic Response
    bool read_request_credit = false;  // the response freed a QN 1 buffer
  };
  struct OutstandingRead {
    WorkRequestId id = 0;
    std::uint32_t size = 0;
    std::uint32_t placed = 0;
  };
  struct OutstandingAtomic {
    WorkRequestId id = 0;
    std::uint32_t request_id = 0;
  };
  struct FencedSend {
    WorkRequestId id = 0;
    wire::Chunks payload;
    SendOptions options;
  };
  // The segment being processed, for the headers a Terminate copies.
  struct Current {
    std::array<std::uint8_t, ddp::kUntaggedHeaderSize> ddp_header{};
    std::size_t ddp_header_size = 0;
    std::array<std::uint8_t, kAtomicRequestHeaderSize> rdma_header{};
    std::size_t rdma_header_size = 0;
    std::uint32_t segment_length = 0;
    OffendingSegment offending() const {
      return OffendingSegment{wire::Bytes(ddp_header).first(ddp_header_size),
                              wire::Bytes(rdma_header).first(rdma_header_size), segment_length};
    }
  };

  bool check(Fault f) const { return !config_.faults.has(f); }
  ddp::Checks placement_checks() const;
  wire::Status require_operational() const;
  wire::Status enqueue_untagged(Opcode op, std::uint32_t rsvd_ulp32, wire::Bytes rdmap_header,
                                const wire::Chunks& payload, std::optional<WorkRequestId> wr,
                                CompletionType type, bool releases_inbound = false,
                                bool read_request_credit = false);
  wire::Status enqueue_tagged(Opcode op, ddp::Stag stag, std::uint64_t to,
                              const wire::Chunks& payload, std::optional<WorkRequestId> wr,
                              CompletionType type, bool releases_inbound = false,
                              bool read_request_credit = false);

  // Receive path (stream_receive.cpp, one function per stage).
  void receive_tagged(const ddp::Control& ctl, const OpcodeInfo& op, const wire::Chunks& ulpdu);
  void receive_untagged(const ddp::Control& ctl, const OpcodeInfo& op, const wire::Chunks& ulpdu);
  void deliver(const ddp::DeliveredMessage& m);
  void deliver_send(const ddp::DeliveredMessage& m, const OpcodeInfo& op);
  void deliver_read_request(const ddp::DeliveredMessage& m);
  void deliver_atomic_request(const ddp::DeliveredMessage& m);
  void deliver_atomic_response(const ddp::DeliveredMessage& m);
  void deliver_terminate(const ddp::DeliveredMessage& m);

  // Error path: queue the Terminate, move state, flush.
  void terminate_with(ddp::TerminateCode code, bool copy_current);
  void flush_all();
  void complete(Completion c) { completions_.push_back(std::move(c)); }
  wire::Status enqueue_send(WorkRequestId id, const wire::Chunks& payload, const SendOptions& o);
  // RFC 5040 §5.5: hands fenced Sends to the LLP once nothing is outstanding.
  void release_fenced();

  StreamConfig config_;
  StreamState state_ = StreamState::kOperational;
  ddp::MemoryTable memory_;
  ddp::UntaggedQueues queues_{kQueueCount};
  std::array<ddp::Msn, kQueueCount> next_send_msn_{ddp::kFirstMsn, ddp::kFirstMsn, ddp::kFirstMsn,
                                                    ddp::kFirstMsn};
  // The queues fill and drain as the connection runs; Rings keep their
  // arrays, so a running stream stops allocating once they reached their depth.
  wire::Ring<Outgoing> outgoing_;
  wire::Ring<Completion> completions_;
  wire::Ring<OutstandingRead> reads_;      // ORD: ours, awaiting Read Responses
  wire::Ring<OutstandingAtomic> atomics_;  // ORD: ours, awaiting Atomic Responses
  wire::Ring<FencedSend> fenced_;          // Sends held by a Read fence, in order
  std::vector<ddp::Segment> segments_;     // one message's segments on their way to outgoing_
  std::uint32_t inbound_outstanding_ = 0;  // IRD: peer's requests not yet answered on the wire
  std::uint32_t next_atomic_id_ = 1;
  std::map<std::uint32_t, std::uint64_t> pending_immediate_;  // QN 0 MSN -> Immediate Data
  // Storage behind the RDMAP-owned untagged queues (QN 1, 2, 3).
  // QN 1 buffers: Read Requests and (RFC 7306 §5.2) Atomic Requests.
  std::vector<std::array<std::uint8_t, kAtomicRequestHeaderSize>> read_request_slots_;
  std::array<std::uint8_t, kMaxTerminateSize> terminate_slot_{};
  std::vector<std::array<std::uint8_t, kAtomicRequestHeaderSize>> atomic_slots_;
  std::size_t next_read_slot_ = 0;
  std::optional<TerminateMessage> terminate_sent_;
  std::uint64_t dropped_ = 0;
  Current current_;
};

// RFC 7306 §5: the value an atomic operation leaves in the target, given the
// original value (exposed for tests).
std::uint64_t atomic_result(AtomicOpcode op, std::uint64_t original, const AtomicRequest& a,
                            bool* swapped = nullptr);

}  // namespace rdmaconf::rdmap
