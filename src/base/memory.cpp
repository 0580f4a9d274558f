#include "sion/base/memory.hpp"

#include <climits>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace sion::base {

bool apply_allocator_policy(const AllocatorPolicy& policy) noexcept {
#if defined(__GLIBC__)
  const auto as_int = [](std::size_t bytes) { return bytes > INT_MAX ? INT_MAX : static_cast<int>(bytes); };
  // Setting M_MMAP_THRESHOLD also turns off glibc's sliding threshold, which
  // otherwise lowers the trim threshold again after a large free.
  const bool trim = mallopt(M_TRIM_THRESHOLD, as_int(policy.keep_free_bytes)) == 1;
  const bool map = mallopt(M_MMAP_THRESHOLD, as_int(policy.map_blocks_from)) == 1;
  return trim && map;
#else
  (void)policy;
  return true;
#endif
}

}  // namespace sion::base
