// The RoCEv2 side of SMC-R, observed: one RoceObserver per link group, first
// per pair of RoCE peers (IP addresses), fed the UDP payload of every RoCEv2
// packet between them with the side that sent it; the analyzer adds the
// address pairs of the further links an accepted ADD LINK names
// (added_links). It decodes the BTH and extended headers
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
// The link lifecycle (RFC 7609 §3.5.1.5-3.5.1.6, §3.5.5, App. A.3), one
// state machine per link (check::LinkState): the CLC link is confirmed by
// CONFIRM LINK; ADD LINK offers a link (its sender's QP, GID, MAC and link
// number), the accepting reply gives the peer's, the CONFIRM LINK exchange
// on the new link's QPs brings it up; DELETE LINK (one link, or all with A)
// ends it once answered. RMB rkeys per owner and link: from CLC for the link
// the Accept/Confirm names, ADD LINK CONTINUATION and ADD LINK v2 RTokens for
// a new link (each mapped to the RMB through its reference rkey), CONFIRM
// RKEY and its continuation for a new RMB on every link, DELETE RKEY (once
// answered positively) removing the RMB from every link. LLC requests are
// open per requester, link and type; a reply answers the oldest open one on
// its link (§3.3). A link is known by its QPs: a packet's destination QP
// names it; one first seen mid-life is kUnknown and its lifecycle unjudged.
//
// The link-group rules, all through the rule layer (reference/check/smcr.hpp):
//  - LLC: a reply answers an open request of its type from the peer on its
//    link; a TEST LINK reply echoes the request's User Data; an accepting
//    ADD LINK reply names the link number offered (judged on links whose
//    life the capture holds from the start);
//  - data (CDC, RDMA Write) only on a link whose CONFIRM LINK exchange
//    completed and whose DELETE LINK exchange did not (reported once per
//    link, side and state);
//  - CDC, per connection known from CLC (a CDC message carries its
//    receiver's token): consumer cursor not ahead of the peer's producer
//    cursor; both cursors inside the RMBE sizes from CLC; sequence numbers
//    1, 2, 3 ...; urgent present only with urgent pending; no Write and no
//    producer advance after D, C or A; no CDC message after C or A;
//  - CLC (add_connection): an RMBE a side names for a new connection is
//    none a connection of the group that neither side closed still has;
//  - RDMA Writes through an rkey announced for their link and not deleted
//    (reported once per rkey; "never announced" judged only when the CLC of
//    the first link came before its LLC), inside a connection's RMBE of the
//    RMB the rkey maps to (on any link), starting at the sender's producer
//    cursor, and the next CDC message announces where they ended.
// What depends on seeing every message of a connection (sequence numbers,
// cursors against each other, Writes against cursors, the close) is not
// judged across a PSN gap of the sender (packets the capture missed: a
// request PSN that skips ahead, or an ACK for a PSN not seen), nor before the
// connection's CLC exchange. A retransmitted packet is shown, never judged
// again. A Send whose payload is not SMC-R is shown with the reason, not
// judged. Standard library and rdmaconf_codec only, deterministic, like
// ConnectionObserver.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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
  // The link it flows on (its destination QP names it) and that link's
  // state before this packet (RFC 7609 §3.5.1.5, §3.5.5.1).
  std::size_t link = 0;
  std::uint8_t link_number = 0;                 // 0 until CONFIRM LINK or ADD LINK named it
  check::LinkState link_state = check::LinkState::kUnknown;
};

