// DDP's error types and codes (RFC 5041 §7.2), and the (layer, error type,
// error code) triple that every iWARP error is reported with in an RDMAP
// Terminate message (RFC 5040 §4.8).
//
// The triple is defined here, below RDMAP, because DDP's Data Sink reports
// its own errors with it; rdmap/error_codes.hpp holds the complete registry
// (RDMAP, DDP and LLP rows, RFC 6580) and reuses the DDP rows declared here.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace rdmaconf::ddp {

// RFC 5040 §4.8, Terminate Control "Layer": which layer detected the error.
enum class Layer : std::uint8_t {
  kRdmap = 0x0,
  kDdp = 0x1,
  kLlp = 0x2,  // the LLP, i.e. MPA over TCP (RFC 5044 §8, RFC 6581)
};

// The three numbers a Terminate carries. Plain numbers, because a received
// Terminate can carry any value; the enums below name the defined ones.
struct TerminateCode {
  Layer layer = Layer::kRdmap;
  std::uint8_t etype = 0;  // 4 bits on the wire
  std::uint8_t code = 0;   // 8 bits on the wire
  friend bool operator==(const TerminateCode&, const TerminateCode&) = default;
};

// RFC 5041 §7.2: DDP error types.
enum class ErrorType : std::uint8_t {
  kLocalCatastrophic = 0x0,
  kTaggedBuffer = 0x1,
  kUntaggedBuffer = 0x2,
  kReservedForLlp = 0x3,
};

// RFC 5041 §7.2: codes under error type 0x1, Tagged Buffer Error.
enum class TaggedError : std::uint8_t {
  kInvalidStag = 0x00,
  kBaseOrBoundsViolation = 0x01,
  kStagNotAssociated = 0x02,  // STag not associated with DDP Stream
  kToWrap = 0x03,
  kInvalidDdpVersion = 0x04,
};

// RFC 5041 §7.2: codes under error type 0x2, Untagged Buffer Error.
enum class UntaggedError : std::uint8_t {
  kInvalidQn = 0x01,
  kInvalidMsnNoBuffer = 0x02,  // Invalid MSN - no buffer available
  kInvalidMsnRange = 0x03,     // Invalid MSN - MSN range is not valid
  kInvalidMo = 0x04,
  kMessageTooLong = 0x05,  // DDP Message too long for available buffer
  kInvalidDdpVersion = 0x06,
};

constexpr TerminateCode code_of(TaggedError e) {
  return {Layer::kDdp, static_cast<std::uint8_t>(ErrorType::kTaggedBuffer),
          static_cast<std::uint8_t>(e)};
}
constexpr TerminateCode code_of(UntaggedError e) {
  return {Layer::kDdp, static_cast<std::uint8_t>(ErrorType::kUntaggedBuffer),
          static_cast<std::uint8_t>(e)};
}
// RFC 5041 §7.2: a local catastrophic error carries code 0.
constexpr TerminateCode kDdpLocalCatastrophic{
    Layer::kDdp, static_cast<std::uint8_t>(ErrorType::kLocalCatastrophic), 0x00};

// What a Terminate reporting this error copies from the offending segment
// (RFC 5040 §4.8, header control bits M, D, R).
enum class Copies : std::uint8_t {
  kNothing,            // no segment is at fault (local catastrophic, LLP errors)
  kDdpHeader,          // M and D: segment length and the DDP header
  kDdpAndRdmapHeader,  // M, D, and R when the segment carried an RDMAP request header
};

// One row of the Terminate error registry (RFC 6580 keeps these per layer).
struct ErrorRow {
  TerminateCode triple;
  bool any_code = false;  // the row covers every code of its type (e.g. Local Catastrophic)
  std::string_view etype_name;
  std::string_view name;
  std::string_view rfc_section;
  Copies copies = Copies::kDdpHeader;
};

// RFC 5041 §7.2, as registered by RFC 6580 ("DDP Errors").
inline constexpr ErrorRow kDdpErrorRows[] = {
    {kDdpLocalCatastrophic, true, "Local Catastrophic Error", "Local Catastrophic Error",
     "RFC 5041 §7.2", Copies::kNothing},
    {code_of(TaggedError::kInvalidStag), false, "Tagged Buffer Error", "Invalid STag",
     "RFC 5041 §7.2"},
    {code_of(TaggedError::kBaseOrBoundsViolation), false, "Tagged Buffer Error",
     "Base or bounds violation", "RFC 5041 §7.2"},
    {code_of(TaggedError::kStagNotAssociated), false, "Tagged Buffer Error",
     "STag not associated with DDP Stream", "RFC 5041 §7.2"},
    {code_of(TaggedError::kToWrap), false, "Tagged Buffer Error", "TO wrap", "RFC 5041 §7.2"},
    // RFC 5040 §4.8 Figure 10: every DDP-layer error includes the DDP header
    // and segment length, a bad DDP version too (its T bit still gives the
    // header's size). Linux siw copies nothing here: docs/interop.md.
    {code_of(TaggedError::kInvalidDdpVersion), false, "Tagged Buffer Error",
     "Invalid DDP version", "RFC 5041 §7.2"},
    {code_of(UntaggedError::kInvalidQn), false, "Untagged Buffer Error", "Invalid QN",
     "RFC 5041 §7.2"},
    {code_of(UntaggedError::kInvalidMsnNoBuffer), false, "Untagged Buffer Error",
     "Invalid MSN - no buffer available", "RFC 5041 §7.2"},
    {code_of(UntaggedError::kInvalidMsnRange), false, "Untagged Buffer Error",
     "Invalid MSN - MSN range is not valid", "RFC 5041 §7.2"},
    {code_of(UntaggedError::kInvalidMo), false, "Untagged Buffer Error", "Invalid MO",
     "RFC 5041 §7.2"},
    {code_of(UntaggedError::kMessageTooLong), false, "Untagged Buffer Error",
     "DDP Message too long for available buffer", "RFC 5041 §7.2"},
    {code_of(UntaggedError::kInvalidDdpVersion), false, "Untagged Buffer Error",
     "Invalid DDP version", "RFC 5041 §7.2"},
};

// An error a DDP Data Sink detected in a segment: the triple to report and
// the rule, in our words, with the section that states it.
struct PlacementError {
  TerminateCode triple;
  std::string_view rule;
  std::string_view rfc_section;
  friend bool operator==(const PlacementError&, const PlacementError&) = default;
};

}  // namespace rdmaconf::ddp
