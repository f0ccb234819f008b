// The reference IUT in full operation (RFC 5041, RFC 5040, RFC 7306 over
// RFC 5044 framing): rdmap::Stream behind the deframer and framer, the test
// ULP's memory, its echo and its requester (TestUlp, which the IUT over SCTP
// in sctp_memory.cpp shares), and the named faults that act on segments on
// their way out (responder_internal.hpp).
#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <utility>

#include "mpa/deframer.hpp"
#include "mpa/framer.hpp"
#include "mpa/mulpdu.hpp"
#include "rdmap/diagnosis.hpp"
#include "rdmap/headers.hpp"
#include "rdmap/opcodes.hpp"
#include "rdmap/rtr.hpp"
#include "engine/responder_internal.hpp"

namespace rdmaconf::conformance::iut {

namespace {

// Fault (RFC 5041 §5.2): the segments of the untagged messages in `segs` go
// out in turns, one segment of each message at a time, instead of message
// after message.
std::vector<ddp::Segment> interleave_messages(std::vector<ddp::Segment> segs) {
  std::vector<std::vector<ddp::Segment>> messages;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> keys;  // QN, MSN
  for (ddp::Segment& seg : segs) {
    std::pair<std::uint64_t, std::uint64_t> key{~std::uint64_t{0}, messages.size()};  // tagged: alone
    if (seg.header_size >= ddp::kUntaggedHeaderSize && !ddp::Control::read(seg.header_octets).tagged) {
      const ddp::UntaggedHeader u(wire::Bytes(seg.header_octets).first<ddp::kUntaggedHeaderSize>());
      key = {u.get(ddp::UntaggedSpec::Field::QN), u.get(ddp::UntaggedSpec::Field::MSN)};
    }
    const auto at = std::find(keys.begin(), keys.end(), key);
    if (at == keys.end()) {
      keys.push_back(key);
      messages.emplace_back();
      messages.back().push_back(std::move(seg));
    } else {
      messages[static_cast<std::size_t>(at - keys.begin())].push_back(std::move(seg));
    }
  }
  std::vector<ddp::Segment> out;
  for (std::size_t i = 0; out.size() < segs.size(); ++i)
    for (auto& m : messages)
      if (i < m.size()) out.push_back(std::move(m[i]));
  return out;
}

}  // namespace

std::vector<AdvertisedBuffer> register_all(rdmap::Stream& st, Memory& m) {
  using A = ddp::Access;
  const A remote_all = A::kLocalRead | A::kLocalWrite | A::kRemoteRead | A::kRemoteWrite | A::kRemoteAtomic;
  const A local = A::kLocalRead | A::kLocalWrite;
  for (std::size_t i = 0; i < m.ro.size(); ++i) m.ro[i] = static_cast<std::uint8_t>(i * 3 + 5);
  std::vector<AdvertisedBuffer> ads;
  auto add = [&](std::string name, ddp::Stag s, std::uint64_t to, std::size_t len) {
    ads.push_back({std::move(name), ddp::value(s), to, static_cast<std::uint32_t>(len)});
  };
  m.rw_stag = st.register_memory(m.rw, Memory::kRwBaseTo, remote_all);
  add("rw", m.rw_stag, Memory::kRwBaseTo, m.rw.size());
  add("ro", st.register_memory(m.ro, 0x20000, local | A::kRemoteRead), 0x20000, m.ro.size());
  add("wo", st.register_memory(m.wo, 0x30000, local | A::kRemoteWrite), 0x30000, m.wo.size());
  add("local", st.register_memory(m.local, 0x40000, local), 0x40000, m.local.size());
  add("inv", st.register_memory(m.inv, 0x50000, remote_all, true), 0x50000, m.inv.size());
  add("noinv", st.register_memory(m.noinv, 0x60000, remote_all, false), 0x60000, m.noinv.size());
  // RFC 5042 §5.1: a region of another protection domain, not associated
  // with this stream.
  add("otherpd", st.memory().register_region(m.otherpd, 0x70000, remote_all, ddp::ProtectionDomain{2}), 0x70000,
      m.otherpd.size());
  // A region registered and deregistered again: its STag is invalid.
  const ddp::Stag stale = st.register_memory(m.stale, 0x80000, remote_all);
  st.deregister_memory(stale);
  add("stale", stale, 0x80000, m.stale.size());
  for (std::size_t i = 0; i < m.recv.size(); ++i) st.post_receive(i, m.recv[i]);
  ads.push_back({"recv", static_cast<std::uint32_t>(m.recv.size()), 0, static_cast<std::uint32_t>(m.recv[0].size())});
  return ads;
}

// Outgoing seams: a segment about to be framed.
bool rewrite_outgoing(const FaultSet& f, ddp::Segment& seg) {
  if (seg.header_size < ddp::kControlSize) return true;
  using rdmap::Opcode;
  using UF = ddp::UntaggedSpec::Field;
  const ddp::Control ctl = ddp::Control::read(seg.header_octets);
  const auto op = static_cast<Opcode>(rdmap::Control::from_octet(ctl.rsvd_ulp).opcode);
  const wire::MutableBytes h(seg.header_octets);
  if (!ctl.tagged && seg.header_size >= ddp::kUntaggedHeaderSize) {
    // RFC 5040 §4.1 / RFC 7306 §4: RDMAP Rsvd and the 32-bit RsvdULP go out as zero.
    const bool carries_no_stag = op == Opcode::kSend || op == Opcode::kSendWithSe || op == Opcode::kImmediateData ||
                                 op == Opcode::kImmediateDataWithSe || op == Opcode::kAtomicResponse;
    if (f.has(FaultId::kSendReservedSet) && carries_no_stag) {
      rdmap::ControlHeader::write(h.subspan(ddp::kRsvdUlpOctet), rdmap::ControlSpec::Field::Rsvd, 3);
      ddp::UntaggedHeader::write(h, UF::RsvdULP32, 0x5a5a5a5a);
    }
    // Untagged header fields through their declaration (RFC 5041 §4.3).
    // RFC 5041 §5.2: each queue's first MSN is 1.
    if (f.has(FaultId::kUntaggedMsnFromZero)) ddp::UntaggedHeader::write(h, UF::MSN, ddp::UntaggedHeader::read(h, UF::MSN) - 1);
    // RFC 7306 §5: Atomic Responses have their own queue.
    if (op == Opcode::kAtomicResponse && f.has(FaultId::kAtomicResponseWrongQueue)) ddp::UntaggedHeader::write(h, UF::QN, 0);
    // RFC 5040 §4.2: RDMA Read Requests go on queue 1.
    if (op == Opcode::kRdmaReadRequest && f.has(FaultId::kReadRequestWrongQueue)) ddp::UntaggedHeader::write(h, UF::QN, 0);
    // RFC 5041 §5.2: MO counts the message octets before the segment.
    if ((op == Opcode::kSend || op == Opcode::kSendWithSe) && f.has(FaultId::kUntaggedMoOffByOne))
      ddp::UntaggedHeader::write(h, UF::MO, ddp::UntaggedHeader::read(h, UF::MO) + 1);
    // RFC 7306 §5: the reserved bits before the atomic opcode go out as zero.
    // RFC 7306 §5: FetchAdd and Swap send Compare Data as zero.
    if (op == Opcode::kAtomicRequest && f.has(FaultId::kAtomicRequestUnusedFieldsSet) &&
        seg.header_size >= ddp::kUntaggedHeaderSize + rdmap::kAtomicRequestHeaderSize) {
      using AF = rdmap::AtomicRequestSpec::Field;
      const wire::MutableBytes a = h.subspan(ddp::kUntaggedHeaderSize);
      if (rdmap::AtomicRequestHeader::read(a, AF::AtomicOpcode) != static_cast<std::uint8_t>(rdmap::AtomicOpcode::kCompareSwap))
        rdmap::AtomicRequestHeader::write(a, AF::CompareData, 0x5a5a5a5a5a5a5a5a);
    }
    if (op == Opcode::kAtomicRequest && f.has(FaultId::kAtomicRequestReservedSet) &&
        seg.header_size >= ddp::kUntaggedHeaderSize + rdmap::kAtomicRequestHeaderSize)
      rdmap::AtomicRequestHeader::write(h.subspan(ddp::kUntaggedHeaderSize), rdmap::AtomicRequestSpec::Field::Reserved, 1);
  }
  // Terminates and Atomic Responses are untagged (RFC 5040 §4.3, RFC 7306 §4).
  const wire::MutableBytes rdmap_header = h.subspan(ddp::kUntaggedHeaderSize);
  if (op == Opcode::kTerminate) {
    if (f.has(FaultId::kTerminateOmitted)) return false;
    if (seg.header_size >= ddp::kUntaggedHeaderSize + rdmap::kTerminateControlSize) {
      using TF = rdmap::TerminateControlSpec::Field;
      using T = rdmap::TerminateControlHeader;
      if (f.has(FaultId::kTerminateWrongCode)) T::write(rdmap_header, TF::ErrorCode, T::read(rdmap_header, TF::ErrorCode) ^ 1);
      if (f.has(FaultId::kTerminateLeBitfield)) {
        const auto at = rdmap_header.first(rdmap::kTerminateControlSize);
        const auto le = rdmap::encode_control_as_le_bitfield(wire::Bytes(at));
        std::copy(le.begin(), le.end(), at.begin());
      }
      if (f.has(FaultId::kTerminateNoCopies)) {
        // RFC 5040 §4.8: M, D and R say which headers follow; none do now.
        T::write(rdmap_header, TF::M, 0);
        T::write(rdmap_header, TF::D, 0);
        T::write(rdmap_header, TF::R, 0);
        seg.header_size = ddp::kUntaggedHeaderSize + rdmap::kTerminateControlSize;
      }
    }
  } else if (op == Opcode::kRdmaReadResponse && f.has(FaultId::kReadResponseWrongStag)) {
    // RFC 5041 §4.2: the STag's lowest bit flipped.
    using TF = ddp::TaggedSpec::Field;
    ddp::TaggedHeader::write(h, TF::STag, ddp::TaggedHeader::read(h, TF::STag) ^ 1);
  } else if (op == Opcode::kAtomicResponse && f.has(FaultId::kAtomicResponseWrongId) &&
             seg.header_size >= ddp::kUntaggedHeaderSize + rdmap::kAtomicResponseHeaderSize) {
    // RFC 7306 §4: the Original Request Identifier's lowest bit flipped.
    using AF = rdmap::AtomicResponseSpec::Field;
    rdmap::AtomicResponseHeader::write(rdmap_header, AF::OriginalRequestIdentifier,
                                       rdmap::AtomicResponseHeader::read(rdmap_header, AF::OriginalRequestIdentifier) ^ 1);
  }
  return true;
}

// The test ULP as requester (test_ulp.hpp, UlpCommandSpec): the operations a
// command asks for, posted in order. A post the ORD refuses (RFC 5040
// §5.2.1: no more outstanding Read and Atomic Requests than ORD) waits until
// a Response completes one. Every payload is a view of one shared counting
// pattern, so a command's length and count never drive allocation.
class Requester {
 public:
  Requester(rdmap::Stream& st, Memory& mem) : st_(st), mem_(mem) {}

