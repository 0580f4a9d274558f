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
#include <utility>

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

// The constants that tell SHA-256 and SHA-512 apart (FIPS 180-4, Sec. 4.1.2,
// 4.1.3, 4.2 and 6): word size, round count, and the rotations and shifts
// of sigma0 / sigma1 (message schedule) and Sigma0 / Sigma1 (rounds).
struct Sha256Params {
  using Word = std::uint32_t;
  static constexpr int kBits = 32;
  static constexpr int kRounds = 64;
  static constexpr int kSigma0[3] = {7, 18, 3};
  static constexpr int kSigma1[3] = {17, 19, 10};
  static constexpr int kSum0[3] = {2, 13, 22};
  static constexpr int kSum1[3] = {6, 11, 25};
};

struct Sha512Params {
  using Word = std::uint64_t;
  static constexpr int kBits = 64;
  static constexpr int kRounds = 80;
  static constexpr int kSigma0[3] = {1, 8, 7};
  static constexpr int kSigma1[3] = {19, 61, 6};
  static constexpr int kSum0[3] = {28, 34, 39};
  static constexpr int kSum1[3] = {14, 18, 41};
};

// Rounds kBegin .. kEnd - 1 (Sec. 6.2.2 / 6.4.2, steps 1 and 3) on the
// working variables v[0..7] = a..h, with the message words w[0..15] (the
// big-endian words of the block; from round 16 on, overwritten by the
// schedule as a 16-word ring). Rounds 0-15 read w[t] only, so a caller can
// run rounds 0 .. r - 1 once for blocks that share w[0..r-1]. V is a lane
// vector or, for the portable code, P::Word itself.
template <class P, int kBegin, int kEnd, class V>
SION_SIMD_INLINE void sha2_round_range(V* v, V* w, const typename P::Word* k) {
  constexpr int kBits = P::kBits;
  V a = v[0], b = v[1], c = v[2], d = v[3], e = v[4], f = v[5], g = v[6], h = v[7];
#pragma GCC unroll 80
  for (int t = kBegin; t < kEnd; ++t) {
    if (t >= 16) {  // step 1, in a 16-word ring
      const V x = w[(t - 15) & 15];
      const V y = w[(t - 2) & 15];
      const V s0 =
          SION_SIMD_ROR(x, P::kSigma0[0], kBits) ^ SION_SIMD_ROR(x, P::kSigma0[1], kBits) ^ (x >> P::kSigma0[2]);
      const V s1 =
          SION_SIMD_ROR(y, P::kSigma1[0], kBits) ^ SION_SIMD_ROR(y, P::kSigma1[1], kBits) ^ (y >> P::kSigma1[2]);
      w[t & 15] += s0 + w[(t - 7) & 15] + s1;
    }
    const V big_s1 = SION_SIMD_ROR(e, P::kSum1[0], kBits) ^ SION_SIMD_ROR(e, P::kSum1[1], kBits) ^
                     SION_SIMD_ROR(e, P::kSum1[2], kBits);
    const V big_s0 = SION_SIMD_ROR(a, P::kSum0[0], kBits) ^ SION_SIMD_ROR(a, P::kSum0[1], kBits) ^
                     SION_SIMD_ROR(a, P::kSum0[2], kBits);
    const V t1 = h + big_s1 + (g ^ (e & (f ^ g))) + k[t] + w[t & 15];  // Ch(e, f, g)
    const V t2 = big_s0 + ((a & b) | (c & (a | b)));                   // Maj(a, b, c)
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

// All rounds (Sec. 6.2.2 / 6.4.2 steps 1-4) on s[0..7] (a..h, updated by
// step 4's additions) with the message words w[0..15] (big-endian words of
// the block, already decoded; overwritten by the schedule).
template <class P, class V>
SION_SIMD_INLINE void sha2_rounds(V* s, V* w, const typename P::Word* k) {
  V v[8];
  for (int i = 0; i < 8; ++i) v[i] = s[i];
  sha2_round_range<P, 0, P::kRounds>(v, w, k);
  for (int i = 0; i < 8; ++i) s[i] += v[i];
}

template <int kBegin, int kEnd, class V>
SION_SIMD_INLINE void sha256_round_range(V* v, V* w, const std::uint32_t* k) {
  sha2_round_range<Sha256Params, kBegin, kEnd>(v, w, k);
}
template <class V>
SION_SIMD_INLINE void sha256_rounds(V* s, V* w, const std::uint32_t* k) {
  sha2_rounds<Sha256Params>(s, w, k);
}
template <class V>
SION_SIMD_INLINE void sha512_rounds(V* s, V* w, const std::uint64_t* k) {
  sha2_rounds<Sha512Params>(s, w, k);
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
    t[i] = __builtin_shufflevector(x[i], x[i + 1], 0, 16, 1, 17, 4, 20, 5, 21, 8, 24, 9, 25, 12, 28, 13, 29);
    t[i + 1] = __builtin_shufflevector(x[i], x[i + 1], 2, 18, 3, 19, 6, 22, 7, 23, 10, 26, 11, 27, 14, 30, 15, 31);
  }
  // u[4i + j], 128-bit chunk k: word 4k + j of lanes 4i..4i+3.
  u32x16 u[16];
  for (int i = 0; i < 16; i += 4) {
    for (int h = 0; h < 2; ++h) {
      u[i + 2 * h] =
          __builtin_shufflevector(t[i + h], t[i + h + 2], 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29);
      u[i + 2 * h + 1] =
          __builtin_shufflevector(t[i + h], t[i + h + 2], 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31);
    }
  }
  for (int j = 0; j < 4; ++j) {
    const u32x16 p0 = __builtin_shufflevector(u[j], u[4 + j], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    const u32x16 p1 =
        __builtin_shufflevector(u[j], u[4 + j], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    const u32x16 q0 =
        __builtin_shufflevector(u[8 + j], u[12 + j], 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    const u32x16 q1 =
        __builtin_shufflevector(u[8 + j], u[12 + j], 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31);
    x[j] = __builtin_shufflevector(p0, q0, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
    x[4 + j] = __builtin_shufflevector(p0, q0, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
    x[8 + j] = __builtin_shufflevector(p1, q1, 0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27);
    x[12 + j] = __builtin_shufflevector(p1, q1, 4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31);
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

template <class V, std::size_t... kByte>
SION_SIMD_INLINE void byte_swap(V* x, std::index_sequence<kByte...>) {
  constexpr std::size_t kWord = sizeof((*x)[0]);
  typedef std::uint8_t Bytes __attribute__((vector_size(sizeof(V))));
  const Bytes b = (Bytes)*x;
  // Byte i of the result is byte kWord - 1 - i % kWord of the same word.
  *x = (V)__builtin_shufflevector(b, b, (kByte / kWord * kWord + kWord - 1 - kByte % kWord)...);
}
template <class V>
SION_SIMD_INLINE void byte_swap(V* x) {
  byte_swap(x, std::make_index_sequence<sizeof(V)>{});
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