struct RoceStats {
  std::uint64_t packets = 0;
  std::uint64_t retransmissions = 0;
  std::uint64_t undecoded = 0;        // packets whose headers did not fit, Sends that are not SMC-R
  std::uint64_t cdc_messages = 0;     // new ones (retransmissions not counted)
  std::uint64_t rdma_writes = 0;      // new RDMA Write messages (First or Only)
  std::uint64_t psn_gaps = 0;         // request PSNs that skipped ahead or ACKed unseen: packets the capture missed
  std::array<std::uint64_t, 256> opcodes{};  // every packet, per BTH OpCode
  // New LLC messages per name, "CONFIRM LINK v2 request", ...
  std::map<std::string, std::uint64_t> llc_messages;
  // The link lifecycle as the LLC messages told it (new messages only).
  std::uint64_t links_confirmed = 0;    // CONFIRM LINK exchanges completed
  std::uint64_t links_added = 0;        // ADD LINK requests accepted
  std::uint64_t links_rejected = 0;     // ADD LINK requests rejected (Z)
  std::uint64_t links_deleted = 0;      // links whose DELETE LINK exchange completed
  std::uint64_t rkeys_announced = 0;    // (owner, link, rkey) learnt from CLC and LLC
  std::uint64_t rkeys_confirmed = 0;    // CONFIRM RKEY exchanges answered positively
  std::uint64_t rkeys_deleted = 0;      // rkeys removed by DELETE RKEY exchanges answered positively
  std::uint64_t llc_pairs = 0;          // replies that answered an open request on their link
  std::uint64_t test_link_pairs = 0;    // of which TEST LINK
};

// What one side announced about its end of an SMC-R connection in its CLC
// Accept (server) or Confirm (client), RFC 7609 App. A.2.3/A.2.4.
struct ClcRmbe {
  std::uint32_t alert_token = 0;
  std::uint32_t qp_number = 0;
  std::array<std::uint8_t, 16> gid{};
  std::uint64_t mac = 0;             // the RNIC's MAC, 48 bits
  std::uint32_t rmb_rkey = 0;
  std::uint64_t rmb_virtual_address = 0;
  std::uint8_t rmbe_index = 1;       // first is 1
  std::uint64_t rmbe_size = 0;       // octets (uncompressed)
  FrameNo frame = 0;                 // the Accept's or Confirm's (0: not known)

  static ClcRmbe from(const clc::SmcrBody& b);
  // §4.2: the RMB is cut into equal elements; element `index` starts here.
  std::uint64_t rmbe_start() const {
    return rmb_virtual_address + (rmbe_index > 0 ? rmbe_index - 1u : 0u) * rmbe_size;
  }
};

class RoceObserver {
 public:
  explicit RoceObserver(ObserverSink& sink) : sink_(sink) {}

  // One RoCEv2 UDP payload that `side` sent, from frame `frame`, to the
  // GID `receiver` (its IP destination: a RoCEv2 GID is the address, an
  // IPv4 one mapped, IBTA vol. 1 Annex A17) when the caller knows it.
  // A link is its receiver's QP on its receiver's GID: QP numbers are each
  // RNIC's own, so the two links of a group with a second RNIC per host
  // (§2.2) may share them (rxe numbers every device's QPs from 0x11).
  void on_packet(Side side, FrameNo frame, wire::Bytes udp_payload,
                 const std::optional<std::array<std::uint8_t, 16>>& receiver = std::nullopt);
  // An SMC-R connection of this link group: what the link's initiator and
  // responder each announced in CLC. A CDC message carries the token of its
  // receiver; Writes go to the receiver's RMBE through its QP. An RMBE a
  // side names while another connection of the group still holds it breaks
  // check::rmbe_reuse_after_close (RFC 7609 §4.4.2); only a connection
  // neither side closed (C or A) counts as holding it here, since a close
  // timer that gave up waiting (§4.8.1) ends a connection off this link.
  void add_connection(const ClcRmbe& initiator, const ClcRmbe& responder);

  const RoceStats& stats() const { return stats_; }

  // Whether `side` ended its writing on an SMC-R connection (sent a CDC
  // message with PeerDoneWriting, PeerConnectionClosed or PeerConnAbort, RFC
  // 7609 §4.8.1) so far; the
  // connection named by the alert tokens its initiator and responder
  // announced in CLC. Nothing when the capture cannot settle it: none of the
  // connection's CDC messages seen, or request packets missed (a PSN gap).
  std::optional<bool> done_writing(std::uint32_t initiator_token, std::uint32_t responder_token, Side side) const;

