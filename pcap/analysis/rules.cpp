#include "analysis/rules.hpp"

namespace rdmaconf::analysis {
namespace {

constexpr const Rule* kAll[] = {
    &rules::kReqRepKey,
    &rules::kReqRepReserved,
    &rules::kReqRepRevision,
    &rules::kRequestReject,
    &rules::kPdLengthMax,
    &rules::kEnhancedDataShort,
    &rules::kReplyRevision,
    &rules::kReplyEnhanced,
    &rules::kResponderOrd,
    &rules::kNoNegotiation,
    &rules::kFpduBeforeReply,
    &rules::kDataAfterReject,
    &rules::kP2pOffer,
    &rules::kP2pEcho,
    &rules::kReplyRtrAtLeastOne,
    &rules::kNoMatchingRtr,
    &rules::kRtrFirst,
    &rules::kCrc,
    &rules::kMarkerFpduPtr,
    &rules::kMarkerReserved,
    &rules::kPadZero,
    &rules::kUlpduTooShort,
    &rules::kDdpVersion,
    &rules::kMsnSequence,
    &rules::kMoSequence,
    &rules::kToSequence,
    &rules::kQueueNumber,
    &rules::kRdmapVersion,
    &rules::kOpcodeDefined,
    &rules::kOpcodeTagged,
    &rules::kSingleSegment,
    &rules::kExactSize,
    &rules::kReadUnsolicited,
    &rules::kReadResponseSink,
    &rules::kReadResponseSize,
    &rules::kOrdExceeded,
    &rules::kAtomicUnsolicited,
    &rules::kTerminateFormat,
    &rules::kAfterTerminate,
    &rules::kClcFormat,
    &rules::kClcWithoutOption,
    &rules::kClcOrder,
    &rules::kProposalPeerId,
    &rules::kProposalGidMac,
    &rules::kAcceptVersion,
    &rules::kAcceptPath,
    &rules::kAcceptPeer,
    &rules::kAcceptQp,
    &rules::kAcceptRmb,
    &rules::kAcceptEid,
    &rules::kAcceptRelease,
    &rules::kAcceptMaxConns,
    &rules::kAcceptMaxLinks,
    &rules::kConfirmVersion,
    &rules::kConfirmPath,
    &rules::kConfirmFirstContact,
    &rules::kConfirmPeerId,
    &rules::kConfirmPeer,
    &rules::kConfirmQp,
    &rules::kConfirmRmb,
    &rules::kConfirmMtu,
    &rules::kConfirmEid,
    &rules::kConfirmRelease,
    &rules::kConfirmMaxConns,
    &rules::kConfirmMaxLinks,
    &rules::kDeclineOutOfSync,
    &rules::kDeclineCodeOnWire,
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
