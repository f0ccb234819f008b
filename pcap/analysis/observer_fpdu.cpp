// The observer in full operation (observer.hpp): FPDUs through MPA's deframer
// (RFC 5044 §4: CRC, PAD, Markers), then each DDP segment and its RDMAP
// message against the rule layer (check/segment.hpp; RFC 5041, RFC 5040,
// RFC 7306), RFC 6581 §9.2's first FPDU, and requests against responses.
#include "analysis/observer_internal.hpp"
#include "check/mpa_startup.hpp"
#include "check/segment.hpp"
#include "mpa/diagnosis.hpp"
#include "mpa/errors.hpp"
#include "rdmap/diagnosis.hpp"
#include "rdmap/terminate.hpp"

namespace rdmaconf::analysis {

using namespace observer_detail;
using wire::Bytes;

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

// A DDP/RDMAP header a real sender could have sent: one that keeps the rule
// layer's header rules (check/segment.hpp: RFC 5041 §4.1 DV, RFC 5040 §4.2
// RV, §4.3 opcode and its T bit, §4.1 its queue), the rules check_segment
// judges every FPDU with.
bool ConnectionObserver::plausible_segment(wire::Bytes h) const {
  if (h.size() < 2) return false;
  const ddp::Control c = ddp::Control::from_octets(h[0], h[1]);
  const rdmap::Control r = rdmap::Control::from_octet(h[1]);
  const rdmap::OpcodeInfo* info = rdmap::find_opcode(r.opcode);
  if (check::ddp_version(c) || check::rdmap_version(r) || check::opcode_defined(r, info) ||
      check::opcode_buffer_model(*info, c))
    return false;
  return c.tagged || h.size() < ddp::kUntaggedHeaderSize ||
         !check::queue_number(info, u32<ddp::UntaggedHeader>(h, ddp::UntaggedSpec::Field::QN));
}

void ConnectionObserver::on_fpdu(Direction& d, const mpa::Fpdu& f, FrameNo first_frame, FrameNo frame) {
  ++d.stats.fpdus;
  const std::uint64_t offset = d.consumed_to;
  // How TCP's segments carried it (RFC 5044 §4.5, §5.1): an FPDU too long
  // for a segment, or one a segment ended inside (observer_tcp.cpp).
  if (f.consumed > d.fpdu_limit) [[unlikely]]
    check_fpdu_segments(d, f, first_frame, offset);
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
  on_ulpdu(d, Ulpdu{f.ulpdu(), &f, f.consumed, {}, nullptr}, first_frame, frame);
}

void ConnectionObserver::on_ddp_segment(Side side, FrameNo first_frame, FrameNo frame, wire::Bytes segment,
                                        const SctpInfo* sctp) {
  Direction& d = dir(side);
  if (protocol_ == Protocol::kUnknown) protocol_ = Protocol::kDdpSctp;
  // No MPA here: the lower layer found the segment's edges; the stream
  // offset counts the DDP octets this side sent.
  d.mode = Direction::Mode::kOpaque;
  const wire::Chunks octets(segment);
  on_ulpdu(d, Ulpdu{octets, nullptr, segment.size(), segment, sctp}, first_frame, frame);
  d.consumed_to += segment.size();
}

void ConnectionObserver::on_ulpdu(Direction& d, const Ulpdu& u, FrameNo first_frame, FrameNo frame) {
  const std::uint64_t offset = d.consumed_to;
  SegmentInfo seg;
  check_segment(d, u.octets, seg, frame, offset);
  // The first segment of a Send-type message carries the ULP's header
  // (RPC-over-RDMA, iSER): only those octets are copied, at most what a
  // header needs.
  const rdmap::OpcodeInfo* op = seg.has_header ? rdmap::find_opcode(seg.rdmap.opcode) : nullptr;
  if (op && !op->tagged && op->queue == rdmap::Queue::kSend && op->rdmap_header_size == 0 && seg.mo == 0 &&
      seg.qn == static_cast<std::uint32_t>(rdmap::Queue::kSend) && ulp_.wants_sends()) {
    const wire::Chunks payload = u.octets.subrange(ddp::kUntaggedHeaderSize);
    std::array<std::uint8_t, UlpObserver::kSendHead> head;
    const std::size_t n = std::min(payload.size(), head.size());
    payload.copy_prefix(wire::MutableBytes(head).first(n));
    const bool invalidate = op->carries_invalidate_stag;
    // The whole Send when this is its only segment and the copy holds it all.
    const bool whole = seg.ddp.last && payload.size() <= head.size();
    seg.ulp = ulp_.on_send(wire::Bytes(head).first(n), SendContext{static_cast<int>(d.side), invalidate,
                                                                    seg.invalidate_stag, reads_synced_, whole, frame});
  }
  // The responder's (target's) RDMA Writes and Read Requests against what
  // the ULP advertised (ulp_rules.cpp).
  if (op && op->opcode == rdmap::Opcode::kRdmaWrite && seg.ddp.tagged) {
    if (const UlpTie* tie =
            ulp_.on_write(static_cast<int>(d.side), seg.stag, seg.to, seg.payload_length, seg.ddp.last, reads_synced_))
      seg.ulp_tie = *tie;
  }
  if (op && op->opcode == rdmap::Opcode::kRdmaReadRequest && seg.read_request) {
    using RF = rdmap::ReadRequestSpec::Field;
    if (const UlpTie* tie = ulp_.on_read_request(
            static_cast<int>(d.side), static_cast<std::uint32_t>(seg.read_request->get(RF::SourceSTag)),
            seg.read_request->get(RF::SourceTO), static_cast<std::uint32_t>(seg.read_request->get(RF::ReadSize)),
            reads_synced_)) {
      seg.ulp_tie = *tie;
      // Its Read Responses bring the region's octets (check_segment).
      if (!d.reads.empty() && d.reads.back().number == seg.read_request_number) d.reads.back().ulp_tie = *tie;
    }
  }
  for (const UlpFinding& v : ulp_.findings()) violate(*v.violation.rule, static_cast<Side>(v.side), frame, offset, v.text);
  ulp_.findings().clear();
  if (config_.report_fpdus) {
    Message m;
    m.kind = u.fpdu ? MessageKind::kFpdu : MessageKind::kDdpSegment;
    m.side = d.side;
    m.first_frame = first_frame;
    m.frame = frame;
    m.stream_offset = offset;
    m.octets = u.wire_octets;
    m.fpdu = u.fpdu;
    m.segment = &seg;
    m.ddp_segment = u.whole;
    m.sctp = u.sctp;
    sink_.on_message(m);
  }
}

// RFC 6581 §9.2: the initiator's first FPDU in peer-to-peer mode is the RTR
// of a kind the Reply set; one that can send none of them (none was offered)
// sends a Terminate with LLP error 0x07 instead. Once per connection: kept
// out of check_segment, which runs for every FPDU. `rdmap_octets`:
// check_segment's copy of the octets after the DDP header (zero beyond the
// `have` the FPDU has).
[[gnu::cold, gnu::noinline]] void ConnectionObserver::check_first_fpdu(Direction& d, const rdmap::OpcodeInfo& info,
                                                            const SegmentInfo& seg, wire::Bytes rdmap_octets,
                                                            std::size_t have, FrameNo frame, std::uint64_t offset) {
  using TF = rdmap::TerminateControlSpec::Field;
  // What an RTR is, and the rule, are the rule layer's (check/mpa_startup.hpp).
  const std::uint64_t read_size =
      info.opcode == rdmap::Opcode::kRdmaReadRequest && have >= rdmap::kReadRequestHeaderSize
          ? u32<rdmap::ReadRequestHeader>(rdmap_octets, rdmap::ReadRequestSpec::Field::ReadSize)
          : ~std::uint64_t{0};
  const check::Outcome not_rtr =
      check::rtr_first_fpdu(mpa::RtrKinds{mpa_.rtr_send, mpa_.rtr_write, mpa_.rtr_read},
                            check::rtr_kind(seg.ddp, seg.rdmap.opcode, seg.payload_length, read_size));
  const bool llp_no_match = info.opcode == rdmap::Opcode::kTerminate && have >= 2 &&
                            u32<rdmap::TerminateControlHeader>(rdmap_octets, TF::Layer) ==
                                static_cast<std::uint8_t>(ddp::Layer::kLlp) &&
                            u32<rdmap::TerminateControlHeader>(rdmap_octets, TF::ErrorCode) ==
                                static_cast<std::uint8_t>(mpa::LlpErrorCode::kNoMatchingRtr);
  if (not_rtr && !mpa_.rtr_sendable && !llp_no_match) {
    // A Terminate that carries LLP error 0x07 when its control word is read
    // as a little-endian C bitfield (RFC 5040 §4.8, rdmap/diagnosis.hpp):
    // the rule is broken by that mistake, and the violation says so.
    std::optional<wire::Hint> hint;
    const wire::Bytes body = rdmap_octets.first(std::min(have, rdmap_octets.size()));
    if (info.opcode == rdmap::Opcode::kTerminate)
      if (const auto meant = rdmap::read_as_le_bitfield(body);
          meant && meant->code == ddp::TerminateCode{ddp::Layer::kLlp, 0,
                                                     static_cast<std::uint8_t>(mpa::LlpErrorCode::kNoMatchingRtr)})
        hint = rdmap::le_bitfield_reading(body);
    violate(rules::kNoMatchingRtr, d.side, frame, offset,
            "the Reply sets no RTR kind the Request offered, but the first FPDU is " + std::string(info.name) +
                " rather than a Terminate with LLP error 0x07",
            std::move(hint));
  }
  else if (not_rtr && mpa_.rtr_sendable)
    violate(*not_rtr->rule, d.side, frame, offset,
            "first FPDU is " + std::string(info.name) + " of " + std::to_string(seg.payload_length) +
                " octets, not the RTR of a kind the Reply set");
}

void ConnectionObserver::check_segment(Direction& d, const wire::Chunks& u, SegmentInfo& seg, FrameNo frame,
                                       std::uint64_t offset) {
  std::array<std::uint8_t, kHeadCopy> head{};
  const std::size_t have = std::min(u.size(), head.size());
  u.copy_prefix(wire::MutableBytes(head).first(have));
  const wire::Bytes h = wire::Bytes(head).first(have);
  // Each rule is one function of the rule layer (check/segment.hpp), the
  // one the reference endpoint calls too; here a broken one is worded and
  // reported, and the observation goes on.
  if (check::segment_header(u.size(), ddp::kControlSize)) {
    violate(check::kSegmentHeader, d.side, frame, offset, "ULPDU of " + std::to_string(u.size()) + " octets");
    return;
  }
  seg.ddp = ddp::Control::from_octets(h[0], h[1]);
  seg.rdmap = rdmap::Control::from_octet(h[1]);
  const std::size_t hs = seg.ddp.header_size();
  if (check::segment_header(u.size(), hs)) {
    violate(check::kSegmentHeader, d.side, frame, offset,
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
  const std::uint8_t opcode = seg.rdmap.opcode;
  if (seg.ddp.last) ++d.rdmap_messages[opcode];

  if (!d.after_terminate_reported && check::after_terminate(d.terminated)) {
    d.after_terminate_reported = true;
    violate(check::kAfterTerminate, d.side, frame, offset, "FPDU after this side's Terminate");
  }
  if (check::ddp_version(seg.ddp))
    violate(check::kDdpVersion, d.side, frame, offset, "DV " + std::to_string(seg.ddp.dv));
  if (check::rdmap_version(seg.rdmap))
    violate(check::kRdmapVersion, d.side, frame, offset, "RV " + std::to_string(seg.rdmap.rv));
  const rdmap::OpcodeInfo* info = rdmap::find_opcode(opcode);
  if (check::opcode_defined(seg.rdmap, info)) violate(check::kOpcodeDefined, d.side, frame, offset, "opcode " + hex(opcode));
  if (info && check::opcode_buffer_model(*info, seg.ddp))
    violate(check::kOpcodeTagged, d.side, frame, offset,
            std::string(info->name) + " with T=" + std::to_string(seg.ddp.tagged));

  if (!seg.ddp.tagged) {
    if (auto v = check::queue_number(info, seg.qn))
      violate(check::kQueueNumber, d.side, frame, offset,
              info && info->queue ? std::string(info->name) + " on QN " + std::to_string(seg.qn) + ", expected " +
                                        std::to_string(v->expected)
                                  : "QN " + std::to_string(seg.qn));
    if (seg.qn < rdmap::kQueueCount) {
      check::QueueSequence& q = d.queues[seg.qn];
      if (q.known) seg.expected_msn = q.msn;
      if (!q.known) {
        // After a resynchronisation the queue's place is learnt from here.
        q.known = true;
        q.msn = seg.msn;
        q.in_message = seg.mo != 0;
        q.next_mo = seg.mo;
      }
      if (auto v = check::untagged_sequence(q, seg.msn, seg.mo)) {
        if (v->rule == &check::kMsnSequence)
          violate(check::kMsnSequence, d.side, frame, offset,
                  "MSN " + std::to_string(seg.msn) + " on QN " + std::to_string(seg.qn) + ", expected " +
                      std::to_string(v->expected));
        else
          violate(check::kMoSequence, d.side, frame, offset,
                  "MO " + std::to_string(seg.mo) + ", expected " + std::to_string(v->expected));
      }
      check::advance(q, seg.msn, seg.mo, seg.ddp.last, seg.payload_length);
    }
  } else {
    check::TaggedSequence& t = d.tagged;
    if (check::tagged_sequence(t, seg.stag, seg.to))
      violate(check::kToSequence, d.side, frame, offset,
              "STag " + hex(seg.stag) + " TO " + hex(seg.to) + ", expected STag " + hex(t.stag) + " TO " +
                  hex(t.next_to));
    check::advance(t, seg.stag, seg.to, seg.ddp.last, seg.payload_length);
  }
  if (!info) return;
  if (check::single_segment(*info, seg.ddp.last))
    violate(check::kSingleSegment, d.side, frame, offset, std::string(info->name) + " without L");
  // A Terminate shorter than its Terminate Control is worded below by its
  // decoder, which names what is missing and what the sender may have meant.
  if (auto v = check::payload_size(*info, seg.payload_length); v && v->rule == &check::kExactSize)
    violate(check::kExactSize, d.side, frame, offset,
            std::string(info->name) + " payload " + std::to_string(seg.payload_length) + " octets, expected " +
                std::to_string(info->rdmap_header_size));

  // RFC 6581 §9.2: the initiator's first FPDU in peer-to-peer mode.
  if (!d.first_fpdu_seen) {
    d.first_fpdu_seen = true;
    if (mpa_.peer_to_peer && d.side == Side::kInitiator && d.params_known)
      check_first_fpdu(d, *info, seg, payload, have - hs, frame, offset);
  }

  Direction& peer = dir(other(d.side));
  switch (info->opcode) {
    case rdmap::Opcode::kRdmaReadRequest:
      if (have >= hs + rdmap::kReadRequestHeaderSize) {
        seg.read_request = rdmap::ReadRequestHeader(
            std::span<const std::uint8_t, rdmap::kReadRequestHeaderSize>(h.subspan(hs).first<rdmap::kReadRequestHeaderSize>()));
        if (reads_synced_) {
          using RF = rdmap::ReadRequestSpec::Field;
          seg.read_request_number = ++d.reads_sent;
          d.reads.push_back({static_cast<std::uint32_t>(seg.read_request->get(RF::SinkSTag)),
                             seg.read_request->get(RF::SinkTO),
                             static_cast<std::uint32_t>(seg.read_request->get(RF::ReadSize)), 0, false,
                             seg.read_request_number, frame,
                             static_cast<std::uint32_t>(seg.read_request->get(RF::SourceSTag)),
                             seg.read_request->get(RF::SourceTO), std::nullopt});
          if (d.reads.size() > kMaxOutstanding) {
            reads_synced_ = false;
            event(EventKind::kLimit, d.side, frame, offset, d.reads.size(), "too many outstanding Read Requests to match");
            for (auto& x : dirs_) x->reads.clear(), x->atomics.clear();
          } else if (mpa_.enhanced && check::inbound_requests(d.reads.size(), mpa_.ird[static_cast<int>(peer.side)])) {
            violate(check::kOrdExceeded, d.side, frame, offset,
                    std::to_string(d.reads.size()) + " Read Requests outstanding, peer IRD " +
                        std::to_string(mpa_.ird[static_cast<int>(peer.side)]));
          }
        }
      }
      break;
    case rdmap::Opcode::kRdmaReadResponse:
      if (!reads_synced_) break;
      if (check::read_response_solicited(peer.reads.size())) {
        violate(check::kReadUnsolicited, d.side, frame, offset, "Read Response with no Read Request outstanding");
        break;
      } else {
        Direction::OutstandingRead& r = peer.reads.front();
        seg.read = ReadMatch{r.number, r.frame, r.source_stag, r.source_to, seg.to - r.sink_to};
        // RFC 5040 §5.2.2: the response carries octets of the region its
        // request's Data Source was tied to, from the same place on; tied
        // while they lie inside it (a response past its request's size does not).
        if (r.ulp_tie) {
          const check::Region& region = r.ulp_tie->region;
          const std::uint64_t at = r.ulp_tie->offset + seg.read->offset;
          if (check::within(region, region.stag, region.offset + at, seg.payload_length)) {
            seg.ulp_tie = r.ulp_tie;
            seg.ulp_tie->offset = at;
          }
        }
        if (!r.sink_reported && check::read_response_sink(seg.stag, seg.to, r.sink_stag, r.sink_to + r.received)) {
          r.sink_reported = true;
          violate(check::kReadResponseSink, d.side, frame, offset,
                  "STag " + hex(seg.stag) + " TO " + hex(seg.to) + ", requested STag " + hex(r.sink_stag) + " TO " +
                      hex(r.sink_to + r.received));
        }
        r.received += seg.payload_length;
        if (seg.ddp.last || r.received > r.size) {
          if (check::read_response_size(r.received, r.size))
            violate(check::kReadResponseSize, d.side, frame, offset,
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
          violate(check::kAtomicUnsolicited, d.side, frame, offset,
                  "Atomic Response for Request Identifier " + hex(id) +
                      (peer.atomics.empty() ? ", none outstanding" : ", oldest outstanding " + hex(peer.atomics.front())));
        if (!peer.atomics.empty()) peer.atomics.pop_front();
      }
      break;
    case rdmap::Opcode::kTerminate: {
      std::vector<std::uint8_t> body = u.subrange(hs).to_vector();
      auto t = rdmap::decode_terminate(body);
      if (!t)
        violate(check::kTerminateFormat, d.side, frame, offset,
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


}  // namespace rdmaconf::analysis
