#include "rdmap/stream.hpp"

#include <algorithm>

#include "check/segment.hpp"

namespace rdmaconf::rdmap {
namespace {

constexpr std::string_view kLocal = "local";

wire::DecodeError local_error(std::string_view what, std::string_view rule,
                              std::string_view section) {
  return wire::DecodeError{what, rule, section, 0};
}

// RFC 5040 §4.8: the Remote Protection Error code for a buffer named in an
// RDMA Read Request or Atomic Request that failed a check.
TerminateCode protection_code(ddp::TaggedFault f) {
  switch (f) {
    case ddp::TaggedFault::kInvalidStag:
      return protection(ErrorCode::kInvalidStag);
    case ddp::TaggedFault::kNotAssociated:
      return protection(ErrorCode::kStagNotAssociated);
    case ddp::TaggedFault::kAccessRights:
      return protection(ErrorCode::kAccessRightsViolation);
    case ddp::TaggedFault::kBaseOrBounds:
      return protection(ErrorCode::kBaseOrBoundsViolation);
    case ddp::TaggedFault::kToWrap:
      return protection(ErrorCode::kToWrap);
  }
  return protection(ErrorCode::kUnspecified);
}

Completion done(WorkRequestId id, CompletionType type,
                CompletionStatus status = CompletionStatus::kSuccess, std::uint32_t len = 0) {
  Completion c;
  c.wr_id = id;
  c.type = type;
  c.status = status;
  c.byte_len = len;
  return c;
}

std::uint64_t load_u64(std::span<const std::uint8_t> b) { return wire::load_be(b.first(8)); }

// The Terminate a receiver sends for a rule of the rule layer
// (check/segment.hpp) that a segment broke: layer, error type and code of
// RFC 5040 §4.8 (RDMAP rows) and RFC 5041 §7.2 (DDP rows).
TerminateCode terminate_code(const check::Violation& v, const ddp::Control& ctl) {
  const check::Rule* r = v.rule;
  // RFC 5041 §7.2 has no code for a segment too short for its own header:
  // nothing in it can be trusted, a local catastrophic error.
  if (r == &check::kSegmentHeader) return ddp::kDdpLocalCatastrophic;
  // RFC 5041 §7.2: the Invalid DDP version code of the buffer model the T bit names.
  if (r == &check::kDdpVersion)
    return ctl.tagged ? ddp::code_of(ddp::TaggedError::kInvalidDdpVersion)
                      : ddp::code_of(ddp::UntaggedError::kInvalidDdpVersion);
  if (r == &check::kRdmapVersion) return operation(ErrorCode::kInvalidRdmapVersion);
  // RFC 5041 §7.2: a QN that names no queue at all is DDP's Invalid QN; a
  // defined queue that is not the opcode's is RDMAP's unexpected opcode.
  if (r == &check::kQueueNumber)
    return v.seen >= kQueueCount ? ddp::code_of(ddp::UntaggedError::kInvalidQn)
                                 : operation(ErrorCode::kUnexpectedOpcode);
  if (r == &check::kOpcodeDefined || r == &check::kOpcodeTagged || r == &check::kReadUnsolicited ||
      r == &check::kAtomicUnsolicited)
    return operation(ErrorCode::kUnexpectedOpcode);
  // RFC 5040 §5.2.1: a request beyond IRD finds no QN 1 buffer.
  if (r == &check::kOrdExceeded) return ddp::code_of(ddp::UntaggedError::kInvalidMsnNoBuffer);
  // The message's shape (one segment at MO 0, its header's size): RFC 5040
  // names no code of its own, so the unspecified Remote Operation Error.
  return operation(ErrorCode::kUnspecified);
}

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
  auto segs = ddp::segment_untagged(t, rdmap_header, payload, config_.mulpdu);
  if (!segs) return segs.error();
  if (oi.single_segment && segs->size() != 1)
    return local_error(oi.name, "must be a single DDP segment; MULPDU too small", oi.rfc_section);
  next_send_msn_[q] = ddp::next(next_send_msn_[q]);
  for (std::size_t i = 0; i < segs->size(); ++i) {
    Outgoing o;
    o.segment = std::move((*segs)[i]);
    if (i + 1 == segs->size()) {
      o.completes = wr;
      o.type = type;
      o.byte_len = static_cast<std::uint32_t>(payload.size());
      o.releases_inbound = releases_inbound;
      o.read_request_credit = read_request_credit;
    }
    outgoing_.push_back(std::move(o));
  }
  return {};
}

wire::Status Stream::enqueue_tagged(Opcode op, ddp::Stag stag, std::uint64_t to,
                                    const wire::Chunks& payload, std::optional<WorkRequestId> wr,
                                    CompletionType type, bool releases_inbound,
                                    bool read_request_credit) {
  ddp::TaggedTarget t{Control::octet(op), stag, to};
  auto segs = ddp::segment_tagged(t, {}, payload, config_.mulpdu);
  if (!segs) return segs.error();
  for (std::size_t i = 0; i < segs->size(); ++i) {
    Outgoing o;
    o.segment = std::move((*segs)[i]);
    if (i + 1 == segs->size()) {
      o.completes = wr;
      o.type = type;
      o.byte_len = static_cast<std::uint32_t>(payload.size());
      o.releases_inbound = releases_inbound;
      o.read_request_credit = read_request_credit;
    }
    outgoing_.push_back(std::move(o));
  }
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
  h.set(F::AddOrSwapMask, a.add_or_swap_mask).set(F::CompareData, a.compare_data);
  h.set(F::CompareMask, a.compare_mask);
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
  Outgoing o = std::move(outgoing_.front());
  outgoing_.pop_front();
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
  Completion c = std::move(completions_.front());
  completions_.pop_front();
  return c;
}

// ---------------------------------------------------------------------------
// Receive path

void Stream::on_segment(const wire::Chunks& ulpdu) {
  if (state_ == StreamState::kClosed || state_ == StreamState::kTerminateReceived) {
    ++dropped_;  // RFC 5041 §7.1: after an error, later segments are dropped
    return;
  }
  current_ = Current{};
  current_.segment_length = static_cast<std::uint32_t>(ulpdu.size());

  std::array<std::uint8_t, ddp::kControlSize> first{};
  if (auto v = check::segment_header(ulpdu.size(), ddp::kControlSize)) {
    if (state_ == StreamState::kOperational) terminate_with(terminate_code(*v, ddp::Control{}), false);
    return;
  }
  ulpdu.copy_prefix(first);
  const ddp::Control ctl = ddp::Control::from_octets(first[0], first[1]);
  const std::size_t header_size = ctl.header_size();
  if (auto v = check::segment_header(ulpdu.size(), header_size)) {
    // Shorter than its own DDP header: nothing in it can be trusted or copied.
    if (state_ == StreamState::kOperational) terminate_with(terminate_code(*v, ctl), false);
    return;
  }
  ulpdu.copy_prefix(wire::MutableBytes(current_.ddp_header).first(header_size));
  current_.ddp_header_size = header_size;
  const Control rc = Control::from_octet(ctl.rsvd_ulp);
  const OpcodeInfo* op = find_opcode(rc.opcode);

  if (state_ == StreamState::kTerminateSent) {
    // RFC 5040 §6.2.2: after our Terminate only the peer's Terminate matters.
    if (!ctl.tagged && op != nullptr && op->opcode == Opcode::kTerminate) {
      const auto body = ulpdu.subrange(header_size).to_vector();
      Completion c = done(0, CompletionType::kTerminateReceived);
      auto t = decode_terminate(body);
      if (t) c.terminate = *t;
      else c.terminate_error = t.error();
      complete(std::move(c));
    } else {
      ++dropped_;
    }
    return;
  }

  // Each rule is a function of the rule layer (check/segment.hpp), in the
  // order RFC 5041 §7 and RFC 5040 check them; terminate_code() gives its
  // Terminate. RFC 5041 §4.1: DV is 1.
  if (check(Fault::kSkipDdpVersionCheck)) {
    if (auto v = check::ddp_version(ctl)) {
      terminate_with(terminate_code(*v, ctl), true);
      return;
    }
  }
  // RFC 5040 §4.2: RV is 1.
  if (check(Fault::kSkipRdmapVersionCheck)) {
    if (auto v = check::rdmap_version(rc)) {
      terminate_with(terminate_code(*v, ctl), true);
      return;
    }
  }
  // RFC 5040 §4.3 / RFC 7306 §4: the opcode must be defined and use the
  // buffer model its table row gives.
  check::Outcome bad_opcode = check::opcode_defined(rc, op);
  if (!bad_opcode) bad_opcode = check::opcode_buffer_model(*op, ctl);
  if (bad_opcode) {
    if (check(Fault::kSkipOpcodeCheck)) terminate_with(terminate_code(*bad_opcode, ctl), true);
    else ++dropped_;
    return;
  }
  if (ctl.tagged) receive_tagged(ctl, *op, ulpdu);
  else receive_untagged(ctl, *op, ulpdu);
}

// RDMA Write and RDMA Read Response: tagged placement (RFC 5041 §5.1, §7.1).
void Stream::receive_tagged(const ddp::Control& ctl, const OpcodeInfo& op,
                            const wire::Chunks& ulpdu) {
  const ddp::TaggedHeader h(wire::Bytes(current_.ddp_header).first<ddp::kTaggedHeaderSize>());
  using F = ddp::TaggedSpec::Field;
  const ddp::Stag stag{static_cast<std::uint32_t>(h.get(F::STag))};
  const std::uint64_t to = h.get(F::TO);
  const wire::Chunks payload = ulpdu.subrange(ddp::kTaggedHeaderSize);
  const bool is_read_response = op.opcode == Opcode::kRdmaReadResponse;

  // RFC 5040 §5.2.2: a Read Response answers our oldest outstanding Read.
  if (auto v = is_read_response ? check::read_response_solicited(reads_.size()) : std::nullopt) {
    if (check(Fault::kSkipOpcodeCheck)) terminate_with(terminate_code(*v, ctl), true);
    else ++dropped_;
    return;
  }
  // RFC 5040 §5.1 / §5.2.2: a zero-length segment places nothing, so its
  // STag and TO are not checked.
  if (!payload.empty()) {
    // RDMA Write needs the buffer's remote write right; a Read Response lands
    // in the requester's own buffer, which needs local write access.
    const ddp::Access right = is_read_response ? ddp::Access::kLocalWrite : ddp::Access::kRemoteWrite;
    auto where = memory_.resolve(stag, to, payload.size(), right, config_.pd, placement_checks());
    if (auto* fault = std::get_if<ddp::TaggedFault>(&where)) {
      if (*fault == ddp::TaggedFault::kInvalidStag && !check(Fault::kSkipStagCheck)) {
        ++dropped_;  // nothing registered to place into
        return;
      }
      terminate_with(ddp::ddp_code_for(*fault), true);
      return;
    }
    std::span<std::uint8_t> dst = std::get<std::span<std::uint8_t>>(where);
    std::size_t at = 0;
    payload.for_each([&](wire::Bytes piece) {
      const std::size_t n = std::min(piece.size(), dst.size() - std::min(at, dst.size()));
      std::copy_n(piece.begin(), n, dst.begin() + static_cast<std::ptrdiff_t>(std::min(at, dst.size())));
      at += piece.size();
    });
  }
  if (is_read_response) {
    reads_.front().placed += static_cast<std::uint32_t>(payload.size());
    // RFC 5040 §5.5: the Read completes when its last Read Response segment is placed.
    if (ctl.last) {
      OutstandingRead r = reads_.front();
      reads_.pop_front();
      complete(done(r.id, CompletionType::kRdmaRead, CompletionStatus::kSuccess, r.placed));
      release_fenced();
    }
  }
  // RFC 5040 §5.1: an RDMA Write has no completion at the Data Sink.
}

// Untagged messages: QN check, the opcode's queue and shape, DDP placement,
// then delivery in MSN order (RFC 5041 §5.3-§5.4, §7.1).
void Stream::receive_untagged(const ddp::Control& ctl, const OpcodeInfo& op,
                              const wire::Chunks& ulpdu) {
  const ddp::UntaggedHeader h(wire::Bytes(current_.ddp_header).first<ddp::kUntaggedHeaderSize>());
  using F = ddp::UntaggedSpec::Field;
  const std::uint32_t qn_value = static_cast<std::uint32_t>(h.get(F::QN));
  const ddp::Msn msn{static_cast<std::uint32_t>(h.get(F::MSN))};
  const std::uint32_t mo = static_cast<std::uint32_t>(h.get(F::MO));
  const wire::Chunks payload = ulpdu.subrange(ddp::kUntaggedHeaderSize);

  // The RDMAP request header, kept for a Terminate's R copy (RFC 5040 §4.8).
  if (const std::size_t rn = copied_rdma_header_size(static_cast<std::uint8_t>(op.opcode));
      rn != 0 && payload.size() >= rn) {
    payload.copy_prefix(wire::MutableBytes(current_.rdma_header).first(rn));
    current_.rdma_header_size = rn;
  }

  // RFC 5041 §7.1 step 1 and RFC 5040 §4.3: the QN must name one of
  // RDMAP's queues (Invalid QN otherwise), and the one of its opcode.
  if (auto v = check::queue_number(&op, qn_value)) {
    const Fault skip = qn_value >= kQueueCount ? Fault::kSkipQnCheck : Fault::kSkipOpcodeCheck;
    if (check(skip)) terminate_with(terminate_code(*v, ctl), true);
    else ++dropped_;
    return;
  }
  // RFC 5040 §5.2.1, §5.4, RFC 7306 §5-§6: requests, Terminate, atomics and
  // Immediate Data are single segments (L=1, so MO=0) of their header's size.
  if (check(Fault::kSkipMessageShapeCheck)) {
    check::Outcome v = check::single_segment(op, ctl.last);
    if (!v && op.single_segment) v = check::message_offset(mo, 0);
    if (!v) v = check::payload_size(op, payload.size());
    if (v) {
      terminate_with(terminate_code(*v, ctl), true);
      return;
    }
  }

  ddp::UntaggedSegment seg{ddp::QueueNumber{qn_value}, msn, mo, ctl.last, ctl.rsvd_ulp,
                           static_cast<std::uint32_t>(h.get(F::RsvdULP32)), payload};
  if (op.opcode == Opcode::kImmediateData || op.opcode == Opcode::kImmediateDataWithSe) {
    // RFC 7306 §6: Immediate Data consumes a posted receive but goes to the
    // completion, not into the buffer.
    std::array<std::uint8_t, kImmediateDataHeaderSize> imm{};
    if (payload.copy_prefix(imm)) pending_immediate_[ddp::value(msn)] = wire::load_be(imm);
    seg.payload = wire::Chunks{};
  }
  if (auto err = queues_.place(seg, placement_checks())) {
    terminate_with(err->triple, true);
    return;
  }
  while (auto m = queues_.take_delivered()) {
    deliver(*m);
    if (state_ != StreamState::kOperational) return;
  }
}

void Stream::deliver(const ddp::DeliveredMessage& m) {
  const OpcodeInfo* op = find_opcode(m.rsvd_ulp & 0x0f);
  if (op == nullptr) return;  // cannot happen: checked on every segment
  switch (op->opcode) {
    case Opcode::kSend:
    case Opcode::kSendWithInvalidate:
    case Opcode::kSendWithSe:
    case Opcode::kSendWithSeAndInvalidate:
    case Opcode::kImmediateData:
    case Opcode::kImmediateDataWithSe:
      deliver_send(m, *op);
      return;
    case Opcode::kRdmaReadRequest:
      deliver_read_request(m);
      return;
    case Opcode::kTerminate:
      deliver_terminate(m);
      return;
    case Opcode::kAtomicRequest:
      deliver_atomic_request(m);
      return;
    case Opcode::kAtomicResponse:
      deliver_atomic_response(m);
      return;
    case Opcode::kRdmaWrite:
    case Opcode::kRdmaReadResponse:
      return;  // tagged: never delivered through a queue
  }
}

// RFC 5040 §5.3 (Send variants), RFC 7306 §6 (Immediate Data).
void Stream::deliver_send(const ddp::DeliveredMessage& m, const OpcodeInfo& op) {
  const bool immediate = op.opcode == Opcode::kImmediateData ||
                         op.opcode == Opcode::kImmediateDataWithSe;
  Completion c = done(m.buffer.wr_id, immediate ? CompletionType::kReceiveImmediate : CompletionType::kReceive,
               CompletionStatus::kSuccess, immediate ? 0 : m.length);
  c.solicited_event = op.solicited_event;
  if (immediate) {
    auto it = pending_immediate_.find(ddp::value(m.msn));
    if (it != pending_immediate_.end()) {
      c.immediate_data = it->second;
      pending_immediate_.erase(it);
    }
  }
  if (op.carries_invalidate_stag) {
    // RFC 5040 §5.3 / RFC 5042 §5.2: the Data Sink invalidates the STag
    // before it delivers the Send. The STag must be a valid one of this
    // stream's protection domain that a peer may invalidate.
    const ddp::Stag stag{m.rsvd_ulp32};
    ddp::MemoryRegion* region = memory_.find(stag);
    if (check(Fault::kSkipInvalidateCheck)) {
      std::optional<TerminateCode> refuse;
      if (region == nullptr || !region->valid)
        refuse = operation(ErrorCode::kStagCannotBeInvalidated);
      else if (region->pd != config_.pd)
        refuse = protection(ErrorCode::kStagCannotBeInvalidated);
      else if (!region->remote_invalidate)
        refuse = operation(ErrorCode::kStagCannotBeInvalidated);
      if (refuse) {
        c.status = CompletionStatus::kFlushed;
        complete(std::move(c));
        terminate_with(*refuse, true);
        return;
      }
    }
    if (region != nullptr) region->valid = false;
    c.invalidated_stag = stag;
  }
  complete(std::move(c));
}

// RFC 5040 §5.2.1-§5.2.2: answer an RDMA Read Request with a Read Response.
void Stream::deliver_read_request(const ddp::DeliveredMessage& m) {
  // RFC 5040 §5.2.1: no more than IRD Read (and RFC 7306 Atomic) Requests
  // outstanding. QN 1's IRD buffers catch most excess first, with the same
  // code this reports: no buffer for the request's MSN.
  if (check(Fault::kSkipIrdCheck)) {
    if (auto v = check::inbound_requests(inbound_outstanding_ + std::size_t{1}, config_.ird)) {
      terminate_with(terminate_code(*v, ddp::Control{}), true);
      return;
    }
  }
  if (m.buffer.memory.size() < kReadRequestHeaderSize || m.length < kReadRequestHeaderSize) {
    terminate_with(operation(ErrorCode::kUnspecified), true);
    return;
  }
  const ReadRequestHeader h(
      wire::Bytes(m.buffer.memory).first<kReadRequestHeaderSize>());
  using F = ReadRequestSpec::Field;
  const ddp::Stag sink{static_cast<std::uint32_t>(h.get(F::SinkSTag))};
  const std::uint64_t sink_to = h.get(F::SinkTO);
  const std::uint32_t size = static_cast<std::uint32_t>(h.get(F::ReadSize));
  const ddp::Stag source{static_cast<std::uint32_t>(h.get(F::SourceSTag))};
  const std::uint64_t source_to = h.get(F::SourceTO);

  std::span<std::uint8_t> data;
  if (size != 0) {  // RFC 5040 §5.2.1: a zero-length Read checks no STag
    auto where = memory_.resolve(source, source_to, size, ddp::Access::kRemoteRead, config_.pd,
                                 placement_checks());
    if (auto* fault = std::get_if<ddp::TaggedFault>(&where)) {
      // RFC 5040 §4.8: Remote Protection Error, with the request copied (R).
      terminate_with(protection_code(*fault), true);
      return;
    }
    data = std::get<std::span<std::uint8_t>>(where);
  }
  ++inbound_outstanding_;
  if (auto s = enqueue_tagged(Opcode::kRdmaReadResponse, sink, sink_to, wire::Chunks(data),
                              std::nullopt, CompletionType::kRdmaRead, true, true);
      !s) {
    terminate_with(kRdmapLocalCatastrophic, false);
  }
}

// RFC 7306 §5: execute an Atomic Request and answer it.
void Stream::deliver_atomic_request(const ddp::DeliveredMessage& m) {
  std::array<std::uint8_t, kAtomicRequestHeaderSize> copy{};
  std::copy_n(m.buffer.memory.begin(), std::min(copy.size(), m.buffer.memory.size()), copy.begin());
  // The QN 1 buffer it arrived in goes back when the Atomic Response is
  // handed to the LLP, as for a Read Request (RFC 7306 §5.2).

  // RFC 7306 §5: Atomic Requests count against IRD together with Reads.
  if (check(Fault::kSkipIrdCheck)) {
    if (auto v = check::inbound_requests(inbound_outstanding_ + std::size_t{1}, config_.ird)) {
      terminate_with(terminate_code(*v, ddp::Control{}), true);
      return;
    }
  }
  const AtomicRequestHeader h(wire::Bytes(copy).first<kAtomicRequestHeaderSize>());
  using F = AtomicRequestSpec::Field;
  // RFC 7306 §5: the reserved bits are sent as zero but not checked on
  // receipt (rfc7306-5-reserved-ignored), so that they can be given a
  // meaning later; only a deliberately faulty stream checks them.
  if (config_.faults.has(Fault::kCheckAtomicReserved) && h.get(F::Reserved) != 0) {
    terminate_with(operation(ErrorCode::kUnspecified), true);
    return;
  }
  // RFC 7306 §4: only FetchAdd, Swap and CmpSwap are defined.
  const auto aop = static_cast<std::uint8_t>(h.get(F::AtomicOpcode));
  if (aop > static_cast<std::uint8_t>(AtomicOpcode::kCompareSwap)) {
    if (check(Fault::kSkipOpcodeCheck)) terminate_with(operation(ErrorCode::kUnexpectedOpcode), true);
    else ++dropped_;
    return;
  }
  AtomicRequest a;
  a.op = static_cast<AtomicOpcode>(aop);
  a.remote_stag = ddp::Stag{static_cast<std::uint32_t>(h.get(F::RemoteSTag))};
  a.remote_to = h.get(F::RemoteTO);
  a.add_or_swap_data = h.get(F::AddOrSwapData);
  a.add_or_swap_mask = h.get(F::AddOrSwapMask);
  a.compare_data = h.get(F::CompareData);
  a.compare_mask = h.get(F::CompareMask);

  // RFC 7306 §5 / RFC 5042 §5: the target must be a valid STag of this
  // stream with the remote atomic right, the 8 octets within its bounds.
  auto where = memory_.resolve(a.remote_stag, a.remote_to, 8, ddp::Access::kRemoteAtomic,
                               config_.pd, placement_checks());
  if (auto* fault = std::get_if<ddp::TaggedFault>(&where)) {
    terminate_with(protection_code(*fault), true);
    return;
  }
  // RFC 7306 §5: the target is a naturally aligned 64-bit word; §8.2 names
  // the error: Remote Operation Error, catastrophic error localized to the
  // RDMAP Stream.
  if (check(Fault::kSkipAtomicAlignmentCheck) && a.remote_to % 8 != 0) {
    terminate_with(operation(ErrorCode::kCatastrophicLocalized), true);
    return;
  }
  std::span<std::uint8_t> target = std::get<std::span<std::uint8_t>>(where);
  std::uint64_t original = 0;
  if (target.size() >= 8) {
    // The 64-bit target is kept in network byte order in the buffer.
    original = load_u64(target);
    wire::store_be(target.first(8), atomic_result(a.op, original, a));
  }
  AtomicResponseHeader resp;
  resp.set(AtomicResponseSpec::Field::OriginalRequestIdentifier, h.get(F::RequestIdentifier));
  resp.set(AtomicResponseSpec::Field::OriginalRemoteDataValue, original);
  ++inbound_outstanding_;
  if (auto s = enqueue_untagged(Opcode::kAtomicResponse, 0, resp.bytes(), {}, std::nullopt,
                                CompletionType::kAtomic, true, true);
      !s)
    terminate_with(kRdmapLocalCatastrophic, false);
}

// RFC 7306 §5 / §7: an Atomic Response completes our oldest Atomic Request.
void Stream::deliver_atomic_response(const ddp::DeliveredMessage& m) {
  std::array<std::uint8_t, kAtomicResponseHeaderSize> copy{};
  std::copy_n(m.buffer.memory.begin(), std::min(copy.size(), m.buffer.memory.size()), copy.begin());
  queues_.post(qn(Queue::kAtomic), {0, m.buffer.memory});
  const AtomicResponseHeader h(wire::Bytes(copy).first<kAtomicResponseHeaderSize>());
  using F = AtomicResponseSpec::Field;
  const auto id = static_cast<std::uint32_t>(h.get(F::OriginalRequestIdentifier));
  const std::optional<std::uint32_t> oldest =
      atomics_.empty() ? std::nullopt : std::optional(atomics_.front().request_id);
  if (auto v = check::atomic_response_order(oldest, id)) {
    if (check(Fault::kSkipOpcodeCheck)) terminate_with(terminate_code(*v, ddp::Control{}), true);
    else ++dropped_;
    return;
  }
  OutstandingAtomic a = atomics_.front();
  atomics_.pop_front();
  Completion c = done(a.id, CompletionType::kAtomic, CompletionStatus::kSuccess, 8);
  c.atomic_original = h.get(F::OriginalRemoteDataValue);
  complete(std::move(c));
  release_fenced();
}

// RFC 5040 §5.4 / §6.2.2: the peer terminated the stream.
void Stream::deliver_terminate(const ddp::DeliveredMessage& m) {
  Completion c = done(0, CompletionType::kTerminateReceived);
  auto t = decode_terminate(wire::Bytes(m.buffer.memory).first(std::min<std::size_t>(m.length, m.buffer.memory.size())));
  if (t) c.terminate = *t;
  else c.terminate_error = t.error();
  complete(std::move(c));
  state_ = StreamState::kTerminateReceived;
  flush_all();
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
  for (Outgoing& o : outgoing_)
    if (o.completes) complete(done(*o.completes, o.type, CompletionStatus::kFlushed, 0));
  outgoing_.clear();
  for (const ddp::PostedBuffer& b : queues_.drain(qn(Queue::kSend)))
    complete(done(b.wr_id, CompletionType::kReceive, CompletionStatus::kFlushed, 0));
  for (const OutstandingRead& r : reads_)
    complete(done(r.id, CompletionType::kRdmaRead, CompletionStatus::kFlushed, 0));
  reads_.clear();
  for (const OutstandingAtomic& a : atomics_)
    complete(done(a.id, CompletionType::kAtomic, CompletionStatus::kFlushed, 0));
  atomics_.clear();
  for (const FencedSend& f : fenced_) complete(done(f.id, CompletionType::kSend, CompletionStatus::kFlushed, 0));
  fenced_.clear();
  pending_immediate_.clear();
  inbound_outstanding_ = 0;
}

}  // namespace rdmaconf::rdmap
