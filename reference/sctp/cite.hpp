// Where each rule of the DDP/SCTP adaptation layer comes from, in one place.
//
// RFC 5043 adapts DDP (RFC 5041) to SCTP: DDP segments and DDP Stream
// Session Control messages travel in unordered SCTP DATA chunks on a pair of
// like-numbered SCTP streams, told apart by their Payload Protocol
// Identifier, each with a DDP Source Sequence Number (DDP-SSN); the
// association announces the adaptation with RFC 5061's Adaptation Layer
// Indication. Every FieldDecl, DecodeError and session-machine violation in
// sctp/ takes its section string from here, so a correction is made once.
// The section numbers were checked against the RFC's text.
#pragma once

#include <string_view>

namespace rdmaconf::sctp::cite {

inline constexpr std::string_view kAdaptationIndication = "RFC 5043 §5.1";  // parameter 0xC006, DDP = 1
inline constexpr std::string_view kPayloadChunks = "RFC 5043 §5.2";         // PPIDs 16 and 17
inline constexpr std::string_view kDdpSsn = "RFC 5043 §5.2.1";              // one DDP-SSN per DATA chunk
inline constexpr std::string_view kSegmentChunk = "RFC 5043 §5.2.2";        // DDP-SSN + DDP segment
inline constexpr std::string_view kSessionControl = "RFC 5043 §5.2.3";      // function codes, private data
inline constexpr std::string_view kSessions = "RFC 5043 §6";                // no DDP-SSN gaps in a session
inline constexpr std::string_view kSequencing = "RFC 5043 §6.1";            // DDP-SSN from zero; legal patterns
inline constexpr std::string_view kAccepted = "RFC 5043 §6.2";              // Initiate, Accept, segments, Terminate
inline constexpr std::string_view kRejected = "RFC 5043 §6.3";              // Initiate, Reject
inline constexpr std::string_view kNonUlpRejected = "RFC 5043 §6.4";        // pending limit, Terminate
inline constexpr std::string_view kOtherSequencing = "RFC 5043 §6.6";       // nothing overtakes a control message
inline constexpr std::string_view kStreams = "RFC 5043 §8";                 // paired streams, equal counts
inline constexpr std::string_view kFragmentation = "RFC 5043 §9";           // maximum DDP segment size
inline constexpr std::string_view kUnordered = "RFC 5043 §10";              // U flag, 32767 in flight
inline constexpr std::string_view kAssociationInit = "RFC 5043 §11.1";      // the peer's indication decides

}  // namespace rdmaconf::sctp::cite
