#pragma once
// An allocator for the trees' level vectors, tens of megabytes for a million
// leaves. Blocks of 2 MiB or more are 2 MiB aligned and marked for
// transparent huge pages (madvise, Linux): with 4 KiB pages, first touching
// the memory of a 2^20-leaf sum tree cost more than hashing it (page faults
// are slow under virtualisation). Smaller blocks come from std::allocator.

#include <sys/mman.h>

#include <cstddef>
#include <memory>
#include <new>
#include <vector>

namespace sion::commit::detail {

template <class T>
struct LargeAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  LargeAllocator() noexcept = default;
  template <class U>
  LargeAllocator(const LargeAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>{}.allocate(n);
    void* block = ::operator new (bytes, std::align_val_t{kHugePage});
    // Advice only: without huge pages the memory works the same.
    (void)::madvise(block, bytes, MADV_HUGEPAGE);
    return static_cast<T*>(block);
  }

  void deallocate(T* block, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) {
      std::allocator<T>{}.deallocate(block, n);
    } else {
      ::operator delete (block, std::align_val_t{kHugePage});
    }
  }

  template <class U>
  bool operator==(const LargeAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using LargeVector = std::vector<T, LargeAllocator<T>>;

}  // namespace sion::commit::detail
