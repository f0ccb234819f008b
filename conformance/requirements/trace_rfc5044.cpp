// RFC 5044 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    // §1.2
    hidden("1.2", "f2c27c94", "how a receiver that recovers out-of-order ULPDUs tracks their order is internal"),
    hidden("1.2", "54bc5853", "overview of §4.4: whether CRCs were turned off by an administrator is configuration a peer cannot see"),
    // §3
    cover("3", "1fa6254a", "rfc5044-3-one-ulpdu-per-fpdu"),
    cover("3", "d2535290", "rfc5044-3-mulpdu-to-ulp"),
    cover("3", "12ef0d2f", "rfc5044-3-ulpdu-max-mulpdu"),
    cover("3", "b1ae81cf", "rfc5044-3-mulpdu-range"),
    cover("3", "508ebac2", "rfc5044-3-ulpdu-max-64768"),
    none("3", "ff979cab", "a permission for DDP and a limit on what MPA must accept; the limits themselves are rfc5044-3-ulpdu-max-mulpdu and rfc5044-3-ulpdu-max-64768"),
    hidden("3", "3ed84091", "handing a validated ULPDU to DDP is a local interface (its absence shows only through rfc5044-4.4-crc-error-no-delivery)"),
    hidden("3", "958c974f", "introduces the local rules for passing out-of-order ULPDUs to DDP"),
    hidden("3", "f6aeddb2", "a local interface between MPA and DDP"),
    // §4.1
    cover("4.1", "c5eb7da0", "rfc5044-4.1-ulpdu-length rfc5044-4.1-pad-length rfc5044-4.1-crc-field-present"),
    cover("4.1", "0e60936d", "rfc5044-4.1-pad-zero rfc5044-4.1-pad-ignored"),
    cover("4.1", "8909a853", "rfc5044-4.1-crc-off-not-checked"),
    // §4.2
    cover("4.2", "b39be44e", "rfc5044-4.2-marker-res-zero rfc5044-4.2-fpduptr"),
    cover("4.2", "a2d44fff", "rfc5044-4.2-marker-res-zero rfc5044-4.2-marker-res-ignored"),
    cover("4.2", "c8b6c949", "rfc5044-4.2-fpduptr"),
    // §4.3
    cover("4.3", "f4fae59b", "rfc5044-4.3-markers-when-negotiated"),
    cover("4.3", "8482f1c5", "rfc5044-4.3-marker-interval"),
    cover("4.3", "fb2c29cb", "rfc5044-4.2-fpduptr rfc5044-4.3-marker-at-fpdu-start"),
    cover("4.3", "e0ebaac4", "rfc5044-4.2-fpduptr"),
    cover("4.3", "05de0d50", "rfc5044-4.3-marker-at-fpdu-start rfc5044-4.3-markers-in-crc"),
    cover("4.3", "3706665c", "rfc5044-4.2-fpduptr"),
    cover("4.3", "8feb1259", "rfc5044-4.3-first-marker rfc5044-4.3-marker-interval"),
    cover("4.3", "3acf19b8", "rfc5044-4.2-fpduptr"),
    cover("4.3", "23e37e99", "rfc5044-4.2-fpduptr rfc5044-4.3-marker-at-fpdu-start"),
    hidden("4.3", "a086bccf", "delivery to DDP is local; boundaries show only through what an echoing ULP returns"),
    cover("4.3", "7c950d5c", "rfc5044-4.3-marker-not-in-ulpdu-length"),
    // §4.4
    cover("4.4", "eade2b62", "rfc5044-7.1.1-c-flag", "support shows as CRCs generated and checked whenever a peer asks for them"),
    none("4.4", "c7b6824f", "one of two permitted configurations; a choice, not a behaviour to check"),
    hidden("4.4", "189b8046", "the configuration a connection was set up with is not visible; an administrator may turn CRCs off"),
    hidden("4.4", "6f80d823", "an administrator's decision"),
    hidden("4.4", "9368c6df", "the ULP interface is local"),
    cover("4.4", "a15dba2e", "rfc5044-7.1.1-c-flag"),
    cover("4.4", "6683c129", "rfc5044-4.1-crc-off-not-checked"),
    none("4.4", "d5108799", "a permission: with CRCs off the CRC field may hold anything (rfc5044-4.4-crc-off-zero is informational)"),
    cover("4.4", "530bb63f", "rfc5044-4.1-crc-field-present"),
    cover("4.4", "ad534acf", "rfc5044-4.4-crc32c"),
    cover("4.4", "49092e78", "rfc5044-4.4-crc-coverage"),
    cover("4.4", "7244b042", "rfc5044-4.4-crc-check"),
    cover("4.4", "69466aef", "rfc5044-4.4-crc-error-terminate rfc5044-4.4-crc-error-no-delivery"),
    // §4.5
    cover("4.5", "1c2f6a40", "rfc5044-4.5-mulpdu-formula"),
    cover("4.5", "f1dcef72", "rfc5044-4.5-mulpdu-formula"),
    none("4.5", "3c1e645e", "a permission; MULPDU is a local value"),
    none("4.5", "c48061ad", "a permission; MULPDU is a local value"),
    cover("4.5", "63fc4182", "rfc5044-4.5-ulpdu-as-large"),
    cover("4.5", "3904f4c4", "rfc5044-3-mulpdu-range"),
    cover("4.5", "e0db0c76", "rfc5044-3-mulpdu-range"),
    // §5.1
    hidden("5.1", "d890c15a", "MULPDU is computed locally (rfc5044-4.5-mulpdu-formula)"),
    hidden("5.1", "0bea338f", "a local computation when TCP cannot report the EMSS"),
    cover("5.1", "6ad1012e", "rfc5044-5.1-segment-alignment"),
    none("5.1", "b24accd0", "a permission to pack whole FPDUs into one segment"),
    cover("5.1", "f167d38e", "rfc5044-5.1-no-segment-assumption rfc5044-a.4-no-middlebox-dependence"),
    // §5.2
    cover("5.2", "1310a9f9", "rfc5044-6-fpdu-chain"),
    cover("5.2", "98e24d8d", "rfc5044-5.2-receiver-may-use-markers"),
    // §6
    cover("6", "bd5e5f49", "rfc5044-6-fpdu-chain rfc5044-4.4-crc-check"),
    cover("6", "76a3bc9e", "rfc5044-6-fpdu-chain rfc5044-6-bad-length-error"),
    cover("6", "1a270ffe", "rfc5044-6-fpdu-chain"),
    cover("6", "d326d061", "rfc5044-6-fpdu-chain rfc5044-6-partial-fpdu-at-close"),
    // §7.1
    cover("7.1", "2d8dae1e", "rfc5044-7.1-same-point-both-ends"),
    none("7.1", "78b5713e", "a ULP's choice of when DDP on MPA starts"),
    none("7.1", "00e59bfc", "a ULP's choice of when DDP on MPA starts"),
    hidden("7.1", "862b8a55", "binding a DDP endpoint to the connection is local"),
    // §7.1.1
    cover("7.1.1", "c8491e05", "rfc5044-7.1.1-key-request"),
    cover("7.1.1", "fdc397d2", "rfc5044-7.1.1-key-check"),
    cover("7.1.1", "c31fff15", "rfc5044-7.1.1-key-reply"),
    cover("7.1.1", "11f64124", "rfc5044-7.1.1-key-check"),
    cover("7.1.1", "b087ac0e", "rfc5044-7.1.1-m-flag"),
    cover("7.1.1", "bbd4da46", "rfc5044-7.1.1-m-flag"),
    cover("7.1.1", "a7f0518c", "rfc5044-7.1.1-m-flag"),
    cover("7.1.1", "c2f9a184", "rfc5044-7.1.1-no-markers-unless-negotiated"),
    cover("7.1.1", "1fb31100", "rfc5044-4.3-markers-when-negotiated"),
    cover("7.1.1", "5d1d001c", "rfc5044-4.1-crc-off-not-checked"),
    cover("7.1.1", "a71e7b22", "rfc5044-7.1.1-c-flag"),
    cover("7.1.1", "c4b70ada", "rfc5044-4.1-crc-off-not-checked"),
    cover("7.1.1", "10a11495", "rfc5044-7.1.1-res-zero rfc5044-7.1.1-res-ignored"),
    cover("7.1.1", "c036f0b3", "rfc5044-7.1.1-rev-1"),
    cover("7.1.1", "bc7fe497", "rfc5044-7.1.1-rev-mismatch"),
    cover("7.1.1", "2283ecc1", "rfc5044-7.1.1-rev-mismatch"),
    cover("7.1.1", "698208bf", "rfc5044-7.1.1-pd-length"),
    cover("7.1.1", "36d10220", "rfc5044-7.1.1-pd-length-max"),
    cover("7.1.1", "0916a0bb", "rfc5044-7.1.1-private-data-max"),
    // §7.1.2
    cover("7.1.2", "04d071fe", "rfc5044-7.1.2-initiator-sends-request"),
    none("7.1.2", "aee8eaf4", "a permission to carry private data"),
    cover("7.1.2", "76cfb8c9", "rfc5044-7.1.2-responder-waits"),
    cover("7.1.2", "4f047d86", "rfc5044-7.1.2-frame-before-fpdu-error"),
    cover("7.1.2", "9ce720e2", "rfc5044-7.1.2-r-reject rfc5044-7.1.2-reject-close"),
    cover("7.1.2", "b6a555ef", "rfc5044-7.1.2-r-reject"),
    cover("7.1.2", "c40dece3", "rfc5044-7.1.2-frame-before-fpdu-error rfc5044-7.1.2-initiator-no-early-fpdu"),
    cover("7.1.2", "933716b4", "rfc5044-7.1.2-frame-before-fpdu-error"),
    cover("7.1.2", "2e9de7d4", "rfc5044-7.1.2-reject-received-close"),
    hidden("7.1.2", "765aed67", "entering full operation is a local state change; what follows on the wire is rfc5044-7.1.2-initiator-first-fpdu's"),
    cover("7.1.2", "5f4cf1ee", "rfc5044-7.1.2-responder-no-early-fpdu"),
    cover("7.1.2", "9fc6f7f7", "rfc5044-7.1.1-key-check"),
    none("7.1.2", "c521c1bf", "a permission for the initiator's ULP"),
    cover("7.1.2", "1fce76a4", "rfc5044-7.1.2-r-reject"),
    cover("7.1.2", "decdb186", "rfc5044-7.1.1-key-check"),
    cover("7.1.2", "9dff3524", "rfc5044-7.1.2-responder-timer"),
    cover("7.1.2", "e3aa69c7", "rfc5044-7.1.1-pd-length-max"),
    hidden("7.1.2", "8c1cfd9e", "sizing the buffer that receives private data is local"),
    cover("7.1.2", "c7d805ac", "rfc5044-7.1.2-frame-before-fpdu-error"),
    cover("7.1.2", "775d5106", "rfc5044-7.1.2-request-timer rfc5044-7.1.2-responder-timer"),
    hidden("7.1.2", "40823a4d", "a ULP's timer on application messages, not MPA behaviour"),
    // §7.1.5
    hidden("7.1.5", "6b366434", "when the stack switches into MPA mode is local"),
    none("7.1.5", "83237dfe", "a permission for a local enable function"),
    cover("7.1.5", "0d74677e", "rfc5044-7.1.5-tcp-unchanged"),
    cover("7.1.5", "fb2bd437", "rfc5044-7.1.5-tcp-unchanged"),
    // §7.2
    hidden("7.2", "e8d739dd", "a local MPA-to-DDP interface"),
    // §8
    cover("8", "ca425b77", "rfc5044-8-report-to-ulp rfc5044-8-errors-fatal"),
    cover("8", "c1c8cb6e", "rfc5044-8-code-marker rfc5044-8-fpduptr-check"),
    cover("8", "550dc62d", "rfc5044-8-fpduptr-check"),
    none("8", "7e315c1b", "a permission to skip some Marker checks"),
    cover("8", "333d3031", "rfc5044-7.1.2-frame-before-fpdu-error rfc5044-8-code-req-rep"),
    none("8", "9ac2ecad", "a permission to drop a bad segment silently (TCP then retransmits it)"),
    cover("8", "173f6dbc", "rfc5044-8-no-delivery-after-error"),
    cover("8", "ae0f9235", "rfc5044-8-errors-fatal"),
    // §9.3
    cover("9.3", "efe61797", "rfc5044-9.3-ipsec-support"),
    // §9.4
    cover("9.4", "0102c18a", "rfc5044-9.4-ipsec-esp rfc5044-9.4-ike"),
    none("9.4", "92ef91ff", "a permission for IKE, outside MPA"),
    hidden("9.4", "8ead73f3", "IKE messages travel outside the MPA stream; a tester without IPsec cannot send one"),
    // §a.4
    cover("a.4", "e298268a", "rfc5044-a.4-no-middlebox-dependence rfc5044-5.1-no-segment-assumption"),
    // §c.1
    none("c.1", "9073387a", "applies only to interoperation with the pre-IETF RDMA Consortium protocols (Appendix C), which this project does not implement"),
    none("c.1", "af397c13", "applies only to interoperation with the pre-IETF RDMA Consortium protocols (Appendix C), which this project does not implement"),
};

}  // namespace

std::span<const SentenceTrace> rfc5044_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
