#include "wire/crc32c.hpp"

#include <climits>

#include <isa-l/crc.h>

namespace rdmaconf::wire {

void Crc32c::update(Bytes b) {
  // crc32_iscsi takes a non-const pointer and an int length; it does not
  // write through the pointer. Feed it in chunks that fit an int.
  constexpr std::size_t kChunk = static_cast<std::size_t>(INT_MAX) & ~std::size_t{4095};
  while (!b.empty()) {
    std::size_t n = b.size() < kChunk ? b.size() : kChunk;
    reg_ = crc32_iscsi(const_cast<unsigned char*>(b.data()), static_cast<int>(n), reg_);
    b = b.subspan(n);
  }
}

std::uint32_t crc32c(Bytes b) {
  Crc32c c;
  c.update(b);
  return c.value();
}

}  // namespace rdmaconf::wire
