// Diagnosis of MPA fields that break a rule the way a known encoding mistake
// would (see wire/hint.hpp): a multi-octet field sent in the other byte
// order, the RFC 6581 IRD and ORD words exchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "mpa/req_rep.hpp"
#include "wire/bytes.hpp"
#include "wire/hint.hpp"

namespace rdmaconf::mpa {

// A CRC field that fails the check but holds the FPDU's CRC32c with its four
// octets in reverse order (RFC 5044 §4.4 sends it as iSCSI does, least
// significant octet first; wire/crc32c.hpp).
std::optional<wire::Hint> diagnose_crc(std::uint32_t received, std::uint32_t computed);

// An FPDU whose CRC fails because its ULPDU_Length (RFC 5044 §4.1) was sent
// little-endian: `fpdu` starts at the ULPDU_Length field (no Markers in it)
// and holds at least the FPDU that the swapped length describes; the hint
// says so when the swapped length frames an FPDU whose CRC32c checks.
std::optional<wire::Hint> diagnose_ulpdu_length(wire::Bytes fpdu);

// A Request/Reply PD_Length above the 512-octet limit (RFC 5044 §7.1.4)
// whose octets swapped give a length within it.
std::optional<wire::Hint> diagnose_pd_length(std::uint16_t pd_length);

// A Reply to a peer-to-peer Request that breaks RFC 6581 §9.2 (A set, at
// most one RTR kind, an offered one) but keeps it with its IRD and ORD words
// exchanged: the flags of the ORD word (RTR kinds) read where the IRD
// word's (A, send RTR) belong.
std::optional<wire::Hint> diagnose_ird_ord_swapped(const EnhancedData& request, const EnhancedData& reply);

// RFC 6581 §9.2 as the rule layer checks a Reply (check::p2p_echo,
// check::reply_rtr_at_least_one): A as in the Request, and in the
// peer-to-peer model at least one RTR kind set (several, and kinds not
// offered, are allowed).
bool reply_p2p_valid(const EnhancedData& request, const EnhancedData& reply);

}  // namespace rdmaconf::mpa
