// AVX-512 kernels of sion/crypto/detail/mldsa_poly.hpp: sixteen 32-bit
// coefficients per __m512i, so a polynomial is 16 vectors and a whole NTT
// runs in registers. Compiled per function with
// target("avx512f,avx512bw,avx512vl,avx512dq") (no -m flags anywhere);
// reached only through kAvx512Kernels, which kernels() hands out when
// cpu_features() reports those extensions.
//
// As in mldsa_avx2.cpp, each kernel performs the portable kernel's
// operations per coefficient in the same order, so results are
// bit-identical, and nothing branches on or indexes by coefficient values.

#include "sion/crypto/detail/mldsa_poly.hpp"

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

namespace avx512 {
namespace {

#define SION_AVX512 __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq")))

// ---- Twiddles for the four layers inside a vector pair ----------------------
//
// Layers len = 8, 4, 2, 1 pair coefficients of one 16-lane vector. They run
// on two vectors x, y holding the 32 coefficients 32p..32p+31 of pair p,
// rearranged before each layer by an exchange of s-lane blocks (s = len)
// between the two vectors: X = X.b0 Y.b0 X.b2 Y.b2 ..., Y = X.b1 Y.b1 ...
// Every exchange is its own inverse. The table generator replays the
// exchanges on coefficient indices, so the twiddle of each lane is the one
// its coefficient needs.

struct alignas(64) PairTwiddles {
  std::int32_t zeta[4][16];  // [layer: len 8, 4, 2, 1][lane of X]
  std::int32_t zeta_qinv[4][16];
};

struct alignas(64) NttTables {
  PairTwiddles forward[8];
  PairTwiddles inverse[8];
};

constexpr void exchange_indices(int (&x)[16], int (&y)[16], int s) {
  int nx[16] = {}, ny[16] = {};
  for (int lane = 0; lane < 16; ++lane) {
    // X' block 2k is X block 2k, X' block 2k+1 is Y block 2k; Y' block 2k
    // is X block 2k+1, Y' block 2k+1 is Y block 2k+1.
    const int block = lane / s, off = lane % s;
    const int k = block / 2;
    if (block % 2 == 0) {
      nx[lane] = x[(2 * k) * s + off];
      ny[lane] = x[(2 * k + 1) * s + off];
    } else {
      nx[lane] = y[(2 * k) * s + off];
      ny[lane] = y[(2 * k + 1) * s + off];
    }
  }
  for (int lane = 0; lane < 16; ++lane) {
    x[lane] = nx[lane];
    y[lane] = ny[lane];
  }
}

constexpr NttTables make_ntt_tables() {
  NttTables t{};
  for (int p = 0; p < 8; ++p) {
    int x[16] = {}, y[16] = {};
    for (int lane = 0; lane < 16; ++lane) {
      x[lane] = 32 * p + lane;
      y[lane] = 32 * p + 16 + lane;
    }
    for (int layer = 0; layer < 4; ++layer) {
      const int len = 8 >> layer;
      exchange_indices(x, y, len);
      for (int lane = 0; lane < 16; ++lane) {
        const int j = x[lane];  // the lower coefficient; y[lane] = j + len
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

// The exchange pattern must pair j with j + len in every lane.
constexpr bool exchanges_pair_partners() {
  for (int p = 0; p < 8; ++p) {
    int x[16] = {}, y[16] = {};
    for (int lane = 0; lane < 16; ++lane) {
      x[lane] = 32 * p + lane;
      y[lane] = 32 * p + 16 + lane;
    }
    for (int layer = 0; layer < 4; ++layer) {
      const int len = 8 >> layer;
      exchange_indices(x, y, len);
      for (int lane = 0; lane < 16; ++lane) {
        if (y[lane] != x[lane] + len || (x[lane] / len) % 2 != 0) return false;
      }
    }
  }
  return true;
}
static_assert(exchanges_pair_partners());

// ---- Vector helpers ---------------------------------------------------------

SION_AVX512 inline __m512i load(const std::int32_t* p) { return _mm512_load_si512(p); }
SION_AVX512 inline void store(std::int32_t* p, __m512i v) { _mm512_store_si512(p, v); }

// montgomery_reduce(a * b) per lane (see mldsa_avx2.cpp). b_odd / bq_odd:
// b and b q^-1 of the odd lanes moved to the even positions.
SION_AVX512 inline __m512i mont_mul(__m512i a, __m512i b, __m512i b_qinv, __m512i b_odd,
                                    __m512i bq_odd) {
  const __m512i q = _mm512_set1_epi32(kQ);
  const __m512i a_odd = _mm512_srli_epi64(a, 32);
  const __m512i p_even = _mm512_mul_epi32(a, b);
  const __m512i p_odd = _mm512_mul_epi32(a_odd, b_odd);
  const __m512i t_even = _mm512_mul_epi32(_mm512_mul_epi32(a, b_qinv), q);
  const __m512i t_odd = _mm512_mul_epi32(_mm512_mul_epi32(a_odd, bq_odd), q);
  const __m512i r_even = _mm512_srli_epi64(_mm512_sub_epi64(p_even, t_even), 32);
  // Odd lanes: the high halves of p_odd - t_odd, subtracted as 32-bit lanes
  // (the low halves are equal, so no borrow crosses).
  return _mm512_mask_sub_epi32(r_even, 0xaaaa, p_odd, t_odd);
}

SION_AVX512 inline __m512i mont_mul_const(__m512i a, std::int32_t zeta) {
  const __m512i z = _mm512_set1_epi32(zeta);
  const __m512i zq = _mm512_set1_epi32(mont_qinv_factor(zeta));
  return mont_mul(a, z, zq, z, zq);
}

SION_AVX512 inline __m512i mont_mul_lanes(__m512i a, const std::int32_t* zeta,
                                          const std::int32_t* zeta_qinv) {
  const __m512i z = load(zeta);
  const __m512i zq = load(zeta_qinv);
  return mont_mul(a, z, zq, _mm512_srli_epi64(z, 32), _mm512_srli_epi64(zq, 32));
}

// montgomery_reduce of the 64-bit values in the even lanes of `even` and
// `odd`, merged.
SION_AVX512 inline __m512i mont_reduce64(__m512i even, __m512i odd) {
  const __m512i q = _mm512_set1_epi32(kQ);
  const __m512i qinv = _mm512_set1_epi32(static_cast<std::int32_t>(kQInv));
  const __m512i t_even = _mm512_mul_epi32(_mm512_mul_epu32(even, qinv), q);
  const __m512i t_odd = _mm512_mul_epi32(_mm512_mul_epu32(odd, qinv), q);
  const __m512i r_even = _mm512_srli_epi64(_mm512_sub_epi64(even, t_even), 32);
  // odd - t_odd has the result in its high half: move it up one lane.
  const __m512i r_odd = _mm512_sub_epi64(odd, t_odd);
  return _mm512_mask_mov_epi32(r_even, 0xaaaa, r_odd);
}

SION_AVX512 inline void ct(__m512i& a, __m512i& b, __m512i t) {
  b = _mm512_sub_epi32(a, t);
  a = _mm512_add_epi32(a, t);
}

SION_AVX512 inline __m512i gs(__m512i& a, __m512i b) {
  const __m512i d = _mm512_sub_epi32(a, b);
  a = _mm512_add_epi32(a, b);
  return d;
}

// Exchanges of 8-, 4-, 2- and 1-lane blocks (see exchange_indices).
SION_AVX512 inline void exchange8(__m512i& x, __m512i& y) {
  const __m512i lo = _mm512_shuffle_i64x2(x, y, 0x44);  // x.q0-3, y.q0-3
  const __m512i hi = _mm512_shuffle_i64x2(x, y, 0xee);  // x.q4-7, y.q4-7
  x = lo;
  y = hi;
}

SION_AVX512 inline void exchange4(__m512i& x, __m512i& y) {
  const __m512i idx_lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
  const __m512i idx_hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
  const __m512i lo = _mm512_permutex2var_epi64(x, idx_lo, y);
  const __m512i hi = _mm512_permutex2var_epi64(x, idx_hi, y);
  x = lo;
  y = hi;
}

SION_AVX512 inline void exchange2(__m512i& x, __m512i& y) {
  const __m512i lo = _mm512_unpacklo_epi64(x, y);
  const __m512i hi = _mm512_unpackhi_epi64(x, y);
  x = lo;
  y = hi;
}

SION_AVX512 inline void exchange1(__m512i& x, __m512i& y) {
  const __m512i lo = _mm512_mask_mov_epi32(x, 0xaaaa, _mm512_slli_epi64(y, 32));
  const __m512i hi = _mm512_mask_mov_epi32(_mm512_srli_epi64(x, 32), 0xaaaa, y);
  x = lo;
  y = hi;
}

SION_AVX512 inline void ntt_pair(__m512i& x, __m512i& y, const PairTwiddles& tw) {
  exchange8(x, y);
  ct(x, y, mont_mul_lanes(y, tw.zeta[0], tw.zeta_qinv[0]));
  exchange4(x, y);
  ct(x, y, mont_mul_lanes(y, tw.zeta[1], tw.zeta_qinv[1]));
  exchange2(x, y);
  ct(x, y, mont_mul_lanes(y, tw.zeta[2], tw.zeta_qinv[2]));
  exchange1(x, y);
  ct(x, y, mont_mul_lanes(y, tw.zeta[3], tw.zeta_qinv[3]));
  exchange1(x, y);
  exchange2(x, y);
  exchange4(x, y);
  exchange8(x, y);
}

SION_AVX512 inline void invntt_pair(__m512i& x, __m512i& y, const PairTwiddles& tw) {
  exchange8(x, y);
  exchange4(x, y);
  exchange2(x, y);
  exchange1(x, y);
  y = mont_mul_lanes(gs(x, y), tw.zeta[3], tw.zeta_qinv[3]);
  exchange1(x, y);
  y = mont_mul_lanes(gs(x, y), tw.zeta[2], tw.zeta_qinv[2]);
  exchange2(x, y);
  y = mont_mul_lanes(gs(x, y), tw.zeta[1], tw.zeta_qinv[1]);
  exchange4(x, y);
  y = mont_mul_lanes(gs(x, y), tw.zeta[0], tw.zeta_qinv[0]);
  exchange8(x, y);
}

SION_AVX512 void ntt(Poly& a) noexcept {
  std::int32_t* c = a.c.data();
  __m512i v[16];
  for (std::size_t i = 0; i < 16; ++i) v[i] = load(c + 16 * i);
  // len = 128, 64, 32, 16: vector i holds coefficients 16i..16i+15.
  for (std::size_t i = 0; i < 8; ++i) ct(v[i], v[i + 8], mont_mul_const(v[i + 8], kZetas[1]));
  for (std::size_t i = 0; i < 16; i += 8) {
    for (std::size_t k = i; k < i + 4; ++k) {
      ct(v[k], v[k + 4], mont_mul_const(v[k + 4], kZetas[2 + i / 8]));
    }
  }
  for (std::size_t i = 0; i < 16; i += 4) {
    for (std::size_t k = i; k < i + 2; ++k) {
      ct(v[k], v[k + 2], mont_mul_const(v[k + 2], kZetas[4 + i / 4]));
    }
  }
  for (std::size_t i = 0; i < 16; i += 2) {
    ct(v[i], v[i + 1], mont_mul_const(v[i + 1], kZetas[8 + i / 2]));
  }
  // len = 8, 4, 2, 1 inside the pairs (v[2p], v[2p + 1]).
  for (std::size_t p = 0; p < 8; ++p) ntt_pair(v[2 * p], v[2 * p + 1], kTables.forward[p]);
  for (std::size_t i = 0; i < 16; ++i) store(c + 16 * i, v[i]);
}

SION_AVX512 void invntt(Poly& a) noexcept {
  std::int32_t* c = a.c.data();
  __m512i v[16];
  for (std::size_t i = 0; i < 16; ++i) v[i] = load(c + 16 * i);
  for (std::size_t p = 0; p < 8; ++p) invntt_pair(v[2 * p], v[2 * p + 1], kTables.inverse[p]);
  // len = 16: block j / 32 = i / 2, twiddle -zetas[15 - i / 2].
  for (std::size_t i = 0; i < 16; i += 2) {
    v[i + 1] = mont_mul_const(gs(v[i], v[i + 1]), -kZetas[15 - i / 2]);
  }
  for (std::size_t i = 0; i < 16; i += 4) {
    for (std::size_t k = i; k < i + 2; ++k) {
      v[k + 2] = mont_mul_const(gs(v[k], v[k + 2]), -kZetas[7 - i / 4]);
    }
  }
  for (std::size_t i = 0; i < 16; i += 8) {
    for (std::size_t k = i; k < i + 4; ++k) {
      v[k + 4] = mont_mul_const(gs(v[k], v[k + 4]), -kZetas[3 - i / 8]);
    }
  }
  for (std::size_t i = 0; i < 8; ++i) {
    v[i + 8] = mont_mul_const(gs(v[i], v[i + 8]), kInvNttFactorZeta);
    v[i] = mont_mul_const(v[i], kInvNttFactor);
  }
  for (std::size_t i = 0; i < 16; ++i) store(c + 16 * i, v[i]);
}

SION_AVX512 void pointwise_montgomery(Poly& out, const Poly& a, const Poly& b) noexcept {
  for (std::size_t i = 0; i < kN; i += 16) {
    const __m512i x = load(a.c.data() + i);
    const __m512i y = load(b.c.data() + i);
    const __m512i even = _mm512_mul_epi32(x, y);
    const __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(y, 32));
    store(out.c.data() + i, mont_reduce64(even, odd));
  }
}

SION_AVX512 void pointwise_acc_montgomery(Poly& out, const Poly* a, const Poly* b,
                                          std::size_t n) noexcept {
  for (std::size_t i = 0; i < kN; i += 16) {
    __m512i even = _mm512_setzero_si512();
    __m512i odd = _mm512_setzero_si512();
    for (std::size_t j = 0; j < n; ++j) {
      const __m512i x = load(a[j].c.data() + i);
      const __m512i y = load(b[j].c.data() + i);
      even = _mm512_add_epi64(even, _mm512_mul_epi32(x, y));
      odd = _mm512_add_epi64(
          odd, _mm512_mul_epi32(_mm512_srli_epi64(x, 32), _mm512_srli_epi64(y, 32)));
    }
    store(out.c.data() + i, mont_reduce64(even, odd));
  }
}

SION_AVX512 inline __m512i reduce32_v(__m512i a) {
  const __m512i t = _mm512_srai_epi32(_mm512_add_epi32(a, _mm512_set1_epi32(1 << 22)), 23);
  return _mm512_sub_epi32(a, _mm512_mullo_epi32(t, _mm512_set1_epi32(kQ)));
}

SION_AVX512 inline __m512i caddq_v(__m512i a) {
  return _mm512_add_epi32(a, _mm512_and_si512(_mm512_srai_epi32(a, 31), _mm512_set1_epi32(kQ)));
}

SION_AVX512 inline __m512i freeze_v(__m512i a) { return caddq_v(reduce32_v(a)); }

SION_AVX512 inline __m512i center_v(__m512i a) {
  const __m512i over =
      _mm512_srai_epi32(_mm512_sub_epi32(_mm512_set1_epi32((kQ - 1) / 2), a), 31);
  return _mm512_sub_epi32(a, _mm512_and_si512(over, _mm512_set1_epi32(kQ)));
}

// 0 if no lane of the sign mask is set, else all ones, without a branch.
SION_AVX512 inline std::int32_t any_negative(__m512i v) {
  const auto bits = static_cast<std::uint32_t>(_mm512_movepi32_mask(v));
  return -static_cast<std::int32_t>((0U - bits) >> 31);
}

SION_AVX512 void poly_reduce(Poly& a) noexcept {
  for (std::size_t i = 0; i < kN; i += 16) store(a.c.data() + i, reduce32_v(load(a.c.data() + i)));
}

SION_AVX512 void poly_freeze(Poly& a) noexcept {
  for (std::size_t i = 0; i < kN; i += 16) store(a.c.data() + i, freeze_v(load(a.c.data() + i)));
}

template <std::int32_t kGamma2>
SION_AVX512 inline void decompose_v(__m512i r, __m512i& high, __m512i& low) {
  constexpr std::int32_t m = 2 * kGamma2;
  constexpr std::int32_t top = (kQ - 1) / m;
  constexpr std::uint64_t recip = ((std::uint64_t{1} << 48) + m - 1) / m;
  static_assert(recip < (std::uint64_t{1} << 31));
  const __m512i vrecip = _mm512_set1_epi32(static_cast<std::int32_t>(recip));
  const __m512i p_even = _mm512_mul_epu32(r, vrecip);
  const __m512i p_odd = _mm512_mul_epu32(_mm512_srli_epi64(r, 32), vrecip);
  __m512i h = _mm512_mask_mov_epi32(_mm512_srli_epi64(p_even, 48), 0xaaaa,
                                    _mm512_srli_epi64(p_odd, 16));
  __m512i l = _mm512_sub_epi32(r, _mm512_mullo_epi32(h, _mm512_set1_epi32(m)));
  const __m512i over = _mm512_srai_epi32(_mm512_sub_epi32(_mm512_set1_epi32(kGamma2), l), 31);
  l = _mm512_sub_epi32(l, _mm512_and_si512(over, _mm512_set1_epi32(m)));
  h = _mm512_sub_epi32(h, over);
  const __m512i wrap = _mm512_srai_epi32(
      _mm512_sub_epi32(_mm512_xor_si512(h, _mm512_set1_epi32(top)), _mm512_set1_epi32(1)), 31);
  high = _mm512_andnot_si512(wrap, h);
  low = _mm512_add_epi32(l, wrap);
}

template <std::int32_t kGamma2>
SION_AVX512 void poly_highbits(Poly& w1, Poly& w) noexcept {
  for (std::size_t i = 0; i < kN; i += 16) {
    const __m512i r = freeze_v(load(w.c.data() + i));
    __m512i high, low;
    decompose_v<kGamma2>(r, high, low);
    store(w.c.data() + i, r);
    store(w1.c.data() + i, high);
  }
}

SION_AVX512 std::int32_t poly_add_check_norm(Poly& z, const Poly& y,
                                             std::int32_t bound) noexcept {
  const __m512i limit = _mm512_set1_epi32(bound - 1);
  __m512i reject = _mm512_setzero_si512();
  for (std::size_t i = 0; i < kN; i += 16) {
    const __m512i v =
        center_v(freeze_v(_mm512_add_epi32(load(z.c.data() + i), load(y.c.data() + i))));
    store(z.c.data() + i, v);
    reject = _mm512_or_si512(reject, _mm512_sub_epi32(limit, _mm512_abs_epi32(v)));
  }
  return any_negative(reject);
}

template <std::int32_t kGamma2>
SION_AVX512 std::int32_t poly_make_hints(Poly& h, const Poly& w, const Poly& cs2,
                                         const Poly& ct0, std::int32_t beta,
                                         std::int32_t& count) noexcept {
  const __m512i low_limit = _mm512_set1_epi32(kGamma2 - beta - 1);
  const __m512i ct0_limit = _mm512_set1_epi32(kGamma2 - 1);
  __m512i reject = _mm512_setzero_si512();
  __m512i hints = _mm512_setzero_si512();
  for (std::size_t i = 0; i < kN; i += 16) {
    const __m512i r = freeze_v(_mm512_sub_epi32(load(w.c.data() + i), load(cs2.c.data() + i)));
    __m512i r_high, r_low;
    decompose_v<kGamma2>(r, r_high, r_low);
    const __m512i ct0_c = center_v(freeze_v(load(ct0.c.data() + i)));
    reject = _mm512_ternarylogic_epi32(reject,
                                       _mm512_sub_epi32(low_limit, _mm512_abs_epi32(r_low)),
                                       _mm512_sub_epi32(ct0_limit, _mm512_abs_epi32(ct0_c)),
                                       0xfe);  // a | b | c
    __m512i s_high, s_low;
    decompose_v<kGamma2>(freeze_v(_mm512_add_epi32(r, ct0_c)), s_high, s_low);
    const __m512i diff = _mm512_xor_si512(s_high, r_high);
    const __m512i hint = _mm512_srli_epi32(
        _mm512_or_si512(diff, _mm512_sub_epi32(_mm512_setzero_si512(), diff)), 31);
    store(h.c.data() + i, hint);
    hints = _mm512_add_epi32(hints, hint);
  }
  count += _mm512_reduce_add_epi32(hints);
  return any_negative(reject);
}

template <std::int32_t kGamma2>
SION_AVX512 void poly_use_hints(Poly& w1, const Poly& w, const Poly& h) noexcept {
  constexpr std::int32_t m = (kQ - 1) / (2 * kGamma2);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i vm = _mm512_set1_epi32(m);
  for (std::size_t i = 0; i < kN; i += 16) {
    __m512i high, low;
    decompose_v<kGamma2>(freeze_v(load(w.c.data() + i)), high, low);
    // +1 where low > 0, else -1, where h = 1; then mod m.
    const __m512i up = _mm512_srai_epi32(_mm512_sub_epi32(zero, low), 31);
    const __m512i delta = _mm512_sub_epi32(zero, _mm512_or_si512(up, _mm512_set1_epi32(1)));
    const __m512i apply = _mm512_sub_epi32(zero, load(h.c.data() + i));
    __m512i v = _mm512_add_epi32(high, _mm512_and_si512(delta, apply));
    v = _mm512_add_epi32(v, _mm512_and_si512(_mm512_srai_epi32(v, 31), vm));
    v = _mm512_sub_epi32(
        v, _mm512_and_si512(_mm512_srai_epi32(_mm512_sub_epi32(_mm512_set1_epi32(m - 1), v), 31),
                            vm));
    store(w1.c.data() + i, v);
  }
}

}  // namespace
}  // namespace avx512

// In mldsa_avx2.cpp, beside their AVX2 relatives.
std::size_t rej_uniform_avx512(std::int32_t* out, std::size_t need, const std::uint8_t* buf,
                               std::size_t len) noexcept;
void unpack_gamma1_17_avx2(Poly& z, const std::uint8_t* in) noexcept;
void unpack_gamma1_19_avx2(Poly& z, const std::uint8_t* in) noexcept;

const Kernels kAvx512Kernels = {
    "avx512",
    8,
    &avx512::ntt,
    &avx512::invntt,
    &avx512::pointwise_montgomery,
    &avx512::pointwise_acc_montgomery,
    &avx512::poly_reduce,
    &avx512::poly_freeze,
    &avx512::poly_add_check_norm,
    &rej_uniform_avx512,
    &unpack_gamma1_17_avx2,
    &unpack_gamma1_19_avx2,
    {&avx512::poly_highbits<(kQ - 1) / 88>, &avx512::poly_make_hints<(kQ - 1) / 88>,
     &avx512::poly_use_hints<(kQ - 1) / 88>},
    {&avx512::poly_highbits<(kQ - 1) / 32>, &avx512::poly_make_hints<(kQ - 1) / 32>,
     &avx512::poly_use_hints<(kQ - 1) / 32>},
};

#else  // not x86-64: kernels() never hands this out

const Kernels kAvx512Kernels = kPortableKernels;

#endif

}  // namespace sion::crypto::mldsa::detail
