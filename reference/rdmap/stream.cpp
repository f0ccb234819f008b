#include "rdmap/stream.hpp"

#include <algorithm>

#include "rdmap/stream_internal.hpp"

namespace rdmaconf::rdmap {
namespace {

constexpr std::string_view kLocal = "local";

wire::DecodeError local_error(std::string_view what, std::string_view rule,
                              std::string_view section) {
  return wire::DecodeError{what, rule, section, 0};
}

using stream_detail::done;

}  // namespace

std::string_view to_string(StreamState s) {
  switch (s) {
    case StreamState::kOperational:
      return "operational";
    case StreamState::kTerminateSent:
      return "terminate sent";
    case StreamState::kTerminateReceived:
      return "terminate received";
    case StreamState::kClosed:
      return "closed";
  }
  return "?";
}

// RFC 7306 §5. FetchAdd adds Add Data; a 1 in Add Mask marks the most
// significant bit of a field, and no carry crosses out of such a bit (so a
// zero mask is a plain 64-bit add). Swap and CmpSwap replace the bits the
// Swap Mask selects; CmpSwap only when the bits the Compare Mask selects
// equal Compare Data.
std::uint64_t atomic_result(AtomicOpcode op, std::uint64_t original, const AtomicRequest& a,
                            bool* swapped) {
  if (swapped) *swapped = false;
  const std::uint64_t replace =
      (original & ~a.add_or_swap_mask) | (a.add_or_swap_data & a.add_or_swap_mask);
  switch (op) {
    case AtomicOpcode::kFetchAdd: {
      std::uint64_t result = 0;
      unsigned carry = 0;
      for (unsigned bit = 0; bit < 64; ++bit) {
        const unsigned sum = static_cast<unsigned>((original >> bit) & 1) +
                             static_cast<unsigned>((a.add_or_swap_data >> bit) & 1) + carry;
        result |= std::uint64_t{sum & 1u} << bit;
        carry = (a.add_or_swap_mask >> bit) & 1 ? 0 : sum >> 1;
      }
      return result;
    }
    case AtomicOpcode::kSwap:
      if (swapped) *swapped = true;
      return replace;
    case AtomicOpcode::kCompareSwap:
      if (((original ^ a.compare_data) & a.compare_mask) != 0) return original;
      if (swapped) *swapped = true;
      return replace;
  }
  return original;
}

Stream::Stream(StreamConfig config)
    : config_(config),
      memory_(config.first_stag_key),
      read_request_slots_(config.ird),
      atomic_slots_(config.ord) {
  // RFC 5040 §5.2.1: the Data Source holds IRD buffers on QN 1, one per
  // RDMA Read Request it can have outstanding; a Read Request beyond them
  // finds no buffer (RFC 5041 §7.2, 0x1/0x2/0x02).
  for (auto& slot : read_request_slots_) queues_.post(qn(Queue::kReadRequest), {0, slot});
  // RFC 5040 §5.4: one buffer for the peer's Terminate.
  queues_.post(qn(Queue::kTerminate), {0, terminate_slot_});
  // RFC 7306 §5.2: Atomic Requests arrive on QN 1 with the Read Requests
  // and share their IRD buffers; QN 3 receives Atomic Responses (up to ORD),
  // each buffer handed back as soon as its message is delivered.
  for (auto& slot : atomic_slots_) queues_.post(qn(Queue::kAtomic), {0, slot});
}

ddp::Checks Stream::placement_checks() const {
  ddp::Checks c;
  c.ddp_version = check(Fault::kSkipDdpVersionCheck);
  c.stag_valid = check(Fault::kSkipStagCheck);
  c.stag_key = check(Fault::kSkipStagKeyCheck);
  c.stream_association = check(Fault::kSkipStreamAssociationCheck);
  c.access_rights = check(Fault::kSkipAccessCheck);
  c.base_bounds = check(Fault::kSkipBoundsCheck);
  c.to_wrap = check(Fault::kSkipToWrapCheck);
  c.queue_number = check(Fault::kSkipQnCheck);
  c.msn = check(Fault::kSkipMsnCheck);
  c.message_offset = check(Fault::kSkipMoCheck);
  c.message_length = check(Fault::kSkipMessageLengthCheck);
  return c;
}

ddp::Stag Stream::register_memory(std::span<std::uint8_t> buffer, std::uint64_t base_to,
                                  ddp::Access access, bool remote_invalidate) {
  return memory_.register_region(buffer, base_to, access, config_.pd, remote_invalidate);
}

bool Stream::invalidate_local(ddp::Stag stag) {
  ddp::MemoryRegion* r = memory_.find(stag);
  if (r == nullptr || !r->valid) return false;
  r->valid = false;
  return true;
}

void Stream::post_receive(WorkRequestId id, std::span<std::uint8_t> buffer) {
  if (state_ != StreamState::kOperational) {
    complete(done(id, CompletionType::kReceive, CompletionStatus::kFlushed));
    return;
  }
  queues_.post(qn(Queue::kSend), {id, buffer});
}

// ---------------------------------------------------------------------------
// Initiator operations

wire::Status Stream::require_operational() const {
  if (state_ != StreamState::kOperational)
    return local_error(kLocal, "the stream is no longer operational", "RFC 5040 §6.2");
  return {};
}

wire::Status Stream::enqueue_untagged(Opcode op, std::uint32_t rsvd_ulp32,
                                      wire::Bytes rdmap_header, const wire::Chunks& payload,
                                      std::optional<WorkRequestId> wr, CompletionType type,
                                      bool releases_inbound, bool read_request_credit) {
  const OpcodeInfo& oi = info(op);
  const auto q = static_cast<std::size_t>(*oi.queue);
  ddp::UntaggedTarget t{Control::octet(op), rsvd_ulp32, qn(*oi.queue), next_send_msn_[q]};
  std::vector<ddp::Segment>& segs = segments_;
  if (auto s = ddp::segment_untagged(t, rdmap_header, payload, config_.mulpdu, segs); !s) return s;
  if (oi.single_segment && segs.size() != 1)
    return local_error(oi.name, "must be a single DDP segment; MULPDU too small", oi.rfc_section);
  next_send_msn_[q] = ddp::next(next_send_msn_[q]);
  for (std::size_t i = 0; i < segs.size(); ++i) {
    Outgoing o;
    o.segment = std::move(segs[i]);
    if (i + 1 == segs.size()) {
      o.completes = wr;
      o.type = type;
      o.byte_len = static_cast<std::uint32_t>(payload.size());
      o.releases_inbound = releases_inbound;
      o.read_request_credit = read_request_credit;
    }
    outgoing_.push_back(std::move(o));
  }
  segs.clear();  // keeps its capacity, and no views of the payload
  return {};
}

wire::Status Stream::enqueue_tagged(Opcode op, ddp::Stag stag, std::uint64_t to,
                                    const wire::Chunks& payload, std::optional<WorkRequestId> wr,
                                    CompletionType type, bool releases_inbound,
                                    bool read_request_credit) {
  ddp::TaggedTarget t{Control::octet(op), stag, to};
  std::vector<ddp::Segment>& segs = segments_;
  if (auto s = ddp::segment_tagged(t, {}, payload, config_.mulpdu, segs); !s) return s;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    Outgoing o;
    o.segment = std::move(segs[i]);
    if (i + 1 == segs.size()) {
      o.completes = wr;
      o.type = type;
      o.byte_len = static_cast<std::uint32_t>(payload.size());
      o.releases_inbound = releases_inbound;
      o.read_request_credit = read_request_credit;
    }
    outgoing_.push_back(std::move(o));
  }
  segs.clear();  // keeps its capacity, and no views of the payload
  return {};
}

