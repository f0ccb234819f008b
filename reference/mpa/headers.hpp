// The MPA wire headers (RFC 5044, RFC 6581), declared once as data.
//
//   Request/Reply frame header  20 octets  sent once per direction before
//                                          full operation (RFC 5044 §7.1.1)
//   Enhanced connection data     4 octets  first 4 octets of the private data
//                                          of a Rev 2 frame with S set (RFC 6581)
//   FPDU header                  2 octets  ULPDU_Length (RFC 5044 §4.1)
//   Marker                       4 octets  every 512 octets of the stream when
//                                          negotiated (RFC 5044 §4.3)
//   CRC trailer                  4 octets  CRC32c after the PAD (RFC 5044 §4.4)
//
// An FPDU on the wire is: ULPDU_Length, ULPDU, PAD (0-3 octets bringing
// ULPDU_Length + ULPDU + PAD to a multiple of 4), CRC; Markers may be inserted
// anywhere in it, including inside ULPDU_Length and CRC.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "mpa/cite.hpp"
#include "wire/field.hpp"

namespace rdmaconf::mpa {

inline constexpr std::size_t kKeySize = 16;
inline constexpr std::array<std::uint8_t, kKeySize> kRequestKey = {
    'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'q', ' ', 'F', 'r', 'a', 'm', 'e'};
inline constexpr std::array<std::uint8_t, kKeySize> kReplyKey = {
    'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R', 'e', 'p', ' ', 'F', 'r', 'a', 'm', 'e'};

inline constexpr std::size_t kReqRepHeaderSize = 20;
// RFC 5044 §7.1.4: at most 512 octets of private data in a Request or Reply.
inline constexpr std::size_t kMaxPrivateDataLength = 512;
inline constexpr std::size_t kMaxReqRepFrameSize = kReqRepHeaderSize + kMaxPrivateDataLength;
// RFC 6581: the IRD/ORD block at the start of the private data.
inline constexpr std::size_t kEnhancedDataSize = 4;
// RFC 6581: IRD and ORD are 14-bit fields.
inline constexpr std::uint16_t kMaxIrdOrd = 0x3fff;

inline constexpr std::size_t kUlpduLengthSize = 2;
inline constexpr std::size_t kMarkerSize = 4;
inline constexpr std::size_t kMarkerInterval = 512;
inline constexpr std::size_t kCrcSize = 4;
inline constexpr std::size_t kFpduAlignment = 4;

// The revisions this code knows: 1 is RFC 5044, 2 is RFC 6581.
inline constexpr std::uint8_t kRevision1 = 1;
inline constexpr std::uint8_t kRevision2 = 2;

namespace names {
inline constexpr wire::ValueName kM[] = {{0, "no Markers wanted"},
                                         {1, "sender wants Markers in the FPDUs it receives"}};
inline constexpr wire::ValueName kC[] = {{0, "CRC not requested"}, {1, "CRC requested"}};
inline constexpr wire::ValueName kR[] = {{0, "accepted"}, {1, "rejected"}};
inline constexpr wire::ValueName kS[] = {{0, "no enhanced connection data"},
                                         {1, "private data starts with IRD/ORD data"}};
inline constexpr wire::ValueName kRev[] = {{1, "MPA revision 1 (RFC 5044)"},
                                           {2, "MPA revision 2 (RFC 6581)"}};
inline constexpr wire::ValueName kPeerToPeer[] = {{0, "client/server"}, {1, "peer-to-peer"}};
inline constexpr wire::ValueName kRtr[] = {{0, "not offered/chosen"}, {1, "offered/chosen"}};
}  // namespace names

// RFC 5044 §7.1.1 (Request and Reply frame), with RFC 6581's S bit taken
// from the top of Res. Linux siw calls S "MPA_RR_FLAG_ENHANCED" (0x10 of
// octet 16); in a Rev 1 frame it is still a reserved bit.
struct ReqRepSpec {
  enum class Field : std::uint8_t { Key, M, C, R, S, Res, Rev, PD_Length };
  static constexpr wire::FieldDecl fields[] = {
      {"Key", "key", 0, 128, "\"MPA ID Req Frame\" in a Request, \"MPA ID Rep Frame\" in a Reply",
       cite::kReqRepFormat, wire::Display::kAscii},
      {"M", "m", 128, 1, "Marker flag: the sender wants Markers in the FPDUs sent to it",
       cite::kReqRepFormat, wire::Display::kFlag, names::kM},
      {"C", "c", 129, 1, "CRC flag: the sender wants CRCs; CRC is used if either frame sets it",
       cite::kReqRepFormat, wire::Display::kFlag, names::kC},
      {"R", "r", 130, 1, "Rejected flag: set in a Reply that refuses the connection",
       cite::kReqRepFormat, wire::Display::kFlag, names::kR},
      {"S", "s", 131, 1, "Enhanced flag (Rev 2): private data starts with IRD/ORD data",
       cite::kEnhancedFlag, wire::Display::kFlag, names::kS},
      {"Res", "res", 132, 4, "reserved, sent as zero", cite::kReqRepFormat, wire::Display::kHex, {},
       wire::Rule::kMustBeZero},
      {"Rev", "rev", 136, 8, "MPA revision", cite::kReqRepFormat, wire::Display::kDecimal,
       names::kRev},
      {"PD_Length", "pd_length", 144, 16, "octets of private data that follow, at most 512",
       cite::kPrivateData},
  };
  static constexpr wire::HeaderDecl decl{"MPA Request/Reply frame header", "mpa.rr",
                                         kReqRepHeaderSize, fields, cite::kReqRepFormat};
};
using ReqRepHeader = wire::Header<ReqRepSpec>;

// RFC 6581: the first four octets of a Rev 2 frame's private data when S is
// set. A: peer-to-peer connection model. B, C, D: the kinds of
// ready-to-receive (RTR) message offered (Request) or chosen (Reply): a
// zero-length Send (B), zero-length RDMA Write (C) or zero-length RDMA Read
// (D). Linux: MPA_V2_PEER_TO_PEER, MPA_V2_ZERO_LENGTH_RTR (IRD word),
// MPA_V2_RDMA_WRITE_RTR, MPA_V2_RDMA_READ_RTR (ORD word).
struct EnhancedDataSpec {
  enum class Field : std::uint8_t { A, B, IRD, C, D, ORD };
  static constexpr wire::FieldDecl fields[] = {
      {"A", "p2p", 0, 1, "Control Flag A: peer-to-peer connection model", cite::kPeerToPeer,
       wire::Display::kFlag, names::kPeerToPeer},
      {"B", "rtr_send", 1, 1, "Control Flag B: zero-length Send as RTR", cite::kPeerToPeer,
       wire::Display::kFlag, names::kRtr},
      {"IRD", "ird", 2, 14, "Inbound RDMA Read Queue Depth of the sender", cite::kIrdOrd},
      {"C", "rtr_write", 16, 1, "Control Flag C: zero-length RDMA Write as RTR", cite::kPeerToPeer,
       wire::Display::kFlag, names::kRtr},
      {"D", "rtr_read", 17, 1, "Control Flag D: zero-length RDMA Read as RTR", cite::kPeerToPeer,
       wire::Display::kFlag, names::kRtr},
      {"ORD", "ord", 18, 14, "Outbound RDMA Read Queue Depth of the sender", cite::kIrdOrd},
  };
  static constexpr wire::HeaderDecl decl{"MPA enhanced connection establishment data",
                                         "mpa.enhanced", kEnhancedDataSize, fields,
                                         cite::kEnhancedData};
};
using EnhancedDataHeader = wire::Header<EnhancedDataSpec>;

// RFC 5044 §4.1: the FPDU header. ULPDU_Length counts the ULPDU only: not
// itself, not the PAD, not the CRC, not any Markers.
struct FpduHeaderSpec {
  enum class Field : std::uint8_t { ULPDU_Length };
  static constexpr wire::FieldDecl fields[] = {
      {"ULPDU_Length", "ulpdu_length", 0, 16, "octets of ULPDU (DDP segment) in this FPDU",
       cite::kFpduFormat},
  };
  static constexpr wire::HeaderDecl decl{"MPA FPDU header", "mpa.fpdu", kUlpduLengthSize, fields,
                                         cite::kFpduFormat};
};
using FpduHeader = wire::Header<FpduHeaderSpec>;

// RFC 5044 §4.3: a Marker. FPDUPTR is the distance back from the Marker's
// first octet to the ULPDU_Length field of the FPDU it falls in; a Marker
// that falls exactly where an FPDU starts precedes that FPDU's header and
// carries 0.
struct MarkerSpec {
  enum class Field : std::uint8_t { Reserved, FPDUPTR };
  static constexpr wire::FieldDecl fields[] = {
      {"Reserved", "marker_res", 0, 16, "reserved, sent as zero, ignored on receipt",
       cite::kMarkers, wire::Display::kHex, {}, wire::Rule::kIgnoredOnReceive},
      {"FPDUPTR", "fpduptr", 16, 16, "octets back from this Marker to the FPDU's ULPDU_Length",
       cite::kMarkers},
  };
  static constexpr wire::HeaderDecl decl{"MPA Marker", "mpa.marker", kMarkerSize, fields,
                                         cite::kMarkers};
};
using MarkerHeader = wire::Header<MarkerSpec>;

// RFC 5044 §4.4: the CRC trailer. The CRC32c is carried least significant
// octet first (as iSCSI and Linux siw do), so the 32-bit value read through
// this declaration (network order, as Wireshark's dissector reads it) is the
// CRC with its octets swapped: use crc_value() for the CRC itself.
struct CrcTrailerSpec {
  enum class Field : std::uint8_t { CRC };
  static constexpr wire::FieldDecl fields[] = {
      {"CRC", "crc", 0, 32,
       "CRC32c over the FPDU before this field, least significant octet first (0 if CRC is off)",
       cite::kCrc, wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"MPA CRC trailer", "mpa.crc", kCrcSize, fields, cite::kCrc};
};
using CrcTrailer = wire::Header<CrcTrailerSpec>;

// The CRC32c a trailer carries, in the wire's octet order.
inline std::uint32_t crc_value(const CrcTrailer& t) {
  const wire::Bytes b = t.bytes();
  return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
         static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
}

// RFC 5044 §4.1: PAD octets that bring ULPDU_Length + ULPDU + PAD to a
// multiple of four. Markers are four octets and do not change the count.
constexpr std::size_t pad_length(std::size_t ulpdu_length) {
  return (kFpduAlignment - (kUlpduLengthSize + ulpdu_length) % kFpduAlignment) % kFpduAlignment;
}

// The octets of an FPDU without Markers: header, ULPDU, PAD, CRC.
constexpr std::size_t fpdu_length_without_markers(std::size_t ulpdu_length) {
  return kUlpduLengthSize + ulpdu_length + pad_length(ulpdu_length) + kCrcSize;
}

}  // namespace rdmaconf::mpa
