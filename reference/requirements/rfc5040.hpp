// RFC 5040: A Remote Direct Memory Access Protocol Specification (RDMAP).
//
// Checked against the RFC text: every normative sentence is accounted for in
// trace_rfc5040.cpp. Rows whose id named another section than the one that
// holds the requirement were renamed (old ids in aliases.cpp). Section
// comments below keep the project's grouping; a row's id gives its section.
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc5040 {

using enum Level;

inline constexpr Requirement kRows[] = {
    // §3 ULP and Transport Attributes
    row("rfc5040-3-one-stream", kMust, N, "An RDMAP Stream maps to exactly one DDP Stream and one LLP stream",
        "a binding local to each side"),
    row("rfc5040-3-ulp-buffers", kMust, N,
        "The ULP registers and advertises buffers (STags) for tagged access before the peer uses them",
        "registration and advertisement go through the ULP, not RDMAP"),
    row("rfc5040-3.1-ddp-below", kMust, N, "RDMAP runs over DDP (RFC 5041) on an LLP stream in DDP mode",
        "a property of the stack, not of RDMAP's octets"),

    // §4.1 RDMAP Control and Invalidate STag Field
    row("rfc5040-4.1-rv-1", kMust, W, "RV (RDMAP version) is 01 in every RDMAP message of this version")
        .says("RV is 1"),
    row("rfc5040-7.2-rv-check", kMust, P,
        "A message with RV other than 1 is answered with a Terminate: RDMAP, remote operation error, 0x05 "
        "(invalid RDMAP version)"),
    row("rfc5040-4.1-rsvd-zero", kMust, W, "The two reserved bits of the RDMAP control field are sent as zero"),
    row("rfc5040-4.1-rsvd-ignored", kMustNot, P, "The RDMAP control field's reserved bits are not checked on receipt"),
    row("rfc5040-4.1-invalidate-stag", kMust, W,
        "A Send with Invalidate (or with SE and Invalidate) carries the STag to invalidate in the untagged header's "
        "32-bit ULP field"),
    row("rfc5040-4.1-ulp-field-zero", kMust, W,
        "In untagged messages other than the with-Invalidate Sends that 32-bit field is sent as zero"),
    row("rfc5040-4.1-ulp-field-ignored", kMustNot, P,
        "That 32-bit field is not checked in received messages that do not invalidate"),

    // §4.2 RDMA Message Definitions (opcodes/QNs agree with siw)
    row("rfc5040-4.1-opcodes", kMust, W,
        "Opcodes: 0 RDMA Write, 1 Read Request, 2 Read Response, 3 Send, 4 Send with Invalidate, 5 Send with SE, "
        "6 Send with SE and Invalidate, 7 Terminate")
        .says("the opcode is one RFC 5040 or RFC 7306 defines").also("RFC 7306 §4"),
    row("rfc5040-7.2-opcode-check", kMust, P,
        "A message with an opcode the receiver does not support is answered with a Terminate: RDMAP, remote "
        "operation error, 0x06 (unexpected opcode)"),
    row("rfc5040-4.1-tagged-kinds", kMust, W, "RDMA Write and RDMA Read Response are sent as tagged DDP messages")
        .says("the DDP T bit is the one the opcode requires"),
    row("rfc5040-4.1-untagged-kinds", kMust, W,
        "Read Request, the Sends and Terminate are sent as untagged DDP messages"),
    row("rfc5040-4.2-wrong-model", kMust, P,
        "A message whose DDP model (tagged/untagged) does not match its opcode is treated as an unexpected opcode"),
    row("rfc5040-5.3-qn-send", kMust, W, "The Sends use untagged queue 0"),
    row("rfc5040-5.2.1-qn-read-request", kMust, W, "Read Requests use untagged queue 1"),
    row("rfc5040-5.4-qn-terminate", kMust, W, "Terminate uses untagged queue 2"),
    row("rfc5040-4.2-qn-other", kMust, P,
        "An untagged message on any other queue number is reported as DDP untagged error 0x01 (invalid QN)"),
    row("rfc5040-4.1-qn-opcode-match", kMust, P,
        "An untagged message whose queue does not fit its opcode (a Send on QN 1, ...) is an error")
        .says("an untagged message uses the queue its opcode belongs to").also("RFC 5041 §4.3"),

    // §4.4 RDMA Read Request Header (layout agrees with siw iwarp_rdma_rreq)
    row("rfc5040-4.4-read-request-layout", kMust, W,
        "A Read Request's payload is exactly its 28-octet header: Data Sink STag, Data Sink TO, RDMA Read Message "
        "Size, Data Source STag, Data Source TO"),
    row("rfc5040-4.4-read-request-size", kMust, P,
        "A Read Request whose payload is not exactly 28 octets is a malformed message and is terminated"),

    // §4.8 Terminate Header (values also in the IANA RDDP registry, RFC 6580).
    row("rfc5040-4.8-terminate-layer-etype-code", kMust, W,
        "A Terminate begins with Layer (0 RDMAP, 1 DDP, 2 LLP), Error Type and Error Code naming the error that "
        "ended the stream"),
    row("rfc5040-4.8-hdrct-m", kMust, W, "M is set exactly when the DDP Segment Length field is valid"),
    row("rfc5040-4.8-hdrct-d", kMust, W,
        "D is set exactly when the Terminate carries the DDP header of the segment in error"),
    row("rfc5040-4.8-hdrct-r", kMust, W,
        "R is set exactly when the Terminate carries the RDMAP header (Read Request header) of the message in error"),
    row("rfc5040-4.8-reserved-zero", kMust, W, "The 13 reserved bits of the Terminate Control are sent as zero"),
    row("rfc5040-4.8-segment-length", kMust, W,
        "The DDP Segment Length field gives the length of the DDP segment in error as the LLP delivered it"),
    row("rfc5040-4.8-copy-ddp-header", kShould, W,
        "A Terminate for a DDP-layer error, or an RDMAP Remote Protection or Remote Operation Error caused by a "
        "received segment, sets M and D and carries that segment's length and DDP header (Figure 10), whatever "
        "its DDP or RDMAP version or opcode"),
    row("rfc5040-4.8-copy-rdma-header", kShould, W,
        "A Terminate for a Remote Protection Error in a Read Request sets R and carries the Read Request header "
        "as well; no other error carries an RDMA header (Figure 10)"),
    // Withdrawn: written before the text was read; Figure 10 requires the opposite
    // (rfc5040-4.8-copy-ddp-header). Kept so old reports still resolve.
    row("rfc5040-4.8-no-copy-unknown-layout", kShouldNot, N,
        "Withdrawn: the RFC has no rule against copying a header of unknown layout; Figure 10 has the DDP header "
        "copied for these errors (rfc5040-4.8-copy-ddp-header)",
        "withdrawn: not a requirement of the RFC"),
    row("rfc5040-4.8-code-catastrophic", kMust, N,
        "Local catastrophic error: RDMAP layer, error type 0x0, code 0x00",
        "the code of a local failure that no peer can bring about"),
    row("rfc5040-4.8-code-invalid-stag", kMust, W, "Remote protection / invalid STag: type 0x1, code 0x00"),
    row("rfc5040-4.8-code-base-bounds", kMust, W, "Remote protection / base or bounds violation: type 0x1, code 0x01"),
    row("rfc5040-4.8-code-access-rights", kMust, W,
        "Remote protection / access rights violation: type 0x1, code 0x02"),
    row("rfc5040-4.8-code-stag-not-associated", kMust, W,
        "Remote protection / STag not associated with the RDMAP Stream: type 0x1, code 0x03"),
    row("rfc5040-4.8-code-to-wrap", kMust, W, "Remote protection / TO wrap: type 0x1, code 0x04"),
    row("rfc5040-4.8-code-invalid-version", kMust, W, "Remote operation / invalid RDMAP version: type 0x2, code 0x05"),
    row("rfc5040-4.8-code-unexpected-opcode", kMust, W, "Remote operation / unexpected opcode: type 0x2, code 0x06"),
    row("rfc5040-4.8-code-catastrophic-stream", kMust, N,
        "Remote operation / catastrophic error localized to the stream: type 0x2, code 0x07",
        "the code of a failure inside the responder that no peer can bring about"),
    row("rfc5040-4.8-code-catastrophic-global", kMust, N,
        "Remote operation / catastrophic error global: type 0x2, code 0x08",
        "the code of a failure inside the responder that no peer can bring about"),
    row("rfc5040-4.8-code-cannot-invalidate", kMust, W,
        "STag cannot be invalidated: code 0x09 (remote protection type 0x1, or remote operation type 0x2)"),
    row("rfc5040-4.8-code-unspecified", kMay, W, "An error no other code fits is reported with code 0xFF (unspecified)"),

    // §5.1 RDMA Write Message
    row("rfc5040-5.1-write-advertised-only", kMustNot, W,
        "A Data Source writes only into a buffer the peer advertised for remote write"),
    row("rfc5040-5.1-write-access-check", kMust, P,
        "A Data Sink places an RDMA Write only into a buffer with remote write access; otherwise it terminates the "
        "stream"),
    row("rfc5040-5.1-write-no-completion", kMustNot, N,
        "An RDMA Write does not complete a receive at the Data Sink", "completions are local"),
    row("rfc5040-5.1-write-zero-length", kMay, W,
        "An RDMA Write may carry no data; the Data Sink then does not validate its STag and TO"),
    row("rfc5040-5.1-write-validation", kMust, P,
        "Each tagged segment of an RDMA Write is checked (STag, bounds, stream association, TO wrap) before placement"),

    // §5.2.1 RDMA Read Request Message
    row("rfc5040-5.2.1-single-segment", kMust, W, "A Read Request is sent as a single DDP segment (L set, MO 0)")
        .says("Read Requests, Terminates, Immediate Data and Atomics are one segment with L set"),
    row("rfc5040-5.2.1-msn-order", kMust, W,
        "Read Requests carry consecutive MSNs on queue 1, starting at 1"),
    row("rfc5040-5.2.1-source-check", kMust, P,
        "The Data Source checks the Data Source STag and range (valid, remote read access, bounds, stream, wrap) "
        "and terminates with the matching remote protection error when one fails"),
    row("rfc5040-5.2.1-source-access", kMust, P,
        "A Read Request naming a buffer without remote read access is terminated with remote protection 0x02 "
        "(access rights violation)"),
    row("rfc5040-5.2.1-read-answered", kMust, P, "A Data Source answers every valid Read Request with a valid Read Response"),
    row("rfc5040-5.2.1-zero-length-unchecked", kMustNot, P,
        "A Read Request for zero octets has its Data Source STag and TO left unchecked and gets a zero-length Read "
        "Response"),
    row("rfc5040-5.2.1-zero-length", kMay, W,
        "A Read Request may ask for zero octets; its Data Source STag and TO are then not validated and a "
        "zero-length Read Response answers it"),
    row("rfc5040-5.2.1-response-order", kMust, W,
        "Read Responses are sent in the order of the Read Requests they answer"),

    // §5.2.2 RDMA Read Response Message
    row("rfc5040-5.2.2-response-sink", kMust, W,
        "A Read Response carries the Read Request's Data Sink STag and places from its Data Sink TO onward"),
    row("rfc5040-5.2.2-response-size", kMust, W,
        "A Read Response carries exactly the number of octets the Read Request asked for"),
    row("rfc5040-5.2.2-unsolicited-response", kMust, P,
        "A Read Response that answers no outstanding Read Request is an error that terminates the stream"),
    row("rfc5040-5.2.2-response-checked", kMust, P,
        "The requester checks each Read Response segment against its Data Sink buffer like any tagged segment"),

    // §5.3 Send Operation
    row("rfc5040-5.3-send-buffer", kMust, P,
        "A Send that finds no posted receive buffer ends the stream with a Terminate (DDP untagged, no buffer)"),
    row("rfc5040-5.3-send-too-long", kMust, P,
        "A Send longer than the posted buffer is terminated with DDP untagged error 0x05 (message too long)"),
    row("rfc5040-5.3-send-msn", kMust, W, "Sends carry consecutive MSNs on queue 0, starting at 1"),
    row("rfc5040-5.3-send-invalidate", kMust, N,
        "A Send with Invalidate invalidates the named STag before the Send's receive completes",
        "the STag state change is local (its effect shows only when the peer later uses that STag)"),
    row("rfc5040-5.3-invalidate-check", kMust, P,
        "A Send with Invalidate naming an STag that cannot be invalidated (invalid, other PD, not invalidatable) is "
        "terminated with code 0x09"),
    row("rfc5040-5.3-solicited-event", kMust, N,
        "A Send with Solicited Event raises the receiver's completion event when the ULP asked for solicited events",
        "event generation is local"),
    row("rfc5040-5.3-zero-length-send", kMay, W, "A Send may carry no data"),

    // §5.4 Terminate Message
    row("rfc5040-5.4-terminate-last", kMustNot, W, "Nothing is sent on the stream after a Terminate")
        .says("a Terminate is the last message its sender sends"),
    row("rfc5040-5.4-terminate-received", kMust, P,
        "A side that receives a Terminate stops processing the stream and closes it; it does not answer with "
        "another Terminate"),
    row("rfc5040-5.4-terminate-once", kMustNot, W, "A side sends at most one Terminate on a stream"),
    row("rfc5040-5.4-terminate-best-effort", kMay, N,
        "A side may close without sending a Terminate when the LLP can no longer carry it",
        "a permission for when the LLP can no longer carry a Terminate, a local condition a peer sees only as a close"),
    row("rfc5040-5.4-terminate-one-segment", kMust, W,
        "A Terminate is one untagged DDP segment on queue 2 with L set, MO 0"),
    row("rfc5040-5.4-remote-errors", kMust, N,
        "A received Terminate is reported to the ULP with its layer, type and code", "a local interface"),

    // §5.5 Ordering and Completions
    row("rfc5040-5.5-message-order", kMust, W, "RDMAP messages are sent in the order the ULP posted them"),
    row("rfc5040-5.5-read-fence", kMust, W,
        "A message posted with the Read fence is not sent until all earlier Read Responses have been received"),
    row("rfc5040-5.5-completion-order", kMust, N,
        "Send-side operations complete to the ULP in the order they were posted",
        "completion queues are local"),
    row("rfc5040-5.5-write-before-send", kMust, N,
        "Data of an RDMA Write is placed before a later Send to the same peer completes at it",
        "the ordering shows only in the peer's memory and completions"),
    row("rfc5040-5.5-read-response-not-before", kMustNot, W,
        "A Read Response is not sent before the data of earlier RDMA Writes and Sends from the requester has been "
        "placed"),

    // §6.1 Stream Initialization
    row("rfc5040-6.1-first-message", kMust, W,
        "In the client/server model the initiator (active side) sends the first RDMAP message"),
    row("rfc5040-6.1-responder-waits", kMustNot, W,
        "The responder sends no RDMAP message before the first message from the initiator has arrived"),
    row("rfc5040-6.1-msn-start", kMust, W, "MSNs of all three queues start at 1 on a new stream"),
    row("rfc5040-6.1-rdma-only", kMust, W,
        "Once the stream is in RDMA mode a side sends only RDMAP messages on it, until the stream is torn down"),
    row("rfc5040-6.1-ird-ord-fixed", kMust, P,
        "The stream's IRD and ORD are settled when the stream starts (for MPA by RFC 6581's exchange) and hold for "
        "its life"),
    row("rfc5040-6.1-ird-ord-to-ulp", kMust, N,
        "The IRD and ORD in force are reported to the ULP at both ends, even when they differ from what it asked",
        "a local interface (a public linux-rdma review cites RFC 5040 §6.1 for it)"),
    row("rfc5040-6.1-ord-limit", kMustNot, W,
        "A side never has more Read Requests outstanding than the ORD (the peer's IRD) allows")
        .says("outstanding Read Requests never exceed the responder's advertised IRD").also("RFC 6581 §9"),
    row("rfc5040-6.1-ird-exceeded", kMust, P,
        "A Data Source that receives more outstanding Read Requests than its IRD terminates the stream"),

    // §6.2 Stream Teardown
    row("rfc5040-6.2.1-graceful", kMust, N,
        "A graceful teardown completes every message already handed to RDMAP before the LLP closes",
        "what was posted is local"),
    row("rfc5040-6.2.1-no-new-after-close", kMustNot, W, "No new RDMAP message is sent after a graceful close began"),
    row("rfc5040-6.2.1-terminate-graceful-close", kShould, W,
        "After a Terminate the LLP stream is closed gracefully (FIN, not reset), so that the Terminate arrives"),
    row("rfc5040-6.2.2-abortive", kMust, P,
        "An abortive teardown (after a Terminate or a fatal error) closes the LLP stream; outstanding operations "
        "complete in error"),
    row("rfc5040-6.2.2-no-place-after-abort", kMustNot, N,
        "After an abortive teardown nothing more is placed into the ULP's buffers",
        "placement is local"),

    // §7 RDMAP Error Management
    // Observable as peer through the IUT's own report (the device agent).
    row("rfc5040-7.1-surface-to-ulp", kMust, P, "Errors detected by RDMAP, DDP or the LLP are surfaced to the local ULP"),
    row("rfc5040-7.1-first-error-reported", kMust, P,
        "When several received messages are found in error before the Terminate goes out, the Terminate reports "
        "the first of them"),
    row("rfc5040-7.2-ddp-error-layer", kMust, P,
        "Errors detected by DDP are sent with Layer 1 and DDP's error type and code, not translated to RDMAP codes"),
    row("rfc5040-7.2-llp-error-layer", kMust, P,
        "Errors detected by MPA are sent with Layer 2 and MPA's error code"),
    row("rfc5040-7.1-terminate-on-error", kMust, P,
        "A side that detects a fatal error sends a Terminate (when the stream can still carry it) before closing"),
    row("rfc5040-7.1-local-errors-terminate", kMust, P,
        "An error detected in a received message is reported to the peer in a Terminate with the detecting layer's "
        "code"),

    // §8 Security Considerations
    row("rfc5040-8.1.1-stag-per-stream", kMust, P,
        "An STag advertised on one stream is refused on a stream of another Protection Domain"),
    row("rfc5040-8.2.2-ipsec", kMust, N, "An implementation supports IPsec as RFC 5042 describes",
        "IPsec works below TCP"),
    row("rfc5040-8.1.1-invalidated-stag-refused", kMust, P,
        "After a Send with Invalidate, later tagged access through the invalidated STag fails as an invalid STag"),
    row("rfc5040-8.1-rfc5042", kMust, N, "An RDMAP implementation meets the security requirements of RFC 5042",
        "a reference to RFC 5042 (its observable rules are rows of rfc5042)"),

    // ---- Rules the passive capture observer reports (pcap/analysis/rules.hpp), registered under the ids
    // it already emits. Where an older row states the same requirement from the implementation's side,
    // the summary names it. Observable in a capture of both directions.
    row("rfc5040-4.2-payload-size", kMust, W,
        "An RDMAP message of fixed layout (Read Request; RFC 7306 Atomic Request and Response, Immediate Data) "
        "carries exactly its header, no more and no fewer octets (passive form of rfc5040-4.4-read-request-layout, "
        "extended to RFC 7306)")
        .says("a fixed-size RDMAP message carries exactly its header").also("RFC 7306 §4"),
    row("rfc5040-4.8-terminate-format", kMust, W,
        "A Terminate is well formed: the M, D and R bits of its control field match the DDP Segment Length, DDP "
        "header and RDMA header copies that follow, and nothing else follows")
        .says("a Terminate's header control bits match the octets it carries"),
    row("rfc5040-5.2-read-response-solicited", kMust, W,
        "Every Read Response a side sends answers a Read Request it received and has not answered yet (the sender's "
        "side of rfc5040-5.2.2-unsolicited-response)")
        .says("an RDMA Read Response answers an outstanding Read Request"),
    row("rfc5040-5.2.2-read-response-sink", kMust, W,
        "Checked by pairing requests with responses: a Read Response goes to the Data Sink STag of the Read Request "
        "it answers and its segments cover consecutive TOs from that request's Data Sink TO (as "
        "rfc5040-5.2.2-response-sink)")
        .says("a Read Response goes to the requested Data Sink STag and TO"),
    row("rfc5040-5.2-read-response-size", kMust, W,
        "Checked by pairing: the payload of a Read Response, over all its segments, equals the RDMA Read Message "
        "Size of the Read Request it answers (as rfc5040-5.2.2-response-size)")
        .says("a Read Response carries exactly the requested RDMA Read Message Size"),
};

}  // namespace rdmaconf::requirements::detail::rfc5040
