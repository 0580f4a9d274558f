#pragma once
// The SHA-256 and SHA-512 compression functions (FIPS 180-4, Sec. 6.2.2 and
// 6.4.2) on vectors of independent lanes, written once with the compiler's
// generic vector types and instantiated for AVX2 and AVX-512 by the x86
// kernels (sha2_x86.cpp, slhdsa_x86.cpp). Internal to the crypto layer.
//
// Everything here is always_inline and takes vectors through pointers only:
// the bodies are compiled inside the caller's target("avx2") or
// target("avx512f,...") function, so they get that ISA's instructions
// (vprord and vpternlogd under AVX-512) and no function passes a vector by
// value across a target boundary (which would change the ABI). There are no
// branches or memory indices that depend on the data.

#include <cstddef>
#include <cstdint>
#include <cstring>

#define SION_SIMD_INLINE inline __attribute__((always_inline))

namespace sion::crypto::detail::simd {

// Lane vectors: u32x8 = one AVX2 register of SHA-256 words, u32x16 one
// AVX-512 register; u64x4 / u64x8 the same for SHA-512.
typedef std::uint32_t u32x8 __attribute__((vector_size(32)));
typedef std::uint32_t u32x16 __attribute__((vector_size(64)));
typedef std::uint64_t u64x4 __attribute__((vector_size(32)));
typedef std::uint64_t u64x8 __attribute__((vector_size(64)));

// Rotate right by r of `bits`-bit lanes; a macro so that no vector is
// passed by value.
#define SION_SIMD_ROR(x, r, bits) (((x) >> (r)) | ((x) << ((bits) - (r))))

// Rounds kBegin .. kEnd - 1 of SHA-256 (Sec. 6.2.2 steps 1 and 3) on the
// working variables v[0..7] = a..h, with the message words w[0..15] (the
// big-endian words of the block; from round 16 on, overwritten by the
// schedule as a 16-word ring). Rounds 0-15 read w[t] only, so a caller can
// run rounds 0 .. r - 1 once for blocks that share w[0..r-1].
template <int kBegin, int kEnd, class V>
SION_SIMD_INLINE void sha256_round_range(V* v, V* w, const std::uint32_t* k) {
  V a = v[0], b = v[1], c = v[2], d = v[3], e = v[4], f = v[5], g = v[6], h = v[7];
#pragma GCC unroll 64
  for (int t = kBegin; t < kEnd; ++t) {
    if (t >= 16) {  // step 1, in a 16-word ring
      const V x = w[(t - 15) & 15];
      const V y = w[(t - 2) & 15];
      const V s0 = SION_SIMD_ROR(x, 7, 32) ^ SION_SIMD_ROR(x, 18, 32) ^ (x >> 3);
      const V s1 = SION_SIMD_ROR(y, 17, 32) ^ SION_SIMD_ROR(y, 19, 32) ^ (y >> 10);
      w[t & 15] += s0 + w[(t - 7) & 15] + s1;
    }
    const V big_s1 = SION_SIMD_ROR(e, 6, 32) ^ SION_SIMD_ROR(e, 11, 32) ^ SION_SIMD_ROR(e, 25, 32);
    const V big_s0 = SION_SIMD_ROR(a, 2, 32) ^ SION_SIMD_ROR(a, 13, 32) ^ SION_SIMD_ROR(a, 22, 32);
    const V t1 = h + big_s1 + (g ^ (e & (f ^ g))) + k[t] + w[t & 15];  // Ch(e, f, g)
    const V t2 = big_s0 + ((a & b) | (c & (a | b)));                  // Maj(a, b, c)
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  v[0] = a;
  v[1] = b;
  v[2] = c;
  v[3] = d;
  v[4] = e;
  v[5] = f;
  v[6] = g;
  v[7] = h;
}

// 64 rounds of SHA-256 (Sec. 6.2.2 steps 1-4) on s[0..7] (a..h, updated
// by step 4's additions) with the message words w[0..15] (big-endian words
// of the block, already decoded; overwritten by the schedule).
template <class V>
SION_SIMD_INLINE void sha256_rounds(V* s, V* w, const std::uint32_t* k) {
  V v[8];
  for (int i = 0; i < 8; ++i) v[i] = s[i];
  sha256_round_range<0, 64>(v, w, k);
  for (int i = 0; i < 8; ++i) s[i] += v[i];
}

// 80 rounds of SHA-512 (Sec. 6.4.2), as sha256_rounds.
template <class V>
SION_SIMD_INLINE void sha512_rounds(V* s, V* w, const std::uint64_t* k) {
  V a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
#pragma GCC unroll 80
  for (int t = 0; t < 80; ++t) {
    if (t >= 16) {
      const V x = w[(t - 15) & 15];
      const V y = w[(t - 2) & 15];
      const V s0 = SION_SIMD_ROR(x, 1, 64) ^ SION_SIMD_ROR(x, 8, 64) ^ (x >> 7);
      const V s1 = SION_SIMD_ROR(y, 19, 64) ^ SION_SIMD_ROR(y, 61, 64) ^ (y >> 6);
      w[t & 15] += s0 + w[(t - 7) & 15] + s1;
    }
    const V big_s1 = SION_SIMD_ROR(e, 14, 64) ^ SION_SIMD_ROR(e, 18, 64) ^ SION_SIMD_ROR(e, 41, 64);
    const V big_s0 = SION_SIMD_ROR(a, 28, 64) ^ SION_SIMD_ROR(a, 34, 64) ^ SION_SIMD_ROR(a, 39, 64);
    const V t1 = h + big_s1 + (g ^ (e & (f ^ g))) + k[t] + w[t & 15];
    const V t2 = big_s0 + ((a & b) | (c & (a | b)));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  s[0] += a;
  s[1] += b;
  s[2] += c;
  s[3] += d;
  s[4] += e;
  s[5] += f;
  s[6] += g;
  s[7] += h;
}

// Unaligned vector load and store through memcpy (one vmovdqu each).
template <class V, class T>
SION_SIMD_INLINE void load(V* v, const T* p) {
  std::memcpy(v, p, sizeof(V));
}
template <class V, class T>
SION_SIMD_INLINE void store(T* p, const V* v) {
  std::memcpy(p, v, sizeof(V));
}

// In-register transposes: x[i] holds words 0..L-1 of lane i on entry and
// word i of lanes 0..L-1 on return (an L x L matrix of words). Written with
// __builtin_shufflevector so that the compiler picks the unpack / shuffle
// instructions of the caller's ISA.
SION_SIMD_INLINE void transpose(u32x8* x) {
  u32x8 t[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(x[i], x[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = __builtin_shufflevector(x[i], x[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  u32x8 u[8];  // u[4i + j]: word j (low half) and 4 + j (high half) of lanes 4i..4i+3
  for (int i = 0; i < 8; i += 4) {
    u[i] = __builtin_shufflevector(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    u[i + 1] = __builtin_shufflevector(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    u[i + 2] = __builtin_shufflevector(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    u[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int j = 0; j < 4; ++j) {
    x[j] = __builtin_shufflevector(u[j], u[4 + j], 0, 1, 2, 3, 8, 9, 10, 11);
    x[4 + j] = __builtin_shufflevector(u[j], u[4 + j], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

SION_SIMD_INLINE void transpose(u32x16* x) {
  u32x16 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = __builtin_shufflevector(x[i], x[i + 1], 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12,
                                   28, 13, 29);
    t[i + 1] = __builtin_shufflevector(x[i], x[i + 1], 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11,
                                       27, 14, 30, 15, 31);
  }
  // u[4i + j], 128-bit chunk k: word 4k + j of lanes 4i..4i+3.
  u32x16 u[16];
  for (int i = 0; i < 16; i += 4) {
    for (int h = 0; h < 2; ++h) {
      u[i + 2 * h] = __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 16, 17, 4, 5, 20, 21,
                                             8, 9, 24, 25, 12, 13, 28, 29);
      u[i + 2 * h + 1] = __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 18, 19, 6, 7, 22,
                                                 23, 10, 11, 26, 27, 14, 15, 30, 31);
    }
  }
  for (int j = 0; j < 4; ++j) {
    const u32x16 p0 = __builtin_shufflevector(u[j], u[4 + j], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18,
                                              19, 20, 21, 22, 23);
    const u32x16 p1 = __builtin_shufflevector(u[j], u[4 + j], 8, 9, 10, 11, 12, 13, 14, 15, 24,
                                              25, 26, 27, 28, 29, 30, 31);
    const u32x16 q0 = __builtin_shufflevector(u[8 + j], u[12 + j], 0, 1, 2, 3, 4, 5, 6, 7, 16,
                                              17, 18, 19, 20, 21, 22, 23);
    const u32x16 q1 = __builtin_shufflevector(u[8 + j], u[12 + j], 8, 9, 10, 11, 12, 13, 14, 15,
                                              24, 25, 26, 27, 28, 29, 30, 31);
    x[j] = __builtin_shufflevector(p0, q0, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26,
                                   27);
    x[4 + j] = __builtin_shufflevector(p0, q0, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28,
                                       29, 30, 31);
    x[8 + j] = __builtin_shufflevector(p1, q1, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25,
                                       26, 27);
    x[12 + j] = __builtin_shufflevector(p1, q1, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28,
                                        29, 30, 31);
  }
}

SION_SIMD_INLINE void transpose(u64x4* x) {
  const u64x4 t0 = __builtin_shufflevector(x[0], x[1], 0, 4, 2, 6);
  const u64x4 t1 = __builtin_shufflevector(x[0], x[1], 1, 5, 3, 7);
  const u64x4 t2 = __builtin_shufflevector(x[2], x[3], 0, 4, 2, 6);
  const u64x4 t3 = __builtin_shufflevector(x[2], x[3], 1, 5, 3, 7);
  x[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  x[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  x[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  x[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

SION_SIMD_INLINE void transpose(u64x8* x) {
  u64x8 t[8];  // t[2i + j], chunk k: word 2k + j of lanes 2i, 2i + 1
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(x[i], x[i + 1], 0, 8, 2, 10, 4, 12, 6, 14);
    t[i + 1] = __builtin_shufflevector(x[i], x[i + 1], 1, 9, 3, 11, 5, 13, 7, 15);
  }
  for (int j = 0; j < 2; ++j) {
    const u64x8 p0 = __builtin_shufflevector(t[j], t[2 + j], 0, 1, 2, 3, 8, 9, 10, 11);
    const u64x8 p1 = __builtin_shufflevector(t[j], t[2 + j], 4, 5, 6, 7, 12, 13, 14, 15);
    const u64x8 q0 = __builtin_shufflevector(t[4 + j], t[6 + j], 0, 1, 2, 3, 8, 9, 10, 11);
    const u64x8 q1 = __builtin_shufflevector(t[4 + j], t[6 + j], 4, 5, 6, 7, 12, 13, 14, 15);
    x[j] = __builtin_shufflevector(p0, q0, 0, 1, 4, 5, 8, 9, 12, 13);
    x[2 + j] = __builtin_shufflevector(p0, q0, 2, 3, 6, 7, 10, 11, 14, 15);
    x[4 + j] = __builtin_shufflevector(p1, q1, 0, 1, 4, 5, 8, 9, 12, 13);
    x[6 + j] = __builtin_shufflevector(p1, q1, 2, 3, 6, 7, 10, 11, 14, 15);
  }
}

// Byte order (FIPS 180-4, Sec. 3.1): big-endian words in memory to and
// from the little-endian lanes of the vector, in place.
typedef std::uint8_t u8x32 __attribute__((vector_size(32)));
typedef std::uint8_t u8x64 __attribute__((vector_size(64)));

SION_SIMD_INLINE void byte_swap(u32x8* x) {
  const u8x32 b = (u8x32)*x;
  const u8x32 r = __builtin_shufflevector(b, b, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13,
                                          12, 19, 18, 17, 16, 23, 22, 21, 20, 27, 26, 25, 24, 31,
                                          30, 29, 28);
  *x = (u32x8)r;
}
SION_SIMD_INLINE void byte_swap(u32x16* x) {
  const u8x64 b = (u8x64)*x;
  const u8x64 r = __builtin_shufflevector(
      b, b, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 19, 18, 17, 16, 23, 22, 21, 20,
      27, 26, 25, 24, 31, 30, 29, 28, 35, 34, 33, 32, 39, 38, 37, 36, 43, 42, 41, 40, 47, 46, 45,
      44, 51, 50, 49, 48, 55, 54, 53, 52, 59, 58, 57, 56, 63, 62, 61, 60);
  *x = (u32x16)r;
}
SION_SIMD_INLINE void byte_swap(u64x4* x) {
  const u8x32 b = (u8x32)*x;
  const u8x32 r = __builtin_shufflevector(b, b, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9,
                                          8, 23, 22, 21, 20, 19, 18, 17, 16, 31, 30, 29, 28, 27,
                                          26, 25, 24);
  *x = (u64x4)r;
}
SION_SIMD_INLINE void byte_swap(u64x8* x) {
  const u8x64 b = (u8x64)*x;
  const u8x64 r = __builtin_shufflevector(
      b, b, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 23, 22, 21, 20, 19, 18, 17, 16,
      31, 30, 29, 28, 27, 26, 25, 24, 39, 38, 37, 36, 35, 34, 33, 32, 47, 46, 45, 44, 43, 42, 41,
      40, 55, 54, 53, 52, 51, 50, 49, 48, 63, 62, 61, 60, 59, 58, 57, 56);
  *x = (u64x8)r;
}

// Loads block `blk` of every lane as message words: w[t] = word t of the
// block of lanes 0..L-1 (L = lanes per vector).
template <class V>
SION_SIMD_INLINE void load_message(V* w, const std::uint8_t* const* data, std::size_t blk) {
  constexpr std::size_t kLanes = sizeof(V) / sizeof(w[0][0]);
  constexpr std::size_t kWordBytes = sizeof(w[0][0]);
  constexpr std::size_t kBlockBytes = 16 * kWordBytes;
  constexpr std::size_t kGroups = 16 / kLanes;  // L x L transposes per block
  for (std::size_t g = 0; g < kGroups; ++g) {
    V x[kLanes];
    for (std::size_t l = 0; l < kLanes; ++l) {
      load(&x[l], data[l] + blk * kBlockBytes + g * kLanes * kWordBytes);
    }
    transpose(x);
    for (std::size_t i = 0; i < kLanes; ++i) {
      byte_swap(&x[i]);
      w[g * kLanes + i] = x[i];
    }
  }
}

}  // namespace sion::crypto::detail::simd
