// The SMC-R link-group rules (RFC 7609 App. A.3 and A.4, §4.2-4.8) that the
// capture observer checks, one function each, in the style of segment.hpp:
// each takes a decoded message (reference/smcr/messages.hpp) or the numbers
// it carries and the least state it needs, and returns a Violation or
// nothing. Standard library and the codec headers only.
//
// Strength, reviewed against the text (docs/requirements.md says the same).
// RFC 7609 is informational: its requirements are lower-case "must" and
// definitions of what a field or message says. The registry grades every
// RFC 7609 row "must" (conformance/requirements/rfc7609.cpp); a rule here is
// kMust when a lower-case "must" states it, or when a definition makes the
// message that breaks it say something false about the sender's own buffer
// or link (the receiver then loses or misplaces data), and kShould when only
// the RFC's example flows show it:
//  - reply-answers-request: §3.3 "must" (a response flows on its request's
//    link) and A.3's request/response format;
//  - data-on-confirmed-link: §3.5.1.5 "must" (confirm before use),
//    §3.5.1.6.2, §3.5.5.1.3;
//  - write-through-announced-rkey: §3.5.5.2 "must" (RTokens exchanged, the
//    set kept in sync), §3.5.5.2.2;
//  - consumer-not-ahead, cursor-within-rmbe, producer-tracks-writes: A.4's
//    definitions of the cursors ("wrapping offset into the RMBE data area",
//    "next byte ... to be written", "next byte ... to be consumed") and
//    "cannot write beyond this cursor ... without causing data loss";
//  - sequence-number: A.4 defines the number (starts at 1, incremented with
//    every message but failover validation); §4.6.1 lets a failover raise
//    it beyond the last failed number, so it is not judged right after a
//    DELETE LINK (the observer resynchronises);
//  - write-inside-rmbe: §4.2/§4.4.1 and A.2.3's RMB element definition;
//  - no-writes-after-done, nothing-after-closed: A.4's D, C and A bits say
//    the sender "will no longer" write or send control messages;
//  - test-link-echo, add-link-link-number: A.3.8 and §3.5.1.6.1 define the
//    reply as echoing (a reply that does not is no answer);
//  - confirm-link-roce-info: §3.5.1.5 and A.3.1 define CONFIRM LINK as
//    carrying the sender's own MAC, GID and QP of the link (the peer echoes
//    its RoCE information back): other values say something false about the
//    sender's own link;
//  - urgent-present-pending: no sentence; U and P are defined apart and
//    only the flows of §4.7.5/§4.7.6 set and clear them together: kShould
//    (weaker than its registry row, like smcv2-decline-code-on-wire).
// A Violation's octet is counted from the start of the LLC or CDC message,
// or of the RETH for an RDMA Write.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "check/rule.hpp"
#include "check/segment.hpp"
#include "smcr/messages.hpp"

