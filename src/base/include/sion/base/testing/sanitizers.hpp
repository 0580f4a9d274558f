#pragma once
// Whether this build runs under AddressSanitizer (g++ defines
// __SANITIZE_ADDRESS__, clang answers __has_feature). Tests use it to skip
// what a sanitizer changes: glibc's allocator is replaced, and wall-clock
// targets do not hold at a sanitizer's several-fold slowdown.

#if defined(__SANITIZE_ADDRESS__)
#define SION_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SION_ASAN 1
#endif
#endif
#ifndef SION_ASAN
#define SION_ASAN 0
#endif

namespace sion::base::testing {

inline constexpr bool kSanitized = SION_ASAN != 0;

}  // namespace sion::base::testing
