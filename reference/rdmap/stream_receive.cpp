// The receive path of rdmap::Stream (stream.hpp): one DDP segment at a time,
// checked in the order RFC 5041 §7 and RFC 5040 give, each rule through the
// rule layer (check/segment.hpp) and mapped here to its Terminate; then
// placement and delivery (RFC 5041 §5, RFC 5040 §5, RFC 7306 §5-§6).
#include <algorithm>

#include "check/segment.hpp"
#include "rdmap/stream.hpp"
#include "rdmap/stream_internal.hpp"

namespace rdmaconf::rdmap {
namespace {

using stream_detail::done;

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

// An Atomic's 64-bit target in the responder's memory (RFC 7306 §5): memory,
// not a header, read as the big-endian value the Atomic Request carries.
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
    if (payload.copy_prefix(imm))
      pending_immediate_[ddp::value(msn)] = ImmediateDataHeader(imm).get(ImmediateDataSpec::Field::ImmediateData);
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

}  // namespace rdmaconf::rdmap
