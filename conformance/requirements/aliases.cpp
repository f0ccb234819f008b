// Old ids of renamed rows (requirement.hpp, Alias). A row is renamed only
// when its id named another section than the one the RFC text puts the
// requirement in; the old id keeps resolving through find().
#include <array>

#include "requirement.hpp"

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
};

}  // namespace

std::span<const Alias> aliases() { return kAliases; }

}  // namespace rdmaconf::requirements