  void obey(const UlpCommand& c) {
    using F = UlpCommandSpec::Field;
    // Work the ORD holds back waits here; a peer that keeps asking without
    // answering is not followed past a bound.
    if (queue_.size() > kMaxWaiting) return;
    const auto count = std::max<std::uint64_t>(1, c.get(F::Count));
    const auto length = static_cast<std::uint32_t>(std::min<std::uint64_t>(c.get(F::Length), kMaxLength));
    const ddp::Stag stag{static_cast<std::uint32_t>(c.get(F::Stag))};
    const std::uint64_t to = c.get(F::TaggedOffset);
    for (std::uint64_t i = 0; i < count; ++i) {
      switch (static_cast<UlpOperation>(c.get(F::Operation))) {
        case UlpOperation::kRead:  // into our rw buffer
          queue_.push_back([this, stag, to, length] {
            return st_.post_read(next_id_++, {mem_.rw_stag, Memory::kRwBaseTo,
                                              std::min<std::uint32_t>(length, mem_.rw.size()), stag, to});
          });
          break;
        case UlpOperation::kSend:  // `length` octets of a counting pattern
          queue_.push_back([this, p = payload(length)] { return st_.post_send(next_id_++, wire::Chunks(p)); });
          break;
        case UlpOperation::kWrite:  // `length` octets into the tester's buffer
          queue_.push_back([this, p = payload(length), stag, to] { return st_.post_write(next_id_++, wire::Chunks(p), stag, to); });
          break;
        case UlpOperation::kAtomic: {  // RFC 7306 §5
          rdmap::AtomicRequest a;
          a.op = static_cast<rdmap::AtomicOpcode>(c.get(F::AtomicOpcode) & 0x0f);
          a.remote_stag = stag;
          a.remote_to = to;
          a.add_or_swap_data = c.get(F::Data);
          a.compare_data = c.get(F::Compare);
          queue_.push_back([this, a] { return st_.post_atomic(next_id_++, a); });
          break;
        }
        default:
          return;  // not an operation of the profile: nothing is done
      }
    }
    if (c.get(F::Fence)) {
      queue_.push_back([this, p = payload(4)] {
        return st_.post_send(next_id_++, wire::Chunks(p), {.solicited_event = false, .invalidate = std::nullopt, .read_fence = true});
      });
    }
    run();
  }

