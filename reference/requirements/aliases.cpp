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
};

}  // namespace

std::span<const Alias> aliases() { return kAliases; }

}  // namespace rdmaconf::requirements
