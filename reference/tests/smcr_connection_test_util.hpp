// Two SMC-R connections (reference/smcr/connection.hpp) wired by a small
// in-test double of an RC queue pair: each side's Writes land in the other's
// RMBE (after on_rdma_write judged them), then its CDC message is delivered,
// in order, as octets decoded again (RFC 7609 App. A.4). What a delivery
// makes the receiver send goes back the same way.
#pragma once

#include <cstring>
#include <deque>
#include <vector>

#include <gtest/gtest.h>

#include "smcr/connection.hpp"

namespace rdmaconf::smcr::testing {

// A small RMBE with the eyecatcher (§4.2): 16 KiB, as CLC's smallest size.
inline ConnectionConfig config_of(std::uint32_t own_size, std::uint32_t peer_size, bool eyecatcher = true) {
  ConnectionConfig c;
  c.own = {own_size, eyecatcher};
  c.peer = {peer_size, eyecatcher};
  c.own_alert_token = 0x1111;
  c.peer_alert_token = 0x2222;
  return c;
}

// The same configuration as the peer sees it.
inline ConnectionConfig mirrored(ConnectionConfig c) {
  std::swap(c.own, c.peer);
  std::swap(c.own_alert_token, c.peer_alert_token);
  return c;
}

// The stream's octet `i` in direction `dir` (0: A to B, 1: B to A): the
// transfer tests send it and check every octet read against it.
inline std::uint8_t stream_octet(int dir, std::uint64_t i) {
  const std::uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull + static_cast<std::uint64_t>(dir) * 0x632BE59BD9B4E019ull;
  return static_cast<std::uint8_t>(x >> 56);
}

// A.4 from first principles: after `total` octets the cursor has wrapped
// total / capacity times (16 bits) and stands that far into the data area.
inline Cursor cursor_after(std::uint64_t total, const RmbeGeometry& g) {
  return {static_cast<std::uint16_t>((total / g.capacity()) % 65536),
          static_cast<std::uint32_t>(total % g.capacity() + g.data_start())};
}

// A CDC message through its octets, as the wire carries it.
inline CdcMessage through_wire(const CdcMessage& m) {
  auto d = decode_cdc(m.header.bytes());
  EXPECT_TRUE(d.ok());
  return d.ok() ? *d : m;
}

class Pair {
 public:
  explicit Pair(const ConnectionConfig& a, const ConnectionConfig& b = {})
      : rmbe_a_(a.own.size), rmbe_b_(b.own.size ? b.own.size : a.peer.size),
        a_(a, rmbe_a_), b_(b.own.size ? b : mirrored(a), rmbe_b_) {}

  Connection& a() { return a_; }
  Connection& b() { return b_; }
  std::vector<std::uint8_t>& rmbe_a() { return rmbe_a_; }
  std::vector<std::uint8_t>& rmbe_b() { return rmbe_b_; }

  // Queue what `from` wants sent.
  void from_a(Output o) { push(to_b_, std::move(o)); }
  void from_b(Output o) { push(to_a_, std::move(o)); }

  // Deliver one queued message towards `to`; false when there is none.
  bool step_to_b() { return step(to_b_, b_, rmbe_b_, to_a_); }
  bool step_to_a() { return step(to_a_, a_, rmbe_a_, to_b_); }
  // Deliver until both directions are quiet.
  void settle() {
    for (int guard = 0; guard < 1'000'000 && (step_to_b() || step_to_a()); ++guard) {
    }
  }

  std::size_t pending_to_a() const { return to_a_.size(); }
  std::size_t pending_to_b() const { return to_b_.size(); }
  // Every outcome of a CDC delivery, in order, per receiver.
  std::vector<CdcOutcome> outcomes_a, outcomes_b;
  // Every CDC message delivered, as decoded, per receiver.
  std::vector<CdcMessage> seen_by_a, seen_by_b;
  // Every judgement of a Write, per receiver.
  std::vector<WriteOutcome> writes_a, writes_b;

 private:
  static void push(std::deque<Output>& q, Output o) {
    if (!o.empty()) q.push_back(std::move(o));
  }
  bool step(std::deque<Output>& q, Connection& to, std::vector<std::uint8_t>& rmbe, std::deque<Output>& back) {
    if (q.empty()) return false;
    Output o = std::move(q.front());
    q.pop_front();
    // RC: the Writes are placed before the Send that follows them arrives.
    for (const RdmaWrite& w : o.writes) {
      WriteOutcome wo = to.on_rdma_write(w.rmbe_offset, w.octets.size());
      if (wo.place) std::memcpy(rmbe.data() + w.rmbe_offset, w.octets.data(), w.octets.size());
      push(back, std::move(wo.out));
      (&to == &a_ ? writes_a : writes_b).push_back(std::move(wo));
    }
    if (o.cdc) {
      const CdcMessage m = through_wire(*o.cdc);
      (&to == &a_ ? seen_by_a : seen_by_b).push_back(m);
      CdcOutcome r = to.on_cdc(m);
      push(back, std::move(r.out));
      (&to == &a_ ? outcomes_a : outcomes_b).push_back(std::move(r));
    }
    return true;
  }

  std::vector<std::uint8_t> rmbe_a_, rmbe_b_;
  Connection a_, b_;
  std::deque<Output> to_a_, to_b_;
};

}  // namespace rdmaconf::smcr::testing
