// Every row of the registry, visible at compile time, and a row found by its
// id at compile time: the rule layer names a row by id (check/rule.hpp) and
// an id that is no row does not compile.
//
// One header per document, rows in section order, each section headed by a
// comment; registry.cpp gathers them for the run-time API (requirement.hpp).
#pragma once

#include <span>
#include <string_view>

#include "requirements/requirement.hpp"
#include "requirements/rfc5040.hpp"
#include "requirements/rfc5041.hpp"
#include "requirements/rfc5042.hpp"
#include "requirements/rfc5043.hpp"
#include "requirements/rfc5044.hpp"
#include "requirements/rfc6581.hpp"
#include "requirements/rfc7145.hpp"
#include "requirements/rfc7306.hpp"
#include "requirements/rfc7609.hpp"
#include "requirements/rfc8166.hpp"
#include "requirements/smc_v2.hpp"
#include "requirements/rows.hpp"

namespace rdmaconf::requirements {

// The rows of a document by its display name ("RFC 5044", "SMCv2"), in the
// order of its data file.
constexpr std::span<const Requirement> rows_of(std::string_view document) {
  if (document == "RFC 5044") return detail::rfc5044::kRows;
  if (document == "RFC 6581") return detail::rfc6581::kRows;
  if (document == "RFC 5041") return detail::rfc5041::kRows;
  if (document == "RFC 5040") return detail::rfc5040::kRows;
  if (document == "RFC 7306") return detail::rfc7306::kRows;
  if (document == "RFC 5042") return detail::rfc5042::kRows;
  if (document == "RFC 5043") return detail::rfc5043::kRows;
  if (document == "RFC 7609") return detail::rfc7609::kRows;
  if (document == "SMCv2") return detail::smc_v2::kRows;
  if (document == "RFC 8166") return detail::rfc8166::kRows;
  if (document == "RFC 7145") return detail::rfc7145::kRows;
  return {};
}

// The row with this id (not an old id: a rule names the current one). Called
// in a constant expression, an id that is no row does not compile.
constexpr const Requirement& row(std::string_view id) {
  for (const Requirement& r : rows_of(detail::id_document(id)))
    if (r.id == id) return r;
  throw "no registry row has this id";  // not a constant expression: the caller does not compile
}

}  // namespace rdmaconf::requirements
