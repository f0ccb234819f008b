// RFC 5041 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    // §3
    none("3", "96eeb53e", "introduces the list of LLP requirements that the following sentences state"),
    cover("3", "5bd1d9e7", "rfc5041-3-llp-mulpdu"),
    hidden("3", "c26f3246", "a local interface between DDP and its LLP"),
    cover("3", "7306182f", "rfc5041-3-llp-reliable"),
    hidden("3", "cbecb59f", "how the LLP hands segments to DDP is local"),
    hidden("3", "c25003a0", "how the LLP hands segments to DDP is local"),
    cover("3", "52bed93c", "rfc5044-4.4-crc32c rfc5044-7.1.1-c-flag", "over MPA the digest is its CRC32c"),
    hidden("3", "34e924eb", "how the LLP hands segments to DDP is local"),
    none("3", "e22b15ca", "applies to LLPs that carry several streams per connection (SCTP); over MPA/TCP a stream is its connection"),
    hidden("3", "cce6efa9", "a local indication from the LLP to DDP"),
    hidden("3", "babd0640", "a local indication from the LLP to DDP"),
    none("3", "702d6082", "applies to LLPs that carry several streams per connection (SCTP); over MPA/TCP a stream is its connection"),
    hidden("3", "15ed7209", "how the LLP hands segments to DDP is local (TCP removes duplicates)"),
    // §4.1
    cover("4.1", "3d2d7c0c", "rfc5041-4.1-t-flag"),
    cover("4.1", "d8cece93", "rfc5041-4.1-t-flag"),
    cover("4.1", "799fe082", "rfc5041-4.1-l-flag"),
    cover("4.1", "6e243883", "rfc5041-4.1-l-flag"),
    cover("4.1", "ca5aa8df", "rfc5041-4.1-last-once"),
    cover("4.1", "a44f0dcb", "rfc5041-4.1-last-once rfc5041-5.2-untagged-mo-advance"),
    cover("4.1", "a812876b", "rfc5041-5.4-deliver-after-placed"),
    cover("4.1", "12296349", "rfc5041-4.1-rsvd-zero rfc5041-4.1-rsvd-ignored"),
    cover("4.1", "9f9cf1a4", "rfc5041-4.1-dv-1"),
    cover("4.1", "1080c118", "rfc5041-4.1-dv-1"),
    // §4.2
    cover("4.2", "8f7b2806", "rfc5041-4.4-header-then-payload rfc5041-4.2-stag rfc5041-4.2-to"),
    cover("4.2", "5637fae8", "rfc5041-4.2-rsvdulp-carried"),
    cover("4.2", "7dc58323", "rfc5041-4.2-rsvdulp-carried"),
    cover("4.2", "df1b7989", "rfc5041-4.2-same-rsvdulp"),
    cover("4.2", "a3ef888b", "rfc5041-4.2-same-rsvdulp rfc5041-4.2-tagged-same-stag rfc5041-4.3-untagged-same-qn-msn", "the same sentence follows the RsvdULP, STag, QN and MSN fields"),
    cover("4.2", "28b8a9fc", "rfc5041-4.2-tagged-advertised"),
    cover("4.2", "bd353ce3", "rfc5041-4.2-stag"),
    hidden("4.2", "745d6671", "handing the STag to the ULP is a local interface"),
    cover("4.2", "b3039796", "rfc5041-4.2-tagged-same-stag"),
    none("4.2", "0b7ff033", "a permission: a message may start at any TO"),
    // §4.3
    cover("4.3", "d9c81c3b", "rfc5041-4.4-header-then-payload rfc5041-4.3-qn rfc5041-4.3-msn rfc5041-4.3-mo"),
    cover("4.3", "5637fae8", "rfc5041-4.2-rsvdulp-carried"),
    cover("4.3", "e753f358", "rfc5041-4.2-rsvdulp-carried"),
    cover("4.3", "7a3e57cf", "rfc5041-4.2-same-rsvdulp"),
    none("4.3", "2be0b53a", "a permission: the Data Sink need not compare RsvdULP across segments"),
    cover("4.3", "5ae145a4", "rfc5041-4.3-untagged-same-qn-msn"),
    cover("4.3", "a3ef888b", "rfc5041-4.2-same-rsvdulp rfc5041-4.2-tagged-same-stag rfc5041-4.3-untagged-same-qn-msn", "the same sentence follows the RsvdULP, STag, QN and MSN fields"),
    cover("4.3", "b2b0eb56", "rfc5041-4.3-msn-increment rfc5041-4.3-msn-per-queue"),
    cover("4.3", "a62f8f70", "rfc5041-4.3-msn-start rfc5041-4.3-msn-init"),
    cover("4.3", "62e2b171", "rfc5041-4.3-msn-increment"),
    cover("4.3", "52117f02", "rfc5041-4.3-untagged-same-qn-msn"),
    cover("4.3", "8cbbad8f", "rfc5041-5.2-untagged-mo-advance"),
    // §4.4
    cover("4.4", "4199a4b8", "rfc5041-4.4-header-then-payload rfc5041-4.4-segment-header"),
    // §5.2
    cover("5.2", "1a7962cf", "rfc5041-5.2-segment-to-mulpdu rfc5041-5.2-segment-max"),
    hidden("5.2", "af635cd5", "a limit on what a ULP hands DDP; no test can send a 4 GiB message"),
    hidden("5.2", "ed28916b", "that all of a message is sent shows only as the data the peer's ULP gets (cases that echo or read back data rely on it)"),
    cover("5.2", "b92edf9e", "rfc5041-5.2-reassembly"),
    cover("5.2", "8b16c386", "rfc5041-5.2-untagged-mo-advance"),
    hidden("5.2", "e0918f96", "the ULP's call into DDP is local"),
    cover("5.2", "c0cc5e4c", "rfc5041-5.2-tagged-to-advance"),
    cover("5.2", "c71c03aa", "rfc5041-5.2-zero-length"),
    cover("5.2", "fd90b8ae", "rfc5041-5.2-zero-length-tagged-unchecked"),
    cover("5.2", "a1db093d", "rfc5041-5.2-zero-length-tagged-unchecked"),
    // §5.3
    cover("5.3", "27eb0dce", "rfc5041-5.3-send-in-order rfc5041-5.3-deliver-in-order"),
    cover("5.3", "41833389", "rfc5041-5.3-send-in-order"),
    cover("5.3", "86489e78", "rfc5041-5.3-segments-in-order"),
    cover("5.3", "9bf58c10", "rfc5041-5.3-place-any-order"),
    none("5.3", "afbc6014", "a permission to place a segment again"),
    hidden("5.3", "a4255294", "delivery to the ULP is local; a double delivery would need a duplicate the LLP never passes up"),
    cover("5.3", "bfeaddb1", "rfc5041-5.3-deliver-in-order"),
    // §5.4
    cover("5.4", "59746aac", "rfc5041-5.4-deliver-after-placed rfc5041-5.4-error-no-delivery"),
    cover("5.4", "79ce6269", "rfc5041-5.4-untagged-length"),
    cover("5.4", "1031af97", "rfc5041-4.2-rsvdulp-carried"),
    // §6.2
    hidden("6.2", "a182c957", "which layer asked for a teardown is local; the wire shows only the close"),
    none("6.2", "6b00f994", "a permission for connection-oriented LLPs"),
    // §6.2.1
    cover("6.2.1", "4d01e070", "rfc5041-6.2.1-graceful-no-loss"),
    hidden("6.2.1", "f2464a37", "over TCP no data can follow the peer's FIN, so the case cannot be provoked"),
    hidden("6.2.1", "8c1909e3", "half-close handling between DDP and its ULP is local"),
    hidden("6.2.1", "82fdecef", "half-close handling between DDP and its LLP is local"),
    hidden("6.2.1", "e224e4b5", "half-close handling between DDP and its LLP is local"),
    // §6.2.2
    cover("6.2.2", "2b102393", "rfc5041-7.1-report-to-ulp"),
    hidden("6.2.2", "9f2bd88b", "reporting to the ULP and completing its requests are local"),
    hidden("6.2.2", "616e64c8", "what the ULP may still send is local; the Terminate that follows an error is rfc5041-7.1-ulp-terminate's"),
    cover("6.2.2", "21ef4c76", "rfc5041-6.2.2-errors-abortive"),
    // §7
    hidden("7", "bd89ce5d", "reporting LLP errors to the ULP is local"),
    // §7.1
    cover("7.1", "5cc57702", "rfc5041-7.1-qn-invalid rfc5041-7.1-msn-no-buffer rfc5041-7.1-msn-range rfc5041-7.1-mo-invalid rfc5041-7.1-too-long rfc5041-7.1-untagged-dv rfc5041-7.1-check-all-segments"),
    hidden("7.1", "d672c4d2", "how an implementation classifies a missing buffer internally"),
    none("7.1", "ca62ec23", "a permission to recover locally"),
    hidden("7.1", "0bee4087", "how often an implementation lets faults recur is internal"),
    none("7.1", "aef09d2c", "a permission to stop receiving on the stream"),
    cover("7.1", "fe0c7ee0", "rfc5041-7.1-stag-invalid rfc5041-7.1-base-bounds rfc5041-7.1-stag-not-associated rfc5041-7.1-to-wrap rfc5041-7.1-tagged-dv rfc5041-7.1-check-all-segments"),
    cover("7.1", "66646cf0", "rfc5041-7.1-no-place-on-error rfc5041-7.1-report-to-ulp"),
    cover("7.1", "e16adccb", "rfc5040-4.8-copy-ddp-header", "the report reaches the peer as a Terminate carrying the header and length"),
    cover("7.1", "15c28296", "rfc5041-7.1-after-error-stream-dead"),
    hidden("7.1", "8c7532c9", "what the ULP may still send is local; the Terminate that follows an error is rfc5041-7.1-ulp-terminate's"),
    // §7.2
    cover("7.2", "51308cb5", "rfc5041-7.2-layer-ddp rfc5041-7.2-etype-tagged rfc5041-7.2-etype-untagged rfc5041-7.2-etype-catastrophic"),
    // §8.2
    cover("8.2", "2e255488", "rfc5041-7.1-stag-not-associated rfc5041-8.2-stag-stream"),
    cover("8.2", "e1b2b64a", "rfc5041-8.2-stag-stream"),
    hidden("8.2", "cc41e5d3", "associating STags with streams is a local ULP action"),
    cover("8.2", "c9c745df", "rfc5041-8.2-stream-pd"),
    // §8.3
    hidden("8.3", "c31efd12", "a local mechanism offered to the ULP"),
    hidden("8.3", "ecacf9f4", "a local mechanism offered to the ULP"),
    hidden("8.3", "87f60e9e", "a local mechanism offered to the ULP"),
    cover("8.3", "5da3a54f", "rfc5041-7.1-report-to-ulp"),
    hidden("8.3", "8752efa2", "how an implementation is built (RNIC and resource manager) is internal"),
    // §8.3.1
    none("8.3.1", "53e549f3", "restates that the whole wire protocol applies (every wire row of RFC 5041)"),
    cover("8.3.1", "3713219a", "rfc5041-7.1-stag-not-associated"),
    cover("8.3.1", "a6844956", "rfc5041-8.2-stag-stream"),
    cover("8.3.1", "f07c88c1", "rfc5041-7.1-base-bounds"),
    hidden("8.3.1", "38d87ac1", "a local mechanism offered to the ULP"),
    hidden("8.3.1", "ac417ef0", "a local mechanism offered to the ULP"),
    cover("8.3.1", "0141c5da", "rfc5041-7.1-stag-invalid", "after revocation the STag is invalid for the peer"),
    hidden("8.3.1", "8bb5e340", "firmware loading is outside the protocol"),
    // §8.3.2
    hidden("8.3.2", "8e92dc3b", "the privileged resource manager is local"),
    hidden("8.3.2", "4c857512", "the privileged resource manager is local"),
    hidden("8.3.2", "66af9d9a", "the privileged resource manager is local"),
    hidden("8.3.2", "eb8b6639", "the privileged resource manager is local"),
    hidden("8.3.2", "cf6394b7", "the privileged resource manager is local"),
    hidden("8.3.2", "0a2dbc5e", "the privileged resource manager is local"),
    hidden("8.3.2", "ddceb1e0", "resource accounting between streams is local"),
    // §8.4
    hidden("8.4", "cbd1dc06", "IPsec protection lies below TCP"),
    hidden("8.4", "18e9c98f", "IPsec protection lies below TCP"),
    // §8.4.2
    cover("8.4.2", "1f39f6bf", "rfc5041-8.4.2-ipsec"),
    cover("8.4.2", "94e1c367", "rfc5041-8.4.2-ipsec"),
    hidden("8.4.2", "a6473871", "IPsec protection lies below TCP"),
    cover("8.4.2", "d1960ccb", "rfc5041-8.4.2-ipsec"),
    hidden("8.4.2", "3ea6444d", "IKE runs outside the DDP stream"),
    hidden("8.4.2", "8e25452c", "IKE runs outside the DDP stream"),
    hidden("8.4.2", "b7d56702", "IKE runs outside the DDP stream"),
    hidden("8.4.2", "33b2fb80", "IKE runs outside the DDP stream"),
    hidden("8.4.2", "b4f773a1", "IKE runs outside the DDP stream"),
    hidden("8.4.2", "c10c7383", "IKE runs outside the DDP stream"),
    hidden("8.4.2", "10e782d1", "IKE runs outside the DDP stream"),
    // §a
    hidden("a", "74c08885", "a TCP receive window setting"),
};

}  // namespace

std::span<const SentenceTrace> rfc5041_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
