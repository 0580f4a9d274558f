// AVX2 kernels of sion/crypto/detail/mldsa_poly.hpp: eight 32-bit
// coefficients per __m256i. Every function is compiled for AVX2 through a
// function-level target attribute (no -mavx2 anywhere), and is reached only
// through kAvx2Kernels / kAvx512Kernels, which kernels() hands out when
// cpu_features() reports AVX2.
//
// Each kernel performs the same operations as its portable twin in
// mldsa_poly.cpp, in the same order per coefficient, so the results are
// bit-identical (the tests compare them). Montgomery products use
// _mm256_mul_epi32 on the even and the odd lanes separately: the 64-bit
// product p = a * b and t = (a * b * q^-1 mod 2^32) * q agree in their low
// 32 bits, so the high half of p - t is montgomery_reduce(a * b).
//
// Constant time: no branch or memory index depends on coefficient values.

#include "sion/crypto/detail/mldsa_poly.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

// GCC 12's AVX-512 intrinsics pass _mm512_undefined_epi32() and the like, a
// deliberately self-initialised value that -Wuninitialized reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace sion::crypto::mldsa::detail {

#if defined(__x86_64__)

namespace {

#define SION_AVX2 __attribute__((target("avx2")))

// ---- Twiddle tables for the three layers inside a vector pair --------------
//
// The last three layers of the NTT (len = 4, 2, 1) and the first three of the
// inverse pair coefficients that share a vector. They run on two vectors
// x, y holding 16 consecutive coefficients c0..c15 (pair p: c0 = 16p),
// rearranged so that partners sit in the same lane of two vectors:
//   len 4:  X  = c0 c1 c2 c3 c8 c9 c10 c11,   Y  = c4..c7, c12..c15
//   len 2:  X' = c0 c1 c4 c5 c8 c9 c12 c13,   Y' = c2 c3 c6 c7 c10 c11 c14 c15
//   len 1:  X" = c0 c2 c4 c6 c8 c10 c12 c14,  Y" = c1 c3 ... c15
// Each step is its own inverse: (x, y) <-> (X, Y) <-> (X', Y') <-> (X", Y").
// The tables give, per pair and layer, the twiddle of each lane of X, X', X"
// and its q^-1 multiple.

struct alignas(32) PairTwiddles {
  std::int32_t zeta[3][8];  // [layer: len 4, 2, 1][lane]
  std::int32_t zeta_qinv[3][8];
};

struct alignas(32) NttTables {
  PairTwiddles forward[16];
  PairTwiddles inverse[16];
};

// The index of the lower coefficient of each lane of X, X', X" in a pair,
// relative to its first coefficient.
constexpr int kLaneCoeff[3][8] = {
    {0, 1, 2, 3, 8, 9, 10, 11},
    {0, 1, 4, 5, 8, 9, 12, 13},
    {0, 2, 4, 6, 8, 10, 12, 14},
};

constexpr NttTables make_ntt_tables() {
  NttTables t{};
  for (int p = 0; p < 16; ++p) {
    for (int layer = 0; layer < 3; ++layer) {
      const int len = 4 >> layer;
      for (int lane = 0; lane < 8; ++lane) {
        const int j = 16 * p + kLaneCoeff[layer][lane];
        // Alg. 41: layer len uses zetas[256 / (2 len) + j / (2 len)];
        // Alg. 42 the negation of zetas[256 / len - 1 - j / (2 len)].
        const std::int32_t fwd = kZetas[static_cast<std::size_t>(256 / (2 * len) + j / (2 * len))];
        const std::int32_t inv =
            -kZetas[static_cast<std::size_t>(256 / len - 1 - j / (2 * len))];
        t.forward[p].zeta[layer][lane] = fwd;
        t.forward[p].zeta_qinv[layer][lane] = mont_qinv_factor(fwd);
        t.inverse[p].zeta[layer][lane] = inv;
        t.inverse[p].zeta_qinv[layer][lane] = mont_qinv_factor(inv);
      }
    }
  }
  return t;
}

constexpr NttTables kTables = make_ntt_tables();

// ---- Vector helpers ------------------------------------------------------

SION_AVX2 inline __m256i load(const std::int32_t* p) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
}

