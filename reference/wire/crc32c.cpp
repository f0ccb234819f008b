#include "wire/crc32c.hpp"

#include <climits>

#include <isa-l/crc.h>

namespace rdmaconf::wire {
namespace {

// ISA-L picks its CRC routine by CPU; the AVX-512 one (crc32_iscsi_by16_10 in
// ISA-L 2.30) returns with the upper halves of the vector registers still set.
// Every legacy-SSE instruction our code runs after it (the compiler's copies of
// an Fpdu and the like) then waits on those halves: `analyze` spent a third more
// CPU per octet (docs/performance.md, "Several cores"). VZEROUPPER clears them;
// it exists wherever AVX does, and only then can ISA-L have used wide registers.
void clear_upper_vector_state() {
#if defined(__x86_64__)
  static const bool avx = __builtin_cpu_supports("avx");
  if (avx) __asm__ volatile("vzeroupper" ::: "memory");
#endif
}

}  // namespace

void Crc32c::update(Bytes b) {
  // crc32_iscsi takes a non-const pointer and an int length; it does not
  // write through the pointer. Feed it in chunks that fit an int.
  constexpr std::size_t kChunk = static_cast<std::size_t>(INT_MAX) & ~std::size_t{4095};
  while (!b.empty()) {
    std::size_t n = b.size() < kChunk ? b.size() : kChunk;
    reg_ = crc32_iscsi(const_cast<unsigned char*>(b.data()), static_cast<int>(n), reg_);
    b = b.subspan(n);
  }
  clear_upper_vector_state();
}

std::uint32_t crc32c(Bytes b) {
  Crc32c c;
  c.update(b);
  return c.value();
}

}  // namespace rdmaconf::wire
