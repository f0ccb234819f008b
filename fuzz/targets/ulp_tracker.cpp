// The Wireshark plugin's ULP tracker (dissector/ulp_state.hpp) behind the
// capture observer: Sends put back together from their segments, the chunks
// and STags of the calls the observer opened, the RDMA Writes and Read
// Responses the observer tied to them, RPC messages rebuilt from chunk data,
// calls linked with their answers. What it sees comes from untrusted
// captures, through the plugin.
//
// Input: as capture_observer (octet 0 = SYN flags, then events: bit 7 the
// side, bits 0-1 = 3 a gap of the next octet's value + 1 octets, otherwise
// the next octet's value + 1 octets of data), except that bits 6-7 of
// octet 0 choose the ULP the user names (0: recognised, 1: RPC-over-RDMA,
// 2: iSER, 3: recognised). Properties:
//  - nothing faults (the sanitizers watch every copy and gather);
//  - what the tracker reports points into what it keeps: a tie's region is
//    the one the observer named, advertised in an earlier frame, its offset
//    lies in the region; a call's answer comes after it; a Send's RPC
//    message is no longer than the bound, a rebuilt message holds the octets
//    it says;
//  - the chunk data it holds never exceeds its bound.
#include <cstdint>

#include "analysis/observer.hpp"
#include "common/input.hpp"
#include "common/observer_events.hpp"
#include "ulp_state.hpp"

using namespace rdmaconf;

namespace {

struct Sink : analysis::ObserverSink {
  dissector::UlpTracker tracker;
  void on_message(const analysis::Message& m) override {
    if (m.kind != analysis::MessageKind::kFpdu || !m.segment || !m.segment->has_header) return;
    const dissector::UlpFindings f = tracker.on_segment(m, *m.segment);
    if (f.tie) {
      // The tie is the observer's (SegmentInfo::ulp_tie), to a region the
      // tracker kept under the same name.
      const dissector::Advert& a = *f.tie->advert;
      const auto& t = m.segment->ulp_tie;
      FUZZ_CHECK(t && t->call == a.named.call && t->place == a.named.place && t->region.stag == a.named.region.stag);
      FUZZ_CHECK(a.advertised_in <= m.frame);
      FUZZ_CHECK(f.tie->offset <= a.named.region.length);
    }
    if (f.send) {
      FUZZ_CHECK(f.send->payload.size() <= dissector::UlpTracker::kMaxMessage);
      FUZZ_CHECK(!f.send->rpc_here || f.send->note.empty());
      FUZZ_CHECK(f.send->call_frame <= m.frame);
    }
    if (f.completes) FUZZ_CHECK(f.completes->call != nullptr && f.completes->call_frame <= m.frame);
  }
  void on_violation(const analysis::Violation& v) override { FUZZ_CHECK(v.rule != nullptr); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::FuzzInput in(fuzz::Bytes(data, size));
  const std::uint8_t flags = in.u8();
  Sink sink;
  analysis::ObserverConfig config;
  const int ulp = flags >> 6;
  if (ulp == 1) config.ulp = analysis::Ulp::kRpcRdma;
  if (ulp == 2) config.ulp = analysis::Ulp::kIser;
  analysis::ConnectionObserver obs(sink, config);
  using S = analysis::Side;
  if (flags & 1) obs.on_syn(S::kInitiator, false);
  if (flags & 4) obs.on_syn(S::kResponder, false);
  if (flags & 16) obs.on_mid_stream(S::kInitiator);
  if (flags & 32) obs.on_mid_stream(S::kResponder);
  fuzz::feed_events(in, obs);
  return 0;
}