  // What the last on_packet learnt after its Message went out (the plugin
  // shows it beside the message): the request an LLC reply answered on its
  // link, and where an RDMA Write's rkey was announced for its link.
  struct PacketNotes {
    FrameNo request_in = 0;           // an LLC reply: its request's frame
    bool rkey_announced = false;      // an RDMA Write through an announced, live rkey
    FrameNo rkey_announced_in = 0;    // ... in this frame (0: CLC, whose frame the observer is not told)
    std::string_view rkey_announced_by;  // "CLC", "CONFIRM RKEY", "ADD LINK RTokens"
  };
  const PacketNotes& notes() const { return notes_; }

  // A link an accepting ADD LINK reply just completed the offer of: both
  // sides' GIDs (initiator, responder; RFC 7609 §3.5.1.6.1, App. A.3.2). Its
  // packets may flow between other addresses than this observer's pair (a
  // second RoCE device per host); the analyzer routes them here. Emptied by
  // each on_packet; at most one per packet.
  struct AddedLink {
    std::array<std::uint8_t, 16> gid[2]{};
  };
  const std::vector<AddedLink>& added_links() const { return added_links_; }

 private:
  struct CdcConnection;
  // One link of the group: each side's QP, GID and MAC, where it is in its life.
  struct Link {
    std::uint8_t number = 0;  // 0 until CONFIRM LINK or ADD LINK names it
    std::optional<std::uint32_t> qp[2];
    std::array<std::uint8_t, 16> gid[2]{};
    // Each side's end as it announced it in CLC or ADD LINK (its CONFIRM
    // LINK must name the same, RFC 7609 §3.5.1.5); nothing before that.
    std::optional<check::LinkEnd> announced[2];
    FrameNo announced_in[2] = {0, 0};  // the ADD LINK's frame (0: CLC)
    check::LinkState state = check::LinkState::kUnknown;
    bool judged = false;         // its life is in the capture from the start
    bool traffic = false;        // a packet flowed on it
    bool reported[2] = {false, false};  // data in a wrong state, per sending side
  };
  // An RMB's rkey on one link, as its owner announced it.
  struct Rkey {
    int owner = 0;
    std::size_t link = 0;
    std::uint32_t rkey = 0;
    std::uint64_t va = 0;        // the RMB's address on that link
    std::size_t rmb = 0;         // which RMB: the same on every link
    bool deleted = false;
    bool reported = false;       // a Write through it was reported
    FrameNo announced_in = 0;
    std::string_view announced_by;  // "CLC", "CONFIRM RKEY", "ADD LINK RTokens"
  };
  // An LLC request no reply answered yet.
  struct OpenRequest {
    int side = 0;
    std::size_t link = 0;
    std::uint8_t type = 0;
    FrameNo frame = 0;
    std::array<std::uint8_t, 16> user_data{};  // TEST LINK
    std::uint8_t link_number = 0;               // ADD LINK, DELETE LINK
    bool all = false;                           // DELETE LINK with A
    std::size_t new_link = SIZE_MAX;            // ADD LINK: the link offered
    std::vector<std::size_t> rkeys;             // CONFIRM RKEY: announced; DELETE RKEY: to delete
  };

