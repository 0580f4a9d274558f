// AVX2 kernels of sion/crypto/detail/mldsa_poly.hpp: eight 32-bit
// coefficients per __m256i. The algorithms are mldsa_simd.hpp's, written
// once for AVX2 and AVX-512; this file supplies the AVX2 operations, the
// NTT's outer layers (which depend on the register count) and BitUnpack.
// Every function is compiled for AVX2 through a function-level target
// attribute (no -mavx2 anywhere), and is reached only through kAvx2Kernels
// / kAvx512Kernels, which kernels() hands out when cpu_features() reports
// AVX2.
//
// Constant time: no branch or memory index depends on coefficient values.

#include <cstring>

#define SION_AVX2 __attribute__((target("avx2")))
#define SION_MLDSA_SIMD_TARGET SION_AVX2
#include "mldsa_simd.hpp"

namespace sion::crypto::mldsa::detail {

#if defined(__x86_64__)

namespace {

// ---- Rejection sampling table ---------------------------------------------

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

// ---- The vector operations of mldsa_simd.hpp --------------------------------

struct Avx2 {
  using Vec = __m256i;
  static constexpr int kLanes = 8;

  SION_AVX2 static Vec load(const std::int32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
  SION_AVX2 static void store(std::int32_t* p, Vec v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  SION_AVX2 static Vec set1(std::int32_t x) { return _mm256_set1_epi32(x); }
  SION_AVX2 static Vec zero() { return _mm256_setzero_si256(); }
  SION_AVX2 static Vec add(Vec a, Vec b) { return _mm256_add_epi32(a, b); }
  SION_AVX2 static Vec sub(Vec a, Vec b) { return _mm256_sub_epi32(a, b); }
  SION_AVX2 static Vec add64(Vec a, Vec b) { return _mm256_add_epi64(a, b); }
  SION_AVX2 static Vec sub64(Vec a, Vec b) { return _mm256_sub_epi64(a, b); }
  SION_AVX2 static Vec mul(Vec a, Vec b) { return _mm256_mul_epi32(a, b); }
  SION_AVX2 static Vec mulu(Vec a, Vec b) { return _mm256_mul_epu32(a, b); }
  SION_AVX2 static Vec mullo(Vec a, Vec b) { return _mm256_mullo_epi32(a, b); }
  SION_AVX2 static Vec srli64(Vec a, int n) { return _mm256_srli_epi64(a, n); }
  SION_AVX2 static Vec srli(Vec a, int n) { return _mm256_srli_epi32(a, n); }
  SION_AVX2 static Vec srai(Vec a, int n) { return _mm256_srai_epi32(a, n); }
  SION_AVX2 static Vec bit_and(Vec a, Vec b) { return _mm256_and_si256(a, b); }
  SION_AVX2 static Vec bit_or(Vec a, Vec b) { return _mm256_or_si256(a, b); }
  SION_AVX2 static Vec bit_xor(Vec a, Vec b) { return _mm256_xor_si256(a, b); }
  SION_AVX2 static Vec and_not(Vec a, Vec b) { return _mm256_andnot_si256(a, b); }
  SION_AVX2 static Vec abs(Vec a) { return _mm256_abs_epi32(a); }
  SION_AVX2 static Vec blend_odd(Vec a, Vec b) { return _mm256_blend_epi32(a, b, 0xaa); }
  SION_AVX2 static Vec blend_odd_sub(Vec r, Vec a, Vec b) {
    return _mm256_blend_epi32(r, _mm256_sub_epi32(a, b), 0xaa);
  }
  SION_AVX2 static Vec or3(Vec a, Vec b, Vec c) { return _mm256_or_si256(_mm256_or_si256(a, b), c); }
  SION_AVX2 static Vec positive(Vec a) { return _mm256_cmpgt_epi32(a, _mm256_setzero_si256()); }
  SION_AVX2 static std::uint32_t sign_bits(Vec a) {
    return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(a)));
  }
  SION_AVX2 static std::int32_t sum(Vec v) {
    __m128i x = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0x4e));
    x = _mm_add_epi32(x, _mm_shuffle_epi32(x, 0xb1));
    return _mm_cvtsi128_si32(x);
  }