SION_AVX2 inline void store(std::int32_t* p, __m256i v) {
  _mm256_store_si256(reinterpret_cast<__m256i*>(p), v);
}

// montgomery_reduce(a * b) per lane, given b and b_qinv = b q^-1 mod 2^32.
// b_odd / bq_odd hold b and b_qinv of the odd lanes in the even positions
// (the same vectors when b is a broadcast).
SION_AVX2 inline __m256i mont_mul(__m256i a, __m256i b, __m256i b_qinv, __m256i b_odd,
                                  __m256i bq_odd) {
  const __m256i q = _mm256_set1_epi32(kQ);
  const __m256i a_odd = _mm256_srli_epi64(a, 32);
  __m256i p_even = _mm256_mul_epi32(a, b);
  __m256i p_odd = _mm256_mul_epi32(a_odd, b_odd);
  __m256i t_even = _mm256_mul_epi32(a, b_qinv);
  __m256i t_odd = _mm256_mul_epi32(a_odd, bq_odd);
  t_even = _mm256_mul_epi32(t_even, q);
  t_odd = _mm256_mul_epi32(t_odd, q);
  p_even = _mm256_srli_epi64(_mm256_sub_epi64(p_even, t_even), 32);
  p_odd = _mm256_sub_epi64(p_odd, t_odd);
  return _mm256_blend_epi32(p_even, p_odd, 0xaa);
}

// With a twiddle that is the same in every lane.
SION_AVX2 inline __m256i mont_mul_const(__m256i a, std::int32_t zeta) {
  const __m256i z = _mm256_set1_epi32(zeta);
  const __m256i zq = _mm256_set1_epi32(mont_qinv_factor(zeta));
  return mont_mul(a, z, zq, z, zq);
}

// With per-lane twiddles.
SION_AVX2 inline __m256i mont_mul_lanes(__m256i a, const std::int32_t* zeta,
                                        const std::int32_t* zeta_qinv) {
  const __m256i z = load(zeta);
  const __m256i zq = load(zeta_qinv);
  return mont_mul(a, z, zq, _mm256_srli_epi64(z, 32), _mm256_srli_epi64(zq, 32));
}

// montgomery_reduce of 64-bit values: the even lanes of `even` and of `odd`
// (the odd coefficients), merged back into one vector of eight.
SION_AVX2 inline __m256i mont_reduce64(__m256i even, __m256i odd) {
  const __m256i q = _mm256_set1_epi32(kQ);
  const __m256i qinv = _mm256_set1_epi32(static_cast<std::int32_t>(kQInv));
  const __m256i t_even = _mm256_mul_epi32(_mm256_mul_epu32(even, qinv), q);
  const __m256i t_odd = _mm256_mul_epi32(_mm256_mul_epu32(odd, qinv), q);
  even = _mm256_srli_epi64(_mm256_sub_epi64(even, t_even), 32);
  odd = _mm256_sub_epi64(odd, t_odd);
  return _mm256_blend_epi32(even, odd, 0xaa);
}

// Cooley-Tukey butterfly (Alg. 41): t = zeta b; b = a - t; a = a + t.
SION_AVX2 inline void ct(__m256i& a, __m256i& b, __m256i t) {
  b = _mm256_sub_epi32(a, t);
  a = _mm256_add_epi32(a, t);
}

// Gentleman-Sande butterfly (Alg. 42) up to the product: returns a - b and
// sets a = a + b.
SION_AVX2 inline __m256i gs(__m256i& a, __m256i b) {
  const __m256i d = _mm256_sub_epi32(a, b);
  a = _mm256_add_epi32(a, b);
  return d;
}

