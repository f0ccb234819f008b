// Typed decode results. Every decoder in rdmaconf returns Result<T>: either the
// decoded value or a DecodeError that names the field, the rule it broke and
// the RFC section that states the rule. Nothing throws across the API on
// malformed bytes, and an error carries only static strings, so producing one
// never allocates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace rdmaconf::wire {

struct DecodeError {
  std::string_view field;        // the field in the RFC's own words, e.g. "PD_Length"
  std::string_view rule;         // the rule, in our words, e.g. "must not exceed 512"
  std::string_view rfc_section;  // e.g. "RFC 5044 §7.1"
  std::size_t offset = 0;        // octet offset of the offending field in the decoded unit

  // "field: rule (section, octet N)"; in result.cpp, one copy that the fuzz
  // build compiles without comparison tracing (fuzz/CMakeLists.txt).
  std::string to_string() const;
  friend bool operator==(const DecodeError&, const DecodeError&) = default;
};

// A value or the DecodeError that prevented it. The small surface (ok(),
// value(), error(), *, ->) is what std::expected offers; we carry our own
// because the codecs must build with nothing but the C++20 standard library.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(DecodeError error) : v_(std::in_place_index<1>, error) {}   // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const DecodeError& error() const { return std::get<1>(v_); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, DecodeError> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(DecodeError error) : error_(error), ok_(false) {}  // NOLINT: implicit by design

  bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const DecodeError& error() const { return error_; }

 private:
  DecodeError error_{};
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace rdmaconf::wire
