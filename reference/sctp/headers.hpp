// The DDP/SCTP adaptation layer's wire formats (RFC 5043 §5), declared once
// as data.
//
//   Adaptation Layer Indication   8 octets  an INIT or INIT-ACK parameter
//                                           (RFC 5061 §4.2.5) announcing DDP
//   DDP Segment Chunk header      2 octets  DDP-SSN, then one DDP segment
//                                           (PPID 16, RFC 5043 §5.2.2)
//   Session Control header        4 octets  DDP-SSN and Function Code, then
//                                           private data (PPID 17, §5.2.3)
//
// Both payloads are the user data of one unordered SCTP DATA chunk (or of
// one SCTP message, when SCTP had to fragment it); SCTP's own headers are
// not declared here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sctp/cite.hpp"
#include "wire/field.hpp"

namespace rdmaconf::sctp {

// RFC 5043 §5.2: the Payload Protocol Identifiers IANA assigned.
inline constexpr std::uint32_t kPpidDdpSegment = 16;
inline constexpr std::uint32_t kPpidSessionControl = 17;
// RFC 5043 §5.1: the Adaptation Layer Indication parameter and DDP's code.
inline constexpr std::uint16_t kAdaptationLayerIndicationType = 0xC006;
inline constexpr std::uint32_t kAdaptationIndicationDdp = 0x00000001;

inline constexpr std::size_t kSegmentChunkHeaderSize = 2;
inline constexpr std::size_t kSessionControlHeaderSize = 4;
inline constexpr std::size_t kAdaptationLayerIndicationSize = 8;
// RFC 5043 §5.2.3: at most 512 octets of private data in any control message.
inline constexpr std::size_t kMaxPrivateDataLength = 512;
// RFC 5043 §9: the maximum DDP segment size is never below 516, so a control
// message with 512 octets of private data fits.
inline constexpr std::size_t kSmallestMaxSegmentSize = 516;
// RFC 5043 §10: with fewer than 32768 DATA chunks in flight per stream the
// 16-bit DDP-SSN orders them without ambiguity.
inline constexpr std::uint16_t kMaxInFlight = 32767;

// RFC 5043 §5.2.3: what a DDP Stream Session Control message asks for.
enum class FunctionCode : std::uint16_t {
  kInitiate = 0x001,
  kAccept = 0x002,
  kReject = 0x003,
  kTerminate = 0x004,
};

namespace names {
inline constexpr wire::ValueName kPpid[] = {{kPpidDdpSegment, "DDP Segment Chunk"},
                                            {kPpidSessionControl, "DDP Stream Session Control"}};
inline constexpr wire::ValueName kFunctionCode[] = {{0x001, "DDP Stream Session Initiate"},
                                                    {0x002, "DDP Stream Session Accept"},
                                                    {0x003, "DDP Stream Session Reject"},
                                                    {0x004, "DDP Stream Session Terminate"}};
inline constexpr wire::ValueName kIndication[] = {{kAdaptationIndicationDdp, "DDP"}};
inline constexpr wire::ValueName kParameterType[] = {{kAdaptationLayerIndicationType,
                                                      "Adaptation Layer Indication"}};
}  // namespace names

// RFC 5043 §5.2.2: the DDP-SSN in front of each DDP segment.
struct SegmentChunkSpec {
  enum class Field : std::uint8_t { DDP_SSN };
  static constexpr wire::FieldDecl fields[] = {
      {"DDP-SSN", "ddp_ssn", 0, 16, "DDP Source Sequence Number: the chunk's place in its session's order",
       cite::kDdpSsn},
  };
  static constexpr wire::HeaderDecl decl{"DDP Segment Chunk header", "ddp_sctp.segment",
                                         kSegmentChunkHeaderSize, fields, cite::kSegmentChunk};
};
using SegmentChunkHeader = wire::Header<SegmentChunkSpec>;

// RFC 5043 §5.2.3: a DDP Stream Session Control message's fixed part.
struct SessionControlSpec {
  enum class Field : std::uint8_t { DDP_SSN, Function_Code };
  static constexpr wire::FieldDecl fields[] = {
      {"DDP-SSN", "ddp_ssn", 0, 16, "DDP Source Sequence Number: the chunk's place in its session's order",
       cite::kDdpSsn},
      {"Function Code", "function_code", 16, 16, "Initiate, Accept, Reject or Terminate",
       cite::kSessionControl, wire::Display::kHex, names::kFunctionCode},
  };
  static constexpr wire::HeaderDecl decl{"DDP Stream Session Control", "ddp_sctp.control",
                                         kSessionControlHeaderSize, fields, cite::kSessionControl};
};
using SessionControlHeader = wire::Header<SessionControlSpec>;

// RFC 5043 §5.1 (the parameter of RFC 5061 §4.2.5): carried in INIT or
// INIT-ACK; Length counts the whole parameter, 8.
struct AdaptationLayerIndicationSpec {
  enum class Field : std::uint8_t { Type, Length, Adaptation_Indication };
  static constexpr wire::FieldDecl fields[] = {
      {"Type", "type", 0, 16, "parameter type, 0xC006", cite::kAdaptationIndication, wire::Display::kHex,
       names::kParameterType},
      {"Length", "length", 16, 16, "octets of the parameter, 8", cite::kAdaptationIndication},
      {"Adaptation Indication", "adaptation_indication", 32, 32, "the adaptation layer the sender runs; 1 is DDP",
       cite::kAdaptationIndication, wire::Display::kHex, names::kIndication},
  };
  static constexpr wire::HeaderDecl decl{"SCTP Adaptation Layer Indication", "ddp_sctp.ali",
                                         kAdaptationLayerIndicationSize, fields, cite::kAdaptationIndication};
};
using AdaptationLayerIndicationHeader = wire::Header<AdaptationLayerIndicationSpec>;

// RFC 5043 §10 with serial arithmetic on 16 bits: how far `ssn` is ahead of
// `expected` (0 .. 32767), or a negative distance for one behind it.
constexpr int ssn_distance(std::uint16_t expected, std::uint16_t ssn) {
  const auto d = static_cast<std::uint16_t>(ssn - expected);
  return d <= kMaxInFlight ? static_cast<int>(d) : static_cast<int>(d) - 65536;
}

}  // namespace rdmaconf::sctp
