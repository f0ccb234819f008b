// Round trip of one declared header (reference/wire/field.hpp): every field
// read through the declaration and written into a fresh header gives back
// the same octets, every value fits its declared width, and the
// pretty-printers walk the declaration without fault.
#pragma once

#include <algorithm>
#include <cstddef>

#include "common/input.hpp"
#include "wire/bytes.hpp"
#include "wire/field.hpp"

namespace rdmaconf::fuzz {

// `octets` must hold at least the header's size; returns the decoded header.
template <typename Spec>
wire::Header<Spec> header_round_trip(Bytes octets, bool describe = false) {
  using H = wire::Header<Spec>;
  wire::ByteReader r(octets);
  auto decoded = H::decode(r);
  FUZZ_CHECK(decoded.ok());
  FUZZ_CHECK(r.offset() == H::kSize);
  H copy;
  for (std::size_t i = 0; i < Spec::decl.fields.size(); ++i) {
    const auto f = static_cast<typename Spec::Field>(i);
    const wire::FieldDecl& d = H::field_decl(f);
    if (d.is_octet_string()) {
      copy.set_octets(f, decoded->octets(f));
    } else {
      const std::uint64_t v = decoded->get(f);
      FUZZ_CHECK(v <= d.max_value());
      copy.set(f, v);
    }
  }
  FUZZ_CHECK(copy == *decoded);
  FUZZ_CHECK(std::equal(copy.bytes().begin(), copy.bytes().end(), octets.begin()));
  if (describe) {
    FUZZ_CHECK(!wire::describe(Spec::decl, copy.bytes()).empty());
    FUZZ_CHECK(!wire::summarize(Spec::decl, copy.bytes()).empty());
  }
  return *decoded;
}

}  // namespace rdmaconf::fuzz
