// RFC 7306: RDMA Protocol Extensions (atomic operations, immediate data).
//
// Checked against the RFC text: every normative sentence is accounted for in
// trace_rfc7306.cpp. Section comments keep the project's grouping; an id
// names the section (or a parent section) holding its requirement.
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc7306 {

using enum Level;

inline constexpr Requirement kRows[] = {
    // §1.1 Discovery of the extensions
    row("rfc7306-1.1-negotiated-out-of-band", kShouldNot, N,
        "A side sends atomic or immediate data messages only to a peer the ULP knows supports them",
        "what the ULP knows of its peer is agreed outside RDMAP; nothing on the wire says what the sender knew"),

    // §4 Header format extensions
    row("rfc7306-4-opcodes", kMust, W,
        "Opcodes: 0x8 Immediate Data, 0x9 Immediate Data with Solicited Event, 0xA Atomic Request, 0xB Atomic "
        "Response"),
    row("rfc7306-4-single-segment", kMust, W,
        "Each Atomic Request, Atomic Response and Immediate Data message is one DDP segment with L set and MO 0"),
    row("rfc7306-4-rsvdulp-zero", kMust, W,
        "The 32-bit ULP field of the untagged header is sent as zero in the extension messages"),
    row("rfc7306-4.1-untagged", kMust, W, "All four extension messages are untagged DDP messages"),
    row("rfc7306-4.1-rv-1", kMust, W, "The extension messages carry RV 1 like every RFC 5040 message"),

    // §5 Atomic operations
    row("rfc7306-5-request-layout", kMust, W,
        "An Atomic Request's payload is its 52-octet header: reserved bits and the 4-bit atomic opcode, Request "
        "Identifier, Remote STag, Remote Tagged Offset, Add/Swap Data, Add/Swap Mask, Compare Data, Compare Mask"),
    row("rfc7306-5-response-layout", kMust, W,
        "An Atomic Response's payload is the answered Request Identifier followed by the 64-bit original remote "
        "data value"),
    row("rfc7306-5-atomic-opcodes", kMust, W,
        "Atomic opcodes: Figure 5 defines 0000b FetchAdd and 0010b CmpSwap; the text also names a Swap operation "
        "without a code in Figure 5 (the project uses 0001b for it); other values are reserved"),
    row("rfc7306-5-reserved-zero", kMust, W, "The reserved bits before the atomic opcode are sent as zero"),
    row("rfc7306-5-reserved-ignored", kMustNot, P, "Those reserved bits are not checked on receipt"),
    row("rfc7306-5-length-8", kMust, W, "An atomic operation acts on exactly 8 octets of the remote buffer"),
    row("rfc7306-5-stag-check", kMust, P,
        "The responder checks the Remote STag and range like an RDMA Read source (valid, stream, bounds, wrap) and "
        "terminates with the matching remote protection error"),
    row("rfc7306-5-access-check", kMust, P,
        "An Atomic Request naming a buffer without remote atomic access is terminated with remote protection 0x02 "
        "(access rights)"),
    row("rfc7306-5-fetchadd", kMust, P,
        "FetchAdd adds Add Data to the remote word, with each 1 bit of Add Mask ending a field so carries do not "
        "cross into the next field, and returns the original value"),
    row("rfc7306-5-swap", kMust, P,
        "Swap replaces the remote word's bits selected by Swap Mask with Swap Data's and returns the original value"),
    row("rfc7306-5-cmpswap", kMust, P,
        "CompareSwap compares the remote word with Compare Data on the bits of Compare Mask; when equal it replaces "
        "the bits of Swap Mask with Swap Data's; it always returns the original value"),
    row("rfc7306-5-unused-fields", kMust, W,
        "For FetchAdd and Swap the unused Compare Data is sent as zero and Compare Mask as all ones; Swap sends "
        "Add or Swap Mask as all ones"),
    row("rfc7306-5-unused-fields-ignored", kMustNot, P, "Fields an atomic opcode does not use are not checked"),
    row("rfc7306-5-atomicity", kMust, N,
        "The read-modify-write is atomic with respect to other atomics on the same word through the same RNIC",
        "concurrency inside the responder cannot be seen from one stream"),
    row("rfc7306-5-response-identifier", kMust, W,
        "An Atomic Response carries the Request Identifier of the request it answers"),
    row("rfc7306-5-ord-limit", kMustNot, W,
        "A requester never has more Read and Atomic Requests outstanding than its ORD"),
    row("rfc7306-5-unsolicited-response", kMust, P,
        "An Atomic Response that answers no outstanding request terminates the stream"),
    row("rfc7306-5-msn", kMust, W,
        "Atomic Requests and Atomic Responses carry consecutive MSNs on their queues, starting at 1"),
    row("rfc7306-5-qn", kMust, W,
        "Atomic Requests and Responses are sent on the untagged queues RFC 7306 assigns to them, no other"),
    row("rfc7306-5.1.1-alignment", kMust, P,
        "The Remote Tagged Offset of an atomic names a naturally aligned 64-bit word; a misaligned one changes no "
        "memory and is refused with a Terminate: Remote Operation Error, catastrophic error localized to the stream "
        "(0x2/0x07, §8.2)"),
    row("rfc7306-5.1.1-no-memory-change", kMustNot, P,
        "An Atomic Request found in error changes no remote memory"),
    row("rfc7306-5.2.1-reserved-atomic-opcode", kMust, P,
        "An Atomic Request with a reserved atomic opcode is terminated without touching memory"),
    row("rfc7306-5.2.1-one-response", kMust, W, "Each Atomic Request is answered by exactly one Atomic Response"),
    row("rfc7306-5.2.1-response-order", kMust, W,
        "Atomic Responses (with Read Responses) are returned in the order the requests arrived")
        .says("an Atomic Response answers the oldest outstanding Atomic Request"),
    row("rfc7306-5.2.2-ird-shared", kMust, P,
        "Atomic Requests count against the same IRD/ORD limits as RDMA Read Requests"),
    row("rfc7306-5.4-atomic-after-write", kMust, N,
        "An atomic sees the effect of every earlier RDMA Write and atomic on the same stream",
        "ordering inside the responder's memory"),
    row("rfc7306-5.4-completion-order", kMust, N, "Atomic operations complete to the requester's ULP in posting order",
        "completions are local"),

    // §6 Immediate Data
    row("rfc7306-6-immediate-no-buffer", kMust, N,
        "The 8 octets are delivered in the receive completion, not placed in a posted buffer",
        "where the receiver delivers them is local"),
    row("rfc7306-6-immediate-se", kMust, N,
        "Immediate Data with Solicited Event raises the solicited completion event like a Send with SE",
        "event generation is local"),
    row("rfc7306-6-immediate-after-write", kMust, N,
        "An Immediate Data message that follows an RDMA Write completes only after the Write's data is placed",
        "ordering shows only in the receiver's memory and completions"),
    row("rfc7306-6.3-immediate-payload", kMust, W, "An Immediate Data message carries exactly 8 octets of payload"),
    row("rfc7306-6.3-immediate-size", kMust, P,
        "An Immediate Data message with a payload other than 8 octets is a malformed message that terminates the "
        "stream"),
    row("rfc7306-6.3-immediate-qn", kMust, W, "Immediate Data messages are sent on untagged queue 0"),
    row("rfc7306-6.3-immediate-msn", kMust, W,
        "Immediate Data messages share the Send queue's MSN sequence"),

    // §7 Ordering and completions
    row("rfc7306-7-fence", kMust, W,
        "An operation posted with the Read fence waits for outstanding Atomic Responses as for Read Responses"),

    // §8 Error processing
    row("rfc7306-8-copy-atomic-header", kShould, W,
        "A Terminate for an error in an Atomic Request copies the DDP header and the Atomic Request header (R set)"),
    row("rfc7306-8.2-unsupported-opcode", kMust, P,
        "A side that does not implement an extension opcode answers it with a Terminate: RDMAP, remote operation, "
        "unexpected opcode (0x06)"),
    row("rfc7306-8.2-existing-codes", kMust, P,
        "Errors in extension messages are reported with the Terminate codes of RFC 5040 and RFC 5041"),

    // §9 Security
    row("rfc7306-9-remote-atomic-right", kMust, N,
        "Remote atomic access is a separate access right granted per buffer by the ULP",
        "granting rights is a local registration step"),
};

}  // namespace rdmaconf::requirements::detail::rfc7306
