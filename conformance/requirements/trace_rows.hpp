// How the per-RFC trace files write their entries (private to this library):
//
//   cover("4.1", "1f0c9a2e", "rfc5044-4.1-pad-zero")
//   cover("4.1", "77aa0b13", "rfc5044-4.1-pad-zero rfc5044-4.1-pad-length")
//   hidden("4.5", "0b1c2d3e", "MULPDU is handed to DDP locally")
//   none("1.1", "aa00bb11", "restates the rule of 7.1.2")
#pragma once

#include <span>
#include <string_view>

#include "trace.hpp"

namespace rdmaconf::requirements::detail {

constexpr SentenceTrace cover(std::string_view section, std::string_view fingerprint,
                              std::string_view rows, std::string_view note = {}) {
  return SentenceTrace{section, fingerprint, Accounting::kCovered, rows, note};
}
constexpr SentenceTrace hidden(std::string_view section, std::string_view fingerprint,
                               std::string_view reason) {
  return SentenceTrace{section, fingerprint, Accounting::kNotObservable, {}, reason};
}
constexpr SentenceTrace none(std::string_view section, std::string_view fingerprint,
                             std::string_view reason) {
  return SentenceTrace{section, fingerprint, Accounting::kNotARequirement, {}, reason};
}

std::span<const SentenceTrace> rfc5044_trace();
std::span<const SentenceTrace> rfc6581_trace();
std::span<const SentenceTrace> rfc5041_trace();
std::span<const SentenceTrace> rfc5040_trace();
std::span<const SentenceTrace> rfc7306_trace();
std::span<const SentenceTrace> rfc5042_trace();
std::span<const SentenceTrace> rfc5043_trace();
std::span<const SentenceTrace> rfc7609_trace();

}  // namespace rdmaconf::requirements::detail
