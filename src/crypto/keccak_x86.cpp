// SIMD Keccak-f[1600] on 4 or 8 interleaved states (keccak_x86.hpp). Each
// function is compiled for its ISA with a function-level target attribute,
// never a file- or project-wide -m flag, so the rest of the binary runs on
// any x86-64; keccak.cpp calls these only when the CPU has the ISA.
// The permutation is written once, in keccak_x86_rounds.inc, over vector
// operations that each function defines and the .inc undefines again.

#include "keccak_x86.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// GCC 12's _mm512_rol_epi64 and friends pass _mm512_undefined_epi32(), a
// deliberately self-initialised value, which -Wuninitialized reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace sion::crypto::detail {

#if defined(__x86_64__)

// ---- AVX2: 4 states in __m256i --------------------------------------------

__attribute__((target("avx2"))) void keccak_f1600_x4_avx2(std::uint64_t* lanes,
                                                          std::size_t stride) noexcept {
  // Byte rotations by 8 and 56 bits are one vpshufb instead of two shifts
  // and an or.
  const __m256i rot8 = _mm256_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14,  //
                                        7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14);
  const __m256i rot56 = _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8,  //
                                         1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8);
#define V __m256i
#define LOAD(i) _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes + (i) * stride))
#define STORE(i, v) _mm256_store_si256(reinterpret_cast<__m256i*>(lanes + (i) * stride), v)
#define XOR(a, b) _mm256_xor_si256(a, b)
#define XOR5(a, b, c, d, e) XOR(XOR(XOR(a, b), XOR(c, d)), e)
#define ROL(x, n) _mm256_or_si256(_mm256_slli_epi64(x, n), _mm256_srli_epi64(x, 64 - (n)))
#define ROL8(x) _mm256_shuffle_epi8(x, rot8)
#define ROL56(x) _mm256_shuffle_epi8(x, rot56)
#define CHI(a, b, c) XOR(a, _mm256_andnot_si256(b, c))
#define IOTA(a, rc) XOR(a, _mm256_set1_epi64x(static_cast<long long>(rc)))
#include "keccak_x86_rounds.inc"
}

// ---- AVX-512VL: 4 states in __m256i, three-input logic and rotations -------

__attribute__((target("avx2,avx512f,avx512vl"))) void keccak_f1600_x4_avx512vl(
    std::uint64_t* lanes, std::size_t stride) noexcept {
#define V __m256i
#define LOAD(i) _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes + (i) * stride))
#define STORE(i, v) _mm256_store_si256(reinterpret_cast<__m256i*>(lanes + (i) * stride), v)
#define XOR(a, b) _mm256_xor_si256(a, b)
#define XOR5(a, b, c, d, e) \
  _mm256_ternarylogic_epi64(_mm256_ternarylogic_epi64(a, b, c, 0x96), d, e, 0x96)
#define ROL(x, n) _mm256_rol_epi64(x, n)
#define ROL8(x) _mm256_rol_epi64(x, 8)
#define ROL56(x) _mm256_rol_epi64(x, 56)
#define CHI(a, b, c) _mm256_ternarylogic_epi64(a, b, c, 0xd2)
#define IOTA(a, rc) XOR(a, _mm256_set1_epi64x(static_cast<long long>(rc)))
#include "keccak_x86_rounds.inc"
}

// ---- AVX-512F: 8 states in __m512i -------------------------------------------

__attribute__((target("avx2,avx512f"))) void keccak_f1600_x8_avx512(
    std::uint64_t* lanes) noexcept {
#define V __m512i
#define LOAD(i) _mm512_load_si512(static_cast<const void*>(lanes + (i) * 8))
#define STORE(i, v) _mm512_store_si512(static_cast<void*>(lanes + (i) * 8), v)
#define XOR(a, b) _mm512_xor_si512(a, b)
#define XOR5(a, b, c, d, e) \
  _mm512_ternarylogic_epi64(_mm512_ternarylogic_epi64(a, b, c, 0x96), d, e, 0x96)
#define ROL(x, n) _mm512_rol_epi64(x, n)
#define ROL8(x) _mm512_rol_epi64(x, 8)
#define ROL56(x) _mm512_rol_epi64(x, 56)
#define CHI(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0xd2)
#define IOTA(a, rc) XOR(a, _mm512_set1_epi64(static_cast<long long>(rc)))
#include "keccak_x86_rounds.inc"
}

#else  // not x86-64: never called (cpu_features() reports nothing)


void keccak_f1600_x4_avx2(std::uint64_t*, std::size_t) noexcept {}
void keccak_f1600_x4_avx512vl(std::uint64_t*, std::size_t) noexcept {}
void keccak_f1600_x8_avx512(std::uint64_t*) noexcept {}

#endif

}  // namespace sion::crypto::detail
