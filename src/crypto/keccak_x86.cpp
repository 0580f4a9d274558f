// SIMD Keccak-f[1600] on 4 or 8 interleaved states (keccak_x86.hpp). Each
// function is compiled for its ISA with a function-level target attribute,
// never a file- or project-wide -m flag, so the rest of the binary runs on
// any x86-64; keccak.cpp calls these only when the CPU has the ISA.
// AVX2 has its own row-by-row permutation and a fused SHA3-256 below; the
// AVX-512 permutations are written once, in keccak_x86_rounds.inc, over
// vector operations that each function defines and the .inc undefines again.

#include "keccak_x86.hpp"

#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>

#include "sion/base/endian.hpp"
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
//
// Row by row, as the scalar keccak_f1600_bmi2 in keccak.cpp: pi's output row
// Y gathers lane X from lane (X + 3Y mod 5, X), which goes through theta's D,
// rho and chi within the row straight away, and the rounds alternate between
// the caller's lanes and a local copy. Only one row of B (5 vectors), C and D
// are live, so little spills; keeping all 25 lanes in locals moved about
// 45 vectors a round to and from the stack and measured 12% slower (Zen 3).

namespace {

// r[x][y] (FIPS 202, Sec. 3.2.2, Table 2) at index x + 5y.
constexpr int kRhoOffsets[25] = {0,  1,  62, 28, 27, 36, 44, 6,  55, 20, 3,  10, 43,
                                 25, 39, 41, 45, 15, 21, 8,  18, 2,  61, 56, 14};

// The 4x4 transpose of 64-bit words: row j of the result holds word j of
// r0..r3. It is its own inverse, so it turns four 32-byte input pieces into
// four lane vectors and four lane vectors back into four digests.
[[gnu::target("avx2"), gnu::always_inline]] inline void transpose4(__m256i& r0, __m256i& r1, __m256i& r2,
                                                                   __m256i& r3) noexcept {
  const __m256i t0 = _mm256_unpacklo_epi64(r0, r1);
  const __m256i t1 = _mm256_unpackhi_epi64(r0, r1);
  const __m256i t2 = _mm256_unpacklo_epi64(r2, r3);
  const __m256i t3 = _mm256_unpackhi_epi64(r2, r3);
  r0 = _mm256_permute2x128_si256(t0, t2, 0x20);
  r1 = _mm256_permute2x128_si256(t1, t3, 0x20);
  r2 = _mm256_permute2x128_si256(t0, t2, 0x31);
  r3 = _mm256_permute2x128_si256(t1, t3, 0x31);
}

[[gnu::target("avx2"), gnu::always_inline]] inline __m256i load_lane(const std::uint64_t* a, std::size_t i,
                                                                     std::size_t stride) noexcept {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(a + i * stride));
}

struct Avx2Rotations {
  __m256i rot8;
  __m256i rot56;
};

[[gnu::target("avx2"), gnu::always_inline]] inline Avx2Rotations avx2_rotations() noexcept {
  // Byte rotations by 8 and 56 bits are one vpshufb instead of two shifts
  // and an or.
  return {_mm256_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14,  //
                           7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14),
          _mm256_setr_epi8(1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8,  //
                           1, 2, 3, 4, 5, 6, 7, 0, 9, 10, 11, 12, 13, 14, 15, 8)};
}

template <int kRot>
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i rol_avx2(__m256i x, const Avx2Rotations& rot) noexcept {
  if constexpr (kRot == 0) {
    return x;
  } else if constexpr (kRot == 8) {
    return _mm256_shuffle_epi8(x, rot.rot8);
  } else if constexpr (kRot == 56) {
    return _mm256_shuffle_epi8(x, rot.rot56);
  } else if constexpr (kRot == 1) {
    // x + x instead of a left shift: vpaddq issues on more pipes than vpsllq.
    return _mm256_or_si256(_mm256_add_epi64(x, x), _mm256_srli_epi64(x, 63));
  } else {
    return _mm256_or_si256(_mm256_slli_epi64(x, kRot), _mm256_srli_epi64(x, 64 - kRot));
  }
}