// The three rearrangements of a pair (see the tables above); each is its own
// inverse.
SION_AVX2 inline void swap128(__m256i& x, __m256i& y) {
  const __m256i lo = _mm256_permute2x128_si256(x, y, 0x20);
  const __m256i hi = _mm256_permute2x128_si256(x, y, 0x31);
  x = lo;
  y = hi;
}

SION_AVX2 inline void swap64(__m256i& x, __m256i& y) {
  const __m256i lo = _mm256_unpacklo_epi64(x, y);
  const __m256i hi = _mm256_unpackhi_epi64(x, y);
  x = lo;
  y = hi;
}

SION_AVX2 inline void swap32(__m256i& x, __m256i& y) {
  const __m256i lo = _mm256_blend_epi32(x, _mm256_slli_epi64(y, 32), 0xaa);
  const __m256i hi = _mm256_blend_epi32(_mm256_srli_epi64(x, 32), y, 0xaa);
  x = lo;
  y = hi;
}

// Forward layers len = 4, 2, 1 on the pair (x, y) = coefficients 16p..16p+15.
SION_AVX2 inline void ntt_pair(__m256i& x, __m256i& y, const PairTwiddles& tw) {
  swap128(x, y);
  ct(x, y, mont_mul_lanes(y, tw.zeta[0], tw.zeta_qinv[0]));
  swap64(x, y);
  ct(x, y, mont_mul_lanes(y, tw.zeta[1], tw.zeta_qinv[1]));
  swap32(x, y);
  ct(x, y, mont_mul_lanes(y, tw.zeta[2], tw.zeta_qinv[2]));
  swap32(x, y);
  swap64(x, y);
  swap128(x, y);
}

// Inverse layers len = 1, 2, 4 on a pair.
SION_AVX2 inline void invntt_pair(__m256i& x, __m256i& y, const PairTwiddles& tw) {
  swap128(x, y);
  swap64(x, y);
  swap32(x, y);
  y = mont_mul_lanes(gs(x, y), tw.zeta[2], tw.zeta_qinv[2]);
  swap32(x, y);
  y = mont_mul_lanes(gs(x, y), tw.zeta[1], tw.zeta_qinv[1]);
  swap64(x, y);
  y = mont_mul_lanes(gs(x, y), tw.zeta[0], tw.zeta_qinv[0]);
  swap128(x, y);
}

SION_AVX2 void ntt_avx2(Poly& a) noexcept {
  std::int32_t* c = a.c.data();
  // Layers len = 128, 64, 32: four passes over the eight vectors
  // c[8o + 32k ..], k = 0..7. Vector k holds coefficients 32k + 8o + lane.
  for (std::size_t o = 0; o < 4; ++o) {
    __m256i v[8];
    for (std::size_t k = 0; k < 8; ++k) v[k] = load(c + 8 * o + 32 * k);
    for (std::size_t k = 0; k < 4; ++k) ct(v[k], v[k + 4], mont_mul_const(v[k + 4], kZetas[1]));
    ct(v[0], v[2], mont_mul_const(v[2], kZetas[2]));
    ct(v[1], v[3], mont_mul_const(v[3], kZetas[2]));
    ct(v[4], v[6], mont_mul_const(v[6], kZetas[3]));
    ct(v[5], v[7], mont_mul_const(v[7], kZetas[3]));
    for (std::size_t k = 0; k < 8; k += 2) {
      ct(v[k], v[k + 1], mont_mul_const(v[k + 1], kZetas[4 + k / 2]));
    }
    for (std::size_t k = 0; k < 8; ++k) store(c + 8 * o + 32 * k, v[k]);
  }
  // Layers len = 16, 8 on the four vectors of 32 coefficients 32g.., then
  // len = 4, 2, 1 inside the pairs (v0, v1) and (v2, v3).
  for (std::size_t g = 0; g < 8; ++g) {
    std::int32_t* base = c + 32 * g;
    __m256i v0 = load(base), v1 = load(base + 8), v2 = load(base + 16), v3 = load(base + 24);
    const std::int32_t z16 = kZetas[8 + g];
    ct(v0, v2, mont_mul_const(v2, z16));
    ct(v1, v3, mont_mul_const(v3, z16));
    ct(v0, v1, mont_mul_const(v1, kZetas[16 + 2 * g]));
    ct(v2, v3, mont_mul_const(v3, kZetas[17 + 2 * g]));
    ntt_pair(v0, v1, kTables.forward[2 * g]);
    ntt_pair(v2, v3, kTables.forward[2 * g + 1]);
    store(base, v0);
    store(base + 8, v1);
    store(base + 16, v2);
    store(base + 24, v3);
  }
}

