// RFC 5043 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    // §5.1
    cover("5.1", "e8022e36", "rfc5043-5.1-indication-in-init"),
    // §5.2.1
    cover("5.2.1", "efa8782d", "rfc5043-5.2.1-ddp-ssn-as-ordered"),
    // §5.2.3
    cover("5.2.3", "66a94789", "rfc5043-5.2.3-private-data-present"),
    none("5.2.3", "269961d2", "a permission: the private data rfc5043-5.2.3-private-data-present asks for may be empty"),
    cover("5.2.3", "e7ffd311", "rfc5043-5.2.3-private-data-max"),
    cover("5.2.3", "81765034", "rfc5043-5.2.3-terminate-no-private-data"),
    cover("5.2.3", "a9ae9c44", "rfc5043-5.2.3-report-to-ulp"),
    hidden("5.2.3", "4db55e86", "what a ULP can read of a reported message is a local interface"),
    cover("5.2.3", "148d8fd6", "rfc5043-5.2.3-initiate-limit"),
    cover("5.2.3", "73c91d7e", "rfc5043-5.2.3-over-limit-terminate"),
    // §6
    cover("6", "bb807af8", "rfc5043-6-no-ssn-gaps"),
    cover("6", "3c7d7346", "rfc5043-6-dynamic-endpoint"),
    // §6.1
    cover("6.1", "78567e9e", "rfc5043-6.1-legal-pattern"),
    cover("6.1", "bca70f31", "rfc5043-6.1-illegal-terminates"),
    // §6.2
    cover("6.2", "331e1b5f", "rfc5043-6.2-final-terminate"),
    cover("6.2", "aa7b6dec", "rfc5043-6.2-one-terminate"),
    // §6.3
    cover("6.3", "0fe2fa88", "rfc5043-6.3-resource-decisions"),
    cover("6.3", "f0dbb19b", "rfc5043-6.3-may-reject"),
    cover("6.3", "db07fbd6", "rfc5043-6.3-reject-only-by-ulp"),
    // §6.4
    cover("6.4", "a8a15b58", "rfc5043-6.4-ulp-decides"),
    cover("6.4", "1667f2f3", "rfc5043-6.4-event-to-ulp"),
    cover("6.4", "5992beca", "rfc5043-6.4-pending-limit"),
    cover("6.4", "1e8f0315", "rfc5043-6.4-over-limit-terminate"),
    // §6.5
    cover("6.5", "1e5bdb26", "rfc5043-6.5-extra-sequences rfc5043-6.5-extra-only-on-request"),
    cover("6.5", "3d997c21", "rfc5043-6.5-ulp-mandatory-sequences"),
    // §6.6
    cover("6.6", "54d77713", "rfc5043-6.6-control-not-overtaking"),
    cover("6.6", "2543e58c", "rfc5043-6.6-no-segment-before-initiate"),
    cover("6.6", "cc6fa4e0", "rfc5043-6.6-initiate-known-received"),
    cover("6.6", "69381c32", "rfc5043-6.6-no-stream-reuse"),
    // §7.1
    cover("7.1", "9018b565", "rfc5043-7.1-ulp-sets-indication"),
    cover("7.1", "013263b0", "rfc5043-7.1-may-require-indication"),
    cover("7.1", "fe5177fe", "rfc5043-7.1-refuse-other-indication"),
    cover("7.1", "d35a1cd6", "rfc5043-7.1-restrict-after-first"),
    cover("7.1", "093b2595", "rfc5043-7.1-restrict-after-first"),
    // §7.2
    cover("7.2", "9f471f2c", "rfc5043-7.2-single-address"),
    cover("7.2", "daa25ddf", "rfc5043-7.2-default-one-address"),
    cover("7.2", "ef926429", "rfc5043-7.2-no-out-of-band-addresses"),
    cover("7.2", "0fefaaa3", "rfc5043-7.2-no-load-balancing"),
    cover("7.2", "b997bcda", "rfc5043-7.2-multihoming-for-failover"),
    // §8
    cover("8", "32e5fc4f", "rfc5043-8-equal-stream-counts"),
    // §9
    cover("9", "fe8aeb64", "rfc5043-9-max-segment-to-ddp"),
    cover("9", "fa5e32dc", "rfc5043-9-no-sctp-fragmentation"),
    cover("9", "47c8ad85", "rfc5043-9-max-below-theoretical"),
    cover("9", "1904369a", "rfc5043-9-reject-oversized"),
    // §10
    cover("10", "05b6d0e6", "rfc5043-10-unordered"),
    cover("10", "9fe7db17", "rfc5043-10-no-tsn-order"),
    cover("10", "319ab172", "rfc5043-10-in-flight-limit"),
    cover("10", "2ed93557", "rfc5043-10-ssn-validity-check"),
    cover("10", "8b9c917f", "rfc5043-10-no-allocation-on-ssn"),
    cover("10", "77896f62", "rfc5043-10-invalid-ssn-terminate"),
    // §11.1
    cover("11.1", "33131311", "rfc5043-11.1-indication-at-startup"),
    cover("11.1", "623572fb", "rfc5043-11.1-verify-indication"),
    cover("11.1", "0ebe487e", "rfc5043-11.1-no-ddp-without-indication"),
    cover("11.1", "272cd275", "rfc5043-11.1-no-ddp-without-indication"),
    cover("11.1", "29760ec7", "rfc5043-11.1-same-mode"),
    cover("11.1", "79febd91", "rfc5043-11.1-ulp-chooses-mode"),
    // §11.2
    cover("11.2", "850ed787", "rfc5043-11.2-untagged-not-delayed"),
    cover("11.2", "3c14f7d9", "rfc5043-11.2-partial-tagged-delay"),
    // §11.3
    cover("11.3", "8462fe98", "rfc5043-11.3-no-terminate-per-stream"),
    cover("11.3", "c3571b68", "rfc5043-11.3-notify-consumers"),
    cover("11.3", "fb7dc3e4", "rfc5043-11.3-terminate-on-stream-end"),
    // §13
    cover("13", "2ec9f994", "rfc5043-13-ipsec-equivalent"),
    cover("13", "16a04b30", "rfc5043-13-ipsec-same-level"),
    cover("13", "86d42ce7", "rfc5043-13-ipsec-selectors"),
};

}  // namespace

std::span<const SentenceTrace> rfc5043_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
