// Old ids of renamed rows (requirement.hpp, Alias). A row is renamed only
// when its id named another section than the one the RFC text puts the
// requirement in, or when it held two requirements and was split in two
// (its old id then names the first); the old id keeps resolving through
// find().
#include <array>

#include "requirements/requirement.hpp"

namespace rdmaconf::requirements {
namespace {

constexpr Alias kAliases[] = {
    // RFC 5044: the MULPDU limit is §3's (a DDP SHOULD); the private data limit is stated in §7.1.1; the
    // middlebox rule in Appendix A.4.
    {"rfc5044-4.1-ulpdu-max-mulpdu", "rfc5044-3-ulpdu-max-mulpdu"},
    {"rfc5044-7.1.4-private-data-max", "rfc5044-7.1.1-private-data-max"},
    {"rfc5044-a.1-no-middlebox-dependence", "rfc5044-a.4-no-middlebox-dependence"},
    // RFC 6581: Rev and the S flag are §6's; IRD/ORD negotiation is §9.1; the catch-all error code §9.3.
    {"rfc6581-9-rev-2", "rfc6581-6-rev-2"},
    {"rfc6581-9-enhanced-flag", "rfc6581-6-enhanced-flag"},
    {"rfc6581-9-responder-ord", "rfc6581-9.1-responder-ord"},
    {"rfc6581-9-initiator-ord-adjust", "rfc6581-9.1-initiator-ord-adjust"},
    {"rfc6581-9-error-insufficient-ird", "rfc6581-9.1-error-insufficient-ird"},
    {"rfc6581-9-reject-with-reply", "rfc6581-9.1-reject-with-reply"},
    {"rfc6581-9-error-catastrophic", "rfc6581-9.3-error-catastrophic"},
    {"rfc6581-9-ird-ord-max", "rfc6581-9.1-ird-ord-no-negotiation"},
    // RFC 5041: the IPsec requirements are stated in §8.4.2.
    {"rfc5041-8.3-ipsec", "rfc5041-8.4.2-ipsec"},
    // RFC 5040: opcodes, tagged/untagged use and queue numbers are §4.1 (Figure 4) and §5.x; the checks on
    // receipt are §7.2; the payload rule §4.2; IPsec §8.2.2; STag scope §8.1.1.
    {"rfc5040-4.2-opcodes", "rfc5040-4.1-opcodes"},
    {"rfc5040-4.2-tagged-kinds", "rfc5040-4.1-tagged-kinds"},
    {"rfc5040-4.2-untagged-kinds", "rfc5040-4.1-untagged-kinds"},
    {"rfc5040-4.2-qn-send", "rfc5040-5.3-qn-send"},
    {"rfc5040-4.2-qn-read-request", "rfc5040-5.2.1-qn-read-request"},
    {"rfc5040-4.2-qn-terminate", "rfc5040-5.4-qn-terminate"},
    {"rfc5040-4.2-qn-opcode-match", "rfc5040-4.1-qn-opcode-match"},
    {"rfc5040-4.2-opcode-check", "rfc5040-7.2-opcode-check"},
    {"rfc5040-4.1-rv-check", "rfc5040-7.2-rv-check"},
    {"rfc5040-4.3-payload-size", "rfc5040-4.2-payload-size"},
    {"rfc5040-8-ipsec", "rfc5040-8.2.2-ipsec"},
    {"rfc5040-8-stag-per-stream", "rfc5040-8.1.1-stag-per-stream"},
    // RFC 5042: the RNIC and ULP requirements are stated in §6 and §7; the IPsec rule in §5.4.5.
    {"rfc5042-5.1.4-stag-other-pd", "rfc5042-6.1.1-stag-other-pd"},
    {"rfc5042-5.1.4-stag-other-stream", "rfc5042-6.1.1-stag-other-stream"},
    {"rfc5042-5.2.1-bounds", "rfc5042-6.2.1-bounds"},
    {"rfc5042-5.2.2-no-change-after-indication", "rfc5042-6.2.2-no-change-after-indication"},
    {"rfc5042-5.3.2-stale-data", "rfc5042-6.3.2-stale-data"},
    {"rfc5042-5.3.3-revoke-after-transfer", "rfc5042-6.3.3-revoke-after-transfer"},
    {"rfc5042-5.3.5-read-into-write-buffer", "rfc5042-6.3.5-read-into-write-buffer"},
    {"rfc5042-5.4.3.2-shared-cq", "rfc5042-7.1-shared-cq"},
    {"rfc5042-5.4.3.3-cq-overflow", "rfc5042-6.4.6-cq-overflow"},
    {"rfc5042-5.4.3.1-shared-receive-queue", "rfc5042-6.4.3.1-shared-receive-queue"},
    {"rfc5042-6-ipsec-implement", "rfc5042-5.4.5-ipsec-implement"},
    // SMC v2.1: the limits row was two rules with two diagnoses (Linux smc_clc_srv_v2x_features_validate);
    // split in two, its old id names the first.
    {"smcv2-fce-v21-limits", "smcv2-fce-v21-max-conns"},
    // Found by the trace: each id below named another section than the sentence it covers (the test
    // Trace.EveryRowNamesTheSectionOfItsSentence keeps them apart).
    // RFC 5044: the rules stated in §3, §5.1, §5.2, §6, §7.1.1, §7.1.2, §7.1.5 and §8.
    {"rfc5044-4.3-fpduptr-check", "rfc5044-8-fpduptr-check"},
    {"rfc5044-4.3-no-markers-unless-negotiated", "rfc5044-7.1.1-no-markers-unless-negotiated"},
    {"rfc5044-4.3-receiver-may-use-markers", "rfc5044-5.2-receiver-may-use-markers"},
    {"rfc5044-4.5-mulpdu-to-ulp", "rfc5044-3-mulpdu-to-ulp"},
    {"rfc5044-5-tcp-unchanged", "rfc5044-7.1.5-tcp-unchanged"},
    {"rfc5044-5.2-no-segment-assumption", "rfc5044-5.1-no-segment-assumption"},
    {"rfc5044-7.1-initiator-sends-request", "rfc5044-7.1.2-initiator-sends-request"},
    {"rfc5044-7.1-responder-waits", "rfc5044-7.1.2-responder-waits"},
    {"rfc5044-7.1.1-r-reject", "rfc5044-7.1.2-r-reject"},
    {"rfc5044-7.2-partial-fpdu-at-close", "rfc5044-6-partial-fpdu-at-close"},
    // RFC 6581: the enhanced-data rules are §6's and §7's, the enhanced Reply §10's.
    {"rfc6581-9-enhanced-data-present", "rfc6581-6-enhanced-data-present"},
    {"rfc6581-9-pd-length-includes", "rfc6581-7-pd-length-includes"},
    {"rfc6581-9-reply-enhanced", "rfc6581-10-reply-enhanced"},
    // RFC 5041: the per-segment header rules are §4.1-§4.4's; the segment size §5.2; teardown §6.2.1 and
    // §6.2.2; the STag's stream §8.2.
    {"rfc5041-4-segment-header", "rfc5041-4.4-segment-header"},
    {"rfc5041-4.1-rsvdulp-carried", "rfc5041-4.2-rsvdulp-carried"},
    {"rfc5041-4.4-segment-max", "rfc5041-5.2-segment-max"},
    {"rfc5041-5.1-tagged-advertised", "rfc5041-4.2-tagged-advertised"},
    {"rfc5041-5.2-last-once", "rfc5041-4.1-last-once"},
    {"rfc5041-5.2-msn-increment", "rfc5041-4.3-msn-increment"},
    {"rfc5041-5.2-msn-per-queue", "rfc5041-4.3-msn-per-queue"},
    {"rfc5041-5.2-msn-start", "rfc5041-4.3-msn-start"},
    {"rfc5041-5.2-same-rsvdulp", "rfc5041-4.2-same-rsvdulp"},
    {"rfc5041-5.2-tagged-same-stag", "rfc5041-4.2-tagged-same-stag"},
    {"rfc5041-5.2-untagged-same-qn-msn", "rfc5041-4.3-untagged-same-qn-msn"},
    {"rfc5041-5.3-deliver-after-placed", "rfc5041-5.4-deliver-after-placed"},
    {"rfc5041-6.1-msn-init", "rfc5041-4.3-msn-init"},
    {"rfc5041-6.1-stream-pd", "rfc5041-8.2-stream-pd"},
    {"rfc5041-6.2-errors-abortive", "rfc5041-6.2.2-errors-abortive"},
    {"rfc5041-6.2-graceful-no-loss", "rfc5041-6.2.1-graceful-no-loss"},
    // RFC 5040: IRD/ORD at stream setup §6.1; the Read Response rules §5.2; Terminate rules §5.4 and §7.1.
    {"rfc5040-3-ddp-below", "rfc5040-3.1-ddp-below"},
    {"rfc5040-4.8-terminate-one-segment", "rfc5040-5.4-terminate-one-segment"},
    {"rfc5040-5.2.1-ird-exceeded", "rfc5040-6.1-ird-exceeded"},
    {"rfc5040-5.2.1-ord-limit", "rfc5040-6.1-ord-limit"},
    {"rfc5040-5.2.2-read-response-size", "rfc5040-5.2-read-response-size"},
    {"rfc5040-5.2.2-read-response-solicited", "rfc5040-5.2-read-response-solicited"},
    {"rfc5040-5.3-invalidated-stag-refused", "rfc5040-8.1.1-invalidated-stag-refused"},
    {"rfc5040-5.4-terminate-on-error", "rfc5040-7.1-terminate-on-error"},
    {"rfc5040-7.2-local-errors-terminate", "rfc5040-7.1-local-errors-terminate"},
    {"rfc5040-7.3-remote-errors", "rfc5040-5.4-remote-errors"},
    {"rfc5040-8-rfc5042", "rfc5040-8.1-rfc5042"},
    // RFC 7306: header rules §4.1; atomic details §5.1.1 and §5.2.x; ordering §5.4; Immediate Data §6.3;
    // errors §8.2.
    {"rfc7306-4-rv-1", "rfc7306-4.1-rv-1"},
    {"rfc7306-4-unsupported-opcode", "rfc7306-8.2-unsupported-opcode"},
    {"rfc7306-4-untagged", "rfc7306-4.1-untagged"},
    {"rfc7306-5-alignment", "rfc7306-5.1.1-alignment"},
    {"rfc7306-5-ird-shared", "rfc7306-5.2.2-ird-shared"},
    {"rfc7306-5-one-response", "rfc7306-5.2.1-one-response"},
    {"rfc7306-5-reserved-atomic-opcode", "rfc7306-5.2.1-reserved-atomic-opcode"},
    {"rfc7306-5-response-order", "rfc7306-5.2.1-response-order"},
    {"rfc7306-6-immediate-msn", "rfc7306-6.3-immediate-msn"},
    {"rfc7306-6-immediate-payload", "rfc7306-6.3-immediate-payload"},
    {"rfc7306-6-immediate-qn", "rfc7306-6.3-immediate-qn"},
    {"rfc7306-6-immediate-size", "rfc7306-6.3-immediate-size"},
    {"rfc7306-7-atomic-after-write", "rfc7306-5.4-atomic-after-write"},
    {"rfc7306-7-completion-order", "rfc7306-5.4-completion-order"},
    {"rfc7306-8-existing-codes", "rfc7306-8.2-existing-codes"},
    {"rfc7306-8-no-memory-change", "rfc7306-5.1.1-no-memory-change"},
    // RFC 7609: rules stated in the body (§3.3, §3.5.x) or another appendix (A.2.5) than the id named.
    {"rfc7609-3.2-no-data-before-done", "rfc7609-3.5.2.4-no-data-before-done"},
    {"rfc7609-a.2.2-prefix-match", "rfc7609-3.5.1.2-prefix-match"},
    {"rfc7609-a.3-reply-answers-request", "rfc7609-3.3-reply-answers-request"},
    {"rfc7609-c.4-out-of-sync-all", "rfc7609-a.2.5-out-of-sync-all"},
};

}  // namespace

std::span<const Alias> aliases() { return kAliases; }

}  // namespace rdmaconf::requirements