SION_AVX2 void invntt_avx2(Poly& a) noexcept {
  std::int32_t* c = a.c.data();
  // Layers len = 1, 2, 4 inside pairs, then len = 8, 16 on four vectors.
  for (std::size_t g = 0; g < 8; ++g) {
    std::int32_t* base = c + 32 * g;
    __m256i v0 = load(base), v1 = load(base + 8), v2 = load(base + 16), v3 = load(base + 24);
    invntt_pair(v0, v1, kTables.inverse[2 * g]);
    invntt_pair(v2, v3, kTables.inverse[2 * g + 1]);
    v1 = mont_mul_const(gs(v0, v1), -kZetas[31 - 2 * g]);
    v3 = mont_mul_const(gs(v2, v3), -kZetas[30 - 2 * g]);
    const std::int32_t z16 = -kZetas[15 - g];
    v2 = mont_mul_const(gs(v0, v2), z16);
    v3 = mont_mul_const(gs(v1, v3), z16);
    store(base, v0);
    store(base + 8, v1);
    store(base + 16, v2);
    store(base + 24, v3);
  }
  // Layers len = 32, 64, and 128 with the final factor merged in.
  for (std::size_t o = 0; o < 4; ++o) {
    __m256i v[8];
    for (std::size_t k = 0; k < 8; ++k) v[k] = load(c + 8 * o + 32 * k);
    for (std::size_t k = 0; k < 8; k += 2) {
      v[k + 1] = mont_mul_const(gs(v[k], v[k + 1]), -kZetas[7 - k / 2]);
    }
    v[2] = mont_mul_const(gs(v[0], v[2]), -kZetas[3]);
    v[3] = mont_mul_const(gs(v[1], v[3]), -kZetas[3]);
    v[6] = mont_mul_const(gs(v[4], v[6]), -kZetas[2]);
    v[7] = mont_mul_const(gs(v[5], v[7]), -kZetas[2]);
    for (std::size_t k = 0; k < 4; ++k) {
      v[k + 4] = mont_mul_const(gs(v[k], v[k + 4]), kInvNttFactorZeta);
      v[k] = mont_mul_const(v[k], kInvNttFactor);
    }
    for (std::size_t k = 0; k < 8; ++k) store(c + 8 * o + 32 * k, v[k]);
  }
}

SION_AVX2 void pointwise_montgomery_avx2(Poly& out, const Poly& a, const Poly& b) noexcept {
  for (std::size_t i = 0; i < kN; i += 8) {
    const __m256i x = load(a.c.data() + i);
    const __m256i y = load(b.c.data() + i);
    const __m256i even = _mm256_mul_epi32(x, y);
    const __m256i odd = _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32));
    store(out.c.data() + i, mont_reduce64(even, odd));
  }
}

SION_AVX2 void pointwise_acc_montgomery_avx2(Poly& out, const Poly* a, const Poly* b,
                                             std::size_t n) noexcept {
  for (std::size_t i = 0; i < kN; i += 8) {
    __m256i even = _mm256_setzero_si256();
    __m256i odd = _mm256_setzero_si256();
    for (std::size_t j = 0; j < n; ++j) {
      const __m256i x = load(a[j].c.data() + i);
      const __m256i y = load(b[j].c.data() + i);
      even = _mm256_add_epi64(even, _mm256_mul_epi32(x, y));
      odd = _mm256_add_epi64(
          odd, _mm256_mul_epi32(_mm256_srli_epi64(x, 32), _mm256_srli_epi64(y, 32)));
    }
    store(out.c.data() + i, mont_reduce64(even, odd));
  }
}

