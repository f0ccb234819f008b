// The MPA negotiation configuration and ULP decisions a stateful fuzz input
// starts with (mpa_negotiation, iwarp_session): 8 octets, so the fuzzer
// explores both roles, both revisions, every Marker/CRC preference,
// IRD/ORD, peer-to-peer RTR kinds and the responder's accept or reject.
#pragma once

#include <cstdint>
#include <vector>

#include "common/input.hpp"
#include "mpa/negotiation.hpp"

namespace rdmaconf::fuzz {

inline constexpr std::size_t kNegotiationInputSize = 8;

struct NegotiationInput {
  mpa::NegotiationConfig config;
  bool reject = false;              // responder: reject() instead of accept()
  bool accept_with_data = false;    // responder: accept(other private data)
  bool timer_expires = false;       // the timer fires once the input is used up
  std::uint8_t send_granularity = 0;  // output_sent() in pieces of this size (0: all)
};

inline NegotiationInput parse_negotiation(FuzzInput& in) {
  NegotiationInput n;
  const std::uint8_t a = in.u8();
  const std::uint8_t b = in.u8();
  const std::uint16_t ird = in.u16();
  const std::uint16_t ord = in.u16();
  const std::uint8_t c = in.u8();
  const std::uint8_t d = in.u8();
  mpa::NegotiationConfig& cfg = n.config;
  cfg.role = (a & 1) ? mpa::Role::kResponder : mpa::Role::kInitiator;
  cfg.revision = (a & 2) ? mpa::kRevision1 : mpa::kRevision2;
  cfg.accept_rev1 = (a & 4) == 0;
  cfg.accept_rev2 = (a & 8) == 0;
  cfg.want_markers = (a & 16) != 0;
  cfg.can_send_markers = (a & 32) == 0;
  cfg.want_crc = (a & 64) == 0;
  cfg.peer_to_peer = (a & 128) != 0;
  cfg.rtr = {(b & 1) != 0, (b & 2) != 0, (b & 4) != 0};
  cfg.allow_ord_reduction = (b & 8) == 0;
  cfg.check_reserved = (b & 16) == 0;
  cfg.private_data.assign(static_cast<std::size_t>(b >> 5) * 40, 0x5a);
  cfg.ird = static_cast<std::uint16_t>(ird & mpa::kMaxIrdOrd);
  cfg.ord = static_cast<std::uint16_t>(ord & mpa::kMaxIrdOrd);
  static constexpr mpa::RtrKind kKinds[] = {mpa::RtrKind::kZeroLengthWrite, mpa::RtrKind::kZeroLengthRead,
                                            mpa::RtrKind::kZeroLengthSend};
  cfg.rtr_preference[0] = kKinds[c % 3];
  cfg.rtr_preference[1] = kKinds[(c / 3) % 3];
  cfg.rtr_preference[2] = kKinds[(c / 9) % 3];
  n.reject = (c & 0x80) != 0;
  n.accept_with_data = (c & 0x40) != 0;
  n.timer_expires = (d & 1) != 0;
  n.send_granularity = static_cast<std::uint8_t>(d >> 1);
  return n;
}

}  // namespace rdmaconf::fuzz
