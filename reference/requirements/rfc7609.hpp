// RFC 7609: IBM's Shared Memory Communications over RDMA (SMC-R), version 1:
// the SMC TCP option and the CLC handshake (Proposal, Accept, Confirm,
// Decline) with its error scenarios, then the link layer over RoCE that
// follows it: link groups and their LLC messages (§2, §3.3, §3.5, App. A.3,
// C.7, C.8), RMBEs and the CDC messages and RDMA Writes of a connection
// (§4, App. A.4).
//
// RFC 7609 is informational and uses no RFC 2119 keywords; its lower-case
// "must" rules are requirements here (Level::kLowerCaseMust). A row stated
// only as a definition or an example flow says so in its summary; one from
// an example flow alone, or a design point said without a keyword, is
// weighed as SHOULD.
//
// Checked against the RFC text: every sentence with a lower-case "must" is
// accounted for in trace_rfc7609.cpp. A tester that is the peer over RoCE
// sees the link layer (the LLC and CDC messages, the RDMA Writes into its
// RMB, the QPs, the TCP connection's end, the application through the
// agent), so only what stays inside one host is declared not observable:
// local configuration, buffer sizing, the host's own memory and scheduling.
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc7609 {

inline constexpr Level M = Level::kLowerCaseMust;

inline constexpr Requirement kRows[] = {
    // §3.1 / App. A.1 TCP option
    row("rfc7609-3.1-option-in-syn", M, W,
        "A client that wants SMC-R puts the SMC experimental TCP option in its SYN")
        .says("a client that speaks CLC sent the SMC option in its SYN"),
    row("rfc7609-3.1-option-in-synack", M, W,
        "A server that can do SMC-R answers a SYN carrying the option with the option in its SYN-ACK")
        .says("a server that speaks CLC echoed the SMC option of the SYN in its SYN-ACK"),
    row("rfc7609-3.1-both-or-tcp", M, W,
        "CLC messages are exchanged only when both SYN and SYN-ACK carried the option; otherwise the connection "
        "stays plain TCP")
        .says("CLC flows only after a SYN and a SYN-ACK that both carried the SMC option"),
    row("rfc7609-3.1-no-clc-without-option", M, P,
        "A server that did not send the option in its SYN-ACK treats the first octets as application data, never "
        "as a CLC Proposal")
        .says("a server whose SYN-ACK lacked the SMC option speaks no CLC"),
    row("rfc7609-a.1-option-kind", M, W, "The SMC option is TCP option kind 254 (experimental) with length 6")
        .says("an option with the SMC ExID is kind 254, 6 octets long"),
    row("rfc7609-a.1-option-exid", M, W,
        "The option's 4-octet experiment identifier is 0xE2D4C3D9 (\"SMCR\" in EBCDIC)")
        .says("a side that speaks CLC sent the SMC ExID 0xE2D4C3D9 in its SYN"),

    // §3.2 CLC messages
    row("rfc7609-3.2-client-proposal-first", M, W,
        "After the TCP handshake the client's first octets are a CLC Proposal"),
    row("rfc7609-3.2-server-waits", M, W, "The server sends no CLC message before it received the Proposal"),
    row("rfc7609-3.2-accept-or-decline", M, W,
        "The server answers a Proposal with exactly one Accept or one Decline"),
    row("rfc7609-3.2-confirm-or-decline", M, W,
        "The client answers an Accept with exactly one Confirm or one Decline"),
    row("rfc7609-3.5.2.4-no-data-before-done", M, W,
        "No application data flows on the TCP connection before the CLC exchange ended (Confirm, or Decline and "
        "fallback)"),
    row("rfc7609-3.2-decline-fallback", M, P,
        "After a Decline, sent or received, both sides use the TCP connection for the application data as plain TCP"),
    row("rfc7609-3.2-no-clc-after-decline", M, W, "No CLC message follows a Decline on the connection"),
    row("rfc7609-3.2-one-proposal", M, W, "A client sends one Proposal per connection"),

    // App. A.2 CLC message header and trailer
    row("rfc7609-a.2-eyecatcher", M, W,
        "Every CLC message begins with the eyecatcher \"SMCR\" in EBCDIC (0xE2D4C3D9)"),
    row("rfc7609-a.2-trailer-eyecatcher", M, W, "Every CLC message ends with the same 4-octet eyecatcher"),
    row("rfc7609-a.2-eyecatcher-check", M, P,
        "A CLC message with a wrong leading or trailing eyecatcher is a protocol error"),
    row("rfc7609-a.2-type", M, W, "The type octet is 1 Proposal, 2 Accept, 3 Confirm or 4 Decline"),
    row("rfc7609-a.2-type-expected", M, P,
        "A CLC message of a type not expected at that point of the exchange is a protocol error"),
    row("rfc7609-a.2-length", M, W,
        "The length field counts the whole message, header and trailer included"),
    row("rfc7609-a.2-length-check", M, P,
        "A length that does not fit the message type (too short for its fixed part, or disagreeing with the "
        "octets) is a protocol error"),
    row("rfc7609-a.2-version", M, W, "Version 1 messages carry version 1 in the header's upper 4 bits"),
    row("rfc7609-a.2-reserved-zero", M, W, "Reserved fields and bits of CLC messages are sent as zero"),
    row("rfc7609-a.2-reserved-ignored", M, P, "Reserved fields and bits of received CLC messages are not checked"),

    // App. A.2.1 Peer ID
    row("rfc7609-a.2.1-peer-id", M, W,
        "The 8-octet Peer ID is a 2-octet instance number followed by a 6-octet RoCE MAC address of the host"),
    row("rfc7609-a.2.1-peer-id-stable", M, W,
        "A host uses the same Peer ID in every CLC message it sends during the life of its SMC-R instance"),

    // App. A.2.2 Proposal
    row("rfc7609-a.2.2-proposal-fields", M, W,
        "A Proposal carries the client's Peer ID, its RoCE GID and MAC, and the offset to its IP prefix area"),
    row("rfc7609-a.2.2-prefix-offset", M, W,
        "The prefix-area offset counts the octets between the end of that field and the start of the IP prefix "
        "area (0: right after it)"),
    row("rfc7609-a.2.2-future-growth", M, P,
        "A server skips the octets between the offset field and the prefix area it does not understand (room for "
        "future growth)"),
    row("rfc7609-a.2.2-ipv4-prefix", M, W,
        "The prefix area holds the client's IPv4 subnet and prefix length for the connection's interface (0 if "
        "IPv6)"),
    row("rfc7609-a.2.2-ipv6-prefixes", M, W,
        "The prefix area lists the IPv6 prefixes of the interface (at most 8), each with its prefix length, with "
        "their count"),
    row("rfc7609-a.2.2-ipv6-count-max", M, P, "A Proposal claiming more than 8 IPv6 prefixes is malformed"),
    row("rfc7609-a.2.2-length-covers-prefixes", M, W,
        "The Proposal's length covers its fixed part, any future-growth octets, the prefix area and all IPv6 "
        "prefixes"),

    // App. A.2.3 Accept
    row("rfc7609-a.2.3-accept-fields", M, W,
        "An Accept carries the server's Peer ID, GID, MAC, QP number, RMB rkey, RMBE index, RMBE alert token, "
        "RMBE size, QP MTU, RMB virtual address and initial packet sequence number"),
    row("rfc7609-a.2.3-first-contact-flag", M, W,
        "The server sets the first-contact flag in its Accept exactly when it starts a new link group for this "
        "client"),
    row("rfc7609-a.2.3-rmbe-index", M, W, "The RMBE index is 1 or more: the element of the RMB the peer writes into"),
    row("rfc7609-a.2.3-rmbe-size", M, W,
        "The RMBE size is sent in compressed form: 0 means 16 KiB and each step doubles it"),
    row("rfc7609-a.2.3-qp-mtu", M, W, "The QP MTU uses the InfiniBand encoding (1=256 ... 5=4096)"),
    row("rfc7609-a.2.3-qp-number", M, W, "The QP number is a 24-bit value naming a reliable connected QP (not 0 or 1)"),
    row("rfc7609-a.2.3-accept-length", M, W, "A version 1 SMC-R Accept is 68 octets long"),

    // App. A.2.4 Confirm
    row("rfc7609-a.2.4-confirm-fields", M, W,
        "A Confirm carries the client's own Peer ID, GID, MAC, QP number, RMB rkey, RMBE index, alert token, "
        "RMBE size, QP MTU, RMB address and initial PSN, as the Accept did for the server"),
    row("rfc7609-a.2.4-confirm-first-contact", M, W,
        "The client's Confirm repeats the first-contact flag of the Accept"),
    row("rfc7609-a.2.4-confirm-length", M, W, "A version 1 SMC-R Confirm is 68 octets long"),
    row("rfc7609-a.2.4-confirm-consistent", M, P,
        "A server that receives a Confirm inconsistent with its Accept (path, link group, peer) declines")
        .says("on a reused link group the client's GID, MAC and QP are the known ones").declined_with("SYNCERR"),

    // App. A.2.5 Decline
    row("rfc7609-a.2.5-decline-fields", M, W,
        "A Decline carries the sender's Peer ID and a 4-octet peer diagnosis code saying why SMC-R is not used"),
    row("rfc7609-a.2.5-out-of-sync-flag", M, W,
        "The Decline's out-of-sync flag is set only when the sender found the link group state of the two hosts "
        "inconsistent"),
    row("rfc7609-a.2.5-decline-length", M, W, "A version 1 Decline is 28 octets long"),
    row("rfc7609-a.2.5-diagnosis-informational", M, P,
        "The diagnosis code is for information: a receiver falls back to TCP whatever code it carries"),
    row("rfc7609-a.2.5-out-of-sync-all", M, P,
        "A host that receives a Decline with the out-of-sync flag ends the link group with that peer for all its "
        "connections"),

    // App. A.3 LLC messages, App. A.4 CDC message (over RoCE: seen in
    // captures of RoCEv2, checked by the capture observer's RoCEv2 side)
    row("rfc7609-3.3-reply-answers-request", M, W,
        "An LLC reply (R flag set) answers a request of the same type that the peer sent on the same link and that "
        "no reply has answered yet")
        .says("an LLC reply (R set) answers an open request of the same type from the peer on the same link"),
    row("rfc7609-a.3.8-test-link-echo", M, W,
        "A TEST LINK reply carries back the User Data of the TEST LINK request it answers")
        .says("a TEST LINK reply carries the User Data of the request it answers"),
    row("rfc7609-3.5.1.6.1-add-link-link-number", M, W,
        "A client that accepts an ADD LINK names in its reply the link number the server assigned in the request")
        .says("an ADD LINK reply that accepts the link (Z clear) names the link number the ADD LINK request offered"),
    row("rfc7609-3.5.1.5-confirm-link-roce-info", M, W,
        "A CONFIRM LINK, request or reply, names its sender's own RoCE MAC, GID and QP number of the link: those "
        "the sender gave for the link in its CLC Accept or Confirm (the first link) or in its ADD LINK (an added "
        "link)")
        .says("a CONFIRM LINK names the MAC, GID and QP number its sender gave for that link in CLC (the first link) or in ADD LINK (an added link)"),
    row("rfc7609-3.5.1.5-data-on-confirmed-link", M, W,
        "CDC messages and RDMA Writes use a link only once its CONFIRM LINK exchange has completed and until its "
        "DELETE LINK exchange has completed")
        .says("CDC messages and RDMA Writes flow on a link only after its CONFIRM LINK exchange completed and before its DELETE LINK exchange completed"),
    row("rfc7609-3.5.5.2-write-through-announced-rkey", M, W,
        "An RDMA Write into a peer's RMB uses an rkey the peer announced for the link the Write flows on (CLC, ADD "
        "LINK CONTINUATION, CONFIRM RKEY) and has not deleted with DELETE RKEY since")
        .says("an RDMA Write uses an rkey the RMB's owner announced for the link it flows on (CLC, ADD LINK CONTINUATION or ADD LINK v2 RTokens, CONFIRM RKEY) and did not delete since (DELETE RKEY)"),
    row("rfc7609-a.4-consumer-not-ahead", M, W,
        "A CDC message's consumer cursor, with its wrap count, is never ahead of the producer cursor the peer last "
        "announced for the same RMBE: nothing is consumed before it was written")
        .says("a CDC message's consumer cursor (with its wrap count) is never ahead of the producer cursor the peer last announced for the same RMBE"),
    row("rfc7609-a.4-cursor-within-rmbe", M, W,
        "A CDC message's producer cursor is an offset inside the receiver's RMBE and its consumer cursor one inside "
        "the sender's: both below the RMBE size that RMBE's owner announced in its Accept or Confirm")
        .says("a CDC message's producer cursor is an offset inside the receiver's RMBE and its consumer cursor inside the sender's, below the RMBE size each announced in CLC"),
    row("rfc7609-a.4-sequence-number", M, W,
        "The CDC messages one side sends for a connection are numbered from 1, one more each time (wrapping at 16 "
        "bits); only a failover validation message repeats an earlier number")
        .says("a connection's CDC messages from one side carry sequence numbers 1, 2, 3, ... (wrapping at 16 bits); a failover validation message repeats an earlier one"),
    row("rfc7609-4.4.1-write-inside-rmbe", M, W,
        "The peer writes only into the RMB element it was given: an RDMA Write through the RMB's rkey lands inside "
        "the element the owner's Accept or Confirm names (RMB address, element index and size)")
        .says("an RDMA Write through an RMB's rkey lands inside the RMBE of a connection that the RMB's owner announced in CLC (virtual address + (index - 1) x size, size octets)"),
    row("rfc7609-a.4-producer-tracks-writes", M, W,
        "The producer cursor names the next octet its sender will write into the peer's RMBE: RDMA Writes start "
        "there, and the next CDC message announces where they ended")
        .says("RDMA Writes into an RMBE start at the sender's producer cursor and the sender's next CDC message announces the producer cursor where they ended"),
    row("rfc7609-a.4-urgent-present-pending", M, W,
        "Urgent data present (U) is only said together with urgent data pending (P): urgent data in the RMBE is "
        "urgent data the sender has pending")
        .says("a CDC message with urgent data present (U) also says urgent data pending (P)").weighed(Weight::kShould),
    row("rfc7609-a.4-no-writes-after-done", M, W,
        "Once a side sent PeerDoneWriting, PeerConnectionClosed or PeerConnAbort for a connection it writes no more "
        "data into the peer's RMBE: no RDMA Write, no producer cursor advance")
        .says("after a CDC message with D, C or A set, its sender makes no more RDMA Writes into the peer's RMBE and its producer cursor stays where it was"),
    row("rfc7609-a.4-nothing-after-closed", M, W,
        "Once a side sent PeerConnectionClosed or PeerConnAbort for a connection it sends no more CDC messages for "
        "it")
        .says("after a CDC message with C (PeerConnectionClosed) or A (PeerConnAbort) set, its sender sends no more CDC messages for the connection"),

    // ---- The link layer over RoCE: link groups (§2), LLC (§3.3, §3.5, App. A.3, C.7, C.8), RMBEs and CDC
    // (§4, App. A.4). A tester that is the IUT's SMC-R peer over RoCE sees them: the LLC messages and CDC
    // messages the IUT sends, its RDMA Writes into the tester's RMB, its QPs, its TCP connection's FIN or
    // reset after the SMC-R close, and what its application gets (the agent). Where a row is judged: "rule"
    // names the check/smcr.hpp function the capture observer and the reference machines call; "machine"
    // says the tester's reference link group (reference/smcr/link_group) or connection
    // (reference/smcr/connection) judges the IUT's message or answer; "answer" says the verdict is the
    // IUT's reaction to what the tester sends (a reply, a reset, a DELETE LINK, what the agent reports).
    // docs/requirements.md, "RFC 7609's link layer: the case each row wants", lists them with their cases.

    // §2.1 RMBs. Answer/capture: CLC of two connections on one link group.
    row("rfc7609-2.1-rmbe-same-size", M, W,
        "All elements of one RMB have one size: the CLC Accept or Confirm messages of a link group that name the "
        "same RMB (the same rkey and virtual address) announce the same RMBE size"),

    // §2.2 Link groups. Answer: the Accept's first-contact flag, or the client's Decline.
    row("rfc7609-2.2-link-group-roles", M, P,
        "A link group holds connections of one VLAN on which the same side is the SMC server: a connection on "
        "another VLAN or with the roles swapped gets a group of its own (the server's Accept sets first contact; a "
        "client declines an Accept that reuses a group in which it is the server)"),

    // §2.2.1 Link group types. Answer: the link group machine sees the ADD LINK reply, DELETE LINK, data.
    row("rfc7609-2.2.1-single-asymmetric-supported", M, P,
        "An implementation runs a link group on a single link (its second link could not be added) and on an "
        "asymmetric link (two links sharing one side's RNIC): connections keep flowing in both cases"),
    row("rfc7609-2.2.1-asymmetric-to-symmetric", M, P,
        "When the RNIC whose absence made a link asymmetric becomes available, the server first adds a symmetric "
        "link, then deletes the asymmetric one with DELETE LINK reason 0x00050000 (asymmetric link no longer "
        "needed)"),

    // §2.2.2 Maximum number of links. Machine: CONFIRM LINK's max links; ADD LINK against the negotiated value.
    row("rfc7609-2.2.2-second-symmetric-link", M, P,
        "An implementation runs two symmetric links in one group: a server with a second RNIC on the LAN offers a "
        "link over it, a client with a second RNIC takes a new server link over it"),
    row("rfc7609-2.2.2-max-links-range", M, W,
        "A max links value announced in CONFIRM LINK lies between 2 and 8; only the client's reply may carry 0 "
        "(no value of its own)"),
    row("rfc7609-2.2.2-server-max-links", M, W,
        "The server's CONFIRM LINK request always names a max links value; the client's reply names none (0) or one "
        "no larger than the server's, and the smaller holds for the link group's life"),
    row("rfc7609-2.2.2-no-link-beyond-max", M, W,
        "No side takes a group past the negotiated max links with a symmetric link: once the group has that many, "
        "the server sends no ADD LINK and the client asks for none; an asymmetric link does not count"),

    // §2.3 Resilience. Answer: the tester breaks one link's QP; the machines follow the connection.
    row("rfc7609-2.3-failover-moves-connections", M, P,
        "When a link of a group fails (its QP breaks, or its TEST LINK goes unanswered), each side moves the "
        "connections it wrote over that link to a surviving one and carries on there without resetting them; the "
        "link is then deleted by the server's DELETE LINK exchange, which a client asks for with its own DELETE "
        "LINK"),

    // §3.3 LLC messages. Answer: the link group machine's request waits for its reply; it notes the QP each
    // LLC message came on.
    row("rfc7609-3.3-request-answered", M, P,
        "Each LLC request a side receives gets a reply of its type (R set), except those answered otherwise: a "
        "client's ADD LINK (which may get none) and DELETE LINK (answered by the server's own DELETE LINK "
        "request), and the server's DELETE LINK of the whole group"),
    row("rfc7609-3.3-confirm-link-on-its-link", M, W,
        "A CONFIRM LINK, request and reply, travels on the QPs of the link whose number it carries, and a TEST LINK "
        "on the link it tests"),

    // §3.5.1.2 Client proposal. Capture: the GID of a RoCEv2 RNIC holds its IP address.
    row("rfc7609-3.5.1.2-credentials-on-common-subnet", M, W,
        "The RoCE GID and MAC of a server's first-contact Accept belong to an RNIC on the subnet or prefix the "
        "server shares with the client's Proposal (a RoCEv2 GID carries that RNIC's IP address)"),

    // §3.5.1.5 Link (QP) confirmation. Machine: the client's CONFIRM LINK reply.
    row("rfc7609-3.5.1.5-confirm-link-number-echo", M, W,
        "A client's CONFIRM LINK reply carries the link number of the server's CONFIRM LINK request"),

    // §3.5.1.6 Second link setup. Machine: no CDC message or Write before the server's first ADD LINK.
    row("rfc7609-3.5.1.6-second-link-before-data", M, W,
        "On first contact no connection data flows before the server tried a second link: its ADD LINK request "
        "comes before the first CDC message or RDMA Write of either side in the new link group"),

    // §3.5.1.6.1 Client processing of ADD LINK. Answer: the IUT client's ADD LINK reply (Z, reason code).
    row("rfc7609-3.5.1.6.1-client-add-link-decision", M, P,
        "A client takes a server's ADD LINK over a server RNIC the group does not use yet (over its own second RNIC "
        "if it has one, else its first); over the RNIC of an existing link it takes it only with a second RNIC of "
        "its own, otherwise it rejects it (Z set, reason 1, no alternate path)"),

    // §3.5.1.6.2 Server processing of the ADD LINK reply. Answer: the tester leaves the second link's
    // CONFIRM LINK unanswered; the machine holds the DELETE LINK reply back and watches link 1.
    row("rfc7609-3.5.1.6.2-no-data-until-delete-answered", M, P,
        "When the CONFIRM LINK exchange of a first contact's second link fails, the side that saw it sends DELETE "
        "LINK for that link over the first one and sends no CDC message or RDMA Write there until that DELETE LINK "
        "is answered"),

    // §3.5.2.4 TCP data flow race with the Confirm. Answer: what the agent's application reads.
    row("rfc7609-3.5.2.4-server-holds-early-data", M, P,
        "Connection data that reaches a server's RMBE before it processed the client's Confirm is kept and handed "
        "to the application after the Confirm, complete and in order"),
    row("rfc7609-3.5.2.4-client-ready-after-confirm", M, P,
        "A client takes connection data the server writes as soon as the Confirm arrived: nothing the server sends "
        "right after the Confirm is lost or refused"),

    // §3.5.3 Parallel link group. Capture: the RTokens of the two groups.
    row("rfc7609-3.5.3-parallel-group-own-rmbs", M, W,
        "A second link group with the same peer (first contact while one exists) uses RMBs of its own: no RToken "
        "a side announces in it is one it announced in the other group"),

    // §3.5.4 Normal link termination. Answer: the IUT's TCP resets, its DELETE LINK, what the agent reports.
    row("rfc7609-3.5.4-client-ends-group", M, P,
        "A client that receives the server's DELETE LINK for the whole group (A set) ends the group at once: it "
        "resets the TCP connections it had on the group and uses none of its links again"),
    row("rfc7609-3.5.4-server-honours-group-delete", M, P,
        "A server asked by a client's DELETE LINK (A set) to end the whole group sends its own DELETE LINK with A "
        "set and ends the group, resetting the TCP connections still on it"),

    // §2, §3.5.4 A link group outlives its connections. Answer: the tester closes one connection of a group and
    // goes on with another; it lets the group stand idle.
    row("rfc7609-2-group-outlives-connection", M, P,
        "A connection that ends leaves its link group and links to the group's other connections, which go on over "
        "them; a design point said without a keyword, weighed as SHOULD")
        .weighed(Weight::kShould),
    row("rfc7609-3.5.4-server-ends-idle-group", M, P,
        "A link group whose last connection ended may be kept for later connections for a time of the "
        "implementation's choosing (local policy); ending it is the server's part, with its DELETE LINK with A set, "
        "which a client asks for with its own; weighed as MAY")
        .weighed(Weight::kMay),

    // §3.5.5.1.2 Client-initiated ADD LINK. Answer: the server's ADD LINK, or its silence.
    row("rfc7609-3.5.5.1.2-server-adds-for-redundancy", M, P,
        "A server whose group has no redundancy, or only an asymmetric link over the client's single RNIC, answers "
        "a client's ADD LINK (a new client RNIC) by starting an ADD LINK exchange of its own"),
    row("rfc7609-3.5.5.1.2-ignore-add-at-max", M, P,
        "A server whose group already has the negotiated max links lets a client's ADD LINK go: no reply and no "
        "ADD LINK of its own"),
    row("rfc7609-3.5.5.1.2-client-add-unanswered", M, P,
        "A client whose ADD LINK gets no answer carries on: no error, no DELETE LINK, no reset of its connections"),

    // §3.5.5.1.3 Server-initiated DELETE LINK. Answer: TEST LINK on the link being deleted; the reply.
    row("rfc7609-3.5.5.1.3-server-keeps-link-until-reply", M, P,
        "A server that sent DELETE LINK for one link keeps that link's QP until the client's reply: until then the "
        "link still works (a TEST LINK on it gets its reply)"),
    row("rfc7609-3.5.5.1.3-client-confirms-delete", M, P,
        "A client answers a server's DELETE LINK for one link with a DELETE LINK reply for that link, never a "
        "refusal, and sends nothing more on the link"),

    // §3.5.5.1.4 Client-initiated DELETE LINK. Answer: the server's DELETE LINK request and its timing.
    row("rfc7609-3.5.5.1.4-server-deletes-on-request", M, P,
        "A server answers a client's DELETE LINK for one link by running its own DELETE LINK exchange for it: at "
        "once when the request is disorderly (O clear), when convenient when it is orderly (O set)"),

    // §3.5.5.2.1 Adding an RMB. Machine: CONFIRM RKEY's link/RToken pairs against the group's links; the
    // rule write-through-announced-rkey then judges each Write.
    row("rfc7609-3.5.5.2.1-new-rmb-all-links", M, W,
        "A side that adds an RMB to a link group gives the peer its RToken on every link of the group (CONFIRM "
        "RKEY and its continuations), and no CLC Accept or Confirm names an element of it before that exchange "
        "completed"),

    // §3.5.5.2.3 Adding a link to a group with several RMBs. Machine: ADD LINK CONTINUATION's pairs.
    row("rfc7609-3.5.5.2.3-new-link-all-rmbs", M, W,
        "When a link is added, each side gives the peer in ADD LINK CONTINUATION a new RToken on that link for "
        "every RMB it has in the group, each paired with the RMB's rkey on the link the exchange runs on"),

    // §3.5.5.3 Serialization. Machine: one configuration exchange open per group; answers to collisions.
    row("rfc7609-3.5.5.3-one-config-exchange", M, W,
        "A side starts no exchange that changes the group's configuration while another runs: ADD LINK (with its "
        "continuations and CONFIRM LINK), the server's DELETE LINK of one link, CONFIRM RKEY and DELETE RKEY wait "
        "for the running one; only each side's own CONFIRM RKEY and DELETE RKEY may overlap"),

    // §3.5.5.3.1-3.5.5.3.3 Collisions (the tables state each answer without a keyword).
    row("rfc7609-3.5.5.3.1-test-link-during-exchange", M, P,
        "A TEST LINK that arrives while an ADD LINK, DELETE LINK or CONFIRM RKEY exchange runs is answered at once"),
    row("rfc7609-3.5.5.3.1-confirm-rkey-collision", M, P,
        "A server that receives a client's CONFIRM RKEY while an ADD LINK or DELETE LINK exchange runs answers it "
        "negatively (Z set); the client repeats it after that exchange (rfc7609-a.3.5-retry-after-negative)"),

    // §4.1 RMB element allocation. Capture: the RMBEs the IUT's Accepts or Confirms name.
    row("rfc7609-4.1-rmbe-per-connection", M, W,
        "Each side gives every connection an RMBE of its own: its Accept or Confirm names one, and no two open "
        "connections of a link group get the same one (RToken and element index)"),

    // §4.4.1 Initializing and accessing RMBEs. Answer: the tester writes over the eyecatcher; the TCP reset.
    row("rfc7609-4.4.1-eyecatcher-overlay-reset", M, P,
        "A side that finds the eyecatcher of its RMBE overwritten (a Write landed on it) resets that connection's "
        "TCP connection"),

    // §4.4.2 RMBE reuse. Capture: an RMBE named again; answer: a CLC message naming one still in use.
    row("rfc7609-4.4.2-rmbe-reuse-after-close", M, W,
        "A side names an RMBE for a new connection only once the connection that used it ended on both sides "
        "(PeerConnectionClosed or PeerConnAbort sent and received), or its close timer gave up waiting for the "
        "peer's")
        .says("a new connection's Accept or Confirm names no RMBE (RToken and element index) that a connection of "
              "the link group not yet closed on both sides still holds"),
    row("rfc7609-4.4.2-rmbe-conflict-aborts-old", M, P,
        "A side shown, in a CLC Accept or Confirm, an RMBE (RToken and index) its peer still gives to another open "
        "connection of the group aborts that older connection (TCP reset, no further Write into that RMBE) and "
        "goes on with the new one"),

    // §4.5.1 Window size updates. Machine: the connection's consumer cursor against what the agent read.
    row("rfc7609-4.5.1-cursor-update-piggybacked", M, P,
        "Every CDC message a side sends carries its consumer cursor as it stands: data sent one way also tells the "
        "peer how much was consumed"),
    row("rfc7609-4.5.1-update-on-request", M, P,
        "A side whose peer set R (consumer cursor update requested) sends an update as soon as its application "
        "consumes data, and at once when its last announced consumer cursor lags what was consumed"),
    row("rfc7609-4.5.1-update-when-blocked", M, P,
        "While the peer's last CDC message says writer blocked (B), each consumption by the application brings a "
        "consumer cursor update"),

    // §4.5.3 TEST LINK as the link's keepalive. Answer: the tester stops answering TEST LINK on one link.
    row("rfc7609-4.5.3-test-link-timeout-failover", M, P,
        "A side whose TEST LINK gets no reply in time, or cannot be sent, treats the link as failed: its "
        "connections move to another link of the group, or are reset when none is left"),

    // §4.6.1 Validating data integrity. Machine: the connection judges the IUT's F message (a sequence
    // number it never processed: connection.hpp's PeerError kFailoverDataLost); answer: the tester's F.
    row("rfc7609-4.6.1-validation-message", M, W,
        "A side that moves a connection to another link first sends there a CDC message with F set carrying the "
        "sequence number of its last CDC message the peer's RNIC acknowledged (never one the peer did not get), "
        "before any other CDC message or Write of the connection on that link"),
    row("rfc7609-4.6.1-validate-failover", M, P,
        "A side that receives a failover validation message (F) carries on when it has received and placed the "
        "data of the CDC message with that sequence number, and resets the TCP connection when it has not"),

    // §4.6.2 Resuming on a new link. Machine: the connection checks the stream and the numbers after F.
    row("rfc7609-4.6.2-replay-before-new-data", M, P,
        "After a failover a side first repeats on the new link the Writes and CDC messages that failed or did not "
        "complete on the old one, then sends new data: the peer's stream has no gap and no reordering"),
    row("rfc7609-4.6.2-sequence-after-combine", M, W,
        "A side that folds its failed and pending Writes into new ones after a failover numbers the new CDC "
        "message above every failed or pending one"),

    // §4.7.5, §4.7.6 Urgent data. Machine: the connection's urgent state; answer: what the agent read.
    row("rfc7609-4.7.5-update-after-urgent", M, P,
        "A side whose application consumed urgent data up to its last octet sends a consumer cursor update then, "
        "however much room the peer still has"),
    row("rfc7609-4.7.5-no-write-past-urgent", M, W,
        "After writing urgent data a side writes nothing more until the peer's consumer cursor reached its end; "
        "shown by the example flows only, weighed as SHOULD")
        .weighed(Weight::kShould),
    row("rfc7609-4.7.6-urgent-pending-when-blocked", M, W,
        "A side with urgent data to send and no room in the peer's RMBE says so at once with P in a CDC message (B "
        "still set) and writes the urgent data when room opens; shown by the example flows only, weighed as SHOULD")
        .weighed(Weight::kShould),

    // §4.8.1 Normal connection termination. Machine: the connection's close states; answer: the TCP FIN or
    // reset and what the agent reports. The rules no-writes-after-done and nothing-after-closed judge the rest.
    row("rfc7609-4.8.1-close-with-unread-data-aborts", M, P,
        "A side whose application closes while received data is still unread aborts the connection: A "
        "(PeerConnAbort) and a TCP reset rather than C"),
    row("rfc7609-4.8.1-closed-with-pending-data-aborts", M, P,
        "A side that receives PeerConnectionClosed while it still has data to write to the peer resets the "
        "connection (A, TCP reset) instead of writing it"),
    row("rfc7609-4.8.1-close-after-data", M, W,
        "A side sends PeerDoneWriting (D) or PeerConnectionClosed (C) once all its data is written: the CDC message "
        "carrying it announces the producer cursor at the end of that data"),
    row("rfc7609-4.8.1-fin-after-smc-close", M, W,
        "A side sends its FIN on an SMC-R connection's TCP connection only after it ended its writing on the SMC-R "
        "connection (PeerDoneWriting, PeerConnectionClosed or PeerConnAbort): SMC-R's close first, then TCP's; a "
        "design point said without a keyword, weighed as SHOULD")
        .says("a side's FIN follows its PeerDoneWriting, PeerConnectionClosed or PeerConnAbort")
        .weighed(Weight::kShould),
    row("rfc7609-4.8.1-passive-close-answers", M, P,
        "A side that received PeerConnectionClosed sends its own once its application closes, and PeerDoneWriting "
        "when the application only shuts down writing"),
    row("rfc7609-4.8.1-close-timer", M, P,
        "A side waiting for the peer's PeerConnectionClosed after its own close does not wait forever: its timer "
        "resets the TCP connection, and it makes no further Write"),

    // §4.8.2 Abnormal termination. Capture: RST and A; answer: the tester's A or RST.
    row("rfc7609-4.8.2-reset-sends-abort", M, W,
        "A side that resets the TCP connection of an SMC-R connection also sends a CDC message with A "
        "(PeerConnAbort) for it"),
    row("rfc7609-4.8.2-abort-answered", M, P,
        "A side that receives PeerConnAbort reports the reset to its application, drops the data still to read or "
        "to send, and answers with its own CDC message with A"),
    row("rfc7609-4.8.2-rst-starts-abort", M, P,
        "A side that receives a TCP reset for an SMC-R connection whose peer sent no A starts the abort itself: a "
        "CDC message with A"),

    // §5.5 IPsec. Answer: a connection under an IPsec policy the harness sets on the IUT.
    row("rfc7609-5.5-ipsec-opts-out", M, P,
        "A connection that local policy protects with IPsec does not use SMC-R: its SYN or SYN-ACK carries no SMC "
        "option, or its side declines"),

    // App. A.3 LLC messages. Answer: the link group machine sends what no peer should; it watches the link.
    row("rfc7609-a.3-llc-length", M, W,
        "Every version 1 LLC message is 44 octets, says 44 in its Length field and is padded with zeros"),
    row("rfc7609-a.3-supports-defined-llc", M, P,
        "A side takes every LLC message App. A.3 defines (CONFIRM LINK, ADD LINK and its continuation, DELETE LINK, "
        "CONFIRM RKEY and its continuation, DELETE RKEY, TEST LINK) and answers it as its format section says"),
    row("rfc7609-a.3-unknown-llc-error", M, P,
        "An LLC message of an unknown type whose two high bits are 00 is a protocol error: the receiver treats the "
        "link as failed (App. C.7.1) and does not pass over it"),
    row("rfc7609-a.3-optional-llc-discarded", M, P,
        "An LLC message of an unsupported type whose two high bits are 10 is dropped silently: no reply, no error, "
        "the link stays up"),

    // App. A.3.2 ADD LINK. Answer: the ADD LINK reply.
    row("rfc7609-a.3.2-add-link-bad-mtu", M, P,
        "A side that receives an ADD LINK whose MTU value App. A.2.3 does not define rejects it: an ADD LINK reply "
        "with Z set and reason code 2"),

    // App. A.3.4 DELETE LINK. Answer: the DELETE LINK reply.
    row("rfc7609-a.3.4-unknown-link-reply", M, P,
        "A DELETE LINK request for a link the receiver does not have is answered with the reason unknown link ID "
        "(0x00100000; App. C.7.1 calls it reason code 1); a client's request for a link being cleaned up may be "
        "ignored"),

    // App. A.3.5 CONFIRM RKEY. Answer: the reply; the IUT's next CONFIRM RKEY after a negative one.
    row("rfc7609-a.3.5-confirm-rkey-reply", M, P,
        "A CONFIRM RKEY request is answered by a reply echoing its RTokens with R set; Z only when the receiver "
        "cannot take them now (with C when it may be tried again right after the running change)"),
    row("rfc7609-a.3.5-retry-after-negative", M, P,
        "A side whose CONFIRM RKEY was answered negatively (Z) runs the exchange anew with its RToken set computed "
        "for the group's links then: once the running change ended when the reply set C, else only at its next "
        "need of a new RMB"),

    // App. A.3.7 DELETE RKEY. Answer: the reply.
    row("rfc7609-a.3.7-delete-rkey-reply", M, P,
        "A DELETE RKEY request is answered by a reply echoing its rkeys; the rkeys the receiver does not know are "
        "marked in the error mask with Z set, and nothing more is done about them"),

    // App. A.4 CDC message. Machine: the connection judges the IUT's CDC messages and Writes
    // (producer-not-past-consumer: connection.hpp's PeerError kProducerPastConsumer; cursor-skips-eyecatcher:
    // kEyecatcherOverlaid; the rule cursor-within-rmbe takes the RMBE's first data octet); answer: the
    // tester's old, bad or out-of-range CDC messages.
    row("rfc7609-a.4-cdc-format", M, W, "Every CDC message is 44 octets: type 0xFE, Length 44, reserved fields zero"),
    // Linux net/smc announces RMBEs without an eyecatcher in CONFIRM LINK's flags (SMC_LLC_FLAG_NO_RMBE_EYEC,
    // bits RFC 7609 keeps reserved) and starts its cursors at 0: a deviation from this row, reported as one.
    row("rfc7609-a.4-cursor-skips-eyecatcher", M, W,
        "Cursors count the 4-octet eyecatcher at the head of every RMBE: they start at 4 and wrap back to 4, and no "
        "Write lands on an RMBE's first 4 octets"),
    row("rfc7609-a.4-producer-not-past-consumer", M, W,
        "A side never writes past the consumer cursor the peer last announced: its producer cursor stays at most "
        "one RMBE data area ahead of that cursor, wraps counted (further would overwrite unread data)"),
    row("rfc7609-a.4-writer-blocked-flag", M, W,
        "A side with data to send and no room left in the peer's RMBE says writer blocked (B) in its CDC message; "
        "only the example flows set it, weighed as SHOULD")
        .weighed(Weight::kShould),
    row("rfc7609-a.4-urgent-cursor", M, W,
        "A CDC message with urgent data present (U) has its producer cursor one octet past the last urgent octet"),
    row("rfc7609-a.4-old-sequence-discarded", M, P,
        "A CDC message whose sequence number is behind the last one received is discarded: none of its cursors or "
        "flags is taken"),
    row("rfc7609-a.4-bad-cursor-not-taken", M, P,
        "A CDC message whose cursors fall outside the RMBE or claim data never written is not taken as it stands: "
        "the receiver hands out no octet it was not sent and writes nothing outside the peer's RMBE (it drops the "
        "message or aborts the connection)"),

    // App. C.3 The Decline window. Capture: Declines against the LLC flow.
    row("rfc7609-c.3-no-decline-after-point-of-no-return", M, W,
        "No Decline after the point of no return: on subsequent contact none from the server after its Accept nor "
        "from the client after its Confirm; on first contact none from the server once its second link's ADD LINK "
        "was delivered, none from the client once it answered that ADD LINK or got that link's CONFIRM LINK"),

    // App. C.7 Timeouts during LLC negotiation. Answer: the tester withholds the awaited message.
    row("rfc7609-c.7-llc-timeout-recovery", M, P,
        "A side whose LLC request gets no expected answer before its timer ends recovers as App. C.7.1 lists for "
        "that message (reset the TCP connection, delete the link or treat it as failed) instead of waiting on"),
    row("rfc7609-c.7-client-confirm-link-timeout", M, P,
        "A first-contact client that, after its Confirm, gets neither the server's CONFIRM LINK nor a Decline in "
        "time breaks the TCP connection and drops the link"),
    row("rfc7609-c.7-server-confirm-link-timeout", M, P,
        "A first-contact server whose CONFIRM LINK gets neither a reply nor a Decline in time resets the TCP "
        "connection"),

    // App. C.7.1 Invalid LLC messages. Answer: the tester's wrong LLC message; the link's fate.
    row("rfc7609-c.7.1-bad-confirm-link", M, P,
        "A client that receives a CONFIRM LINK with wrong link information (a MAC, GID or QP other than announced "
        "for the link) takes that link down: a DELETE LINK for it over another link, or on first contact a Decline "
        "and fallback to TCP"),
    row("rfc7609-c.7.1-incorrect-llc-link-down", M, P,
        "A side that receives an LLC message that is plainly wrong or out of sync (a bad Length, a reply to "
        "nothing, a continuation whose count disagrees, a TEST LINK reply with other User Data) treats that link "
        "as down"),

    // App. C.8 Failure to add the second link. Answer: the server's next ADD LINK.
    row("rfc7609-c.8-retry-second-link", M, P,
        "A server whose second link could not be set up tries again: when its retry timer ends, when it gets a new "
        "RNIC on the LAN, and at once when a client's ADD LINK says the client has one"),

    // §3.5.1 First contact / §3.5.2 Subsequent contact
    row("rfc7609-3.5.1-first-contact-new-lg", M, P,
        "On first contact the server creates a new link group and RoCE link with the client, confirmed over RoCE "
        "before data flows"),
    row("rfc7609-3.5.2-subsequent-reuse", M, P,
        "On subsequent contact the server reuses the existing link group and the Accept's link values name an "
        "existing link"),
    row("rfc7609-3.5.2-client-first-contact-mismatch", M, P,
        "A client that receives first contact for a link group it thinks exists (or the reverse) declines with the "
        "out-of-sync flag set")
        .says("a reused link group (no First Contact) is one the client has").also("Linux net/smc: smc_conn_create").declined_with("SYNCERR"),
    row("rfc7609-3.5.1.2-prefix-match", M, P,
        "A server that shares no IP subnet with the client (no matching prefix) declines instead of accepting")
        .says("SMC-Rv1: a proposed IP prefix is one of the server's").also("Linux net/smc: smc_clc_prfx_match").declined_with("DIFFPREFIX"),

    // App. C.1 Decline during CLC negotiation
    row("rfc7609-c.1-decline-any-time", M, P,
        "Either side may decline at any point of the CLC exchange; the peer then falls back to TCP"),
    row("rfc7609-c.1-decline-reason", M, W,
        "A side declines, rather than continuing, when it cannot use SMC-R for the connection (no RoCE device, no "
        "matching subnet, no resources)")
        .says("a side with no SMC device to use declines (a client with nothing to propose)")
        .declined_with("NOSMCDEV"),

    // App. C.4 Out-of-sync conditions

    // App. C.5 Timeouts during CLC negotiation
    row("rfc7609-c.5-clc-timer", M, P,
        "A side waiting for a CLC message bounds the wait with a timer"),
    row("rfc7609-c.5-timeout-action", M, P,
        "When the CLC timer expires the side ends the exchange (Decline and fallback, or reset) instead of waiting "
        "forever"),

    // App. C.6 Protocol errors during CLC negotiation
    row("rfc7609-c.6-protocol-error", M, P,
        "A malformed CLC message (eyecatcher, length, type or layout wrong) means the peer cannot be trusted to "
        "speak SMC: the side ends the TCP connection (a FIN or a reset) rather than falling back"),
    row("rfc7609-c.6-no-fallback-after-garbage", M, P,
        "After a CLC protocol error the side does not treat the octets as application data"),

    // §4.5.3 TCP keep-alives stay answered on an SMC-R connection.
    row("rfc7609-4.5.3-keepalive-ack", M, P,
        "A peer keeps answering TCP keep-alive probes (with an ACK) on a connection that moved its data to SMC-R"),

    // ---- Rules the passive capture observer reports (pcap/analysis/rules.hpp), registered under the ids
    // it already emits. Where an older row states the same requirement from the implementation's side,
    // the summary names it. Observable in a capture of both directions.
    row("rfc7609-a.2-clc-format", M, W,
        "Each CLC message is well formed: leading and trailing eyecatchers, a type the RFC defines, a Length that "
        "matches the octets and the type's layout, and every block inside the message")
        .says("a CLC message is well formed (eyecatchers, Length, blocks)"),
    row("rfc7609-c.6-clc-order", M, W,
        "A connection's CLC messages come in order: the client's Proposal, the server's Accept, the client's "
        "Confirm, a Decline from either side ending the exchange at any point, and no CLC message after the end")
        .says("Proposal, Accept, Confirm come in order from the right side"),
    row("rfc7609-a.2.1-proposal-peer-id-set", M, W, "The Peer ID in the client's Proposal is not all zero")
        .says("the client's peer ID is not zero").declined_with("CNFERR"),
    row("rfc7609-a.2.2-proposal-gid-mac-valid", M, W,
        "The Proposal's RoCE GID is not zero and its MAC is a unicast address")
        .says("the client's GID is not zero and its MAC is unicast").declined_with("CNFERR"),
    row("rfc7609-a.2.3-accept-peer-valid", M, W,
        "The Accept's Peer ID and GID are not zero and its MAC is a unicast address")
        .says("the server's peer ID and GID are not zero and its MAC is unicast").declined_with("CNFERR"),
    row("rfc7609-a.2.3-accept-qp-number", M, W,
        "The server's QP number in the Accept is neither 0 nor 1, InfiniBand's management QPs (as "
        "rfc7609-a.2.3-qp-number)")
        .says("the server QP is not QP0 or QP1").also("IBTA vol. 1 §3.5.1").declined_with("CNFERR"),
    row("rfc7609-a.2.3-accept-rmb-valid", M, W,
        "The Accept's RMBE index is 1 or more, and its RMB virtual address plus the RMB size stays below 2^64")
        .says("RMBE index counts from 1 and RMB address + size does not wrap").declined_with("CNFERR"),
    row("rfc7609-a.2.4-confirm-version", M, W, "The Confirm carries the version the Accept chose")
        .says("the Confirm has the Accept's version").declined_with("VERSMISMAT"),
    row("rfc7609-a.2.4-confirm-path", M, W, "The Confirm names the path (SMC-R or SMC-D) the Accept chose")
        .says("the Confirm has the Accept's path").declined_with("MODEUNSUPP"),
    row("rfc7609-a.2.4-confirm-peer-id", M, W, "The Confirm carries the Peer ID of the client's Proposal")
        .says("the Confirm's peer ID is the Proposal's").declined_with("CNFERR"),
    row("rfc7609-a.2.4-confirm-peer-valid", M, W, "The Confirm's GID is not zero and its MAC is a unicast address")
        .says("the client's GID is not zero and its MAC is unicast").declined_with("CNFERR"),
    row("rfc7609-a.2.4-confirm-qp-number", M, W, "The client's QP number in the Confirm is neither 0 nor 1")
        .says("the client QP is not QP0 or QP1").also("IBTA vol. 1 §3.5.1").declined_with("CNFERR"),
    row("rfc7609-a.2.4-confirm-rmb-valid", M, W,
        "The Confirm's RMBE index is 1 or more, and its RMB virtual address plus the RMB size stays below 2^64")
        .says("RMBE index counts from 1 and RMB address + size does not wrap").declined_with("CNFERR"),
    row("rfc7609-a.2.4-confirm-mtu-not-above-accept", M, W,
        "The QP MTU the Confirm announces is not larger than the Accept's")
        .says("the Confirm's QP MTU is at most the Accept's").declined_with("CNFERR"),
    row("rfc7609-c.4-confirm-first-contact-echo", M, W,
        "The Confirm's first-contact flag equals the Accept's, seen on the wire (as "
        "rfc7609-a.2.4-confirm-first-contact)")
        .says("the Confirm's First Contact equals the Accept's").declined_with("SYNCERR"),
    row("rfc7609-c.4-decline-out-of-sync", M, W,
        "A Decline sets the out-of-sync flag exactly when its diagnosis is the link-group synchronisation error "
        "(Linux SMC_CLC_DECL_SYNCERR)")
        .says("Out of Sync is set exactly with diagnosis SYNCERR"),
};

}  // namespace rdmaconf::requirements::detail::rfc7609
