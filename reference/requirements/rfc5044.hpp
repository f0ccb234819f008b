// RFC 5044: Marker PDU Aligned Framing for TCP (MPA).
//
// Checked against the RFC text: every normative sentence is accounted for in
// trace_rfc5044.cpp (the `requirements --rfc-dir` command checks it). Rows
// whose id named another section than the one holding the requirement were
// renamed; their old ids resolve through aliases.cpp.
#pragma once

#include "requirements/rows.hpp"

namespace rdmaconf::requirements::detail::rfc5044 {

using enum Level;

inline constexpr Requirement kRows[] = {
    // §3 ULP Interaction with MPA (what MPA and DDP hand each other; only sizes show on the wire)
    row("rfc5044-3-one-ulpdu-per-fpdu", kMust, W, "Each FPDU carries exactly one ULPDU (one DDP segment)"),
    row("rfc5044-3-ulpdu-max-mulpdu", kShould, W,
        "DDP keeps each ULPDU it hands to MPA within the current MULPDU (MPA need not accept larger ones)"),
    row("rfc5044-3-mulpdu-range", kMust, N,
        "The MULPDU MPA reports to DDP lies between 128 and 64768 octets; MPA never offers less than 128, "
        "even when FPDUs already fill most of a segment",
        "MULPDU is a local value handed to DDP; only FPDU sizes show"),
    row("rfc5044-3-ulpdu-max-64768", kMustNot, W, "No ULPDU is longer than 64768 octets"),
    row("rfc5044-3-mulpdu-to-ulp", kMust, N, "MPA tells DDP the current MULPDU",
        "a local interface between MPA and DDP"),

    // §4.1 FPDU Format
    row("rfc5044-4.1-ulpdu-length", kMust, W,
        "ULPDU_Length carries the number of ULPDU octets only: not itself, the PAD, the CRC or any Markers"),
    row("rfc5044-4.1-pad-length", kMust, W,
        "PAD is 0-3 octets so that ULPDU_Length, ULPDU and PAD together are a multiple of four octets"),
    row("rfc5044-4.1-pad-zero", kMust, W, "The sender fills the PAD octets with zero")
        .says("PAD octets are sent as zero"),
    row("rfc5044-4.1-pad-ignored", kMust, P,
        "The receiver ignores the PAD octets' values (apart from covering them with the CRC)"),
    row("rfc5044-4.1-crc-field-present", kMust, W,
        "Every FPDU ends with a four-octet CRC field, whether or not CRCs were negotiated"),
    row("rfc5044-4.1-crc-off-not-checked", kMustNot, P,
        "When CRCs were not negotiated the receiver does not check the CRC field, whatever it holds"),
    row("rfc5044-4.1-fpdu-in-order", kMust, W,
        "FPDUs follow each other back to back in the TCP stream: each starts right after the previous one's CRC "
        "(and any Marker in between)"),

    // §4.2 Marker Format
    row("rfc5044-4.2-marker-res-zero", kMust, W, "The 16-bit Reserved half of a Marker is sent as zero")
        .says("a Marker's Reserved field is sent as zero"),
    row("rfc5044-4.2-marker-res-ignored", kMust, P, "The receiver does not check a Marker's Reserved half"),
    row("rfc5044-4.2-fpduptr", kMust, W,
        "FPDUPTR counts the octets back from the Marker's first octet to the first octet of the length field that "
        "opens its FPDU, counted across a sequence number wrap; every Marker inside one FPDU "
        "points to the same place; its low two bits are sent as zero and read as zero")
        .says("every Marker's FPDUPTR points back to its FPDU's ULPDU_Length"),

    // §4.3 MPA Markers
    row("rfc5044-4.3-markers-when-negotiated", kMust, W,
        "A sender inserts Markers in the direction whose receiver asked for them with M=1, and only there"),
    row("rfc5044-4.3-marker-interval", kMust, W,
        "Markers sit every 512 octets of the TCP stream, counted from the first octet of the first FPDU of full "
        "operation in that direction"),
    row("rfc5044-4.3-first-marker", kMust, W,
        "The first Marker of a direction is placed at the very start of full operation, ahead of the first FPDU's "
        "ULPDU_Length, and points to that FPDU"),
    row("rfc5044-4.3-marker-at-fpdu-start", kMust, W,
        "A Marker that falls exactly where an FPDU begins belongs to that FPDU and carries FPDUPTR 0"),
    row("rfc5044-4.3-markers-in-crc", kMust, W,
        "Markers that fall inside an FPDU (between its first octet and its CRC field) are covered by its CRC"),
    row("rfc5044-4.3-marker-not-in-ulpdu-length", kMust, W,
        "Markers are not counted in ULPDU_Length and do not change the PAD: they are removed before the ULPDU is "
        "handed to DDP"),

    // §4.4 CRC Calculation
    row("rfc5044-4.4-crc-coverage", kMust, W,
        "The CRC covers the FPDU from ULPDU_Length through the PAD, including any Markers inside, but not the CRC "
        "field itself"),
    row("rfc5044-4.4-crc32c", kMust, W,
        "The CRC is CRC32c (the iSCSI polynomial) and is sent in the octet order iSCSI uses")
        .says("the CRC field holds the CRC32c of the FPDU"),
    row("rfc5044-4.4-crc-check", kMust, P,
        "When CRCs are in use the receiver checks every FPDU's CRC before delivering its ULPDU"),
    row("rfc5044-4.4-crc-error-terminate", kMust, P,
        "A CRC mismatch is a fatal error: the receiver reports it (LLP Terminate, MPA CRC Error) and closes the "
        "connection"),
    // Seen as the peer through a test ULP that echoes what it is given: a
    // delivered ULPDU would come back (mpa-crc-error-no-delivery).
    row("rfc5044-4.4-crc-error-no-delivery", kMustNot, P,
        "An FPDU that fails its CRC is not passed up to DDP (an echoing ULP sends nothing back)"),

    // §4.5 FPDU Size Considerations
    row("rfc5044-4.5-mulpdu-formula", kMust, N,
        "MPA derives MULPDU from the TCP EMSS, leaving room for ULPDU_Length, CRC, PAD and the Markers an EMSS-sized "
        "FPDU can contain",
        "MULPDU is handed to DDP locally; only its effect (FPDU sizes) shows"),
    row("rfc5044-4.5-mulpdu-change", kShould, N,
        "When the EMSS changes, MPA recomputes MULPDU and tells DDP, which uses it for new segments",
        "a local interface; a peer cannot tell when the EMSS changed"),
    row("rfc5044-4.5-fpdu-fits-segment", kShould, W,
        "A sender sizes FPDUs so that each fits in one TCP segment of the current EMSS")
        .says("an FPDU fits in one TCP segment"),
    row("rfc5044-4.5-ulpdu-as-large", kShould, W,
        "DDP makes ULPDUs as large as MULPDU allows: a message longer than MULPDU is cut into MULPDU-sized segments "
        "but the last"),

    // §5 MPA's Interactions with TCP
    row("rfc5044-5.1-segment-alignment", kShould, W,
        "An optimized MPA/TCP sender starts each TCP segment with an FPDU and puts whole FPDUs in a segment")
        .says("FPDUs packed into a TCP segment end in it"),
    row("rfc5044-5.1-no-splitting-small", kShould, W,
        "A sender does not split an FPDU that fits in one segment across two segments")
        .says("an FPDU that fits in one TCP segment is not split across two"),
    row("rfc5044-5.1-retransmit-same", kMust, W,
        "Retransmitted TCP data carries exactly the octets first sent (the same FPDUs and Markers)")
        .says("octets TCP sends again are the octets it sent first"),
    row("rfc5044-5.2-receiver-may-use-markers", kMay, N,
        "A receiver may use Markers to find FPDU boundaries in out-of-order TCP segments",
        "a receiver's use of Markers for placement is internal"),
    row("rfc5044-5.1-no-segment-assumption", kMustNot, P,
        "A receiver does not rely on FPDUs being aligned with TCP segments: it accepts FPDUs split or coalesced "
        "anywhere"),

    // §6 MPA Receiver FPDU Identification
    row("rfc5044-6-fpdu-chain", kMust, P,
        "A receiver finds each FPDU from the previous one's ULPDU_Length (and PAD, CRC, Markers) starting at the "
        "first FPDU of full operation"),
    row("rfc5044-6-bad-length-error", kMust, P,
        "A ULPDU_Length that cannot be right (larger than the receiver's MULPDU, or disagreeing with a Marker) is "
        "a framing error that ends the connection"),
    row("rfc5044-6-out-of-order-placement", kMay, N,
        "A receiver may place ULPDUs from out-of-order segments once it has found and validated their FPDUs",
        "placement into memory is local"),
    row("rfc5044-6-partial-fpdu-at-close", kMust, P,
        "A receiver that sees the stream end inside an FPDU treats it as an error, not a short ULPDU"),

    // §7.1 Connection Setup
    row("rfc5044-7.1-streaming-mode-first", kMust, W,
        "Both sides start in streaming mode: the Request and Reply are exchanged before any FPDU"),
    row("rfc5044-7.1-same-point-both-ends", kMust, N,
        "MPA is switched on at the same octet of each half-connection at both ends",
        "how the two stacks hand the connection over is local; only a broken stream would show"),

    // §7.1.1 MPA Request and Reply Frame Format
    row("rfc5044-7.1.1-key-request", kMust, W, "A Request frame starts with the 16-octet key \"MPA ID Req Frame\""),
    row("rfc5044-7.1.1-key-reply", kMust, W, "A Reply frame starts with the 16-octet key \"MPA ID Rep Frame\"")
        .says("a Request starts with the Request key, a Reply with the Reply key"),
    row("rfc5044-7.1.1-key-check", kMust, P,
        "A side that receives a frame whose key is not the expected one treats it as a protocol error and closes "
        "(the responder may answer with a Reply with R set)"),
    row("rfc5044-7.1.1-m-flag", kMust, W,
        "M in a frame says its sender wants Markers in the FPDUs it will receive; each direction is set "
        "independently"),
    row("rfc5044-7.1.1-c-flag", kMust, W,
        "CRCs are used in both directions when either the Request or the Reply has C set"),
    row("rfc5044-7.1.1-c-reply-follows", kShould, W,
        "A responder that received C=1 sets C=1 in its Reply so that both frames show the CRC choice"),
    // The R bit of a Request: the text defines it as sent zero and not checked, without an RFC 2119
    // keyword; graded SHOULD / SHOULD NOT (a deviation is reported, not failed).
    row("rfc5044-7.1.1-r-request-zero", kShould, W, "R is sent as zero in a Request (defined so, no RFC 2119 keyword)")
        .says("R is set only in a Reply (defined so, without an RFC 2119 keyword)"),
    row("rfc5044-7.1.1-r-request-ignored", kShouldNot, P,
        "R is not checked in a received Request (defined so, no RFC 2119 keyword)"),
    row("rfc5044-7.1.1-res-zero", kMust, W, "The Res bits of a Request or Reply are sent as zero")
        .says("Res bits of a Request/Reply are sent as zero"),
    row("rfc5044-7.1.1-res-ignored", kMustNot, P, "The Res bits of a received Request or Reply are not checked"),
    row("rfc5044-7.1.1-rev-1", kMust, W, "A frame of this revision of MPA carries Rev 1")
        .says("Rev is a revision the RFCs define (1 or 2)"),
    row("rfc5044-7.1.1-rev-mismatch", kMust, P,
        "A receiver checks Rev; one that cannot work with the received revision closes the connection and reports "
        "the error locally"),
    row("rfc5044-7.1.1-pd-length", kMust, W,
        "PD_Length gives the exact number of Private Data octets that follow the frame header (0: none)"),
    row("rfc5044-7.1.1-private-data-max", kMustNot, W, "No side sends more than 512 octets of private data"),
    row("rfc5044-7.1.1-pd-length-max", kMust, P,
        "A receiver validates PD_Length: a value above 512, or private data not matching it, makes the frame "
        "malformed and the receiver closes the connection")
        .says("PD_Length is at most 512"),
    row("rfc5044-7.1.1-no-markers-unless-negotiated", kMustNot, W,
        "A sender never inserts Markers towards a receiver that did not ask for them"),

    // §7.1.2 Connection Startup Rules
    row("rfc5044-7.1.2-request-timer", kShould, P,
        "The initiator bounds its wait for the Reply with a timer and closes the connection when it expires"),
    row("rfc5044-7.1.2-responder-timer", kShould, P,
        "The responder bounds its wait for the Request and closes the connection when it expires"),
    row("rfc5044-7.1.2-reject-close", kMust, W,
        "After a Reply with R set both sides leave MPA: no FPDU is exchanged (the TCP connection itself stays open "
        "for the ULP)"),
    row("rfc5044-7.1.2-reject-received-close", kMust, P,
        "An initiator that receives a Reply with R set, or private data it does not accept, leaves MPA and sends no "
        "FPDU (the TCP connection stays open for its ULP)"),
    row("rfc5044-7.1.2-initiator-first-fpdu", kMust, W,
        "After the Reply, the initiator sends the first FPDU; the responder sends no FPDU before it received one"),
    row("rfc5044-7.1.2-responder-no-early-fpdu", kMustNot, W,
        "The responder sends no FPDU before the first FPDU from the initiator has arrived"),
    row("rfc5044-7.1.2-initiator-no-early-fpdu", kMustNot, W,
        "The initiator sends no FPDU before it has received the whole Reply (with R clear)")
        .says("the initiator sends no FPDU before it has received the Reply"),
    row("rfc5044-7.1.2-no-data-after-reject", kMustNot, W, "A responder that rejects sends no FPDU after its Reply")
        .says("no FPDU follows a Reply with R set"),
    row("rfc5044-7.1.2-frame-before-fpdu-error", kMust, P,
        "Octets that arrive where a Request or Reply is expected but do not form one end the connection"),
    row("rfc5044-7.1.2-markers-crc-from-first-fpdu", kMust, W,
        "The negotiated Marker and CRC settings apply from the first FPDU in each direction"),
    row("rfc5044-7.1.2-tcp-keepalive", kMay, N,
        "Either side may use TCP keep-alive during startup to detect a silent peer",
        "keep-alive is a TCP-level choice, not visible as MPA behaviour"),
    row("rfc5044-7.1.2-initiator-sends-request", kMust, W,
        "The initiator's first octets on the connection are its MPA Request frame"),
    row("rfc5044-7.1.2-responder-waits", kMustNot, W,
        "The responder sends nothing before it has received the whole Request; then its first octets are the Reply"),
    row("rfc5044-7.1.2-r-reject", kShould, W,
        "A responder whose ULP does not accept the Request's private data answers with R set; it sets R to zero "
        "when it accepts"),

    // §7.1.3 Example Delayed Startup Sequence: an example, no normative sentence

    // §7.1.4 Use of Private Data
    row("rfc5044-7.1.4-private-data-to-ulp", kMust, N,
        "Private data received in a Request or Reply is handed to the ULP unchanged",
        "a local delivery to the ULP"),
    row("rfc5044-7.1.4-private-data-opaque", kMustNot, N, "MPA does not interpret the private data",
        "MPA's use of the bytes is internal"),

    // §7.1.5 "Dual Stack" Implementations
    row("rfc5044-7.1.5-dual-stack-same-port", kMay, N,
        "An implementation may offer MPA and plain TCP on the same port and decide per connection",
        "a deployment choice of the listener"),
    row("rfc5044-7.1.5-tcp-unchanged", kMust, P,
        "MPA runs over an unmodified, standard TCP: every TCP requirement still applies to the connection"),

    // §7.2 Normal Connection Teardown
    row("rfc5044-7.2-graceful-close", kMust, N,
        "A graceful close lets every FPDU already given to TCP be sent before the TCP FIN",
        "what was queued is known only to the sender"),
    row("rfc5044-7.2-no-fpdu-after-close", kMustNot, N, "No FPDU follows the sender's TCP FIN",
        "TCP carries no data after a FIN, so no FPDU can follow one on the wire; the rule is on what MPA hands to TCP"),

    // §8 Error Semantics. The section number is confirmed by a public Linux siw patch
    // that cites "RFC 5044 Section 8 error code 3"; the codes agree with siw's llp_ecode and Wireshark's
    // mpa_errcode_names.
    row("rfc5044-8-errors-fatal", kMust, P,
        "MPA detects the errors of §8 and reports them upward; after a CRC or FPDU start (Marker) error MPA itself "
        "leaves the TCP connection open: closing it is for DDP's ULP, after its Terminate"),
    row("rfc5044-8-report-to-ulp", kMust, P,
        "MPA reports fatal errors upward so the ULP (RDMAP) can send a Terminate carrying the LLP error code "
        "before the close"),
    row("rfc5044-8-code-crc", kMust, P, "A CRC mismatch is reported as LLP error code 0x02 (MPA CRC error)"),
    row("rfc5044-8-code-marker", kShould, P,
        "A Marker or ULPDU_Length that does not line up is reported as LLP error code 0x03 (FPDU start error)"),
    row("rfc5044-8-code-req-rep", kMust, P,
        "A malformed Request or Reply is reported as LLP error code 0x04 (invalid Request/Reply frame)"),
    row("rfc5044-8-code-stream-lost", kMay, N,
        "LLP error code 0x01 reports a TCP stream lost (reset or timed out)",
        "after a lost stream there is no connection to carry a Terminate"),
    row("rfc5044-8-no-delivery-after-error", kMustNot, P,
        "After MPA reports an error on a half connection it delivers no further FPDU of it to DDP (an echoing ULP "
        "returns nothing sent after the bad FPDU)"),
    row("rfc5044-8-no-data-after-error", kMustNot, W,
        "After a fatal error the side sends no further FPDU other than the Terminate"),
    row("rfc5044-8-fpduptr-check", kShould, P,
        "A receiver that uses Markers checks that FPDUPTR and the ULPDU_Length chain agree (at the latest when a gap "
        "closes) and reports a mismatch as an FPDU start error"),

    // §9 Security Considerations
    row("rfc5044-9.3-ipsec-support", kMust, N,
        "An MPA implementation that claims conformance supports IPsec as RFC 5044 and RFC 3723 describe",
        "security association setup is outside the MPA octet stream"),
    row("rfc5044-9.4-ipsec-esp", kMust, N, "IPsec protection of MPA uses ESP in transport mode with replay protection",
        "ESP processing happens below TCP"),
    row("rfc5044-9.4-ike", kMust, N, "IKE is used to set up the IPsec security associations",
        "key exchange is outside the MPA connection"),
    row("rfc5044-9.1-private-data-trust", kShould, N,
        "A ULP does not trust private data for authentication without protection below it",
        "a ULP policy"),

    // Appendix A (Optimized MPA-Aware TCP)
    row("rfc5044-a.4-no-middlebox-dependence", kMustNot, P,
        "A receiver does not depend on FPDU/segment alignment that a re-segmenting middlebox could break"),
    row("rfc5044-a.3-reassembly", kMust, P,
        "A receiver that places out of order still delivers every ULPDU correctly when segments arrive split, "
        "merged or reordered"),

    // ---- Rules the passive capture observer reports (pcap/analysis/rules.hpp), registered under the ids
    // it already emits. Where an older row states the same requirement from the implementation's side,
    // the summary names it. Observable in a capture of both directions.
    // The text lets the CRC field hold any value when CRCs are off (§4.1, §7.1.1): informational only.
    row("rfc5044-4.4-crc-off-zero", kMay, W,
        "On a connection that negotiated no CRC, the CRC field may hold any value; zero is the clean choice "
        "(informational: the RFC allows anything)"),
};

}  // namespace rdmaconf::requirements::detail::rfc5044
