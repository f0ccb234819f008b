// The passive capture observer (pcap/analysis/observer.hpp): the reference
// stack watching both peers of one TCP connection, fed each direction's
// octets in order. What it sees comes from untrusted captures.
//
// Input: octet 0 = SYN flags (bit 0/1: initiator SYN seen / with the SMC
// option, bit 2/3: the same for the responder, bit 4/5: a side starts
// mid-stream, bit 6: FPDU messages not reported, bit 7: a small buffer
// limit), then events, each one octet: bit 7 the side, bits 0-1 = 3 a gap
// of the next octet's value + 1 octets, otherwise data: the next octet's
// value + 1 octets follow. Properties:
//  - nothing faults, and every violation names a rule;
//  - the observer's promise: the same octets in other pieces give the same
//    answers. The events are replayed with every data event split into
//    single octets, and the messages (kind, side, offset, size), the
//    violations (rule, side, offset) and what the ULP side saw (the ULP
//    recognised and how, messages, operations, chunks, STags, transfers
//    tied) must be the same;
//  - the ULP side's ties never exceed what they count (tied Reads, Writes
//    and Invalidates at most those seen; Writes per chunk kind at most the
//    tied ones; replies matched at most the messages decoded).
#include <cstdint>
#include <tuple>
#include <vector>

#include "analysis/observer.hpp"
#include "common/input.hpp"
#include "common/observer_events.hpp"

using namespace rdmaconf;

namespace {

struct Transcript : analysis::ObserverSink {
  std::vector<std::uint64_t> ulp;  // UlpStats, flattened
  std::vector<std::tuple<int, int, std::uint64_t, std::size_t>> messages;
  std::vector<std::tuple<const analysis::Rule*, int, std::uint64_t>> violations;
  void on_message(const analysis::Message& m) override {
    messages.emplace_back(static_cast<int>(m.kind), static_cast<int>(m.side), m.stream_offset, m.octets);
  }
  void on_violation(const analysis::Violation& v) override {
    FUZZ_CHECK(v.rule != nullptr && !v.rule->id.empty());
    violations.emplace_back(v.rule, static_cast<int>(v.side), v.stream_offset);
  }
};

Transcript observe(fuzz::Bytes input, bool split) {
  fuzz::FuzzInput in(input);
  const std::uint8_t flags = in.u8();
  Transcript t;
  analysis::ObserverConfig config;
  config.report_fpdus = (flags & 0x40) == 0;
  if (flags & 0x80) config.max_buffer = 1024;
  analysis::ConnectionObserver obs(t, config);
  using S = analysis::Side;
  if (flags & 1) obs.on_syn(S::kInitiator, (flags & 2) != 0);
  if (flags & 4) obs.on_syn(S::kResponder, (flags & 8) != 0);
  if (flags & 16) obs.on_mid_stream(S::kInitiator);
  if (flags & 32) obs.on_mid_stream(S::kResponder);
  fuzz::feed_events(in, obs, split);
  (void)analysis::name(obs.protocol());
  const analysis::UlpStats& u = obs.ulp();
  const analysis::UlpTransfers& x = u.transfers;
  FUZZ_CHECK(x.reads_tied <= x.reads && x.writes_tied <= x.writes && x.invalidations_tied <= x.invalidations);
  FUZZ_CHECK(x.writes_to_write_chunks + x.writes_to_reply_chunks <= x.writes_tied);
  std::uint64_t decoded = 0;
  for (const auto& [name, n] : u.messages) decoded += n;
  FUZZ_CHECK(x.replies_matched <= decoded);
  t.ulp = {static_cast<std::uint64_t>(u.ulp), static_cast<std::uint64_t>(u.source), u.read_segments, u.write_chunks,
           u.reply_chunks, u.write_stags, u.read_stags, u.undecoded, x.reads, x.read_octets, x.reads_tied, x.writes,
           x.write_octets, x.writes_tied, x.writes_to_write_chunks, x.writes_to_reply_chunks, x.invalidations,
           x.invalidations_tied, x.replies_matched, decoded, u.messages.size(), u.operations.size()};
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::Bytes input(data, size);
  const Transcript whole = observe(input, false);
  const Transcript octets = observe(input, true);
  FUZZ_CHECK(whole.messages == octets.messages);
  FUZZ_CHECK(whole.violations == octets.violations);
  FUZZ_CHECK(whole.ulp == octets.ulp);
  return 0;
}
