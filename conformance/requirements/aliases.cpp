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
};

}  // namespace

std::span<const Alias> aliases() { return kAliases; }

}  // namespace rdmaconf::requirements
