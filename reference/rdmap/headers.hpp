// RDMAP's headers (RFC 5040 §4, RFC 7306 §4), declared once as data.
//
// RDMAP has no header of its own in front of DDP's: it gives meaning to the
// RsvdULP bits of the DDP header. The 8 bits present in both DDP headers are
// the RDMAP control field (RV, Rsvd, Opcode; RFC 5040 §4.2); the 32 further
// bits of the untagged header carry the Invalidate STag for the two
// "with Invalidate" Sends and are reserved otherwise (RFC 5040 §4.2).
// Some messages add a header at the start of the DDP payload: the RDMA Read
// Request (§4.4), the Terminate (§4.8), RFC 7306's Atomic Request, Atomic
// Response and Immediate Data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ddp/headers.hpp"
#include "wire/field.hpp"

namespace rdmaconf::rdmap {

// RFC 5040 §4.2: RV is 1 for RDMAP as RFC 5040 (and RFC 7306) define it.
constexpr std::uint8_t kRdmapVersion = 1;

constexpr std::size_t kReadRequestHeaderSize = 28;
constexpr std::size_t kTerminateControlSize = 4;
constexpr std::size_t kTerminateSegmentLengthSize = 2;
constexpr std::size_t kAtomicRequestHeaderSize = 52;
constexpr std::size_t kAtomicResponseHeaderSize = 12;
constexpr std::size_t kImmediateDataHeaderSize = 8;

// RFC 5040 §4.3 + RFC 7306 §4: the RDMAP message opcodes.
enum class Opcode : std::uint8_t {
  kRdmaWrite = 0x0,
  kRdmaReadRequest = 0x1,
  kRdmaReadResponse = 0x2,
  kSend = 0x3,
  kSendWithInvalidate = 0x4,
  kSendWithSe = 0x5,
  kSendWithSeAndInvalidate = 0x6,
  kTerminate = 0x7,
  kImmediateData = 0x8,        // RFC 7306
  kImmediateDataWithSe = 0x9,  // RFC 7306
  kAtomicRequest = 0xa,        // RFC 7306
  kAtomicResponse = 0xb,       // RFC 7306
};

// RFC 7306 §4 / §5: atomic operation codes of the Atomic Request header.
enum class AtomicOpcode : std::uint8_t {
  kFetchAdd = 0x0,
  kSwap = 0x1,
  kCompareSwap = 0x2,
};

namespace names {
inline constexpr wire::ValueName kOpcodes[] = {
    {0x0, "RDMA Write"},
    {0x1, "RDMA Read Request"},
    {0x2, "RDMA Read Response"},
    {0x3, "Send"},
    {0x4, "Send with Invalidate"},
    {0x5, "Send with Solicited Event"},
    {0x6, "Send with Solicited Event and Invalidate"},
    {0x7, "Terminate"},
    {0x8, "Immediate Data"},
    {0x9, "Immediate Data with Solicited Event"},
    {0xa, "Atomic Request"},
    {0xb, "Atomic Response"},
};
inline constexpr wire::ValueName kRdmapVersion[] = {{1, "RDMAP version 1 (RFC 5040)"}};
inline constexpr wire::ValueName kAtomicOpcodes[] = {
    {0x0, "FetchAdd"}, {0x1, "Swap"}, {0x2, "CmpSwap"}};
inline constexpr wire::ValueName kLayers[] = {{0x0, "RDMAP"}, {0x1, "DDP"}, {0x2, "LLP (MPA)"}};
inline constexpr wire::ValueName kM[] = {{0, "DDP Segment Length not valid"},
                                         {1, "DDP Segment Length valid"}};
inline constexpr wire::ValueName kD[] = {{0, "no DDP header copied"},
                                         {1, "Terminated DDP Header included"}};
inline constexpr wire::ValueName kR[] = {{0, "no RDMAP header copied"},
                                         {1, "Terminated RDMA Header included"}};
}  // namespace names

// RFC 5040 §4.2: the RDMAP control field, the 8-bit RsvdULP of every DDP
// header (octet 1 of the DDP header).
struct ControlSpec {
  enum class Field : std::uint8_t { RV, Rsvd, Opcode };
  static constexpr wire::FieldDecl fields[] = {
      {"RV", "rv", 0, 2, "RDMAP version", "RFC 5040 §4.2", wire::Display::kDecimal,
       names::kRdmapVersion},
      {"Rsvd", "rsvd", 2, 2, "reserved, sent as zero", "RFC 5040 §4.2", wire::Display::kHex, {},
       wire::Rule::kIgnoredOnReceive},
      {"Opcode", "opcode", 4, 4, "RDMAP message type", "RFC 5040 §4.2, RFC 7306 §4",
       wire::Display::kHex, names::kOpcodes},
  };
  static constexpr wire::HeaderDecl decl{"RDMAP control field", "rdmap.control", 1, fields,
                                         "RFC 5040 §4.2"};
};
using ControlHeader = wire::Header<ControlSpec>;

// RFC 5040 §4.2: the untagged header's RsvdULP[8:39] as RDMAP uses it. It is
// the Invalidate STag for Send with Invalidate and Send with SE and
// Invalidate, and reserved (sent as zero, not checked) for every other
// untagged message.
struct InvalidateStagSpec {
  enum class Field : std::uint8_t { InvalidateSTag };
  static constexpr wire::FieldDecl fields[] = {
      {"Invalidate STag", "inval_stag", 0, 32,
       "STag the Data Sink invalidates on delivery (Send with Invalidate only)", "RFC 5040 §4.2",
       wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"RDMAP Invalidate STag", "rdmap.inval_stag", 4, fields,
                                         "RFC 5040 §4.2"};
};
using InvalidateStagHeader = wire::Header<InvalidateStagSpec>;

// RFC 5040 §4.4: the RDMA Read Request header, the whole payload of an RDMA
// Read Request message (untagged, QN 1).
struct ReadRequestSpec {
  enum class Field : std::uint8_t { SinkSTag, SinkTO, ReadSize, SourceSTag, SourceTO };
  static constexpr wire::FieldDecl fields[] = {
      {"Data Sink STag", "sink_stag", 0, 32, "requester's buffer the Read Response goes to",
       "RFC 5040 §4.4", wire::Display::kHex},
      {"Data Sink Tagged Offset", "sink_to", 32, 64, "offset in that buffer", "RFC 5040 §4.4",
       wire::Display::kHex},
      {"RDMA Read Message Size", "read_size", 96, 32, "octets to read", "RFC 5040 §4.4",
       wire::Display::kDecimal},
      {"Data Source STag", "source_stag", 128, 32, "responder's buffer to read from",
       "RFC 5040 §4.4", wire::Display::kHex},
      {"Data Source Tagged Offset", "source_to", 160, 64, "offset in that buffer",
       "RFC 5040 §4.4", wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"RDMA Read Request header", "rdmap.read_request",
                                         kReadRequestHeaderSize, fields, "RFC 5040 §4.4"};
};
using ReadRequestHeader = wire::Header<ReadRequestSpec>;

// RFC 5040 §4.8: the Terminate Control field, first 32 bits of a Terminate
// message's payload. What follows it depends on the M, D and R bits (see
// rdmap/terminate.hpp).
struct TerminateControlSpec {
  enum class Field : std::uint8_t { Layer, EType, ErrorCode, M, D, R, Reserved };
  static constexpr wire::FieldDecl fields[] = {
      {"Layer", "layer", 0, 4, "layer that detected the error", "RFC 5040 §4.8",
       wire::Display::kHex, names::kLayers},
      {"EType", "etype", 4, 4, "error type within that layer", "RFC 5040 §4.8",
       wire::Display::kHex},
      {"Error Code", "errcode", 8, 8, "error code within that type", "RFC 5040 §4.8",
       wire::Display::kHex},
      {"M", "hdrct_m", 16, 1, "header control: DDP Segment Length valid", "RFC 5040 §4.8",
       wire::Display::kFlag, names::kM},
      {"D", "hdrct_d", 17, 1, "header control: Terminated DDP Header included", "RFC 5040 §4.8",
       wire::Display::kFlag, names::kD},
      {"R", "hdrct_r", 18, 1, "header control: Terminated RDMA Header included", "RFC 5040 §4.8",
       wire::Display::kFlag, names::kR},
      {"Reserved", "rsvd", 19, 13, "reserved, sent as zero", "RFC 5040 §4.8", wire::Display::kHex,
       {}, wire::Rule::kMustBeZero},
  };
  static constexpr wire::HeaderDecl decl{"RDMAP Terminate Control", "rdmap.term_ctrl",
                                         kTerminateControlSize, fields, "RFC 5040 §4.8"};
};
using TerminateControlHeader = wire::Header<TerminateControlSpec>;

// RFC 5040 §4.8: the length of the DDP segment the Terminate reports, present
// after the Terminate Control when M (or D) is set.
struct TerminateSegmentLengthSpec {
  enum class Field : std::uint8_t { DdpSegmentLength };
  static constexpr wire::FieldDecl fields[] = {
      {"DDP Segment Length", "ddp_seg_len", 0, 16,
       "length of the reported DDP segment (DDP header and payload)", "RFC 5040 §4.8",
       wire::Display::kDecimal},
  };
  static constexpr wire::HeaderDecl decl{"RDMAP Terminate DDP Segment Length",
                                         "rdmap.term_seg_len", kTerminateSegmentLengthSize, fields,
                                         "RFC 5040 §4.8"};
};
using TerminateSegmentLengthHeader = wire::Header<TerminateSegmentLengthSpec>;

// RFC 7306 §4: the Atomic Request header, the whole payload of an Atomic
// Request message (untagged, QN 1 like the Read Requests: §5.2).
struct AtomicRequestSpec {
  enum class Field : std::uint8_t {
    Reserved,
    AtomicOpcode,
    RequestIdentifier,
    RemoteSTag,
    RemoteTO,
    AddOrSwapData,
    AddOrSwapMask,
    CompareData,
    CompareMask
  };
  static constexpr wire::FieldDecl fields[] = {
      {"Reserved", "rsvd", 0, 28, "reserved, sent as zero", "RFC 7306 §4", wire::Display::kHex,
       {}, wire::Rule::kMustBeZero},
      {"Atomic Operation", "atomic_opcode", 28, 4, "which atomic operation", "RFC 7306 §4",
       wire::Display::kHex, names::kAtomicOpcodes},
      {"Request Identifier", "request_id", 32, 32, "requester's tag, echoed in the response",
       "RFC 7306 §4", wire::Display::kHex},
      {"Remote STag", "remote_stag", 64, 32, "responder's buffer holding the target",
       "RFC 7306 §4", wire::Display::kHex},
      {"Remote Tagged Offset", "remote_to", 96, 64, "offset of the 64-bit target (8-aligned)",
       "RFC 7306 §4", wire::Display::kHex},
      {"Add or Swap Data", "add_swap_data", 160, 64, "addend (FetchAdd) or new value (Swap, CmpSwap)",
       "RFC 7306 §4", wire::Display::kHex},
      {"Add or Swap Mask", "add_swap_mask", 224, 64,
       "FetchAdd: field boundaries; Swap/CmpSwap: bits to replace", "RFC 7306 §4",
       wire::Display::kHex},
      {"Compare Data", "compare_data", 288, 64, "CmpSwap: value to compare with", "RFC 7306 §4",
       wire::Display::kHex},
      {"Compare Mask", "compare_mask", 352, 64, "CmpSwap: bits that take part in the compare",
       "RFC 7306 §4", wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"RDMAP Atomic Request header", "rdmap.atomic_request",
                                         kAtomicRequestHeaderSize, fields, "RFC 7306 §4"};
};
using AtomicRequestHeader = wire::Header<AtomicRequestSpec>;

// RFC 7306 §4: the Atomic Response header (untagged, QN 3).
struct AtomicResponseSpec {
  enum class Field : std::uint8_t { OriginalRequestIdentifier, OriginalRemoteDataValue };
  static constexpr wire::FieldDecl fields[] = {
      {"Original Request Identifier", "orig_request_id", 0, 32,
       "Request Identifier of the Atomic Request answered", "RFC 7306 §4", wire::Display::kHex},
      {"Original Remote Data Value", "orig_value", 32, 64,
       "value of the target before the operation", "RFC 7306 §4", wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"RDMAP Atomic Response header", "rdmap.atomic_response",
                                         kAtomicResponseHeaderSize, fields, "RFC 7306 §4"};
};
using AtomicResponseHeader = wire::Header<AtomicResponseSpec>;

// RFC 7306 §4: the Immediate Data header, the 8-octet payload of Immediate
// Data and Immediate Data with SE (untagged, QN 0).
struct ImmediateDataSpec {
  enum class Field : std::uint8_t { ImmediateData };
  static constexpr wire::FieldDecl fields[] = {
      {"Immediate Data", "immediate_data", 0, 64, "8 octets delivered in the completion",
       "RFC 7306 §4", wire::Display::kHex},
  };
  static constexpr wire::HeaderDecl decl{"RDMAP Immediate Data header", "rdmap.immediate",
                                         kImmediateDataHeaderSize, fields, "RFC 7306 §4"};
};
using ImmediateDataHeader = wire::Header<ImmediateDataSpec>;

// The RDMAP control field of a DDP header's second octet.
struct Control {
  std::uint8_t rv = 0;
  std::uint8_t rsvd = 0;
  std::uint8_t opcode = 0;
  static Control from_octet(std::uint8_t o) {
    const std::uint8_t octets[1] = {o};
    const wire::Bytes b(octets);
    using F = ControlSpec::Field;
    auto get = [&](F f) { return static_cast<std::uint8_t>(ControlHeader::read(b, f)); };
    return Control{get(F::RV), get(F::Rsvd), get(F::Opcode)};
  }
  static std::uint8_t octet(Opcode op, std::uint8_t rv = kRdmapVersion) {
    ControlHeader h;
    h.set(ControlSpec::Field::RV, rv).set(ControlSpec::Field::Opcode, static_cast<std::uint8_t>(op));
    return h.bytes()[0];
  }
};

}  // namespace rdmaconf::rdmap