// reduce32: a - round(a / 2^23) q.
SION_AVX2 inline __m256i reduce32_v(__m256i a) {
  const __m256i t = _mm256_srai_epi32(_mm256_add_epi32(a, _mm256_set1_epi32(1 << 22)), 23);
  return _mm256_sub_epi32(a, _mm256_mullo_epi32(t, _mm256_set1_epi32(kQ)));
}

// caddq: a + q where a < 0.
SION_AVX2 inline __m256i caddq_v(__m256i a) {
  return _mm256_add_epi32(a, _mm256_and_si256(_mm256_srai_epi32(a, 31), _mm256_set1_epi32(kQ)));
}

SION_AVX2 void poly_reduce_avx2(Poly& a) noexcept {
  for (std::size_t i = 0; i < kN; i += 8) store(a.c.data() + i, reduce32_v(load(a.c.data() + i)));
}

SION_AVX2 void poly_freeze_avx2(Poly& a) noexcept {
  for (std::size_t i = 0; i < kN; i += 8) {
    store(a.c.data() + i, caddq_v(reduce32_v(load(a.c.data() + i))));
  }
}

SION_AVX2 inline __m256i freeze_v(__m256i a) { return caddq_v(reduce32_v(a)); }

// center: a - q where a > (q - 1) / 2, for a in [0, q).
SION_AVX2 inline __m256i center_v(__m256i a) {
  const __m256i over = _mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32((kQ - 1) / 2), a), 31);
  return _mm256_sub_epi32(a, _mm256_and_si256(over, _mm256_set1_epi32(kQ)));
}

// 0 if no lane of `mask` is set, else all ones; arithmetic, not a flag
// test, so that the result stays secret until the caller declassifies it.
SION_AVX2 inline std::int32_t any_lane(__m256i mask) {
  const auto bits = static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(mask)));
  return -static_cast<std::int32_t>((0U - bits) >> 31);
}

SION_AVX2 inline std::int32_t sum_lanes(__m256i v) {
  __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
  x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
  return _mm_cvtsi128_si32(x);
}

// Decompose (Alg. 36) per lane for r in [0, q), the same steps as the
// scalar decompose<kGamma2>(): floor(r / 2 gamma2) by a multiplication with
// the rounded-up reciprocal 2^48 / m (64-bit products on even and odd
// lanes), then the centring and the wrap of the top value.
template <std::int32_t kGamma2>
SION_AVX2 inline void decompose_v(__m256i r, __m256i& high, __m256i& low) {
  constexpr std::int32_t m = 2 * kGamma2;
  constexpr std::int32_t top = (kQ - 1) / m;
  constexpr std::uint64_t recip = ((std::uint64_t{1} << 48) + m - 1) / m;
  static_assert(recip < (std::uint64_t{1} << 31));
  const __m256i vrecip = _mm256_set1_epi32(static_cast<std::int32_t>(recip));
  const __m256i p_even = _mm256_mul_epu32(r, vrecip);
  const __m256i p_odd = _mm256_mul_epu32(_mm256_srli_epi64(r, 32), vrecip);
  // Even lanes: bits 48.. of the product, in the low half. Odd: shifted by
  // 16, the high half is bits 48..79 (the product is below 2^54).
  __m256i h = _mm256_blend_epi32(_mm256_srli_epi64(p_even, 48), _mm256_srli_epi64(p_odd, 16), 0xaa);
  __m256i l = _mm256_sub_epi32(r, _mm256_mullo_epi32(h, _mm256_set1_epi32(m)));
  const __m256i over = _mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32(kGamma2), l), 31);
  l = _mm256_sub_epi32(l, _mm256_and_si256(over, _mm256_set1_epi32(m)));
  h = _mm256_sub_epi32(h, over);
  const __m256i wrap = _mm256_srai_epi32(
      _mm256_sub_epi32(_mm256_xor_si256(h, _mm256_set1_epi32(top)), _mm256_set1_epi32(1)), 31);
  high = _mm256_andnot_si256(wrap, h);
  low = _mm256_add_epi32(l, wrap);
}

