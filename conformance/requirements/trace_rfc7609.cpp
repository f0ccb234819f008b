// RFC 7609 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    // §2.1
    cover("2.1", "6d214e22", "rfc7609-3.5.5.2.1-new-rmb-all-links rfc7609-3.5.5.2.3-new-link-all-rmbs"),
    cover("2.1", "6c7f5b3a", "rfc7609-2.1-rmbe-same-size"),
    cover("2.1", "2b85d16c", "rfc7609-2.1-rmbe-same-size"),
    // §2.2
    cover("2.2", "1a65ffb7", "rfc7609-2.2-link-group-roles"),
    cover("2.2", "a539c677", "rfc7609-2.2-link-group-roles"),
    // §2.2.1
    cover("2.2.1", "095a966e", "rfc7609-2.2.1-single-asymmetric-supported"),
    cover("2.2.1", "4fae86ac", "rfc7609-2.2.1-asymmetric-to-symmetric"),
    // §2.2.2
    cover("2.2.2", "b4dc6c93", "rfc7609-2.2.2-second-symmetric-link rfc7609-2.2.2-max-links-range"),
    cover("2.2.2", "167c5e49", "rfc7609-3.5.5.2.1-new-rmb-all-links rfc7609-3.5.5.2.3-new-link-all-rmbs"),
    cover("2.2.2", "1b12332d", "rfc7609-2.2.2-max-links-range"),
    cover("2.2.2", "246b3a2e", "rfc7609-2.2.2-server-max-links"),
    cover("2.2.2", "316fa05a", "rfc7609-2.2.2-no-link-beyond-max"),
    cover("2.2.2", "be58f2b4", "rfc7609-2.2.2-no-link-beyond-max"),
    cover("2.2.2", "d4b732d9", "rfc7609-2.2.2-no-link-beyond-max"),
    // §2.3
    cover("2.3", "5087b540", "rfc7609-2.3-failover-moves-connections"),
    hidden("2.3", "fa173a22", "a side's wait for the completions of the Writes it posted happens inside the host; what follows on the wire is rfc7609-4.6.1-validation-message and rfc7609-4.6.2-replay-before-new-data"),
    cover("2.3", "72edf8af", "rfc7609-4.6.1-validate-failover"),
    cover("2.3", "31e5ea6a", "rfc7609-4.6.2-replay-before-new-data"),
    // §3.2
    cover("3.2", "18c1fda0", "rfc7609-3.2-decline-fallback"),
    // §3.3
    cover("3.3", "ae025a17", "rfc7609-3.3-request-answered"),
    cover("3.3", "93045605", "rfc7609-3.3-confirm-link-on-its-link"),
    cover("3.3", "efbf6e35", "rfc7609-a.3-optional-llc-discarded"),
    cover("3.3", "a924d80c", "rfc7609-3.3-confirm-link-on-its-link"),
    // A response flows on its request's link: the capture analyzer pairs LLC replies per link.
    cover("3.3", "1719f557", "rfc7609-3.3-reply-answers-request"),
    // §3.5.1.2
    cover("3.5.1.2", "d80c76f7", "rfc7609-3.5.1.2-prefix-match"),
    cover("3.5.1.2", "8c9a9a1e", "rfc7609-3.5.1.2-credentials-on-common-subnet"),
    // §3.5.1.5
    // No data before the link is confirmed: the capture analyzer checks CDC and Writes against the link's state.
    cover("3.5.1.5", "c427be5f", "rfc7609-3.5.1.5-data-on-confirmed-link"),
    // §3.5.1.6.2
    cover("3.5.1.6.2", "6c4151d2", "rfc7609-3.5.1.6.2-no-data-until-delete-answered"),
    // §3.5.2.2
    cover("3.5.2.2", "c56248fa", "rfc7609-4.4.2-rmbe-conflict-aborts-old"),
    cover("3.5.2.2", "11ecf3fb", "rfc7609-4.4.2-rmbe-conflict-aborts-old"),
    // §3.5.2.4
    cover("3.5.2.4", "8ba8b319", "rfc7609-3.5.2.4-no-data-before-done"),
    cover("3.5.2.4", "e39e0e64", "rfc7609-3.5.2.4-server-holds-early-data"),
    cover("3.5.2.4", "879cf00e", "rfc7609-3.5.2.4-client-ready-after-confirm"),
    // §3.5.3
    cover("3.5.3", "c91cc024", "rfc7609-3.5.3-parallel-group-own-rmbs"),
    // §3.5.4
    cover("3.5.4", "65c0021d", "rfc7609-3.5.4-client-ends-group"),
    cover("3.5.4", "8c52eb07", "rfc7609-3.5.4-client-ends-group"),
    cover("3.5.4", "01f81de7", "rfc7609-3.5.4-server-honours-group-delete"),
    // §3.5.5.1
    none("3.5.5.1", "3cff5494", "the keyword is what a client's notice says; the sentence lets the client (may) treat the link as gone, and the server's duty is rfc7609-3.5.5.1.4-server-deletes-on-request"),
    // §3.5.5.1.1
    hidden("3.5.5.1.1", "0c53b663", "a RoCE LAN attachment is configuration"),
    // §3.5.5.1.2
    cover("3.5.5.1.2", "da37f53b", "rfc7609-3.5.5.1.2-server-adds-for-redundancy"),
    cover("3.5.5.1.2", "a1312833", "rfc7609-3.5.5.1.2-ignore-add-at-max"),
    cover("3.5.5.1.2", "89f768a1", "rfc7609-3.5.5.1.2-client-add-unanswered"),
    // §3.5.5.1.3
    cover("3.5.5.1.3", "440de70e", "rfc7609-3.5.5.1.3-server-keeps-link-until-reply"),
    cover("3.5.5.1.3", "304e010d", "rfc7609-3.5.5.1.3-client-confirms-delete"),
    // §3.5.5.1.4
    cover("3.5.5.1.4", "dfa939ef", "rfc7609-3.5.5.1.4-server-deletes-on-request"),
    cover("3.5.5.1.4", "6baedf95", "rfc7609-3.5.5.1.4-server-deletes-on-request"),
    // §3.5.5.2
    cover("3.5.5.2", "bd47f7f1", "rfc7609-3.5.5.2.1-new-rmb-all-links"),
    // A Write uses only RTokens exchanged (CLC, ADD LINK CONTINUATION, CONFIRM RKEY): the capture analyzer checks.
    cover("3.5.5.2", "a70ab3e2", "rfc7609-3.5.5.2-write-through-announced-rkey rfc7609-3.5.5.2.1-new-rmb-all-links rfc7609-3.5.5.2.3-new-link-all-rmbs"),
    // A Write through a deleted rkey shows the RToken set out of sync: the capture analyzer checks.
    cover("3.5.5.2", "9b514fab", "rfc7609-3.5.5.2-write-through-announced-rkey rfc7609-3.5.5.2.1-new-rmb-all-links"),
    // §3.5.5.2.1
    cover("3.5.5.2.1", "f26e3eea", "rfc7609-3.5.5.2.1-new-rmb-all-links"),
    cover("3.5.5.2.1", "b71bfd83", "rfc7609-3.5.5.2.1-new-rmb-all-links"),
    // §3.5.5.2.3
    cover("3.5.5.2.3", "fc1eda15", "rfc7609-3.5.5.2.3-new-link-all-rmbs"),
    // §3.5.5.3
    cover("3.5.5.3", "eec6d4a5", "rfc7609-3.5.5.3-one-config-exchange"),
    cover("3.5.5.3", "d48d2a53", "rfc7609-3.5.5.3-one-config-exchange"),
    none("3.5.5.3", "70a746d6", "says some timing windows remain to be handled; the rules that handle them follow"),
    // §4.1
    cover("4.1", "3d27c74f", "rfc7609-4.1-rmbe-per-connection"),
    hidden("4.1", "12ff7e21", "sizing the RMBE against the local socket's receive buffer is buffer sizing policy; the size sent shows in CLC (rfc7609-a.2.3-rmbe-size)"),
    cover("4.1", "3536a993", "rfc7609-2.1-rmbe-same-size"),
    // §4.3
    hidden("4.3", "fc04fa29", "how a host keeps the peer's cursors and flags is its own data structures; its use of them shows in the window rows (rfc7609-a.4-producer-not-past-consumer ...)"),
    cover("4.3", "c5571a07", "rfc7609-a.4-cursor-skips-eyecatcher"),
    // §4.4.1
    hidden("4.4.1", "6e4268ec", "zeroing an RMBE and writing its eyecatcher touch the owner's memory only: the peer's rkey gives write access, never read"),
    cover("4.4.1", "be82af89", "rfc7609-4.4.1-eyecatcher-overlay-reset"),
    // §4.4.2
    cover("4.4.2", "61fe8ff2", "rfc7609-4.4.2-rmbe-reuse-after-close"),
    cover("4.4.2", "9330bb8f", "rfc7609-4.4.2-rmbe-conflict-aborts-old"),
    cover("4.4.2", "31e2408b", "rfc7609-4.4.2-rmbe-conflict-aborts-old"),
    cover("4.4.2", "6dbdd1f3", "rfc7609-4.4.2-rmbe-conflict-aborts-old", "the RMBE's left-over data staying unread is inside the host; the Writes it makes no more show"),
    // §4.5.1
    cover("4.5.1", "7fb1bc55", "rfc7609-4.5.1-cursor-update-piggybacked"),
    cover("4.5.1", "82e4b8cf", "rfc7609-4.5.1-update-on-request"),
    // §4.5.3
    cover("4.5.3", "8cb2ad6c", "rfc7609-4.5.3-test-link-timeout-failover"),
    cover("4.5.3", "c0040eff", "rfc7609-3.5.1.2-prefix-match"),
    cover("4.5.3", "e1906842", "rfc7609-4.5.3-keepalive-ack"),
    cover("4.5.3", "db956a0f", "rfc7609-4.5.3-keepalive-ack"),
    // §4.6.1
    none("4.6.1", "5dda9200", "says such events are guarded against; the rules that do so follow"),
    cover("4.6.1", "13e5e477", "rfc7609-4.6.1-validation-message rfc7609-4.6.1-validate-failover", "the numbers each side keeps show in the F message it sends and in its answer to the peer's"),
    cover("4.6.1", "e385729f", "rfc7609-4.6.1-validation-message"),
    cover("4.6.1", "1d24299a", "rfc7609-4.6.1-validate-failover"),
    cover("4.6.1", "11828ece", "rfc7609-4.6.1-validation-message"),
    cover("4.6.1", "9c1fe8b9", "rfc7609-4.6.1-validate-failover"),
    cover("4.6.1", "dc1e1359", "rfc7609-4.6.1-validate-failover"),
    // §4.6.2
    cover("4.6.2", "0c24cb84", "rfc7609-4.6.2-replay-before-new-data"),
    cover("4.6.2", "c9d7bf12", "rfc7609-4.6.2-sequence-after-combine"),
    // §4.7.5
    cover("4.7.5", "865a7710", "rfc7609-4.7.5-update-after-urgent"),
    // §4.8.1
    cover("4.8.1", "af9e2602", "rfc7609-4.8.1-close-with-unread-data-aborts"),
    cover("4.8.1", "734be0a6", "rfc7609-4.8.1-closed-with-pending-data-aborts"),
    // §4.8.2
    cover("4.8.2", "7b70f835", "rfc7609-4.8.2-reset-sends-abort"),
    hidden("4.8.2", "d4df55ca", "when the wait for the peer's abort ends the RMBE goes back to the host's free pool: nothing is sent"),
    cover("4.8.2", "cda38f04", "rfc7609-4.8.2-abort-answered"),
    // §5.1
    none("5.1", "bfb051fc", "a requirement on network (VLAN) configuration, not on an implementation's behaviour"),
    none("5.1", "45782333", "a requirement on network (VLAN) configuration, not on an implementation's behaviour"),
    none("5.1", "68ca4ce9", "a requirement on network (VLAN) configuration, not on an implementation's behaviour"),
    // §5.5
    cover("5.5", "301c088a", "rfc7609-5.5-ipsec-opts-out", "the IPsec policy is the harness's setting on the IUT; the absent option or the Decline shows"),
    // §a.2
    cover("a.2", "16c4f1c1", "rfc7609-a.2-reserved-zero rfc7609-a.2-reserved-ignored"),
    cover("a.2", "a70b8023", "rfc7609-a.2-eyecatcher-check"),
    // §a.2.2
    cover("a.2.2", "457cab6b", "rfc7609-a.2.2-prefix-offset rfc7609-a.2.2-future-growth"),
    cover("a.2.2", "e577cacc", "rfc7609-a.2.2-prefix-offset rfc7609-a.2.2-future-growth"),
    cover("a.2.2", "56c1d1ed", "rfc7609-a.2.2-prefix-offset rfc7609-a.2.2-future-growth"),
    // §a.2.5
    cover("a.2.5", "ae6573ee", "rfc7609-a.2.5-out-of-sync-all"),
    // §a.3
    cover("a.3", "556d2ddf", "rfc7609-a.3-supports-defined-llc rfc7609-a.3-unknown-llc-error"),
    cover("a.3", "2feb3633", "rfc7609-a.3-optional-llc-discarded"),
    // §a.3.5
    cover("a.3.5", "a20a251d", "rfc7609-3.5.5.2.1-new-rmb-all-links"),
    cover("a.3.5", "a8026682", "rfc7609-a.3.5-retry-after-negative"),
    cover("a.3.5", "c5b1cd9e", "rfc7609-a.3.5-retry-after-negative"),
    // §a.4
    hidden("a.4", "c3845fc4", "how a host schedules CDC processing against LLC processing is local; no message shows it"),
    cover("a.4", "99bce898", "rfc7609-4.6.1-validate-failover"),
    cover("a.4", "b931c4c5", "rfc7609-4.6.1-validate-failover"),
    cover("a.4", "d3921559", "rfc7609-a.4-cursor-skips-eyecatcher"),
    cover("a.4", "5369053b", "rfc7609-4.6.1-validate-failover"),
    cover("a.4", "f7589bae", "rfc7609-4.6.1-validate-failover"),
    cover("a.4", "54925657", "rfc7609-4.8.2-abort-answered"),
    // §b.1
    hidden("b.1", "57bdf55e", "a socket option interface is local"),
    // §c.1
    cover("c.1", "2a1b30ba", "rfc7609-c.1-decline-reason"),
    // §c.5
    cover("c.5", "ea1499c3", "rfc7609-c.5-clc-timer"),
    cover("c.5", "e5f0b183", "rfc7609-c.5-timeout-action"),
    // §c.6
    cover("c.6", "effecfcc", "rfc7609-c.6-protocol-error rfc7609-c.6-no-fallback-after-garbage", "a malformed expected CLC message counts as unexpected data, a protocol error"),
    cover("c.6", "cd6125df", "rfc7609-c.6-protocol-error rfc7609-c.6-no-fallback-after-garbage", "a malformed expected CLC message counts as unexpected data, a protocol error"),
    cover("c.6", "11f7e516", "rfc7609-c.6-protocol-error"),
    // §c.7
    cover("c.7", "b3a1969c", "rfc7609-c.7-llc-timeout-recovery"),
    cover("c.7", "c23e1b97", "rfc7609-c.7-client-confirm-link-timeout"),
    cover("c.7", "1aed8489", "rfc7609-c.7-server-confirm-link-timeout"),
    // §c.7.1
    cover("c.7.1", "52c76112", "rfc7609-c.7.1-bad-confirm-link"),
    cover("c.7.1", "65edf0fa", "rfc7609-a.3-optional-llc-discarded"),
    // §c.8
    cover("c.8", "7d641455", "rfc7609-c.8-retry-second-link"),
    cover("c.8", "c797f96d", "rfc7609-c.8-retry-second-link"),
};

}  // namespace

std::span<const SentenceTrace> rfc7609_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
