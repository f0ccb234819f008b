#include "engine/faults.hpp"

namespace rdmaconf::conformance {
namespace {
using F = FaultId;
using S = rdmap::Fault;
constexpr FaultInfo kFaults[] = {
    {F::kDdpVersion, "ddp-skip-version-check", "DDP", "accepts a segment whose DV is not 1", "RFC 5041 §4.1", S::kSkipDdpVersionCheck},
    {F::kRdmapVersion, "rdmap-skip-version-check", "RDMAP", "accepts a message whose RV is not 1", "RFC 5040 §4.2", S::kSkipRdmapVersionCheck},
    {F::kOpcode, "rdmap-skip-opcode-check", "RDMAP", "drops unknown or misplaced opcodes silently instead of terminating", "RFC 5040 §4.3", S::kSkipOpcodeCheck},
    {F::kMessageShape, "rdmap-skip-message-shape-check", "RDMAP", "accepts single-segment messages that are segmented or of the wrong size", "RFC 5040 §5", S::kSkipMessageShapeCheck},
    {F::kStag, "ddp-skip-stag-check", "DDP", "places into an invalid STag's region instead of terminating", "RFC 5041 §7.1", S::kSkipStagCheck},
    {F::kStreamAssociation, "ddp-skip-stream-association-check", "DDP", "accepts an STag of another protection domain", "RFC 5042 §5.1", S::kSkipStreamAssociationCheck},
    {F::kAccess, "rdmap-skip-access-check", "RDMAP", "ignores the access rights of an STag", "RFC 5040 §8", S::kSkipAccessCheck},
    {F::kBounds, "ddp-skip-bounds-check", "DDP", "places outside the base and bounds of a buffer (clipped)", "RFC 5041 §7.1", S::kSkipBoundsCheck},
    {F::kToWrap, "ddp-skip-to-wrap-check", "DDP", "ignores a Tagged Offset that wraps", "RFC 5041 §7.1", S::kSkipToWrapCheck},
    {F::kQn, "ddp-skip-qn-check", "DDP", "drops segments for a queue that does not exist instead of terminating", "RFC 5041 §7.1", S::kSkipQnCheck},
    {F::kMsn, "ddp-skip-msn-check", "DDP", "ignores the MSN range and buffer availability", "RFC 5041 §7.1", S::kSkipMsnCheck},
    {F::kMo, "ddp-skip-mo-check", "DDP", "ignores a Message Offset beyond the buffer", "RFC 5041 §7.1", S::kSkipMoCheck},
    {F::kMessageLength, "ddp-skip-message-length-check", "DDP", "ignores a message too long for the posted buffer", "RFC 5041 §7.1", S::kSkipMessageLengthCheck},
    {F::kInvalidate, "rdmap-skip-invalidate-check", "RDMAP", "invalidates STags a peer may not invalidate", "RFC 5040 §5.3", S::kSkipInvalidateCheck},
    {F::kAtomicAlignment, "rdmap-skip-atomic-alignment-check", "RDMAP", "executes atomics on a target that is not 8-octet aligned", "RFC 7306 §5", S::kSkipAtomicAlignmentCheck},
    {F::kMpaAcceptBadKey, "mpa-accept-bad-key", "MPA", "accepts a Request whose Key is wrong", "RFC 5044 §7.1.1", std::nullopt},
    {F::kMpaAcceptAnyRevision, "mpa-accept-any-revision", "MPA", "accepts a Request of an unknown revision as Rev 1", "RFC 5044 §7.1.2", std::nullopt},
    {F::kMpaCheckRInRequest, "mpa-check-r-in-request", "MPA", "refuses a Request whose R bit is set (R is not checked on receipt)", "RFC 5044 §7.1.1", std::nullopt},
    {F::kMpaIgnorePdLimit, "mpa-ignore-pd-length-limit", "MPA", "accepts a Request or Reply with more than 512 octets of private data", "RFC 5044 §7.1.1", std::nullopt},
    {F::kMpaCheckResBits, "mpa-check-res-bits", "MPA", "refuses a Request whose Res bits are set (Res is not checked on receipt)", "RFC 5044 §7.1.1", std::nullopt},
    {F::kMpaSkipCrcCheck, "mpa-skip-crc-check", "MPA", "does not check the CRC of received FPDUs", "RFC 5044 §4.4", std::nullopt},
    {F::kMpaSkipMarkerCheck, "mpa-skip-marker-check", "MPA", "does not check the FPDUPTR of received Markers", "RFC 5044 §4.3", std::nullopt},
    {F::kMpaIgnoreCrcRequest, "mpa-ignore-crc-request", "MPA", "runs without CRC although the peer asked for it", "RFC 5044 §7.1.2", std::nullopt},
    {F::kMpaIgnoreMarkerRequest, "mpa-ignore-marker-request", "MPA", "sends no Markers although the peer asked for them", "RFC 5044 §7.1.2", std::nullopt},
    {F::kMpaCloseWithoutReject, "mpa-close-without-reject", "MPA", "closes without a Reject Reply when it refuses a revision", "RFC 5044 §7.1.2", std::nullopt},
    {F::kMpaReplyBadKey, "mpa-reply-bad-key", "MPA", "answers with the Request key instead of the Reply key", "RFC 5044 §7.1.1", std::nullopt},
    {F::kMpaReplyWrongRevision, "mpa-reply-wrong-revision", "MPA", "accepts with a revision other than the Request's", "RFC 5044 §7.1.2", std::nullopt},
    {F::kMpaRejectWithoutR, "mpa-reject-without-r", "MPA", "refuses a revision with a Reply whose R bit is clear", "RFC 5044 §7.1.2", std::nullopt},
    {F::kTerminateWrongCode, "terminate-wrong-code", "RDMAP", "reports every error with the wrong Error Code", "RFC 5040 §4.8", std::nullopt},
    {F::kTerminateNoCopies, "terminate-no-copies", "RDMAP", "copies no headers into its Terminate (M, D, R clear)", "RFC 5040 §4.8", std::nullopt},
    {F::kTerminateOmitted, "terminate-omitted", "RDMAP", "closes without sending a Terminate", "RFC 5040 §5.4", std::nullopt},
    {F::kTerminateLeBitfield, "terminate-le-bitfield", "RDMAP", "writes its Terminate Control field as a little-endian C bitfield (as Linux siw does)", "RFC 5040 §4.8", std::nullopt},
    {F::kNoCloseAfterTerminate, "no-close-after-terminate", "RDMAP", "keeps the LLP connection open after its Terminate", "RFC 5040 §6.2", std::nullopt},
    {F::kReadResponseWrongStag, "read-response-wrong-stag", "RDMAP", "answers an RDMA Read with the wrong Data Sink STag", "RFC 5040 §5.2.2", std::nullopt},
    {F::kAtomicResponseWrongId, "atomic-response-wrong-id", "RDMAP", "answers an Atomic Request with the wrong Request Identifier", "RFC 7306 §5", std::nullopt},
    {F::kEchoDropped, "send-not-delivered", "RDMAP", "does not deliver Sends to the ULP (no echo)", "RFC 5040 §5.3", std::nullopt},
    {F::kSendReservedSet, "send-reserved-set", "RDMAP", "sends its Sends, Immediate Data and Atomic Responses with RDMAP Rsvd and the 32-bit RsvdULP not zero", "RFC 5040 §4.1", std::nullopt},
    {F::kUntaggedMsnFromZero, "untagged-msn-from-zero", "DDP", "numbers the messages of each untagged queue from MSN 0 instead of 1", "RFC 5041 §5.2", std::nullopt},
    {F::kAtomicResponseWrongQueue, "atomic-response-wrong-queue", "RDMAP", "sends Atomic Responses on the Send queue (QN 0)", "RFC 7306 §5", std::nullopt},
    {F::kMpaMarkersUnasked, "mpa-markers-unasked", "MPA", "inserts Markers towards a peer that did not ask for them", "RFC 5044 §4.3", std::nullopt},
    {F::kClcSkipPeerIdCheck, "clc-skip-peer-id-check", "CLC", "accepts a Proposal whose peer ID is zero", "RFC 7609 App. A.2.1", std::nullopt},
    {F::kClcSkipGidMacCheck, "clc-skip-gid-mac-check", "CLC", "accepts a Proposal with a zero GID or a multicast MAC", "RFC 7609 App. A.2.1", std::nullopt},
    {F::kClcSkipPrefixCheck, "clc-skip-prefix-check", "CLC", "accepts SMC-Rv1 with an IP prefix it does not have", "RFC 7609 §4.3", std::nullopt},
    {F::kClcSkipEidCheck, "clc-skip-eid-check", "CLC", "accepts SMC-Rv2 without a common EID", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kClcAcceptBadEyecatcher, "clc-accept-bad-eyecatcher", "CLC", "accepts a message whose eyecatcher is wrong", "RFC 7609 App. A.2", std::nullopt},
    {F::kClcInconsistentAccept, "clc-inconsistent-accept", "CLC", "answers a Proposal with an Accept of a version it did not offer", "RFC 7609 App. A.2.2", std::nullopt},
    {F::kClcWrongTrailer, "clc-wrong-trailer", "CLC", "closes its messages with the wrong trailer eyecatcher", "RFC 7609 App. A.2", std::nullopt},
    {F::kClcDeclineZeroDiagnosis, "clc-decline-zero-diagnosis", "CLC", "declines without a diagnosis code", "RFC 7609 App. A.2.5", std::nullopt},
    {F::kClcSkipConfirmQpCheck, "clc-skip-confirm-qp-check", "CLC", "accepts a Confirm naming QP0 or QP1", "RFC 7609 App. A.2.4", std::nullopt},
    {F::kClcAnswerDecline, "clc-answer-decline", "CLC", "answers a Decline with a Decline", "RFC 7609 App. C.1", std::nullopt},
    {F::kClcReservedSet, "clc-reserved-set", "CLC", "sends its Accepts and Declines with a reserved header bit set", "RFC 7609 App. A.2", std::nullopt},
    {F::kClcCheckReserved, "clc-check-reserved", "CLC", "declines a Proposal whose reserved prefix-area octets are not zero", "RFC 7609 App. A.2", std::nullopt},
    {F::kClcMulticastMac, "clc-multicast-mac", "CLC", "names a group MAC (I/G bit set) as its RoCE port's in every Proposal, Accept and Confirm", "RFC 7609 App. A.2.2-A.2.4", std::nullopt},
    {F::kClcRmbWraps, "clc-rmb-wraps", "CLC", "names an RMB whose virtual address plus size runs past 2^64 in its Accepts and Confirms", "RFC 7609 App. A.2.3, A.2.4", std::nullopt},
    {F::kClcAcceptWrongPath, "clc-accept-wrong-path", "CLC", "accepts on the SMC-D path although the Proposal offered only SMC-R", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kClcV21LimitsOutOfRange, "clc-v21-limits-out-of-range", "CLC", "accepts release 2.1 with 8 connections and 3 links per link group", "SMC v2.1 (Linux smc_clc.c)", std::nullopt},
    {F::kClcProposalNoPath, "clc-proposal-no-path", "CLC", "proposes with no path in either version (both SMC types 'none')", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kClcConfirmPeerIdChanged, "clc-confirm-peer-id-changed", "CLC", "confirms with a Peer ID other than its Proposal's", "RFC 7609 App. A.2.4", std::nullopt},
    {F::kClcConfirmOtherVersion, "clc-confirm-other-version", "CLC", "confirms in the version the Accept did not choose", "RFC 7609 App. A.2.4", std::nullopt},
    {F::kClcConfirmIgnoresAccept, "clc-confirm-ignores-accept", "CLC", "confirms its own release and link-group limits instead of the Accept's", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kOrd, "rdmap-skip-ord-check", "RDMAP", "issues more RDMA Read and Atomic Requests at once than its ORD (the peer's IRD) allows", "RFC 5040 §5.2.1", S::kSkipOrdCheck},
    {F::kReadFence, "rdmap-skip-read-fence", "RDMAP", "sends a message posted with the Read fence before the earlier Read Responses arrived", "RFC 5040 §5.5", S::kSkipReadFence},
    {F::kReadRequestWrongQueue, "read-request-wrong-queue", "RDMAP", "sends its RDMA Read Requests on queue 0 instead of 1", "RFC 5040 §4.2", std::nullopt},
    {F::kAtomicRequestReservedSet, "atomic-request-reserved-set", "RDMAP", "sends its Atomic Requests with a reserved bit before the atomic opcode set", "RFC 7306 §5", std::nullopt},
    {F::kUntaggedMoOffByOne, "untagged-mo-off-by-one", "DDP", "counts the Message Offset of its Send segments from 1 instead of 0", "RFC 5041 §5.2", std::nullopt},
    {F::kMpaCrcWhenOff, "mpa-crc-when-off", "MPA", "fills the CRC field of its FPDUs although no CRC was negotiated", "RFC 5044 §4.4", std::nullopt},
    {F::kMpaCheckCrcWhenOff, "mpa-check-crc-when-off", "MPA", "checks the CRC field of received FPDUs although no CRC was negotiated", "RFC 5044 §4.1", std::nullopt},
    {F::kMpaInitiatorWaits, "mpa-initiator-waits", "MPA", "as initiator, waits for the responder's first FPDU instead of sending the first one", "RFC 5044 §7.1.2", std::nullopt},
    {F::kCheckAtomicReserved, "rdmap-check-atomic-reserved", "RDMAP", "terminates on an Atomic Request whose reserved bits are set", "RFC 7306 §5", S::kCheckAtomicReserved},
    {F::kClcCheckDeclineReserved, "clc-check-decline-reserved", "CLC", "resets the connection on a Decline whose reserved bits are set instead of falling back", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kClcSkipAcceptReleaseCheck, "clc-skip-accept-release-check", "CLC", "as client, confirms an Accept whose release is above the one it proposed", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kClcSkipAcceptLimitsCheck, "clc-skip-accept-limits-check", "CLC", "as client, confirms a release 2.1 Accept with Max Conns below 16 or Max Links above 2", "SMC v2.1 (Linux smc_clc.c)", std::nullopt},
    {F::kClcSkipFirstContactCheck, "clc-skip-first-contact-check", "CLC", "as client, confirms an Accept that reuses a link group it does not have", "RFC 7609 §3.5.2", std::nullopt},
    {F::kMpaAnyFirstFpdu, "mpa-any-first-fpdu", "MPA", "in the peer-to-peer model, takes any first FPDU instead of the chosen RTR", "RFC 6581 §9.2", std::nullopt},
    {F::kMpaStartMarkerPointsBack, "mpa-start-marker-points-back", "MPA", "gives a Marker that falls where an FPDU begins the FPDUPTR of the previous FPDU (512) instead of 0", "RFC 5044 §4.3", std::nullopt},
    {F::kMpaPadNonzero, "mpa-pad-nonzero", "MPA", "sends its PAD octets as 0xA5 instead of zero", "RFC 5044 §4.1", std::nullopt},
    {F::kMpaNoPad, "mpa-no-pad", "MPA", "sends its FPDUs without PAD (not a multiple of four octets)", "RFC 5044 §4.1", std::nullopt},
    {F::kMpaMarkerReservedSet, "mpa-marker-reserved-set", "MPA", "sends its Markers with the Reserved half not zero", "RFC 5044 §4.2", std::nullopt},
    {F::kMpaP2pNoRtrOffered, "mpa-p2p-no-rtr-offered", "MPA", "as initiator, asks for the peer-to-peer model (flag A) without offering any RTR kind", "RFC 6581 §9.2", std::nullopt},
    {F::kMpaRtrReadWithoutOrd, "mpa-rtr-read-ord-zero", "MPA", "as initiator, offers the zero-length RDMA Read RTR with an ORD of 0", "RFC 6581 §9.2", std::nullopt},
    {F::kMpaInitiatorWrongRtr, "mpa-initiator-wrong-rtr", "MPA", "as initiator, sends another RTR kind than the one the Reply chose", "RFC 6581 §9.2", std::nullopt},
    {F::kMpaNoHandshakeTimer, "mpa-no-handshake-timer", "MPA", "waits for the Request (responder) or the Reply (initiator) without a timer", "RFC 5044 §7.1.2", std::nullopt},
    {F::kClcNoTimer, "clc-no-timer", "CLC", "waits for the peer's next CLC message without a timer", "RFC 7609 App. C.5", std::nullopt},
    {F::kClcProposalOffsetWrong, "clc-proposal-offset-wrong", "CLC", "as client, gives its Proposal an IP Area Offset of 4 without the four octets it skips", "RFC 7609 App. A.2.2", std::nullopt},
    {F::kClcRefuseSurplus, "clc-refuse-surplus", "CLC", "resets the connection on a v2 Accept or Confirm whose Length runs past its blocks instead of ignoring the surplus", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kClcRefuseGrowth, "clc-refuse-growth", "CLC", "reads a version 1 Proposal's future-growth octets as its prefix area (and declines)", "RFC 7609 App. A.2.2", std::nullopt},
    {F::kMpaSkipLengthCheck, "mpa-skip-length-check", "MPA", "waits for the octets of a ULPDU_Length no TCP segment could carry instead of failing the stream", "RFC 5044 §6", std::nullopt},
    {F::kDdpInterleaveMessages, "ddp-interleave-messages", "DDP", "sends the segments of untagged messages posted together in turns, interleaved", "RFC 5041 §5.2", std::nullopt},
    {F::kOmitTerminatedHeader, "terminate-omits-ddp-header", "RDMAP", "copies neither the DDP header nor the segment length into a Terminate for a bad DDP or RDMAP version or an unexpected opcode", "RFC 5040 §4.8", S::kOmitTerminatedHeader},
    {F::kMpaUlpdusShareFpdu, "mpa-ulpdus-share-fpdu", "MPA", "puts the first two DDP segments it sends at once into one FPDU", "RFC 5044 §3", std::nullopt},
    {F::kDdpUlpduOver64768, "ddp-ulpdu-over-64768", "DDP", "cuts its messages into ULPDUs of up to 65535 octets, above MPA's 64768", "RFC 5044 §3", std::nullopt},
    {F::kMpaNoNegotiationTaken, "mpa-0x3fff-negotiated", "MPA", "answers an IRD or ORD of 0x3FFF with its own ORD or IRD instead of 0x3FFF", "RFC 6581 §9.1", std::nullopt},
    {F::kMpaIrdOrdOverFlags, "mpa-ird-ord-over-flags", "MPA", "writes the IRD and ORD of its Reply as 16-bit numbers over the control flags (A, B, C, D clear)", "RFC 6581 §9", std::nullopt},
    {F::kMpaRtrFlagsWithoutP2p, "mpa-rtr-flags-without-p2p", "MPA", "sets RTR flags B, C and D in a Reply whose flag A is clear", "RFC 6581 §9.2", std::nullopt},
    {F::kMpaRtrFlagsHonouredWithoutP2p, "mpa-rtr-flags-honoured-without-p2p", "MPA", "takes a Request with RTR flags but flag A clear as a peer-to-peer Request (waits for an RTR)", "RFC 6581 §9.2", std::nullopt},
    {F::kTerminateThenReset, "terminate-then-reset", "RDMAP", "resets the connection after its Terminate instead of closing it gracefully", "RFC 5040 §6.2.1", std::nullopt},
    {F::kAtomicRequestUnusedFieldsSet, "atomic-request-unused-fields-set", "RDMAP", "sends FetchAdd and Swap Requests with Compare Data not zero", "RFC 7306 §5", std::nullopt},
    {F::kClcDeclineLocalCode, "clc-decline-local-code", "CLC", "declines with PEERDECL, a reason Linux keeps local, as diagnosis", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kMpaInitiatorSendsUnsetRtr, "mpa-initiator-sends-unset-rtr", "MPA", "as initiator, sends a zero-length Send RTR when the Reply sets no RTR kind instead of terminating", "RFC 6581 §9.2", std::nullopt},
    {F::kMpaRequestOneRead, "mpa-request-one-read", "MPA", "takes the Request from the first TCP segment alone and closes when it is not whole there", "RFC 5044 §7.1.5", std::nullopt},
    {F::kMpaRejectWithoutIrdOrd, "mpa-reject-without-ird-ord", "MPA", "rejects an enhanced Request with a Reply that leaves out its IRD and ORD (S clear)", "RFC 6581 §9.1", std::nullopt},
    {F::kClcIsmGidCountUnchecked, "clc-ism-gid-count-unchecked", "CLC", "takes a Proposal listing more than 8 ISM GID/CHID entries, reading the first 8", "SMC v2 (Linux smc_clc.c)", std::nullopt},
    {F::kClcDeclineNamesOtherDevice, "clc-decline-names-other-device", "CLC", "declines an SMC-D-only Proposal naming the SMC-R device (NOSMCRDEV) instead of the SMC-D device it lacks", "SMC v2 (Linux af_smc.c)", std::nullopt},
    {F::kStagKeyIgnored, "ddp-skip-stag-key-check", "DDP", "takes an STag by its index alone, ignoring its key octet: an STag another stream registered names this stream's buffer of that index", "RFC 5042 §6.1.1", S::kSkipStagKeyCheck},
    {F::kSmcrConfirmLinkWrongQp, "smcr-confirm-link-wrong-qp", "SMC-R", "names in its CONFIRM LINK a QP one above the one it announced", "RFC 7609 §3.5.1.5", std::nullopt},
    {F::kSmcrSkipConfirmLinkCheck, "smcr-skip-confirm-link-check", "SMC-R", "takes a CONFIRM LINK that names another QP than its sender announced", "RFC 7609 App. C.7.1", std::nullopt},
    {F::kSmcrNoSecondLink, "smcr-no-second-link", "SMC-R", "as server, never adds a second link, though both sides have a second RoCE port", "RFC 7609 §2.2.2", std::nullopt},
    {F::kSmcrNoTestLink, "smcr-no-test-link", "SMC-R", "never tests a quiet link with TEST LINK", "RFC 7609 §4.5.3", std::nullopt},
    {F::kSmcrTestLinkNoEcho, "smcr-test-link-no-echo", "SMC-R", "answers TEST LINK with zeros instead of the request's user data", "RFC 7609 App. A.3.8", std::nullopt},
    {F::kSmcrUnknownLlcIgnored, "smcr-unknown-llc-ignored", "SMC-R", "discards an LLC message of an unknown type whose two high-order bits are 00 instead of treating it as a protocol error", "RFC 7609 App. A.3", std::nullopt},
    {F::kSmcrOptionalLlcError, "smcr-optional-llc-error", "SMC-R", "ends the link group on an unknown LLC type whose two high-order bits are 10 instead of discarding it", "RFC 7609 App. A.3", std::nullopt},
    {F::kSmcrDeleteLinkHeld, "smcr-delete-link-held", "SMC-R", "as server, never sends DELETE LINK for a single link (a failed one stays in the group)", "RFC 7609 §4.6", std::nullopt},
    {F::kSmcrNoFailoverValidation, "smcr-no-failover-validation", "SMC-R", "sends the first CDC message on the link a connection moved to without F", "RFC 7609 §4.6.1", std::nullopt},
    {F::kSmcrWriterNotBlocked, "smcr-writer-not-blocked", "SMC-R", "never sets B, though data waits for the peer's window", "RFC 7609 App. A.4", std::nullopt},
    {F::kSmcrUrgentFlagsCleared, "smcr-urgent-flags-cleared", "SMC-R", "announces urgent data without U and P", "RFC 7609 §4.7.5", std::nullopt},
    {F::kSmcrCloseUnanswered, "smcr-close-unanswered", "SMC-R", "its application never closes after the peer closed: no C in answer", "RFC 7609 §4.8.1", std::nullopt},
    {F::kSmcrAbortUnanswered, "smcr-abort-unanswered", "SMC-R", "sends no CDC message with A (answering an abort, or aborting)", "RFC 7609 §4.8.2", std::nullopt},
    {F::kSmcrWritePastWindow, "smcr-write-past-window", "SMC-R", "writes what it has into the peer's RMBE, past the peer's consumer cursor", "RFC 7609 App. A.4", std::nullopt},
    {F::kSmcrRepeatSequenceNumber, "smcr-repeat-sequence-number", "SMC-R", "gives every CDC message sequence number 1", "RFC 7609 App. A.4", std::nullopt},
    {F::kSmcrSkipCdcChecks, "smcr-skip-cdc-checks", "SMC-R", "takes the peer's CDC messages unjudged (cursors beyond the RMBE clipped, not refused)", "RFC 7609 App. A.4", std::nullopt},
    {F::kSmcrNoConsumerUpdate, "smcr-no-consumer-update", "SMC-R", "never sends a consumer cursor update on its own, only with its data", "RFC 7609 §4.5.1", std::nullopt},
    {F::kSmcrConfirmRkeyRefused, "smcr-confirm-rkey-refused", "SMC-R", "answers every CONFIRM RKEY negatively (Z)", "RFC 7609 App. A.3.5", std::nullopt},
    {F::kSmcrDeleteRkeyNoMask, "smcr-delete-rkey-no-mask", "SMC-R", "answers a DELETE RKEY positively, Z and the error mask clear, though it could not delete an RKey", "RFC 7609 App. A.3.7", std::nullopt},
    {F::kSmcrNoTcpReset, "smcr-no-tcp-reset", "SMC-R", "keeps the TCP connection open after its SMC-R connection was aborted or its link group ended", "RFC 7609 §4.8.2", std::nullopt},
    {F::kSmcrGroupDeleteIgnored, "smcr-group-delete-ignored", "SMC-R", "takes no notice of the peer's DELETE LINK with A", "RFC 7609 §3.5.4", std::nullopt},
    {F::kSmcrConfigExchangesOverlap, "smcr-config-exchanges-overlap", "SMC-R", "starts its own LLC exchange that changes the link group while another one runs", "RFC 7609 §3.5.5.3", std::nullopt},
    {F::kSmcrLinkFreedOnDelete, "smcr-link-freed-on-delete", "SMC-R", "as server, frees a link's QP as soon as it sent DELETE LINK for it, before the client's reply", "RFC 7609 §3.5.5.1.3", std::nullopt},
    {F::kSmcrRkeyOneLink, "smcr-rkey-one-link", "SMC-R", "announces a new RMB in CONFIRM RKEY with the RToken of the link it is sent on only", "RFC 7609 §3.5.5.2.1", std::nullopt},
    {F::kSmcrRkeyNoRetry, "smcr-rkey-no-retry", "SMC-R", "gives a new RMB up after a negative CONFIRM RKEY reply that set C (retry)", "RFC 7609 App. A.3.5", std::nullopt},
    {F::kSmcrRkeyRetryUnasked, "smcr-rkey-retry-unasked", "SMC-R", "runs CONFIRM RKEY anew at once after a negative reply without C", "RFC 7609 App. A.3.5", std::nullopt},
    {F::kSmcrCloseIgnoresUnread, "smcr-close-ignores-unread", "SMC-R", "its application's close with received data unread sends C, not A", "RFC 7609 §4.8.1", std::nullopt},
    {F::kSmcrSingleLinkEnds, "smcr-single-link-ends", "SMC-R", "as server, ends the link group when the client rejects its second link, rather than going on with one", "RFC 7609 §2.2.1", std::nullopt},
    {F::kSmcrAsymmetricRefused, "smcr-asymmetric-link-refused", "SMC-R", "as server, gives up a second link whose client end is the client's first RNIC again (an asymmetric link)", "RFC 7609 §2.2.1", std::nullopt},
    {F::kSmcrDeleteLinkUnanswered, "smcr-delete-link-unanswered", "SMC-R", "as client, never answers the server's DELETE LINK of one link", "RFC 7609 §3.5.5.1.3", std::nullopt},
    {F::kSmcrClientAddWaits, "smcr-client-add-waits", "SMC-R", "as client, ends the link group when the server leaves its ADD LINK unanswered", "RFC 7609 §3.5.5.1.2", std::nullopt},
    {F::kSmcrStaleConsumerCursor, "smcr-stale-consumer-cursor", "SMC-R", "a CDC message that announces data carries the consumer cursor last sent, not the one as it stands", "RFC 7609 §4.5.1", std::nullopt},
    {F::kSmcrEyecatcherIgnored, "smcr-eyecatcher-ignored", "SMC-R", "leaves its RMBEs without eyecatcher (cursors from 0) though the peer's CONFIRM LINK kept them", "RFC 7609 App. A.4", std::nullopt},
    {F::kSmcrEyecatcherUnchecked, "smcr-eyecatcher-unchecked", "SMC-R", "takes data from an RMBE whose eyecatcher a Write overlaid, rather than resetting the connection", "RFC 7609 §4.4.1", std::nullopt},
    {F::kSmcrUpdateRequestIgnored, "smcr-update-request-ignored", "SMC-R", "sends no consumer cursor update when the peer's CDC message sets R (update requested), only when its thresholds say so", "RFC 7609 §4.5.1", std::nullopt},
    {F::kSmcrClientLateOpen, "smcr-client-late-open", "SMC-R", "as client, takes the server's connection data only once its second link is up, not as soon as its Confirm left", "RFC 7609 §3.5.2.4", std::nullopt},
    {F::kSmcrDataBeforeDeleteAnswered, "smcr-data-before-delete-answered", "SMC-R", "as server, sends CDC messages and Writes while the DELETE LINK of a new link whose CONFIRM LINK failed awaits its reply", "RFC 7609 §3.5.1.6.2", std::nullopt},
    {F::kSmcrNoReplay, "smcr-no-replay", "SMC-R", "after a failover, does not send again the Writes and CDC messages the failed link flushed (it resets the connection instead)", "RFC 7609 §4.6.2", std::nullopt},
    {F::kSmcrMtuUnchecked, "smcr-mtu-unchecked", "SMC-R", "as client, takes an ADD LINK whatever MTU value it names, where an undefined one gets a rejecting reply with reason 2", "RFC 7609 App. A.3.2", std::nullopt},
    {F::kSmcrUnknownLinkIgnored, "smcr-unknown-link-ignored", "SMC-R", "as client, leaves a DELETE LINK naming a link it does not have unanswered, where it replies with reason unknown link", "RFC 7609 App. A.3.4", std::nullopt},
    {F::kSmcrWritePastUrgent, "smcr-write-past-urgent", "SMC-R", "writes the data that follows urgent data at once, before the peer consumed the urgent data", "RFC 7609 §4.7.5", std::nullopt},
    {F::kSmcrTcpResetIgnored, "smcr-tcp-reset-ignored", "SMC-R", "takes a TCP reset of an SMC-R connection whose peer sent no A as the end of the TCP connection only: no A of its own", "RFC 7609 §4.8.2", std::nullopt},
    {F::kSmcrNoLinkGroupReuse, "smcr-no-link-group-reuse", "SMC-R", "as server, answers a client it has a link group with as a first contact: a new link group for every connection", "RFC 7609 §3.5.2", std::nullopt},
    {F::kSmcrRmbeShared, "smcr-rmbe-shared", "SMC-R", "as server, gives a later connection of a link group the RMBE (and alert token) its first connection has", "RFC 7609 §4.1", std::nullopt},
    {F::kSmcrRmbeConflictIgnored, "smcr-rmbe-conflict-ignored", "SMC-R", "as server, keeps an open connection going when a later Confirm of its link group names the RMBE that connection writes into", "RFC 7609 §4.4.2", std::nullopt},
    {F::kSmcrFailoverMovesOne, "smcr-failover-moves-one", "SMC-R", "when a link fails, moves only the first of the connections it carried to a surviving link; the others stay on the failed one", "RFC 7609 §2.3", std::nullopt},
    {F::kSmcrGroupEndsWithConnection, "smcr-group-ends-with-connection", "SMC-R", "ends the link group (DELETE LINK with A) as soon as one of its connections ends, though others still use it", "RFC 7609 §2", std::nullopt},
    {F::kSmcrRmbeFreedEarly, "smcr-rmbe-freed-early", "SMC-R", "as server, gives a connection's RMBE to a new connection once it sent its own PeerConnectionClosed, before the peer's came", "RFC 7609 §4.4.2", std::nullopt},
    {F::kSmcrIdleGroupForgotten, "smcr-idle-group-forgotten", "SMC-R", "as server, forgets a link group as its last connection ends, without DELETE LINK: the client's next connection gets first contact while the client still has the group", "RFC 7609 §3.5.2", std::nullopt},
    {F::kSmcrIdleGroupKept, "smcr-idle-group-kept", "SMC-R", "keeps a link group without connections for ever: no idle timer ends it", "RFC 7609 §3.5.4", std::nullopt},
    {F::kSmcrNoCloseTimer, "smcr-no-close-timer", "SMC-R", "after its own close waits for the peer's PeerConnectionClosed for ever: no close timer, no TCP reset", "RFC 7609 §4.8.1", std::nullopt},
    {F::kSctpNoIndication, "sctp-no-indication", "SCTP", "announces no Adaptation Layer Indication in its INIT-ACK", "RFC 5043 §5.1", std::nullopt},
    {F::kSctpSkipIndicationCheck, "sctp-skip-indication-check", "SCTP", "runs DDP on an association whose peer announced no DDP indication", "RFC 5043 §11.1", std::nullopt},
    {F::kSctpUnequalStreams, "sctp-unequal-streams", "SCTP", "asks for one inbound stream more than outbound ones", "RFC 5043 §8", std::nullopt},
    {F::kSctpAcceptNoPrivateData, "sctp-accept-no-private-data", "SCTP", "sends its Accept without the private data its ULP gave", "RFC 5043 §5.2.3", std::nullopt},
    {F::kSctpPrivateDataOver512, "sctp-private-data-over-512", "SCTP", "sends 513 octets of private data where its ULP gave 512", "RFC 5043 §5.2.3", std::nullopt},
    {F::kSctpTerminatePrivateData, "sctp-terminate-private-data", "SCTP", "sends its Session Terminate with 4 octets of private data", "RFC 5043 §5.2.3", std::nullopt},
    {F::kSctpSsnGap, "sctp-ssn-gap", "SCTP", "numbers its second message of a session DDP-SSN 2, leaving a gap", "RFC 5043 §6", std::nullopt},
    {F::kSctpIllegalIgnored, "sctp-illegal-ignored", "SCTP", "ends a session whose peer broke the legal sequences without a Session Terminate", "RFC 5043 §6.1", std::nullopt},
    {F::kSctpAnswerTwice, "sctp-answer-twice", "SCTP", "sends its Accept or Reject twice, the second with the next DDP-SSN", "RFC 5043 §6.1", std::nullopt},
    {F::kSctpNeverRejects, "sctp-never-rejects", "SCTP", "accepts an Initiate its ULP meant to reject", "RFC 5043 §6.3", std::nullopt},
    {F::kSctpNoPendingLimit, "sctp-no-pending-limit", "SCTP", "keeps every Initiate waiting for its ULP, with no limit", "RFC 5043 §6.4", std::nullopt},
    {F::kSctpOversizedAccepted, "sctp-oversized-accepted", "SCTP", "takes DDP segments larger than its maximum segment size", "RFC 5043 §9", std::nullopt},
    {F::kSctpSkipSsnValidityCheck, "sctp-skip-ssn-validity-check", "SCTP", "holds a chunk whatever its DDP-SSN, however far ahead", "RFC 5043 §10", std::nullopt},
    {F::kSctpOrderedChunks, "sctp-ordered-chunks", "SCTP", "sends its DATA chunks without the U (unordered) flag", "RFC 5043 §10", std::nullopt},
    {F::kSctpTerminateOvertakes, "sctp-terminate-overtakes", "SCTP", "sends its Terminate while its Initiate may still be overtaken (any chunk of the peer taken as its acknowledgement)", "RFC 5043 §6.6", std::nullopt},
    {F::kSctpSsnPerAssociation, "sctp-ssn-per-association", "SCTP", "numbers its chunks with one DDP-SSN counter for the whole association, not one per stream", "RFC 5043 §5.2.1", std::nullopt},
    {F::kSctpSegmentBeforeInitiate, "sctp-segment-before-initiate", "SCTP", "as active side, sends its ULP's first DDP segment right behind its Initiate, before the Initiate is known received", "RFC 5043 §6.6", std::nullopt},
    {F::kSctpNoTerminate, "sctp-no-terminate", "SCTP", "never sends a Session Terminate: a session it ends for its peer's error ends without one", "RFC 5043 §6.2", std::nullopt},
    {F::kSctpTerminateTwice, "sctp-terminate-twice", "SCTP", "sends its Session Terminate twice, the second with the next DDP-SSN", "RFC 5043 §6.2", std::nullopt},
};
static_assert(sizeof(kFaults) / sizeof(kFaults[0]) == static_cast<std::size_t>(FaultId::kCount));
}  // namespace

std::span<const FaultInfo> all_faults() { return kFaults; }

const FaultInfo* find_fault(std::string_view name) {
  for (const FaultInfo& f : kFaults)
    if (f.name == name) return &f;
  return nullptr;
}

rdmap::Faults FaultSet::stream_faults() const {
  rdmap::Faults out;
  for (const FaultInfo& f : kFaults)
    if (has(f.id) && f.stream_fault) out.set(*f.stream_fault);
  return out;
}

smcr::Faults FaultSet::smcr_faults() const {
  smcr::Faults out;
  if (has(FaultId::kSmcrWritePastWindow)) out.set(smcr::Fault::kWritePastWindow);
  if (has(FaultId::kSmcrRepeatSequenceNumber)) out.set(smcr::Fault::kRepeatSequenceNumber);
  if (has(FaultId::kSmcrSkipCdcChecks)) out.set(smcr::Fault::kSkipReceiveChecks);
  if (has(FaultId::kSmcrNoConsumerUpdate)) out.set(smcr::Fault::kNoConsumerUpdate);
  if (has(FaultId::kSmcrCloseIgnoresUnread)) out.set(smcr::Fault::kCloseIgnoresUnread);
  if (has(FaultId::kSmcrStaleConsumerCursor)) out.set(smcr::Fault::kStaleConsumerCursor);
  if (has(FaultId::kSmcrEyecatcherUnchecked)) out.set(smcr::Fault::kEyecatcherUnchecked);
  if (has(FaultId::kSmcrUpdateRequestIgnored)) out.set(smcr::Fault::kUpdateRequestIgnored);
  if (has(FaultId::kSmcrWritePastUrgent)) out.set(smcr::Fault::kWritePastUrgent);
  return out;
}

smcr::GroupFaults FaultSet::smcr_group_faults() const {
  using G = smcr::GroupFault;
  smcr::GroupFaults out;
  if (has(FaultId::kSmcrConfigExchangesOverlap)) out.set(G::kOverlapExchanges);
  if (has(FaultId::kSmcrLinkFreedOnDelete)) out.set(G::kFreeLinkOnDelete);
  if (has(FaultId::kSmcrRkeyOneLink)) out.set(G::kRkeyOneLink);
  if (has(FaultId::kSmcrRkeyNoRetry)) out.set(G::kRkeyNoRetry);
  if (has(FaultId::kSmcrRkeyRetryUnasked)) out.set(G::kRkeyRetryUnasked);
  if (has(FaultId::kSmcrSingleLinkEnds)) out.set(G::kSingleLinkEnds);
  if (has(FaultId::kSmcrAsymmetricRefused)) out.set(G::kAsymmetricRefused);
  if (has(FaultId::kSmcrClientAddWaits)) out.set(G::kClientAddWaits);
  if (has(FaultId::kSmcrEyecatcherIgnored)) out.set(G::kEyecatcherIgnored);
  if (has(FaultId::kSmcrNoReplay)) out.set(G::kNoReplay);
  if (has(FaultId::kSmcrMtuUnchecked)) out.set(G::kMtuUnchecked);
  if (has(FaultId::kSmcrUnknownLinkIgnored)) out.set(G::kUnknownLinkIgnored);
  if (has(FaultId::kSmcrFailoverMovesOne)) out.set(G::kMoveFirstOnly);
  if (has(FaultId::kSmcrGroupEndsWithConnection)) out.set(G::kEndsWithAnyConnection);
  return out;
}

std::string FaultSet::names() const {
  std::string s;
  for (const FaultInfo& f : kFaults)
    if (has(f.id)) s += (s.empty() ? "" : ",") + std::string(f.name);
  return s;
}

}  // namespace rdmaconf::conformance
