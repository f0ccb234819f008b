// The RoCEv2 side of SMC-R, observed: one RoceObserver per pair of RoCE
// peers (IP addresses), fed the UDP payload of every RoCEv2 packet between
// them with the side that sent it. It decodes the BTH and extended headers
// (reference/smcr/roce.hpp), tells RC retransmissions (a request PSN seen
// before on the same destination QP) from new packets, decodes every RC Send
// Only payload as an SMC-R LLC or CDC message (reference/smcr/messages.hpp),
// counts RDMA Writes, and answers with one Message (kind kRoce) per packet.
//
// Two link-group rules are checked so far, through the rule layer
// (reference/check/smcr.hpp): an LLC reply answers an open request of its
// type from the peer (judged once the link was seen from its CONFIRM LINK
// request, so that a capture starting mid-link raises nothing), and a CDC
// message's consumer cursor is not ahead of the producer cursor the peer last
// announced on the same connection (connections are known by the RMBE alert
// tokens their CLC Accept and Confirm carried: add_connection). A
// retransmitted packet is shown, never judged again. A Send whose payload is
// not SMC-R is shown with the reason, not judged. Standard library and
// rdmaconf_codec only, deterministic, like ConnectionObserver.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "check/smcr.hpp"

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
  // An SMC-R connection of this link group, by the RMBE alert token each
  // side assigned in CLC (the initiator's in its Confirm, the responder's in
  // its Accept, RFC 7609 App. A.2.3/A.2.4). A CDC message carries the token
  // of its receiver.
  void add_connection(std::uint32_t initiator_token, std::uint32_t responder_token);

  const RoceStats& stats() const { return stats_; }

 private:
  bool seen_before(Side side, std::uint32_t qp, std::uint32_t psn);
  void check_llc(Side side, FrameNo frame, const smcr::LlcMessage& m);
  void check_cdc(Side side, FrameNo frame, const smcr::CdcMessage& m);
  void violate(const check::Violation& v, Side side, FrameNo frame, std::string text);

  ObserverSink& sink_;
  RoceStats stats_;
  // Per side and destination QP: the highest request PSN seen (24-bit serial
  // arithmetic, IBTA vol. 1 §9.7.1), to recognise retransmissions.
  std::map<std::pair<int, std::uint32_t>, std::uint32_t> next_psn_;
  // LLC: requests not yet answered, per sending side and type octet; judged
  // from the link's CONFIRM LINK request on.
  bool llc_from_start_ = false;
  bool llc_seen_ = false;
  std::map<std::pair<int, std::uint8_t>, std::uint32_t> open_requests_;
  // CDC: per connection, the token each side assigned and the last producer
  // cursor each side announced.
  struct CdcConnection {
    std::uint32_t token[2] = {0, 0};  // assigned by initiator, responder
    std::optional<smcr::Cursor> producer[2];
  };
  std::vector<CdcConnection> connections_;
};

}  // namespace rdmaconf::analysis
