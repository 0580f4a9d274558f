#pragma once
// The ML-DSA SIMD kernels (sion/crypto/detail/mldsa_poly.hpp) written once
// over a vector-ops type V, for mldsa_avx2.cpp (V = Avx2, eight lanes) and
// mldsa_avx512.cpp (V = Avx512, sixteen). Internal to the crypto layer.
//
// GCC inlines nothing across a target mismatch (not even always_inline), so
// these templates cannot be compiled for a generic target and inlined into
// the ISA's kernels. Instead the including file defines SION_MLDSA_SIMD_TARGET
// to its target attribute first, and everything here sits in an unnamed
// namespace: each kernel file compiles its own copy for its own ISA.
//
// V provides, as static members compiled for that ISA: Vec, kLanes; load,
// store (aligned), set1, zero; add, sub (32-bit lanes), add64, sub64; mul
// (signed 32 x 32 -> 64 of the even lanes), mulu (unsigned), mullo; srli64,
// srli, srai; bit_and, bit_or, bit_xor, and_not (~a & b), abs; blend_odd(a,
// b) (a with b's odd lanes), blend_odd_sub(r, a, b) (r with the odd lanes of
// a - b), or3, positive (all ones where > 0), sign_bits (the sign bit of
// each lane), sum; exchange<s>(x, y) (see make_ntt_tables); and
// compress_below_q(out, cand) for rej_uniform on eight 32-bit candidates.
//
// Each kernel performs the portable kernel's operations (mldsa_poly.cpp)
// per coefficient in the same order, so results are bit-identical. Montgomery
// products use 32 x 32 -> 64-bit multiplications on the even and the odd
// lanes separately: the product p = a * b and t = (a * b * q^-1 mod 2^32) * q
// agree in their low 32 bits, so the high half of p - t is
// montgomery_reduce(a * b), and the odd lanes can be subtracted as 32-bit
// lanes (no borrow crosses from the equal low halves).
//
// Constant time: no branch or memory index depends on coefficient values
// (rej_uniform works on public data).

#include <cstddef>
#include <cstdint>

#include "sion/crypto/detail/mldsa_poly.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#ifndef SION_MLDSA_SIMD_TARGET
#error "define SION_MLDSA_SIMD_TARGET to the kernels' target attribute first"
#endif

// GCC 12's AVX-512 intrinsics pass _mm512_undefined_epi32() and the like, a
// deliberately self-initialised value that -Wuninitialized reports.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define SION_MLDSA_SIMD SION_MLDSA_SIMD_TARGET inline

