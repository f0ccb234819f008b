// RDMA Write placement over loopback TCP between two reference endpoints
// (issue target: 64 KiB messages at >= 1 GB/s on the 2-core build machine).
//
// Each iteration posts a batch of RDMA Writes and then a Send behind them;
// RFC 5040 §5.5 orders the Send's delivery after the Writes' placement, so
// the responder's receive completion proves every written octet was placed
// in its registered memory (CRC generated and checked on both sides).
#include <benchmark/benchmark.h>

#include <future>
#include <numeric>

#include "endpoint/iwarp_endpoint.hpp"

namespace rdmaconf::endpoint {
namespace {

using namespace std::chrono_literals;

void BM_LoopbackRdmaWrite(benchmark::State& state) {
  const std::size_t message = static_cast<std::size_t>(state.range(0));
  const bool markers = state.range(1) != 0;
  constexpr int kBatch = 16;

  IwarpConfig cfg;
  cfg.mpa.want_markers = markers;
  // Loopback's MSS (MTU 65536): the EMSS of RFC 5044 §4.1 on this path.
  cfg.fpdu_budget = 65483;
  IwarpEndpoint initiator(cfg);
  IwarpEndpoint responder(cfg);

  std::vector<std::uint8_t> region(message * kBatch);
  const ddp::Stag stag = responder.register_memory(region, 0, ddp::Access::kRemoteWrite | ddp::Access::kLocalRead);
  std::vector<std::uint8_t> fence_rx(64);
  std::vector<std::uint8_t> payload(message);
  std::iota(payload.begin(), payload.end(), std::uint8_t{0});

  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  auto accepted = std::async(std::launch::async, [&] { return responder.accept(acceptor); });
  if (!initiator.connect(acceptor.local_endpoint()) || !accepted.get()) {
    state.SkipWithError(("connect failed: " + initiator.failure() + " / " + responder.failure()).c_str());
    return;
  }

  std::uint64_t wr = 0;
  for (auto _ : state) {
    responder.post_receive(++wr, fence_rx);
    for (int i = 0; i < kBatch; ++i)
      (void)initiator.post_write(++wr, payload, stag, static_cast<std::uint64_t>(i) * message);
    (void)initiator.post_send(++wr, wire::Bytes(payload).first(4));
    for (;;) {
      auto c = responder.wait_completion(10s);
      if (!c) {
        state.SkipWithError("no receive completion within 10 s");
        return;
      }
      if (c->type == rdmap::CompletionType::kReceive) break;
    }
    while (initiator.wait_completion(0ms)) {
    }
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kBatch * static_cast<std::int64_t>(message));
  state.counters["fpdus_per_message"] = static_cast<double>((message + 65013) / 65014);
  if (!std::equal(payload.begin(), payload.end(), region.begin())) state.SkipWithError("placed octets differ");
}

BENCHMARK(BM_LoopbackRdmaWrite)
    ->ArgNames({"message", "markers"})
    ->Args({64 * 1024, 0})
    ->Args({64 * 1024, 1})
    ->Args({4 * 1024, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rdmaconf::endpoint

BENCHMARK_MAIN();