template <std::int32_t kGamma2>
SION_AVX2 void poly_highbits_avx2(Poly& w1, Poly& w) noexcept {
  for (std::size_t i = 0; i < kN; i += 8) {
    const __m256i r = freeze_v(load(w.c.data() + i));
    __m256i high, low;
    decompose_v<kGamma2>(r, high, low);
    store(w.c.data() + i, r);
    store(w1.c.data() + i, high);
  }
}

SION_AVX2 std::int32_t poly_add_check_norm_avx2(Poly& z, const Poly& y,
                                                std::int32_t bound) noexcept {
  const __m256i limit = _mm256_set1_epi32(bound - 1);
  __m256i reject = _mm256_setzero_si256();
  for (std::size_t i = 0; i < kN; i += 8) {
    const __m256i v =
        center_v(freeze_v(_mm256_add_epi32(load(z.c.data() + i), load(y.c.data() + i))));
    store(z.c.data() + i, v);
    reject = _mm256_or_si256(reject, _mm256_sub_epi32(limit, _mm256_abs_epi32(v)));
  }
  return any_lane(_mm256_srai_epi32(reject, 31));
}

template <std::int32_t kGamma2>
SION_AVX2 std::int32_t poly_make_hints_avx2(Poly& h, const Poly& w, const Poly& cs2,
                                            const Poly& ct0, std::int32_t beta,
                                            std::int32_t& count) noexcept {
  const __m256i low_limit = _mm256_set1_epi32(kGamma2 - beta - 1);
  const __m256i ct0_limit = _mm256_set1_epi32(kGamma2 - 1);
  __m256i reject = _mm256_setzero_si256();
  __m256i hints = _mm256_setzero_si256();
  for (std::size_t i = 0; i < kN; i += 8) {
    const __m256i r = freeze_v(_mm256_sub_epi32(load(w.c.data() + i), load(cs2.c.data() + i)));
    __m256i r_high, r_low;
    decompose_v<kGamma2>(r, r_high, r_low);
    reject = _mm256_or_si256(reject, _mm256_sub_epi32(low_limit, _mm256_abs_epi32(r_low)));
    const __m256i ct0_c = center_v(freeze_v(load(ct0.c.data() + i)));
    reject = _mm256_or_si256(reject, _mm256_sub_epi32(ct0_limit, _mm256_abs_epi32(ct0_c)));
    __m256i s_high, s_low;
    decompose_v<kGamma2>(freeze_v(_mm256_add_epi32(r, ct0_c)), s_high, s_low);
    const __m256i diff = _mm256_xor_si256(s_high, r_high);
    const __m256i hint = _mm256_srli_epi32(
        _mm256_or_si256(diff, _mm256_sub_epi32(_mm256_setzero_si256(), diff)), 31);
    store(h.c.data() + i, hint);
    hints = _mm256_add_epi32(hints, hint);
  }
  count += sum_lanes(hints);
  return any_lane(_mm256_srai_epi32(reject, 31));
}