namespace sion::crypto::mldsa::detail {
namespace {
namespace simd {

// ---- Twiddle tables for the layers inside a vector pair ---------------------
//
// The last log2(L) layers of the NTT (len = L/2 .. 1, L lanes per vector)
// and the first ones of the inverse pair coefficients of one vector. They
// run on two vectors x, y holding the 2L coefficients 2Lp .. 2Lp + 2L - 1
// of pair p, rearranged before each layer by an exchange of s-lane blocks
// (s = len) between the two vectors: X = X.b0 Y.b0 X.b2 Y.b2 ...,
// Y = X.b1 Y.b1 X.b3 Y.b3 ... Every exchange is its own inverse. The table
// generator replays the exchanges on coefficient indices, so the twiddle of
// each lane is the one its coefficient needs.

constexpr int log2_lanes(int lanes) { return lanes == 8 ? 3 : 4; }

template <int kLanes>
struct alignas(4 * kLanes) PairTwiddles {
  std::int32_t zeta[log2_lanes(kLanes)][kLanes];  // [layer: len L/2 .. 1][lane of X]
  std::int32_t zeta_qinv[log2_lanes(kLanes)][kLanes];
};

template <int kLanes>
struct NttTables {
  PairTwiddles<kLanes> forward[kN / (2 * kLanes)];
  PairTwiddles<kLanes> inverse[kN / (2 * kLanes)];
};

template <int kLanes>
constexpr void exchange_indices(int (&x)[kLanes], int (&y)[kLanes], int s) {
  int nx[kLanes] = {}, ny[kLanes] = {};
  for (int lane = 0; lane < kLanes; ++lane) {
    // X' block 2k is X block 2k, X' block 2k+1 is Y block 2k; Y' block 2k
    // is X block 2k+1, Y' block 2k+1 is Y block 2k+1.
    const int block = lane / s, off = lane % s;
    const int k = block / 2;
    const int(&from)[kLanes] = block % 2 == 0 ? x : y;
    nx[lane] = from[(2 * k) * s + off];
    ny[lane] = from[(2 * k + 1) * s + off];
  }
  for (int lane = 0; lane < kLanes; ++lane) {
    x[lane] = nx[lane];
    y[lane] = ny[lane];
  }
}

// Replays the exchanges of every pair and layer, calling
// f(p, layer, len, x, y) with the coefficient index of each lane.
template <int kLanes, class F>
constexpr void for_each_pair_layer(F f) {
  for (int p = 0; p < static_cast<int>(kN) / (2 * kLanes); ++p) {
    int x[kLanes] = {}, y[kLanes] = {};
    for (int lane = 0; lane < kLanes; ++lane) {
      x[lane] = 2 * kLanes * p + lane;
      y[lane] = 2 * kLanes * p + kLanes + lane;
    }
    for (int layer = 0; layer < log2_lanes(kLanes); ++layer) {
      const int len = (kLanes / 2) >> layer;
      exchange_indices<kLanes>(x, y, len);
      f(p, layer, len, x, y);
    }
  }
}

template <int kLanes>
constexpr NttTables<kLanes> make_ntt_tables() {
  NttTables<kLanes> t{};
  for_each_pair_layer<kLanes>([&t](int p, int layer, int len, const int(&x)[kLanes], const int(&)[kLanes]) {
    for (int lane = 0; lane < kLanes; ++lane) {
      const int j = x[lane];  // the lower coefficient
      // Alg. 41: layer len uses zetas[256 / (2 len) + j / (2 len)];
      // Alg. 42 the negation of zetas[256 / len - 1 - j / (2 len)].
      const std::int32_t fwd = kZetas[static_cast<std::size_t>(256 / (2 * len) + j / (2 * len))];
      const std::int32_t inv = -kZetas[static_cast<std::size_t>(256 / len - 1 - j / (2 * len))];
      t.forward[p].zeta[layer][lane] = fwd;
      t.forward[p].zeta_qinv[layer][lane] = mont_qinv_factor(fwd);
      t.inverse[p].zeta[layer][lane] = inv;
      t.inverse[p].zeta_qinv[layer][lane] = mont_qinv_factor(inv);
    }
  });
  return t;
}

// The exchange pattern must pair j with j + len in every lane.
template <int kLanes>
constexpr bool exchanges_pair_partners() {
  bool ok = true;
  for_each_pair_layer<kLanes>([&ok](int, int, int len, const int(&x)[kLanes], const int(&y)[kLanes]) {
    for (int lane = 0; lane < kLanes; ++lane) {
      if (y[lane] != x[lane] + len || (x[lane] / len) % 2 != 0) ok = false;
    }
  });
  return ok;
}
static_assert(exchanges_pair_partners<8>() && exchanges_pair_partners<16>());

template <class V>
inline constexpr NttTables<V::kLanes> kTables = make_ntt_tables<V::kLanes>();

// ---- Montgomery arithmetic and butterflies ----------------------------------

// montgomery_reduce(a * b) per lane, given b and b_qinv = b q^-1 mod 2^32.
// b_odd / bq_odd hold b and b_qinv of the odd lanes in the even positions
// (the same vectors when b is a broadcast).
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec mont_mul(Vec a, Vec b, Vec b_qinv, Vec b_odd, Vec bq_odd) {
  const Vec q = V::set1(kQ);
  const Vec a_odd = V::srli64(a, 32);
  const Vec p_even = V::mul(a, b);
  const Vec p_odd = V::mul(a_odd, b_odd);
  const Vec t_even = V::mul(V::mul(a, b_qinv), q);
  const Vec t_odd = V::mul(V::mul(a_odd, bq_odd), q);
  return V::blend_odd_sub(V::srli64(V::sub64(p_even, t_even), 32), p_odd, t_odd);
}

// With a twiddle that is the same in every lane.
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec mont_mul_const(Vec a, std::int32_t zeta) {
  const Vec z = V::set1(zeta);
  const Vec zq = V::set1(mont_qinv_factor(zeta));
  return mont_mul<V>(a, z, zq, z, zq);
}

// With per-lane twiddles.
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec mont_mul_lanes(Vec a, const std::int32_t* zeta, const std::int32_t* zeta_qinv) {
  const Vec z = V::load(zeta);
  const Vec zq = V::load(zeta_qinv);
  return mont_mul<V>(a, z, zq, V::srli64(z, 32), V::srli64(zq, 32));
}

// montgomery_reduce of 64-bit values: the even lanes of `even` and of `odd`
// (the odd coefficients), merged back into one vector.
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec mont_reduce64(Vec even, Vec odd) {
  const Vec q = V::set1(kQ);
  const Vec qinv = V::set1(static_cast<std::int32_t>(kQInv));
  const Vec t_even = V::mul(V::mulu(even, qinv), q);
  const Vec t_odd = V::mul(V::mulu(odd, qinv), q);
  return V::blend_odd_sub(V::srli64(V::sub64(even, t_even), 32), odd, t_odd);
}

// Cooley-Tukey butterfly (Alg. 41): t = zeta b; b = a - t; a = a + t.
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD void ct(Vec& a, Vec& b, Vec t) {
  b = V::sub(a, t);
  a = V::add(a, t);
}

// Gentleman-Sande butterfly (Alg. 42) up to the product: returns a - b and
// sets a = a + b.
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec gs(Vec& a, Vec b) {
  const Vec d = V::sub(a, b);
  a = V::add(a, b);
  return d;
}

// Forward layers len = L/2 .. 1 on the pair (x, y) (see the tables above):
// exchange, butterfly, the deeper layers, and the exchange undone.
template <class V, int kLayer = 0, class Vec = typename V::Vec>
SION_MLDSA_SIMD void ntt_pair(Vec& x, Vec& y, const PairTwiddles<V::kLanes>& tw) {
  if constexpr (kLayer < log2_lanes(V::kLanes)) {
    constexpr int s = (V::kLanes / 2) >> kLayer;
    V::template exchange<s>(x, y);
    ct<V>(x, y, mont_mul_lanes<V>(y, tw.zeta[kLayer], tw.zeta_qinv[kLayer]));
    ntt_pair<V, kLayer + 1>(x, y, tw);
    V::template exchange<s>(x, y);
  }
}

// Inverse layers len = 1 .. L/2 on a pair.
template <class V, int kLayer = 0, class Vec = typename V::Vec>
SION_MLDSA_SIMD void invntt_pair(Vec& x, Vec& y, const PairTwiddles<V::kLanes>& tw) {
  if constexpr (kLayer < log2_lanes(V::kLanes)) {
    constexpr int s = (V::kLanes / 2) >> kLayer;
    V::template exchange<s>(x, y);
    invntt_pair<V, kLayer + 1>(x, y, tw);
    y = mont_mul_lanes<V>(gs<V>(x, y), tw.zeta[kLayer], tw.zeta_qinv[kLayer]);
    V::template exchange<s>(x, y);
  }
}

// ---- Pointwise products -------------------------------------------------------

template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD void pointwise_montgomery(Poly& out, const Poly& a, const Poly& b) noexcept {
  for (std::size_t i = 0; i < kN; i += V::kLanes) {
    const Vec x = V::load(a.c.data() + i);
    const Vec y = V::load(b.c.data() + i);
    const Vec even = V::mul(x, y);
    const Vec odd = V::mul(V::srli64(x, 32), V::srli64(y, 32));
    V::store(out.c.data() + i, mont_reduce64<V>(even, odd));
  }
}

template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD void pointwise_acc_montgomery(Poly& out, const Poly* a, const Poly* b, std::size_t n) noexcept {
  for (std::size_t i = 0; i < kN; i += V::kLanes) {
    Vec even = V::zero();
    Vec odd = V::zero();
    for (std::size_t j = 0; j < n; ++j) {
      const Vec x = V::load(a[j].c.data() + i);
      const Vec y = V::load(b[j].c.data() + i);
      even = V::add64(even, V::mul(x, y));
      odd = V::add64(odd, V::mul(V::srli64(x, 32), V::srli64(y, 32)));
    }
    V::store(out.c.data() + i, mont_reduce64<V>(even, odd));
  }
}

// ---- Reductions and rounding ------------------------------------------------

// reduce32: a - round(a / 2^23) q.
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec reduce32_v(Vec a) {
  const Vec t = V::srai(V::add(a, V::set1(1 << 22)), 23);
  return V::sub(a, V::mullo(t, V::set1(kQ)));
}

// caddq: a + q where a < 0.
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec caddq_v(Vec a) {
  return V::add(a, V::bit_and(V::srai(a, 31), V::set1(kQ)));
}

template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec freeze_v(Vec a) {
  return caddq_v<V>(reduce32_v<V>(a));
}

// center: a - q where a > (q - 1) / 2, for a in [0, q).
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD Vec center_v(Vec a) {
  const Vec over = V::srai(V::sub(V::set1((kQ - 1) / 2), a), 31);
  return V::sub(a, V::bit_and(over, V::set1(kQ)));
}

// 0 if no lane of v is negative, else all ones; arithmetic, not a flag
// test, so that the result stays secret until the caller declassifies it.
template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD std::int32_t any_negative(Vec v) {
  const std::uint32_t bits = V::sign_bits(v);
  return -static_cast<std::int32_t>((0U - bits) >> 31);
}

template <class V>
SION_MLDSA_SIMD void poly_reduce(Poly& a) noexcept {
  for (std::size_t i = 0; i < kN; i += V::kLanes) {
    V::store(a.c.data() + i, reduce32_v<V>(V::load(a.c.data() + i)));
  }
}

template <class V>
SION_MLDSA_SIMD void poly_freeze(Poly& a) noexcept {
  for (std::size_t i = 0; i < kN; i += V::kLanes) {
    V::store(a.c.data() + i, freeze_v<V>(V::load(a.c.data() + i)));
  }
}

// Decompose (Alg. 36) per lane for r in [0, q), the same steps as the
// scalar decompose<kGamma2>(): floor(r / 2 gamma2) by a multiplication with
// the rounded-up reciprocal 2^48 / m (64-bit products on even and odd
// lanes), then the centring and the wrap of the top value.
template <class V, std::int32_t kGamma2, class Vec = typename V::Vec>
SION_MLDSA_SIMD void decompose_v(Vec r, Vec& high, Vec& low) {
  constexpr std::int32_t m = 2 * kGamma2;
  constexpr std::int32_t top = (kQ - 1) / m;
  constexpr std::uint64_t recip = ((std::uint64_t{1} << 48) + m - 1) / m;
  static_assert(recip < (std::uint64_t{1} << 31));
  const Vec vrecip = V::set1(static_cast<std::int32_t>(recip));
  const Vec p_even = V::mulu(r, vrecip);
  const Vec p_odd = V::mulu(V::srli64(r, 32), vrecip);
  // Even lanes: bits 48.. of the product, in the low half. Odd: shifted by
  // 16, the high half is bits 48..79 (the product is below 2^54).
  Vec h = V::blend_odd(V::srli64(p_even, 48), V::srli64(p_odd, 16));
  Vec l = V::sub(r, V::mullo(h, V::set1(m)));
  const Vec over = V::srai(V::sub(V::set1(kGamma2), l), 31);
  l = V::sub(l, V::bit_and(over, V::set1(m)));
  h = V::sub(h, over);
  const Vec wrap = V::srai(V::sub(V::bit_xor(h, V::set1(top)), V::set1(1)), 31);
  high = V::and_not(wrap, h);
  low = V::add(l, wrap);
}

template <class V, std::int32_t kGamma2, class Vec = typename V::Vec>
SION_MLDSA_SIMD void poly_highbits(Poly& w1, Poly& w) noexcept {
  for (std::size_t i = 0; i < kN; i += V::kLanes) {
    const Vec r = freeze_v<V>(V::load(w.c.data() + i));
    Vec high, low;
    decompose_v<V, kGamma2>(r, high, low);
    V::store(w.c.data() + i, r);
    V::store(w1.c.data() + i, high);
  }
}

template <class V, class Vec = typename V::Vec>
SION_MLDSA_SIMD std::int32_t poly_add_check_norm(Poly& z, const Poly& y, std::int32_t bound) noexcept {
  const Vec limit = V::set1(bound - 1);
  Vec reject = V::zero();
  for (std::size_t i = 0; i < kN; i += V::kLanes) {
    const Vec v = center_v<V>(freeze_v<V>(V::add(V::load(z.c.data() + i), V::load(y.c.data() + i))));
    V::store(z.c.data() + i, v);
    reject = V::bit_or(reject, V::sub(limit, V::abs(v)));
  }
  return any_negative<V>(reject);
}

template <class V, std::int32_t kGamma2, class Vec = typename V::Vec>
SION_MLDSA_SIMD std::int32_t poly_make_hints(Poly& h, const Poly& w, const Poly& cs2, const Poly& ct0,
                                             std::int32_t beta, std::int32_t& count) noexcept {
  const Vec low_limit = V::set1(kGamma2 - beta - 1);
  const Vec ct0_limit = V::set1(kGamma2 - 1);
  Vec reject = V::zero();
  Vec hints = V::zero();
  for (std::size_t i = 0; i < kN; i += V::kLanes) {
    const Vec r = freeze_v<V>(V::sub(V::load(w.c.data() + i), V::load(cs2.c.data() + i)));
    Vec r_high, r_low;
    decompose_v<V, kGamma2>(r, r_high, r_low);
    const Vec ct0_c = center_v<V>(freeze_v<V>(V::load(ct0.c.data() + i)));
    reject = V::or3(reject, V::sub(low_limit, V::abs(r_low)), V::sub(ct0_limit, V::abs(ct0_c)));
    Vec s_high, s_low;
    decompose_v<V, kGamma2>(freeze_v<V>(V::add(r, ct0_c)), s_high, s_low);
    const Vec diff = V::bit_xor(s_high, r_high);
    const Vec hint = V::srli(V::bit_or(diff, V::sub(V::zero(), diff)), 31);
    V::store(h.c.data() + i, hint);
    hints = V::add(hints, hint);
  }
  count += V::sum(hints);
  return any_negative<V>(reject);
}

template <class V, std::int32_t kGamma2, class Vec = typename V::Vec>
SION_MLDSA_SIMD void poly_use_hints(Poly& w1, const Poly& w, const Poly& h) noexcept {
  constexpr std::int32_t m = (kQ - 1) / (2 * kGamma2);
  const Vec zero = V::zero();
  const Vec vm = V::set1(m);
  for (std::size_t i = 0; i < kN; i += V::kLanes) {
    Vec high, low;
    decompose_v<V, kGamma2>(freeze_v<V>(V::load(w.c.data() + i)), high, low);
    // +1 where low > 0, else -1; applied where h = 1; then mod m.
    const Vec delta = V::sub(zero, V::bit_or(V::positive(low), V::set1(1)));
    const Vec apply = V::sub(zero, V::load(h.c.data() + i));
    Vec v = V::add(high, V::bit_and(delta, apply));
    v = V::add(v, V::bit_and(V::srai(v, 31), vm));
    v = V::sub(v, V::bit_and(V::srai(V::sub(V::set1(m - 1), v), 31), vm));
    V::store(w1.c.data() + i, v);
  }
}

// The rounding kernels of one gamma2, for the Kernels table.
template <class V, std::int32_t kGamma2>
constexpr Kernels::Rounding kRounding = {&poly_highbits<V, kGamma2>, &poly_make_hints<V, kGamma2>,
                                         &poly_use_hints<V, kGamma2>};

// ---- Rejection sampling (public data) ---------------------------------------

#if defined(__x86_64__)
// The eight candidates of buf[0, 24) as 23-bit values (CoeffFromThreeBytes
// without the check). Reads buf[0, 32).
SION_MLDSA_SIMD __m256i three_byte_candidates(const std::uint8_t* buf) {
  const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(buf));
  // Low 128-bit lane: bytes 0..15; high lane: bytes 8..23.
  const __m256i spread = _mm256_permute4x64_epi64(bytes, 0x94);
  const __m256i shuffle = _mm256_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1,  //
                                           4, 5, 6, -1, 7, 8, 9, -1, 10, 11, 12, -1, 13, 14, 15, -1);
  return _mm256_and_si256(_mm256_shuffle_epi8(spread, shuffle), _mm256_set1_epi32(0x7fffff));
}

template <class V>
SION_MLDSA_SIMD std::size_t rej_uniform(std::int32_t* out, std::size_t need, const std::uint8_t* buf,
                                        std::size_t len) noexcept {
  std::size_t n = 0;
  std::size_t pos = 0;
  // Eight candidates at a time while eight outputs fit and 32 bytes can be
  // read; the rest one at a time.
  while (n + 8 <= need && pos + 32 <= len) {
    n += V::compress_below_q(out + n, three_byte_candidates(buf + pos));
    pos += 24;
  }
  return n + detail::rej_uniform(out + n, need - n, buf + pos, len - pos);
}
#endif

}  // namespace simd
}  // namespace
}  // namespace sion::crypto::mldsa::detail