// Output row Y of one round: reads lanes from `a` (lane i at a + i *
// a_stride words), writes lanes 5Y .. 5Y + 4 of e (e_stride likewise) and
// folds them into c, the column parities of the round's output (row 0 sets
// them). All loads come before the stores.
template <int kY, std::size_t a_stride, std::size_t e_stride>
[[gnu::target("avx2"), gnu::always_inline]] inline void row_avx2(const std::uint64_t* a, std::uint64_t* e,
                                                                 const __m256i (&d)[5], __m256i (&c)[5],
                                                                 const Avx2Rotations& rot,
                                                                 std::uint64_t rc = 0) noexcept {
  constexpr int x0 = (3 * kY) % 5, x1 = (1 + 3 * kY) % 5, x2 = (2 + 3 * kY) % 5, x3 = (3 + 3 * kY) % 5,
                x4 = (4 + 3 * kY) % 5;
  const __m256i b0 = rol_avx2<kRhoOffsets[x0]>(_mm256_xor_si256(load_lane(a, x0, a_stride), d[x0]), rot);
  const __m256i b1 = rol_avx2<kRhoOffsets[x1 + 5]>(_mm256_xor_si256(load_lane(a, x1 + 5, a_stride), d[x1]), rot);
  const __m256i b2 = rol_avx2<kRhoOffsets[x2 + 10]>(_mm256_xor_si256(load_lane(a, x2 + 10, a_stride), d[x2]), rot);
  const __m256i b3 = rol_avx2<kRhoOffsets[x3 + 15]>(_mm256_xor_si256(load_lane(a, x3 + 15, a_stride), d[x3]), rot);
  const __m256i b4 = rol_avx2<kRhoOffsets[x4 + 20]>(_mm256_xor_si256(load_lane(a, x4 + 20, a_stride), d[x4]), rot);
  __m256i out0 = _mm256_xor_si256(b0, _mm256_andnot_si256(b1, b2));
  if constexpr (kY == 0) {
    // iota (Sec. 3.2.5) on lane 0 before it joins the column parity.
    out0 = _mm256_xor_si256(out0, _mm256_set1_epi64x(static_cast<long long>(rc)));
  }
  const __m256i out[5] = {
      out0,
      _mm256_xor_si256(b1, _mm256_andnot_si256(b2, b3)),
      _mm256_xor_si256(b2, _mm256_andnot_si256(b3, b4)),
      _mm256_xor_si256(b3, _mm256_andnot_si256(b4, b0)),
      _mm256_xor_si256(b4, _mm256_andnot_si256(b0, b1)),
  };
#pragma GCC unroll 5
  for (int x = 0; x < 5; ++x) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(e + static_cast<std::size_t>(5 * kY + x) * e_stride), out[x]);
    c[x] = kY == 0 ? out[x] : _mm256_xor_si256(c[x], out[x]);
  }
}

// One round from `a` to `e` (strided as above). c holds the column parities
// of a on entry and of e on return (theta of the next round). kRows < 5
// computes only the first rows: the last round of a SHA3-256 needs row 0,
// lanes 0-3, for the digest.
template <std::size_t a_stride, std::size_t e_stride, int kRows = 5>
[[gnu::target("avx2"), gnu::always_inline]] inline void round_avx2(const std::uint64_t* a, std::uint64_t* e,
                                                                   __m256i (&c)[5], std::uint64_t rc,
                                                                   const Avx2Rotations& rot) noexcept {
  __m256i d[5];
#pragma GCC unroll 5
  for (int x = 0; x < 5; ++x) {
    d[x] = _mm256_xor_si256(c[(x + 4) % 5], rol_avx2<1>(c[(x + 1) % 5], rot));
  }
  row_avx2<0, a_stride, e_stride>(a, e, d, c, rot, rc);
  if constexpr (kRows > 1) row_avx2<1, a_stride, e_stride>(a, e, d, c, rot);
  if constexpr (kRows > 2) row_avx2<2, a_stride, e_stride>(a, e, d, c, rot);
  if constexpr (kRows > 3) row_avx2<3, a_stride, e_stride>(a, e, d, c, rot);
  if constexpr (kRows > 4) row_avx2<4, a_stride, e_stride>(a, e, d, c, rot);
}

[[gnu::target("avx2"), gnu::always_inline]] inline void column_parities_avx2(const std::uint64_t* a, std::size_t stride,
                                                                             __m256i (&c)[5]) noexcept {
  for (std::size_t x = 0; x < 5; ++x) {
    c[x] =
        _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(load_lane(a, x, stride), load_lane(a, x + 5, stride)),
                                          _mm256_xor_si256(load_lane(a, x + 10, stride), load_lane(a, x + 15, stride))),
                         load_lane(a, x + 20, stride));
  }
}

