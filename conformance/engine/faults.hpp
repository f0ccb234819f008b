// The named faults of the reference IUT: each makes it break ONE rule.
// Receive checks of rdmap::Stream are switched off through its own Faults;
// the MPA, Terminate and CLC faults act at the seams in responder_mpa.cpp,
// responder_rdmap.cpp and responder_clc.cpp; the SMC-R ones through
// smcr::Connection's Faults or at the SMC-R side's seams (smcr_memory.cpp);
// the SCTP ones at the seams of the in-memory association (sctp_memory.cpp).
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "rdmap/stream.hpp"
#include "smcr/connection.hpp"
#include "smcr/link_group.hpp"

namespace rdmaconf::conformance {

enum class FaultId : std::uint8_t {
  // rdmap::Stream receive checks
  kDdpVersion, kRdmapVersion, kOpcode, kMessageShape, kStag, kStreamAssociation, kAccess, kBounds, kToWrap,
  kQn, kMsn, kMo, kMessageLength, kInvalidate, kAtomicAlignment,
  // MPA (responder seams)
  kMpaAcceptBadKey, kMpaAcceptAnyRevision, kMpaCheckRInRequest, kMpaIgnorePdLimit, kMpaCheckResBits,
  kMpaSkipCrcCheck, kMpaSkipMarkerCheck, kMpaIgnoreCrcRequest, kMpaIgnoreMarkerRequest, kMpaCloseWithoutReject,
  kMpaReplyBadKey, kMpaReplyWrongRevision, kMpaRejectWithoutR,
  // Terminate and RDMAP responses
  kTerminateWrongCode, kTerminateNoCopies, kTerminateOmitted, kNoCloseAfterTerminate, kTerminateLeBitfield,
  kReadResponseWrongStag, kAtomicResponseWrongId, kEchoDropped,
  // fields of what the IUT sends (outgoing seams)
  kSendReservedSet, kUntaggedMsnFromZero, kAtomicResponseWrongQueue, kMpaMarkersUnasked,
  // CLC (server seams)
  kClcSkipPeerIdCheck, kClcSkipGidMacCheck, kClcSkipPrefixCheck, kClcSkipEidCheck, kClcAcceptBadEyecatcher,
  kClcInconsistentAccept, kClcWrongTrailer, kClcDeclineZeroDiagnosis, kClcSkipConfirmQpCheck, kClcAnswerDecline,
  kClcReservedSet, kClcCheckReserved,
  kMpaPadNonzero, kMpaNoPad, kMpaMarkerReservedSet,
  // CLC: what the reference sends, as server and as client
  kClcMulticastMac, kClcRmbWraps, kClcAcceptWrongPath, kClcV21LimitsOutOfRange, kClcProposalNoPath,
  kClcConfirmPeerIdChanged, kClcConfirmOtherVersion, kClcConfirmIgnoresAccept,
  // the IUT as requester (test ULP commands)
  kOrd, kReadFence, kReadRequestWrongQueue, kAtomicRequestReservedSet, kUntaggedMoOffByOne,
  // MPA without CRCs, and the initiator's first FPDU
  kMpaCrcWhenOff, kMpaCheckCrcWhenOff, kMpaInitiatorWaits,
  kCheckAtomicReserved, kClcCheckDeclineReserved, kClcSkipAcceptReleaseCheck, kClcSkipAcceptLimitsCheck,
  kClcSkipFirstContactCheck, kMpaAnyFirstFpdu, kMpaStartMarkerPointsBack,
  // the MPA initiator in the peer-to-peer model (RFC 6581 §9.2)
  kMpaP2pNoRtrOffered, kMpaRtrReadWithoutOrd, kMpaInitiatorWrongRtr,
  // handshake timers (RFC 5044 §7.1.2, RFC 7609 App. C.5)
  kMpaNoHandshakeTimer, kClcNoTimer,
  kClcProposalOffsetWrong, kClcRefuseSurplus, kClcRefuseGrowth, kMpaSkipLengthCheck,
  kDdpInterleaveMessages, kOmitTerminatedHeader,
  // what the reference sends: FPDUs, the RFC 6581 Reply, atomics, the close
  kMpaUlpdusShareFpdu, kDdpUlpduOver64768, kMpaNoNegotiationTaken, kMpaIrdOrdOverFlags, kMpaRtrFlagsWithoutP2p,
  kMpaRtrFlagsHonouredWithoutP2p, kTerminateThenReset, kAtomicRequestUnusedFieldsSet, kClcDeclineLocalCode,
  kMpaInitiatorSendsUnsetRtr,
  kMpaRequestOneRead,
  // the Reject that names the ORD the ULP needs (RFC 6581 §9.1)
  kMpaRejectWithoutIrdOrd,
  // the CLC server on SMC-D Proposals (SMC v2: smc_clc_msg_prop_valid, smc_listen_find_device)
  kClcIsmGidCountUnchecked, kClcDeclineNamesOtherDevice,
  // an STag of another stream (RFC 5042 §6.1.1)
  kStagKeyIgnored,
  // SMC-R past CLC: the reference IUT's link group and connection (smcr_memory.cpp)
  kSmcrConfirmLinkWrongQp, kSmcrSkipConfirmLinkCheck, kSmcrNoSecondLink, kSmcrNoTestLink, kSmcrTestLinkNoEcho,
  kSmcrUnknownLlcIgnored, kSmcrOptionalLlcError, kSmcrDeleteLinkHeld, kSmcrNoFailoverValidation,
  kSmcrWriterNotBlocked, kSmcrUrgentFlagsCleared, kSmcrCloseUnanswered, kSmcrAbortUnanswered,
  kSmcrWritePastWindow, kSmcrRepeatSequenceNumber, kSmcrSkipCdcChecks, kSmcrNoConsumerUpdate,
  kSmcrConfirmRkeyRefused, kSmcrDeleteRkeyNoMask, kSmcrGroupDeleteIgnored, kSmcrNoTcpReset,
  kSmcrConfigExchangesOverlap, kSmcrLinkFreedOnDelete, kSmcrRkeyOneLink, kSmcrRkeyNoRetry, kSmcrRkeyRetryUnasked,
  kSmcrCloseIgnoresUnread, kSmcrStaleConsumerCursor, kSmcrSingleLinkEnds, kSmcrAsymmetricRefused,
  kSmcrDeleteLinkUnanswered, kSmcrClientAddWaits, kSmcrEyecatcherIgnored, kSmcrEyecatcherUnchecked,
  kSmcrUpdateRequestIgnored, kSmcrClientLateOpen, kSmcrDataBeforeDeleteAnswered, kSmcrNoReplay,
  kSmcrMtuUnchecked, kSmcrUnknownLinkIgnored, kSmcrWritePastUrgent, kSmcrNoCloseTimer, kSmcrTcpResetIgnored,
  kSmcrNoLinkGroupReuse, kSmcrRmbeShared, kSmcrRmbeConflictIgnored,
  kSmcrFailoverMovesOne, kSmcrGroupEndsWithConnection, kSmcrRmbeFreedEarly, kSmcrIdleGroupForgotten,
  kSmcrIdleGroupKept,
  // DDP over SCTP: the reference IUT's association in memory (sctp_memory.cpp)
  kSctpNoIndication, kSctpSkipIndicationCheck, kSctpUnequalStreams, kSctpAcceptNoPrivateData,
  kSctpPrivateDataOver512, kSctpTerminatePrivateData, kSctpSsnGap, kSctpIllegalIgnored, kSctpAnswerTwice,
  kSctpNeverRejects, kSctpNoPendingLimit, kSctpOversizedAccepted, kSctpSkipSsnValidityCheck, kSctpOrderedChunks,
  kSctpTerminateOvertakes, kSctpSsnPerAssociation, kSctpSegmentBeforeInitiate, kSctpNoTerminate,
  kSctpTerminateTwice,
  kCount
};

struct FaultInfo {
  FaultId id;
  std::string_view name;
  std::string_view layer;
  std::string_view rule;         // the one rule it breaks, in our words
  std::string_view rfc_section;
  std::optional<rdmap::Fault> stream_fault;
};

std::span<const FaultInfo> all_faults();
const FaultInfo* find_fault(std::string_view name);

struct FaultSet {
  std::bitset<static_cast<std::size_t>(FaultId::kCount)> bits;
  bool has(FaultId f) const { return bits.test(static_cast<std::size_t>(f)); }
  void set(FaultId f) { bits.set(static_cast<std::size_t>(f)); }
  rdmap::Faults stream_faults() const;
  smcr::Faults smcr_faults() const;  // the ones smcr::Connection takes itself
  smcr::GroupFaults smcr_group_faults() const;  // the ones smcr::LinkGroup takes itself
  std::string names() const;
};

}  // namespace rdmaconf::conformance
