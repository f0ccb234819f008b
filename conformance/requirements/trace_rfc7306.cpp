// RFC 7306 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    // §1.1
    cover("1.1", "503e017f", "rfc7306-1.1-negotiated-out-of-band"),
    // §4.1
    cover("4.1", "92a5a229", "rfc7306-4.1-rv-1 rfc7306-4.1-untagged"),
    // §5
    cover("5", "3d9cf23f", "rfc7306-5-atomicity"),
    none("5", "7897a638", "a permission"),
    cover("5", "546e8a62", "rfc7306-5-fetchadd rfc7306-5-cmpswap"),
    hidden("5", "35e3fe26", "an application's choice of buffers"),
    cover("5", "965bdcab", "rfc7306-5-qn rfc7306-4.1-untagged"),
    // §5.1.1
    cover("5.1.1", "ba794834", "rfc7306-5.1.1-alignment"),
    cover("5.1.1", "7f622c76", "rfc7306-5.1.1-alignment rfc7306-5.1.1-no-memory-change"),
    cover("5.1.1", "b219c229", "rfc7306-5.1.1-alignment"),
    // §5.1.2
    cover("5.1.2", "02378e1c", "rfc7306-5-cmpswap"),
    cover("5.1.2", "e3131ae5", "rfc7306-5.1.1-alignment"),
    cover("5.1.2", "c30b8ec8", "rfc7306-5.1.1-alignment rfc7306-5.1.1-no-memory-change"),
    cover("5.1.2", "a995f81e", "rfc7306-5.1.1-no-memory-change"),
    cover("5.1.2", "3d27f95e", "rfc7306-5.1.1-alignment"),
    cover("5.1.2", "b9d63564", "rfc7306-5.1.1-alignment"),
    // §5.2
    cover("5.2", "37ff022d", "rfc7306-5-qn"),
    cover("5.2", "3eb1fb5f", "rfc7306-5-qn"),
    // §5.2.1
    cover("5.2.1", "12714acc", "rfc7306-5-fetchadd rfc7306-5-cmpswap"),
    cover("5.2.1", "d52d7727", "rfc7306-5.1.1-alignment"),
    cover("5.2.1", "137d6fc2", "rfc7306-4.1-untagged"),
    cover("5.2.1", "2da68f3a", "rfc7306-4.1-untagged"),
    hidden("5.2.1", "574c29ab", "buffer accounting at the Responder is local; its visible effect is the shared IRD limit (rfc7306-5.2.2-ird-shared)"),
    cover("5.2.1", "4f115ebe", "rfc7306-5.2.1-one-response"),
    hidden("5.2.1", "10b8cca6", "whether the ULP saw the request is local"),
    cover("5.2.1", "29c33b2a", "rfc7306-5.2.1-reserved-atomic-opcode"),
    cover("5.2.1", "00735fcd", "rfc7306-5-qn"),
    cover("5.2.1", "ef2241c3", "rfc7306-5-qn"),
    cover("5.2.1", "94854abb", "rfc5040-5.5-message-order"),
    cover("5.2.1", "6d58232a", "rfc7306-5.2.1-response-order"),
    cover("5.2.1", "29de6add", "rfc7306-5.2.1-one-response"),
    // §5.2.2
    cover("5.2.2", "24e45b2b", "rfc7306-4.1-untagged"),
    cover("5.2.2", "2862c88c", "rfc7306-4.1-untagged"),
    cover("5.2.2", "4bcc4167", "rfc7306-5-qn"),
    cover("5.2.2", "e84d2b31", "rfc7306-5-qn"),
    cover("5.2.2", "c6707ce7", "rfc7306-5.2.2-ird-shared", "the Read Request queue's buffers serve both"),
    hidden("5.2.2", "4e3bb0ca", "buffer provisioning at the Requester is local"),
    hidden("5.2.2", "a764561c", "delivery to the ULP is local"),
    cover("5.2.2", "a342a3e7", "rfc7306-5.2.1-response-order"),
    // §5.3
    cover("5.3", "0c908a9b", "rfc7306-5-atomicity"),
    // §5.4
    hidden("5.4", "c0f8ede1", "what the Requester assumes about remote memory is local"),
    cover("5.4", "7a555ce9", "rfc7306-5-atomicity"),
    none("5.4", "0d5f51ff", "a permission"),
    cover("5.4", "209ececf", "rfc7306-5.4-atomic-after-write"),
    none("5.4", "84c60553", "a permission on response timing"),
    cover("5.4", "947954ca", "rfc7306-5.4-atomic-after-write"),
    none("5.4", "18d96907", "a permission on completion timing"),
    cover("5.4", "8926821f", "rfc7306-5.4-completion-order"),
    cover("5.4", "5f62d8e7", "rfc7306-5.2.1-response-order"),
    cover("5.4", "e82a521f", "rfc7306-5.2.1-response-order"),
    // §6.3
    cover("6.3", "4bb3f253", "rfc7306-4.1-untagged"),
    cover("6.3", "1956cf8b", "rfc7306-4.1-untagged"),
    hidden("6.3", "3eef8062", "buffer accounting at the receiver is local"),
    hidden("6.3", "d7973cce", "delivery to the ULP is local"),
    cover("6.3", "4737f819", "rfc7306-6.3-immediate-qn"),
    cover("6.3", "e1d783da", "rfc7306-6.3-immediate-payload"),
    cover("6.3", "093f1c04", "rfc5040-5.5-message-order rfc7306-6.3-immediate-msn"),
    cover("6.3", "917c8150", "rfc7306-6.3-immediate-size"),
    // §7
    none("7", "d9e3cea4", "a table of ordering guarantees whose MAY cells grant permissions; its MUST-level rules are the sentences of §5.4 and RFC 5040 §5.5"),
    // §8.1
    cover("8.1", "9f2b7e0c", "rfc7306-8.2-existing-codes rfc5040-7.1-terminate-on-error"),
    // §8.2
    cover("8.2", "93a57d4d", "rfc7306-8.2-existing-codes"),
    cover("8.2", "88337dfd", "rfc5041-7.1-check-all-segments"),
    cover("8.2", "dc8fe285", "rfc7306-8.2-unsupported-opcode rfc5040-7.2-opcode-check"),
    cover("8.2", "3fd91511", "rfc5040-7.2-rv-check"),
    cover("8.2", "abb456cf", "rfc7306-5.1.1-alignment"),
    cover("8.2", "a3f7c405", "rfc7306-5.1.1-alignment"),
    cover("8.2", "b132ae74", "rfc7306-5.1.1-alignment"),
};

}  // namespace

std::span<const SentenceTrace> rfc7306_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