  // Exchange of s-lane blocks (mldsa_simd.hpp, make_ntt_tables).
  template <int s>
  SION_AVX2 static void exchange(Vec& x, Vec& y) {
    Vec lo, hi;
    if constexpr (s == 4) {
      lo = _mm256_permute2x128_si256(x, y, 0x20);
      hi = _mm256_permute2x128_si256(x, y, 0x31);
    } else if constexpr (s == 2) {
      lo = _mm256_unpacklo_epi64(x, y);
      hi = _mm256_unpackhi_epi64(x, y);
    } else {
      static_assert(s == 1);
      lo = _mm256_blend_epi32(x, _mm256_slli_epi64(y, 32), 0xaa);
      hi = _mm256_blend_epi32(_mm256_srli_epi64(x, 32), y, 0xaa);
    }
    x = lo;
    y = hi;
  }

  // Stores the candidates below q to out[0, 8), in order; returns how many.
  SION_AVX2 static std::size_t compress_below_q(std::int32_t* out, Vec cand) {
    const Vec good = _mm256_cmpgt_epi32(_mm256_set1_epi32(kQ), cand);
    const auto mask = static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(good)));
    const Vec idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(kCompress.idx[mask])));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permutevar8x32_epi32(cand, idx));
    return static_cast<std::size_t>(__builtin_popcount(mask));
  }
};

// The shared algorithms, for this ISA.
using namespace simd;
using V = Avx2;

// ---- NTT: 32 vectors in 16 registers, so the layers go in blocks ----------

SION_AVX2 void ntt_avx2(Poly& a) noexcept {
  std::int32_t* c = a.c.data();
  // Layers len = 128, 64, 32: four passes over the eight vectors
  // c[8o + 32k ..], k = 0..7. Vector k holds coefficients 32k + 8o + lane.
  for (std::size_t o = 0; o < 4; ++o) {
    __m256i v[8];
    for (std::size_t k = 0; k < 8; ++k) v[k] = V::load(c + 8 * o + 32 * k);
    for (std::size_t k = 0; k < 4; ++k) {
      ct<V>(v[k], v[k + 4], mont_mul_const<V>(v[k + 4], kZetas[1]));
    }
    ct<V>(v[0], v[2], mont_mul_const<V>(v[2], kZetas[2]));
    ct<V>(v[1], v[3], mont_mul_const<V>(v[3], kZetas[2]));
    ct<V>(v[4], v[6], mont_mul_const<V>(v[6], kZetas[3]));
    ct<V>(v[5], v[7], mont_mul_const<V>(v[7], kZetas[3]));
    for (std::size_t k = 0; k < 8; k += 2) {
      ct<V>(v[k], v[k + 1], mont_mul_const<V>(v[k + 1], kZetas[4 + k / 2]));
    }
    for (std::size_t k = 0; k < 8; ++k) V::store(c + 8 * o + 32 * k, v[k]);
  }
  // Layers len = 16, 8 on the four vectors of 32 coefficients 32g.., then
  // len = 4, 2, 1 inside the pairs (v0, v1) and (v2, v3).
  for (std::size_t g = 0; g < 8; ++g) {
    std::int32_t* base = c + 32 * g;
    __m256i v0 = V::load(base), v1 = V::load(base + 8);
    __m256i v2 = V::load(base + 16), v3 = V::load(base + 24);
    const std::int32_t z16 = kZetas[8 + g];
    ct<V>(v0, v2, mont_mul_const<V>(v2, z16));
    ct<V>(v1, v3, mont_mul_const<V>(v3, z16));
    ct<V>(v0, v1, mont_mul_const<V>(v1, kZetas[16 + 2 * g]));
    ct<V>(v2, v3, mont_mul_const<V>(v3, kZetas[17 + 2 * g]));
    ntt_pair<V>(v0, v1, kTables<V>.forward[2 * g]);
    ntt_pair<V>(v2, v3, kTables<V>.forward[2 * g + 1]);
    V::store(base, v0);
    V::store(base + 8, v1);
    V::store(base + 16, v2);
    V::store(base + 24, v3);
  }
}

