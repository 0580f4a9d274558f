#pragma once
// Constant-time checking with valgrind memcheck (the ctgrind technique, as in
// libsecp256k1's ctime_tests): a test marks secret inputs as undefined, and
// memcheck reports every branch or memory index that depends on them. Values
// that become public by design (a signature, or a quantity the standard lets
// leak, such as a rejection-sampling decision) are declassified, marked
// defined, where that happens, with a comment saying why.
//
// Outside valgrind these are a few no-op instructions; without valgrind's
// headers they compile to nothing.

#include <cstddef>

#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define SION_HAVE_MEMCHECK 1
#endif
#endif

namespace sion::base {

// Marks memory as secret for a constant-time test.
inline void ct_secret(const void* data, std::size_t size) noexcept {
#ifdef SION_HAVE_MEMCHECK
  (void)VALGRIND_MAKE_MEM_UNDEFINED(data, size);
#else
  (void)data;
  (void)size;
#endif
}

// Declares memory public from here on.
inline void ct_public(const void* data, std::size_t size) noexcept {
#ifdef SION_HAVE_MEMCHECK
  (void)VALGRIND_MAKE_MEM_DEFINED(data, size);
#else
  (void)data;
  (void)size;
#endif
}

template <class T>
inline void ct_public(const T& value) noexcept {
  ct_public(&value, sizeof(value));
}

// True when running under valgrind (tests use it to refuse running the
// constant-time check outside it, where it would prove nothing).
inline bool running_under_valgrind() noexcept {
#ifdef SION_HAVE_MEMCHECK
  return RUNNING_ON_VALGRIND != 0;
#else
  return false;
#endif
}

}  // namespace sion::base
