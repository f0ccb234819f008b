// One SMC CLC message (RFC 7609 App. A, SMC v2 as Linux net/smc sends it):
// Proposal, Accept, Confirm or Decline, v1 and v2, SMC-R and SMC-D.
//
// Input: the message octets (the CLC mutator keeps Length and trailer
// right). Properties:
//  - message_length() and decode() agree on the Length;
//  - a decoded message encodes back to exactly the octets it came from,
//    and decodes again to an equal message;
//  - finalize() is idempotent, and the printer walks every block.
// Octets after the message are ignored by decode(); here they also turn on
// the printer.
#include <algorithm>
#include <cstdint>
#include <variant>

#include "clc/decline_codes.hpp"
#include "clc/messages.hpp"
#include "common/input.hpp"
#include "common/mutators.hpp"

using namespace rdmaconf;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::Bytes octets(data, size);
  auto decoded = clc::decode(octets);
  if (!decoded) {
    FUZZ_CHECK(!decoded.error().to_string().empty());
    return 0;
  }
  auto length = clc::message_length(octets.first(clc::kHeaderSize));
  FUZZ_CHECK(length.ok());
  FUZZ_CHECK(*length >= clc::kHeaderSize + clc::kTrailerSize && *length <= size);
  const auto encoded = clc::encode(*decoded);
  FUZZ_CHECK(encoded.size() == *length);
  FUZZ_CHECK(std::equal(encoded.begin(), encoded.end(), octets.begin()));
  auto again = clc::decode(encoded);
  FUZZ_CHECK(again.ok() && *again == *decoded);
  // The printer allocates a page of text: only for inputs with octets after
  // the message (the CLC mutator appends such a tail now and then).
  if (size > *length) FUZZ_CHECK(!clc::describe(*decoded).empty());

  const clc::MessageType type = clc::message_type(*decoded);
  for (const wire::FieldDecl& f : clc::type_bits_decl(type)) {
    const auto& header = std::visit([](const auto& m) -> const clc::ClcHeader& { return m.header; }, *decoded);
    FUZZ_CHECK(clc::type_bits_field(header, f) <= f.max_value());
  }

  if (const auto* d = std::get_if<clc::Decline>(&*decoded)) {
    // Every diagnosis has a category; a registered one has a name.
    FUZZ_CHECK(!clc::decline_category(d->diagnosis()).empty());
    if (const clc::DeclineCode* code = clc::find_decline_code(d->diagnosis())) FUZZ_CHECK(code->code == d->diagnosis());
  }

  clc::Message once = *decoded;
  std::visit([](auto& m) { clc::finalize(m); }, once);
  clc::Message twice = once;
  std::visit([](auto& m) { clc::finalize(m); }, twice);
  FUZZ_CHECK(once == twice);
  return 0;
}

namespace {
std::size_t no_prefix(fuzz::Bytes) { return 0; }
}  // namespace

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  if (seed & 1) return LLVMFuzzerMutate(data, size, max_size);
  return fuzz::mutate_clc_stream(data, size, max_size, seed >> 1, no_prefix);
}