SION_AVX2 void invntt_avx2(Poly& a) noexcept {
  std::int32_t* c = a.c.data();
  // Layers len = 1, 2, 4 inside pairs, then len = 8, 16 on four vectors.
  for (std::size_t g = 0; g < 8; ++g) {
    std::int32_t* base = c + 32 * g;
    __m256i v0 = V::load(base), v1 = V::load(base + 8);
    __m256i v2 = V::load(base + 16), v3 = V::load(base + 24);
    invntt_pair<V>(v0, v1, kTables<V>.inverse[2 * g]);
    invntt_pair<V>(v2, v3, kTables<V>.inverse[2 * g + 1]);
    v1 = mont_mul_const<V>(gs<V>(v0, v1), -kZetas[31 - 2 * g]);
    v3 = mont_mul_const<V>(gs<V>(v2, v3), -kZetas[30 - 2 * g]);
    const std::int32_t z16 = -kZetas[15 - g];
    v2 = mont_mul_const<V>(gs<V>(v0, v2), z16);
    v3 = mont_mul_const<V>(gs<V>(v1, v3), z16);
    V::store(base, v0);
    V::store(base + 8, v1);
    V::store(base + 16, v2);
    V::store(base + 24, v3);
  }
  // Layers len = 32, 64, and 128 with the final factor merged in.
  for (std::size_t o = 0; o < 4; ++o) {
    __m256i v[8];
    for (std::size_t k = 0; k < 8; ++k) v[k] = V::load(c + 8 * o + 32 * k);
    for (std::size_t k = 0; k < 8; k += 2) {
      v[k + 1] = mont_mul_const<V>(gs<V>(v[k], v[k + 1]), -kZetas[7 - k / 2]);
    }
    v[2] = mont_mul_const<V>(gs<V>(v[0], v[2]), -kZetas[3]);
    v[3] = mont_mul_const<V>(gs<V>(v[1], v[3]), -kZetas[3]);
    v[6] = mont_mul_const<V>(gs<V>(v[4], v[6]), -kZetas[2]);
    v[7] = mont_mul_const<V>(gs<V>(v[5], v[7]), -kZetas[2]);
    for (std::size_t k = 0; k < 4; ++k) {
      v[k + 4] = mont_mul_const<V>(gs<V>(v[k], v[k + 4]), kInvNttFactorZeta);
      v[k] = mont_mul_const<V>(v[k], kInvNttFactor);
    }
    for (std::size_t k = 0; k < 8; ++k) V::store(c + 8 * o + 32 * k, v[k]);
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
  const __m256i spread = bits == 18 ? _mm256_setr_epi8(0, 1, 2, -1, 2, 3, 4, -1, 4, 5, 6, -1, 6, 7, 8, -1,  //
                                                       0, 1, 2, -1, 2, 3, 4, -1, 4, 5, 6, -1, 6, 7, 8, -1)
                                    : _mm256_setr_epi8(0, 1, 2, -1, 2, 3, 4, -1, 5, 6, 7, -1, 7, 8, 9, -1,  //
                                                       0, 1, 2, -1, 2, 3, 4, -1, 5, 6, 7, -1, 7, 8, 9, -1);
  const __m256i shift =
      bits == 18 ? _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6) : _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
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
      bytes = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(tmp + group), reinterpret_cast<const __m128i*>(tmp));
    }
    __m256i v = _mm256_shuffle_epi8(bytes, spread);
    v = _mm256_and_si256(_mm256_srlv_epi32(v, shift), mask);
    V::store(z.c.data() + i, _mm256_sub_epi32(gamma1, v));
  }
}

}  // namespace

// For kAvx512Kernels too.
void unpack_gamma1_17_avx2(Poly& z, const std::uint8_t* in) noexcept { unpack_gamma1_avx2<17>(z, in); }
void unpack_gamma1_19_avx2(Poly& z, const std::uint8_t* in) noexcept { unpack_gamma1_avx2<19>(z, in); }

const Kernels kAvx2Kernels = {
    "avx2",
    4,
    &ntt_avx2,
    &invntt_avx2,
    &simd::pointwise_montgomery<Avx2>,
    &simd::pointwise_acc_montgomery<Avx2>,
    &simd::poly_reduce<Avx2>,
    &simd::poly_freeze<Avx2>,
    &simd::poly_add_check_norm<Avx2>,
    &simd::rej_uniform<Avx2>,
    &unpack_gamma1_17_avx2,
    &unpack_gamma1_19_avx2,
    simd::kRounding<Avx2, (kQ - 1) / 88>,
    simd::kRounding<Avx2, (kQ - 1) / 32>,
};

#else  // not x86-64: kernels() never hands these out

const Kernels kAvx2Kernels = kPortableKernels;

#endif

}  // namespace sion::crypto::mldsa::detail