  bool seen_before(Side side, std::size_t link, std::uint32_t psn);
  void on_ack(Side side, const smcr::RocePacket& p, const std::optional<std::array<std::uint8_t, 16>>& receiver);
  void gap(int side);
  // The link whose `receiver_side` end is QP `qp` on GID `receiver` (any GID
  // when unknown, on either part), the latest first; links_.size() if none.
  std::size_t find_link(int receiver_side, std::uint32_t qp, const std::optional<std::array<std::uint8_t, 16>>& receiver) const;
  // find_link for a packet `side` sent, or a link learnt from it.
  std::size_t link_of(int side, std::uint32_t dest_qp, const std::optional<std::array<std::uint8_t, 16>>& receiver);
  std::size_t link_numbered(std::uint8_t number) const;
  std::size_t announce_rkey(int owner, std::size_t link, std::uint32_t rkey, std::uint64_t va,
                            std::optional<std::size_t> rmb, FrameNo frame, std::string_view by);
  const Rkey* find_rkey(int owner, std::size_t link, std::uint32_t rkey) const;
  void check_llc(Side side, FrameNo frame, std::size_t link, const smcr::LlcMessage& m);
  void on_llc_request(int s, FrameNo frame, std::size_t link, const smcr::LlcMessage& m, OpenRequest& r);
  void announce_rtokens(int s, FrameNo frame, std::size_t link, std::size_t new_link, const smcr::LlcMessage& m);
  void on_llc_reply(int s, FrameNo frame, std::size_t link, const smcr::LlcMessage& m, const OpenRequest& r);
  void check_data_link(Side side, FrameNo frame, std::size_t link, bool write);
  void check_cdc(Side side, FrameNo frame, const smcr::CdcMessage& m);
  void check_write(Side side, FrameNo frame, std::size_t link, const smcr::RocePacket& p);
  void violate(const check::Violation& v, Side side, FrameNo frame, std::string text);
  void judge_rmbe_reuse(const CdcConnection& c);
  static check::RmbeName rmbe_name(const ClcRmbe& r);
  smcr::Cursor advance(const CdcConnection& c, int writer, smcr::Cursor at, std::uint64_t octets) const;

  ObserverSink& sink_;
  RoceStats stats_;
  PacketNotes notes_;
  std::vector<AddedLink> added_links_;
  // Per sending side and link (its receiver's QP): the next request PSN
  // expected (24-bit serial arithmetic, IBTA vol. 1 §9.7.1), to recognise
  // retransmissions and gaps.
  std::map<std::pair<int, std::size_t>, std::uint32_t> next_psn_;
  // Bounds on what a peer's packets make the observer remember (each packet
  // to an unknown QP is a link, each announcement an rkey, each request open
  // until answered): past them the oldest request is forgotten, no link or
  // rkey is learnt and what depends on them is not judged.
  static constexpr std::size_t kMaxLinks = 256, kMaxRkeys = 4096, kMaxOpenRequests = 1024;
  bool overflow_ = false;                     // a bound was reached: unannounced rkeys are not judged
  std::vector<Link> links_;
  std::vector<Rkey> rkeys_;
  std::size_t rmbs_ = 0;                      // RMBs numbered so far
  std::vector<OpenRequest> open_requests_;    // oldest first
  bool packets_seen_ = false;                 // a RoCE packet flowed
  bool clc_first_ = false;                    // a CLC link was known before the first packet
  std::vector<std::pair<int, std::uint32_t>> unknown_rkeys_reported_;
  std::optional<std::size_t> last_confirm_rkey_rmb_[2];  // for CONFIRM RKEY CONTINUATION
  // CONFIRM LINK's flags say whether RMBEs begin with a 4-octet eyecatcher
  // (A.4: cursors start and wrap at 4; Linux: none, they start at 0).
  std::optional<std::uint32_t> data_start_;
  // Per connection: what each side announced in CLC and what it said since.
  struct CdcConnection {
    ClcRmbe rmbe[2];                            // announced by initiator, responder
    std::size_t rmb[2] = {0, 0};                // which RMB each side's element is in
    std::optional<smcr::Cursor> producer[2];    // last producer cursor each side announced
    std::optional<std::uint16_t> sequence[2];   // last sequence number each side sent
    std::optional<smcr::Cursor> written_to[2];  // where each side's data in the peer's RMBE ends
    bool cdc_seen[2] = {false, false};          // each side sent a CDC message since CLC
    bool resync[2] = {false, false};            // a PSN gap since: the next sequence number starts afresh
    bool done[2] = {false, false};              // sent D, C or A
    bool closed[2] = {false, false};            // sent C or A
    std::optional<smcr::Cursor> final_producer[2];  // announced with or after D
  };
  std::vector<CdcConnection> connections_;
};

}  // namespace rdmaconf::analysis
