// The event layout of the targets that feed a capture observer one TCP
// connection (capture_observer, ulp_tracker): after the target's own first
// octet, events of one octet each: bit 7 the side, bits 0-1 = 3 a gap of the
// next octet's value + 1 octets, otherwise data: the next octet's value + 1
// octets follow. Frames count from 1, one per event.
#pragma once

#include <cstddef>
#include <cstdint>

#include "analysis/observer.hpp"
#include "common/input.hpp"

namespace rdmaconf::fuzz {

// Feeds every event to `obs`, each data event whole or (`split`) in single
// octets, then ends both sides.
inline void feed_events(FuzzInput& in, analysis::ConnectionObserver& obs, bool split = false) {
  using S = analysis::Side;
  analysis::FrameNo frame = 0;
  while (!in.empty()) {
    const std::uint8_t e = in.u8();
    const S side = (e & 0x80) ? S::kResponder : S::kInitiator;
    ++frame;
    if ((e & 3) == 3) {
      obs.on_gap(side, std::uint64_t{in.u8()} + 1, frame);
      continue;
    }
    const Bytes data = in.take(std::size_t{in.u8()} + 1);
    if (!split) {
      obs.on_data(side, frame, data);
    } else {
      for (std::size_t i = 0; i < data.size(); ++i) obs.on_data(side, frame, data.subspan(i, 1));
    }
  }
  obs.on_end(S::kInitiator);
  obs.on_end(S::kResponder);
}

}  // namespace rdmaconf::fuzz
