// Two sans-IO RDMAP streams (RFC 5040 §5-§7, RFC 7306, RFC 5041 §7) back to
// back, both roles' operations interleaved, with fuzzed segments injected.
//
// Input: 3 octets of stream configuration for each side (MULPDU, IRD/ORD,
// switched-off checks; common/rdmap_side.hpp), then operations, each one
// octet (bit 7: which side) and its arguments:
//   post Send / RDMA Write / RDMA Read / Atomic / Immediate Data, post a
//   receive, move one or all segments to the peer (split in views), inject a
//   raw segment or one built from fuzzed header fields aimed at the peer's
//   real STags, queues and MSNs, invalidate or deregister memory, an LLP
//   error, close.
// Properties: every segment either side sends passes RdmapSide's checks
// (fits the MULPDU, headers of the opcode's kind, Terminates that decode to
// what was sent), completions stay within what was posted, a stream that is
// not operational refuses new work, and no octet outside the registered and
// posted buffers is touched (ASan) even with receive checks switched off.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "common/input.hpp"
#include "common/rdmap_side.hpp"

using namespace rdmaconf;

namespace {

void check_refuses_when_terminated(fuzz::RdmapSide& s, const wire::Status& st) {
  if (s.stream().state() != rdmap::StreamState::kOperational) FUZZ_CHECK(!st.ok());
}

// A segment built from fuzzed fields, aimed at the peer's real resources so
// that placement, MSN and bounds logic is reached: a header and up to 96
// octets of payload, built in place.
struct BuiltSegment {
  std::array<std::uint8_t, ddp::kUntaggedHeaderSize + 96> octets{};
  std::size_t size = 0;
  void append(fuzz::Bytes b) {
    std::copy(b.begin(), b.end(), octets.begin() + static_cast<std::ptrdiff_t>(size));
    size += b.size();
  }
  fuzz::Bytes bytes() const { return fuzz::Bytes(octets).first(size); }
};

BuiltSegment built_segment(fuzz::FuzzInput& in, fuzz::RdmapSide& target) {
  const std::uint8_t shape = in.u8();
  const std::uint8_t opcode = shape & 0x0f;
  const bool last = (shape & 0x10) != 0;
  BuiltSegment out;
  const rdmap::OpcodeInfo* op = rdmap::find_opcode(opcode);
  const bool tagged = (shape & 0x20) ? !(op && op->tagged) : (op && op->tagged);
  if (tagged) {
    ddp::TaggedHeader h;
    using F = ddp::TaggedSpec::Field;
    const std::uint8_t r = in.u8();
    h.set(F::T, 1).set(F::L, last).set(F::DV, (shape & 0x40) ? in.u8() & 3 : ddp::kDdpVersion);
    h.set(F::RsvdULP, rdmap::Control::octet(static_cast<rdmap::Opcode>(opcode)));
    h.set(F::STag, (r & 0x80) ? in.u32() : ddp::value(target.stag(r)));
    h.set(F::TO, target.base_to(r) + static_cast<std::int8_t>(in.u8()));
    out.append(h.bytes());
  } else {
    ddp::UntaggedHeader h;
    using F = ddp::UntaggedSpec::Field;
    const std::uint8_t q = in.u8();
    h.set(F::T, 0).set(F::L, last).set(F::DV, (shape & 0x40) ? in.u8() & 3 : ddp::kDdpVersion);
    h.set(F::RsvdULP, rdmap::Control::octet(static_cast<rdmap::Opcode>(opcode)));
    h.set(F::RsvdULP32, (q & 0x80) ? ddp::value(target.stag(q)) : 0);
    h.set(F::QN, (op && op->queue && !(q & 0x40)) ? static_cast<std::uint32_t>(*op->queue) : q & 7);
    h.set(F::MSN, 1 + (in.u8() & 7));
    h.set(F::MO, (q & 0x20) ? in.u8() : 0);
    out.append(h.bytes());
  }
  out.append(in.block(96));
  return out;
}

void op_on(fuzz::FuzzInput& in, std::uint8_t code, fuzz::RdmapSide& me, fuzz::RdmapSide& peer) {
  rdmap::Stream& s = me.stream();
  switch (code % 14) {
    case 0: {
      const fuzz::Bytes payload = in.block(200);
      const std::uint8_t o = in.u8();
      rdmap::SendOptions opt;
      opt.solicited_event = (o & 1) != 0;
      if (o & 2) opt.invalidate = peer.stag(o >> 2);
      check_refuses_when_terminated(me, s.post_send(me.next_wr(), wire::Chunks(payload), opt));
      break;
    }
    case 1: {
      const fuzz::Bytes payload = in.block(200);
      const std::uint8_t r = in.u8();
      check_refuses_when_terminated(
          me, s.post_write(me.next_wr(), wire::Chunks(payload), peer.stag(r), peer.base_to(r) + (in.u8() & 0x3f)));
      break;
    }
    case 2: {
      rdmap::ReadRequest rr;
      const std::uint8_t r = in.u8();
      rr.sink_stag = me.stag(r & 1 ? 1 : 0);
      rr.sink_to = me.base_to(r & 1 ? 1 : 0) + (in.u8() & 0x1f);
      rr.size = in.u8();
      rr.source_stag = peer.stag(r >> 1);
      rr.source_to = peer.base_to(r >> 1) + (in.u8() & 0x1f);
      check_refuses_when_terminated(me, s.post_read(me.next_wr(), rr));
      break;
    }
    case 3: {
      rdmap::AtomicRequest a;
      const std::uint8_t r = in.u8();
      a.op = static_cast<rdmap::AtomicOpcode>(r % 3);
      a.remote_stag = peer.stag(r >> 2);
      a.remote_to = peer.base_to(r >> 2) + (in.u8() & 0x1f);
      a.add_or_swap_data = in.u64();
      a.add_or_swap_mask = (r & 0x80) ? in.u64() : 0;
      a.compare_data = in.u64();
      if (r & 0x40) a.raw_opcode_override = in.u8() & 0x0f;
      check_refuses_when_terminated(me, s.post_atomic(me.next_wr(), a));
      break;
    }
    case 4:
      check_refuses_when_terminated(me, s.post_immediate(me.next_wr(), in.u64(), in.flag()));
      break;
    case 5: me.post_receive(in.u8()); break;
    case 6:
    case 7: {  // the next segment to the peer
      if (auto seg = me.take_outgoing()) fuzz::hand_over(peer.stream(), *seg, in.u8());
      break;
    }
    case 8: {  // a raw segment from the input
      const fuzz::Bytes raw = in.block(120);
      fuzz::hand_over(s, raw, in.u8());
      break;
    }
    case 9:
    case 10: {
      const BuiltSegment seg = built_segment(in, me);
      fuzz::hand_over(s, seg.bytes(), in.u8());
      break;
    }
    case 11: {
      const std::uint8_t r = in.u8();
      if (r & 0x80) s.deregister_memory(me.stag(r));
      else s.invalidate_local(me.stag(r));
      break;
    }
    case 12: s.report_llp_error(static_cast<mpa::LlpErrorCode>(1 + in.u8() % 7)); break;
    default:
      if (in.u8() == 0xc1) s.close();  // rare: everything after it is flushed
      break;
  }
  me.drain_completions();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  const std::uint8_t a0 = in.u8(), a1 = in.u8(), a2 = in.u8();
  const std::uint8_t b0 = in.u8(), b1 = in.u8(), b2 = in.u8();
  fuzz::RdmapSide a(fuzz::stream_config(a0, a1, a2));
  fuzz::RdmapSide b(fuzz::stream_config(b0, b1, b2));
  for (std::size_t i = 0; i < 4; ++i) {
    a.post_receive(64);
    b.post_receive(64);
  }
  std::size_t ops = 0;
  while (!in.empty() && ops++ < 256) {
    const std::uint8_t code = in.u8();
    if (code & 0x80) op_on(in, code & 0x7f, b, a);
    else op_on(in, code, a, b);
  }
  // Drain both directions: whatever the streams still send must pass too.
  for (int round = 0; round < 64; ++round) {
    bool moved = false;
    while (auto seg = a.take_outgoing()) { fuzz::hand_over(b.stream(), *seg, 0x21); moved = true; }
    while (auto seg = b.take_outgoing()) { fuzz::hand_over(a.stream(), *seg, 0x21); moved = true; }
    a.drain_completions();
    b.drain_completions();
    if (!moved) break;
  }
  a.stream().close();
  b.stream().close();
  a.drain_completions();
  b.drain_completions();
  FUZZ_CHECK(a.stream().state() == rdmap::StreamState::kClosed && b.stream().state() == rdmap::StreamState::kClosed);
  FUZZ_CHECK(!rdmap::to_string(a.stream().state()).empty());
  return 0;
}
