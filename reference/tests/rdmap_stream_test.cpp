// The sans-IO RDMAP stream (RFC 5040 §5-§7, RFC 7306, RFC 5042 §5) at work:
// two streams wired back to back exchange every operation at several
// MULPDUs, each segment handed over split in two views (as MPA's deframer
// may yield it), a segment split at every offset places the same, and each
// RTR kind of RFC 6581 is recognised.
// Every Terminate the stream sends is rdmap_stream_errors_test.cpp's.
#include "rdmap/stream.hpp"

#include "rdmap/rtr.hpp"

#include <vector>

#include <gtest/gtest.h>

#include "rdmap_stream_test_util.hpp"

namespace rdmaconf::rdmap {
namespace {

using namespace testing;

std::uint64_t be64(const std::vector<std::uint8_t>& m, std::size_t at) {
  return wire::load_be(wire::Bytes(m).subspan(at, 8));
}

class StreamBackToBack : public ::testing::TestWithParam<std::size_t> {};

// Every operation of RFC 5040 and RFC 7306, A as initiator, B as target.
TEST_P(StreamBackToBack, EveryOperationType) {
  StreamConfig cfg;
  cfg.mulpdu = GetParam();
  Pair p(cfg, cfg);

  std::vector<std::vector<std::uint8_t>> recv(8, std::vector<std::uint8_t>(400, 0));
  for (std::size_t i = 0; i < recv.size(); ++i) p.b.post_receive(100 + i, recv[i]);

  std::vector<std::uint8_t> inv1(8), inv2(8);
  const Stag x = p.b.register_memory(inv1, 0, Access::kRemoteWrite);
  const Stag y = p.b.register_memory(inv2, 0, Access::kRemoteWrite);
  std::vector<std::uint8_t> write_target(500, 0);
  const Stag w = p.b.register_memory(write_target, 0x10000, Access::kRemoteWrite);
  std::vector<std::uint8_t> read_source = pattern(333, 7);
  const Stag r = p.b.register_memory(read_source, 0x20000, Access::kRemoteRead);
  std::vector<std::uint8_t> atomic_target(16, 0);
  wire::store_be(wire::MutableBytes(atomic_target).first(8), 100);
  const Stag t = p.b.register_memory(atomic_target, 0x3000, Access::kRemoteAtomic);
  std::vector<std::uint8_t> read_sink(400, 0);
  const Stag s = p.a.register_memory(read_sink, 0x2000, Access::kLocalWrite);

  const auto msg = pattern(300);
  const auto wmsg = pattern(400, 50);
  ASSERT_TRUE(p.a.post_send(1, wire::Chunks(msg)));
  ASSERT_TRUE(p.a.post_send(2, wire::Chunks(msg), SendOptions{true, std::nullopt}));
  ASSERT_TRUE(p.a.post_send(3, wire::Chunks{}, SendOptions{false, x}));
  ASSERT_TRUE(p.a.post_send(4, wire::Chunks(msg), SendOptions{true, y}));
  ASSERT_TRUE(p.a.post_write(5, wire::Chunks(wmsg), w, 0x10010));
  ASSERT_TRUE(p.a.post_read(6, ReadRequest{s, 0x2005, 333, r, 0x20000}));
  ASSERT_TRUE(p.a.post_atomic(7, atomic(AtomicOpcode::kFetchAdd, t, 0x3000, 5, 0)));
  p.pump();  // ORD 4 is not reached: at most 2 outstanding at a time here
  ASSERT_TRUE(p.a.post_atomic(8, atomic(AtomicOpcode::kCompareSwap, t, 0x3000, 7, ~0ull, 105)));
  ASSERT_TRUE(p.a.post_atomic(9, atomic(AtomicOpcode::kCompareSwap, t, 0x3000, 9, ~0ull, 1)));
  ASSERT_TRUE(p.a.post_atomic(10, atomic(AtomicOpcode::kSwap, t, 0x3000, 0xaaaa, ~0ull)));
  ASSERT_TRUE(p.a.post_immediate(11, 0x1122334455667788ull));
  ASSERT_TRUE(p.a.post_immediate(12, 0x99, true));
  ASSERT_TRUE(p.a.post_write(13, wire::Chunks{}, Stag{0xdeadbe00}, 0));  // zero length: no check
  ASSERT_TRUE(p.a.post_read(14, ReadRequest{Stag{0}, 0, 0, Stag{0}, 0}));
  p.pump();

  EXPECT_EQ(p.a.state(), StreamState::kOperational);
  EXPECT_EQ(p.b.state(), StreamState::kOperational);
  EXPECT_LE(p.largest_segment, GetParam());

  const auto ca = drain(p.a);
  const auto cb = drain(p.b);
  // Initiator completions (RFC 5040 §5.5).
  for (WorkRequestId id : {1, 2, 3, 4}) ASSERT_TRUE(find(ca, id, CompletionType::kSend)) << id;
  EXPECT_EQ(find(ca, 1, CompletionType::kSend)->byte_len, 300u);
  ASSERT_TRUE(find(ca, 5, CompletionType::kRdmaWrite));
  ASSERT_TRUE(find(ca, 6, CompletionType::kRdmaRead));
  EXPECT_EQ(find(ca, 6, CompletionType::kRdmaRead)->byte_len, 333u);
  EXPECT_EQ(std::vector<std::uint8_t>(read_sink.begin() + 5, read_sink.begin() + 338), read_source);
  EXPECT_EQ(read_sink[4], 0);
  EXPECT_EQ(read_sink[338], 0);
  EXPECT_EQ(find(ca, 7, CompletionType::kAtomic)->atomic_original, 100u);
  EXPECT_EQ(find(ca, 8, CompletionType::kAtomic)->atomic_original, 105u);
  EXPECT_EQ(find(ca, 9, CompletionType::kAtomic)->atomic_original, 7u);  // compare fails
  EXPECT_EQ(find(ca, 10, CompletionType::kAtomic)->atomic_original, 7u);
  EXPECT_EQ(be64(atomic_target, 0), 0xaaaau);
  ASSERT_TRUE(find(ca, 11, CompletionType::kImmediateData));
  ASSERT_TRUE(find(ca, 13, CompletionType::kRdmaWrite));
  ASSERT_TRUE(find(ca, 14, CompletionType::kRdmaRead));
  for (const Completion& c : ca) EXPECT_EQ(c.status, CompletionStatus::kSuccess);

  // Target completions: one per consumed receive, in MSN order.
  ASSERT_EQ(cb.size(), 6u);
  EXPECT_EQ(cb[0].wr_id, 100u);
  EXPECT_EQ(cb[0].byte_len, 300u);
  EXPECT_FALSE(cb[0].solicited_event);
  EXPECT_EQ(std::vector<std::uint8_t>(recv[0].begin(), recv[0].begin() + 300), msg);
  EXPECT_TRUE(cb[1].solicited_event);
  EXPECT_EQ(cb[2].invalidated_stag, x);
  EXPECT_EQ(cb[2].byte_len, 0u);
  EXPECT_FALSE(p.b.memory().find(x)->valid);
  EXPECT_EQ(cb[3].invalidated_stag, y);
  EXPECT_TRUE(cb[3].solicited_event);
  EXPECT_EQ(cb[4].type, CompletionType::kReceiveImmediate);
  EXPECT_EQ(cb[4].immediate_data, 0x1122334455667788ull);
  EXPECT_FALSE(cb[4].solicited_event);
  EXPECT_EQ(cb[5].immediate_data, 0x99u);
  EXPECT_TRUE(cb[5].solicited_event);
  EXPECT_EQ(std::vector<std::uint8_t>(write_target.begin() + 0x10, write_target.begin() + 0x10 + 400), wmsg);
  EXPECT_EQ(write_target[0x0f], 0);
}

INSTANTIATE_TEST_SUITE_P(Mulpdu, StreamBackToBack, ::testing::Values(72, 100, 257, 1500));

// A segment split into two views at every offset is received the same way
// (the Boost.Beast "parsegrind" habit, applied to MPA's Chunks).
TEST(StreamSplits, EverySplitOfASegmentPlacesTheSame) {
  Stream tx{StreamConfig{}};
  const auto msg = pattern(40, 3);
  ASSERT_TRUE(tx.post_send(1, wire::Chunks(msg)));
  ASSERT_TRUE(tx.post_write(2, wire::Chunks(msg), Stag{0x100}, 4));
  const auto send = tx.take_outgoing()->to_vector();
  const auto write = tx.take_outgoing()->to_vector();
  for (const auto* seg : {&send, &write}) {
    for (std::size_t k = 0; k <= seg->size(); ++k) {
      Stream rx{StreamConfig{}};
      std::vector<std::uint8_t> recv(64, 0), mem(64, 0);
      rx.post_receive(7, recv);
      // Registered first, so it gets STag 0x100 (index 1, key 0).
      ASSERT_EQ(ddp::value(rx.register_memory(mem, 0, Access::kRemoteWrite)), 0x100u);
      wire::Chunks c;
      c.append(wire::Bytes(*seg).first(k));
      c.append(wire::Bytes(*seg).subspan(k));
      rx.on_segment(c);
      ASSERT_EQ(rx.state(), StreamState::kOperational) << k;
      if (seg == &send) {
        auto done = rx.poll_completion();
        ASSERT_TRUE(done) << k;
        EXPECT_EQ(done->byte_len, 40u);
        EXPECT_EQ(std::vector<std::uint8_t>(recv.begin(), recv.begin() + 40), msg) << k;
      } else {
        EXPECT_EQ(std::vector<std::uint8_t>(mem.begin() + 4, mem.begin() + 44), msg) << k;
      }
    }
  }
}

TEST(StreamAtomics, MaskedOperationsOfRfc7306) {
  AtomicRequest a;
  // FetchAdd with a field boundary at bit 31: the low field wraps, no carry.
  a.add_or_swap_data = 1;
  a.add_or_swap_mask = 0x80000000ull;
  EXPECT_EQ(atomic_result(AtomicOpcode::kFetchAdd, 0xffffffffull, a), 0u);
  a.add_or_swap_mask = 0;
  EXPECT_EQ(atomic_result(AtomicOpcode::kFetchAdd, 0xffffffffull, a), 0x100000000ull);
  // Swap of the low half only.
  a.add_or_swap_data = 0x1111111122222222ull;
  a.add_or_swap_mask = 0x00000000ffffffffull;
  EXPECT_EQ(atomic_result(AtomicOpcode::kSwap, 0xaaaaaaaabbbbbbbbull, a), 0xaaaaaaaa22222222ull);
  // CmpSwap comparing the high half only.
  a.compare_data = 0xaaaaaaaa00000000ull;
  a.compare_mask = 0xffffffff00000000ull;
  bool swapped = false;
  EXPECT_EQ(atomic_result(AtomicOpcode::kCompareSwap, 0xaaaaaaaabbbbbbbbull, a, &swapped),
            0xaaaaaaaa22222222ull);
  EXPECT_TRUE(swapped);
  a.compare_data = 0;
  EXPECT_EQ(atomic_result(AtomicOpcode::kCompareSwap, 0xaaaaaaaabbbbbbbbull, a, &swapped),
            0xaaaaaaaabbbbbbbbull);
  EXPECT_FALSE(swapped);
}


// RFC 6581 §9.2: each RTR kind is recognised, and nothing else passes for it.
TEST(Rtr, EachKindMatchesOnlyItsZeroLengthMessage) {
  Stream a{StreamConfig{}};
  const auto data = pattern(4);
  ASSERT_TRUE(a.post_send(1, wire::Chunks{}));
  ASSERT_TRUE(a.post_write(2, wire::Chunks{}, Stag{0}, 0));
  ASSERT_TRUE(a.post_read(3, {Stag{0}, 0, 0, Stag{0}, 0}));
  ASSERT_TRUE(a.post_send(4, wire::Chunks(wire::Bytes(data))));
  ASSERT_TRUE(a.post_read(5, {Stag{0}, 0, 8, Stag{0}, 0}));
  std::vector<std::vector<std::uint8_t>> segs;
  while (auto s = a.take_outgoing()) segs.push_back(s->to_vector());
  ASSERT_EQ(segs.size(), 5u);
  using K = mpa::RtrKind;
  auto is = [&](K k, std::size_t i) { return is_rtr(k, wire::Chunks(wire::Bytes(segs[i]))); };
  EXPECT_TRUE(is(K::kZeroLengthSend, 0));
  EXPECT_TRUE(is(K::kZeroLengthWrite, 1));
  EXPECT_TRUE(is(K::kZeroLengthRead, 2));
  for (K k : {K::kZeroLengthSend, K::kZeroLengthWrite, K::kZeroLengthRead}) {
    EXPECT_FALSE(is(k, 3)) << "a Send with data";
    EXPECT_FALSE(is(k, 4)) << "a Read of 8 octets";
  }
  EXPECT_FALSE(is(K::kZeroLengthSend, 1));
  EXPECT_FALSE(is(K::kZeroLengthWrite, 0));
  EXPECT_FALSE(is(K::kZeroLengthRead, 0));
  EXPECT_FALSE(is(K::kNone, 0));
  EXPECT_FALSE(is_rtr(K::kZeroLengthSend, wire::Chunks{}));
}

}  // namespace
}  // namespace rdmaconf::rdmap
