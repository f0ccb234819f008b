// Buffers of half a MiB and more that one run fills and refills (analyze
// -j's chunks, SharedPcapFile in source.hpp), asked of the kernel as whole
// 2 MiB-aligned stretches with transparent huge pages advised
// (madvise(MADV_HUGEPAGE)): the first write to each stretch then maps 2 MiB
// with one page fault instead of 512 faults of 4 KiB. Where the kernel
// gives no huge page (THP off, none free) nothing changes but the
// alignment. Why it matters: on a virtual machine whose guest page tables
// the hypervisor follows, a 4 KiB fault of fresh memory costs about 15 us,
// and analyze -j 2's eight chunk buffers took 1,150 of them that -j 1 does
// not (docs/performance.md, "Several cores").
//
// Smaller buffers come from the heap as usual: a 2 MiB stretch each would
// cost more memory than faults.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include <sys/mman.h>

namespace rdmaconf::capture {

template <class T>
struct LargePageAllocator {
  using value_type = T;
  static constexpr std::size_t kStretch = std::size_t{2} << 20;  // an x86-64 / arm64 huge page
  static constexpr std::size_t kFrom = std::size_t{512} << 10;   // smaller: the heap's

  LargePageAllocator() = default;
  template <class U>
  LargePageAllocator(const LargePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T) - kStretch) throw std::bad_array_new_length();
    const std::size_t octets = n * sizeof(T);
    if (octets < kFrom) return std::allocator<T>{}.allocate(n);
    // Map a stretch more than needed, then give back what lies outside the
    // 2 MiB-aligned part, so the kernel can back it with huge pages.
    const std::size_t length = rounded(octets);
    void* p = ::mmap(nullptr, length + kStretch, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    auto* raw = static_cast<unsigned char*>(p);
    const std::size_t lead = (kStretch - reinterpret_cast<std::uintptr_t>(raw) % kStretch) % kStretch;
    if (lead > 0) ::munmap(raw, lead);
    ::munmap(raw + lead + length, kStretch - lead);
    ::madvise(raw + lead, length, MADV_HUGEPAGE);  // a hint: without it, 4 KiB pages as before
    return reinterpret_cast<T*>(raw + lead);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t octets = n * sizeof(T);
    if (octets < kFrom) return std::allocator<T>{}.deallocate(p, n);
    ::munmap(p, rounded(octets));
  }
  friend bool operator==(const LargePageAllocator&, const LargePageAllocator&) { return true; }

 private:
  static std::size_t rounded(std::size_t octets) { return (octets + kStretch - 1) / kStretch * kStretch; }
};

// The octets of a chunk of a file read by copies (SharedPcapFile::Chunk).
using LargeBuffer = std::vector<std::uint8_t, LargePageAllocator<std::uint8_t>>;

}  // namespace rdmaconf::capture
