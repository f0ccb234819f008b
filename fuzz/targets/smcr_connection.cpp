// Two sans-IO SMC-R connections (reference/smcr/connection.hpp; RFC 7609
// §4.2-§4.8, App. A.4) wired back to back, both sides' operations
// interleaved, with fuzzed CDC messages and RDMA Writes injected.
//
// Input: 9 octets of configuration (eyecatcher, RMBE sizes, send buffer,
// consumer update thresholds, faults of side A), then operations, each one
// octet (bit 7: which side) and its arguments: send or send urgent data,
// receive, deliver the oldest or every message queued towards the side,
// shut down for write, close, abort, the close timer, inject 44 raw octets
// as a CDC message, inject a CDC message built from fuzzed fields near the
// real cursors, inject a Write, the peer's failover validation.
// Properties: every Write a side sends lies in the peer's data area and no
// side sends a CDC message after its own C or A; sequence numbers grow by
// one; unread data never exceeds the data area; and while nothing was
// injected and no fault is on, the receiver finds nothing wrong (but the
// §4.8.1 4A reset) and reads exactly the octets sent, in order. No octet
// outside the RMBEs is touched (ASan), whatever is injected.
#include <cstdint>
#include <cstring>
#include <deque>
#include <vector>

#include "common/input.hpp"
#include "smcr/connection.hpp"

using namespace rdmaconf;
using smcr::CdcSpec;