  // Posts what waits, in order, until the ORD refuses one.
  void run() {
    while (!queue_.empty()) {
      const wire::Status s = queue_.front()();
      if (!s.ok() && s.error().field == "ORD") return;
      queue_.pop_front();
    }
  }

 private:
  static constexpr std::uint64_t kMaxLength = 1u << 20;
  static constexpr std::size_t kMaxWaiting = 1024;
  static wire::Bytes payload(std::uint32_t n) {
    static const std::vector<std::uint8_t> pattern = [] {
      std::vector<std::uint8_t> p(kMaxLength);
      for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<std::uint8_t>(i);
      return p;
    }();
    return wire::Bytes(pattern).first(std::min<std::size_t>(n, pattern.size()));
  }
  rdmap::Stream& st_;
  Memory& mem_;
  std::deque<std::function<wire::Status()>> queue_;
  rdmap::WorkRequestId next_id_ = 5000;
};

namespace {

std::string describe(const ddp::TerminateCode& code) {
  std::string out = "layer=" + std::string(rdmap::layer_name(code.layer)) + " etype=" + std::to_string(code.etype) +
                    " code=" + std::to_string(code.code);
  if (const auto* row = rdmap::find_error(code)) out += " (" + std::string(row->name) + ")";
  return out;
}

// The completion as a device's host would report it (verbs opcode names).
void report_completion(const Socket& sock, const rdmap::Completion& c) {
  using T = rdmap::CompletionType;
  const std::string status = c.status == rdmap::CompletionStatus::kSuccess ? "success" : "flushed";
  switch (c.type) {
    case T::kTerminateReceived:
      sock.emit(IutEvent::Kind::kAsync, "terminate_received", {},
                c.terminate ? describe(c.terminate->code) : "undecodable Terminate");
      return;
    case T::kSend: sock.emit(IutEvent::Kind::kCompletion, "send", status, {}, c.byte_len, c.wr_id); return;
    case T::kRdmaWrite: sock.emit(IutEvent::Kind::kCompletion, "rdma_write", status, {}, c.byte_len, c.wr_id); return;
    case T::kRdmaRead: sock.emit(IutEvent::Kind::kCompletion, "rdma_read", status, {}, c.byte_len, c.wr_id); return;
    case T::kAtomic: sock.emit(IutEvent::Kind::kCompletion, "atomic", status, {}, c.byte_len, c.wr_id); return;
    case T::kImmediateData: sock.emit(IutEvent::Kind::kCompletion, "immediate", status, {}, c.byte_len, c.wr_id); return;
    case T::kReceive: sock.emit(IutEvent::Kind::kCompletion, "recv", status, {}, c.byte_len, c.wr_id); return;
    case T::kReceiveImmediate: sock.emit(IutEvent::Kind::kCompletion, "recv_imm", status, {}, c.byte_len, c.wr_id); return;
  }
}

}  // namespace

TestUlp::TestUlp(const FaultSet& f, rdmap::Stream& st, Memory& mem, std::function<void()> flush,
                 std::function<void(const rdmap::Completion&)> report)
    : f_(f),
      st_(st),
      mem_(mem),
      flush_(std::move(flush)),
      report_(std::move(report)),
      requester_(std::make_unique<Requester>(st, mem)) {}

TestUlp::~TestUlp() = default;

std::vector<ddp::Segment> TestUlp::take_segments() {
  std::vector<ddp::Segment> segs;
  while (auto seg = st_.take_outgoing()) segs.push_back(std::move(*seg));
  if (f_.has(FaultId::kDdpInterleaveMessages)) segs = interleave_messages(std::move(segs));
  std::erase_if(segs, [&](ddp::Segment& seg) { return !rewrite_outgoing(f_, seg); });
  return segs;
}

void TestUlp::on_completions() {
  while (auto c = st_.poll_completion()) {
    if (report_) report_(*c);
    if (c->status != rdmap::CompletionStatus::kSuccess || f_.has(FaultId::kEchoDropped)) continue;
    if (c->type == rdmap::CompletionType::kRdmaRead || c->type == rdmap::CompletionType::kAtomic) {
      requester_->run();  // the ORD has room again
      flush_();
      continue;
    }
    if (c->type == rdmap::CompletionType::kReceive && c->wr_id < mem_.recv.size()) {
      auto& buffer = mem_.recv[c->wr_id];
      const wire::Bytes got = wire::Bytes(buffer).first(std::min<std::size_t>(c->byte_len, buffer.size()));
      if (auto command = parse_command(got)) {
        // A test ULP command is obeyed, not echoed.
        requester_->obey(*command);
        flush_();
        st_.post_receive(c->wr_id, buffer);
        continue;
      }
      // The test ULP echoes every Send, then gives the buffer back.
      std::vector<std::uint8_t> copy(buffer.begin(), buffer.begin() + std::min<std::size_t>(c->byte_len, 256));
      (void)st_.post_send(1000 + c->wr_id, wire::Chunks(wire::Bytes(copy)));
      flush_();
      st_.post_receive(c->wr_id, buffer);
    } else if (c->type == rdmap::CompletionType::kReceiveImmediate && c->immediate_data) {
      (void)st_.post_immediate(2000 + c->wr_id, *c->immediate_data);
      flush_();
      if (c->wr_id < mem_.recv.size()) st_.post_receive(c->wr_id, mem_.recv[c->wr_id]);
    }
  }
}

void run_full_operation(Socket& sock, const FaultSet& f, const mpa::NegotiationOutcome& o, rdmap::Stream& st,
                        Memory& mem, std::vector<std::uint8_t> rx) {
  mpa::FramerConfig fc;
  fc.markers = (o.markers_send && !f.has(FaultId::kMpaIgnoreMarkerRequest)) || f.has(FaultId::kMpaMarkersUnasked);
  fc.crc = (o.crc && !f.has(FaultId::kMpaIgnoreCrcRequest)) || f.has(FaultId::kMpaCrcWhenOff);
  mpa::Framer framer(fc);
  mpa::DeframerConfig dc;
  dc.markers = o.markers_receive;
  dc.crc = (o.crc && !f.has(FaultId::kMpaIgnoreCrcRequest) && !f.has(FaultId::kMpaSkipCrcCheck)) ||
           f.has(FaultId::kMpaCheckCrcWhenOff);
  dc.fail_on_error = !f.has(FaultId::kMpaSkipMarkerCheck);
  // RFC 5044 §6: a ULPDU_Length no TCP segment could carry is a framing error.
  if (!f.has(FaultId::kMpaSkipLengthCheck)) dc.max_ulpdu_length = static_cast<std::uint16_t>(mpa::kLargestMulpdu);
  mpa::Deframer deframer(dc);
  // Sender-side MPA faults (RFC 5044 §4.1, §4.2).
  mpa::FramerOverrides fo;
  if (f.has(FaultId::kMpaPadNonzero)) fo.pad_octet = 0xa5;
  if (f.has(FaultId::kMpaNoPad)) fo.pad_length = 0;
  if (f.has(FaultId::kMpaMarkerReservedSet)) fo.marker_reserved = 0x0001;

  std::function<void()> flush;
  TestUlp ulp(
      f, st, mem, [&] { flush(); }, [&](const rdmap::Completion& c) { report_completion(sock, c); });
  flush = [&] {
    std::vector<ddp::Segment> segs = ulp.take_segments();
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i < segs.size(); ++i) {
      ddp::Segment& seg = segs[i];
      wire::Chunks ulpdu;
      ulpdu.append(seg.header());
      seg.payload.for_each([&](wire::Bytes b) { ulpdu.append(b); });
      // Fault (RFC 5044 §3): the second segment rides in the first one's FPDU.
      if (f.has(FaultId::kMpaUlpdusShareFpdu) && i == 0 && segs.size() > 1) {
        ulpdu.append(segs[1].header());
        segs[1].payload.for_each([&](wire::Bytes b) { ulpdu.append(b); });
        ++i;
      }
      mpa::FramerOverrides this_fo = fo;
      // Fault (RFC 5044 §4.3): a Marker in front of an FPDU that is its only
      // Marker points 512 octets back, into the previous FPDU, not 0.
      if (f.has(FaultId::kMpaStartMarkerPointsBack) && fc.markers &&
          framer.stream_position() % mpa::kMarkerInterval == 0 &&
          framer.fpdu_size(ulpdu.size()) <= mpa::kMarkerInterval)
        this_fo.fpdu_ptr = mpa::kMarkerInterval;
      framer.frame(ulpdu, out, this_fo);
    }
    if (!out.empty()) sock.send(out);
  };
  auto completions = [&] { ulp.on_completions(); };

