// AVX-512 kernels of sion/crypto/detail/mldsa_poly.hpp: sixteen 32-bit
// coefficients per __m512i, so a polynomial is 16 vectors and a whole NTT
// runs in registers. The algorithms are mldsa_simd.hpp's, shared with
// mldsa_avx2.cpp; this file supplies the AVX-512 operations and the NTT's
// outer layers. Compiled per function with
// target("avx512f,avx512bw,avx512vl,avx512dq") (no -m flags anywhere);
// reached only through kAvx512Kernels, which kernels() hands out when
// cpu_features() reports those extensions.
//
// Nothing branches on or indexes by coefficient values.

#define SION_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq")))
#define SION_MLDSA_SIMD_TARGET SION_AVX512
#include "mldsa_simd.hpp"

namespace sion::crypto::mldsa::detail {

#if defined(__x86_64__)

namespace avx512 {
namespace {

// ---- The vector operations of mldsa_simd.hpp --------------------------------

struct Avx512 {
  using Vec = __m512i;
  static constexpr int kLanes = 16;

  SION_AVX512 static Vec load(const std::int32_t* p) { return _mm512_load_si512(p); }
  SION_AVX512 static void store(std::int32_t* p, Vec v) { _mm512_store_si512(p, v); }
  SION_AVX512 static Vec set1(std::int32_t x) { return _mm512_set1_epi32(x); }
  SION_AVX512 static Vec zero() { return _mm512_setzero_si512(); }
  SION_AVX512 static Vec add(Vec a, Vec b) { return _mm512_add_epi32(a, b); }
  SION_AVX512 static Vec sub(Vec a, Vec b) { return _mm512_sub_epi32(a, b); }
  SION_AVX512 static Vec add64(Vec a, Vec b) { return _mm512_add_epi64(a, b); }
  SION_AVX512 static Vec sub64(Vec a, Vec b) { return _mm512_sub_epi64(a, b); }
  SION_AVX512 static Vec mul(Vec a, Vec b) { return _mm512_mul_epi32(a, b); }
  SION_AVX512 static Vec mulu(Vec a, Vec b) { return _mm512_mul_epu32(a, b); }
  SION_AVX512 static Vec mullo(Vec a, Vec b) { return _mm512_mullo_epi32(a, b); }
  SION_AVX512 static Vec srli64(Vec a, unsigned n) { return _mm512_srli_epi64(a, n); }
  SION_AVX512 static Vec srli(Vec a, unsigned n) { return _mm512_srli_epi32(a, n); }
  SION_AVX512 static Vec srai(Vec a, unsigned n) { return _mm512_srai_epi32(a, n); }
  SION_AVX512 static Vec bit_and(Vec a, Vec b) { return _mm512_and_si512(a, b); }
  SION_AVX512 static Vec bit_or(Vec a, Vec b) { return _mm512_or_si512(a, b); }
  SION_AVX512 static Vec bit_xor(Vec a, Vec b) { return _mm512_xor_si512(a, b); }
  SION_AVX512 static Vec and_not(Vec a, Vec b) { return _mm512_andnot_si512(a, b); }
  SION_AVX512 static Vec abs(Vec a) { return _mm512_abs_epi32(a); }
  SION_AVX512 static Vec blend_odd(Vec a, Vec b) { return _mm512_mask_mov_epi32(a, 0xaaaa, b); }
  SION_AVX512 static Vec blend_odd_sub(Vec r, Vec a, Vec b) { return _mm512_mask_sub_epi32(r, 0xaaaa, a, b); }
  SION_AVX512 static Vec or3(Vec a, Vec b, Vec c) {
    return _mm512_ternarylogic_epi32(a, b, c, 0xfe);  // a | b | c
  }
  SION_AVX512 static Vec positive(Vec a) { return _mm512_srai_epi32(_mm512_sub_epi32(_mm512_setzero_si512(), a), 31); }
  SION_AVX512 static std::uint32_t sign_bits(Vec a) { return static_cast<std::uint32_t>(_mm512_movepi32_mask(a)); }
  SION_AVX512 static std::int32_t sum(Vec v) { return _mm512_reduce_add_epi32(v); }

  // Exchange of s-lane blocks (mldsa_simd.hpp, make_ntt_tables).
  template <int s>
  SION_AVX512 static void exchange(Vec& x, Vec& y) {
    Vec lo, hi;
    if constexpr (s == 8) {
      lo = _mm512_shuffle_i64x2(x, y, 0x44);  // x.q0-3, y.q0-3
      hi = _mm512_shuffle_i64x2(x, y, 0xee);  // x.q4-7, y.q4-7
    } else if constexpr (s == 4) {
      lo = _mm512_permutex2var_epi64(x, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), y);
      hi = _mm512_permutex2var_epi64(x, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), y);
    } else if constexpr (s == 2) {
      lo = _mm512_unpacklo_epi64(x, y);
      hi = _mm512_unpackhi_epi64(x, y);
    } else {
      static_assert(s == 1);
      lo = _mm512_mask_mov_epi32(x, 0xaaaa, _mm512_slli_epi64(y, 32));
      hi = _mm512_mask_mov_epi32(_mm512_srli_epi64(x, 32), 0xaaaa, y);
    }
    x = lo;
    y = hi;
  }

