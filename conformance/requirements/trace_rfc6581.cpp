// RFC 6581 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    // §5
    cover("5", "b74f4351", "rfc6581-9.2-rtr-first-fpdu"),
    // §6
    none("6", "69945491", "restates RFC 5044 §7.1.1 for the Res bits (rfc5044-7.1.1-res-zero, rfc5044-7.1.1-res-ignored)"),
    cover("6", "f70a81d8", "rfc6581-6-rev-2"),
    none("6", "512d13a3", "a permission to stay at revision 1"),
    cover("6", "518ffa23", "rfc6581-10-accept-rev1"),
    cover("6", "900ccb1d", "rfc6581-6-enhanced-flag rfc6581-6-enhanced-data-present"),
    // §7
    none("7", "4ad69fe7", "applies to the SCTP adaptation's session control chunks (RFC 5043), which this project does not implement"),
    none("7", "c87e19dc", "applies to the SCTP adaptation's session control chunks (RFC 5043), which this project does not implement"),
    cover("7", "4ec7e5ea", "rfc6581-7-pd-length-includes rfc5044-7.1.1-private-data-max", "stated for SCTP chunks; the same limit holds for MPA frames"),
    none("7", "a9caed4a", "applies to the SCTP adaptation's session control chunks (RFC 5043), which this project does not implement"),
    none("7", "be124b1d", "applies to the SCTP adaptation's session control chunks (RFC 5043), which this project does not implement"),
    none("7", "4db55e86", "applies to the SCTP adaptation's session control chunks (RFC 5043), which this project does not implement"),
    none("7", "341398b0", "applies to the SCTP adaptation's session control chunks (RFC 5043), which this project does not implement"),
    none("7", "563d479a", "applies to the SCTP adaptation's session control chunks (RFC 5043), which this project does not implement"),
    // §9
    cover("9", "b1da2b49", "rfc6581-9-ird-ord-14-bit"),
    // §9.1
    hidden("9.1", "bcfb70ba", "handing the peer's IRD and ORD to the ULP is a local interface"),
    none("9.1", "5e0d806d", "restated as a MUST two sentences later (rfc6581-9.1-responder-ord)"),
    none("9.1", "37146003", "a permission to raise the responder's IRD"),
    cover("9.1", "329313e4", "rfc6581-9.1-responder-ord"),
    cover("9.1", "b13a932e", "rfc6581-9.1-reject-with-reply"),
    cover("9.1", "a9950b98", "rfc6581-9.1-error-insufficient-ird"),
    cover("9.1", "acfd2f51", "rfc6581-9.1-initiator-ord-adjust"),
    cover("9.1", "bfad4069", "rfc6581-9.1-error-insufficient-ird rfc6581-9.1-initiator-ord-adjust"),
    hidden("9.1", "4388b2d2", "handing the responder's IRD and ORD to the ULP is a local interface"),
    cover("9.1", "d3acfc6a", "rfc6581-9.1-ird-ord-no-negotiation"),
    hidden("9.1", "dbc5c4ca", "the initiator's local ORD is not on the wire"),
    cover("9.1", "4fb95524", "rfc6581-9.1-ird-ord-no-negotiation"),
    hidden("9.1", "8e00dc7c", "the initiator's local IRD is not on the wire"),
    // §9.2
    cover("9.2", "bf23c948", "rfc6581-9.2-p2p-flag-a"),
    cover("9.2", "8e125ac7", "rfc6581-9.2-p2p-flag-a"),
    cover("9.2", "78041076", "rfc6581-9.2-reply-rtr-at-least-one", "support shows as the kind a peer-to-peer Reply sets"),
    cover("9.2", "ddd217b1", "rfc6581-9.2-p2p-echo-a"),
    cover("9.2", "a132e92f", "rfc6581-9.2-reply-rtr-flags"),
    cover("9.2", "8eadf59e", "rfc6581-9.2-reply-rtr-at-least-one"),
    none("9.2", "7610553b", "a permission to set further RTR kinds (the analyzer and the cases accept them)"),
    cover("9.2", "7f407043", "rfc6581-9.2-reply-rtr-at-least-one"),
    cover("9.2", "d9a63634", "rfc6581-9.2-rtr-first-fpdu"),
    cover("9.2", "df5512aa", "rfc6581-9.2-initiator-no-matching-rtr"),
    cover("9.2", "a9982d98", "rfc6581-9.2-initiator-no-matching-rtr"),
    cover("9.2", "62b2b612", "rfc6581-9.2-p2p-flag-a"),
    cover("9.2", "57e286d7", "rfc6581-9.2-p2p-echo-a"),
    cover("9.2", "5199585c", "rfc6581-9.2-bcd-zero-without-a"),
    cover("9.2", "797f13ec", "rfc6581-9.2-bcd-ignored-without-a"),
    // §9.3
    cover("9.3", "a4040f7d", "rfc6581-9.3-error-catastrophic"),
    // §10
    cover("10", "1fb0bc38", "rfc6581-10-reply-enhanced"),
    cover("10", "afb236f2", "rfc6581-10-accept-rev1"),
    none("10", "9ade1e85", "whether enhanced functionality is desired is the ULP's choice; nothing on the wire tells"),
    cover("10", "838b718d", "rfc6581-10-accept-rev1"),
    cover("10", "8534f7de", "rfc6581-10-reply-enhanced"),
    cover("10", "646b71ae", "rfc6581-10-accept-rev1 rfc6581-10-reply-enhanced"),
    cover("10", "6f7325c7", "rfc5044-7.1.1-rev-mismatch", "a responder without RFC 6581 sees a revision it cannot serve"),
    none("10", "9f55042c", "a permission to retry with revision 1"),
};

}  // namespace

std::span<const SentenceTrace> rfc6581_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
