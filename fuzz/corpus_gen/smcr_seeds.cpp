// smcr_connection seeds (fuzz_make_corpus, the rest of which is
// make_corpus.cpp): operation sequences in the target's layout
// (fuzz/targets/smcr_connection.cpp) that carry two SMC-R connections
// through the RFC 7609 §4.7 flows and the §4.8 closes, and a CDC message
// (App. A.4) written through its declaration for the raw injection.
#include <cstdint>
#include <vector>

#include "corpus_gen/seeds.hpp"
#include "smcr/messages.hpp"

using namespace rdmaconf;
using corpus_gen::cat;
using corpus_gen::Octets;
using corpus_gen::pattern;
using corpus_gen::put;

namespace {

// Configuration: eyecatcher (0: with), the two RMBE sizes (5 + value),
// send buffer (1 + 64 x value), window and increase percentages, faults.
Octets config(std::uint16_t own, std::uint16_t peer, std::uint8_t faults = 0, bool eyecatcher = true) {
  return {static_cast<std::uint8_t>(eyecatcher ? 0 : 1), static_cast<std::uint8_t>(own >> 8),
          static_cast<std::uint8_t>(own), static_cast<std::uint8_t>(peer >> 8), static_cast<std::uint8_t>(peer),
          0x20, 50, 10, faults};
}

constexpr std::uint8_t kB = 0x80;  // the operation is side B's
// Operations (code % 14), their arguments after them.
Octets send(std::uint8_t side, const Octets& data, bool big = false) {
  return cat({{side}, {static_cast<std::uint8_t>(data.size())}, data, {static_cast<std::uint8_t>(big)}});
}
Octets urgent(std::uint8_t side, const Octets& data) {
  return cat({{static_cast<std::uint8_t>(side | 1)}, {static_cast<std::uint8_t>(data.size())}, data, {0}});
}
Octets receive(std::uint8_t side, std::uint16_t n) {
  return {static_cast<std::uint8_t>(side | 2), static_cast<std::uint8_t>(n >> 8), static_cast<std::uint8_t>(n)};
}
Octets deliver_all(std::uint8_t side) { return {static_cast<std::uint8_t>(side | 4)}; }
Octets simple(std::uint8_t side, std::uint8_t code) { return {static_cast<std::uint8_t>(side | code)}; }

}  // namespace

namespace rdmaconf::corpus_gen {

void smcr_connection() {
  const std::uint16_t k16 = 16384 - 5;  // CLC's smallest RMBE
  // Figures 16/17: data one way, an answer the other, both closes.
  put("smcr_connection", "send_receive_close",
      cat({config(k16, k16), send(0, pattern(200, 1)), deliver_all(kB), receive(kB, 1000), send(kB, pattern(50, 9)),
           deliver_all(0), receive(0, 1000), simple(0, 6), deliver_all(kB), simple(kB, 6), deliver_all(0)}));
  // Figure 19: full windows, writer blocked, consumer updates, wraps.
  Octets window = config(k16, k16);
  for (int i = 0; i < 6; ++i)
    window = cat({window, send(0, pattern(255, static_cast<std::uint8_t>(i)), true), deliver_all(kB),
                  receive(kB, 9000), deliver_all(0)});
  put("smcr_connection", "window_blocked_wraps", window);
  // Figures 20/21: urgent data with the window open, then closed.
  put("smcr_connection", "urgent",
      cat({config(k16, k16), urgent(0, pattern(100, 3)), send(0, pattern(100, 4)), deliver_all(kB), receive(kB, 60000),
           deliver_all(0), deliver_all(kB), send(0, pattern(255, 5), true), urgent(0, pattern(20, 6)), deliver_all(kB),
           receive(kB, 60000), deliver_all(0), deliver_all(kB), receive(kB, 60000)}));
  // A tiny RMBE without eyecatcher (Linux's layout): many wraps.
  Octets tiny = config(59, 27, 0, false);
  for (int i = 0; i < 8; ++i)
    tiny = cat({tiny, send(0, pattern(200, static_cast<std::uint8_t>(i))), send(kB, pattern(90, 1)), deliver_all(kB),
                deliver_all(0), receive(kB, 150), receive(0, 150), deliver_all(0), deliver_all(kB)});
  put("smcr_connection", "tiny_rmbe_both_ways", tiny);
  // §4.8.1 half close and §4.8.2 abort, the close timer.
  put("smcr_connection", "shutdown_abort_timer",
      cat({config(k16, k16), simple(0, 5), deliver_all(kB), send(kB, pattern(30, 2)), simple(kB, 7), deliver_all(0),
           deliver_all(kB), simple(0, 8), simple(kB, 8)}));
  // Injected: a raw CDC message with a producer cursor beyond the RMBE, a
  // built one near the real cursors, a Write, a failover validation; and
  // side A's faults on (write past the window, repeated sequence numbers).
  smcr::CdcMessage m;
  using F = smcr::CdcSpec::Field;
  m.header.set(F::Type, smcr::kCdcType).set(F::Length, smcr::kCdcMessageSize).set(F::SequenceNumber, 1);
  m.header.set(F::AlertToken, 0x0A).set(F::ProducerCursor, 0x10000).set(F::ConsumerCursor, 4);
  const Octets raw(m.header.bytes().begin(), m.header.bytes().end());
  put("smcr_connection", "injected",
      cat({config(k16, k16), send(kB, pattern(40, 1)), deliver_all(0), {9}, raw, {10, 0x01, 0x00, 0x20, 0x00, 0x22},
           {11, 0x00, 0x2c, 0x00, 0x10}, {12, 0}, simple(0, 13)}));
  put("smcr_connection", "faults_on",
      cat({config(k16, k16, 0x09), send(0, pattern(255, 7), true), send(0, pattern(255, 8), true), deliver_all(kB),
           receive(kB, 60000), deliver_all(0), deliver_all(kB)}));
}

}  // namespace rdmaconf::corpus_gen
