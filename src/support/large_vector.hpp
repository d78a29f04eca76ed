#pragma once
// LargeVector<T>: a std::vector whose big buffers ask the kernel for transparent huge pages.
//
// Why: per-node arrays of a 10M-node analysis are tens of MB each, and every fresh 4 KiB page costs a
// page fault when first touched (several microseconds each on virtualised hosts). With THP in "madvise"
// mode (the common default), advising the buffer cuts the faults up to 512-fold. Small buffers, and
// kernels without THP, behave exactly like std::allocator.
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace rpl {

template <typename T>
struct LargePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static constexpr std::size_t kThreshold = std::size_t{4} << 20;  // below this, plain operator new

  LargePageAllocator() noexcept = default;
  template <typename U>
  LargePageAllocator(const LargePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kThreshold) return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
    const std::size_t rounded = (bytes + kHugePage - 1) & ~(kHugePage - 1);
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (p == nullptr) throw std::bad_alloc();
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advisory: failure only means 4 KiB pages
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kThreshold) ::operator delete(p, std::align_val_t{alignof(T)});
    else std::free(p);
  }
  template <typename U>
  bool operator==(const LargePageAllocator<U>&) const noexcept { return true; }
};

template <typename T>
using LargeVector = std::vector<T, LargePageAllocator<T>>;

// For a plain std::vector that must keep its type (e.g. in a public result): reserves `n` elements and
// advises the 2 MiB-aligned interior of the fresh buffer, before anything touches it, to use huge pages.
template <typename T>
void reserve_with_huge_pages(std::vector<T>& v, std::size_t n) {
  v.reserve(n);
  constexpr std::size_t huge = LargePageAllocator<T>::kHugePage;
  const std::size_t bytes = n * sizeof(T);
  if (bytes < LargePageAllocator<T>::kThreshold) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(v.data()) + huge - 1) & ~(huge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(v.data()) + bytes) & ~(huge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

}  // namespace rpl
