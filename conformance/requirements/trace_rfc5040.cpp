// RFC 5040 traced sentence by sentence (trace.hpp): every sentence of the RFC
// with a normative keyword, by section and fingerprint, and what accounts
// for it. Entries in section order.
#include "trace_rows.hpp"

namespace rdmaconf::requirements::detail {
namespace {

constexpr SentenceTrace kTrace[] = {
    none("", "00000000", "placeholder: the RFC's sentences are not traced yet"),
};

}  // namespace

std::span<const SentenceTrace> rfc5040_trace() { return kTrace; }

}  // namespace rdmaconf::requirements::detail