namespace {

struct Side {
  std::vector<std::uint8_t> rmbe;
  smcr::Connection conn;
  std::deque<smcr::Output> inbox;     // from the peer, in order
  std::vector<std::uint8_t> sent;     // the stream this side's send() took
  std::uint64_t read = 0;             // octets of the peer's stream read and compared
  std::uint16_t sequence = 0;
  bool said_closed = false;           // this side sent C or A
  bool tainted = false;               // something not from the honest peer reached it
  explicit Side(const smcr::ConnectionConfig& c) : rmbe(c.own.size), conn(c, rmbe) {}
};

smcr::ConnectionConfig config_from(fuzz::FuzzInput& in) {
  smcr::ConnectionConfig c;
  const bool eyecatcher = !in.flag();
  // Tiny RMBEs wrap often; up to 64 KiB.
  c.own = {5 + in.u16() % 65532u, eyecatcher};
  c.peer = {5 + in.u16() % 65532u, eyecatcher};
  c.own_alert_token = 0x0A;
  c.peer_alert_token = 0x0B;
  c.send_buffer = 1 + in.u8() * 64u;
  c.update.window_percent = in.u8() % 101;
  c.update.increase_percent = in.u8() % 101;
  return c;
}

smcr::ConnectionConfig mirrored(smcr::ConnectionConfig c) {
  std::swap(c.own, c.peer);
  std::swap(c.own_alert_token, c.peer_alert_token);
  c.faults = {};
  return c;
}

// Nothing injected on either side (an injected message changes what the
// receiver then sends) and no fault on the sender.
bool honest(const Side& s, const Side& peer) {
  return !s.tainted && !peer.tainted && peer.conn.config().faults.bits.none();
}

// What `me` sends: checked, then queued towards `peer`.
void emit(Side& me, Side& peer, smcr::Output o) {
  const smcr::RmbeGeometry& g = me.conn.config().peer;
  for (const smcr::RdmaWrite& w : o.writes) {
    FUZZ_CHECK(!w.octets.empty());
    FUZZ_CHECK(w.rmbe_offset >= g.data_start());
    FUZZ_CHECK(w.rmbe_offset + w.octets.size() <= g.size);
  }
  if (o.cdc) {
    FUZZ_CHECK(!me.said_closed);  // A.4: nothing after C or A
    if (!me.conn.config().faults.has(smcr::Fault::kRepeatSequenceNumber))
      FUZZ_CHECK(o.cdc->sequence_number() == static_cast<std::uint16_t>(me.sequence + 1));
    me.sequence = o.cdc->sequence_number();
    me.said_closed = me.said_closed || o.cdc->flag(CdcSpec::Field::C) || o.cdc->flag(CdcSpec::Field::A);
  } else {
    FUZZ_CHECK(o.writes.empty());  // Writes always come with their CDC message
  }
  if (!o.empty()) peer.inbox.push_back(std::move(o));
}

void judge(const smcr::CdcOutcome& r, const Side& me, const Side& peer) {
  if (!honest(me, peer)) return;
  for (const smcr::Finding& f : r.findings) FUZZ_CHECK(f.error == smcr::PeerError::kClosedWithDataPending);
}

void deliver_one(Side& me, Side& peer) {
  if (me.inbox.empty()) return;
  smcr::Output o = std::move(me.inbox.front());
  me.inbox.pop_front();
  for (const smcr::RdmaWrite& w : o.writes) {
    smcr::WriteOutcome wo = me.conn.on_rdma_write(w.rmbe_offset, w.octets.size());
    if (honest(me, peer)) FUZZ_CHECK(wo.findings.empty());
    if (wo.place) std::memcpy(me.rmbe.data() + w.rmbe_offset, w.octets.data(), w.octets.size());
    emit(me, peer, std::move(wo.out));
  }
  if (o.cdc) {
    auto m = smcr::decode_cdc(o.cdc->header.bytes());
    FUZZ_CHECK(m.ok());  // our own octets decode with our own decoder
    smcr::CdcOutcome r = me.conn.on_cdc(*m);
    judge(r, me, peer);
    emit(me, peer, std::move(r.out));
  }
}

void inject_cdc(Side& me, Side& peer, const smcr::CdcMessage& m) {
  me.tainted = true;
  smcr::CdcOutcome r = me.conn.on_cdc(m);
  emit(me, peer, std::move(r.out));
}

// A CDC message from fuzzed fields, near the cursors the connection holds.
smcr::CdcMessage built_cdc(fuzz::FuzzInput& in, const Side& me) {
  using F = CdcSpec::Field;
  smcr::CdcMessage m;
  const std::uint8_t shape = in.u8();
  const smcr::Cursor prod = smcr::advance(me.conn.peer_producer(), in.u16(), me.conn.config().own);
  const smcr::Cursor cons = smcr::advance(me.conn.peer_consumer(), in.u8(), me.conn.config().peer);
  const auto seq = static_cast<std::uint16_t>(me.conn.last_sequence_received().value_or(0) + (shape & 3));
  m.header.set(F::Type, smcr::kCdcType).set(F::Length, smcr::kCdcMessageSize).set(F::SequenceNumber, seq);
  m.header.set(F::AlertToken, (shape & 4) ? in.u32() : me.conn.config().own_alert_token);
  m.header.set(F::ProducerWrap, prod.wrap).set(F::ProducerCursor, (shape & 8) ? in.u32() : prod.count);
  m.header.set(F::ConsumerWrap, cons.wrap).set(F::ConsumerCursor, cons.count);
  const std::uint8_t flags = in.u8();
  constexpr F kFlags[] = {F::B, F::P, F::U, F::R, F::F, F::D, F::C, F::A};
  for (int i = 0; i < 8; ++i) m.header.set(kFlags[i], (flags >> i) & 1);
  return m;
}

void op(fuzz::FuzzInput& in, std::uint8_t code, Side& me, Side& peer) {
  smcr::Connection& c = me.conn;
  switch (code % 14) {
    case 0:
    case 1: {
      const fuzz::Bytes data = in.block(255);
      std::vector<std::uint8_t> big;
      fuzz::Bytes offered = data;
      if (in.flag()) {  // a large send: the data repeated, to fill windows fast
        for (int i = 0; i < 64; ++i) big.insert(big.end(), data.begin(), data.end());
        offered = big;
      }
      const smcr::SendResult r = code % 14 == 0 ? c.send(offered) : c.send_urgent(offered);
      FUZZ_CHECK(r.accepted <= offered.size());
      if (r.status != smcr::SendStatus::kOk) FUZZ_CHECK(r.accepted == 0);
      me.sent.insert(me.sent.end(), offered.begin(), offered.begin() + static_cast<std::ptrdiff_t>(r.accepted));
      emit(me, peer, r.out);
      break;
    }
    case 2: {
      std::vector<std::uint8_t> buf(1 + in.u16() % 20000u);
      const std::size_t before = c.readable();
      const smcr::ReceiveResult r = c.receive(buf);
      FUZZ_CHECK(r.octets <= buf.size() && r.octets <= before);
      if (honest(me, peer) && !c.aborted())
        for (std::size_t i = 0; i < r.octets; ++i) {
          FUZZ_CHECK(me.read + i < peer.sent.size());
          FUZZ_CHECK(buf[i] == peer.sent[me.read + i]);
        }
      me.read += r.octets;
      emit(me, peer, r.out);
      break;
    }
    case 3: deliver_one(me, peer); break;
    case 4:
      while (!me.inbox.empty()) deliver_one(me, peer);
      break;
    case 5: emit(me, peer, c.shutdown_write()); break;
    case 6: emit(me, peer, c.close()); break;
    case 7: emit(me, peer, c.abort()); break;
    case 8: emit(me, peer, c.close_timeout()); break;
    case 9: {
      const fuzz::Bytes raw = in.take(44);
      auto m = smcr::decode_cdc(raw);
      if (m.ok()) inject_cdc(me, peer, *m);
      break;
    }
    case 10: inject_cdc(me, peer, built_cdc(in, me)); break;
    case 11: {
      me.tainted = true;
      const std::uint32_t offset = in.u16();
      const std::uint32_t length = in.u16();
      smcr::WriteOutcome wo = c.on_rdma_write(offset, length);
      if (wo.place) {
        FUZZ_CHECK(std::uint64_t{offset} + length <= me.rmbe.size());
        std::memset(me.rmbe.data() + offset, 0xEE, length);
      }
      emit(me, peer, std::move(wo.out));
      break;
    }
    case 12: inject_cdc(me, peer, peer.conn.failover_validation(in.flag() ? std::optional<std::uint16_t>(in.u16())
                                                                           : std::nullopt));
      break;
    default: {
      // Invariants of the state itself.
      FUZZ_CHECK(c.unread() <= c.config().own.capacity());
      FUZZ_CHECK(c.readable() <= c.unread() || c.aborted());
      FUZZ_CHECK(c.window() <= c.config().peer.capacity());
      break;
    }
  }
  FUZZ_CHECK(c.unread() <= c.config().own.capacity());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(data, size);
  smcr::ConnectionConfig a = config_from(in);
  const std::uint8_t faults = in.u8();
  for (std::size_t f = 0; f < static_cast<std::size_t>(smcr::Fault::kCount); ++f)
    if (faults >> f & 1) a.faults.set(static_cast<smcr::Fault>(f));
  Side sa(a), sb(mirrored(a));
  for (int n = 0; n < 4096 && !in.empty(); ++n) {
    const std::uint8_t code = in.u8();
    if (code & 0x80) op(in, code & 0x7f, sb, sa);
    else op(in, code, sa, sb);
  }
  return 0;
}