namespace rdmaconf::check {

// ---- registry rows (conformance/requirements/rfc7609.cpp)
// A.3: LLC messages are request/response pairs of one type; the R flag marks
// the response. §3.3: with several links a response flows over the link its
// request flowed over (the two exceptions §3.3 names are requests, not
// responses), so a request is open on its link. A response that answers no
// open request of its type from the peer on its link (none, or one already
// answered) is a protocol error (Linux drops it, smc_llc_rx_response).
inline constexpr const Rule& kLlcReplyAnswersRequest = rule<"rfc7609-3.3-reply-answers-request">;
// A.3.8: the TEST LINK reply echoes the request's User Data (stated as what
// the receiver does, no keyword; a reply that does not echo is no answer to
// that request, so it is judged as the MUST its definition makes it).
inline constexpr const Rule& kTestLinkEcho = rule<"rfc7609-a.3.8-test-link-echo">;
// §3.5.1.6.1, A.3.2: a client that accepts an ADD LINK echoes the link number
// the server assigned (a rejecting reply, Z set, carries only its reason).
inline constexpr const Rule& kAddLinkEchoesLinkNumber = rule<"rfc7609-3.5.1.6.1-add-link-link-number">;
// §3.5.1.5, A.3.1: CONFIRM LINK (request and reply) carries its sender's
// RoCE MAC, GID and QP number of the link it confirms: the ones the sender
// gave for that link before, in its CLC Accept (server) or Confirm (client)
// for the first link (App. A.2.3, A.2.4), in its ADD LINK request or reply
// for an added one (§3.5.1.6.1, A.3.2).
inline constexpr const Rule& kConfirmLinkRoceInfo = rule<"rfc7609-3.5.1.5-confirm-link-roce-info">;
// §3.5.1.5, §3.5.1.6.2: a new link's QPs have seen no RoCE flow until the
// CONFIRM LINK exchange proves the path; §3.5.5.1.3: once the DELETE LINK
// exchange for a link completed both sides free its resources and its TCP
// connections have moved to the surviving links. Data (CDC messages, RDMA
// Writes) flows on a link between the two.
inline constexpr const Rule& kDataOnConfirmedLink = rule<"rfc7609-3.5.1.5-data-on-confirmed-link">;
// §3.5.5.2, A.3.3, A.3.5-A.3.7: an RMB's RToken on a link reaches the peer in
// CLC (the first link), ADD LINK CONTINUATION (ADD LINK v2's RTokens) or
// CONFIRM RKEY (and its continuation); §3.5.5.2.2: after the DELETE RKEY
// exchange the owner frees the RMB. A Write through an rkey the owner did not
// announce for that link, or deleted since, writes into memory it never gave.
inline constexpr const Rule& kWriteThroughAnnouncedRkey = rule<"rfc7609-3.5.5.2-write-through-announced-rkey">;
// A.4: the consumer cursor names the next octet its sender will consume in its
// own RMBE; the producer cursor the peer announces names the next octet the
// peer will write there. Nothing is consumed before it was produced.
inline constexpr const Rule& kCdcConsumerNotAhead = rule<"rfc7609-a.4-consumer-not-ahead">;
// A.4, §4.3: both cursors are wrapping offsets into an RMBE's data area, whose
// size the RMBE's owner announced in CLC (App. A.2.3 Accept, A.2.4 Confirm,
// compressed as 2^(x+4) KiB): an offset is below that size.
inline constexpr const Rule& kCdcCursorWithinRmbe = rule<"rfc7609-a.4-cursor-within-rmbe">;
// A.4, §4.3: the sequence number starts at 1 and grows by one (wrapping) with
// every CDC message sent on the connection, a failover validation (F) message
// excepted; the receiver discards one that does not advance it.
inline constexpr const Rule& kCdcSequenceNumber = rule<"rfc7609-a.4-sequence-number">;
// §4.2, §4.4.1, A.2.3/A.2.4: the peer writes into the RMBE it was given: the
// element `index` (first is 1) of `size` octets of the RMB at the announced
// virtual address, through the RMB's rkey.
inline constexpr const Rule& kWriteInsideRmbe = rule<"rfc7609-4.4.1-write-inside-rmbe">;
// A.4: the producer cursor points to the next octet the sender will write
// into the receiver's RMBE: Writes start there and the next CDC message
// announces where they ended.
inline constexpr const Rule& kProducerCursorTracksWrites = rule<"rfc7609-a.4-producer-tracks-writes">;
// A.4, §4.7.5/4.7.6: urgent data present (U) says the urgent data is in the
// RMBE, urgent data pending (P) that the sender has urgent data; no sentence
// ties them, the RFC's flows set and clear the two together: a SHOULD.
inline constexpr const Rule& kUrgentPresentPending = rule<"rfc7609-a.4-urgent-present-pending">;
// A.4 (D, C, A), §4.8.1, §4.8.2: once a side said it is done writing
// (PeerDoneWriting), done with the connection (PeerConnectionClosed) or
// aborted it (PeerConnAbort), it writes no more data into the peer's RMBE.
inline constexpr const Rule& kNoWritesAfterDone = rule<"rfc7609-a.4-no-writes-after-done">;
// A.4 (C, A), §4.8.1 3.C, §4.8.2: PeerConnectionClosed and PeerConnAbort say
// the sender will send no more control messages for the connection.
inline constexpr const Rule& kNothingAfterClosed = rule<"rfc7609-a.4-nothing-after-closed">;

// §3.5.2.2, §4.4.2, §4.1: an RMBE (its RMB's RToken and the element index,
// as a CLC Accept or Confirm names them) belongs to one connection until
// both peers said they are done with it: C or A sent and received, or the
// close timer gave up waiting. A side names it for a new connection of the
// group only then; a peer shown one an open connection still holds aborts
// that connection (rfc7609-4.4.2-rmbe-conflict-aborts-old, whose reaction
// uses rmbe_holder to find it).
inline constexpr const Rule& kRmbeReuseAfterClose = rule<"rfc7609-4.4.2-rmbe-reuse-after-close">;

// `peer_requests_open`: requests of the message's type the peer sent that no
// reply answered yet. Only replies are judged.
Outcome llc_reply_answers_request(const smcr::LlcMessage& m, std::uint32_t peer_requests_open);

// `user_data_request`: the User Data of the open TEST LINK request the reply
// answers. Only TEST LINK replies are judged.
Outcome test_link_echo(const smcr::LlcMessage& m, wire::Bytes user_data_request);

// `offered`: the link number of the ADD LINK request the reply answers.
// Only accepting ADD LINK replies are judged.
Outcome add_link_link_number(const smcr::LlcMessage& m, std::uint8_t offered);

// One side's end of a link as that side announced it (CLC Accept or
// Confirm, ADD LINK request or reply): its RNIC's MAC (48 bits), GID and
// its QP number.
struct LinkEnd {
  std::uint64_t mac = 0;
  std::array<std::uint8_t, 16> gid{};
  std::uint32_t qp = 0;
};
// `announced`: the sender's end of the link the CONFIRM LINK flows on.
// Requests and replies are judged; other messages are not.
Outcome confirm_link_roce_info(const smcr::LlcMessage& m, const LinkEnd& announced);

// Where a link is in its life (§3.5.1.5, §3.5.1.6, §3.5.5.1), as far as a
// capture tells: kUnknown before its first LLC message (the CLC link until
// its CONFIRM LINK request) and for good on a link the capture joined
// mid-life, which is not judged.
enum class LinkState : std::uint8_t { kUnknown, kAdding, kConfirming, kUp, kDeleting, kDeleted };
std::string_view name(LinkState s);
// `write`: the data is an RDMA Write (else a CDC message).
Outcome data_on_confirmed_link(LinkState s, bool write);

// `announced`: the rkey was announced for this link; `deleted`: and deleted
// since, not announced again.
Outcome write_through_announced_rkey(bool announced, bool deleted, std::uint32_t rkey);

// `consumer`: from a CDC message one side sent; `peer_producer`: the latest
// producer cursor the other side announced for the same connection. Cursors
// compare by wrap count first (16-bit serial numbers: a count up to 2^15 - 1
// wraps ahead is ahead), then offset.
Outcome consumer_not_ahead(smcr::Cursor consumer, smcr::Cursor peer_producer);

// `receiver_rmbe_size`, `sender_rmbe_size`: octets, from CLC. `data_start`:
// the first data octet of both RMBEs, 4 behind the eyecatcher (§4.2, A.4),
// 0 when the link group announced SMC_LLC_FLAG_NO_RMBE_EYEC (Linux) or when
// the caller does not know (then only the upper bound is judged).
Outcome cursor_within_rmbe(const smcr::CdcMessage& m, std::uint64_t receiver_rmbe_size,
                           std::uint64_t sender_rmbe_size, std::uint32_t data_start = 0);

// `previous`: the sequence number of the sender's last CDC message on the
// connection, nothing when this is its first since CLC.
Outcome cdc_sequence_number(const smcr::CdcMessage& m, std::optional<std::uint16_t> previous);

// A Write of `length` octets at `virtual_address`, through the rkey of an
// RMB whose element starts at `rmbe_start` and is `rmbe_size` octets long.
Outcome write_inside_rmbe(std::uint64_t virtual_address, std::uint64_t length, std::uint64_t rmbe_start,
                          std::uint64_t rmbe_size);

// `written_to`: where the sender's data in the RMBE ends (its last producer
// cursor advanced by the Writes since). `seen`: a Write's start (the RMBE
// offset of its virtual address, wrap count of `written_to`) when `write`,
// else the producer cursor of its next CDC message.
Outcome producer_tracks_writes(smcr::Cursor written_to, smcr::Cursor seen, bool write);

Outcome urgent_present_pending(const smcr::CdcMessage& m);

// `done`: the sender already sent D, C or A on the connection. A Write
// (`write`) breaks the rule; so does a CDC message whose producer cursor
// `now` differs from the one it announced with or after that flag (`then`).
Outcome no_writes_after_done(bool done, bool write, smcr::Cursor then, smcr::Cursor now);

// `closed`: the sender already sent C or A on the connection.
Outcome nothing_after_closed(bool closed);

// An RMBE as a CLC Accept or Confirm names it (App. A.2.3/A.2.4): the
// RToken of its RMB on the link the message names, and the element (first
// is 1). The same RMB reached through another link's RToken is another name.
struct RmbeName {
  std::uint32_t rkey = 0;
  std::uint64_t virtual_address = 0;
  std::uint8_t index = 0;
  friend bool operator==(const RmbeName&, const RmbeName&) = default;
};
// A connection of the link group and the RMBE one side named for it;
// `ended`: both peers are done with it (§4.4.2).
struct RmbeHolder {
  RmbeName rmbe;
  bool ended = false;
};
// The first connection of `group` that still holds `named`, if any.
std::optional<std::size_t> rmbe_holder(const RmbeName& named, std::span<const RmbeHolder> group);
// A side names `named` for a new connection of `group` (the group's other
// connections, with the RMBEs the same side named for them).
Outcome rmbe_reuse_after_close(const RmbeName& named, std::span<const RmbeHolder> group);

std::span<const Implementation> smcr_implementations();
std::span<const Rule* const> smcr_rules();

}  // namespace rdmaconf::check
