// The requirements the capture observer checks, one row each: the
// catalogue's rule id, the level, the section that states it and a summary
// in our words. A violation names its row; reports, JSON, pcapng comments
// and Wireshark expert infos all print from here.
//
// Ids follow the catalogue scheme "rfc<number>-<section>-<slug>" (SMC v2
// rules, which have no RFC, use "smcv2-<slug>"), so the conformance engine,
// the dissector and `rdmaconf analyze` report one requirement by one name.
// The DDP and RDMAP rows live in the reference's rule layer (check/segment.hpp)
// beside the one function that checks each; the rows here refer to them.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "check/rule.hpp"
#include "check/segment.hpp"
#include "check/smcr.hpp"
#include "check/ulp.hpp"

namespace rdmaconf::analysis {

// The rule row and its level are the reference's (check/rule.hpp): the DDP
// and RDMAP rules below are implemented there, once, for every tool.
using check::Level;
using check::name;
using check::Rule;

namespace rules {
// ---- MPA connection setup (RFC 5044 §7.1, RFC 6581)
inline constexpr Rule kReqRepKey{"rfc5044-7.1.1-key-reply", Level::kMust, "RFC 5044 §7.1.1",
                                 "a Request starts with the Request key, a Reply with the Reply key"};
inline constexpr Rule kReqRepReserved{"rfc5044-7.1.1-res-zero", Level::kMust, "RFC 5044 §7.1.1",
                                      "Res bits of a Request/Reply are sent as zero"};
inline constexpr Rule kReqRepRevision{"rfc5044-7.1.1-rev-1", Level::kMust, "RFC 5044 §7.1.1",
                                      "Rev is a revision the RFCs define (1 or 2)"};
inline constexpr Rule kRequestReject{"rfc5044-7.1.1-r-request-zero", Level::kShould, "RFC 5044 §7.1.1",
                                     "R is set only in a Reply (defined so, without an RFC 2119 keyword)"};
inline constexpr Rule kPdLengthMax{"rfc5044-7.1.1-pd-length-max", Level::kMust, "RFC 5044 §7.1.1",
                                   "PD_Length is at most 512"};
inline constexpr Rule kEnhancedDataShort{"rfc6581-9-enhanced-data-present", Level::kMust, "RFC 6581 §9",
                                         "a Rev 2 frame with S set carries at least 4 octets of IRD/ORD data"};
inline constexpr Rule kReplyRevision{"rfc6581-10-reply-rev-not-above", Level::kMust, "RFC 5044 §7.1.2",
                                     "the Reply's revision is not above the Request's"};
inline constexpr Rule kFpduBeforeReply{"rfc5044-7.1.2-initiator-no-early-fpdu", Level::kMust, "RFC 5044 §7.1.2",
                                       "the initiator sends no FPDU before it has received the Reply"};
inline constexpr Rule kDataAfterReject{"rfc5044-7.1.2-no-data-after-reject", Level::kMust, "RFC 5044 §7.1.2",
                                       "no FPDU follows a Reply with R set"};
inline constexpr Rule kP2pOffer{"rfc6581-9.2-p2p-flag-a", Level::kMust, "RFC 6581 §9.2",
                                "a peer-to-peer Request (A set) offers at least one RTR kind"};
inline constexpr Rule kP2pEcho{"rfc6581-9.2-p2p-echo-a", Level::kMust, "RFC 6581 §9.2",
                               "the Reply sets flag A exactly when the Request did"};
inline constexpr Rule kReplyRtrAtLeastOne{"rfc6581-9.2-reply-rtr-at-least-one", Level::kMust, "RFC 6581 §9.2",
                                          "a peer-to-peer Reply sets at least one RTR kind"};
inline constexpr Rule kNoMatchingRtr{"rfc6581-9.2-initiator-no-matching-rtr", Level::kMust, "RFC 6581 §9.2",
                                     "an initiator that can send none of the RTR kinds the Reply sets terminates with "
                                     "LLP error 0x07"};
inline constexpr Rule kRtrFirst{"rfc6581-9.2-rtr-first-fpdu", Level::kMust, "RFC 6581 §9.2",
                                "in peer-to-peer mode the initiator's first FPDU is the RTR message of a kind the Reply "
                                "sets"};
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
inline constexpr Rule kProposalPeerId{"rfc7609-a.2.1-proposal-peer-id-set", Level::kMust, "RFC 7609 App. A.2.1",
                                      "the client's peer ID is not zero"};
inline constexpr Rule kProposalGidMac{"rfc7609-a.2.2-proposal-gid-mac-valid", Level::kMust, "RFC 7609 App. A.2.2",
                                      "the client's GID is not zero and its MAC is unicast"};
inline constexpr Rule kAcceptVersion{"smcv2-accept-version-offered", Level::kMust, "SMCv2: smc_clc_msg_hdr",
                                     "the Accept's version is one the Proposal offered for its path"};
inline constexpr Rule kAcceptPath{"smcv2-accept-path-offered", Level::kMust, "SMCv2: smc_clc_msg_hdr",
                                  "the Accept's path is one the Proposal offered"};
inline constexpr Rule kAcceptPeer{"rfc7609-a.2.3-accept-peer-valid", Level::kMust, "RFC 7609 App. A.2.3",
                                  "the server's peer ID and GID are not zero and its MAC is unicast"};
inline constexpr Rule kAcceptQp{"rfc7609-a.2.3-accept-qp-number", Level::kMust, "IBTA vol. 1 §3.5.1",
                                "the server QP is not QP0 or QP1"};
inline constexpr Rule kAcceptRmb{"rfc7609-a.2.3-accept-rmb-valid", Level::kMust, "RFC 7609 App. A.2.3",
                                 "RMBE index counts from 1 and RMB address + size does not wrap"};
inline constexpr Rule kAcceptEid{"smcv2-accept-eid", Level::kMust, "SMCv2: smc_clc_match_eid",
                                 "the Accept's EID is one the Proposal offered"};
inline constexpr Rule kAcceptRelease{"smcv2-accept-release", Level::kMust, "SMCv2: smc_clc_first_contact_ext",
                                     "the server's release is not above the client's"};
inline constexpr Rule kAcceptMaxConns{"smcv2-accept-max-conns", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                      "v2.1: Max Conns is at least 16"};
inline constexpr Rule kAcceptMaxLinks{"smcv2-accept-max-links", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                      "v2.1: Max Links is 1 or 2"};
inline constexpr Rule kConfirmVersion{"rfc7609-a.2.4-confirm-version", Level::kMust, "RFC 7609 App. A.2.4",
                                      "the Confirm has the Accept's version"};
inline constexpr Rule kConfirmPath{"rfc7609-a.2.4-confirm-path", Level::kMust, "RFC 7609 App. A.2.4",
                                   "the Confirm has the Accept's path"};
inline constexpr Rule kConfirmFirstContact{"rfc7609-c.4-confirm-first-contact-echo", Level::kMust, "RFC 7609 App. C.4",
                                           "the Confirm's First Contact equals the Accept's"};
inline constexpr Rule kConfirmPeerId{"rfc7609-a.2.4-confirm-peer-id", Level::kMust, "RFC 7609 App. A.2.4",
                                     "the Confirm's peer ID is the Proposal's"};
inline constexpr Rule kConfirmPeer{"rfc7609-a.2.4-confirm-peer-valid", Level::kMust, "RFC 7609 App. A.2.4",
                                   "the client's GID is not zero and its MAC is unicast"};
inline constexpr Rule kConfirmQp{"rfc7609-a.2.4-confirm-qp-number", Level::kMust, "IBTA vol. 1 §3.5.1",
                                 "the client QP is not QP0 or QP1"};
inline constexpr Rule kConfirmRmb{"rfc7609-a.2.4-confirm-rmb-valid", Level::kMust, "RFC 7609 App. A.2.4",
                                  "RMBE index counts from 1 and RMB address + size does not wrap"};
inline constexpr Rule kConfirmMtu{"rfc7609-a.2.4-confirm-mtu-not-above-accept", Level::kMust, "RFC 7609 App. A.2.4",
                                  "the Confirm's QP MTU is at most the Accept's"};
inline constexpr Rule kConfirmEid{"smcv2-confirm-eid", Level::kMust, "SMCv2: smc_clc_match_eid",
                                  "the Confirm carries the Accept's EID"};
inline constexpr Rule kConfirmRelease{"smcv2-confirm-release", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                      "the Confirm's release equals the Accept's"};
inline constexpr Rule kConfirmMaxConns{"smcv2-confirm-max-conns", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                       "v2.1: Max Conns equals the Accept's"};
inline constexpr Rule kConfirmMaxLinks{"smcv2-confirm-max-links", Level::kMust, "SMCv2.1: smc_clc_v2x_features",
                                       "v2.1: Max Links equals the Accept's"};
inline constexpr Rule kDeclineOutOfSync{"rfc7609-c.4-decline-out-of-sync", Level::kMust, "RFC 7609 App. C.4",
                                        "Out of Sync is set exactly with diagnosis SYNCERR"};
inline constexpr Rule kDeclineCodeOnWire{"smcv2-decline-code-on-wire", Level::kShould, "Linux net/smc: SMC_CLC_DECL_*",
                                         "a Decline's diagnosis is not a local-only reason"};
}  // namespace rules

// Every rule, for the catalogue test and `rdmaconf analyze --rules`.
std::span<const Rule* const> all_rules();
const Rule* find_rule(std::string_view id);

}  // namespace rdmaconf::analysis