  std::optional<mpa::RtrKinds> awaiting_rtr;
  if (!o.rtr_to_expect.empty()) awaiting_rtr = o.rtr_to_expect;
  std::size_t pos = 0;
  for (;;) {
    while (pos < rx.size() && st.state() == rdmap::StreamState::kOperational) {
      mpa::DeframeResult r = deframer.next(wire::Bytes(rx).subspan(pos));
      if (std::holds_alternative<mpa::NeedMore>(r)) break;
      if (auto* e = std::get_if<mpa::DeframeError>(&r)) {
        st.report_llp_error(e->terminate_code);
        pos = rx.size();
        break;
      }
      const auto& fp = std::get<mpa::Fpdu>(r);
      if (fp.crc_status == mpa::CrcStatus::kMismatch && !f.has(FaultId::kMpaSkipCrcCheck)) {
        // Markers unchecked (fault), but the CRC still is.
        st.report_llp_error(mpa::LlpErrorCode::kCrcError);
        pos = rx.size();
        break;
      }
      // RFC 6581 §9.2: in the peer-to-peer model the first FPDU is an RTR
      // of a kind the Reply set; anything else is "no matching RTR" (code
      // 0x07, rdmap/rtr.hpp).
      if (awaiting_rtr) {
        const mpa::RtrKinds expected = *std::exchange(awaiting_rtr, std::nullopt);
        if (!rdmap::is_rtr(expected, fp.ulpdu()) && !f.has(FaultId::kMpaAnyFirstFpdu)) {
          st.report_llp_error(mpa::LlpErrorCode::kNoMatchingRtr);
          pos = rx.size();
          break;
        }
      }
      st.on_segment(fp.ulpdu());
      pos += fp.consumed;
      completions();
      flush();
    }
    flush();
    if (st.state() != rdmap::StreamState::kOperational) {
      if (const auto& t = st.terminate_sent()) sock.emit(IutEvent::Kind::kAsync, "terminate_sent", {}, describe(t->code));
      // RFC 5040 §6.2: the stream is over once a Terminate went either way.
      if (f.has(FaultId::kNoCloseAfterTerminate)) {
        std::vector<std::uint8_t> sink;
        while (sock.read(sink, 200ms)) sink.clear();
        return;
      }
      // RFC 5040 §6.2.1: a graceful close, so that the Terminate arrives.
      if (f.has(FaultId::kTerminateThenReset)) {
        sock.reset();
        return;
      }
      sock.close_gracefully();
      return;
    }
    rx.erase(rx.begin(), rx.begin() + static_cast<std::ptrdiff_t>(pos));
    pos = 0;
    if (rx.size() > (1u << 20)) return;  // a peer that never completes an FPDU
    if (!sock.read(rx)) {
      if (sock.eof) st.close();
      return;
    }
  }
}

}  // namespace rdmaconf::conformance::iut
