// RFC 6581: Enhanced RDMA Connection Establishment (MPA revision 2: IRD/ORD
// exchange and peer-to-peer setup with a ready-to-receive message).
//
// Checked against the RFC text: every normative sentence is accounted for in
// trace_rfc6581.cpp. Rows whose id named another section than the one that
// holds the requirement were renamed (old ids in aliases.cpp).
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc6581 {

using enum Level;

inline constexpr Requirement kRows[] = {
    // §5 Enhanced connection establishment overview
    row("rfc6581-5-ird-ord-exchange", kMust, W,
        "A revision 2 side that sets the enhanced flag places its IRD and ORD at the start of the private data"),
    row("rfc6581-5-ird-ord-honoured", kMust, P,
        "After the exchange neither side issues more outstanding RDMA Reads than the peer's IRD allows"),
    row("rfc6581-5-ord-not-above-ird", kMustNot, P,
        "A side never has more RDMA Read Requests outstanding than the ORD it negotiated"),

    // §9 Enhanced MPA Request/Reply frame
    row("rfc6581-6-rev-2", kMust, W, "A frame carrying the enhanced connection data has Rev 2"),
    row("rfc6581-6-enhanced-flag", kMust, W,
        "The enhanced flag (bit 0x10 of octet 16, just below R) is set exactly when the private data begins with "
        "the 4-octet IRD/ORD block"),
    row("rfc6581-9-enhanced-flag-rev1", kMustNot, W,
        "A Rev 1 frame never sets the enhanced flag: in revision 1 that bit is reserved"),
    row("rfc6581-7-pd-length-includes", kMust, W,
        "PD_Length counts the IRD/ORD block together with the ULP's private data (so the ULP has at most 508 "
        "octets)"),
    row("rfc6581-9-ird-ord-14-bit", kMust, W, "IRD and ORD are 14-bit unsigned values below the two flag bits"),
    row("rfc6581-9.1-ird-ord-no-negotiation", kMust, W,
        "0x3FFF declines automatic IRD/ORD negotiation: a responder answers an initiator ORD of 0x3FFF with IRD "
        "0x3FFF and an initiator IRD of 0x3FFF with ORD 0x3FFF, keeping its own values")
        .says("an accepting Reply answers a Request ORD of 0x3FFF with IRD 0x3FFF and a Request IRD of 0x3FFF with ORD 0x3FFF"),
    row("rfc6581-9-responder-ird", kShould, W,
        "The responder raises its IRD to at least the initiator's ORD when it can"),
    row("rfc6581-9.1-responder-ord", kMustNot, W,
        "The responder's ORD in its Reply is not larger than the initiator's IRD")
        .says("an accepting Reply's ORD is not above the Request's IRD (MUST NOT)"),
    row("rfc6581-9.1-initiator-ord-adjust", kMust, P,
        "An initiator whose ORD exceeds the responder's IRD either lowers its ORD to that IRD or fails the "
        "connection with an Insufficient IRD error"),
    row("rfc6581-9.1-error-insufficient-ird", kMust, P,
        "Too small an IRD is reported with a Terminate carrying LLP error code 0x06 (insufficient IRD) before the "
        "close"),
    row("rfc6581-9.3-error-catastrophic", kMust, N,
        "A local error during enhanced setup that has no code of its own is reported with a Terminate carrying LLP "
        "error code 0x05 (local catastrophic) before the connection is reset",
        "a report of a local failure during setup that no peer can bring about"),
    row("rfc6581-9.1-reject-with-reply", kMay, W,
        "A responder that cannot serve the Request may send a Reply with R set that carries its own IRD/ORD so the "
        "initiator learns why"),

    // §9.2 Peer-to-peer connection setup and the RTR message
    row("rfc6581-9.2-p2p-flag-a", kMust, W,
        "An initiator that wants the peer-to-peer model sets flag A and offers each RTR kind it supports with flags "
        "B (zero-length Send), C (zero-length RDMA Write), D (zero-length RDMA Read); for client-server it clears A")
        .says("a peer-to-peer Request (A set) offers at least one RTR kind"),
    row("rfc6581-9.2-p2p-echo-a", kMust, W, "The responder's Reply sets flag A exactly when the Request did")
        .says("the Reply sets flag A exactly when the Request did"),
    row("rfc6581-9.2-reply-rtr-flags", kShould, W,
        "The responder's Reply sets the flag of every RTR kind the initiator offered that the responder can use"),
    row("rfc6581-9.2-reply-rtr-at-least-one", kMust, W,
        "A peer-to-peer Reply sets at least one RTR kind the responder supports, even when none of the offered "
        "ones is among them")
        .says("a peer-to-peer Reply sets at least one RTR kind"),
    row("rfc6581-9.2-initiator-no-matching-rtr", kMust, P,
        "An initiator that can send none of the RTR kinds the Reply sets sends a Terminate with LLP error code 0x07 "
        "(no matching RTR) and ends the connection")
        .says("an initiator that can send none of the RTR kinds the Reply sets terminates with LLP error 0x07"),
    // Withdrawn: rules stricter than §9.2, written before the text was read.
    // Kept so old reports still resolve.
    row("rfc6581-9.2-rtr-choice-one", kMust, N,
        "Withdrawn: no rule makes the Reply set exactly one RTR kind; it sets at least one and may set several "
        "(rfc6581-9.2-reply-rtr-at-least-one)",
        "withdrawn: not a requirement of the RFC"),
    row("rfc6581-9.2-rtr-offered-only", kMustNot, N,
        "Withdrawn: the responder may set RTR kinds the initiator did not offer (rfc6581-9.2-reply-rtr-flags)",
        "withdrawn: not a requirement of the RFC"),
    row("rfc6581-9.2-no-matching-rtr", kMust, N,
        "Withdrawn: a responder that supports none of the offered RTR kinds sets one it supports; the code 0x07 "
        "is the initiator's (rfc6581-9.2-initiator-no-matching-rtr)",
        "withdrawn: not a requirement of the RFC"),
    row("rfc6581-9.2-bcd-zero-without-a", kMust, W, "With flag A clear, flags B, C and D are sent as zero"),
    row("rfc6581-9.2-bcd-ignored-without-a", kMust, P, "With flag A clear, a receiver ignores flags B, C and D"),
    row("rfc6581-9.2-rtr-first-fpdu", kMust, W,
        "In peer-to-peer mode the initiator's first FPDU is the chosen RTR message")
        .says("in peer-to-peer mode the initiator's first FPDU is the RTR message of a kind the Reply sets"),
    // §9.2 binds the initiator to send a negotiated RTR kind and names code 0x07 for the initiator that
    // cannot; no sentence says what a responder does with another first FPDU. Kept as a MAY
    // (informational): a Terminate with 0x07 is the answer that helps the initiator most.
    row("rfc6581-9.2-rtr-kind-match", kMay, P,
        "A responder whose first FPDU is no RTR of a kind its Reply set may treat it as an error (no matching "
        "RTR, LLP error code 0x07) and terminate (a project expectation: the text states the initiator's side "
        "only, rfc6581-9.2-rtr-first-fpdu)"),
    row("rfc6581-9.2-responder-waits-rtr", kMustNot, W,
        "The responder sends no FPDU before the RTR arrived"),
    row("rfc6581-9.2-rtr-zero-length", kMust, W, "The RTR message carries no payload"),
    row("rfc6581-9.2-rtr-not-delivered", kMustNot, N,
        "The RTR is consumed by the RDMA layer: it completes no receive and reaches no ULP buffer",
        "whether a receive was consumed is local to the responder"),
    row("rfc6581-9.2-rtr-read-answered", kMust, W,
        "A responder that chose the zero-length RDMA Read RTR answers it with a zero-length RDMA Read Response"),
    row("rfc6581-9.2-rtr-read-needs-ird", kMust, W,
        "An initiator that offers the zero-length RDMA Read RTR has an ORD of at least 1 and the responder an IRD "
        "of at least 1"),
    row("rfc6581-9.2-client-server-no-rtr", kMustNot, W,
        "Without flag A the initiator sends no RTR: its first FPDU is ULP data, as in revision 1"),

    // §10 Interoperability with revision 1
    row("rfc6581-10-accept-rev1", kMust, P,
        "A revision 2 responder that receives a Rev 1 Request answers with a Rev 1 Reply and no enhanced data"),
    row("rfc6581-10-rev1-reply", kMay, P,
        "A revision 2 initiator that receives a Rev 1 Reply may continue in revision 1 with no IRD/ORD exchange, or "
        "close"),
    // No sentence of RFC 5044 or 6581 states this: RFC 5044 §7.1.1 asks only for the close. Kept as a
    // MAY (informational) because a Reject naming a revision the responder runs helps the initiator.
    row("rfc6581-10-rev-higher", kMay, P,
        "A responder that receives a Rev higher than it supports may reject with a Reply carrying a revision it "
        "supports (a project expectation, not stated by the text)"),
    row("rfc6581-10-reply-rev-not-above", kMustNot, W, "A Reply never carries a higher Rev than the Request")
        .says("the Reply's revision is not above the Request's"),
    row("rfc6581-10-reply-enhanced", kMust, W,
        "A responder that accepts a Rev 2 Request with the enhanced flag answers with a Rev 2 Reply carrying its own "
        "IRD/ORD block, and answers a Request without the flag with a Reply without it")
        .says("a Reply carries the IRD/ORD block (S set) exactly when the Request does"),

    // ---- Rules the passive capture observer reports (pcap/analysis/rules.hpp), registered under the ids
    // it already emits. Where an older row states the same requirement from the implementation's side,
    // the summary names it. Observable in a capture of both directions.
    row("rfc6581-6-enhanced-data-present", kMust, W,
        "A Rev 2 Request or Reply with the enhanced flag set has a PD_Length of at least 4: the IRD/ORD block is "
        "really there")
        .says("a Rev 2 frame with S set carries at least 4 octets of IRD/ORD data"),
};

}  // namespace rdmaconf::requirements::detail::rfc6581
