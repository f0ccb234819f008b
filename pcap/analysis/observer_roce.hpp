// The RoCEv2 side of SMC-R, observed: one RoceObserver per pair of RoCE
// peers (IP addresses), fed the UDP payload of every RoCEv2 packet between
// them with the side that sent it. It decodes the BTH and extended headers
// (reference/smcr/roce.hpp), tells RC retransmissions (a request PSN seen
// before on the same destination QP) from new packets, decodes every RC Send
// Only payload as an SMC-R LLC or CDC message (reference/smcr/messages.hpp),
// follows RDMA Writes, and answers with one Message (kind kRoce) per packet.
//
// The link group is tied to the CLC exchanges that set it up
// (add_connection): per SMC-R connection, what each side announced in its
// Accept or Confirm (RFC 7609 App. A.2.3/A.2.4): RMBE alert token, QP number,
// RMB rkey and virtual address, RMBE index and size. The analyzer finds the
// pair of RoCE peers from the GIDs there (pcap/analysis/analyzer.cpp).
//
// The link-group rules, all through the rule layer (reference/check/smcr.hpp):
//  - LLC: a reply answers an open request of its type from the peer (judged
//    once the link was seen from its CONFIRM LINK request, so that a capture
//    starting mid-link raises nothing);
//  - CDC, per connection known from CLC (a CDC message carries its
//    receiver's token): consumer cursor not ahead of the peer's producer
//    cursor; both cursors inside the RMBE sizes from CLC; sequence numbers
//    1, 2, 3 ...; urgent present only with urgent pending; no Write and no
//    producer advance after D, C or A; no CDC message after C or A;
//  - RDMA Writes on the CLC link's QPs through an RMB rkey from CLC: inside a
//    connection's RMBE, starting at the sender's producer cursor, and the
//    next CDC message announces where they ended.
// What depends on seeing every message of a connection (sequence numbers,
// Writes against cursors, the close) is not judged across a PSN gap of the
// sender (packets the capture missed), nor once an ADD LINK was accepted
// (a second link may carry the connection's traffic elsewhere), nor before
// the connection's CLC exchange. A Write through an rkey CLC did not
// announce (exchanged by LLC for another link) is shown, not judged. A
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
#include "clc/messages.hpp"
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
  std::uint64_t psn_gaps = 0;         // request PSNs that skipped ahead: packets the capture missed
  std::array<std::uint64_t, 256> opcodes{};  // every packet, per BTH OpCode
  // New LLC messages per name, "CONFIRM LINK v2 request", ...
  std::map<std::string, std::uint64_t> llc_messages;
};

// What one side announced about its end of an SMC-R connection in its CLC
// Accept (server) or Confirm (client), RFC 7609 App. A.2.3/A.2.4.
struct ClcRmbe {
  std::uint32_t alert_token = 0;
  std::uint32_t qp_number = 0;
  std::array<std::uint8_t, 16> gid{};
  std::uint32_t rmb_rkey = 0;
  std::uint64_t rmb_virtual_address = 0;
  std::uint8_t rmbe_index = 1;       // first is 1
  std::uint64_t rmbe_size = 0;       // octets (uncompressed)

  static ClcRmbe from(const clc::SmcrBody& b);
  // §4.2: the RMB is cut into equal elements; element `index` starts here.
  std::uint64_t rmbe_start() const {
    return rmb_virtual_address + (rmbe_index > 0 ? rmbe_index - 1u : 0u) * rmbe_size;
  }
};

class RoceObserver {
 public:
  explicit RoceObserver(ObserverSink& sink) : sink_(sink) {}

  // One RoCEv2 UDP payload that `side` sent, from frame `frame`.
  void on_packet(Side side, FrameNo frame, wire::Bytes udp_payload);
  // An SMC-R connection of this link group: what the link's initiator and
  // responder each announced in CLC. A CDC message carries the token of its
  // receiver; Writes go to the receiver's RMBE through its QP.
  void add_connection(const ClcRmbe& initiator, const ClcRmbe& responder);

  const RoceStats& stats() const { return stats_; }

 private:
  struct CdcConnection;
  bool seen_before(Side side, std::uint32_t qp, std::uint32_t psn);
  void check_llc(Side side, FrameNo frame, const smcr::LlcMessage& m);
  void check_cdc(Side side, FrameNo frame, const smcr::CdcMessage& m);
  void check_write(Side side, FrameNo frame, const smcr::RocePacket& p);
  void violate(const check::Violation& v, Side side, FrameNo frame, std::string text);
  smcr::Cursor advance(const CdcConnection& c, int writer, smcr::Cursor at, std::uint64_t octets) const;

  ObserverSink& sink_;
  RoceStats stats_;
  // Per side and destination QP: the next request PSN expected (24-bit serial
  // arithmetic, IBTA vol. 1 §9.7.1), to recognise retransmissions and gaps.
  std::map<std::pair<int, std::uint32_t>, std::uint32_t> next_psn_;
  // LLC: requests not yet answered, per sending side and type octet; judged
  // from the link's CONFIRM LINK request on.
  bool llc_from_start_ = false;
  bool llc_seen_ = false;
  std::map<std::pair<int, std::uint8_t>, std::uint32_t> open_requests_;
  // CONFIRM LINK's flags say whether RMBEs begin with a 4-octet eyecatcher
  // (A.4: cursors start and wrap at 4; Linux: none, they start at 0).
  std::optional<std::uint32_t> data_start_;
  bool second_link_ = false;  // an ADD LINK was accepted
  // Per connection: what each side announced in CLC and what it said since.
  struct CdcConnection {
    ClcRmbe rmbe[2];                            // announced by initiator, responder
    std::optional<smcr::Cursor> producer[2];    // last producer cursor each side announced
    std::optional<std::uint16_t> sequence[2];   // last sequence number each side sent
    std::optional<smcr::Cursor> written_to[2];  // where each side's data in the peer's RMBE ends
    bool done[2] = {false, false};              // sent D, C or A
    bool closed[2] = {false, false};            // sent C or A
    std::optional<smcr::Cursor> final_producer[2];  // announced with or after D
  };
  std::vector<CdcConnection> connections_;
};

}  // namespace rdmaconf::analysis