// Keccak-f[1600] on lanes (kStride words apart), all 24 rounds. Without
// kDigestOnly the result is left in place; with it, the last round computes
// only row 0 and writes it (lanes 0-4, 4 words each) to digest, leaving
// lanes stale. The stride is a template parameter: a run-time one took a
// register per lane address and spilled them.
template <std::size_t kStride, bool kDigestOnly>
[[gnu::target("avx2"), gnu::always_inline]] inline void permute_avx2(std::uint64_t* lanes,
                                                                     std::uint64_t* digest) noexcept {
  const Avx2Rotations rot = avx2_rotations();
  alignas(32) std::uint64_t tmp[25 * 4];
  __m256i c[5];
  column_parities_avx2(lanes, kStride, c);
  for (int round = 0; round < 22; round += 2) {
    round_avx2<kStride, 4>(lanes, tmp, c, kKeccakRoundConstants[round], rot);
    round_avx2<4, kStride>(tmp, lanes, c, kKeccakRoundConstants[round + 1], rot);
  }
  round_avx2<kStride, 4>(lanes, tmp, c, kKeccakRoundConstants[22], rot);
  if constexpr (kDigestOnly) {
    round_avx2<4, 4, 1>(tmp, digest, c, kKeccakRoundConstants[23], rot);
  } else {
    round_avx2<4, kStride>(tmp, lanes, c, kKeccakRoundConstants[23], rot);
  }
}

}  // namespace

__attribute__((target("avx2"))) void keccak_f1600_x4_avx2(std::uint64_t* lanes, std::size_t stride) noexcept {
  // keccak_f1600_x4 passes 4, keccak_f1600_x8 without AVX-512 8.
  if (stride == 4) {
    permute_avx2<4, false>(lanes, nullptr);
  } else if (stride == 8) {
    permute_avx2<8, false>(lanes, nullptr);
  } else {
    // No caller; lanes copied to stride 4 and back.
    alignas(32) std::uint64_t packed[25 * 4];
    for (std::size_t i = 0; i < 25; ++i) std::memcpy(packed + 4 * i, lanes + i * stride, 32);
    permute_avx2<4, false>(packed, nullptr);
    for (std::size_t i = 0; i < 25; ++i) std::memcpy(lanes + i * stride, packed + 4 * i, 32);
  }
}

namespace {

// Absorbing into the state of sha3_256_x4_avx2: word w of each input into
// lane w, written over the lane while nothing has been absorbed (`fresh`),
// else XORed in.
[[gnu::target("avx2"), gnu::always_inline]] inline void put_lane(__m256i* state, bool fresh, std::size_t w,
                                                                 __m256i v) noexcept {
  state[w] = fresh ? v : _mm256_xor_si256(state[w], v);
}

// Words w .. w + 3 of every input, by a transpose of their 32 bytes.
[[gnu::target("avx2"), gnu::always_inline]] inline void put_4_lanes(__m256i* state, bool fresh,
                                                                    const std::uint8_t* const (&in)[4],
                                                                    std::size_t w) noexcept {
  __m256i r0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in[0] + 8 * w));
  __m256i r1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in[1] + 8 * w));
  __m256i r2 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in[2] + 8 * w));
  __m256i r3 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in[3] + 8 * w));
  transpose4(r0, r1, r2, r3);
  put_lane(state, fresh, w, r0);
  put_lane(state, fresh, w + 1, r1);
  put_lane(state, fresh, w + 2, r2);
  put_lane(state, fresh, w + 3, r3);
}

// A lane, little-endian (FIPS 202, Sec. B.1), as _mm256_set_epi64x takes it.
inline long long load_word(const std::uint8_t* p) noexcept {
  return static_cast<long long>(base::load_le<std::uint64_t>(p));
}

// Word w of every input.
[[gnu::target("avx2"), gnu::always_inline]] inline void put_1_lane(__m256i* state, bool fresh,
                                                                   const std::uint8_t* const (&in)[4],
                                                                   std::size_t w) noexcept {
  put_lane(state, fresh, w,
           _mm256_set_epi64x(load_word(in[3] + 8 * w), load_word(in[2] + 8 * w), load_word(in[1] + 8 * w),
                             load_word(in[0] + 8 * w)));
}

}  // namespace

