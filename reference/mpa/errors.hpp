// The errors MPA reports (RFC 5044 §8, extended by RFC 6581). They travel in
// an RDMAP Terminate message with Layer = LLP (2) and Error Type = MPA (0);
// the complete cross-layer registry (RDMAP, DDP and LLP rows) lives in
// rdmap/. Here: the codes and their names, nothing else.
#pragma once

#include <cstdint>
#include <string_view>

#include "wire/field.hpp"

namespace rdmaconf::mpa {

// RFC 5040 §4.8 Terminate "Layer" and RFC 5044 §8 "Error Type" of MPA errors.
inline constexpr std::uint8_t kLlpLayer = 0x2;
inline constexpr std::uint8_t kMpaErrorType = 0x0;

enum class LlpErrorCode : std::uint8_t {
  // RFC 5044 §8
  kTcpConnectionLost = 0x01,         // TCP connection closed, terminated or lost (reported, not sent)
  kCrcError = 0x02,                  // received MPA CRC does not match the computed one
  kMarkerFpduStartMismatch = 0x03,   // Marker and ULPDU_Length disagree on where an FPDU starts
  kInvalidRequestOrReply = 0x04,     // invalid MPA Request or Reply frame
  // RFC 6581 (enhanced connection establishment only)
  kLocalCatastrophic = 0x05,         // local catastrophic error
  kInsufficientIrd = 0x06,           // insufficient IRD resources
  kNoMatchingRtr = 0x07,             // no matching RTR option
};

inline constexpr wire::ValueName kLlpErrorCodeNames[] = {
    {0x01, "TCP connection closed, terminated or lost"},
    {0x02, "MPA CRC error"},
    {0x03, "Marker and ULPDU_Length disagree on the FPDU start"},
    {0x04, "invalid MPA Request or Reply frame"},
    {0x05, "local catastrophic error"},
    {0x06, "insufficient IRD resources"},
    {0x07, "no matching RTR option"},
};

constexpr std::string_view name(LlpErrorCode code) {
  const std::string_view n = wire::value_name(kLlpErrorCodeNames, static_cast<std::uint8_t>(code));
  return n.empty() ? "unknown LLP error code" : n;
}

// The RFC that defines a code (0x05-0x07 exist only with RFC 6581).
constexpr std::string_view defined_in(LlpErrorCode code) {
  return static_cast<std::uint8_t>(code) <= 0x04 ? std::string_view{"RFC 5044 §8"}
                                                  : std::string_view{"RFC 6581 §9"};
}

}  // namespace rdmaconf::mpa