  // rej_uniform: the candidates below q to out[0, 8) by vpcompressd.
  SION_AVX512 static std::size_t compress_below_q(std::int32_t* out, __m256i cand) {
    const __mmask8 good = _mm256_cmplt_epi32_mask(cand, _mm256_set1_epi32(kQ));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_maskz_compress_epi32(good, cand));
    return static_cast<std::size_t>(__builtin_popcount(good));
  }
};

// The shared algorithms, for this ISA.
using namespace simd;
using V = Avx512;

SION_AVX512 void ntt(Poly& a) noexcept {
  std::int32_t* c = a.c.data();
  __m512i v[16];
  for (std::size_t i = 0; i < 16; ++i) v[i] = V::load(c + 16 * i);
  // len = 128, 64, 32, 16: vector i holds coefficients 16i..16i+15.
  for (std::size_t i = 0; i < 8; ++i) ct<V>(v[i], v[i + 8], mont_mul_const<V>(v[i + 8], kZetas[1]));
  for (std::size_t i = 0; i < 16; i += 8) {
    for (std::size_t k = i; k < i + 4; ++k) {
      ct<V>(v[k], v[k + 4], mont_mul_const<V>(v[k + 4], kZetas[2 + i / 8]));
    }
  }
  for (std::size_t i = 0; i < 16; i += 4) {
    for (std::size_t k = i; k < i + 2; ++k) {
      ct<V>(v[k], v[k + 2], mont_mul_const<V>(v[k + 2], kZetas[4 + i / 4]));
    }
  }
  for (std::size_t i = 0; i < 16; i += 2) {
    ct<V>(v[i], v[i + 1], mont_mul_const<V>(v[i + 1], kZetas[8 + i / 2]));
  }
  // len = 8, 4, 2, 1 inside the pairs (v[2p], v[2p + 1]).
  for (std::size_t p = 0; p < 8; ++p) ntt_pair<V>(v[2 * p], v[2 * p + 1], kTables<V>.forward[p]);
  for (std::size_t i = 0; i < 16; ++i) V::store(c + 16 * i, v[i]);
}

SION_AVX512 void invntt(Poly& a) noexcept {
  std::int32_t* c = a.c.data();
  __m512i v[16];
  for (std::size_t i = 0; i < 16; ++i) v[i] = V::load(c + 16 * i);
  for (std::size_t p = 0; p < 8; ++p) invntt_pair<V>(v[2 * p], v[2 * p + 1], kTables<V>.inverse[p]);
  // len = 16: block j / 32 = i / 2, twiddle -zetas[15 - i / 2].
  for (std::size_t i = 0; i < 16; i += 2) {
    v[i + 1] = mont_mul_const<V>(gs<V>(v[i], v[i + 1]), -kZetas[15 - i / 2]);
  }
  for (std::size_t i = 0; i < 16; i += 4) {
    for (std::size_t k = i; k < i + 2; ++k) {
      v[k + 2] = mont_mul_const<V>(gs<V>(v[k], v[k + 2]), -kZetas[7 - i / 4]);
    }
  }
  for (std::size_t i = 0; i < 16; i += 8) {
    for (std::size_t k = i; k < i + 4; ++k) {
      v[k + 4] = mont_mul_const<V>(gs<V>(v[k], v[k + 4]), -kZetas[3 - i / 8]);
    }
  }
  for (std::size_t i = 0; i < 8; ++i) {
    v[i + 8] = mont_mul_const<V>(gs<V>(v[i], v[i + 8]), kInvNttFactorZeta);
    v[i] = mont_mul_const<V>(v[i], kInvNttFactor);
  }
  for (std::size_t i = 0; i < 16; ++i) V::store(c + 16 * i, v[i]);
}

}  // namespace
}  // namespace avx512

// In mldsa_avx2.cpp, beside their AVX2 relatives.
void unpack_gamma1_17_avx2(Poly& z, const std::uint8_t* in) noexcept;
void unpack_gamma1_19_avx2(Poly& z, const std::uint8_t* in) noexcept;

const Kernels kAvx512Kernels = {
    "avx512",
    8,
    &avx512::ntt,
    &avx512::invntt,
    &simd::pointwise_montgomery<avx512::Avx512>,
    &simd::pointwise_acc_montgomery<avx512::Avx512>,
    &simd::poly_reduce<avx512::Avx512>,
    &simd::poly_freeze<avx512::Avx512>,
    &simd::poly_add_check_norm<avx512::Avx512>,
    &simd::rej_uniform<avx512::Avx512>,
    &unpack_gamma1_17_avx2,
    &unpack_gamma1_19_avx2,
    simd::kRounding<avx512::Avx512, (kQ - 1) / 88>,
    simd::kRounding<avx512::Avx512, (kQ - 1) / 32>,
};

#else  // not x86-64: kernels() never hands this out

const Kernels kAvx512Kernels = kPortableKernels;

#endif

}  // namespace sion::crypto::mldsa::detail
