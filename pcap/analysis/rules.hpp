// The requirements the capture observer checks, one row each: the
// catalogue's rule id, the level, the section that states it and a summary
// in our words. A violation names its row; reports, JSON, pcapng comments
// and Wireshark expert infos all print from here.
//
// Ids follow the catalogue scheme "rfc<number>-<section>-<slug>" (SMC v2
// rules, which have no RFC, use "smcv2-<slug>"), so the conformance engine,
// the dissector and `rdmaconf analyze` report one requirement by one name.
// The rows of every rule another tool checks too live in the reference's
// rule layer (reference/check/: segment.hpp for DDP and RDMAP, mpa_startup.hpp
// for the Request and Reply, clc.hpp for the CLC exchange, smcr.hpp for
// SMC-R over RoCEv2) beside the one function that checks each; the rows here
// refer to them. Rows defined here are rules only the observer checks.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "check/rule.hpp"
#include "check/clc.hpp"
#include "check/mpa_startup.hpp"
#include "check/segment.hpp"
#include "check/smcr.hpp"
#include "check/ulp.hpp"

namespace rdmaconf::analysis {

// The rule row and its level are the reference's (check/rule.hpp).
using check::Level;
using check::name;
using check::Rule;

namespace rules {
// ---- MPA connection setup (RFC 5044 §7.1, RFC 6581)
inline constexpr const Rule& kReqRepKey = check::kReqRepKey;
inline constexpr const Rule& kReqRepReserved = check::kReqRepReserved;
inline constexpr const Rule& kReqRepRevision = check::kReqRepRevision;
inline constexpr const Rule& kRequestReject = check::kRequestReject;
inline constexpr const Rule& kPdLengthMax = check::kPdLengthMax;
inline constexpr const Rule& kEnhancedDataShort = check::kEnhancedDataShort;
inline constexpr const Rule& kReplyRevision = check::kReplyRevision;
inline constexpr const Rule& kReplyEnhanced = check::kReplyEnhanced;
inline constexpr const Rule& kResponderOrd = check::kResponderOrd;
inline constexpr const Rule& kNoNegotiation = check::kNoNegotiation;
inline constexpr Rule kFpduBeforeReply{"rfc5044-7.1.2-initiator-no-early-fpdu", Level::kMust, "RFC 5044 §7.1.2",
                                       "the initiator sends no FPDU before it has received the Reply"};
inline constexpr Rule kDataAfterReject{"rfc5044-7.1.2-no-data-after-reject", Level::kMust, "RFC 5044 §7.1.2",
                                       "no FPDU follows a Reply with R set"};
inline constexpr const Rule& kP2pOffer = check::kP2pOffer;
inline constexpr const Rule& kP2pEcho = check::kP2pEcho;
inline constexpr const Rule& kReplyRtrAtLeastOne = check::kReplyRtrAtLeastOne;
inline constexpr Rule kNoMatchingRtr{"rfc6581-9.2-initiator-no-matching-rtr", Level::kMust, "RFC 6581 §9.2",
                                     "an initiator that can send none of the RTR kinds the Reply sets terminates with "
                                     "LLP error 0x07"};
inline constexpr const Rule& kRtrFirst = check::kRtrFirst;
// ---- MPA full operation (RFC 5044 §4)
inline constexpr Rule kCrc{"rfc5044-4.4-crc32c", Level::kMust, "RFC 5044 §4.4",
                           "the CRC field holds the CRC32c of the FPDU"};
inline constexpr Rule kMarkerFpduPtr{"rfc5044-4.2-fpduptr", Level::kMust, "RFC 5044 §4.2",
                                     "every Marker's FPDUPTR points back to its FPDU's ULPDU_Length"};
inline constexpr Rule kMarkerReserved{"rfc5044-4.2-marker-res-zero", Level::kMust, "RFC 5044 §4.2",
                                      "a Marker's Reserved field is sent as zero"};
inline constexpr Rule kPadZero{"rfc5044-4.1-pad-zero", Level::kMust, "RFC 5044 §4.1",
                               "PAD octets are sent as zero"};
inline constexpr const Rule& kUlpduTooShort = check::kSegmentHeader;
// ---- DDP (RFC 5041)
inline constexpr const Rule& kDdpVersion = check::kDdpVersion;
inline constexpr const Rule& kMsnSequence = check::kMsnSequence;
inline constexpr const Rule& kMoSequence = check::kMoSequence;
inline constexpr const Rule& kToSequence = check::kToSequence;
inline constexpr const Rule& kQueueNumber = check::kQueueNumber;
// ---- RDMAP (RFC 5040, RFC 7306)
inline constexpr const Rule& kRdmapVersion = check::kRdmapVersion;
inline constexpr const Rule& kOpcodeDefined = check::kOpcodeDefined;
inline constexpr const Rule& kOpcodeTagged = check::kOpcodeTagged;
inline constexpr const Rule& kSingleSegment = check::kSingleSegment;
inline constexpr const Rule& kExactSize = check::kExactSize;
inline constexpr const Rule& kReadUnsolicited = check::kReadUnsolicited;
inline constexpr const Rule& kReadResponseSink = check::kReadResponseSink;
inline constexpr const Rule& kReadResponseSize = check::kReadResponseSize;
inline constexpr const Rule& kOrdExceeded = check::kOrdExceeded;
inline constexpr const Rule& kAtomicUnsolicited = check::kAtomicUnsolicited;
inline constexpr const Rule& kTerminateFormat = check::kTerminateFormat;
inline constexpr const Rule& kAfterTerminate = check::kAfterTerminate;
// ---- SMC CLC (RFC 7609; SMC v2 as Linux implements it)
inline constexpr Rule kClcFormat{"rfc7609-a.2-clc-format", Level::kMust, "RFC 7609 App. A.2",
                                 "a CLC message is well formed (eyecatchers, Length, blocks)"};
inline constexpr Rule kClcWithoutOption{"rfc7609-3.1-no-clc-without-option", Level::kMust, "RFC 7609 §3.1",
                                        "CLC messages follow only a handshake whose SYN and SYN-ACK both carry the SMC option"};
inline constexpr Rule kClcOrder{"rfc7609-c.6-clc-order", Level::kMust, "RFC 7609 App. C.6",
                                "Proposal, Accept, Confirm come in order from the right side"};
inline constexpr const Rule& kProposalPeerId = check::kProposalPeerId;
inline constexpr const Rule& kProposalGidMac = check::kProposalGidMac;
inline constexpr const Rule& kAcceptVersion = check::kAcceptVersion;
inline constexpr const Rule& kAcceptPath = check::kAcceptPath;
inline constexpr const Rule& kAcceptPeer = check::kAcceptPeer;
inline constexpr const Rule& kAcceptQp = check::kAcceptQp;
inline constexpr const Rule& kAcceptRmb = check::kAcceptRmb;
inline constexpr const Rule& kAcceptEid = check::kAcceptEid;
inline constexpr const Rule& kAcceptRelease = check::kAcceptRelease;
inline constexpr const Rule& kAcceptMaxConns = check::kAcceptMaxConns;
inline constexpr const Rule& kAcceptMaxLinks = check::kAcceptMaxLinks;
inline constexpr const Rule& kConfirmVersion = check::kConfirmVersion;
inline constexpr const Rule& kConfirmPath = check::kConfirmPath;
inline constexpr const Rule& kConfirmFirstContact = check::kConfirmFirstContact;
inline constexpr const Rule& kConfirmPeerId = check::kConfirmPeerId;
inline constexpr const Rule& kConfirmPeer = check::kConfirmPeer;
inline constexpr const Rule& kConfirmQp = check::kConfirmQp;
inline constexpr const Rule& kConfirmRmb = check::kConfirmRmb;
inline constexpr const Rule& kConfirmMtu = check::kConfirmMtu;
inline constexpr const Rule& kConfirmEid = check::kConfirmEid;
inline constexpr const Rule& kConfirmRelease = check::kConfirmRelease;
inline constexpr const Rule& kConfirmMaxConns = check::kConfirmMaxConns;
inline constexpr const Rule& kConfirmMaxLinks = check::kConfirmMaxLinks;
inline constexpr const Rule& kDeclineOutOfSync = check::kDeclineOutOfSync;
inline constexpr const Rule& kDeclineCodeOnWire = check::kDeclineCodeOnWire;
}  // namespace rules

// Every rule, for the catalogue test and `rdmaconf analyze --rules`.
std::span<const Rule* const> all_rules();
const Rule* find_rule(std::string_view id);

}  // namespace rdmaconf::analysis
