// RFC 5043: the SCTP Direct Data Placement adaptation layer (DDP segments
// and DDP Stream Session Control messages in unordered SCTP DATA chunks).
//
// Checked against the RFC text: every normative sentence is accounted for in
// trace_rfc5043.cpp. The reference implements the rows in reference/sctp/
// (messages.cpp, session.cpp) and endpoint/sctp_endpoint.cpp.
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc5043 {

using enum Level;

inline constexpr Requirement kRows[] = {
    // §5.1 Adaptation Layer Indicator
    row("rfc5043-5.1-indication-in-init", kMust, W,
        "An association meant for DDP announces the DDP adaptation code (1) in the Adaptation Layer Indication "
        "parameter of its INIT or INIT-ACK"),

    // §5.2.1 DDP-SSN
    row("rfc5043-5.2.1-ddp-ssn-as-ordered", kMust, W,
        "Each chunk's DDP-SSN is the stream sequence number an ordered chunk would have had: it counts the "
        "messages handed to SCTP on that stream"),

    // §5.2.3 DDP Stream Session Control
    row("rfc5043-5.2.3-private-data-present", kMust, W,
        "Initiate, Accept and Reject carry the ULP's private data after the Function Code, possibly none"),
    row("rfc5043-5.2.3-private-data-max", kMustNot, W,
        "No Session Control message carries more than 512 octets of private data"),
    row("rfc5043-5.2.3-terminate-no-private-data", kMustNot, W, "A Session Terminate carries no private data"),
    row("rfc5043-5.2.3-report-to-ulp", kShould, N,
        "Session Control messages that arrive are handed to the ULP, with their private data readable when they are",
        "a local interface between the adaptation layer and its ULP"),
    row("rfc5043-5.2.3-initiate-limit", kMay, N,
        "The adaptation layer may cap how many Initiates it has passed to its ULP at once",
        "a local limit; what happens beyond it is rfc5043-5.2.3-over-limit-terminate"),
    row("rfc5043-5.2.3-over-limit-terminate", kMust, P,
        "An Initiate that cannot go to the ULP because of that cap is answered with a Session Terminate"),

    // §6 DDP Stream Sessions
    row("rfc5043-6-no-ssn-gaps", kMustNot, W, "Within one session the DDP-SSNs a side sends leave no gaps"),
    row("rfc5043-6-dynamic-endpoint", kMay, N,
        "The local interface may bind a DDP endpoint to the stream when a session starts and unbind it at its end",
        "how a local interface binds endpoints to streams"),

    // §6.1 Sequencing
    row("rfc5043-6.1-legal-pattern", kMust, W,
        "Taken in DDP-SSN order, each side's chunks follow one of the legal session sequences (accepted, "
        "rejected, or refused without the ULP)"),
    row("rfc5043-6.1-illegal-terminates", kMust, P,
        "A chunk that fits none of the legal sequences ends the session with a Session Terminate"),

    // §6.2 Active/Passive session accepted
    row("rfc5043-6.2-final-terminate", kMay, W,
        "Each side's last chunk of an accepted session may be a Session Terminate"),
    row("rfc5043-6.2-one-terminate", kMust, W, "At least one side ends an accepted session with a Session Terminate"),

    // §6.3 Active/Passive session rejected
    row("rfc5043-6.3-resource-decisions", kMay, N,
        "What the passive side decides before committing resources may depend on the protection domain, Read "
        "credits or receives the session needs",
        "the basis of a local decision"),
    row("rfc5043-6.3-may-reject", kMay, W, "The passive side may answer an Initiate with a Reject"),
    row("rfc5043-6.3-reject-only-by-ulp", kMustNot, N,
        "The adaptation layer sends a Reject only when its ULP decided so",
        "who decided on a Reject is local; the wire shows only that one was sent"),

    // §6.4 Active/Passive session non-ULP rejected
    row("rfc5043-6.4-ulp-decides", kShould, N, "The ULP decides whether an Initiate is accepted or rejected",
        "a local interface between the adaptation layer and its ULP"),
    row("rfc5043-6.4-event-to-ulp", kMay, N, "The decision may need an event passed up to the ULP",
        "a local interface"),
    row("rfc5043-6.4-pending-limit", kMust, P,
        "Initiates waiting for the ULP's decision are bounded by a finite limit"),
    row("rfc5043-6.4-over-limit-terminate", kMust, P,
        "Beyond that limit the passive side answers an Initiate with a Session Terminate"),

    // §6.5 ULP-specific sequencing
    row("rfc5043-6.5-extra-sequences", kMay, N, "An implementation may offer sequences beyond the defined ones",
        "an option a ULP asks for locally"),
    row("rfc5043-6.5-extra-only-on-request", kMustNot, W,
        "Sequences beyond the defined ones are used only when the ULP asked for them; unasked, a side keeps to "
        "the legal sequences"),
    row("rfc5043-6.5-ulp-mandatory-sequences", kMust, N,
        "A ULP defined on this layer works with the mandatory sequences alone",
        "a requirement on ULP specifications, not on an implementation's wire behaviour"),

    // §6.6 Other sequencing rules
    row("rfc5043-6.6-control-not-overtaking", kMustNot, W,
        "A side sends no Session Control message while one it sent earlier in the session may still arrive after "
        "it"),
    row("rfc5043-6.6-no-segment-before-initiate", kMustNot, W,
        "The active side sends no DDP segment that could arrive before its Initiate"),
    row("rfc5043-6.6-initiate-known-received", kMay, N,
        "The active side may learn the Initiate arrived from SCTP's acknowledgement or from the answer",
        "which evidence an implementation waits for is local"),
    row("rfc5043-6.6-no-stream-reuse", kMustNot, N,
        "A stream carries no new session while chunks of its previous session may still be in flight",
        "whether chunks are still in flight is known only to the sender's SCTP"),

    // §7.1 Adaptation Layer Indication restriction
    row("rfc5043-7.1-ulp-sets-indication", kMust, N,
        "The local interface lets the ULP choose the Adaptation Indication an SCTP endpoint uses", "a local interface"),
    row("rfc5043-7.1-may-require-indication", kMay, N, "The local interface may insist that the ULP chooses one",
        "a local interface"),
    row("rfc5043-7.1-refuse-other-indication", kShould, P,
        "An endpoint that settled on its Adaptation Indications refuses associations that announce another")
        .uncased("refusing is the IUT's SCTP aborting the INIT: the reference's association in memory comes up "
                 "whatever the indication, so no refusal of it can be broken, and the runner takes an association "
                 "that does not come up for the tester's error, not for an answer a step can match"),
    row("rfc5043-7.1-restrict-after-first", kMay, N,
        "An SCTP implementation may hold an endpoint to the indication of its first association",
        "a local policy"),

    // §7.2 Multihoming implications
    row("rfc5043-7.2-single-address", kMay, N,
        "The local interface may limit a DDP-enabled endpoint to one address or the addresses of one device",
        "a local binding policy"),
    row("rfc5043-7.2-default-one-address", kShouldNot, N,
        "By default a DDP-enabled SCTP endpoint binds one IP address unless more cost no extra bus traffic or "
        "registrations",
        "a local default whose condition a tester cannot see"),
    row("rfc5043-7.2-no-out-of-band-addresses", kMay, N,
        "Applications may avoid out-of-band ways of learning an endpoint's addresses where that is ambiguous",
        "an application's choice"),
    row("rfc5043-7.2-no-load-balancing", kShouldNot, N,
        "ULPs do not steer the source address to spread one stream over several paths",
        "a ULP's choice of source address"),
    row("rfc5043-7.2-multihoming-for-failover", kShould, N,
        "A multihoming receiver is designed for fault tolerance, not for load spread over paths",
        "a design goal"),

    // §8 Number of streams
    row("rfc5043-8-equal-stream-counts", kMust, W,
        "The adaptation layer asks for as many inbound as outbound streams in every association it sets up"),

    // §9 Fragmentation
    row("rfc5043-9-max-segment-to-ddp", kMust, N,
        "The adaptation layer tells DDP the largest DDP segment it supports (at least 516 octets)",
        "a local interface between the adaptation layer and DDP"),
    row("rfc5043-9-no-sctp-fragmentation", kMustNot, W,
        "DATA chunks are not fragmented by SCTP unless the only other way is IP fragmentation")
        .uncased("the tester's SCTP sides hand the runner whole messages (usrsctp puts fragments back together "
                 "before its upcall; the association in memory has no chunks), so no step sees how the IUT cut a "
                 "message into DATA chunks, and whether cutting was needed rests on the path MTU the IUT's SCTP "
                 "knew"),
    row("rfc5043-9-max-below-theoretical", kShould, N,
        "The maximum DDP segment size leaves room to bundle control chunks in the same packet",
        "the margin is a local sizing choice"),
    row("rfc5043-9-reject-oversized", kMust, P, "A DDP segment larger than the announced maximum is refused"),

    // §10 Sequenced unordered operation
    row("rfc5043-10-unordered", kMust, W, "Every DATA chunk of the adaptation layer has the U (unordered) flag set"),
    row("rfc5043-10-no-tsn-order", kMustNot, N,
        "The receiver does not take the TSN as the order of DDP segments",
        "how a receiver orders segments internally shows only through other rows"),
    row("rfc5043-10-in-flight-limit", kMustNot, P,
        "A sender keeps at most 32767 chunks per stream unacknowledged when SCTP would accept more, without "
        "counting on ULP flow control for it")
        .uncased("needs more than 32767 of the IUT's DATA chunks on one stream unacknowledged: the IUT answers "
                 "each Initiate once in the sctp suite, and the test ULP over DDP one message per tester message, "
                 "so a case would hold SCTP's acknowledgements (acks=held, in memory only) over more than 32767 "
                 "steps"),
    row("rfc5043-10-ssn-validity-check", kMay, P,
        "A receiver may check that a gap in DDP-SSNs can be explained by chunks not yet received"),
    row("rfc5043-10-no-allocation-on-ssn", kShouldNot, P,
        "A receiver does not commit resources for a DDP-SSN before checking that it is plausible")
        .uncased("what an IUT commits for a DDP-SSN stays inside it; on the wire it could show only as exhaustion "
                 "after a flood of DDP-SSNs far ahead, whose size is the IUT's own choice. The check that should "
                 "come first has its case, sctp-invalid-ssn-terminate"),
    row("rfc5043-10-invalid-ssn-terminate", kMay, P, "An implausible DDP-SSN may end the DDP stream"),

    // §11.1 Association initialization
    row("rfc5043-11.1-indication-at-startup", kMust, W,
        "When an association starts, the DDP side announces DDP (code 1) in the first two chunks it exchanges"),
    row("rfc5043-11.1-verify-indication", kMust, P,
        "After INIT and INIT-ACK each side checks the peer's Adaptation Indication before any DDP"),
    row("rfc5043-11.1-no-ddp-without-indication", kMustNot, P,
        "With no indication from the peer, or one other than DDP, neither DDP nor RDMA runs on the association"),
    row("rfc5043-11.1-same-mode", kMay, N, "An implementation may hold all associations of an endpoint to one mode",
        "a local policy"),
    row("rfc5043-11.1-ulp-chooses-mode", kMay, N,
        "The local interface may let the ULP accept associations only in one mode", "a local interface"),

    // §11.2 Chunk bundling
    row("rfc5043-11.2-untagged-not-delayed", kShouldNot, N,
        "Chunks with untagged DDP segments are not held back to bundle them with others",
        "a delay a capture cannot tell from the sender's scheduling"),
    row("rfc5043-11.2-partial-tagged-delay", kMay, N,
        "Short tagged segments may wait for the untagged message that usually follows",
        "a local scheduling choice"),

    // §11.3 Association termination
    row("rfc5043-11.3-no-terminate-per-stream", kShouldNot, W,
        "A side ending the whole association does not first send an RDMAP Terminate on every DDP stream")
        .uncased("needs the IUT to decide on its own to end the whole association for an SCTP-level error: no step "
                 "provokes one, since both tester sides send only well-formed SCTP, and the reference ends "
                 "sessions, never its association, for what its peer sends"),
    row("rfc5043-11.3-notify-consumers", kShould, N,
        "The local interface tells every consumer of a DDP stream that its SCTP stream ended",
        "a local notification"),
    row("rfc5043-11.3-terminate-on-stream-end", kMust, P,
        "When one DDP stream ends for an error RDMAP defines, its RDMAP Terminate is sent as RDMAP says")
        .uncased("the Terminate is RDMAP's (RFC 5040 §6.2): the rdmap suite's Terminate cases check it over SCTP "
                 "with --transport sctp, but a case naming this row would run over MPA too, where the row does not "
                 "apply, and the sctp suite runs no DDP above its sessions"),

    // §13 Security considerations
    row("rfc5043-13-ipsec-equivalent", kMust, N,
        "An IPsec implementation for RDDP over SCTP offers SCTP what RFC 3723 requires for TCP",
        "IPsec support is configuration a protocol tester cannot see on a plain association"),
    row("rfc5043-13-ipsec-same-level", kShould, N,
        "It offers SCTP the same IPsec functions as TCP, unless TCP is not supported at all",
        "IPsec support is configuration a protocol tester cannot see"),
    row("rfc5043-13-ipsec-selectors", kMust, N,
        "It selects SCTP traffic by protocol and port at least as finely as TCP traffic",
        "IPsec policy is configuration a protocol tester cannot see"),
};

}  // namespace rdmaconf::requirements::detail::rfc5043