template <std::int32_t kGamma2>
SION_AVX2 void poly_use_hints_avx2(Poly& w1, const Poly& w, const Poly& h) noexcept {
  constexpr std::int32_t m = (kQ - 1) / (2 * kGamma2);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i vm = _mm256_set1_epi32(m);
  for (std::size_t i = 0; i < kN; i += 8) {
    __m256i high, low;
    decompose_v<kGamma2>(freeze_v(load(w.c.data() + i)), high, low);
    // +1 where low > 0, else -1; applied where h = 1; then mod m.
    const __m256i delta =
        _mm256_sub_epi32(zero, _mm256_or_si256(_mm256_cmpgt_epi32(low, zero), _mm256_set1_epi32(1)));
    const __m256i apply = _mm256_sub_epi32(zero, load(h.c.data() + i));
    __m256i v = _mm256_add_epi32(high, _mm256_and_si256(delta, apply));
    v = _mm256_add_epi32(v, _mm256_and_si256(_mm256_srai_epi32(v, 31), vm));
    v = _mm256_sub_epi32(
        v, _mm256_and_si256(_mm256_srai_epi32(_mm256_sub_epi32(_mm256_set1_epi32(m - 1), v), 31), vm));
    store(w1.c.data() + i, v);
  }
}

// ---- BitUnpack of z / y (Alg. 19) -------------------------------------------

// Four coefficients of kLog + 1 bits take 9 (kLog 17) or 10 (kLog 19) bytes;
// each 128-bit lane gets one such group, its bytes spread to 32-bit lanes
// by vpshufb, then shifted into place and masked. Reads 16 bytes from each
// group start, so the last groups of a polynomial go through a buffer.
template <int kLog>
SION_AVX2 void unpack_gamma1_avx2(Poly& z, const std::uint8_t* in) noexcept {
  constexpr int bits = kLog + 1;
  constexpr int group = bits / 2;  // bytes per four coefficients
  static_assert(bits == 18 || bits == 20);
  const __m256i spread =
      bits == 18 ? _mm256_setr_epi8(0, 1, 2, -1, 2, 3, 4, -1, 4, 5, 6, -1, 6, 7, 8, -1,  //
                                    0, 1, 2, -1, 2, 3, 4, -1, 4, 5, 6, -1, 6, 7, 8, -1)
                 : _mm256_setr_epi8(0, 1, 2, -1, 2, 3, 4, -1, 5, 6, 7, -1, 7, 8, 9, -1,  //
                                    0, 1, 2, -1, 2, 3, 4, -1, 5, 6, 7, -1, 7, 8, 9, -1);
  const __m256i shift = bits == 18 ? _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)
                                   : _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
  const __m256i mask = _mm256_set1_epi32((1 << bits) - 1);
  const __m256i gamma1 = _mm256_set1_epi32(1 << kLog);
  constexpr std::size_t total = 32 * bits;
  for (std::size_t i = 0; i < kN; i += 8) {
    const std::size_t at = i / 4 * group;  // byte offset of coefficient i
    __m256i bytes;
    if (at + group + 16 <= total) {
      bytes = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(in + at + group),
                                  reinterpret_cast<const __m128i*>(in + at));
    } else {
      alignas(16) std::uint8_t tmp[2 * group + 16] = {};
      std::memcpy(tmp, in + at, 2 * group);
      bytes = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(tmp + group),
                                  reinterpret_cast<const __m128i*>(tmp));
    }
    __m256i v = _mm256_shuffle_epi8(bytes, spread);
    v = _mm256_and_si256(_mm256_srlv_epi32(v, shift), mask);
    store(z.c.data() + i, _mm256_sub_epi32(gamma1, v));
  }
}

// ---- Rejection sampling (public data) ---------------------------------------

// For each 8-bit accept mask, the indices of the accepted lanes in order,
// then zeros.
struct alignas(64) CompressTable {
  std::uint8_t idx[256][8];
};

constexpr CompressTable make_compress_table() {
  CompressTable t{};
  for (int mask = 0; mask < 256; ++mask) {
    int n = 0;
    for (int lane = 0; lane < 8; ++lane) {
      if ((mask >> lane) & 1) t.idx[mask][n++] = static_cast<std::uint8_t>(lane);
    }
  }
  return t;
}

constexpr CompressTable kCompress = make_compress_table();

