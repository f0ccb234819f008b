#include "analysis/rules.hpp"

#include "check/clc.hpp"
#include "check/mpa_startup.hpp"
#include "check/mpa_tcp.hpp"
#include "check/segment.hpp"
#include "check/smc_tcp.hpp"
#include "check/smcr.hpp"
#include "check/ulp.hpp"

namespace rdmaconf::analysis {
namespace {

constexpr const Rule* kAll[] = {
    &check::kReqRepKey,
    &check::kReqRepReserved,
    &check::kReqRepRevision,
    &check::kRequestReject,
    &check::kPdLengthMax,
    &check::kEnhancedDataShort,
    &check::kReplyRevision,
    &check::kReplyEnhanced,
    &check::kResponderOrd,
    &check::kNoNegotiation,
    &rules::kFpduBeforeReply,
    &rules::kDataAfterReject,
    &check::kP2pOffer,
    &check::kP2pEcho,
    &check::kReplyRtrAtLeastOne,
    &rules::kNoMatchingRtr,
    &check::kRtrFirst,
    &rules::kCrc,
    &rules::kMarkerFpduPtr,
    &rules::kMarkerReserved,
    &rules::kPadZero,
    // How FPDUs go into TCP segments (reference/check/mpa_tcp.hpp)
    &check::kFpduFitsSegment,
    &check::kSegmentAlignment,
    &check::kNoSplittingSmall,
    &check::kRetransmitSame,
    &check::kSegmentHeader,
    &check::kDdpVersion,
    &check::kMsnSequence,
    &check::kMoSequence,
    &check::kToSequence,
    &check::kQueueNumber,
    &check::kRdmapVersion,
    &check::kOpcodeDefined,
    &check::kOpcodeTagged,
    &check::kSingleSegment,
    &check::kExactSize,
    &check::kReadUnsolicited,
    &check::kReadResponseSink,
    &check::kReadResponseSize,
    &check::kOrdExceeded,
    &check::kAtomicUnsolicited,
    &check::kTerminateFormat,
    &check::kAfterTerminate,
    &rules::kClcFormat,
    // The TCP layer under CLC: the SMC option, the FIN (reference/check/smc_tcp.hpp)
    &check::kOptionKind,
    &check::kOptionExid,
    &check::kOptionInSyn,
    &check::kOptionInSynAck,
    &check::kBothOrTcp,
    &check::kNoClcWithoutOption,
    &check::kFinAfterSmcClose,
    &rules::kClcOrder,
    &check::kProposalPeerId,
    &check::kProposalGidMac,
    &check::kAcceptVersion,
    &check::kAcceptPath,
    &check::kAcceptPeer,
    &check::kAcceptQp,
    &check::kAcceptRmb,
    &check::kAcceptEid,
    &check::kAcceptRelease,
    &check::kAcceptMaxConns,
    &check::kAcceptMaxLinks,
    &check::kConfirmVersion,
    &check::kConfirmPath,
    &check::kConfirmFirstContact,
    &check::kConfirmPeerId,
    &check::kConfirmPeer,
    &check::kConfirmQp,
    &check::kConfirmRmb,
    &check::kConfirmMtu,
    &check::kConfirmEid,
    &check::kConfirmRelease,
    &check::kConfirmMaxConns,
    &check::kConfirmMaxLinks,
    &check::kDeclineOutOfSync,
    &check::kDeclineCodeOnWire,
    &check::kFceAbsent,
    // DDP over SCTP (RFC 5043): the rows SctpObserver reports (observer_sctp.cpp)
    &check::rule<"rfc5043-5.1-indication-in-init">,
    &check::rule<"rfc5043-5.2.3-private-data-max">,
    &check::rule<"rfc5043-5.2.3-terminate-no-private-data">,
    &check::rule<"rfc5043-6-no-ssn-gaps">,
    &check::rule<"rfc5043-6.1-legal-pattern">,
    &check::rule<"rfc5043-6.6-no-segment-before-initiate">,
    &check::rule<"rfc5043-10-unordered">,
    // SMC-R over RoCEv2 (reference/check/smcr.hpp)
    &check::kLlcReplyAnswersRequest,
    &check::kCdcConsumerNotAhead,
    &check::kCdcCursorWithinRmbe,
    &check::kCdcSequenceNumber,
    &check::kWriteInsideRmbe,
    &check::kProducerCursorTracksWrites,
    &check::kUrgentPresentPending,
    &check::kNoWritesAfterDone,
    &check::kNothingAfterClosed,
    &check::kTestLinkEcho,
    &check::kAddLinkEchoesLinkNumber,
    &check::kConfirmLinkRoceInfo,
    &check::kDataOnConfirmedLink,
    &check::kWriteThroughAnnouncedRkey,
    &check::kRmbeReuseAfterClose,
    // The ULP's use of RDMA: RPC-over-RDMA and iSER (reference/check/ulp.hpp)
    &check::kRpcReadWithinReadChunk,
    &check::kRpcWriteWithinChunk,
    &check::kRpcWriteChunkEchoed,
    &check::kRpcReplyChunkEchoed,
    &check::kRpcReplyReadListEmpty,
    &check::kRpcCreditLimit,
    &check::kRpcGrantNotZero,
    &check::kRpcDdpEligibleOnly,
    &check::kIserReadUsesWriteStag,
    &check::kIserWriteUsesReadStag,
    &check::kIserResponseInvalidatesTaskStag,
};

}  // namespace

std::span<const Rule* const> all_rules() { return kAll; }

const Rule* find_rule(std::string_view id) {
  for (const Rule* r : kAll)
    if (r->id == id) return r;
  return nullptr;
}

}  // namespace rdmaconf::analysis