// RFC 5040 §5.3: the four Send variants.
wire::Status Stream::post_send(WorkRequestId id, const wire::Chunks& payload, SendOptions o) {
  if (auto s = require_operational(); !s) return s;
  // RFC 5040 §5.5: a fenced Send waits for every earlier Read and Atomic
  // Response; Sends behind a waiting one keep their order.
  const bool outstanding = !reads_.empty() || !atomics_.empty();
  if (!fenced_.empty() || (o.read_fence && outstanding && check(Fault::kSkipReadFence))) {
    fenced_.push_back({id, payload, o});
    return {};
  }
  return enqueue_send(id, payload, o);
}

wire::Status Stream::enqueue_send(WorkRequestId id, const wire::Chunks& payload, const SendOptions& o) {
  const Opcode op = o.invalidate ? (o.solicited_event ? Opcode::kSendWithSeAndInvalidate
                                                      : Opcode::kSendWithInvalidate)
                                 : (o.solicited_event ? Opcode::kSendWithSe : Opcode::kSend);
  // RFC 5040 §4.2: the Invalidate STag rides in RsvdULP[8:39]; zero otherwise.
  const std::uint32_t inval = o.invalidate ? ddp::value(*o.invalidate) : 0;
  return enqueue_untagged(op, inval, {}, payload, id, CompletionType::kSend);
}

void Stream::release_fenced() {
  while (!fenced_.empty() && state_ == StreamState::kOperational) {
    const FencedSend& f = fenced_.front();
    if (f.options.read_fence && (!reads_.empty() || !atomics_.empty())) return;
    if (!enqueue_send(f.id, f.payload, f.options))
      complete(done(f.id, CompletionType::kSend, CompletionStatus::kFlushed, 0));
    fenced_.pop_front();
  }
}

