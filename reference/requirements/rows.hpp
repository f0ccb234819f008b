// How the per-document data files write their rows (private to the registry).
//
// A row names its id, level, observability and summary; the document and the
// section are read out of the id at compile time, so the three can never
// disagree. The columns a tool needs are added to the rows it checks:
//
//   row("rfc5041-4.1-dv-1", kMust, W, "...").says("DV is 1")
//   row("rfc5040-5.5-completion-order", kMust, N, "...", "a local completion queue")
//   row("rfc7609-a.2.3-accept-qp-number", M, W, "...").says("...").also("IBTA vol. 1 §3.5.1")
#pragma once

#include <span>
#include <string_view>

#include "requirements/requirement.hpp"

namespace rdmaconf::requirements::detail {

// The display name of a document id prefix.
constexpr std::string_view document_name(std::string_view prefix) {
  if (prefix == "rfc5040") return "RFC 5040";
  if (prefix == "rfc5041") return "RFC 5041";
  if (prefix == "rfc5042") return "RFC 5042";
  if (prefix == "rfc5043") return "RFC 5043";
  if (prefix == "rfc5044") return "RFC 5044";
  if (prefix == "rfc6581") return "RFC 6581";
  if (prefix == "rfc7306") return "RFC 7306";
  if (prefix == "rfc7609") return "RFC 7609";
  if (prefix == "rfc8166") return "RFC 8166";
  if (prefix == "rfc7145") return "RFC 7145";
  if (prefix == "smcv2") return "SMCv2";
  return {};
}

constexpr std::string_view id_document(std::string_view id) {
  return document_name(id.substr(0, id.find('-')));
}

constexpr std::string_view id_section(std::string_view id) {
  const auto first = id.find('-');
  if (first == std::string_view::npos) return {};
  const auto second = id.find('-', first + 1);
  if (second == std::string_view::npos) return {};
  return id.substr(first + 1, second - first - 1);
}

constexpr Requirement row(std::string_view id, Level level, Observability observable,
                          std::string_view summary, std::string_view why_not_observable = {}) {
  return Requirement{id,    id_document(id), id_section(id),   level, summary, observable,
                     why_not_observable, {},  {}, weight_of(level), {}, {}};
}

// Short names for the data files.
inline constexpr Observability W = Observability::kOnTheWire;
inline constexpr Observability P = Observability::kOnTheWireAsPeer;
inline constexpr Observability N = Observability::kNotObservable;

}  // namespace rdmaconf::requirements::detail
