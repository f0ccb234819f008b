// RFC 7609: IBM's Shared Memory Communications over RDMA (SMC-R), version 1,
// restricted to what rdmaconf tests: the SMC TCP option and the CLC
// handshake (Proposal, Accept, Confirm, Decline) with its error scenarios,
// and the first rules of the LLC and CDC protocols that run over RoCE after
// the handshake (App. A.3, A.4), which captures of RoCEv2 show.
//
// RFC 7609 is informational and uses no RFC 2119 keywords; its lower-case
// "must" rules are requirements here (Level::kLowerCaseMust).
//
// Checked against the RFC text: every sentence with a lower-case "must" is
// accounted for in trace_rfc7609.cpp; those about link groups, LLC, CDC and
// RDMA writes over RoCE, or about host-local resources, are declared not
// observable (a tester sees the TCP connection and the CLC handshake).
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc7609 {

inline constexpr Level M = Level::kLowerCaseMust;

inline constexpr Requirement kRows[] = {
    // §3.1 / App. A.1 TCP option
    row("rfc7609-3.1-option-in-syn", M, W,
        "A client that wants SMC-R puts the SMC experimental TCP option in its SYN"),
    row("rfc7609-3.1-option-in-synack", M, W,
        "A server that can do SMC-R answers a SYN carrying the option with the option in its SYN-ACK"),
    row("rfc7609-3.1-both-or-tcp", M, W,
        "CLC messages are exchanged only when both SYN and SYN-ACK carried the option; otherwise the connection "
        "stays plain TCP"),
    row("rfc7609-3.1-no-clc-without-option", M, P,
        "A server that did not send the option in its SYN-ACK treats the first octets as application data, never "
        "as a CLC Proposal")
        .says("CLC messages follow only a handshake whose SYN and SYN-ACK both carry the SMC option"),
    row("rfc7609-a.1-option-kind", M, W, "The SMC option is TCP option kind 254 (experimental) with length 6"),
    row("rfc7609-a.1-option-exid", M, W,
        "The option's 4-octet experiment identifier is 0xE2D4C3D9 (\"SMCR\" in EBCDIC)"),

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