// Work other than a Send cannot overtake a fenced Send (RFC 5040 §5.5); the
// reference refuses it rather than queueing every kind of work.
namespace {
wire::Status behind_fence() {
  return local_error("Read fence", "work posted while a fenced Send waits for earlier Responses", "RFC 5040 §5.5");
}
}  // namespace

// RFC 5040 §5.1.
wire::Status Stream::post_write(WorkRequestId id, const wire::Chunks& payload, ddp::Stag sink_stag,
                                std::uint64_t sink_to) {
  if (auto s = require_operational(); !s) return s;
  if (!fenced_.empty()) return behind_fence();
  return enqueue_tagged(Opcode::kRdmaWrite, sink_stag, sink_to, payload, id,
                        CompletionType::kRdmaWrite);
}

// RFC 5040 §5.2.1: an RDMA Read Request, counted against ORD.
wire::Status Stream::post_read(WorkRequestId id, const ReadRequest& read) {
  if (auto s = require_operational(); !s) return s;
  if (!fenced_.empty()) return behind_fence();
  if (check(Fault::kSkipOrdCheck) && reads_.size() + atomics_.size() >= config_.ord)
    return local_error("ORD", "outstanding RDMA Read and Atomic Requests would exceed ORD",
                       "RFC 5040 §5.2.1");
  ReadRequestHeader h;
  using F = ReadRequestSpec::Field;
  h.set(F::SinkSTag, ddp::value(read.sink_stag)).set(F::SinkTO, read.sink_to);
  h.set(F::ReadSize, read.size).set(F::SourceSTag, ddp::value(read.source_stag));
  h.set(F::SourceTO, read.source_to);
  if (auto s = enqueue_untagged(Opcode::kRdmaReadRequest, 0, h.bytes(), {}, std::nullopt,
                                CompletionType::kRdmaRead);
      !s)
    return s;
  reads_.push_back({id, read.size});
  return {};
}

// RFC 7306 §5: an Atomic Request, counted against ORD like a Read.
wire::Status Stream::post_atomic(WorkRequestId id, const AtomicRequest& a) {
  if (auto s = require_operational(); !s) return s;
  if (!fenced_.empty()) return behind_fence();
  if (check(Fault::kSkipOrdCheck) && reads_.size() + atomics_.size() >= config_.ord)
    return local_error("ORD", "outstanding RDMA Read and Atomic Requests would exceed ORD",
                       "RFC 7306 §5");
  const std::uint32_t request_id = next_atomic_id_++;
  AtomicRequestHeader h;
  using F = AtomicRequestSpec::Field;
  h.set(F::AtomicOpcode,
        a.raw_opcode_override <= 0x0f ? a.raw_opcode_override : static_cast<std::uint8_t>(a.op));
  h.set(F::RequestIdentifier, request_id).set(F::RemoteSTag, ddp::value(a.remote_stag));
  h.set(F::RemoteTO, a.remote_to).set(F::AddOrSwapData, a.add_or_swap_data);
  // RFC 7306 §5: fields an operation does not use have fixed values: Swap
  // sends Add or Swap Mask as all ones, FetchAdd and Swap send Compare Data
  // as zero and Compare Mask as all ones.
  const bool compares = a.op == AtomicOpcode::kCompareSwap;
  h.set(F::AddOrSwapMask, a.op == AtomicOpcode::kSwap ? ~std::uint64_t{0} : a.add_or_swap_mask);
  h.set(F::CompareData, compares ? a.compare_data : 0);
  h.set(F::CompareMask, compares ? a.compare_mask : ~std::uint64_t{0});
  if (auto s = enqueue_untagged(Opcode::kAtomicRequest, 0, h.bytes(), {}, std::nullopt,
                                CompletionType::kAtomic);
      !s)
    return s;
  atomics_.push_back({id, request_id});
  return {};
}

// RFC 7306 §6: Immediate Data (with or without SE), 8 octets, QN 0.
wire::Status Stream::post_immediate(WorkRequestId id, std::uint64_t data, bool solicited_event) {
  if (auto s = require_operational(); !s) return s;
  if (!fenced_.empty()) return behind_fence();
  ImmediateDataHeader h;
  h.set(ImmediateDataSpec::Field::ImmediateData, data);
  return enqueue_untagged(solicited_event ? Opcode::kImmediateDataWithSe : Opcode::kImmediateData,
                          0, h.bytes(), {}, id, CompletionType::kImmediateData);
}

// ---------------------------------------------------------------------------
// Outgoing and completions

