// The complete Terminate error registry as data: every (layer, error type,
// error code) an RDMAP Terminate can report, with its name and the section
// that defines it, as RFC 6580's IANA registries "RDMAP Errors", "DDP
// Errors" and "MPA Errors" list them (RFC 5040 §4.8, RFC 5041 §7.2, RFC 5044
// §8, RFC 6581).
//
// The LLP codes are the MPA module's (mpa/errors.hpp, LlpErrorCode); this
// file only adds their registry rows.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "ddp/errors.hpp"
#include "mpa/errors.hpp"

namespace rdmaconf::rdmap {

using ddp::Copies;
using ddp::ErrorRow;
using ddp::Layer;
using ddp::TerminateCode;

// RFC 5040 §4.8: RDMAP error types.
enum class ErrorType : std::uint8_t {
  kLocalCatastrophic = 0x0,
  kRemoteProtection = 0x1,
  kRemoteOperation = 0x2,
};

// RFC 5040 §4.8: RDMAP error codes. Codes are numbered across both remote
// error types; 0x09 and 0xFF exist under both.
enum class ErrorCode : std::uint8_t {
  kInvalidStag = 0x00,
  kBaseOrBoundsViolation = 0x01,
  kAccessRightsViolation = 0x02,
  kStagNotAssociated = 0x03,  // STag not associated with RDMAP Stream
  kToWrap = 0x04,
  kInvalidRdmapVersion = 0x05,
  kUnexpectedOpcode = 0x06,
  kCatastrophicLocalized = 0x07,  // Catastrophic error, localized to RDMAP Stream
  kCatastrophicGlobal = 0x08,
  kStagCannotBeInvalidated = 0x09,
  kUnspecified = 0xff,
};

constexpr TerminateCode code_of(ErrorType t, ErrorCode c) {
  return {Layer::kRdmap, static_cast<std::uint8_t>(t), static_cast<std::uint8_t>(c)};
}
constexpr TerminateCode protection(ErrorCode c) { return code_of(ErrorType::kRemoteProtection, c); }
constexpr TerminateCode operation(ErrorCode c) { return code_of(ErrorType::kRemoteOperation, c); }
constexpr TerminateCode kRdmapLocalCatastrophic{Layer::kRdmap, 0x0, 0x00};

// RFC 5044 §8 + RFC 6581: MPA (LLP) errors, error type 0.
using mpa::LlpErrorCode;
constexpr TerminateCode code_of(LlpErrorCode c) {
  return {Layer::kLlp, 0x0, static_cast<std::uint8_t>(c)};
}

// RFC 5040 §4.8 (registered by RFC 6580, "RDMAP Errors").
//
// RFC 7306 (atomics, immediate data) reports its receive errors with these
// codes too: an Atomic Request naming a bad STag, lacking the remote atomic
// right or out of bounds gets the Remote Protection rows; a reserved atomic
// opcode gets Unexpected OpCode (rdmap/stream.cpp cites each use).
inline constexpr ErrorRow kRdmapErrorRows[] = {
    {kRdmapLocalCatastrophic, true, "Local Catastrophic Error", "Local Catastrophic Error",
     "RFC 5040 §4.8", Copies::kNothing},
    {protection(ErrorCode::kInvalidStag), false, "Remote Protection Error", "Invalid STag",
     "RFC 5040 §4.8", Copies::kDdpAndRdmapHeader},
    {protection(ErrorCode::kBaseOrBoundsViolation), false, "Remote Protection Error",
     "Base or bounds violation", "RFC 5040 §4.8", Copies::kDdpAndRdmapHeader},
    {protection(ErrorCode::kAccessRightsViolation), false, "Remote Protection Error",
     "Access rights violation", "RFC 5040 §4.8", Copies::kDdpAndRdmapHeader},
    {protection(ErrorCode::kStagNotAssociated), false, "Remote Protection Error",
     "STag not associated with RDMAP Stream", "RFC 5040 §4.8", Copies::kDdpAndRdmapHeader},
    {protection(ErrorCode::kToWrap), false, "Remote Protection Error", "TO wrap", "RFC 5040 §4.8",
     Copies::kDdpAndRdmapHeader},
    {protection(ErrorCode::kStagCannotBeInvalidated), false, "Remote Protection Error",
     "STag cannot be Invalidated", "RFC 5040 §4.8", Copies::kDdpAndRdmapHeader},
    {protection(ErrorCode::kUnspecified), false, "Remote Protection Error", "Unspecified Error",
     "RFC 5040 §4.8", Copies::kDdpAndRdmapHeader},
    // RFC 5040 §4.8 Figure 10: a Remote Operation Error includes the DDP
    // header and segment length when possible (a received segment caused
    // it) and never the RDMA header, whatever the opcode or RDMAP version.
    {operation(ErrorCode::kInvalidRdmapVersion), false, "Remote Operation Error",
     "Invalid RDMAP version", "RFC 5040 §4.8", Copies::kDdpHeader},
    {operation(ErrorCode::kUnexpectedOpcode), false, "Remote Operation Error", "Unexpected OpCode",
     "RFC 5040 §4.8", Copies::kDdpHeader},
    {operation(ErrorCode::kCatastrophicLocalized), false, "Remote Operation Error",
     "Catastrophic error, localized to RDMAP Stream", "RFC 5040 §4.8",
     Copies::kDdpHeader},
    {operation(ErrorCode::kCatastrophicGlobal), false, "Remote Operation Error",
     "Catastrophic error, global", "RFC 5040 §4.8", Copies::kDdpHeader},
    {operation(ErrorCode::kStagCannotBeInvalidated), false, "Remote Operation Error",
     "STag cannot be Invalidated", "RFC 5040 §4.8", Copies::kDdpHeader},
    {operation(ErrorCode::kUnspecified), false, "Remote Operation Error", "Unspecified Error",
     "RFC 5040 §4.8", Copies::kDdpHeader},
};

// RFC 5044 §8 and RFC 6581 (registered by RFC 6580, "MPA Errors"). The
// LLP detects these below DDP, so no DDP header is copied.
inline constexpr ErrorRow kLlpErrorRows[] = {
    {code_of(LlpErrorCode::kTcpConnectionLost), false, "MPA Error", "TCP connection closed, terminated or lost",
     mpa::defined_in(LlpErrorCode::kTcpConnectionLost), Copies::kNothing},
    {code_of(LlpErrorCode::kCrcError), false, "MPA Error", "MPA CRC Error",
     mpa::defined_in(LlpErrorCode::kCrcError), Copies::kNothing},
    {code_of(LlpErrorCode::kMarkerFpduStartMismatch), false, "MPA Error", "MPA Marker and ULPDU Length field mismatch",
     mpa::defined_in(LlpErrorCode::kMarkerFpduStartMismatch), Copies::kNothing},
    {code_of(LlpErrorCode::kInvalidRequestOrReply), false, "MPA Error", "Invalid MPA Request Frame or MPA Response Frame",
     mpa::defined_in(LlpErrorCode::kInvalidRequestOrReply), Copies::kNothing},
    {code_of(LlpErrorCode::kLocalCatastrophic), false, "MPA Error", "Local Catastrophic Error",
     mpa::defined_in(LlpErrorCode::kLocalCatastrophic), Copies::kNothing},
    {code_of(LlpErrorCode::kInsufficientIrd), false, "MPA Error", "Insufficient IRD Resources",
     mpa::defined_in(LlpErrorCode::kInsufficientIrd), Copies::kNothing},
    {code_of(LlpErrorCode::kNoMatchingRtr), false, "MPA Error", "No Matching RTR Option",
     mpa::defined_in(LlpErrorCode::kNoMatchingRtr), Copies::kNothing},
};

// The registry row naming `code`, or nullptr for an unregistered triple.
const ErrorRow* find_error(TerminateCode code);

// Every registered row, in registry order (RDMAP, DDP, LLP).
std::span<const ErrorRow> rdmap_error_rows();
std::span<const ErrorRow> ddp_error_rows();
std::span<const ErrorRow> llp_error_rows();

// "DDP/Tagged Buffer Error/Invalid STag (0x1/0x1/0x00)" for logs and tests.
std::string_view layer_name(Layer layer);

}  // namespace rdmaconf::rdmap