// The eight candidates of buf[0, 24) as 23-bit values (CoeffFromThreeBytes
// without the check). Reads buf[0, 32).
SION_AVX2 inline __m256i three_byte_candidates(const std::uint8_t* buf) {
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(buf));
  // Low 128-bit lane: bytes 0..15; high lane: bytes 8..23.
  const __m256i spread = _mm256_permute4x64_epi64(bytes, 0x94);
  const __m256i shuffle = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,  //
                                           4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1);
  return _mm256_and_si256(_mm256_shuffle_epi8(spread, shuffle), _mm256_set1_epi32(0x7fffff));
}

SION_AVX2 std::size_t rej_uniform_avx2(std::int32_t* out, std::size_t need,
                                       const std::uint8_t* buf, std::size_t len) noexcept {
  const __m256i q = _mm256_set1_epi32(kQ);
  std::size_t n = 0;
  std::size_t pos = 0;
  // Eight candidates at a time while eight outputs fit and 32 bytes can be
  // read; the rest one at a time.
  while (n + 8 <= need && pos + 32 <= len) {
    const __m256i cand = three_byte_candidates(buf + pos);
    const __m256i good = _mm256_cmpgt_epi32(q, cand);
    const auto mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(good)));
    const __m256i idx = _mm256_cvtepu8_epi32(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kCompress.idx[mask])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + n),
                        _mm256_permutevar8x32_epi32(cand, idx));
    n += static_cast<std::size_t>(__builtin_popcount(mask));
    pos += 24;
  }
  return n + rej_uniform(out + n, need - n, buf + pos, len - pos);
}

}  // namespace

// For kAvx512Kernels too.
void unpack_gamma1_17_avx2(Poly& z, const std::uint8_t* in) noexcept {
  unpack_gamma1_avx2<17>(z, in);
}
void unpack_gamma1_19_avx2(Poly& z, const std::uint8_t* in) noexcept {
  unpack_gamma1_avx2<19>(z, in);
}

// AVX-512VL: vpcompressd instead of the table. Used by kAvx512Kernels
// (mldsa_avx512.cpp).
__attribute__((target("avx2,avx512f,avx512vl"))) std::size_t rej_uniform_avx512(
    std::int32_t* out, std::size_t need, const std::uint8_t* buf, std::size_t len) noexcept {
  const __m256i q = _mm256_set1_epi32(kQ);
  std::size_t n = 0;
  std::size_t pos = 0;
  while (n + 8 <= need && pos + 32 <= len) {
    const __m256i cand = three_byte_candidates(buf + pos);
    const __mmask8 good = _mm256_cmplt_epi32_mask(cand, q);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + n),
                        _mm256_maskz_compress_epi32(good, cand));
    n += static_cast<std::size_t>(__builtin_popcount(good));
    pos += 24;
  }
  return n + rej_uniform(out + n, need - n, buf + pos, len - pos);
}


const Kernels kAvx2Kernels = {
    "avx2",
    4,
    &ntt_avx2,
    &invntt_avx2,
    &pointwise_montgomery_avx2,
    &pointwise_acc_montgomery_avx2,
    &poly_reduce_avx2,
    &poly_freeze_avx2,
    &poly_add_check_norm_avx2,
    &rej_uniform_avx2,
    &unpack_gamma1_17_avx2,
    &unpack_gamma1_19_avx2,
    {&poly_highbits_avx2<(kQ - 1) / 88>, &poly_make_hints_avx2<(kQ - 1) / 88>,
     &poly_use_hints_avx2<(kQ - 1) / 88>},
    {&poly_highbits_avx2<(kQ - 1) / 32>, &poly_make_hints_avx2<(kQ - 1) / 32>,
     &poly_use_hints_avx2<(kQ - 1) / 32>},
};

#else  // not x86-64: kernels() never hands these out

const Kernels kAvx2Kernels = kPortableKernels;

#endif

}  // namespace sion::crypto::mldsa::detail