std::optional<ddp::Segment> Stream::take_outgoing() {
  if (outgoing_.empty()) return std::nullopt;
  Outgoing o = outgoing_.take_front();
  // RFC 5040 §5.5: a Send, RDMA Write or Immediate Data completes at the
  // Data Source once its last segment was handed to the LLP.
  if (o.completes) complete(done(*o.completes, o.type, CompletionStatus::kSuccess, o.byte_len));
  // RFC 5040 §5.2.1: a response handed to the LLP frees its IRD slot; a
  // Read Response also gives its QN 1 buffer back.
  if (o.releases_inbound && inbound_outstanding_ > 0) --inbound_outstanding_;
  if (o.read_request_credit && !read_request_slots_.empty()) {
    queues_.post(qn(Queue::kReadRequest), {0, read_request_slots_[next_read_slot_]});
    next_read_slot_ = (next_read_slot_ + 1) % read_request_slots_.size();
  }
  return std::move(o.segment);
}

std::optional<Completion> Stream::poll_completion() {
  if (completions_.empty()) return std::nullopt;
  return completions_.take_front();
}

// ---------------------------------------------------------------------------
// Error path

void Stream::terminate_with(TerminateCode code, bool copy_current) {
  if (state_ != StreamState::kOperational) return;
  const OffendingSegment offending = current_.offending();
  // Fault: for a bad DDP or RDMAP version or an unexpected opcode, copy
  // nothing of the segment (as Linux siw does), against Figure 10.
  const bool bad_layout = code == ddp::code_of(ddp::TaggedError::kInvalidDdpVersion) ||
                          code == ddp::code_of(ddp::UntaggedError::kInvalidDdpVersion) ||
                          code == operation(ErrorCode::kInvalidRdmapVersion) ||
                          code == operation(ErrorCode::kUnexpectedOpcode);
  const auto forced = config_.faults.has(Fault::kOmitTerminatedHeader) && bad_layout
                          ? std::optional(ddp::Copies::kNothing)
                          : std::nullopt;
  TerminateMessage t =
      make_terminate(code, copy_current && current_.ddp_header_size ? &offending : nullptr, forced);
  state_ = StreamState::kTerminateSent;
  flush_all();

  std::vector<std::uint8_t> body;
  wire::ByteWriter w(body);
  encode(t, w);
  const auto q = static_cast<std::size_t>(Queue::kTerminate);
  ddp::UntaggedTarget target{Control::octet(Opcode::kTerminate), 0, qn(Queue::kTerminate),
                             next_send_msn_[q]};
  auto segs = ddp::segment_untagged(target, body, {}, config_.mulpdu);
  if (!segs || segs->size() != 1) {
    // An MULPDU too small for the copies: send the Terminate Control alone.
    t = make_terminate(code, nullptr);
    body.clear();
    encode(t, w);
    segs = ddp::segment_untagged(target, body, {}, config_.mulpdu);
  }
  terminate_sent_ = t;
  next_send_msn_[q] = ddp::next(next_send_msn_[q]);
  if (segs && !segs->empty()) {
    Outgoing o;
    o.segment = std::move(segs->front());
    outgoing_.push_back(std::move(o));
  }
}

void Stream::report_llp_error(mpa::LlpErrorCode code) { terminate_with(code_of(code), false); }

void Stream::close() {
  if (state_ == StreamState::kClosed) return;
  state_ = StreamState::kClosed;
  flush_all();
}

// RFC 5040 §6.2.2 (abortive teardown): nothing more goes on the wire for
// work not yet handed to the LLP, and every outstanding request completes
// as flushed.
void Stream::flush_all() {
  outgoing_.for_each([&](const Outgoing& o) {
    if (o.completes) complete(done(*o.completes, o.type, CompletionStatus::kFlushed, 0));
  });
  outgoing_.clear();
  queues_.drain(qn(Queue::kSend), [&](const ddp::PostedBuffer& b) {
    complete(done(b.wr_id, CompletionType::kReceive, CompletionStatus::kFlushed, 0));
  });
  reads_.for_each([&](const OutstandingRead& r) {
    complete(done(r.id, CompletionType::kRdmaRead, CompletionStatus::kFlushed, 0));
  });
  reads_.clear();
  atomics_.for_each([&](const OutstandingAtomic& a) {
    complete(done(a.id, CompletionType::kAtomic, CompletionStatus::kFlushed, 0));
  });
  atomics_.clear();
  fenced_.for_each(
      [&](const FencedSend& f) { complete(done(f.id, CompletionType::kSend, CompletionStatus::kFlushed, 0)); });
  fenced_.clear();
  pending_immediate_.clear();
  inbound_outstanding_ = 0;
}

}  // namespace rdmaconf::rdmap
