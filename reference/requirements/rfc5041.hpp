// RFC 5041: Direct Data Placement over Reliable Transports (DDP).
//
// Checked against the RFC text: every normative sentence is accounted for in
// trace_rfc5041.cpp. Rows whose id named another section than the one that
// holds the requirement were renamed (old ids in aliases.cpp).
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc5041 {

using enum Level;

inline constexpr Requirement kRows[] = {
    // §3 Reliable Delivery LLP Requirements
    row("rfc5041-3-llp-reliable", kMust, N,
        "DDP runs only over an LLP that delivers reliably and in order and preserves ULPDU boundaries (MPA/TCP, SCTP)",
        "a property of the transport below, not of DDP's octets"),
    row("rfc5041-3-llp-mulpdu", kMust, N, "The LLP tells DDP the MULPDU: the largest ULPDU it will carry",
        "a local interface between the layers"),
    row("rfc5041-3-llp-error-surface", kMust, N,
        "The LLP reports a lost or corrupted stream to DDP, which stops placing for that stream",
        "a local interface between the layers"),

    // §4.1 DDP Control Field
    row("rfc5041-4.1-t-flag", kMust, W, "T is 1 in a tagged and 0 in an untagged DDP Segment"),
    row("rfc5041-4.1-l-flag", kMust, W,
        "L is 1 in the last DDP Segment of a DDP Message and 0 in every other segment of it"),
    row("rfc5041-4.1-rsvd-zero", kMust, W, "The 4 reserved bits of the DDP control field are sent as zero"),
    row("rfc5041-4.1-rsvd-ignored", kMustNot, P, "The receiver does not check the DDP control field's reserved bits"),
    row("rfc5041-4.1-dv-1", kMust, W, "DV (DDP version) is 01 in every DDP Segment of this version")
        .says("DV is 1"),
    row("rfc5041-4.1-dv-check", kMust, P,
        "A Data Sink that receives a DV other than 1 reports an invalid DDP version error and does not place the "
        "segment"),
    row("rfc5041-4.1-last-once", kMust, W, "Exactly one segment of each message has L set: the one ending it"),

    // §4.2 DDP Tagged Buffer Model Header
    row("rfc5041-4.2-stag", kMust, W,
        "A tagged segment carries the Data Sink's STag naming the advertised buffer it is placed in"),
    row("rfc5041-4.2-to", kMust, W,
        "A tagged segment carries the 64-bit Tagged Offset at which its payload is placed in that buffer"),
    row("rfc5041-4.2-rsvdulp-carried", kMust, P,
        "DDP carries the 8-bit RsvdULP of the control field (and the untagged 32-bit RsvdULP) to the ULP "
        "unchanged"),
    row("rfc5041-4.2-tagged-advertised", kMustNot, W,
        "A Data Source sends tagged segments only into buffers whose STag the Data Sink advertised to it"),
    row("rfc5041-4.2-tagged-same-stag", kMust, W, "All segments of a tagged message carry the same STag"),
    row("rfc5041-4.2-same-rsvdulp", kMust, W,
        "All segments of one message carry the same ULP-reserved fields"),

    // §4.3 DDP Untagged Buffer Model Header
    row("rfc5041-4.3-qn", kMust, W, "An untagged segment carries the Queue Number of the Data Sink's receive queue"),
    row("rfc5041-4.3-msn", kMust, W, "An untagged segment carries the Message Sequence Number of its DDP Message"),
    row("rfc5041-4.3-mo", kMust, W,
        "An untagged segment carries the Message Offset of its payload from the start of its DDP Message"),
    row("rfc5041-4.3-untagged-same-qn-msn", kMust, W,
        "All segments of an untagged message carry the same QN and MSN"),
    row("rfc5041-4.3-msn-start", kMust, W,
        "The first untagged message sent to each queue of a new DDP Stream has MSN 1"),
    row("rfc5041-4.3-msn-increment", kMust, W,
        "Each later untagged message to the same queue has the previous MSN plus one, wrapping from 2^32-1 to 0")
        .says("MSNs of a queue start at 1 and grow by one per message"),
    row("rfc5041-4.3-msn-per-queue", kMust, W, "MSNs count separately for each queue number"),
    row("rfc5041-4.3-msn-init", kMust, W, "Each queue's expected MSN starts at 1 when the DDP Stream is set up"),

    // §4.4 DDP Segment Format
    row("rfc5041-4.4-header-then-payload", kMust, W,
        "A DDP Segment is its header (14 octets tagged, 18 untagged) followed by the payload; its length is the "
        "LLP's ULPDU length"),

    // §5.1 Tagged and Untagged Buffer Models
    row("rfc5041-5.1-untagged-posted", kMust, N,
        "The ULP at the Data Sink posts untagged buffers to a queue before matching messages arrive",
        "buffer posting is local; its absence shows only as a 'no buffer' error"),
    row("rfc5041-5.1-untagged-order", kMust, N,
        "Untagged messages of one queue are matched to that queue's buffers in MSN order",
        "the buffer chosen is local to the Data Sink"),
    row("rfc5041-5.1-tagged-no-sink-state", kMust, N,
        "Tagged placement needs no per-message state at the Data Sink beyond the STag's buffer",
        "an implementation property"),
    row("rfc5041-5.1-stag-format", kMay, N,
        "The Data Sink chooses the STag's value and meaning; the Data Source treats it as opaque",
        "how STags are formed is local (RFC 5042 asks for hard-to-guess values)"),

    // §5.2 Segmentation and Reassembly of a DDP Message
    row("rfc5041-5.2-segment-to-mulpdu", kMust, W,
        "The Data Source splits a DDP Message into segments that each fit the current MULPDU"),
    row("rfc5041-5.2-tagged-to-advance", kMust, W,
        "Each tagged segment's TO is the message's starting TO plus the octets of the message sent before it")
        .says("a tagged message's segments keep the STag and carry consecutive TOs"),
    row("rfc5041-5.2-untagged-mo-advance", kMust, W,
        "Each untagged segment's MO is the number of message octets sent before it (0 in the first)")
        .says("a message's segments carry consecutive MOs starting at 0"),
    row("rfc5041-5.2-zero-length", kMust, W,
        "A zero-length DDP Message is sent as one segment with no payload and L set"),
    row("rfc5041-5.2-no-interleave", kMustNot, W,
        "A Data Source does not interleave segments of different messages on one DDP Stream"),
    row("rfc5041-5.2-reassembly", kMust, P,
        "The Data Sink reassembles a message from its segments by TO or MO, whatever the segment sizes"),
    row("rfc5041-5.2-segment-max", kMustNot, W, "A DDP Segment is never longer than the LLP's MULPDU"),

    // §5.3 Ordering Among DDP Messages
    row("rfc5041-5.2-zero-length-tagged-unchecked", kMustNot, P,
        "A zero-length tagged segment is accepted whatever its STag and TO: only its control and RsvdULP fields "
        "count"),
    row("rfc5041-5.3-send-in-order", kMust, W, "A Data Source sends DDP Messages in the order its ULP submitted them"),
    row("rfc5041-5.3-segments-in-order", kShould, W,
        "A Data Source sends the segments of one message in rising MO (untagged) or TO (tagged) order"),
    row("rfc5041-5.3-place-any-order", kMay, N,
        "A Data Sink may place segments in any order in which the LLP hands them over",
        "placement order is local"),
    row("rfc5041-5.3-deliver-in-order", kMust, N,
        "A Data Sink hands messages to its ULP in the sequence the Data Source sent them",
        "delivery to the ULP is local (RDMAP's visible effects are tested through RFC 5040)"),
    row("rfc5041-5.3-no-place-after-deliver", kMustNot, N,
        "Once a message is delivered, no later segment changes the data it placed",
        "buffer contents after delivery are local"),

    // §5.4 DDP Message Completion and Delivery
    // Observable as peer through the IUT's own report (the device agent).
    row("rfc5041-5.4-untagged-length", kMust, P,
        "On delivery of an untagged message DDP gives the ULP its length, queue and MSN"),
    row("rfc5041-5.4-tagged-no-delivery", kMay, N,
        "Tagged messages may be delivered to the ULP without a data length (the ULP may not need one)",
        "a local interface"),
    row("rfc5041-5.4-error-no-delivery", kMustNot, N,
        "A message in which an error was detected is not delivered as a normal message",
        "delivery to the ULP is local; the visible part is the error report"),
    row("rfc5041-5.4-deliver-after-placed", kMustNot, N,
        "A message is not delivered before all its segments are placed and all earlier messages are delivered",
        "delivery to the ULP is local"),

    // §6.1 DDP Stream Setup
    row("rfc5041-6.1-stream-after-llp", kMust, W,
        "No DDP Segment is sent before the LLP stream entered DDP mode (MPA full operation)"),

    // §6.2 DDP Stream Teardown
    row("rfc5041-6.2-abortive-no-place", kMustNot, N,
        "After an abortive teardown the Data Sink places nothing more for that stream",
        "placement is local"),
    row("rfc5041-6.2-no-send-after-teardown", kMustNot, W,
        "No DDP Segment is sent on a stream after its teardown started"),
    row("rfc5041-6.2.1-graceful-no-loss", kMust, N,
        "A graceful teardown delivers every message received before it",
        "delivery to the ULP is local"),
    row("rfc5041-6.2.2-errors-abortive", kMust, P,
        "A DDP error on a stream ends with an abortive teardown of the stream (after the ULP's Terminate)"),

    // §7.1 Errors Detected at the Data Sink (codes agree with siw)
    row("rfc5041-7.1-stag-invalid", kMust, P,
        "A tagged segment whose STag is not valid at the Data Sink is not placed and is reported as DDP tagged "
        "error 0x00 (invalid STag)"),
    row("rfc5041-7.1-base-bounds", kMust, P,
        "A tagged segment that would place outside the STag's buffer (TO below its base or TO plus length above "
        "its bound) is not placed and is reported as DDP tagged error 0x01"),
    row("rfc5041-7.1-stag-not-associated", kMust, P,
        "A tagged segment whose STag belongs to another Protection Domain than the stream is not placed and is "
        "reported as DDP tagged error 0x02"),
    row("rfc5041-7.1-to-wrap", kMust, P,
        "A tagged segment whose TO plus length wraps past 2^64 is not placed and is reported as DDP tagged error "
        "0x03"),
    row("rfc5041-7.1-tagged-dv", kMust, P,
        "A tagged segment with a DV other than 1 is reported as DDP tagged error 0x04 (invalid DDP version)"),
    row("rfc5041-7.1-qn-invalid", kMust, P,
        "An untagged segment for a queue number the Data Sink does not have is reported as DDP untagged error 0x01"),
    row("rfc5041-7.1-msn-no-buffer", kMust, P,
        "An untagged segment whose MSN has no posted buffer is reported as DDP untagged error 0x02"),
    row("rfc5041-7.1-msn-range", kMust, P,
        "An untagged segment whose MSN is outside the range the Data Sink accepts (already delivered, or too far "
        "ahead) is reported as DDP untagged error 0x03"),
    row("rfc5041-7.1-mo-invalid", kMust, P,
        "An untagged segment whose MO is not valid for the message is reported as DDP untagged error 0x04"),
    row("rfc5041-7.1-too-long", kMust, P,
        "An untagged message longer than the posted buffer is reported as DDP untagged error 0x05 (message too "
        "long)"),
    row("rfc5041-7.1-untagged-dv", kMust, P,
        "An untagged segment with a DV other than 1 is reported as DDP untagged error 0x06 (invalid DDP version)"),
    row("rfc5041-7.1-no-place-on-error", kMustNot, N,
        "A segment found in error places no data at all (tested by reading the target buffer afterwards)",
        "what an erroneous segment left in memory is local: the error ends the stream, so nothing on it can read the buffer back"),
    row("rfc5041-7.1-report-to-ulp", kMust, P,
        "DDP reports each error to its ULP with the layer, type and code and the failing header, so the ULP can "
        "send a Terminate"),
    row("rfc5041-7.1-ulp-terminate", kMust, P,
        "The error is reported to the peer in a Terminate (RDMAP §4.8) naming Layer DDP and the error's type and "
        "code"),
    row("rfc5041-7.1-check-all-segments", kMust, P,
        "Every segment is checked, not only the first of a message"),
    row("rfc5041-7.1-after-error-stream-dead", kMustNot, P,
        "After a reported error the Data Sink places and delivers nothing more on the stream"),
    row("rfc5041-7.1-catastrophic", kMay, N,
        "A local failure that stops the stream is reported as DDP catastrophic error (type 0x0, code 0x00)",
        "a report of a local failure that no peer can bring about"),

    // §7.2 DDP Error Numbers (values agree with siw and IANA RDDP registry)
    row("rfc5041-7.2-layer-ddp", kMust, W, "A Terminate for a DDP error carries Layer 0x1 (DDP)"),
    row("rfc5041-7.2-etype-tagged", kMust, W, "Tagged buffer errors carry error type 0x1"),
    row("rfc5041-7.2-etype-untagged", kMust, W, "Untagged buffer errors carry error type 0x2"),
    row("rfc5041-7.2-etype-catastrophic", kMust, W, "Catastrophic DDP errors carry error type 0x0 and code 0x00"),

    // §8 Security Considerations
    row("rfc5041-8-rfc5042", kMust, N, "A DDP implementation meets the security requirements of RFC 5042",
        "a reference to RFC 5042 (its observable rules are rows of rfc5042)"),
    row("rfc5041-8.2-stag-stream", kMust, P,
        "An STag is used only on the DDP Streams of its Protection Domain; a segment from another stream is "
        "rejected"),
    row("rfc5041-8.4.2-ipsec", kMust, N, "A DDP/MPA implementation supports IPsec as RFC 5042 and RFC 3723 describe",
        "IPsec works below TCP"),
    row("rfc5041-8.1-invalidate-before-reuse", kShould, N,
        "A ULP invalidates an STag before reusing its buffer for something else",
        "buffer reuse is a local ULP decision"),
    row("rfc5041-8.2-stream-pd", kMust, N,
        "The ULP associates each DDP Stream with a Protection Domain when it sets the stream up",
        "a local resource binding (its effect is tested through rfc5041-7.1-stag-not-associated)"),

    // ---- Rules the passive capture observer reports (pcap/analysis/rules.hpp), registered under the ids
    // it already emits. Where an older row states the same requirement from the implementation's side,
    // the summary names it. Observable in a capture of both directions.
    row("rfc5041-4.4-segment-header", kMust, W,
        "Every ULPDU an FPDU carries holds at least the complete DDP header its T bit announces (14 octets tagged, "
        "18 untagged)")
        .says("a ULPDU holds at least a complete DDP header"),
};

}  // namespace rdmaconf::requirements::detail::rfc5041