// SHA3-256 (FIPS 202, Sec. 6.1) of four equal-length inputs in the four
// lanes, absorbing straight from the inputs: 4x4 word transposes turn each
// input's next 32 bytes into lanes, the first block is written rather than
// XORed into a zeroed state, and only the digest lanes of the last round
// are computed.
__attribute__((target("avx2"))) void sha3_256_x4_avx2(const std::uint8_t* const* inputs, std::size_t len,
                                                      std::uint8_t* const* outputs) noexcept {
  constexpr std::size_t kRate = 136;
  alignas(32) __m256i state[25];
  std::uint64_t* const lanes = reinterpret_cast<std::uint64_t*>(state);
  const std::uint8_t* in[4] = {inputs[0], inputs[1], inputs[2], inputs[3]};
  bool fresh = true;  // nothing absorbed yet: state is uninitialised

  for (; len >= kRate; len -= kRate) {
    for (std::size_t w = 0; w < 16; w += 4) put_4_lanes(state, fresh, in, w);
    put_1_lane(state, fresh, in, 16);
    if (fresh) {
      for (std::size_t w = 17; w < 25; ++w) state[w] = _mm256_setzero_si256();
      fresh = false;
    }
    permute_avx2<4, false>(lanes, nullptr);
    for (auto& p : in) p += kRate;
  }

  // The last, partial block, the domain suffix 01 and pad10*1 (Alg. 9).
  const std::size_t full = len / 8;
  std::size_t w = 0;
  for (; w + 4 <= full; w += 4) put_4_lanes(state, fresh, in, w);
  for (; w < full; ++w) put_1_lane(state, fresh, in, w);
  std::uint64_t tail[4];
  for (std::size_t j = 0; j < 4; ++j) {
    std::uint64_t t = std::uint64_t{0x06} << (8 * (len % 8));
    for (std::size_t i = 0; i < len % 8; ++i) {
      t |= static_cast<std::uint64_t>(in[j][8 * w + i]) << (8 * i);
    }
    tail[j] = t;
  }
  put_lane(state, fresh, w, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(tail)));
  if (fresh) {
    for (++w; w < 25; ++w) state[w] = _mm256_setzero_si256();
  }
  state[16] = _mm256_xor_si256(state[16], _mm256_set1_epi64x(static_cast<long long>(0x80ULL << 56)));

  alignas(32) std::uint64_t digest[5 * 4];
  permute_avx2<4, true>(lanes, digest);
  __m256i r0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(digest));
  __m256i r1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(digest + 4));
  __m256i r2 = _mm256_load_si256(reinterpret_cast<const __m256i*>(digest + 8));
  __m256i r3 = _mm256_load_si256(reinterpret_cast<const __m256i*>(digest + 12));
  transpose4(r0, r1, r2, r3);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(outputs[0]), r0);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(outputs[1]), r1);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(outputs[2]), r2);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(outputs[3]), r3);
}

// ---- AVX-512VL: 4 states in __m256i, three-input logic and rotations -------

__attribute__((target("avx2,avx512f,avx512vl"))) void keccak_f1600_x4_avx512vl(std::uint64_t* lanes,
                                                                               std::size_t stride) noexcept {
#define V __m256i
#define LOAD(i) _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes + (i)*stride))
#define STORE(i, v) _mm256_store_si256(reinterpret_cast<__m256i*>(lanes + (i)*stride), v)
#define XOR(a, b) _mm256_xor_si256(a, b)
#define XOR5(a, b, c, d, e) _mm256_ternarylogic_epi64(_mm256_ternarylogic_epi64(a, b, c, 0x96), d, e, 0x96)
#define ROL(x, n) _mm256_rol_epi64(x, n)
#define ROL8(x) _mm256_rol_epi64(x, 8)
#define ROL56(x) _mm256_rol_epi64(x, 56)
#define CHI(a, b, c) _mm256_ternarylogic_epi64(a, b, c, 0xd2)
#define IOTA(a, rc) XOR(a, _mm256_set1_epi64x(static_cast<long long>(rc)))
#include "keccak_x86_rounds.inc"
}

// ---- AVX-512F: 8 states in __m512i -------------------------------------------

__attribute__((target("avx2,avx512f"))) void keccak_f1600_x8_avx512(std::uint64_t* lanes) noexcept {
#define V __m512i
#define LOAD(i) _mm512_load_si512(static_cast<const void*>(lanes + (i)*8))
#define STORE(i, v) _mm512_store_si512(static_cast<void*>(lanes + (i)*8), v)
#define XOR(a, b) _mm512_xor_si512(a, b)
#define XOR5(a, b, c, d, e) _mm512_ternarylogic_epi64(_mm512_ternarylogic_epi64(a, b, c, 0x96), d, e, 0x96)
#define ROL(x, n) _mm512_rol_epi64(x, n)
#define ROL8(x) _mm512_rol_epi64(x, 8)
#define ROL56(x) _mm512_rol_epi64(x, 56)
#define CHI(a, b, c) _mm512_ternarylogic_epi64(a, b, c, 0xd2)
#define IOTA(a, rc) XOR(a, _mm512_set1_epi64(static_cast<long long>(rc)))
#include "keccak_x86_rounds.inc"
}

#else  // not x86-64: never called (cpu_features() reports nothing)

void keccak_f1600_x4_avx2(std::uint64_t*, std::size_t) noexcept {}
void sha3_256_x4_avx2(const std::uint8_t* const*, std::size_t, std::uint8_t* const*) noexcept {}
void keccak_f1600_x4_avx512vl(std::uint64_t*, std::size_t) noexcept {}
void keccak_f1600_x8_avx512(std::uint64_t*) noexcept {}

#endif

}  // namespace sion::crypto::detail
