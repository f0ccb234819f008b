// The rules the capture observer checks, named as every tool names them: the
// requirement registry's rows (reference/requirements/), viewed through the
// rule layer's Rule (check/rule.hpp). A violation names its rule; reports,
// JSON, pcapng comments and Wireshark expert infos all print the row's id,
// weight, citation and phrase.
//
// Every rule another tool checks too is the rule layer's (reference/check/:
// segment.hpp for DDP and RDMAP, mpa_startup.hpp for the Request and Reply,
// clc.hpp for the CLC exchange, smc_tcp.hpp for the SMC option and the FIN, smcr.hpp for SMC-R over RoCEv2, ulp.hpp for
// RPC-over-RDMA and iSER; mpa_tcp.hpp for how FPDUs go into TCP segments),
// and the observer calls it by its check:: name. The rules below are the
// ones only a passive observer of both sides sees; they too are registry
// rows named by id.
#pragma once

#include <span>
#include <string_view>

#include "check/rule.hpp"

namespace rdmaconf::analysis {

// The rule row and its weight are the reference's (check/rule.hpp).
using check::Level;
using check::name;
using check::Rule;

namespace rules {
// ---- MPA connection setup (RFC 5044 §7.1.2, RFC 6581 §9.2): the order of both sides' frames
inline constexpr const Rule& kFpduBeforeReply = check::rule<"rfc5044-7.1.2-initiator-no-early-fpdu">;
inline constexpr const Rule& kDataAfterReject = check::rule<"rfc5044-7.1.2-no-data-after-reject">;
inline constexpr const Rule& kNoMatchingRtr = check::rule<"rfc6581-9.2-initiator-no-matching-rtr">;
// ---- MPA full operation (RFC 5044 §4): what the deframer reports as the observer runs it
inline constexpr const Rule& kCrc = check::rule<"rfc5044-4.4-crc32c">;
inline constexpr const Rule& kMarkerFpduPtr = check::rule<"rfc5044-4.2-fpduptr">;
inline constexpr const Rule& kMarkerReserved = check::rule<"rfc5044-4.2-marker-res-zero">;
inline constexpr const Rule& kPadZero = check::rule<"rfc5044-4.1-pad-zero">;
// ---- SMC CLC (RFC 7609): what the codec rejects, and the order of both sides' messages
inline constexpr const Rule& kClcFormat = check::rule<"rfc7609-a.2-clc-format">;
inline constexpr const Rule& kClcOrder = check::rule<"rfc7609-c.6-clc-order">;
}  // namespace rules

// Every rule the observer reports (the rule layer's and its own), for the
// catalogue test and `rdmaconf analyze --rules`.
std::span<const Rule* const> all_rules();
const Rule* find_rule(std::string_view id);

}  // namespace rdmaconf::analysis
