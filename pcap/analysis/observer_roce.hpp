// The RoCEv2 side of SMC-R, observed: one RoceObserver per pair of RoCE
// peers (IP addresses), fed the UDP payload of every RoCEv2 packet between
// them with the side that sent it. It decodes the BTH and extended headers
// (reference/smcr/roce.hpp), tells RC retransmissions (a request PSN seen
// before on the same destination QP) from new packets, decodes every RC Send
// Only payload as an SMC-R LLC or CDC message (reference/smcr/messages.hpp),
// counts RDMA Writes, and answers with one Message (kind kRoce) per packet.
//
// This is the decoding half of the link-group observer: it reports no
// violation yet (the link-group rules of RFC 7609 §3-§4, request/response
// pairing and the cursors, are to be added as registry rows). A Send whose
// payload is not SMC-R is shown with the reason, not judged. Standard library
// and rdmaconf_codec only, deterministic, like ConnectionObserver.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "analysis/observer.hpp"
#include "smcr/messages.hpp"
#include "smcr/roce.hpp"

namespace rdmaconf::analysis {

// One RoCEv2 packet, decoded. Pointers are valid during the callback only.
struct RoceInfo {
  const smcr::RocePacket* packet = nullptr;
  const smcr::SmcrMessage* smcr = nullptr;      // an RC Send Only whose payload is LLC or CDC
  const wire::DecodeError* error = nullptr;     // the packet, or the Send's payload, did not decode
  bool retransmission = false;                  // same PSN as an earlier request on this QP
};

struct RoceStats {
  std::uint64_t packets = 0;
  std::uint64_t retransmissions = 0;
  std::uint64_t undecoded = 0;        // packets whose headers did not fit, Sends that are not SMC-R
  std::uint64_t cdc_messages = 0;     // new ones (retransmissions not counted)
  std::uint64_t rdma_writes = 0;      // new RDMA Write messages (First or Only)
  std::array<std::uint64_t, 256> opcodes{};  // every packet, per BTH OpCode
  // New LLC messages per name, "CONFIRM LINK v2 request", ...
  std::map<std::string, std::uint64_t> llc_messages;
};

class RoceObserver {
 public:
  explicit RoceObserver(ObserverSink& sink) : sink_(sink) {}

  // One RoCEv2 UDP payload that `side` sent, from frame `frame`.
  void on_packet(Side side, FrameNo frame, wire::Bytes udp_payload);

  const RoceStats& stats() const { return stats_; }

 private:
  bool seen_before(Side side, std::uint32_t qp, std::uint32_t psn);

  ObserverSink& sink_;
  RoceStats stats_;
  // Per side and destination QP: the highest request PSN seen (24-bit serial
  // arithmetic, IBTA vol. 1 §9.7.1), to recognise retransmissions.
  std::map<std::pair<int, std::uint32_t>, std::uint32_t> next_psn_;
};

}  // namespace rdmaconf::analysis
