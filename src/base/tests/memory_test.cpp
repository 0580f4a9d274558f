#include "sion/base/memory.hpp"
#include "sion/base/testing/sanitizers.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace sion::base {
namespace {

// A sanitizer's allocator replaces glibc's: the policy has nothing to act on.
#if defined(__GLIBC__) && !SION_ASAN
TEST(AllocatorPolicy, FreedBlocksStayInTheProcess) {
  ASSERT_TRUE(apply_allocator_policy());
  // 8 MiB is over glibc's default mapping threshold: without the policy it
  // is unmapped on free and the heap holds none of it.
  constexpr std::size_t kBlock = std::size_t{8} << 20;
  const struct mallinfo2 before = mallinfo2();
  void* block = std::malloc(kBlock);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBlock);
  EXPECT_EQ(mallinfo2().hblkhd, before.hblkhd);  // on the heap, not mapped
  std::free(block);
  EXPECT_GE(mallinfo2().fordblks, kBlock);  // and kept when freed
}

#elif !defined(__GLIBC__)
TEST(AllocatorPolicy, IsANoOpOffGlibc) { EXPECT_TRUE(apply_allocator_policy()); }
#endif  // under a sanitizer's allocator: nothing to test

}  // namespace
}  // namespace sion::base
